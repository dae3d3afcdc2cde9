"""Fuzz the public API: wild inputs in random tape configurations.

Every call either returns a value that matches a float64 NumPy (or SciPy)
reference, or raises one of the documented exceptions (TypeError, ValueError,
RuntimeError, tf.errors.OpError and its subclasses; IndexError only from
indexing) with a message; never an internal error, and never a tape left on
the thread's stack. Inputs cover 0-d and empty shapes, shapes that do not
broadcast, NaN, Inf, huge values, integer and boolean dtypes, Python values,
NumPy values, variables and objects that are not numbers at all.

A second suite runs random straight-line programs of smooth ops on float64
tensors and checks the forward against NumPy, the gradient against central
finite differences (ops paused with ``stop_recording`` or forgotten by
``reset`` count as constants, as the tape semantics say), a jacobian against
the gradient, and second derivatives through nested tapes.

Budget: see tests/fuzz/budget.py (``TAPEMAGIC_FUZZ_EXAMPLES`` for a long run).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import event, given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapemagic.tf as tf
from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.context import state
from tapemagic.engine.errors import OpError

from .budget import fuzz_settings

DOCUMENTED = (TypeError, ValueError, RuntimeError, OpError)

# -- wild values -------------------------------------------------------------------

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]
HUGE = {np.float32: 3.0e38, np.float64: 1.0e300}


def _elements(dtype: Any) -> Any:
    if dtype in (np.float32, np.float64):
        width = 32 if dtype == np.float32 else 64
        return st.one_of(
            st.floats(-3.0, 3.0, width=width),
            st.floats(allow_nan=True, allow_infinity=True, width=width),
            st.sampled_from([0.0, -0.0, np.nan, np.inf, -np.inf, HUGE[dtype]]),
        )
    if dtype == np.bool_:
        return st.booleans()
    info = np.iinfo(dtype)
    return st.one_of(
        st.integers(-3, 3),
        st.integers(int(info.min), int(info.max)),
    )


SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)


@st.composite
def arrays(draw: Any, shape: Any = None, dtype: Any = None) -> np.ndarray:
    dtype = draw(st.sampled_from(DTYPES)) if dtype is None else dtype
    shape = draw(SHAPES) if shape is None else shape
    return draw(hnp.arrays(dtype, shape, elements=_elements(dtype)))


ODD = st.sampled_from(
    [None, "x", b"1", object(), {"a": 1.0}, [1.0, [2.0, 3.0]], [], 1j, slice(1), ...]
)


@st.composite
def values(draw: Any, shape: Any = None, dtype: Any = None) -> Any:
    """A tensor most of the time; sometimes NumPy, Python or no number at all."""
    a = draw(arrays(shape, dtype))
    kind = draw(
        st.sampled_from(["tensor"] * 6 + ["variable", "numpy", "python", "odd"])
    )
    if kind == "tensor":
        return Tensor(a)
    if kind == "variable":
        return Variable(a)
    if kind == "numpy":
        return a
    if kind == "python":
        return a.tolist() if a.ndim else a.item()
    return draw(ODD)


def _broadcasting(n: int) -> Any:
    """Input shapes for an n-ary op: usually they broadcast, sometimes not."""
    fits = hnp.mutually_broadcastable_shapes(
        num_shapes=n, min_dims=0, max_dims=3, min_side=0, max_side=3
    ).map(lambda b: list(b.input_shapes))
    return st.one_of(fits, fits, st.lists(SHAPES, min_size=n, max_size=n))


AXIS = st.one_of(
    st.none(),
    st.integers(-4, 3),
    st.lists(st.integers(-4, 3), max_size=3),
    st.sampled_from(["0", 1.5, [0, "a"]]),
)
SMALL_INTS = st.lists(st.integers(-2, 4), max_size=4)


# -- the op table: call, float64 reference, arity, params --------------------------


@dataclass(frozen=True)
class Spec:
    """One public function to fuzz.

    Attributes:
        name: a label for the report.
        call: ``call(*inputs, **params)`` through the public ``tf`` API.
        ref: ``ref(*float64 arrays, **params)``, the reference result, or None.
        arity: how many tensor inputs.
        params: strategy for the keyword parameters.
        indexing: IndexError is documented for this one (tensor indexing).
    """

    name: str
    call: Callable[..., Any]
    ref: Callable[..., Any] | None
    arity: int = 1
    params: Any = st.just({})
    indexing: bool = False


def _as_tensor(x: Any) -> Any:
    # indexing a NumPy array or a list is not ours to test
    return x if isinstance(x, (Tensor, Variable)) else tf.convert_to_tensor(x)


def _operator(fn: Callable) -> Callable:
    # an operator between two NumPy or Python values never reaches tapemagic
    def call(x: Any, y: Any) -> Any:
        if not isinstance(y, (Tensor, Variable)):
            x = _as_tensor(x)
        return fn(x, y)

    return call


def _finite_only(ref: Callable) -> Callable:
    def finite_ref(x, **params):
        return ref(x, **params) if np.isfinite(x).all() else None

    return finite_ref


def _np_round(x: np.ndarray) -> np.ndarray:
    return np.round(x)  # half to even, as tf.round


def _sigmoid(x):
    return sp.expit(x)


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _divide_no_nan(x, y):
    with np.errstate(all="ignore"):
        return np.where(y == 0, 0.0, x / np.where(y == 0, 1.0, y))


def _reduce_ref(fn: Callable) -> Callable:
    def ref(x, *, axis=None, keepdims=False):
        axis = tuple(axis) if isinstance(axis, list) else axis
        return fn(x, axis=axis, keepdims=keepdims)

    return ref


def _logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    total = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keepdims))
    return total + (m if keepdims else np.squeeze(m, axis=axis))


REDUCE_PARAMS = st.fixed_dictionaries({"axis": AXIS, "keepdims": st.booleans()})
AXIS_PARAM = st.fixed_dictionaries({"axis": st.integers(-4, 3)})

UNARY = [
    ("negative", tf.negative, np.negative),
    ("abs", tf.abs, np.abs),
    ("square", tf.square, np.square),
    ("sqrt", tf.sqrt, np.sqrt),
    ("rsqrt", tf.math.rsqrt, lambda x: 1 / np.sqrt(x)),
    ("reciprocal", tf.math.reciprocal, np.reciprocal),
    ("exp", tf.exp, np.exp),
    ("expm1", tf.math.expm1, np.expm1),
    ("log", tf.math.log, np.log),
    ("log1p", tf.math.log1p, np.log1p),
    ("sin", tf.sin, np.sin),
    ("cos", tf.cos, np.cos),
    ("tan", tf.tan, np.tan),
    ("asin", tf.asin, np.arcsin),
    ("acos", tf.acos, np.arccos),
    ("atan", tf.atan, np.arctan),
    ("sinh", tf.sinh, np.sinh),
    ("cosh", tf.cosh, np.cosh),
    ("tanh", tf.tanh, np.tanh),
    ("asinh", tf.asinh, np.arcsinh),
    ("acosh", tf.acosh, np.arccosh),
    ("atanh", tf.atanh, np.arctanh),
    ("sigmoid", tf.sigmoid, _sigmoid),
    ("sign", tf.sign, np.sign),
    ("floor", tf.floor, np.floor),
    ("ceil", tf.math.ceil, np.ceil),
    ("round", tf.round, _np_round),
    ("erf", tf.math.erf, sp.erf),
    ("relu", tf.nn.relu, lambda x: np.maximum(x, 0.0)),
    ("softplus", tf.nn.softplus, lambda x: np.logaddexp(0.0, x)),
    ("elu", tf.nn.elu, _elu),
    ("identity", tf.identity, lambda x: x),
    ("stop_gradient", tf.stop_gradient, lambda x: x),
    ("is_nan", tf.math.is_nan, np.isnan),
    ("is_finite", tf.math.is_finite, np.isfinite),
    ("logical_not", tf.logical_not, None),
    ("zeros_like", tf.zeros_like, np.zeros_like),
    ("ones_like", tf.ones_like, np.ones_like),
]
BINARY = [
    ("add", tf.add, np.add),
    ("subtract", tf.subtract, np.subtract),
    ("multiply", tf.multiply, np.multiply),
    ("truediv", tf.truediv, np.true_divide),
    ("divide_no_nan", tf.math.divide_no_nan, _divide_no_nan),
    ("maximum", tf.maximum, np.maximum),
    ("minimum", tf.minimum, np.minimum),
    ("pow", tf.pow, np.power),
    ("atan2", tf.atan2, np.arctan2),
    ("floordiv", tf.math.floordiv, np.floor_divide),
    ("mod", tf.math.mod, np.mod),
    ("squared_difference", tf.math.squared_difference, lambda x, y: (x - y) ** 2),
    ("equal", tf.equal, np.equal),
    ("less", tf.less, np.less),
    ("greater_equal", tf.greater_equal, np.greater_equal),
    ("logical_and", tf.logical_and, None),
    ("operator +", _operator(lambda x, y: x + y), np.add),
    ("operator *", _operator(lambda x, y: x * y), np.multiply),
    ("operator /", _operator(lambda x, y: x / y), np.true_divide),
    ("operator **", _operator(lambda x, y: x**y), np.power),
    ("operator @", _operator(lambda x, y: x @ y), None),
    ("operator <", _operator(lambda x, y: x < y), np.less),
]
REDUCE = [
    ("reduce_sum", tf.reduce_sum, np.sum),
    ("reduce_mean", tf.reduce_mean, np.mean),
    # an empty axis gives the identity, as TensorFlow does (NumPy raises)
    ("reduce_max", tf.reduce_max, functools.partial(np.max, initial=-np.inf)),
    ("reduce_min", tf.reduce_min, functools.partial(np.min, initial=np.inf)),
    ("reduce_prod", tf.reduce_prod, np.prod),
    ("reduce_logsumexp", tf.reduce_logsumexp, _logsumexp),
    ("reduce_any", tf.reduce_any, None),
    ("reduce_std", tf.math.reduce_std, np.std),
]


def _cumsum_ref(x, *, axis, exclusive, reverse):
    y = np.moveaxis(np.flip(x, axis) if reverse else x, axis, 0)
    c = np.cumsum(y, axis=0)
    if exclusive:  # shift by one: inf - inf would make NaN of an exclusive sum
        c = np.concatenate([np.zeros_like(y[:1]), c[:-1]])[: len(y)]
    c = np.moveaxis(c, 0, axis)
    return np.flip(c, axis) if reverse else c


def _matmul_ref(a, b, *, transpose_a=False, transpose_b=False):
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError("rank < 2")
    a = np.swapaxes(a, -1, -2) if transpose_a else a
    b = np.swapaxes(b, -1, -2) if transpose_b else b
    return np.matmul(a, b)


def _getitem_key() -> Any:
    item = st.one_of(
        st.integers(-4, 4),
        st.builds(
            slice,
            st.none() | st.integers(-4, 4),
            st.none() | st.integers(-4, 4),
            st.none() | st.sampled_from([-2, -1, 1, 2, 3]),
        ),
        st.none(),
        st.just(...),
        st.lists(st.integers(-3, 3), min_size=1, max_size=3),
        st.sampled_from([1.5, "a", [0.5]]),
    )
    return st.one_of(item, st.tuples(item, item), st.tuples(item, item, item))


OTHERS = [
    Spec(
        "matmul",
        tf.matmul,
        _matmul_ref,
        2,
        st.fixed_dictionaries(
            {"transpose_a": st.booleans(), "transpose_b": st.booleans()}
        ),
    ),
    # SciPy and TensorFlow's kernels disagree on how an Inf logit turns to NaN
    Spec("softmax", tf.nn.softmax, _finite_only(sp.softmax), 1, AXIS_PARAM),
    Spec("log_softmax", tf.nn.log_softmax, _finite_only(sp.log_softmax), 1, AXIS_PARAM),
    Spec(
        "argmax",
        lambda x, axis: tf.argmax(x, axis=axis),
        lambda x, axis: np.argmax(x, axis=axis) if np.isfinite(x).all() else None,
        1,
        AXIS_PARAM,
    ),
    Spec(
        "cumsum",
        tf.cumsum,
        _cumsum_ref,
        1,
        st.fixed_dictionaries(
            {
                "axis": st.integers(-4, 3),
                "exclusive": st.booleans(),
                "reverse": st.booleans(),
            }
        ),
    ),
    Spec(
        "reshape",
        tf.reshape,
        lambda x, shape: np.reshape(x, shape),
        1,
        st.fixed_dictionaries({"shape": SMALL_INTS}),
    ),
    Spec(
        "transpose",
        tf.transpose,
        lambda x, perm: np.transpose(x, perm),
        1,
        st.fixed_dictionaries({"perm": st.none() | st.permutations(range(3))}),
    ),
    Spec(
        "expand_dims",
        tf.expand_dims,
        lambda x, axis: np.expand_dims(x, axis),
        1,
        AXIS_PARAM,
    ),
    Spec(
        "squeeze",
        tf.squeeze,
        lambda x, axis: np.squeeze(x, tuple(axis) if isinstance(axis, list) else axis),
        1,
        st.fixed_dictionaries({"axis": AXIS}),
    ),
    Spec(
        "tile",
        tf.tile,
        lambda x, multiples: (
            np.tile(x, multiples) if x.ndim == len(multiples) else None
        ),  # noqa: E501
        1,
        st.fixed_dictionaries({"multiples": SMALL_INTS}),
    ),
    Spec(
        "broadcast_to",
        tf.broadcast_to,
        lambda x, shape: np.broadcast_to(x, shape),
        1,
        st.fixed_dictionaries({"shape": SMALL_INTS}),
    ),
    Spec(
        "reverse",
        tf.reverse,
        lambda x, axis: (
            np.flip(x, tuple(axis)) if len(set(axis)) == len(axis) else None
        ),
        1,
        st.fixed_dictionaries({"axis": st.lists(st.integers(-4, 3), max_size=3)}),
    ),
    Spec(
        "concat",
        lambda x, y, axis: tf.concat([x, y], axis),
        lambda x, y, axis: np.concatenate([x, y], axis) if x.ndim else None,
        2,
        AXIS_PARAM,
    ),
    Spec(
        "stack",
        lambda x, y, axis: tf.stack([x, y], axis),
        lambda x, y, axis: np.stack([x, y], axis),
        2,
        AXIS_PARAM,
    ),
    Spec(
        "split",
        lambda x, n, axis: tf.split(x, n, axis),
        lambda x, n, axis: np.split(x, n, axis) if n > 0 else None,
        1,
        st.fixed_dictionaries({"n": st.integers(-1, 3), "axis": st.integers(-4, 3)}),
    ),
    Spec(
        "unstack",
        lambda x, axis: tf.unstack(x, axis=axis),
        lambda x, axis: list(np.moveaxis(x, axis, 0)),
        1,
        AXIS_PARAM,
    ),
    Spec(
        "gather",
        lambda x, indices, axis: tf.gather(x, indices, axis=axis),
        lambda x, indices, axis: np.take(x, indices, axis=axis),
        1,
        st.fixed_dictionaries(
            {
                "indices": st.lists(st.integers(-1, 3), max_size=3),
                "axis": st.integers(-4, 3),
            }
        ),
    ),
    Spec(
        "getitem",
        lambda x, key: _as_tensor(x)[key],
        lambda x, key: x[tuple(key) if isinstance(key, tuple) else key],
        1,
        st.fixed_dictionaries({"key": _getitem_key()}),
        indexing=True,
    ),
    Spec(
        "clip_by_value",
        tf.clip_by_value,
        # TensorFlow: maximum(minimum(x, hi), lo), so lo wins when lo > hi
        lambda x, lo, hi: np.maximum(np.minimum(x, hi), lo),
        3,
    ),
    Spec(
        "where",
        lambda c, x, y: tf.where(c, x, y),
        None,
        3,
    ),
    Spec(
        "cast",
        tf.cast,
        lambda x, dtype: x.astype(np.dtype(dtype)) if dtype == "float64" else None,
        1,
        st.fixed_dictionaries(
            {"dtype": st.sampled_from(["float32", "float64", "int32", "bool", "x"])}
        ),
    ),
    Spec("norm", tf.norm, lambda x: np.sqrt(np.sum(x * x)), 1),
    Spec(
        "sparse_softmax_cross_entropy_with_logits",
        lambda labels, logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits
        ),
        None,
        2,
    ),
    Spec(
        "sigmoid_cross_entropy_with_logits",
        lambda labels, logits: tf.nn.sigmoid_cross_entropy_with_logits(
            labels=labels, logits=logits
        ),
        None,
        2,
    ),
]

SPECS = (
    [Spec(n, f, r, 1) for n, f, r in UNARY]
    + [Spec(n, f, r, 2) for n, f, r in BINARY]
    + [
        Spec(n, f, _reduce_ref(r) if r else None, 1, REDUCE_PARAMS)
        for n, f, r in REDUCE
    ]
    + OTHERS
)


# -- the property --------------------------------------------------------------------


def _flat(result: Any) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _documented(err: Exception, spec: Spec) -> bool:
    if isinstance(err, IndexError) and not isinstance(err, DOCUMENTED):
        return spec.indexing
    # NumPy's own exception classes (AxisError, ...) escaping the engine are
    # internal errors even when they subclass ValueError: the user gets NumPy's
    # words about NumPy's arguments instead of ours.
    return isinstance(err, DOCUMENTED) and not type(err).__module__.startswith("numpy")


def _check_raised(err: Exception, spec: Spec, where: str) -> None:
    if not _documented(err, spec):
        raise AssertionError(
            f"{spec.name} ({where}) raised an undocumented "
            f"{type(err).__module__}.{type(err).__name__}: {err}"
        ) from err
    assert str(err).strip(), f"{spec.name} ({where}): {type(err).__name__} says nothing"


def _float_sources(inputs: list) -> list:
    return [
        v
        for v in inputs
        if isinstance(v, (Tensor, Variable)) and v._value.dtype.kind == "f"
    ]


def _check_reference(spec: Spec, inputs: list, params: dict, result: Any) -> bool:
    """Compare with the float64 reference; whether there was one to compare."""
    if spec.ref is None:
        return False
    if not all(
        isinstance(v, (Tensor, Variable, np.ndarray))
        and np.asarray(v._value if isinstance(v, (Tensor, Variable)) else v).dtype
        == np.float64
        for v in inputs
    ):
        return False
    arrays = [
        np.array(v._value if isinstance(v, (Tensor, Variable)) else v) for v in inputs
    ]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = spec.ref(*arrays, **params)
    except Exception:  # NumPy rejects what TensorFlow accepts: nothing to compare
        return False
    if want is None:
        return False
    wants = want if isinstance(want, list) else [want]
    gots = _flat(result)
    assert len(gots) == len(wants), f"{spec.name}: {len(gots)} outputs, {len(wants)}"
    for got, want in zip(gots, wants):
        want = np.asarray(want)
        value = got._value
        assert value.shape == want.shape, (
            f"{spec.name}: shape {value.shape}, reference {want.shape}"
        )
        if want.dtype.kind == "f":
            assert value.dtype == np.float64, f"{spec.name}: dtype {value.dtype}"
            np.testing.assert_allclose(
                value, want, rtol=1e-9, atol=1e-300, equal_nan=True,
                err_msg=f"{spec.name} on float64 inputs",
            )  # fmt: skip
        elif want.dtype.kind == "b":
            assert value.dtype == np.bool_, f"{spec.name}: dtype {value.dtype}"
            np.testing.assert_array_equal(value, want, err_msg=spec.name)
        else:
            np.testing.assert_array_equal(value, want, err_msg=spec.name)
    return True


def _check_gradients(spec, tape, result, sources, recorded: bool) -> None:
    """Gradients of a fuzzed call: documented errors only, the sources' shapes."""
    targets = _flat(result)
    try:
        grads = tape.gradient(targets, sources)
    except Exception as err:
        _check_raised(err, spec, "gradient")
        return
    for g, s in zip(grads, sources):
        if g is None:
            continue
        assert g._value.shape == s._value.shape, (
            f"{spec.name}: gradient shape {g._value.shape} for a source "
            f"of shape {s._value.shape}"
        )
        assert g._value.dtype == s._value.dtype, f"{spec.name}: gradient dtype"
        if not recorded and all(t is not _read_of(s) for t in targets):
            raise AssertionError(f"{spec.name}: a gradient through stop_recording")


CONFIGS = ["none", "tape", "persistent", "nested", "paused", "variables_unwatched"]


@st.composite
def calls(draw: Any) -> tuple:
    spec = draw(st.sampled_from(SPECS))
    one = SHAPES.map(lambda s: [s])
    shapes = draw(one if spec.arity == 1 else _broadcasting(spec.arity))
    # one dtype for every input, float64 most of all: the reference's dtype
    same = draw(st.sampled_from([True, True, True, False]))
    dtype = draw(st.sampled_from([np.float64] * 4 + DTYPES)) if same else None
    inputs = [draw(values(s, dtype)) for s in shapes]
    params = draw(spec.params)
    config = draw(st.sampled_from(CONFIGS))
    return spec, inputs, params, config


def run_call(spec: Spec, inputs: list, params: dict, config: str) -> None:
    sources = _float_sources(inputs)
    result = err = None
    if config == "none":
        try:
            result = spec.call(*inputs, **params)
        except Exception as e:
            err = e
    elif config in ("tape", "persistent", "paused", "variables_unwatched"):
        tape = GradientTape(
            persistent=config == "persistent",
            watch_accessed_variables=config != "variables_unwatched",
        )
        with tape:
            tape.watch([s for s in sources if isinstance(s, Tensor)])
            try:
                if config == "paused":
                    with tape.stop_recording():
                        result = spec.call(*inputs, **params)
                else:
                    result = spec.call(*inputs, **params)
            except Exception as e:
                err = e
        if err is None and sources:
            _check_gradients(spec, tape, result, sources, config != "paused")
            if config == "persistent":
                _check_gradients(spec, tape, result, sources, True)
    else:  # nested: second derivatives of whatever came out
        with GradientTape(persistent=True) as outer:
            outer.watch([s for s in sources if isinstance(s, Tensor)])
            with GradientTape() as inner:
                inner.watch([s for s in sources if isinstance(s, Tensor)])
                try:
                    result = spec.call(*inputs, **params)
                except Exception as e:
                    err = e
            if err is None and sources:
                try:
                    firsts = inner.gradient(_flat(result), sources)
                except Exception as e:
                    _check_raised(e, spec, "inner gradient")
                    firsts = []
        if err is None and sources:
            kept = [g for g in firsts if g is not None]
            if kept:
                _check_gradients(spec, outer, kept, sources, True)
    if err is not None:
        event(f"raised {type(err).__name__}")
        _check_raised(err, spec, config)
    else:
        event("returned")
        if _check_reference(spec, inputs, params, result):
            event("compared with the float64 reference")


@fuzz_settings(800)
@given(calls())
def test_public_calls_return_the_reference_or_raise_documented_errors(call):
    spec, inputs, params, config = call
    note(f"{spec.name}({inputs!r}, **{params!r}) under {config}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_call(spec, inputs, params, config)
    finally:
        # never a tape (or an explanation log) left on the stack, even on failure
        assert state.tapes == [], f"tapes left recording: {state.tapes}"
        assert state.observers == []
        state.tapes.clear()


_PLAIN_PARAMS = {
    "reduce": {"axis": 1, "keepdims": False},
    "matmul": {"transpose_a": False, "transpose_b": False},
    "softmax": {"axis": -1},
    "log_softmax": {"axis": 0},
    "argmax": {"axis": 0},
    "cumsum": {"axis": 1, "exclusive": True, "reverse": True},
    "reshape": {"shape": [3, -1]},
    "transpose": {"perm": None},
    "expand_dims": {"axis": 0},
    "squeeze": {"axis": None},
    "tile": {"multiples": [1, 2]},
    "broadcast_to": {"shape": [2, 2, 3]},
    "reverse": {"axis": [1]},
    "concat": {"axis": 0},
    "stack": {"axis": 1},
    "split": {"n": 3, "axis": 1},
    "unstack": {"axis": 1},
    "gather": {"indices": [0, 2, 2], "axis": 1},
    "getitem": {"key": (slice(None), [0, 2])},
    "cast": {"dtype": "float64"},
}


def _plain_inputs(spec: Spec) -> list:
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0.1, 0.9, size=(2, 3)), rng.uniform(0.1, 0.9, size=(2, 3))
    if spec.name in ("matmul", "operator @"):
        return [Tensor(x), Tensor(np.ones((3, 3)))]
    if spec.name == "sparse_softmax_cross_entropy_with_logits":
        return [Tensor(np.array([0, 2], np.int32)), Tensor(x)]
    if spec.name == "clip_by_value":
        return [Tensor(x), Tensor(np.float64(0.3)), Tensor(np.float64(0.6))]
    if spec.name == "where":
        return [Tensor(x > 0.5), Tensor(x), Tensor(y)]
    if spec.name in ("logical_not", "reduce_any"):
        return [Tensor(x > 0.5)]
    if spec.name == "logical_and":
        return [Tensor(x > 0.5), Tensor(y > 0.5)]
    return [Tensor(x), Tensor(y)][: spec.arity]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_spec_runs_on_plain_float64_inputs(spec):
    # The fuzzer draws from SPECS: each entry must work, and agree with its
    # reference, on ordinary inputs, or it would only ever test error paths.
    inputs = _plain_inputs(spec)
    kind = "reduce" if spec.name.startswith("reduce_") else spec.name
    params = _PLAIN_PARAMS.get(kind, {})
    result = spec.call(*inputs, **params)
    compared = _check_reference(spec, inputs, params, result)
    assert compared or spec.ref is None or spec.name == "argmax"
    assert all(isinstance(r, Tensor) for r in _flat(result))


# -- random programs: forward, gradients, jacobians, second order --------------------


@dataclass(frozen=True)
class ProgramOp:
    """One step a program may take: tapemagic and NumPy versions side by side."""

    name: str
    arity: int
    tf: Callable[..., Any]
    np: Callable[..., Any]
    min_ndim: int = 0
    params: Callable[[tuple], Any] = lambda shape: st.just({})
    # whether the inputs sit at a kink, where finite differences mean nothing
    kink: Callable[..., bool] | None = None


def _tie(x: np.ndarray, y: Any = 0.0) -> bool:
    # Ties are no accident here: a value and a copy of it that a paused or
    # reset tape froze are equal, and the tape then differentiates one side.
    return bool(np.any(np.abs(np.asarray(x) - y) < 1e-7))


def _max_tie(x: np.ndarray, axis: Any) -> bool:
    top = np.max(x, axis=axis, keepdims=True)
    return bool(np.any(np.sum(np.abs(x - top) < 1e-7, axis=axis) > 1))


def _axis_params(shape: tuple) -> Any:
    if not shape:
        return st.fixed_dictionaries({"axis": st.none(), "keepdims": st.booleans()})
    axis = st.one_of(
        st.none(),
        st.integers(-len(shape), len(shape) - 1),
        st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True),
    )
    return st.fixed_dictionaries({"axis": axis, "keepdims": st.booleans()})


def _np_axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@tf.custom_gradient
def _custom_sin(x: Any) -> Any:
    def grad(g: Any) -> Any:
        return g * tf.cos(x)  # recorded by an outer tape: second order works

    return tf.sin(x), grad


PROGRAM_OPS = [
    ProgramOp("custom_gradient sin", 1, _custom_sin, np.sin),
    ProgramOp("tanh", 1, tf.tanh, np.tanh),
    ProgramOp("sin", 1, tf.sin, np.sin),
    ProgramOp("cos", 1, tf.cos, np.cos),
    ProgramOp("sigmoid", 1, tf.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    ProgramOp("softplus", 1, tf.nn.softplus, lambda x: np.logaddexp(0, x)),
    ProgramOp("relu", 1, tf.nn.relu, lambda x: np.maximum(x, 0), kink=_tie),
    ProgramOp("square", 1, tf.square, np.square),
    ProgramOp("negative", 1, lambda x: -x, np.negative),
    ProgramOp("exp", 1, tf.exp, np.exp),
    ProgramOp(
        "log(1+x^2)", 1, lambda x: tf.math.log(1.0 + x * x), lambda x: np.log1p(x * x)
    ),
    ProgramOp(
        "sqrt(1+x^2)",
        1,
        lambda x: tf.sqrt(1.0 + tf.square(x)),
        lambda x: np.hypot(1, x),
    ),
    ProgramOp("add", 2, lambda x, y: x + y, np.add),
    ProgramOp("subtract", 2, tf.subtract, np.subtract),
    ProgramOp("multiply", 2, lambda x, y: x * y, np.multiply),
    ProgramOp(
        "x/(1+y^2)", 2, lambda x, y: x / (1.0 + y * y), lambda x, y: x / (1 + y * y)
    ),
    ProgramOp(
        "(1+x^2)**y", 2, lambda x, y: (1.0 + x * x) ** y, lambda x, y: (1 + x * x) ** y
    ),
    ProgramOp("maximum", 2, tf.maximum, np.maximum, kink=lambda x, y: _tie(x, y)),
    ProgramOp(
        "where",
        2,
        lambda x, y: tf.where(x > 0, x, y),
        lambda x, y: np.where(x > 0, x, y),
        kink=lambda x, y: _tie(x, 0.0),
    ),
    ProgramOp(
        "reduce_sum",
        1,
        lambda x, axis, keepdims: tf.reduce_sum(x, axis, keepdims),
        lambda x, axis, keepdims: np.sum(x, _np_axis(axis), keepdims=keepdims),
        params=_axis_params,
    ),
    ProgramOp(
        "reduce_mean",
        1,
        lambda x, axis, keepdims: tf.reduce_mean(x, axis, keepdims),
        lambda x, axis, keepdims: np.mean(x, _np_axis(axis), keepdims=keepdims),
        params=_axis_params,
    ),
    ProgramOp(
        "reduce_max",
        1,
        lambda x, axis, keepdims: tf.reduce_max(x, axis, keepdims),
        lambda x, axis, keepdims: np.max(x, _np_axis(axis), keepdims=keepdims),
        params=_axis_params,
        kink=lambda x, axis, keepdims: _max_tie(x, _np_axis(axis)),
    ),
    ProgramOp(
        "reduce_logsumexp",
        1,
        lambda x, axis, keepdims: tf.reduce_logsumexp(x, axis, keepdims),
        lambda x, axis, keepdims: _logsumexp(x, _np_axis(axis), keepdims),
        params=_axis_params,
    ),
    ProgramOp("flatten", 1, lambda x: tf.reshape(x, [-1]), lambda x: x.reshape(-1)),
    ProgramOp("transpose", 1, tf.transpose, np.transpose),
    ProgramOp("expand_dims", 1, lambda x: tf.expand_dims(x, 0), lambda x: x[None]),
    ProgramOp(
        "broadcast_to",
        1,
        lambda x: tf.broadcast_to(x, (2,) + tuple(x.shape)),
        lambda x: np.broadcast_to(x, (2,) + x.shape),
    ),
    ProgramOp(
        "concat self",
        1,
        lambda x: tf.concat([x, x], axis=-1),
        lambda x: np.concatenate([x, x], axis=-1),
        min_ndim=1,
    ),
    ProgramOp("reverse", 1, lambda x: x[..., ::-1], lambda x: x[..., ::-1], 1),
    ProgramOp("first row", 1, lambda x: x[0], lambda x: x[0], 1),
    ProgramOp(
        "gather twice", 1, lambda x: tf.gather(x, [0, 0]), lambda x: x[[0, 0]], 1
    ),
    ProgramOp(
        "cumsum", 1, lambda x: tf.cumsum(x, axis=-1), lambda x: np.cumsum(x, -1), 1
    ),
    ProgramOp("softmax", 1, tf.nn.softmax, _np_softmax, 1),
    ProgramOp(
        "log_softmax",
        1,
        tf.nn.log_softmax,
        lambda x: np.log(_np_softmax(x)),
        1,
    ),
    ProgramOp(
        "x @ x^T",
        1,
        lambda x: tf.matmul(x, x, transpose_b=True),
        lambda x: x @ np.swapaxes(x, -1, -2),
        2,
    ),
    ProgramOp(
        "stack", 1, lambda x: tf.stack([x, x * 0.5]), lambda x: np.stack([x, x * 0.5])
    ),
]


@dataclass
class Program:
    """Sources, steps and the tape configuration they run under."""

    shapes: list
    steps: list  # (ProgramOp, input indices, params)
    seed: int
    variables: bool  # sources are tf.Variables (watched when read) or watched tensors
    persistent: bool
    pause: tuple | None  # (start, stop) steps run under tape.stop_recording()
    reset: int | None  # tape.reset() before this step
    rewatch: bool  # watch the tensor sources again after the reset
    outer: bool  # an outer tape for second derivatives
    targets: list
    seeded: bool  # output_gradients given (else ones)
    zero: bool  # unconnected_gradients=ZERO


def _broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


@st.composite
def programs(draw: Any) -> Program:
    k = draw(st.integers(1, 3))
    shapes = list(
        draw(
            hnp.mutually_broadcastable_shapes(
                num_shapes=k, min_dims=0, max_dims=3, min_side=1, max_side=3
            )
        ).input_shapes
    )
    pool = [np.full(s, 0.5) for s in shapes]
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(PROGRAM_OPS))
        first = draw(st.integers(0, len(pool) - 1))
        if pool[first].ndim < op.min_ndim:
            continue
        args = [first]
        if op.arity == 2:
            partners = [
                i for i, a in enumerate(pool) if _broadcasts(a.shape, pool[first].shape)
            ]
            args.append(draw(st.sampled_from(partners)))
        params = draw(op.params(pool[first].shape))
        pool.append(np.asarray(op.np(*[pool[i] for i in args], **params)))
        steps.append((op, tuple(args), params))
    n = len(steps)
    plain = st.just(None)
    pause = draw(plain | st.tuples(st.integers(0, n), st.integers(0, n)).map(sorted))
    reset = draw(plain | st.integers(0, n))
    if pause is not None and reset is not None and pause[0] <= reset < pause[1]:
        reset = None  # reset() needs a recording tape
    outer = pause is None and reset is None and draw(st.booleans())
    outputs = list(range(k, k + n))
    if not outputs:
        targets = [0]
    else:
        targets = draw(st.lists(st.sampled_from(outputs), min_size=1, max_size=2))
    return Program(
        shapes=shapes,
        steps=steps,
        seed=draw(st.integers(0, 2**32 - 1)),
        variables=draw(st.booleans()),
        persistent=draw(st.booleans()),
        pause=tuple(pause) if pause else None,
        reset=reset,
        rewatch=draw(st.booleans()),
        outer=outer,
        targets=targets,
        seeded=draw(st.booleans()),
        zero=draw(st.booleans()),
    )


def _evaluate(p: Program, arrays: list, recorded: list, frozen: list) -> list:
    """The program in NumPy; steps the tape did not record keep their values."""
    values = list(arrays)
    for i, (op, args, params) in enumerate(p.steps):
        if recorded is not None and not recorded[i]:
            values.append(frozen[len(arrays) + i])
        else:
            values.append(np.asarray(op.np(*[values[a] for a in args], **params)))
    return values


def _at_a_kink(p: Program, values: list) -> bool:
    k = len(p.shapes)
    return any(
        op.kink is not None and op.kink(*[values[a] for a in args], **params)
        for op, args, params in p.steps[: len(values) - k]
    )


def _model(p: Program, aliases: list) -> tuple[list, list, set]:
    """What the tape records, by TensorFlow's rules, and what it connects.

    ``aliases[i]`` is the pool index whose tensor step ``i`` returned as is (a
    reshape to the same shape, say): that is the same tensor, not a new node.

    Returns (per step, whether its NumPy value follows the sources (else it is
    frozen at its value); per source, whether its gradient is connected).
    """
    k = len(p.shapes)
    canon = list(range(k))  # pool index -> index of the tensor it is
    tracked = {j: not p.variables for j in range(k)}
    deps: dict[int, set] = {j: {j} for j in range(k)}
    follows = []
    for i, (_, args, _) in enumerate(p.steps):
        if i == p.reset:  # the tape forgets every node and every watch
            tracked = {j: not p.variables and p.rewatch for j in range(k)}
            follows = [a is not None for a in aliases[: len(follows)]]
            deps = {j: {j} for j in range(k)}
        paused = p.pause is not None and p.pause[0] <= i < p.pause[1]
        if p.variables and not paused:
            for a in args:
                if a < k:  # the Variable itself, not a tensor read from it earlier
                    tracked[a] = True  # a variable read in the tape is watched
        if aliases[i] is not None:
            canon.append(canon[aliases[i]])
            follows.append(True)
            continue
        rec = not paused and any(tracked.get(canon[a], False) for a in args)
        canon.append(k + i)
        follows.append(rec)
        tracked[k + i] = rec
        deps[k + i] = set().union(*[deps.get(canon[a], set()) for a in args])
        if not rec:
            deps[k + i] = set()
    reached: set = set()
    targets_as_sources = set()
    for t in p.targets:
        if canon[t] < k:
            targets_as_sources.add(canon[t])
        reached |= deps.get(canon[t], set())
    # gradient(x, x) is ones even for a source the tape never watched
    live = [(tracked[j] and j in reached) or j in targets_as_sources for j in range(k)]
    return follows, live


def _run_program(p: Program, sources: list, tape: GradientTape) -> list:
    pool = list(sources)
    pause = None
    aliases = []
    for i, (op, args, params) in enumerate(p.steps):
        if p.pause is not None and i == p.pause[0] and p.pause[1] > i:
            pause = tape.stop_recording()
            pause.__enter__()
        if pause is not None and i == p.pause[1]:
            pause.__exit__(None, None, None)
            pause = None
        if i == p.reset:
            tape.reset()
            if p.rewatch and not p.variables:
                tape.watch(sources)
        out = op.tf(*[pool[a] for a in args], **params)
        same = [a for a in args if out is pool[a] or _read_of(pool[a]) is out]
        aliases.append(same[0] if same else None)
        pool.append(out)
    if pause is not None:
        pause.__exit__(None, None, None)
    return pool, aliases


def _read_of(value: Any) -> Any:
    return value._snapshot if isinstance(value, Variable) else value


def _loss(p: Program, values: list, us: list) -> float:
    return float(sum(np.sum(u * values[t]) for u, t in zip(us, p.targets)))


def _close(analytic: float, numeric: float, tol: float, what: str) -> None:
    scale = max(1.0, abs(analytic), abs(numeric))
    assert abs(analytic - numeric) <= tol * scale, (
        f"{what}: tape {analytic!r}, finite differences {numeric!r}"
    )


def check_program(p: Program) -> None:
    rng = np.random.default_rng(p.seed)
    arrays = [rng.uniform(-1.5, 1.5, size=s) for s in p.shapes]
    k = len(arrays)
    sources = [Variable(a) if p.variables else Tensor(a) for a in arrays]
    tensors = [s for s in sources if isinstance(s, Tensor)]
    outer = GradientTape() if p.outer else None
    tape = GradientTape(persistent=p.persistent)
    with contextlib.ExitStack() as stack:
        if outer is not None:
            stack.enter_context(outer)
            outer.watch(tensors)
        with tape:
            tape.watch(tensors)
            pool, aliases = _run_program(p, sources, tape)
        want = _evaluate(p, arrays, None, None)
        for i, (got, value) in enumerate(zip(pool[k:], want[k:])):
            np.testing.assert_allclose(
                np.asarray(got), value, rtol=1e-12, atol=1e-12,
                err_msg=f"forward of step {i} ({p.steps[i][0].name})",
            )  # fmt: skip
        us = [rng.standard_normal(want[t].shape) for t in p.targets]
        seeds = [Tensor(u) for u in us] if p.seeded else None
        if not p.seeded:
            us = [np.ones_like(u) for u in us]
        mode = tf.UnconnectedGradients.ZERO if p.zero else tf.UnconnectedGradients.NONE
        targets = [pool[t] for t in p.targets]
        grads = tape.gradient(targets, sources, seeds, unconnected_gradients=mode)
        if outer is not None:
            vs = [rng.standard_normal(a.shape) for a in arrays]
            terms = [tf.reduce_sum(g * v) for g, v in zip(grads, vs) if g is not None]
            total = tf.add_n(terms) if terms else None
    recorded, live = _model(p, aliases)
    vs = vs if outer is not None else [rng.standard_normal(a.shape) for a in arrays]
    for j, (g, s) in enumerate(zip(grads, arrays)):
        connected = live[j]
        if not connected and not p.zero:
            assert g is None, f"source {j}: expected None (not recorded), got {g}"
            continue
        assert g is not None, f"source {j}: gradient is None"
        assert g.shape == s.shape and g.dtype == tf.float64, f"source {j}: {g!r}"
        if not connected:
            np.testing.assert_array_equal(g.numpy(), 0.0)
    eps = 1e-6
    frozen = want

    def loss_at(delta: list) -> float:
        moved = [a + d for a, d in zip(arrays, delta)]
        return _loss(p, _evaluate(p, moved, recorded, frozen), us)

    directions = [v if ok else np.zeros_like(v) for v, ok in zip(vs, live)]
    smooth = not _at_a_kink(p, _evaluate(p, arrays, recorded, frozen))
    if not smooth:
        event("at a kink: no finite differences")
    if any(live) and smooth:
        analytic = float(
            sum(np.sum(g.numpy() * v) for g, v, ok in zip(grads, vs, live) if ok)
        )
        numeric = (
            loss_at([eps * v for v in directions])
            - loss_at([-eps * v for v in directions])
        ) / (2 * eps)
        _close(analytic, numeric, 1e-5, "first order")
        event("first order checked")
    if p.persistent:
        again = tape.gradient(targets, sources, seeds, unconnected_gradients=mode)
        for g, h in zip(grads, again):
            assert (g is None) == (h is None)
            if g is not None:
                np.testing.assert_array_equal(g.numpy(), h.numpy())
        if len(targets) == 1:
            jac = tape.jacobian(targets[0], sources, unconnected_gradients=mode)
            for g, jm, u in zip(grads, jac, us):
                assert (g is None) == (jm is None), "jacobian and gradient disagree"
                if g is not None:
                    contracted = np.tensordot(u, jm.numpy(), axes=u.ndim)
                    np.testing.assert_allclose(
                        contracted, g.numpy(), rtol=1e-10, atol=1e-10
                    )
                    event("jacobian checked")
    if outer is not None and total is not None and any(live) and smooth:
        second = outer.gradient(total, sources)
        ws = [rng.standard_normal(a.shape) for a in arrays]
        analytic = float(
            sum(np.sum(h.numpy() * w) for h, w in zip(second, ws) if h is not None)
        )
        h = 1e-4
        vw = [
            loss_at([h * (a * v + b * w) for v, w in zip(directions, ws)])
            for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1))
        ]
        numeric = (vw[0] - vw[1] - vw[2] + vw[3]) / (4 * h * h)
        _close(analytic, numeric, 1e-4, "second order (nested tapes)")
        event("second order checked")


@fuzz_settings(400)
@given(programs())
def test_random_programs_match_numpy_and_finite_differences(program):
    note(
        " -> ".join(
            f"{op.name}{args}{params or ''}" for op, args, params in program.steps
        )
    )
    try:
        with np.errstate(all="ignore"):
            check_program(program)
    finally:
        assert state.tapes == [], f"tapes left recording: {state.tapes}"
