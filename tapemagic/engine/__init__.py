"""tapemagic's engine: tensors, variables, tapes and the op library, on NumPy alone.

Tensors, variables, tapes and the core of the op library load with the package;
``custom_gradient``, ``Module``, ``name_scope`` and ``TensorSpec`` load on first
use, and ``OP_TABLE`` read from here is the whole table (it loads every op
module first; see :mod:`tapemagic.engine.ops`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import (
    dtypes,
    errors,
    nest,
    ops,  # noqa: E402  (registers the core of the op library)
)
from .op import Op, defop
from .tape import GradientTape, UnconnectedGradients
from .tensor import (
    Tensor,
    TensorShape,
    Variable,
    array_of,
    convert_to_tensor,
    id_of,
    is_tensor,
)

if TYPE_CHECKING:  # loaded on first use (see the module docstring)
    from .custom import custom_gradient
    from .module import Module, name_scope
    from .op import OP_TABLE
    from .tensor_spec import TensorSpec

__all__ = [
    "OP_TABLE",
    "GradientTape",
    "Module",
    "Op",
    "Tensor",
    "TensorShape",
    "TensorSpec",
    "UnconnectedGradients",
    "Variable",
    "array_of",
    "convert_to_tensor",
    "custom_gradient",
    "defop",
    "dtypes",
    "errors",
    "id_of",
    "is_tensor",
    "name_scope",
    "nest",
    "ops",
]

# Each name that loads on first use, and its module.
_LAZY = {
    "Module": ".module",
    "TensorSpec": ".tensor_spec",
    "custom_gradient": ".custom",
    "name_scope": ".module",
}


def __getattr__(name: str) -> Any:
    if name == "OP_TABLE":
        ops.load_all()  # the whole table: every op registered
        value = importlib.import_module(".op", __name__).OP_TABLE
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
