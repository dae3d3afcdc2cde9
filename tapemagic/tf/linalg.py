"""``tf.linalg``: matrix products, norms, traces and diagonals."""

from ..engine.ops.composed_linalg import (
    matvec,
    tensordot,
    trace,
)
from ..engine.ops.creation import eye
from ..engine.ops.linalg import (
    cholesky,
    det,
    diag_part,
    einsum,
    global_norm,
    inv,
    matmul,
    matrix_transpose,
    norm,
    slogdet,
    solve,
)
from ..engine.ops.nn import l2_normalize

__all__ = [
    "cholesky",
    "det",
    "diag_part",
    "einsum",
    "eye",
    "global_norm",
    "inv",
    "l2_normalize",
    "matmul",
    "matrix_transpose",
    "matvec",
    "norm",
    "slogdet",
    "solve",
    "tensordot",
    "trace",
]
