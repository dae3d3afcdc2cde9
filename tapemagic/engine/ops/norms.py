"""Norms and clipping by norm, composed of elementwise, reduction and shape ops
the way TensorFlow composes them, so gradients (and their kinks) match TensorFlow's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..accepts import FLOATING, NN_FLOATING, NUMBER, Accepts
from ..eager_tensor import constant_of
from ..errors import UnimplementedError
from ..exports import tf_export
from ..tensor import Tensor, convert_to_tensor
from .math import abs as _abs
from .math import greater, maximum, minimum, multiply, sqrt, truediv, where
from .math import pow as _pow
from .reduce import reduce_max, reduce_sum
from .shape import squeeze, stack

__all__ = [
    "clip_by_global_norm",
    "clip_by_norm",
    "global_norm",
    "norm",
]


def _norm_axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis._value.tolist()
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not 1 <= len(items) <= 2 or not all(
        isinstance(i, (int, np.integer)) for i in items
    ):
        raise ValueError(
            f"'axis' must be None, an integer, or a tuple of 2 unique integers, got "
            f"{axis!r}."
        )
    for i in items:
        if not -ndim <= i < ndim:
            raise ValueError(
                f"norm: axis {i} is out of range for a tensor of rank {ndim}."
            )
    out = tuple(int(i) % ndim for i in items)
    if len(out) == 2 and out[0] == out[1]:
        raise ValueError(
            f"'axis' must be None, an integer, or a tuple of 2 unique integers, got "
            f"{axis!r} (the same axis twice)."
        )
    return out


def _is_ord(ord: Any, value: Any) -> bool:
    return not isinstance(ord, str) and ord == value


@tf_export("tf", "tf.linalg", numpy=("linalg.norm",))
def norm(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: bool | None = None,
    name: str | None = None,
) -> Tensor:
    """Vector and matrix norms, composed as ``tf.norm`` composes them.

    The euclidean norm is ``sqrt(reduce_sum(x * x))``, so its gradient at a zero
    vector is NaN, exactly as in TensorFlow (0 * inf). Add a small epsilon under
    the square root yourself if you need a finite gradient there.

    Args:
        tensor: a floating-point tensor.
        ord: ``'euclidean'`` (default), ``'fro'`` (matrices only), 1, 2,
            ``np.inf`` or any positive real p. Matrix norms (``axis`` a pair)
            support ``'euclidean'``, ``'fro'``, 1 and ``np.inf``.
        axis: None (the flattened tensor as one vector), an int (a batch of
            vectors) or a pair of ints (a batch of matrices).
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The norms.

    Raises:
        ValueError: if ``ord`` or ``axis`` is invalid.
        UnimplementedError: for the matrix 2-norm (it needs an SVD).

    Example:
        >>> norm([3.0, 4.0]).numpy()
        np.float32(5.0)
        >>> norm([[1.0, -2.0], [3.0, 4.0]], ord=1, axis=[0, 1]).numpy()
        np.float32(6.0)
    """
    x = convert_to_tensor(tensor)
    if x._value.dtype == np.bool_:
        raise TypeError(
            "Expected numeric or variant tensor, got dtype tf.bool. Cast it first: "
            "tf.cast(x, tf.float32)."
        )
    axes = _norm_axes(axis, x._value.ndim)
    is_matrix = axes is not None and len(axes) == 2
    if is_matrix:
        if not (
            ord in ("euclidean", "fro") or any(_is_ord(ord, v) for v in (1, 2, np.inf))
        ):
            raise ValueError(
                f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, "
                f"inf], got {ord!r}."
            )
        if _is_ord(ord, 2):
            raise UnimplementedError(
                "norm: the matrix 2-norm (largest singular value) needs an SVD, which "
                "is not available. Use ord='fro' or compute it another way.",
                op="norm",
            )
    elif ord != "euclidean" and (
        isinstance(ord, str) or not np.isreal(ord) or not ord > 0
    ):
        raise ValueError(
            f"'ord' must be a supported vector norm ('euclidean', 1, 2, inf or a "
            f"positive real number), got {ord!r}. 'fro' is for matrices: pass "
            "axis=[-2, -1]."
        )
    if ord in ("euclidean", "fro") or _is_ord(ord, 2):
        result = sqrt(reduce_sum(multiply(x, x), axis=axes, keepdims=True))
    else:
        magnitude = _abs(x)
        if _is_ord(ord, 1):
            result = reduce_sum(
                magnitude, axis=None if axes is None else axes[0], keepdims=True
            )
            if is_matrix:
                result = reduce_max(result, axis=axes[1], keepdims=True)
        elif _is_ord(ord, np.inf):
            if is_matrix:
                magnitude = reduce_sum(magnitude, axis=axes[1], keepdims=True)
            result = reduce_max(
                magnitude, axis=None if axes is None else axes[0], keepdims=True
            )
        else:
            # NumPy scalars keep full precision in a float64 tensor
            p = np.float64(ord)
            total = reduce_sum(_pow(magnitude, p), axis=axes, keepdims=True)
            result = _pow(total, 1 / p)
    if keepdims:
        return result
    return squeeze(result, axis=axes)


# -- clipping by norm (composed, as TensorFlow's clip_ops) ----------------------------


# What TensorFlow's compositions refuse first: clip_by_norm sums (bool) then
# takes a square root (integers); global_norm's L2Loss takes floats only
_CLIP_BY_NORM = (NUMBER.for_op("Sum"), FLOATING.for_op("Sqrt"))
_GLOBAL_NORM = (NN_FLOATING.for_op("L2Loss"),)


def _float_values(t: Any, refusals: tuple[Accepts, ...], hint: Any = None) -> Tensor:
    x = convert_to_tensor(t, dtype_hint=hint)
    for accepts in refusals:
        accepts.check(x)
    return x


@tf_export("tf")
def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None,
                 name: str | None = None) -> Tensor:  # fmt: skip
    """Rescale ``t`` so that its L2 norm (over ``axes``) is at most ``clip_norm``.

    The result is ``t * clip_norm / max(norm(t), clip_norm)``. Composed as TensorFlow
    composes it, including its double ``where`` around the square root, so the gradient
    is finite at ``t = 0``; ``clip_norm`` gets a gradient where it clips. On a tie (norm
    equal to ``clip_norm``) the gradient goes through the norm, as ``maximum`` gives
    ties to its first argument.

    Args:
        t: a floating-point tensor.
        clip_norm: a positive scalar (or a tensor that broadcasts to ``t`` without
            changing its shape).
        axes: the axes to take the norm over (default all): one norm per slice.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The clipped tensor, of ``t``'s shape and dtype.

    Raises:
        InvalidArgumentError: if ``t`` is not floating point, as in TensorFlow.
        ValueError: if ``clip_norm`` would change ``t``'s shape.

    Example:
        >>> clip_by_norm([3.0, 4.0], 1.0).numpy()
        array([0.6, 0.8], dtype=float32)
        >>> clip_by_norm([3.0, 4.0], 10.0).numpy()
        array([3., 4.], dtype=float32)
    """
    values = _float_values(t, _CLIP_BY_NORM)
    l2sum = reduce_sum(values * values, axes, keepdims=True)
    positive = greater(l2sum, 0)
    # TensorFlow's two-tap where: sqrt never sees 0, so no NaN gradient at t = 0.
    l2norm = where(positive, sqrt(where(positive, l2sum, 1)), l2sum)
    scaled = values * clip_norm
    if scaled._value.shape != values._value.shape:
        raise ValueError(
            f"clip_by_norm: clip_norm would change t's shape {list(values.shape)} "
            f"to {list(scaled.shape)} by broadcasting; pass a scalar clip_norm."
        )
    return truediv(scaled, maximum(l2norm, clip_norm))


def _tensor_sequence(t_list: Any, op_name: str) -> list:
    if isinstance(t_list, (str, bytes)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(
            f"{op_name}: `t_list` should be a sequence of tensors. Received "
            f"{type(t_list).__name__}; wrap a single tensor in a list, or turn a "
            "generator into one with list(...)."
        )
    return list(t_list)


@tf_export("tf.linalg")
def global_norm(t_list: Any, name: str | None = None) -> Tensor:
    """``sqrt(sum of squares of every element of every tensor in t_list)``.

    ``None`` entries (e.g. gradients of unconnected variables) are skipped.
    Composed as TensorFlow composes it: half sums of squares, stacked, summed,
    doubled, square-rooted; at all zeros the gradient is NaN, as there.

    Args:
        t_list: a list or tuple of floating-point tensors (of one dtype) or None.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A scalar tensor (float32 0 if every entry is None).

    Raises:
        TypeError: if ``t_list`` is not a list or tuple.
        InvalidArgumentError: if it holds integers or bools, as in TensorFlow.
        InvalidArgumentError: if the tensors' dtypes differ.

    Example:
        >>> global_norm([[3.0], None, [[4.0, 12.0]]]).numpy()
        np.float32(13.0)
    """
    values = [
        _float_values(t, _GLOBAL_NORM)
        for t in _tensor_sequence(t_list, "global_norm")
        if t is not None
    ]
    if not values:
        return constant_of(np.zeros((), np.float32))
    halves = [reduce_sum(v * v) * 0.5 for v in values]
    return sqrt(reduce_sum(stack(halves)) * 2.0)


@tf_export("tf")
def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> tuple[list, Tensor]:  # fmt: skip
    """Scale all tensors by ``clip_norm / max(global_norm, clip_norm)``.

    Gradient clipping as TensorFlow does it: if the global norm of all the
    tensors exceeds ``clip_norm``, all are shrunk by the same factor, keeping
    their directions. ``None`` entries pass through as ``None``. An infinite or
    NaN norm makes every entry NaN, as in TensorFlow. Composed of engine ops, so
    the result is differentiable (through the norm too, unless ``use_norm`` is
    given).

    Args:
        t_list: a list or tuple of floating-point tensors or None.
        clip_norm: the largest allowed global norm (a positive scalar).
        use_norm: the global norm to use, if already computed.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        ``(clipped_list, global_norm)``.

    Raises:
        TypeError: if ``t_list`` is not a list or tuple.
        InvalidArgumentError: if the tensors' dtypes differ from the norm's.

    Example:
        >>> clipped, norm = clip_by_global_norm([[3.0], None, [4.0]], 1.0)
        >>> [None if c is None else c.numpy().tolist() for c in clipped]
        [[0.6000000238418579], None, [0.800000011920929]]
        >>> float(norm)
        5.0
    """
    op_name, float32 = "clip_by_global_norm", dtypes.float32
    items = _tensor_sequence(t_list, op_name)
    norm_ = global_norm(items) if use_norm is None else convert_to_tensor(use_norm)
    one = convert_to_tensor(1.0, dtype=norm_.dtype)
    scale_for_finite = multiply(clip_norm, minimum(1.0 / norm_, one / clip_norm))
    # a no-op for a finite norm; an inf or NaN norm makes the scale NaN
    scale = scale_for_finite + (norm_ - norm_)
    clipped = [
        None if t is None else multiply(_float_values(t, _GLOBAL_NORM, float32), scale)
        for t in items
    ]
    return clipped, norm_
