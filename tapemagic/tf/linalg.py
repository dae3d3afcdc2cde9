# Generated from the op table by tapemagic/tf/_generate.py: do not edit.
# Say where an op lives beside it (defop's tf=, @tf_export) and run
# python -m tapemagic.tf._generate.
"""``tf.linalg``: matrix products, norms, traces and diagonals."""

from ..engine.ops.composed_linalg import (
    matvec,
    tensordot,
    trace,
)
from ..engine.ops.creation import eye
from ..engine.ops.decompositions import (
    cholesky,
    det,
    inv,
    slogdet,
    solve,
)
from ..engine.ops.linalg import (
    diag_part,
    einsum,
    matmul,
    matrix_transpose,
)
from ..engine.ops.nn import l2_normalize
from ..engine.ops.norms import (
    global_norm,
    norm,
)

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
