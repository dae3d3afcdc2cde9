"""``tf.linalg``: matrix products, norms, traces and diagonals."""

from ..engine.ops.creation import eye
from ..engine.ops.linalg import (
    diag_part,
    einsum,
    matmul,
    matrix_transpose,
    matvec,
    norm,
    tensordot,
    trace,
)

__all__ = [
    "diag_part",
    "einsum",
    "eye",
    "matmul",
    "matrix_transpose",
    "matvec",
    "norm",
    "tensordot",
    "trace",
]
