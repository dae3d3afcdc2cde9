"""The op library: every primitive declared once, forward beside VJP.

Modules group ops by kind and import each other only downwards, in this order:
``math`` (elementwise; the transcendental functions in ``elementary`` and the
gradients of sqrt, rsqrt and reciprocal, primitives as in TensorFlow, in
``math_grads``, both of which it imports and re-exports the first), ``indexing`` and
``shape`` (moving elements; ``shape`` re-exports ``indexing``), ``reduce`` and
``scan``, ``creation``, ``decompositions`` and ``norms``, ``linalg``
(re-exporting those two under ``tf.linalg``'s names), then the neural-network ops
(``activations``, ``softmax``, ``conv``, ``pooling``, and ``nn``, which
composes ops and re-exports the rest under ``tf.nn``'s names).
The ops composed of others sit apart from the primitives, one module per area:
``composed_math``, ``reductions``, ``composed_shape``, ``composed_creation`` and
``composed_linalg``; ``sorting`` holds ``argsort`` beside ``sort`` and ``top_k``.

VJPs import nothing: they call the ops they need through the namespace they
run in (engine/namespace.py). Importing this package registers the core of the
library in :data:`tapemagic.engine.op.OP_TABLE` (the modules a tensor's
operators and their gradients use: ``math``, ``indexing``, ``shape``,
``reduce``, ``scan``, ``linalg`` with ``decompositions`` and ``norms``) and binds
Python's operators on tensors to them (``operators``). The other modules load on first
use, as attributes of this package or when imported (:func:`load_all` loads
them all), so a program that only takes gradients of arithmetic starts without
them. The ops a module's VJPs call are registered whenever the module is: they
are the core's, its own, or those of the modules it imports
(tests/tf/test_lazy_imports.py checks each module in a fresh process).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from .. import eager_tensor as _eager_tensor
from .. import variable as _variable
from . import (
    decompositions,
    elementary,
    indexing,
    linalg,
    math,
    norms,
    operators,
    reduce,
    scan,
    shape,
)

if TYPE_CHECKING:  # loaded on first use (see the module docstring)
    from . import (
        activations,
        composed_creation,
        composed_linalg,
        composed_math,
        composed_shape,
        conv,
        creation,
        nn,
        pooling,
        reductions,
        softmax,
        sorting,
    )

# The modules that load on first use.
LAZY_MODULES = (
    "activations",
    "composed_creation",
    "composed_linalg",
    "composed_math",
    "composed_shape",
    "conv",
    "creation",
    "nn",
    "pooling",
    "reductions",
    "softmax",
    "sorting",
)

operators.bind_operators(_eager_tensor._Operators, _variable.Variable)

__all__ = [
    "LAZY_MODULES",
    "activations",
    "composed_creation",
    "composed_linalg",
    "composed_math",
    "composed_shape",
    "conv",
    "creation",
    "decompositions",
    "elementary",
    "indexing",
    "linalg",
    "load_all",
    "math",
    "nn",
    "norms",
    "operators",
    "pooling",
    "reduce",
    "reductions",
    "scan",
    "shape",
    "softmax",
    "sorting",
]


def load_all() -> None:
    """Load every module of the library, registering every op in OP_TABLE."""
    for name in LAZY_MODULES:
        importlib.import_module(f".{name}", __name__)


def __getattr__(name: str) -> ModuleType:
    if name not in LAZY_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f".{name}", __name__)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(LAZY_MODULES))
