"""Tensors made from shapes and values: zeros, ones, fill, range, eye, constant,
and random values (``linspace``, composed of engine ops, is in
``composed_creation``).

Most of these take no tensor input, so a tape has nothing to record: they are
plain functions that return new tensors. Five take a tensor and are registered
ops, so an explaining tape's log shows them: ``zeros_like``, ``ones_like`` and
``one_hot`` (TensorFlow gives ``None`` through them), ``random_shuffle`` (no
gradient either) and ``fill`` (differentiable in its value). The
``mean``/``stddev``/``minval``/``maxval`` of the random functions are composed of
engine ops, as in TensorFlow, so gradients reach them.

Random numbers come from NumPy's generators and never equal TensorFlow's, but
TensorFlow's seeding rules hold: with no seed anywhere every run differs; after
``set_seed(s)`` the sequence of draws repeats from run to run (and again after
another ``set_seed(s)``); an op-level ``seed=`` alone also gives a reproducible
sequence, and repeated calls with the same op seed give successive draws of one
stream rather than the same numbers.
"""

from __future__ import annotations

import builtins
import math as _pymath
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from ..accepts import Accepts
from ..context import state
from ..eager_tensor import _notify_escape, _notify_fresh, constant_of, tensor_of
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..op import apply, defop
from ..tensor import Tensor, Variable, convert_to_tensor
from . import math as _math
from ._util import shape_dims, shape_reads

__all__ = [
    "constant",
    "eye",
    "fill",
    "one_hot",
    "ones",
    "ones_like",
    "random_normal",
    "random_shuffle",
    "random_uniform",
    "range",
    "set_seed",
    "truncated_normal",
    "zeros",
    "zeros_like",
]


def _notify_copy(value: Any) -> None:
    # An explaining tape learns that this tensor or variable was copied, so a
    # None gradient can be traced back to the copy.
    if state.observers:
        _notify_escape(value, "constant", None)


# -- zeros, ones, fill ------------------------------------------------------------


@tf_export("tf")
def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` filled with zeros.

    Args:
        shape: an int, a list of ints, a TensorShape or an int tensor.
        dtype: the element type (default float32).
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A new Tensor.

    Raises:
        TypeError: if ``shape`` does not hold integers.
        InvalidArgumentError: if a dimension is negative.

    Example:
        >>> zeros([2]).numpy()
        array([0., 0.], dtype=float32)
    """
    return _filled(shape, 0, dtype, "zeros")


@tf_export("tf")
def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` filled with ones (see :func:`zeros`).

    Example:
        >>> ones([2], dtype="int32").numpy()
        array([1, 1], dtype=int32)
    """
    return _filled(shape, 1, dtype, "ones")


def _filled(shape: Any, number: int, dtype: Any, what: str) -> Tensor:
    # A shape given as a tensor makes this a fill op (as in TensorFlow) that
    # reads it, so an explanation graph shows where the shape came from.
    dims = shape_dims(shape, what)
    np_dtype = dtypes.as_dtype(dtype)._np
    reads = shape_reads(shape)
    if reads and state.observers:
        value = constant_of(np.asarray(number, dtype=np_dtype))
        return apply(_fill.op, (value,), {"dims": dims}, reads)
    if number == 0:
        return constant_of(np.zeros(dims, np_dtype))
    return constant_of(np.ones(dims, np_dtype))


# NOTE: TensorFlow registers no gradient for ZerosLike/OnesLike: a path through
# them gives None. They are ops (not plain functions) so an explaining tape's log
# shows where such a path ended.
_zeros_like = defop("zeros_like", lambda x, *, dtype: np.zeros_like(x, dtype=dtype))
_ones_like = defop("ones_like", lambda x, *, dtype: np.ones_like(x, dtype=dtype))


def _like(op: Any, input: Any, dtype: Any) -> Tensor:
    x = convert_to_tensor(input)
    np_dtype = x._value.dtype if dtype is None else dtypes.as_dtype(dtype)._np
    return apply(op.op, (x,), {"dtype": np_dtype})


@tf_export("tf")
def zeros_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Zeros with the shape (and, by default, the dtype) of ``input``.

    The result does not depend on ``input``'s values: gradients through it are
    ``None``, as in TensorFlow.

    Example:
        >>> zeros_like([[1, 2]]).numpy()
        array([[0, 0]], dtype=int32)
    """
    return _like(_zeros_like, input, dtype)


@tf_export("tf")
def ones_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Ones with the shape (and, by default, the dtype) of ``input``.

    Gradients through it are ``None``, as in TensorFlow.

    Example:
        >>> ones_like([1.5, 2.5], dtype="float64").numpy()
        array([1., 1.])
    """
    return _like(_ones_like, input, dtype)


def _fill_vjp(ns, g, out, value, *, dims):
    # Every output element is `value`, so its gradient is the sum of g over the
    # filled axes (the last len(dims) axes; leading batch axes stay).
    if not dims:
        return (g,)
    nbatch = ns.nb(g, out)
    filled = tuple(builtins.range(nbatch, nbatch + len(dims)))
    return (ns.reduce_sum(g, axes=filled, keepdims=False),)


_fill = defop(
    "fill", lambda value, *, dims: np.full(dims, value, dtype=value.dtype), _fill_vjp
)


@tf_export("tf")
def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape ``dims`` with every element equal to the scalar ``value``.

    Differentiable in ``value``: its gradient is the sum of the incoming gradient.

    Args:
        dims: the shape, as for :func:`zeros`.
        value: a scalar (number, 0-d array or scalar tensor); it sets the dtype.
        name: ignored.

    Returns:
        A Tensor of ``value``'s dtype.

    Raises:
        InvalidArgumentError: if ``value`` is not a scalar or a dimension is < 0.

    Example:
        >>> fill([2, 2], 9).numpy()
        array([[9, 9],
               [9, 9]], dtype=int32)
    """
    v = convert_to_tensor(value)
    if v._value.ndim != 0:
        raise InvalidArgumentError(
            f"fill: value must be a scalar, got shape {list(v._value.shape)}. To "
            "repeat a tensor use tf.broadcast_to(value, dims) or tf.tile.",
            op="fill",
        )
    return apply(_fill.op, (v,), {"dims": shape_dims(dims, "fill")}, shape_reads(dims))


# -- range, eye -----------------------------------------------------------------------

# tf.range's dtype inference picks the latest of these among its arguments.
_RANGE_DTYPES = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]


def _range_value(value: Any, dtype: Any, what: str) -> np.ndarray:
    if isinstance(value, (Tensor, Variable)):
        array = value._value
    else:
        array = convert_to_tensor(value, dtype=dtype)._value
    if array.ndim > 1 or array.size != 1:
        raise InvalidArgumentError(
            f"range: {what} must be a scalar, not shape {list(array.shape)}.",
            op="range",
        )
    return array.reshape(())


def _cast_scalar(array: np.ndarray, target: np.dtype) -> Any:
    if target.kind in "iu" and array.dtype.kind == "f":
        array = np.trunc(array)  # as tf.cast: float -> int truncates toward zero
    return array.astype(target)[()]


@tf_export("tf")
def range(
    start: Any,
    limit: Any = None,
    delta: Any = 1,
    dtype: Any = None,
    name: str = "range",
) -> Tensor:
    """The numbers ``start, start + delta, ...`` up to but excluding ``limit``.

    Like Python's ``range``, ``range(n)`` starts at 0. The dtype is inferred as
    TensorFlow does: the widest of the arguments' dtypes in the order int32, int64,
    float32, float64, so Python ints give int32 and any Python float gives float32.

    Args:
        start: first value, or the limit when ``limit`` is None.
        limit: exclusive upper (or, for negative ``delta``, lower) bound.
        delta: the step; must not be 0.
        dtype: the result dtype; the arguments are cast to it.
        name: ignored.

    Returns:
        A 1-D Tensor.

    Raises:
        InvalidArgumentError: if ``delta`` is 0, it points away from ``limit``, or
            an argument is not a scalar.
        TypeError: if an argument's dtype is not int32, int64, float32 or float64.

    Example:
        >>> range(5).numpy()
        array([0, 1, 2, 3, 4], dtype=int32)
        >>> range(0.0, 1.0, 0.25).numpy()
        array([0.  , 0.25, 0.5 , 0.75], dtype=float32)
    """
    if limit is None:
        start, limit = 0, start
    names = ("start", "limit", "delta")
    arrays = [_range_value(v, dtype, w) for v, w in zip((start, limit, delta), names)]
    if dtype is None:
        for array, what in zip(arrays, names):
            if array.dtype not in _RANGE_DTYPES:
                raise TypeError(
                    f"range: {what} has dtype {array.dtype}; range needs int32, "
                    "int64, float32 or float64 values. Cast it first, e.g. "
                    "tf.cast(x, tf.int32)."
                )
        target = max((a.dtype for a in arrays), key=_RANGE_DTYPES.index)
    else:
        target = dtypes.as_dtype(dtype)._np
        if target not in _RANGE_DTYPES:
            raise TypeError(
                f"range: dtype {target} is not supported; use tf.int32, tf.int64, "
                "tf.float32 or tf.float64."
            )
    first, last, step = (_cast_scalar(a, target) for a in arrays)
    if step == 0:
        raise InvalidArgumentError(
            f"Requires delta != 0: {step}. Use a positive or negative step.",
            op="range",
        )
    if step > 0 and first > last:
        raise InvalidArgumentError(
            f"Requires start <= limit when delta > 0: {first}/{last}. Swap them, or "
            "count down with a negative delta.",
            op="range",
        )
    if step < 0 and first < last:
        raise InvalidArgumentError(
            f"Requires start >= limit when delta < 0: {first}/{last}. Swap them, or "
            "count up with a positive delta.",
            op="range",
        )
    if target.kind in "iu":
        span, stride = abs(int(last) - int(first)), abs(int(step))
        size = (span + stride - 1) // stride
    else:
        # computed in the target dtype, as TensorFlow's kernel does
        size = int(np.ceil(np.abs((last - first) / step)))
    return constant_of(first + np.arange(size, dtype=target) * step)


@tf_export("tf", "tf.linalg")
def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """An identity matrix (ones on the main diagonal), optionally batched.

    Args:
        num_rows: rows of each matrix.
        num_columns: columns (default: ``num_rows``).
        batch_shape: leading dimensions; the matrix is repeated over them.
        dtype: element type (default float32).
        name: ignored.

    Returns:
        A Tensor of shape ``batch_shape + [num_rows, num_columns]``.

    Example:
        >>> eye(2, 3).numpy()
        array([[1., 0., 0.],
               [0., 1., 0.]], dtype=float32)
    """
    (rows,) = shape_dims([num_rows], "eye")
    (cols,) = (rows,) if num_columns is None else shape_dims([num_columns], "eye")
    matrix = np.eye(rows, cols, dtype=dtypes.as_dtype(dtype)._np)
    if batch_shape is not None:
        batch = shape_dims(batch_shape, "eye")
        matrix = np.broadcast_to(matrix, batch + (rows, cols)).copy()
    return constant_of(matrix)


# -- constant -------------------------------------------------------------------------


def _strip_tensors(value: Any) -> Any:
    """Nested lists with their tensors replaced by (copied) NumPy values."""
    if isinstance(value, (Tensor, Variable)):
        _notify_copy(value)
        return value._value
    if isinstance(value, (list, tuple)):
        return [_strip_tensors(v) for v in value]
    return value


def _first_tensor_dtype(value: Any) -> Any:
    if isinstance(value, (Tensor, Variable)):
        return value.dtype
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _first_tensor_dtype(item)
            if found is not None:
                return found
    return None


@tf_export("tf")
def constant(
    value: Any, dtype: Any = None, shape: Any = None, name: str = "Const"
) -> Tensor:
    """A tensor holding ``value``, with TensorFlow's ``tf.constant`` semantics.

    A Tensor comes back as itself, so it stays on the tape. Anything else is
    copied into a new tensor that no tape links to anything: ``constant(var)`` of a
    Variable, or of a list holding tensors, gives ``None`` gradients with respect
    to them, as in TensorFlow.

    Args:
        value: a number, nested list, NumPy array, Tensor or Variable.
        dtype: the dtype (default: inferred as TensorFlow does: Python float ->
            float32, int -> int32, NumPy values keep theirs).
        shape: if given, a scalar ``value`` is broadcast to it, and a value with
            the same number of elements is reshaped to it.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A Tensor.

    Raises:
        TypeError: if a Tensor's dtype differs from ``dtype``, a value cannot take
            ``dtype`` without loss, or ``shape`` does not fit ``value``.

    Example:
        >>> constant(3).dtype, constant(3.0).dtype, constant(0, shape=[2]).numpy()
        (tf.int32, tf.float32, array([0, 0], dtype=int32))
    """
    if isinstance(value, Tensor):
        if dtype is not None and dtypes.as_dtype(dtype)._np != value._value.dtype:
            want = dtypes.as_dtype(dtype)
            raise TypeError(
                f"Expected tensor {value} with dtype {want!r}, but got dtype "
                f"{value.dtype!r}. Cast it instead: tf.cast(t, tf.{want.name})."
            )
        t = value
        fixed = False
    elif isinstance(value, Variable) or _first_tensor_dtype(value) is not None:
        if dtype is None:
            dtype = _first_tensor_dtype(value)
        array = np.array(_strip_tensors(value), copy=True)
        t = tensor_of(convert_to_tensor(array, dtype=dtype)._value)
        fixed = False
    else:
        array = convert_to_tensor(value, dtype=dtype)._value
        if isinstance(value, np.ndarray) and array is value:
            array = array.copy()  # the tensor must not change with the user's array
        # made of the user's Python or NumPy values alone: a constant
        t = constant_of(array)
        fixed = True
    if shape is None:
        return t
    dims = shape_dims(shape, "constant")
    size = _pymath.prod(dims)
    current = t._value
    if dims == current.shape:
        return t
    # (a value read from tensors or variables is no constant of a trace)
    make = constant_of if fixed else tensor_of
    if current.size == size:
        return make(current.reshape(dims))
    if current.size == 1:
        return make(np.full(dims, current.reshape(()), dtype=current.dtype))
    raise TypeError(
        f"Eager execution of tf.constant with unsupported shape. Tensor {t} "
        f"(converted from {value!r}) has {current.size} elements, but got `shape` "
        f"{dims} with {size} elements. Pass a scalar to fill the shape, or a value "
        "with that many elements to reshape it."
    )


# -- random values ----------------------------------------------------------------

# TensorFlow's default global seed when only an op seed is given.
_DEFAULT_GLOBAL_SEED = 87654321
_MAX_SEED = 2**31 - 1


class _Seeds:
    """The global seed and what derives from it (TensorFlow's seeding rules)."""

    def __init__(self) -> None:
        self.global_seed: int | None = None
        self.counter = 0
        # One generator per (kind, seeds, dtype) with an explicit op seed, so
        # repeated calls continue one stream, as TensorFlow's cached kernels do.
        self.streams: dict[tuple, np.random.Generator] = {}
        # Made on the first unseeded draw: numpy.random loads only then.
        self._entropy: np.random.Generator | None = None

    def reset(self, seed: int | None) -> None:
        self.global_seed = None if seed is None else int(seed) % _MAX_SEED
        self.counter = 0
        self.streams = {}

    def generator(self, kind: str, seed: Any, dtype: np.dtype) -> np.random.Generator:
        if seed is not None:
            op_seed = int(seed) % _MAX_SEED
            global_seed = self.global_seed
            if global_seed is None:
                global_seed = _DEFAULT_GLOBAL_SEED
            key = (kind, global_seed, op_seed, dtype.str)
            stream = self.streams.get(key)
            if stream is None:
                stream = self.streams[key] = np.random.default_rng(
                    [global_seed, op_seed]
                )
            return stream
        if self.global_seed is not None:
            # each op without a seed takes the next seed derived from the global one
            self.counter += 1
            return np.random.default_rng([self.global_seed, self.counter, 1])
        if self._entropy is None:
            self._entropy = np.random.default_rng()
        return self._entropy


_seeds = _Seeds()


@tf_export("tf.random")
def set_seed(seed: int | None) -> None:
    """Set the global random seed, making later random draws reproducible.

    After ``set_seed(s)`` the sequence of random values a program draws is the same
    on every run, and calling ``set_seed(s)`` again restarts it. The numbers differ
    from TensorFlow's (its generator cannot be reproduced on NumPy); the rules for
    when they repeat are TensorFlow's.

    Args:
        seed: an int, or None to go back to unseeded draws.

    Example:
        >>> set_seed(1); a = random_uniform([2]).numpy()
        >>> set_seed(1); bool((random_uniform([2]).numpy() == a).all())
        True
        >>> set_seed(None)
    """
    _seeds.reset(seed)


def _float_dtype(dtype: Any, what: str) -> dtypes.DType:
    dt = dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise InvalidArgumentError(
            f"{what}: dtype must be a float dtype (float16, float32 or float64), got "
            f"{dt.name}. Draw floats and cast: tf.cast(x, tf.{dt.name}).",
            op=what,
        )
    return dt


def _standard(kind: str, rng: np.random.Generator, dims: tuple, dt: Any) -> Any:
    draw_dtype = np.float64 if dt._np == np.float64 else np.float32
    if kind == "uniform":
        values = rng.random(dims, dtype=draw_dtype)
    else:
        values = rng.standard_normal(dims, dtype=draw_dtype)
        if kind == "truncated_normal":
            # redraw everything more than two standard deviations out
            outside = np.abs(values) > 2
            while outside.any():
                values[outside] = rng.standard_normal(
                    int(outside.sum()), dtype=draw_dtype
                )
                outside = np.abs(values) > 2
    return values.astype(dt._np)


def _draw(draw: Callable[[], np.ndarray]) -> Tensor:
    """A tensor of random values from ``draw()``; a listener that replays what
    it heard (a tf.function trace) is told how to draw anew."""
    t = tensor_of(draw())
    if state.observers:
        _notify_fresh(t, draw)
    return t


def _normal_like(
    kind: str, shape: Any, mean: Any, stddev: Any, dtype: Any, seed: Any
) -> Tensor:
    # converted first, as in TensorFlow: a float mean fails on an int dtype here
    mean_t = convert_to_tensor(mean, dtype=dtype)
    stddev_t = convert_to_tensor(stddev, dtype=dtype)
    dt = _float_dtype(dtype, kind)
    dims = shape_dims(shape, kind)
    values = _draw(lambda: _standard(kind, _seeds.generator(kind, seed, dt._np),
                                     dims, dt))  # fmt: skip
    # composed of engine ops, as in TensorFlow: gradients reach mean and stddev
    return _math.add(_math.multiply(values, stddev_t), mean_t)


@tf_export("tf.random:normal")
def random_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Random values from a normal distribution (``tf.random.normal``).

    Args:
        shape: the output shape.
        mean: mean of the distribution (a number or a tensor; differentiable).
        stddev: standard deviation (a number or a tensor; differentiable).
        dtype: a float dtype (default float32).
        seed: op-level seed (see :func:`set_seed`).
        name: ignored.

    Returns:
        A Tensor of ``shape``.

    Raises:
        TypeError: if ``mean`` or ``stddev`` cannot take ``dtype`` (e.g. for an
            integer dtype).

    Example:
        >>> random_normal([2, 3], seed=1).shape
        TensorShape([2, 3])
    """
    return _normal_like("normal", shape, mean, stddev, dtype, seed)


@tf_export("tf.random")
def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Normal random values, redrawn where more than two ``stddev`` from ``mean``.

    Arguments as :func:`random_normal`.

    Example:
        >>> bool((abs(truncated_normal([1000], seed=3).numpy()) <= 2).all())
        True
    """
    return _normal_like("truncated_normal", shape, mean, stddev, dtype, seed)


@tf_export("tf.random:uniform")
def random_uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Random values drawn uniformly from ``[minval, maxval)`` (``tf.random.uniform``).

    Floats default to ``[0, 1)``; integer dtypes need ``maxval``.

    Args:
        shape: the output shape.
        minval: lower bound, inclusive (differentiable for floats).
        maxval: upper bound, exclusive (default 1 for floats).
        dtype: float16/32/64, int32 or int64.
        seed: op-level seed (see :func:`set_seed`).
        name: ignored.

    Returns:
        A Tensor of ``shape``.

    Raises:
        ValueError: for an integer dtype without ``maxval``, or an unsupported dtype.
        InvalidArgumentError: for integers with ``minval >= maxval``.

    Example:
        >>> random_uniform([3], maxval=10, dtype="int32", seed=2).dtype
        tf.int32
    """
    dt = dtypes.as_dtype(dtype)
    if not (dt.is_floating or dt._np in (np.int32, np.int64)):
        raise ValueError(
            f"Argument `dtype` got invalid value {dt!r}. Accepted dtypes are "
            "float16, float32, float64, int32 and int64."
        )
    if maxval is None:
        if dt.is_integer:
            raise ValueError(
                f"Must specify maxval for integer dtype {dt!r}, e.g. "
                f"tf.random.uniform(shape, maxval=10, dtype=tf.{dt.name})."
            )
        maxval = 1
    dims = shape_dims(shape, "uniform")
    # TensorFlow skips the arithmetic for the default bounds 0 and 1 (Python ints).
    min_is_zero = type(minval) is int and minval == 0
    max_is_one = type(maxval) is int and maxval == 1
    if dt.is_integer:
        low = convert_to_tensor(minval, dtype=dt)._value
        high = convert_to_tensor(maxval, dtype=dt)._value
        if low.ndim or high.ndim:
            raise InvalidArgumentError(
                "uniform: minval and maxval must be scalars for integer dtypes, got "
                f"shapes {list(low.shape)} and {list(high.shape)}.",
                op="uniform",
            )
        if low >= high:
            raise InvalidArgumentError(
                f"Need minval < maxval: {low} >= {high}. Integer draws exclude "
                "maxval, so make it larger than minval.",
                op="uniform",
            )
        return _draw(
            lambda: _seeds.generator("uniform_int", seed, dt._np).integers(
                low, high, size=dims, dtype=dt._np
            )
        )
    if not (min_is_zero and max_is_one):
        minval = convert_to_tensor(minval, dtype=dt)
        maxval = convert_to_tensor(maxval, dtype=dt)
    values = _draw(
        lambda: _standard(
            "uniform", _seeds.generator("uniform", seed, dt._np), dims, dt
        )  # fmt: skip
    )
    if min_is_zero:
        return values if max_is_one else _math.multiply(values, maxval)
    return _math.add(_math.multiply(values, _math.subtract(maxval, minval)), minval)


_random_shuffle = defop(
    "random_shuffle", lambda value, *, perm: value if perm is None else value[perm]
)


@tf_export("tf.random:shuffle")
def random_shuffle(
    value: Any, seed: int | None = None, name: str | None = None
) -> Tensor:
    """``value`` with its first dimension randomly permuted (``tf.random.shuffle``).

    TensorFlow registers no gradient for it: gradients through it are ``None``.

    Example:
        >>> sorted(random_shuffle([1, 2, 3], seed=4).numpy().tolist())
        [1, 2, 3]
    """
    x = convert_to_tensor(value)
    perm = None
    if x._value.ndim:
        rng = _seeds.generator("shuffle", seed, x._value.dtype)
        perm = rng.permutation(x._value.shape[0])
    return apply(_random_shuffle.op, (x,), {"perm": perm})


# -- one_hot -----------------------------------------------------------------------


def _one_hot_forward(
    indices: np.ndarray, on: np.ndarray, off: np.ndarray, *, depth: int, axis: int
) -> np.ndarray:
    # An index outside [0, depth) (e.g. -1) matches no position: an all-off row.
    hot = indices[..., None] == np.arange(depth)
    return np.moveaxis(np.where(hot, on, off), -1, axis)


# NOTE: TensorFlow registers OneHot as not differentiable: gradients with respect
# to on_value and off_value are None too.
_one_hot = defop(
    "one_hot",
    _one_hot_forward,
    same_dtype=False,
    accepts=Accepts("uint8, int8, int32, int64", attr="TI", op="OneHot"),
)


@tf_export("tf")
def one_hot(
    indices: Any,
    depth: Any,
    on_value: Any = None,
    off_value: Any = None,
    axis: Any = None,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """One-hot rows: ``on_value`` at each index along a new axis, else ``off_value``.

    The new axis has length ``depth``. An index outside ``[0, depth)``, such as -1,
    gives a row of ``off_value``. The dtype is ``dtype`` if given, else that of
    ``on_value`` or ``off_value``, else float32. Not differentiable (TensorFlow
    registers no gradient): gradients through it, also to ``on_value`` and
    ``off_value``, are ``None``.

    Args:
        indices: an integer tensor (uint8, int8, int32 or int64).
        depth: the length of the new axis (an int >= 0).
        on_value: the value at each index (default 1).
        off_value: the value elsewhere (default 0).
        axis: where the new axis goes: -1 (the default: last) or ``0 ..
            rank(indices)``.
        dtype: the result dtype.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A tensor of shape ``indices.shape`` with ``depth`` inserted at ``axis``.

    Raises:
        InvalidArgumentError: if ``indices`` are not uint8, int8, int32 or int64.
        TypeError: if the dtypes of ``on_value``, ``off_value`` and ``dtype``
            disagree.
        InvalidArgumentError: if ``depth`` is negative, ``axis`` is out of range,
            or ``on_value``/``off_value`` is not a scalar.

    Example:
        >>> one_hot([0, 2, -1], 3).numpy()
        array([[1., 0., 0.],
               [0., 0., 1.],
               [0., 0., 0.]], dtype=float32)
        >>> one_hot([1], 2, on_value=5, off_value=-1, axis=0).numpy()
        array([[-1],
               [ 5]], dtype=int32)
    """
    idx = convert_to_tensor(indices)
    _one_hot.op.accepts.check(idx)
    want = None if dtype is None else dtypes.as_dtype(dtype)
    given = {}
    for what, value in (("on_value", on_value), ("off_value", off_value)):
        if value is not None:
            t = convert_to_tensor(value, dtype_hint=want)
            if want is not None and t.dtype != want:
                raise TypeError(
                    f"one_hot: dtype {t.dtype.name} of {what} does not match dtype "
                    f"parameter {want.name}. Pass {what} as a {want.name} value."
                )
            given[what] = t
    if len(given) == 2 and given["on_value"].dtype != given["off_value"].dtype:
        raise TypeError(
            f"one_hot: dtype {given['on_value'].dtype.name} of on_value does not "
            f"match dtype {given['off_value'].dtype.name} of off_value."
        )
    if want is None:
        want = next(iter(given.values())).dtype if given else dtypes.float32
    on = given["on_value"] if "on_value" in given else convert_to_tensor(1, want)
    off = given["off_value"] if "off_value" in given else convert_to_tensor(0, want)
    for what, t in (("on_value", on), ("off_value", off)):
        if t._value.ndim:
            raise InvalidArgumentError(
                f"one_hot: {what} must be a scalar, got shape {list(t.shape)}.",
                op="one_hot",
            )
    size = int(depth._value) if isinstance(depth, (Tensor, Variable)) else int(depth)
    if size < 0:
        raise InvalidArgumentError(
            f"one_hot: depth must be non-negative, got: {size}.", op="one_hot"
        )
    rank = idx._value.ndim
    where_ = -1 if axis is None else int(axis)
    if not -1 <= where_ <= rank:
        raise InvalidArgumentError(
            f"one_hot: expected axis to be -1 or between [0, {rank + 1}), but got "
            f"{where_} (indices of rank {rank}).",
            op="one_hot",
        )
    return apply(_one_hot.op, (idx, on, off), {"depth": size, "axis": where_})
