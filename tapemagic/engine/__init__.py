"""tapemagic's engine: tensors, variables, tapes and the op library, on NumPy alone."""

from . import (
    dtypes,
    errors,
    nest,
    ops,  # noqa: E402  (registers every op)
)
from .custom import custom_gradient
from .module import Module, name_scope
from .op import OP_TABLE, Op, defop
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
