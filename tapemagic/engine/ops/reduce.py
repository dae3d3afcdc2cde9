"""Reductions: sum, mean, max, min, prod, logsumexp, the euclidean norm, argmax,
argmin, any, all (the scans cumsum and cumprod are in ``scan``).

The VJP of a reduction reshapes ``g`` back to the input's rank (size-1 axes where
it reduced) and broadcasts. Axes are counted from the end so that cotangents with
leading batch axes need no special case.
"""

from __future__ import annotations

import math as _pymath
from typing import Any

import numpy as np

from .. import dtypes
from ..accepts import NUMBER, REAL_FLOATING, Accepts
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..op import Op, apply, defop
from ..tensor import Tensor, Variable, convert_to_tensor
from . import math as _math
from ._util import normalize_axes

# reduce_max's and reduce_min's dtypes, as TensorFlow lists them
_MAX = Accepts(
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
    "uint64, qint8, quint8, qint32, qint16, quint16",
    op="Max",
)

__all__ = [
    "argmax",
    "argmin",
    "reduce_all",
    "reduce_any",
    "reduce_euclidean_norm",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
]


# -- helpers -----------------------------------------------------------------------


def _reduction_axes(axis: Any, ndim: int, op_name: str) -> tuple[int, ...]:
    try:
        return normalize_axes(axis, ndim)
    except ValueError as err:
        raise InvalidArgumentError(
            f"{op_name}: invalid reduction dimension: {err} Pass axis=None to reduce "
            "over every axis.",
            op=op_name,
        ) from None


def _reduce(op: Op, input_tensor: Any, axis: Any, keepdims: bool) -> Tensor:
    x = convert_to_tensor(input_tensor)
    op.accepts.check(x)  # every reduction declares its dtypes
    axes = _reduction_axes(axis, x._value.ndim, op.name)
    return apply(op, (x,), {"axes": axes, "keepdims": bool(keepdims)})


def _kept_shape(shape: tuple, axes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with the reduced axes set to 1: the keepdims shape."""
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _count(shape: tuple, axes: tuple[int, ...]) -> int:
    return _pymath.prod([shape[a] for a in axes])


def _expand_reduced(ns: Any, g: Any, x: Any, axes: tuple[int, ...],
                    keepdims: bool) -> Any:  # fmt: skip
    """``g`` (batch + reduced shape) as batch + ``x.shape``, broadcast on ``axes``."""
    shape = ns.shape(x)
    gshape = ns.shape(g)
    batch = gshape[: len(gshape) - (len(shape) if keepdims else len(shape) - len(axes))]
    kept = batch + _kept_shape(shape, axes)
    full = batch + shape
    if kept == full:
        return g if gshape == kept else ns.reshape(g, shape=kept)
    if gshape != kept and gshape:  # (a number broadcasts as it is)
        g = ns.reshape(g, shape=kept)
    return ns.broadcast_to(g, shape=full)


def _as_kept(ns: Any, out: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """A reduction's result (no batch axes) reshaped to broadcast against ``x``."""
    kept = _kept_shape(ns.shape(x), axes)
    return out if ns.shape(out) == kept else ns.reshape(out, shape=kept)


# -- sum and mean ------------------------------------------------------------------


def _sum_vjp(ns, g, out, x, *, axes, keepdims):
    # Each input element adds to one sum once: g, broadcast back.
    return (_expand_reduced(ns, g, x, axes, keepdims),)


_reduce_sum = defop(
    "reduce_sum",
    # dtype=x.dtype: NumPy would widen int32 sums to int64; TensorFlow does not.
    # (np.add.reduce is np.sum without its Python-level argument handling.)
    lambda x, *, axes, keepdims: np.add.reduce(
        x, axis=axes, keepdims=keepdims, dtype=x.dtype
    ),
    _sum_vjp,
    saves=(),
    accepts=NUMBER.for_op("Sum"),
    kernels=("Sum",),
)


@tf_export("tf", "tf.math", numpy=("sum",))
def reduce_sum(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Sum over ``axis`` (all axes by default).

    Args:
        input_tensor: the tensor to reduce.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The sums, in the input's dtype (int32 sums stay int32, as in TensorFlow).

    Raises:
        InvalidArgumentError: if an axis is out of range, or the input is bool.

    Example:
        >>> reduce_sum([[1.0, 2.0], [3.0, 4.0]], axis=0).numpy()
        array([4., 6.], dtype=float32)
    """
    return _reduce(_reduce_sum.op, input_tensor, axis, keepdims)


def _mean_forward(x: np.ndarray, *, axes: tuple, keepdims: bool) -> np.ndarray:
    total = np.add.reduce(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
    count = _count(x.shape, axes)
    if x.dtype.kind in "iu":
        # TensorFlow divides integer sums in C: the mean truncates toward zero
        # (-3 / 2 is -1, where NumPy's // would give -2). An empty mean is 0.
        quotient = np.abs(total) // max(count, 1)
        return (np.sign(total) * quotient).astype(x.dtype)
    if not count:  # the mean of nothing is NaN, silently, as in TensorFlow
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.true_divide(total, count, dtype=x.dtype)
    return np.true_divide(total, count, dtype=x.dtype)


# A primitive rather than sum / count: integer means truncate in one NumPy call,
# and the graph shows the op the user wrote.
_reduce_mean = defop(
    "reduce_mean",
    _mean_forward,
    # g / count first: the division runs on the small, reduced cotangent.
    lambda ns, g, out, x, *, axes, keepdims: (
        _expand_reduced(ns, g / _count(ns.shape(x), axes), x, axes, keepdims),
    ),
    saves=(),
    accepts=NUMBER.for_op("Mean"),
    kernels=("Mean",),
)


@tf_export("tf", "tf.math", numpy=("mean",))
def reduce_mean(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Mean over ``axis`` (all axes by default).

    Integer tensors give an integer mean that truncates toward zero, as in
    TensorFlow: the mean of int32 ``[-1, -2]`` is ``-1``. Cast to a float dtype
    first for the exact mean.

    Args:
        input_tensor: the tensor to reduce.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The means, in the input's dtype.

    Raises:
        InvalidArgumentError: if an axis is out of range, or the input is bool.

    Example:
        >>> reduce_mean([[1.0, 2.0], [3.0, 5.0]], axis=1).numpy()
        array([1.5, 4. ], dtype=float32)
        >>> reduce_mean([-1, -2]).numpy()
        np.int32(-1)
    """
    return _reduce(_reduce_mean.op, input_tensor, axis, keepdims)


# -- max and min -------------------------------------------------------------------


def _max_min_vjp(ns, g, out, x, *, axes, keepdims):
    # TensorFlow's _MinOrMaxGrad: the gradient is split evenly among the elements
    # equal to the result (1/k each for a k-way tie). The selection is a constant
    # (equal records nothing), so second derivatives are zero, as they should be.
    chosen = ns.cast(ns.equal(x, _as_kept(ns, out, x, axes)), dtype=ns.dtype(x))
    share = chosen / ns.reduce_sum(chosen, axes=axes, keepdims=True)
    return (_expand_reduced(ns, g, x, axes, keepdims) * share,)


def _max_forward(x: np.ndarray, *, axes: tuple, keepdims: bool) -> np.ndarray:
    if not x.size:  # TensorFlow gives the identity: -inf, or the lowest int
        low = np.iinfo(x.dtype).min if x.dtype.kind in "iu" else -np.inf
        return np.maximum.reduce(x, axis=axes, keepdims=keepdims, initial=low)
    return np.maximum.reduce(x, axis=axes, keepdims=keepdims)


def _min_forward(x: np.ndarray, *, axes: tuple, keepdims: bool) -> np.ndarray:
    if not x.size:  # TensorFlow gives the identity: inf, or the highest int
        high = np.iinfo(x.dtype).max if x.dtype.kind in "iu" else np.inf
        return np.minimum.reduce(x, axis=axes, keepdims=keepdims, initial=high)
    return np.minimum.reduce(x, axis=axes, keepdims=keepdims)


_reduce_max = defop(
    "reduce_max", _max_forward, _max_min_vjp, accepts=_MAX, kernels=("Max",)
)
_reduce_min = defop(
    "reduce_min",
    _min_forward,
    _max_min_vjp,
    accepts=_MAX.for_op("Min"),
    kernels=("Min",),
)


@tf_export("tf", "tf.math", numpy=("max",))
def reduce_max(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Maximum over ``axis`` (all axes by default).

    The gradient goes to the maximal elements, split evenly among ties: for
    ``[1., 3., 3.]`` it is ``[0., .5, .5]``, as in TensorFlow. An empty axis
    gives -inf (the lowest value of an integer dtype), as TensorFlow does.

    Args:
        input_tensor: the tensor to reduce.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The maxima, in the input's dtype.

    Raises:
        InvalidArgumentError: if an axis is out of range, or the input is bool.

    Example:
        >>> reduce_max([[1.0, 5.0], [3.0, 4.0]], axis=0).numpy()
        array([3., 5.], dtype=float32)
    """
    return _reduce(_reduce_max.op, input_tensor, axis, keepdims)


@tf_export("tf", "tf.math", numpy=("min",))
def reduce_min(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Minimum over ``axis`` (all axes by default); ties share the gradient evenly.

    An empty axis gives inf (the highest value of an integer dtype), as
    TensorFlow does.

    Args:
        input_tensor: the tensor to reduce.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The minima, in the input's dtype.

    Raises:
        InvalidArgumentError: if an axis is out of range, or the input is bool.

    Example:
        >>> reduce_min([[1.0, 5.0], [3.0, 4.0]], axis=1).numpy()
        array([1., 3.], dtype=float32)
    """
    return _reduce(_reduce_min.op, input_tensor, axis, keepdims)


# -- prod --------------------------------------------------------------------------


def _prod_of_others_forward(x: np.ndarray, *, axes: tuple) -> np.ndarray:
    # Move the reduced axes last and flatten them; the product of the others at i
    # is (product of those before i) * (product of those after i): two exclusive
    # cumulative products, no division, so zeros are handled exactly.
    kept = [i for i in range(x.ndim) if i not in axes]
    order = kept + list(axes)
    moved = np.transpose(x, order)
    group = _count(x.shape, axes)
    if group == 0 or x.size == 0:
        return np.ones_like(x)
    flat = moved.reshape(moved.shape[: len(kept)] + (group,))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=x.dtype)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)
    others = (before * after[..., ::-1]).reshape(moved.shape)
    return np.transpose(others, np.argsort(order))


def _prod_of_others_vjp(ns, g, out, x, *, axes):
    # out_i = prod_{j != i} x_j, so d out_i / d x_k = out_i / x_k for k != i and 0
    # for k == i; hence g_x = (sum over i != k of g_i out_i) / x_k, and 0 at
    # x_k = 0, as in TensorFlow, whose product gradient is two exclusive cumprods
    # whose gradients divide by x with div_no_nan.
    ndim = ns.ndim(x)
    from_end = tuple(a - ndim for a in axes)
    return (ns.divide_no_nan(_sum_of_others(ns, g * out, from_end), x),)


def _sum_of_others(ns: Any, w: Any, from_end: tuple[int, ...]) -> Any:
    """At each position, the sum of ``w`` over the other positions of its group
    (the axes ``from_end``): the sums before and after it in row-major order, as
    two exclusive cumsums, so an infinity elsewhere never meets its own
    negation (``sum - w`` would be inf - inf)."""
    ndim = ns.ndim(w)
    axes = sorted(a + ndim for a in from_end)
    kept = [i for i in range(ndim) if i not in axes]
    perm = tuple(kept + axes)
    moved = ns.transpose(w, perm=perm)
    shape = ns.shape(moved)
    group = _pymath.prod(shape[len(kept) :])
    flat = ns.reshape(moved, shape=shape[: len(kept)] + (group,))
    scans = [
        ns.cumsum(flat, axis=len(kept), exclusive=True, reverse=reverse)
        for reverse in (False, True)
    ]
    others = ns.reshape(scans[0] + scans[1], shape=shape)
    return ns.transpose(others, perm=tuple(int(i) for i in np.argsort(perm)))


def _from_start(ns: Any, g: Any, from_end: tuple[int, ...]) -> tuple[int, ...]:
    """Axes counted from the end, as the sorted non-negative axes of ``g``."""
    ndim = ns.ndim(g)
    return tuple(sorted(a + ndim for a in from_end))


# A primitive because the product of the other elements has no division-free form
# in the other ops: it keeps reduce_prod's gradient exact where the input has zeros.
_prod_of_others = defop("prod_of_others", _prod_of_others_forward, _prod_of_others_vjp)


_reduce_prod = defop(
    "reduce_prod",
    lambda x, *, axes, keepdims: np.prod(
        x, axis=axes, keepdims=keepdims, dtype=x.dtype
    ),
    # d prod / d x_i is the product of the other elements (exact with zeros)
    lambda ns, g, out, x, *, axes, keepdims: (
        _expand_reduced(ns, g, x, axes, keepdims) * ns.prod_of_others(x, axes=axes),
    ),
    accepts=NUMBER.for_op("Prod"),
    kernels=("Prod",),
)


@tf_export("tf", "tf.math", numpy=("prod",))
def reduce_prod(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Product over ``axis`` (all axes by default).

    The gradient at each element is the product of the other elements, computed
    without dividing by the element, so it is right where the input has zeros:
    with one zero the zero's gradient is the product of the rest, with two every
    gradient is zero.

    Args:
        input_tensor: the tensor to reduce.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The products, in the input's dtype.

    Raises:
        InvalidArgumentError: if an axis is out of range, or the input is bool.

    Example:
        >>> reduce_prod([[1.0, 2.0], [3.0, 4.0]], axis=1).numpy()
        array([ 2., 12.], dtype=float32)
    """
    return _reduce(_reduce_prod.op, input_tensor, axis, keepdims)


# -- logsumexp ---------------------------------------------------------------------


def _logsumexp_forward(x: np.ndarray, *, axes: tuple, keepdims: bool) -> np.ndarray:
    # Subtract the maximum so exp never overflows; an infinite maximum (all -inf,
    # or an inf) is replaced by 0, as TensorFlow does, to avoid inf - inf.
    top = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    top = np.where(np.isfinite(top), top, np.zeros_like(top))
    with np.errstate(divide="ignore"):
        result = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return result if keepdims else np.squeeze(result, axis=axes)


def _logsumexp_vjp(ns, g, out, x, *, axes, keepdims):
    # The softmax of x: exp(x - out), which never overflows since x <= out,
    # divided by its own sum. That sum is 1 up to the rounding of out: at
    # [1000., 1000.] in float32, out = 1000.6932 is 2e-5 off, and exp(x - out)
    # alone gives 0.499985 where TensorFlow (exp(x - max) / sum) gives 0.5.
    # Dividing by the sum cancels the rounding; as out's part in the quotient
    # cancels too, second derivatives are those of the softmax.
    e = ns.exp(x - _as_kept(ns, out, x, axes))
    softmax = e / ns.reduce_sum(e, axes=axes, keepdims=True)
    return (_expand_reduced(ns, g, x, axes, keepdims) * softmax,)


# A primitive: its VJP is the softmax above, one exp and one sum instead of the
# composed max/exp/sum/log chain.
_reduce_logsumexp = defop(
    "reduce_logsumexp",
    _logsumexp_forward,
    _logsumexp_vjp,
    accepts=REAL_FLOATING.for_op("IsFinite"),
)


@tf_export("tf", "tf.math")
def reduce_logsumexp(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, computed without overflow.

    The gradient is the softmax of ``x`` along the reduced axes.

    Args:
        input_tensor: a floating-point tensor.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The reduced tensor, in the input's dtype.

    Raises:
        InvalidArgumentError: if the input is not floating point, as in
            TensorFlow.
        InvalidArgumentError: if an axis is out of range.

    Example:
        >>> reduce_logsumexp([1000.0, 1000.0]).numpy()
        np.float32(1000.6932)
    """
    x = convert_to_tensor(input_tensor)
    # TensorFlow composes it of reduce_max, then is_finite: their refusals
    _MAX.check(x)
    return _reduce(_reduce_logsumexp.op, x, axis, keepdims)


# -- euclidean norm -----------------------------------------------------------------


def _euclidean_norm_forward(
    x: np.ndarray, *, axes: tuple, keepdims: bool
) -> np.ndarray:
    return np.sqrt(np.add.reduce(x * x, axis=axes, keepdims=keepdims, dtype=x.dtype))


# A primitive, as TensorFlow's EuclideanNorm, with its gradient x / (norm / g):
# NaN at an all-zero group, also where g is 0 (the square root of a sum of
# squares, composed, gives 0 there), and a second derivative through that
# division, as TensorFlow's.
_reduce_euclidean_norm = defop(
    "reduce_euclidean_norm",
    _euclidean_norm_forward,
    lambda ns, g, out, x, *, axes, keepdims: (
        x / (_as_kept(ns, out, x, axes) / _expand_reduced(ns, g, x, axes, keepdims)),
    ),
    saves=("x", "out"),
    accepts=NUMBER.for_op("EuclideanNorm"),
)


@tf_export("tf.math")
def reduce_euclidean_norm(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """``sqrt(reduce_sum(x * x, axis))``: the 2-norm over ``axis``.

    A primitive, as TensorFlow's ``EuclideanNorm``, with its gradient
    ``x / (norm / g)``: NaN at an all-zero group, also where ``g`` is 0. Integer inputs
    give an integer result, the square root truncated toward zero (the norm of
    int32 ``[[1, 2, 3], [1, 1, 1]]`` is 4), as in TensorFlow.

    Args:
        input_tensor: a numeric tensor.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The norms, in the input's dtype.

    Raises:
        InvalidArgumentError: if an axis is out of range, or the input is bool.

    Example:
        >>> reduce_euclidean_norm([[3.0, 4.0], [6.0, 8.0]], axis=1).numpy()
        array([ 5., 10.], dtype=float32)
    """
    x = convert_to_tensor(input_tensor)
    if x._value.dtype.kind in "iu":
        # computed in float64 and truncated back, as TensorFlow's integer kernel
        total = reduce_sum(_math.multiply(x, x), axis, keepdims)
        return _math.cast(_math.sqrt(_math.cast(total, dtypes.float64)), x.dtype)
    return _reduce(_reduce_euclidean_norm.op, x, axis, keepdims)


# -- argmax, argmin (not differentiable) -------------------------------------------


def _without_nan(x: np.ndarray, fill: float) -> np.ndarray:
    # NOTE: TensorFlow's kernels pass over NaN (every comparison with it is
    # false): argmax([nan, 1.]) is 1, and an all-NaN row gives 0. NumPy picks
    # the first NaN; NaN as -inf (argmax) or +inf (argmin) picks as TF does.
    if x.dtype.kind == "f" and np.isnan(x).any():
        return np.where(np.isnan(x), fill, x)
    return x


_argmax = defop(
    "argmax",
    lambda x, *, axis, dtype: np.argmax(_without_nan(x, -np.inf), axis).astype(dtype),
    kernels=("ArgMax",),
)
_argmin = defop(
    "argmin",
    lambda x, *, axis, dtype: np.argmin(_without_nan(x, np.inf), axis).astype(dtype),
    kernels=("ArgMin",),
)


def _arg_reduce(op: Op, input: Any, axis: Any, output_type: Any) -> Tensor:
    x = convert_to_tensor(input)
    out_dtype = dtypes.as_dtype(output_type)
    if out_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"{op.name}: output_type must be tf.int32 or tf.int64, got {out_dtype!r}."
        )
    ndim = x._value.ndim
    axis = 0 if axis is None else int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(
            f"{op.name}: expected an axis in the range [{-ndim}, {ndim}) for a tensor "
            f"of shape {list(x._value.shape)}, but got {axis}.",
            op=op.name,
        )
    if x._value.shape[axis] == 0:
        raise InvalidArgumentError(
            f"{op.name}: reduction axis {axis} is empty in shape "
            f"{list(x._value.shape)}; there is no element to pick.",
            op=op.name,
        )
    return apply(op, (x,), {"axis": axis % ndim, "dtype": out_dtype._np})


@tf_export("tf", "tf.math", numpy=("argmax",))
def argmax(
    input: Any, axis: Any = None, output_type: Any = dtypes.int64,
    name: str | None = None,
) -> Tensor:  # fmt: skip
    """Index of the largest value along ``axis`` (the first one on a tie).

    Not differentiable: a gradient through it is ``None``.

    Args:
        input: the tensor to search.
        axis: the axis to reduce; None means 0, as in TensorFlow 2.
        output_type: tf.int64 (the default) or tf.int32.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        An integer tensor of the input's shape without ``axis``.

    Raises:
        InvalidArgumentError: if ``axis`` is out of range or empty.
        TypeError: if ``output_type`` is not int32 or int64.

    Example:
        >>> argmax([[1.0, 9.0], [5.0, 2.0]]).numpy()
        array([1, 0])
    """
    return _arg_reduce(_argmax.op, input, axis, output_type)


@tf_export("tf", "tf.math", numpy=("argmin",))
def argmin(
    input: Any, axis: Any = None, output_type: Any = dtypes.int64,
    name: str | None = None,
) -> Tensor:  # fmt: skip
    """Index of the smallest value along ``axis`` (the first one on a tie).

    Not differentiable: a gradient through it is ``None``.

    Args:
        input: the tensor to search.
        axis: the axis to reduce; None means 0, as in TensorFlow 2.
        output_type: tf.int64 (the default) or tf.int32.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        An integer tensor of the input's shape without ``axis``.

    Raises:
        InvalidArgumentError: if ``axis`` is out of range or empty.
        TypeError: if ``output_type`` is not int32 or int64.

    Example:
        >>> argmin([[1.0, 9.0], [5.0, 2.0]], axis=1).numpy()
        array([0, 1])
    """
    return _arg_reduce(_argmin.op, input, axis, output_type)


# -- any, all (bool, not differentiable) -------------------------------------------

_reduce_any = defop(
    "reduce_any",
    lambda x, *, axes, keepdims: np.any(x, axis=axes, keepdims=keepdims),
    accepts=Accepts("bool", attr=None, op="Any"),
    kernels=("Any",),
)
_reduce_all = defop(
    "reduce_all",
    lambda x, *, axes, keepdims: np.all(x, axis=axes, keepdims=keepdims),
    accepts=Accepts("bool", attr=None, op="All"),
    kernels=("All",),
)


def _logical_reduce(op: Op, input_tensor: Any, axis: Any, keepdims: bool) -> Tensor:
    if not isinstance(input_tensor, (Tensor, Variable)) or isinstance(
        axis, (list, tuple)
    ):
        # as TensorFlow: a Python or NumPy value is converted to bool, or
        # refused; so is a tensor beside a list of axes (its eager fast path
        # takes an int or None only, the other path converts every input)
        input_tensor = convert_to_tensor(input_tensor, dtype=dtypes.bool)
    return _reduce(op, input_tensor, axis, keepdims)


@tf_export("tf", "tf.math")
def reduce_any(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Logical or over ``axis`` of a bool tensor.

    Args:
        input_tensor: a bool tensor.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A bool tensor.

    Raises:
        InvalidArgumentError: if the input is not bool or an axis is out of range.

    Example:
        >>> reduce_any([[True, False], [False, False]], axis=1).numpy()
        array([ True, False])
    """
    return _logical_reduce(_reduce_any.op, input_tensor, axis, keepdims)


@tf_export("tf", "tf.math")
def reduce_all(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Logical and over ``axis`` of a bool tensor.

    Args:
        input_tensor: a bool tensor.
        axis: None (every axis), an int or a list of ints; negative counts from
            the end.
        keepdims: keep the reduced axes with size 1.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A bool tensor.

    Raises:
        InvalidArgumentError: if the input is not bool or an axis is out of range.

    Example:
        >>> reduce_all([[True, True], [True, False]], axis=1).numpy()
        array([ True, False])
    """
    return _logical_reduce(_reduce_all.op, input_tensor, axis, keepdims)
