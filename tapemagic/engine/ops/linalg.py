"""Linear algebra: matmul (batched, with transposes), tensordot, einsum, matvec."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..op import apply, defop
from ..tensor import Tensor, convert_inputs
from ._util import nb, unbroadcast

__all__ = ["matmul"]


def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _matmul_forward(a: np.ndarray, b: np.ndarray, *, transpose_a: bool,
                    transpose_b: bool) -> np.ndarray:  # fmt: skip
    return np.matmul(_mT(a) if transpose_a else a, _mT(b) if transpose_b else b)


# TensorFlow's _MatMulGrad: each case is again one matmul with transposes, so the
# gradients broadcast over leading (batch) axes of g like the forward does.
def _matmul_vjp_a(g, out, a, b, *, transpose_a, transpose_b):
    if not transpose_a:
        ga = matmul(g, b, transpose_b=not transpose_b)
    else:
        ga = matmul(b, g, transpose_a=transpose_b, transpose_b=True)
    return unbroadcast(ga, a._value.shape, nb(g, out))


def _matmul_vjp_b(g, out, a, b, *, transpose_a, transpose_b):
    if not transpose_b:
        gb = matmul(a, g, transpose_a=not transpose_a)
    else:
        gb = matmul(g, a, transpose_a=True, transpose_b=transpose_a)
    return unbroadcast(gb, b._value.shape, nb(g, out))


_matmul = defop("matmul", _matmul_forward, (_matmul_vjp_a, _matmul_vjp_b))


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix product of the last two axes, broadcasting the leading (batch) axes.

    Raises:
        InvalidArgumentError: if an input has rank < 2 or the inner sizes differ.

    Example:
        >>> matmul([[1.0, 2.0]], [[3.0], [4.0]]).numpy()
        array([[11.]], dtype=float32)
    """
    x, y = convert_inputs((a, b))
    ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
    xs, ys = x._value.shape, y._value.shape
    if len(xs) < 2 or len(ys) < 2:
        raise InvalidArgumentError(
            f"matmul needs tensors of rank >= 2, got shapes {list(xs)} and {list(ys)}. "
            "For a matrix times a vector use tf.linalg.matvec, or reshape the vector "
            "to a column with tf.reshape(v, [-1, 1]).",
            op="matmul",
        )
    inner_a = xs[-2] if ta else xs[-1]
    inner_b = ys[-1] if tb else ys[-2]
    if inner_a != inner_b:
        raise InvalidArgumentError(
            f"Matrix size-incompatible: In[0]: {list(xs)}, In[1]: {list(ys)}"
            f"{' (transposed)' if ta or tb else ''}; the inner dimensions "
            f"{inner_a} and {inner_b} must match.",
            op="matmul",
        )
    return apply(_matmul.op, (x, y), {"transpose_a": ta, "transpose_b": tb})
