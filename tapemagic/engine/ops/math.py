"""Elementwise ops: arithmetic, comparisons, casts (and, re-exported, the
transcendental functions of ``elementary``).

Binary ops broadcast like NumPy and undo it in the VJP with ``unbroadcast``.
Kinks and ties follow TensorFlow (see shared/TF-SEMANTICS.md in the project
notes): ``abs'(0) = 0``, ``maximum`` gives a tie to its first argument,
``clip_by_value`` passes the gradient at a bound exactly.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import dtypes
from ..accepts import ADD, FLOATING, REAL_FLOATING, RELU6, SIGNED, Accepts
from ..errors import InvalidArgumentError
from ..exports import tf_export
from ..namespace import TENSORS
from ..op import apply, defop
from ..tensor import (
    ResourceVariable,
    Tensor,
    convert_inputs,
    convert_to_tensor,
)
from .elementary import acos as acos
from .elementary import acosh as acosh
from .elementary import asin as asin
from .elementary import asinh as asinh
from .elementary import atan as atan
from .elementary import atanh as atanh
from .elementary import cos as cos
from .elementary import cosh as cosh
from .elementary import exp as exp
from .elementary import expm1 as expm1
from .elementary import log as log
from .elementary import log1p as log1p
from .elementary import sigmoid as sigmoid
from .elementary import sigmoid_grad as sigmoid_grad
from .elementary import sin as sin
from .elementary import sinh as sinh
from .elementary import tan as tan
from .elementary import tanh as tanh
from .elementary import tanh_grad as tanh_grad
from .math_grads import reciprocal_grad as reciprocal_grad
from .math_grads import rsqrt_grad as rsqrt_grad
from .math_grads import sqrt_grad as sqrt_grad

# The ops imported ``as`` themselves are re-exported: their old import path
# through this module keeps working; __all__ lists what this module defines.
__all__ = [
    "abs",
    "add",
    "atan2",
    "cast",
    "ceil",
    "clip_by_value",
    "divide",
    "divide_no_nan",
    "equal",
    "floor",
    "floordiv",
    "greater",
    "greater_equal",
    "identity",
    "is_finite",
    "is_inf",
    "is_nan",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "reciprocal",
    "round",
    "rsqrt",
    "sign",
    "sqrt",
    "square",
    "stop_gradient",
    "subtract",
    "truediv",
    "where",
    "where_positions",
]

# NumPy warns on log(0), 0/0 and the like; TensorFlow computes inf/nan silently,
# and so do we. Only warnings raised from the op library's own lines are hidden.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tapemagic\.engine")


# -- arithmetic ---------------------------------------------------------------

# TensorFlow's lists of the dtypes each op accepts (engine/accepts.py), in its order
_SUB = Accepts(
    "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
    "complex64, complex128, uint32, uint64",
    op="Sub",
)
_MUL = Accepts(
    "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, "
    "int64, complex64, complex128"
)
_MAXIMUM = Accepts(
    "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, "
    "uint64"
)
# listed for integers, but no CPU kernel runs them: NotFoundError
_RECIPROCAL = Accepts(SIGNED.allowed, cpu=FLOATING.allowed, op="Reciprocal")
_BOOL = Accepts("bool", attr=None)  # logical ops: bool only
_DIVISIBLE = (
    "{tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, "
    "tf.int64, tf.bfloat16, tf.float16, tf.float32, tf.float64, tf.complex64, "
    "tf.complex128}"
)


def _python_refusal(where: str) -> Accepts:
    # what TensorFlow's Python wrapper of a division raises for bools
    return Accepts(
        "uint8, int8, int16, int32, int64, half, float, double, complex64, complex128",
        error=TypeError,
        message=f"Invalid dtype tf.{{dtype}} in {where}. Expected one of {_DIVISIBLE}.",
    )


# Each VJP runs on tensors and on arrays (see engine/namespace.py): it calls the
# namespace's functions, never an engine op or NumPy directly.
add = defop(
    "add",
    np.add,
    (
        lambda ns, g, out, x, y: ns.unbroadcast(g, x, out),
        lambda ns, g, out, x, y: ns.unbroadcast(g, y, out),
    ),
    saves=(),
    accepts=ADD.for_op("AddV2"),
    tf=("tf", "tf.math"),
    kernels=("AddV2",),
    numpy=("add",),
)
subtract = defop(
    "subtract",
    np.subtract,
    (
        lambda ns, g, out, x, y: ns.unbroadcast(g, x, out),
        lambda ns, g, out, x, y: ns.unbroadcast(-g, y, out),
    ),
    saves=(),
    accepts=_SUB,
    tf=("tf", "tf.math"),
    kernels=("Sub",),
    numpy=("subtract",),
)
multiply = defop(
    "multiply",
    np.multiply,
    (
        lambda ns, g, out, x, y: ns.unbroadcast(g * y, x, out),
        lambda ns, g, out, x, y: ns.unbroadcast(g * x, y, out),
    ),
    # each factor's gradient reads the other one: x * c keeps only c when the
    # constant c needs no gradient
    saves={"x": ("y",), "y": ("x",)},
    accepts=_MUL.for_op("Mul"),
    tf=("tf", "tf.math"),
    kernels=("Mul",),
    numpy=("multiply",),
)


def _truediv_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # Integer division gives floats: int8/int16 -> float32, int32/int64 -> float64.
    if x.dtype.kind in "iu":
        wide = x.dtype.itemsize >= 4
        return np.true_divide(x, y, dtype=np.float64 if wide else np.float32)
    return np.true_divide(x, y)


truediv = defop(
    "truediv",
    _truediv_forward,
    (
        lambda ns, g, out, x, y: ns.unbroadcast(g / y, x, out),
        # d(x/y)/dy = -x/y^2, computed as TensorFlow does: g * ((-x / y) / y).
        lambda ns, g, out, x, y: ns.unbroadcast(g * (-x / y / y), y, out),
    ),
    saves={"x": ("y",), "y": ("x", "y")},
    singular="derivative",
    accepts=_python_refusal("__truediv__"),
    tf=("tf", "tf:divide", "tf.math", "tf.math:divide"),
    kernels=("Div", "RealDiv"),
    numpy=("divide",),
)
divide = truediv


def _divide_no_nan_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    safe = np.where(y == 0, np.ones_like(y), y)
    quotient = _truediv_forward(x, safe)
    return np.where(y == 0, np.zeros_like(quotient), quotient)


divide_no_nan = defop(
    "divide_no_nan",
    _divide_no_nan_forward,
    (
        lambda ns, g, out, x, y: ns.unbroadcast(ns.divide_no_nan(g, y), x, out),
        # div_no_nan twice, as TensorFlow's: no y * y to overflow
        lambda ns, g, out, x, y: ns.unbroadcast(
            g * ns.divide_no_nan(ns.divide_no_nan(-x, y), y), y, out
        ),
    ),
    saves={"x": ("y",), "y": ("x", "y")},
    accepts=_python_refusal("tf.math.divide_no_nan"),
    tf=("tf.math",),
    kernels=("DivNoNan",),
)


def _integer_divisor(y: np.ndarray) -> None:
    if y.dtype.kind in "iu" and not np.all(y):
        raise ValueError(
            "Integer division by zero: the divisor holds a 0. Mask it first, e.g. "
            "tf.where(y == 0, 1, y), or divide floats."
        )


def _floordiv_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    _integer_divisor(y)
    if x.dtype.kind == "f":
        # NOTE: floor(x / y), as TensorFlow's kernel: 1 // 0.1 is 10 and
        # -inf // 0.5 is -inf (NumPy's floor_divide gives 9 and NaN)
        return np.floor(np.true_divide(x, y))
    return np.floor_divide(x, y)


def _mod_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    _integer_divisor(y)
    if x.dtype.kind == "f":
        # NOTE: fmod moved to the divisor's sign, as TensorFlow's kernel: the
        # sign of a zero is the dividend's, and -5 % inf is inf
        r = np.fmod(x, y)
        return np.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)
    return np.mod(x, y)


# NOTE: TensorFlow registers FloorDiv as not differentiable: gradients are None.
floordiv = defop(
    "floordiv",
    _floordiv_forward,
    accepts=_MUL.for_op("FloorDiv"),
    tf=("tf.math",),
    kernels=("FloorDiv",),
)

# floormod(x, y) = x - floor(x / y) * y; the floor is piecewise constant.
mod = defop(
    "mod",
    _mod_forward,
    (
        lambda ns, g, out, x, y: ns.unbroadcast(g, x, out),
        lambda ns, g, out, x, y: ns.unbroadcast(g * -ns.floordiv(x, y), y, out),
    ),
    accepts=Accepts(
        "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, "
        "float, double",
        op="FloorMod",
    ),
    tf=("tf.math", "tf.math:floormod"),
    kernels=("FloorMod",),
)


def _pow_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and np.any(y < 0):
        raise ValueError(
            "Integers to negative integer powers are not allowed; use a float base: "
            "tf.cast(x, tf.float32) ** y"
        )
    if y.size == 1 and x.dtype.kind == "f" and y.item() == 0.5:
        # NOTE: NumPy takes a scalar exponent of 0.5 as sqrt, which gives NaN at
        # -inf and keeps -0.; TensorFlow's pow (C's) gives inf and 0.
        shape = np.broadcast_shapes(x.shape, y.shape)
        half = np.full(shape or (1,), 0.5, x.dtype)  # an array: no scalar path
        return np.power(x, half).reshape(shape)
    return np.power(x, y)


def _pow_vjp_y(ns, g, out, x, y):
    # d(x^y)/dy = x^y log(x), taken as 0 where x <= 0 (TensorFlow's choice: no NaN).
    # The inner where keeps log's own gradient finite for nested tapes.
    positive = ns.greater(x, 0)
    log_x = ns.where(positive, ns.log(ns.where(positive, x, 1)), 0)
    return ns.unbroadcast(g * out * log_x, y, out)


pow = defop(
    "pow",
    _pow_forward,
    (
        # d(x^y)/dx = y x^(y-1)
        lambda ns, g, out, x, y: ns.unbroadcast(g * y * ns.pow(x, y - 1), x, out),
        _pow_vjp_y,
    ),
    singular="derivative",
    accepts=Accepts(
        "bfloat16, float, half, double, int8, int16, int32, int64, complex64, "
        "complex128"
    ),
    tf=("tf", "tf.math"),
    numpy=("power",),
)


def _atan2_vjp_for(which: int):
    # TensorFlow's Atan2Grad: with r2 = x^2 + y^2, d/dy = x / r2 and d/dx = -y / r2.
    def vjp(ns, g, out, y, x):
        scaled = g / (x * x + y * y)
        grad = scaled * x if which == 0 else scaled * -y
        return ns.unbroadcast(grad, (y, x)[which], out)

    return vjp


# A primitive, not atan(y / x) plus quadrant fixes: that composition divides by x,
# so its gradient is NaN on the whole y axis (x = 0); this VJP is finite everywhere
# but the origin.
_atan2 = defop(
    "atan2",
    np.arctan2,
    (_atan2_vjp_for(0), _atan2_vjp_for(1)),
    singular="derivative",
    accepts=REAL_FLOATING,
)


@tf_export("tf", "tf.math")
def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point ``(x, y)``: ``atan(y / x)`` in the right quadrant.

    The result is in ``[-pi, pi]``. The gradient is ``x / (x^2 + y^2)`` for ``y``
    and ``-y / (x^2 + y^2)`` for ``x``, finite on the axes and NaN only at the
    origin, as in TensorFlow.

    Args:
        y: the ordinate (a floating-point tensor); its dtype sets the result's.
        x: the abscissa, broadcasting against ``y``.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        The angles, in radians.

    Raises:
        InvalidArgumentError: if the shapes do not broadcast, or the dtypes differ.

    Example:
        >>> (atan2([1.0, -1.0], [1.0, 1.0]) * (180 / np.pi)).numpy()
        array([ 45., -45.], dtype=float32)
    """
    return _atan2(y, x)


def _maximum_vjp(mask_op: str):
    # TensorFlow gives a tie entirely to the first argument.
    def vjp(ns, g, out, x, y):
        x_wins = getattr(ns, mask_op)(x, y)
        gx = ns.where(x_wins, g, 0)
        gy = ns.where(x_wins, 0, g)
        return ns.unbroadcast(gx, x, out), ns.unbroadcast(gy, y, out)

    return vjp


# -- unary ----------------------------------------------------------------------

negative = defop(
    "negative",
    np.negative,
    lambda ns, g, out, x: (-g,),
    saves=(),
    accepts=SIGNED.for_op("Neg"),
    tf=("tf", "tf.math"),
    kernels=("Neg",),
    numpy=("negative",),
)
# NOTE: abs'(0) = sign(0) = 0, as in TensorFlow.
abs = defop(
    "abs",
    np.abs,
    lambda ns, g, out, x: (g * ns.sign(x),),
    saves=("x",),
    accepts=Accepts("bfloat16, half, float, double, int8, int16, int32, int64"),
    tf=("tf", "tf.math"),
    numpy=("abs", "absolute"),
)
# sign is piecewise constant; TensorFlow gives zeros (not None) through it,
# zeros whatever g holds (NaN or inf) and connected to nothing.
sign = defop(
    "sign",
    np.sign,
    lambda ns, g, out, x: (ns.constant(np.zeros(ns.shape(g), ns.dtype(g))),),
    saves=(),
    accepts=SIGNED,
    tf=("tf", "tf.math"),
    numpy=("sign",),
)
# square' = 2x
square = defop(
    "square",
    np.square,
    lambda ns, g, out, x: (g * (2 * x),),
    saves=("x",),
    accepts=Accepts(
        "bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
        "uint32, uint64, complex64, complex128"
    ),
    tf=("tf", "tf.math"),
    numpy=("square",),
)


# sqrt' = 1 / (2 sqrt(x)), rsqrt' = -rsqrt^3 / 2, reciprocal' = -reciprocal^2:
# from the forward output, as in TensorFlow
sqrt = defop(
    "sqrt",
    np.sqrt,
    lambda ns, g, out, x: (ns.sqrt_grad(out, g),),
    saves=("out",),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf", "tf.math"),
    numpy=("sqrt",),
)
rsqrt = defop(
    "rsqrt",
    lambda x: 1 / np.sqrt(x),
    lambda ns, g, out, x: (ns.rsqrt_grad(out, g),),
    saves=("out",),
    singular="derivative",
    accepts=FLOATING,
    tf=("tf.math",),
)
reciprocal = defop(
    "reciprocal",
    np.reciprocal,
    lambda ns, g, out, x: (ns.reciprocal_grad(out, g),),
    saves=("out",),
    singular="derivative",
    accepts=_RECIPROCAL,
    tf=("tf.math",),
    kernels=("Inv",),
)
# Piecewise constant: TensorFlow registers no gradient, so paths through them are None.
_round = defop("round", np.round, accepts=SIGNED)
floor = defop(
    "floor", np.floor, accepts=REAL_FLOATING, tf=("tf", "tf.math"), numpy=("floor",)
)
ceil = defop("ceil", np.ceil, accepts=REAL_FLOATING, tf=("tf.math",), numpy=("ceil",))


@tf_export("tf", "tf.math", numpy=("round",))
def round(x: Any, name: str | None = None) -> Tensor:
    """``x`` rounded half to even. An integer tensor is returned as it is, as
    in TensorFlow (so a gradient of it towards itself is its seed).

    Raises:
        InvalidArgumentError: for bool, as in TensorFlow.

    Example:
        >>> round([0.5, 1.5, 2.5]).numpy()
        array([0., 2., 2.], dtype=float32)
    """
    t = convert_to_tensor(x)
    if t._value.dtype.kind in "iu":
        return t
    return _round(t)


stop_gradient = defop("stop_gradient", lambda x: x, tf=("tf",))
identity = defop(
    "identity", lambda x: x, lambda ns, g, out, x: (g,), saves=(), tf=("tf",)
)

# -- comparisons and logic (boolean results: never differentiable) ---------------

equal = defop("equal", np.equal, tf=("tf", "tf.math"))
not_equal = defop("not_equal", np.not_equal, tf=("tf", "tf.math"))
less = defop("less", np.less, accepts=RELU6, tf=("tf", "tf.math"))
less_equal = defop("less_equal", np.less_equal, accepts=RELU6, tf=("tf", "tf.math"))
greater = defop("greater", np.greater, accepts=RELU6, tf=("tf", "tf.math"))
greater_equal = defop(
    "greater_equal", np.greater_equal, accepts=RELU6, tf=("tf", "tf.math")
)
logical_and = defop("logical_and", np.logical_and, accepts=_BOOL, tf=("tf", "tf.math"))
logical_or = defop("logical_or", np.logical_or, accepts=_BOOL, tf=("tf", "tf.math"))
logical_xor = defop(
    "logical_xor", np.logical_xor, accepts=_BOOL.for_op("LogicalOr"), tf=("tf.math",)
)
logical_not = defop("logical_not", np.logical_not, accepts=_BOOL, tf=("tf", "tf.math"))
is_nan = defop("is_nan", np.isnan, accepts=REAL_FLOATING, tf=("tf.math",))
is_inf = defop("is_inf", np.isinf, accepts=REAL_FLOATING, tf=("tf.math",))
is_finite = defop("is_finite", np.isfinite, accepts=REAL_FLOATING, tf=("tf.math",))

maximum = defop(
    "maximum",
    np.maximum,
    _maximum_vjp("greater_equal"),
    accepts=_MAXIMUM,
    tf=("tf", "tf.math"),
    numpy=("maximum",),
)
minimum = defop(
    "minimum",
    np.minimum,
    _maximum_vjp("less_equal"),
    accepts=_MAXIMUM,
    tf=("tf", "tf.math"),
    numpy=("minimum",),
)

# -- selection, clipping, casting -------------------------------------------------


def _where_forward(condition: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(condition, x, y)


_where = defop(
    "where",
    _where_forward,
    (
        None,
        lambda ns, g, out, c, x, y: ns.unbroadcast(ns.where(c, g, 0), x, out),
        lambda ns, g, out, c, x, y: ns.unbroadcast(ns.where(c, 0, g), y, out),
    ),
    same_dtype=False,
    saves=("c",),  # where each branch's gradient goes, not the branches
    kernels=("Select", "SelectV2"),
)


def _where_indices_forward(condition: np.ndarray, *, flat: bool) -> np.ndarray:
    if flat:
        return np.flatnonzero(condition).astype(np.int64)
    return np.argwhere(condition).astype(np.int64)


# tf.where(condition) alone: the coordinates of the true elements (``flat``:
# their positions in the flattened condition, as tf.boolean_mask picks them).
# An op without a gradient, so that the condition is an input of what it picks.
_where_indices = defop("where_indices", _where_indices_forward, kernels=("Where",))


@tf_export("tf", numpy=("where",))
def where(
    condition: Any, x: Any = None, y: Any = None, name: str | None = None
) -> Tensor:
    """Pick ``x`` where ``condition`` is true, else ``y`` (broadcasting all three).

    With only ``condition``, return the int64 coordinates of its true elements.
    The branch not taken gets zero gradient.

    Raises:
        ValueError: if only one of ``x`` and ``y`` is given.

    Example:
        >>> where([True, False], 1.0, 2.0).numpy()
        array([1., 2.], dtype=float32)
    """
    cond = convert_to_tensor(condition)
    if cond._value.dtype != np.bool_:
        cond = cast(cond, dtypes.bool)
    if x is None and y is None:
        return apply(_where_indices.op, (cond,), {"flat": False})
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither (to get coordinates).")
    x, y = convert_inputs((x, y))
    return apply(_where.op, (cond, x, y), {})


def where_positions(mask: Tensor) -> Tensor:
    """The positions of the true elements of ``mask`` in its flattened order,
    as int64 (what ``tf.boolean_mask`` picks); nonzero numbers count as true.

    Example:
        >>> where_positions(convert_to_tensor([[True, False], [False, True]])).numpy()
        array([0, 3])
    """
    return apply(_where_indices.op, (mask,), {"flat": True})


# In VJPs, `ns.where(c, g, 0)` converts the 0 to g's dtype, as this function does
# (the op's own function converts each input alone: 0 would be an int32 tensor).
TENSORS.where = where


def _cast_forward(x: np.ndarray, *, dtype: np.dtype) -> np.ndarray:
    if dtype.kind in "iu" and x.dtype.kind == "f":
        # float -> int truncates toward zero (as C and TensorFlow do).
        return np.trunc(x).astype(dtype)
    return x.astype(dtype, copy=False)


def _cast_vjp(ns, g, out, x, *, dtype):
    # The identity, cast back: only between floating dtypes.
    if ns.dtype(x).kind not in "fc":
        return (None,)
    return (ns.cast(g, dtype=ns.dtype(x)),)


_cast = defop("cast", _cast_forward, _cast_vjp, saves=())


@tf_export("tf", "tf.dtypes")
def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor | ResourceVariable:
    """``x`` converted to ``dtype``. Differentiable between float dtypes only.

    A tensor or ``tf.Variable`` that has the dtype already is returned as it is.

    A cast to an integer or bool dtype has no gradient, so a path through it gives
    ``None``, as in TensorFlow.

    Example:
        >>> cast([1.7, -1.7], "int32").numpy()
        array([ 1, -1], dtype=int32)
    """
    target = dtypes.as_dtype(dtype)
    if isinstance(x, ResourceVariable) and x.dtype._np == target._np:
        # NOTE: a tf.Variable cast to its own dtype is returned as it is, as
        # in TensorFlow; what assign returns, and a Keras weight, are read
        return x
    t = convert_to_tensor(x)
    if t._value.dtype == target._np:
        return t
    return apply(_cast.op, (t,), {"dtype": target._np})


# NOTE: clip_by_value is maximum(minimum(t, hi), lo), as TensorFlow composes
# it: with lo > hi the answer is lo, and the gradient follows the two ops'
# masks (minimum's first input on a tie or below, maximum's first at or above;
# a NaN fails both comparisons, so its gradient goes to lo).
def _clip_keeps(ns, t, lo, hi):
    return ns.greater_equal(ns.minimum(t, hi), lo)


def _clip_vjp_t(ns, g, out, t, lo, hi):
    inside = ns.logical_and(ns.less_equal(t, hi), _clip_keeps(ns, t, lo, hi))
    return ns.unbroadcast(ns.where(inside, g, 0), t, out)


def _clip_vjp_lo(ns, g, out, t, lo, hi):
    return ns.unbroadcast(ns.where(_clip_keeps(ns, t, lo, hi), 0, g), lo, out)


def _clip_vjp_hi(ns, g, out, t, lo, hi):
    above = ns.logical_and(
        ns.logical_not(ns.less_equal(t, hi)), _clip_keeps(ns, t, lo, hi)
    )
    return ns.unbroadcast(ns.where(above, g, 0), hi, out)


def _clip_forward(t: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.maximum(np.minimum(t, hi), lo)


_clip = defop(
    "clip_by_value",
    _clip_forward,
    (_clip_vjp_t, _clip_vjp_lo, _clip_vjp_hi),
    accepts=_MAXIMUM.for_op("Minimum"),
)


@tf_export("tf", numpy=("clip",))
def clip_by_value(
    t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None
) -> Tensor:
    """Clamp ``t`` to ``[clip_value_min, clip_value_max]``.

    The gradient is 1 inside and at a bound exactly; where ``t`` is clipped, it goes
    to the bound instead (summed over broadcasting), as in TensorFlow.

    Raises:
        InvalidArgumentError: if the bounds do not broadcast to ``t``'s shape.
    """
    t, lo, hi = convert_inputs((t, clip_value_min, clip_value_max))
    try:
        shape = np.broadcast_shapes(t._value.shape, lo._value.shape, hi._value.shape)
    except ValueError:  # the bounds do not broadcast even with each other
        shape = None
    if shape != t._value.shape:
        raise InvalidArgumentError(
            f"clip_by_value: the bounds (shapes {lo._value.shape} and "
            f"{hi._value.shape}) must broadcast to t's shape {t._value.shape}."
        )
    return apply(_clip.op, (t, lo, hi), {})
