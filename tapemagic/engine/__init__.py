"""tapemagic's engine: tensors, variables, tapes and the op library, on NumPy alone."""

from . import dtypes, errors, nest
from .op import OP_TABLE, Op, defop
from .tape import GradientTape, UnconnectedGradients
from .tensor import Tensor, TensorShape, Variable, convert_to_tensor, is_tensor
from . import ops  # noqa: E402  (registers every op)

__all__ = [
    "OP_TABLE",
    "GradientTape",
    "Op",
    "Tensor",
    "TensorShape",
    "UnconnectedGradients",
    "Variable",
    "convert_to_tensor",
    "defop",
    "dtypes",
    "errors",
    "is_tensor",
    "nest",
    "ops",
]
