"""Linear algebra composed of the primitives in ``linalg``, ``shape`` and
``reduce``, the way TensorFlow composes it, so gradients (and their kinks) match
TensorFlow's: ``matvec`` (a matmul with a column), ``tensordot`` (reshape both
to matrices, one matmul, reshape back) and ``trace`` (a sum of ``diag_part``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..tensor import Tensor, convert_inputs
from . import linalg, reduce
from . import shape as _shape

__all__ = ["matvec", "tensordot", "trace"]


@tf_export("tf.linalg")
def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix times vector over the last axes: ``matmul(a, b[..., None])[..., 0]``.

    Leading (batch) axes broadcast as in ``matmul``; composed the way TensorFlow
    composes ``tf.linalg.matvec``.

    Args:
        a: a tensor of rank >= 2, shape ``[..., M, N]``.
        b: a tensor of rank >= 1, shape ``[..., N]``.
        transpose_a: use the transpose of the last two axes of ``a``.
        adjoint_a: the same as ``transpose_a`` for real tensors.
        a_is_sparse: ignored (a hint in TensorFlow).
        b_is_sparse: ignored (a hint in TensorFlow).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``[..., M]``.

    Raises:
        InvalidArgumentError: if ``a`` has rank < 2, ``b`` rank < 1, or the inner
            sizes differ.

    Example:
        >>> matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]).numpy()
        array([3., 7.], dtype=float32)
    """
    x, v = convert_inputs((a, b))
    if v._value.ndim < 1:
        raise InvalidArgumentError(
            f"matvec needs b of rank >= 1, got a scalar {v._value!r}. Pass a vector "
            "of shape [..., N].",
            op="matvec",
        )
    column = _shape.expand_dims(v, -1)
    return _shape.squeeze(linalg.matmul(x, column, transpose_a or adjoint_a), -1)


# -- tensordot ------------------------------------------------------------------------


def _tensordot_axes(axes: Any, a_rank: int, b_rank: int) -> tuple[list, list]:
    if isinstance(axes, Tensor):
        axes = axes._value.tolist()
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"`axes` must be at least 0, got axes={n}.")
        if n > a_rank or n > b_rank:
            raise ValueError(
                f"`axes` must not be larger than the rank of either tensor, got "
                f"axes={n} for ranks {a_rank} and {b_rank}."
            )
        return list(range(a_rank - n, a_rank)), list(range(n))
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ValueError(
            f"`axes` must be an integer or a pair of axis lists, got {axes!r}. "
            "Example: axes=[[1], [0]] contracts a's axis 1 with b's axis 0."
        )
    a_axes, b_axes = axes
    if isinstance(a_axes, (int, np.integer)):
        a_axes = [a_axes]
    if isinstance(b_axes, (int, np.integer)):
        b_axes = [b_axes]
    a_axes, b_axes = [int(i) for i in a_axes], [int(i) for i in b_axes]
    if len(a_axes) != len(b_axes):
        raise ValueError(
            f"Different number of contraction axes for a and b: {a_axes} and "
            f"{b_axes}. Give one axis of b for each axis of a."
        )
    for what, ax, rank in (("a", a_axes, a_rank), ("b", b_axes, b_rank)):
        for i in ax:
            if not -rank <= i < rank:
                raise ValueError(
                    f"tensordot: axis {i} is out of range for {what} of rank {rank}."
                )
    return [i % a_rank for i in a_axes], [i % b_rank for i in b_axes]


@tf_export("tf", "tf.linalg")
def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sum of products over the axes ``axes`` of ``a`` and ``b``.

    Composed as TensorFlow composes it: transpose the contracted axes together,
    reshape both to matrices, one ``matmul``, reshape back.

    Args:
        a: a tensor.
        b: a tensor of ``a``'s dtype.
        axes: an int N (the last N axes of ``a`` with the first N of ``b``), or a
            pair ``[a_axes, b_axes]`` of equally long axis lists (or single ints).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor with the free axes of ``a`` followed by the free axes of ``b``.

    Raises:
        ValueError: if ``axes`` is malformed or out of range.
        InvalidArgumentError: if contracted axes have different sizes.

    Example:
        >>> tensordot([[1.0, 2.0], [3.0, 4.0]], [1.0, 10.0], axes=1).numpy()
        array([21., 43.], dtype=float32)
    """
    x, y = convert_inputs((a, b))
    xs, ys = x._value.shape, y._value.shape
    a_axes, b_axes = _tensordot_axes(axes, len(xs), len(ys))
    for i, j in zip(a_axes, b_axes):
        if xs[i] != ys[j]:
            raise InvalidArgumentError(
                f"tensordot: axis {i} of a (shape {list(xs)}) has size {xs[i]} but "
                f"axis {j} of b (shape {list(ys)}) has size {ys[j]}; contracted axes "
                "must have equal sizes.",
                op="tensordot",
            )
    free_a = [i for i in range(len(xs)) if i not in a_axes]
    free_b = [j for j in range(len(ys)) if j not in b_axes]
    inner = int(np.prod([xs[i] for i in a_axes], dtype=np.int64))
    rows = int(np.prod([xs[i] for i in free_a], dtype=np.int64))
    cols = int(np.prod([ys[j] for j in free_b], dtype=np.int64))
    left = _shape.reshape(_shape.transpose(x, free_a + a_axes), (rows, inner))
    right = _shape.reshape(_shape.transpose(y, b_axes + free_b), (inner, cols))
    shape = tuple(xs[i] for i in free_a) + tuple(ys[j] for j in free_b)
    return _shape.reshape(linalg.matmul(left, right), shape)


# -- trace ---------------------------------------------------------------------------


@tf_export("tf.linalg")
def trace(x: Any, name: str | None = None) -> Tensor:
    """Sum of the main diagonal of the last two axes (``tf.linalg.trace``).

    Args:
        x: a tensor of rank >= 2.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``x.shape[:-2]``.

    Raises:
        ValueError: if ``x`` has rank < 2.

    Example:
        >>> trace([[1.0, 2.0], [3.0, 4.0]]).numpy()
        np.float32(5.0)
    """
    return reduce.reduce_sum(linalg.diag_part(x), axis=-1)
