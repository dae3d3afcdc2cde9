"""The gradient checker that every op's case row goes through.

A :class:`Case` names an op of the op table, a function that applies it to float64
tensors, and a hypothesis strategy for the input shapes. :func:`check_case` then
verifies, for one drawn example:

1. the VJP against central finite differences in a random direction;
2. second order, through nested tapes (smooth ops only);
3. that each input alone needing a gradient gets the same gradient from a
   node that keeps only what that input's VJP reads (``saves`` per input);
4. that one sweep with a batch of cotangents equals a loop of single sweeps;
5. that the VJP run on arrays (the sweep when nothing records it) and run as
   engine ops (the sweep under a recording tape) gives the same gradients,
   batched and not, in the same dtype; in float32 too, where NumPy's scalar
   promotion could widen one of them.

Non-differentiable ops instead check that the gradient through them is ``None``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tapemagic.engine import GradientTape, Tensor
from tapemagic.engine import backprop as backprop_module
from tapemagic.engine import saves as saves_module
from tapemagic.engine.backprop import backward
from tapemagic.engine.errors import InvalidArgumentError
from tapemagic.engine.ops.reduce import reduce_sum

EPS = 1e-6


@dataclass(frozen=True)
class Case:
    """One row of the op case table.

    Attributes:
        op: the op's name in OP_TABLE that this row covers.
        fn: applies the op to the inputs (float64 tensors, then any int arrays
            from ``extra``); returns a tensor or a list of tensors.
        shapes: hypothesis strategy drawing a tuple of input shapes.
        domain: (low, high) to sample inputs from, or a function
            ``(rng, shape) -> array`` for special domains (e.g. away from kinks).
        extra: draws non-differentiable inputs (indices...) given the shapes:
            ``(data, shapes) -> tuple`` passed after the float inputs.
        tol: relative tolerance for the comparisons.
        eps: finite-difference step (larger for ops that round to float32).
        smooth: also check second derivatives.
        differentiable: False for ops whose gradient is None (round, argmax...).
        constant: the op is piecewise constant and its gradient is zeros, not
            None (argsort on the last axis, as TensorFlow's top_k): the output
            does not move under small steps, and the gradient is all zeros.
        name: a short id for the test report (defaults to ``op``).
    """

    op: str
    fn: Callable[..., Any]
    shapes: Any
    domain: Any = (-2.0, 2.0)
    extra: Callable[..., tuple] | None = None
    tol: float = 1e-6
    eps: float = EPS
    smooth: bool = True
    differentiable: bool = True
    constant: bool = False
    name: str = field(default="")

    @property
    def id(self) -> str:
        return self.name or self.op


# -- shape strategies ------------------------------------------------------------


def shapes(*fixed: tuple) -> Any:
    """A strategy that always gives these shapes."""
    return st.just(tuple(fixed))


def unary_shapes(min_dims: int = 0, max_dims: int = 3, max_side: int = 4) -> Any:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1,
                            max_side=max_side).map(lambda s: (s,))  # fmt: skip


def broadcast_shapes(num: int = 2, min_dims: int = 0, max_dims: int = 3) -> Any:
    """Shapes of ``num`` inputs that broadcast together (sizes 1 stretched)."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num, min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=4
    ).map(lambda b: tuple(b.input_shapes))


@st.composite
def shape_and_broadcastable(draw: Any, max_dims: int = 3) -> tuple:
    """``(shape, sub)`` where ``sub`` broadcasts into ``shape`` without growing it."""
    full = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=1, max_side=4))
    keep = draw(st.integers(0, len(full)))
    tail = full[len(full) - keep :]
    sub = tuple(d if draw(st.booleans()) else 1 for d in tail)
    return (full, sub)


# -- the checks --------------------------------------------------------------------


def _flat(out: Any) -> list[Tensor]:
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _sample(case: Case, rng: np.random.Generator, shape: tuple) -> np.ndarray:
    if callable(case.domain):
        return np.asarray(case.domain(rng, shape), dtype=np.float64)
    low, high = case.domain
    return rng.uniform(low, high, size=shape)


def _forward(case: Case, arrays: list[np.ndarray], extra: tuple) -> list[np.ndarray]:
    return [t._value for t in _flat(case.fn(*[Tensor(a) for a in arrays], *extra))]


def _loss_along(case, arrays, extra, cotangents) -> float:
    outs = _forward(case, arrays, extra)
    return float(sum(np.sum(u * y) for u, y in zip(cotangents, outs)))


def _close(analytic: float, numeric: float, tol: float, what: str) -> None:
    scale = max(1.0, abs(analytic), abs(numeric))
    assert abs(analytic - numeric) <= tol * scale, (
        f"{what}: analytic {analytic!r} vs finite differences {numeric!r}"
    )


def check_case(case: Case, input_shapes: tuple, extra: tuple, seed: int) -> None:
    """Run every check of ``case`` on one set of shapes (AssertionError on failure)."""
    # Every value a VJP does not declare in `saves` becomes a stub, however small,
    # so a wrong declaration fails here rather than only on large arrays.
    threshold = saves_module.STUB_MIN_BYTES
    saves_module.STUB_MIN_BYTES = 0
    # An op's VJP must run on arrays: a sweep on arrays that falls back to
    # tensors (it does when an op of the rule refuses its input) would compare
    # the tensor VJP with itself.
    fallback = backprop_module._tensor_vjp_on_arrays

    def no_fallback(node: tuple, *args: Any) -> None:
        if node[0].on_arrays:
            raise AssertionError(
                f"{case.id}: the VJP of {node[0].name} failed on arrays"
            )
        fallback(node, *args)

    backprop_module._tensor_vjp_on_arrays = no_fallback
    try:
        _check_case(case, input_shapes, extra, seed)
    finally:
        saves_module.STUB_MIN_BYTES = threshold
        backprop_module._tensor_vjp_on_arrays = fallback


def _check_case(case: Case, input_shapes: tuple, extra: tuple, seed: int) -> None:
    rng = np.random.default_rng(seed)
    arrays = [_sample(case, rng, s) for s in input_shapes]
    xs = [Tensor(a) for a in arrays]
    with GradientTape(persistent=True) as tape:
        for x in xs:
            tape.watch(x)
        ys = _flat(case.fn(*xs, *extra))
    us = [rng.standard_normal(y._value.shape) for y in ys]

    if not case.differentiable:
        grads = tape.gradient(ys, xs)
        assert all(g is None for g in grads), f"{case.id}: expected None gradients"
        return
    if case.constant:
        for g, a in zip(tape.gradient(ys, xs), arrays):
            assert g is not None, f"{case.id}: gradient is None, not zeros"
            assert g._value.shape == a.shape and not g._value.any(), case.id
        for k, a in enumerate(arrays):
            step = case.eps * rng.standard_normal(a.shape)
            for moved in (a + step, a - step):
                inputs = [Tensor(moved if i == k else b) for i, b in enumerate(arrays)]
                for y, y2 in zip(ys, _flat(case.fn(*inputs, *extra))):
                    assert np.array_equal(y._value, y2._value), f"{case.id}: moved"
        return

    grads = tape.gradient(ys, xs, output_gradients=[Tensor(u) for u in us])
    vs = [rng.standard_normal(a.shape) for a in arrays]
    for g, x in zip(grads, xs):
        assert g is not None, f"{case.id}: gradient is None"
        assert g._value.shape == x._value.shape, (
            f"{case.id}: gradient shape {g._value.shape} != input {x._value.shape}"
        )
        assert g._value.dtype == np.float64, f"{case.id}: gradient dtype {g.dtype}"
    with GradientTape():  # a recording tape: the sweep runs the VJPs as engine ops
        engine = tape.gradient(ys, xs, output_gradients=[Tensor(u) for u in us])
    _same(grads, engine, f"{case.id}: VJP on arrays and on tensors")
    analytic = float(sum(np.sum(g._value * v) for g, v in zip(grads, vs)))
    plus = _loss_along(case, [a + case.eps * v for a, v in zip(arrays, vs)], extra, us)
    minus = _loss_along(case, [a - case.eps * v for a, v in zip(arrays, vs)], extra, us)
    _close(
        analytic, (plus - minus) / (2 * case.eps), case.tol, f"{case.id} first order"
    )

    _check_each_input_alone(case, arrays, extra, us, grads)
    _check_batched(case, tape, ys, xs, rng)
    _check_float32(case, arrays, extra, us)
    if case.smooth:
        _check_second_order(case, arrays, extra, us, vs, rng)


def _check_each_input_alone(case, arrays, extra, us, grads) -> None:
    """Each input alone needing a gradient: the node keeps only what that
    input's VJP reads (its per-input ``saves``; every other value is a stub
    here), and the gradient is the one computed with every input watched."""
    if len(arrays) < 2:
        return
    for i, want in enumerate(grads):
        xs = [Tensor(a) for a in arrays]
        with GradientTape(persistent=True) as tape:
            tape.watch(xs[i])
            ys = _flat(case.fn(*xs, *extra))
        seeds = [Tensor(u) for u in us]
        alone = tape.gradient(ys, xs[i], output_gradients=seeds)
        with GradientTape():
            engine = tape.gradient(ys, xs[i], output_gradients=seeds)
        what = f"{case.id}: input #{i} alone needing a gradient"
        _same([want], [alone], f"{what}, on arrays")
        _same([want], [engine], f"{what}, on tensors")


def _check_batched(case, tape, ys, xs, rng) -> None:
    batch = 3
    seeds = [rng.standard_normal((batch,) + y._value.shape) for y in ys]
    ids = {x._id for x in xs}
    together = backward(tape._nodes, {y._id: Tensor(s) for y, s in zip(ys, seeds)}, ids)
    with GradientTape():
        engine = backward(
            tape._nodes, {y._id: Tensor(s) for y, s in zip(ys, seeds)}, ids
        )
    _same(
        [together.get(x._id) for x in xs],
        [engine.get(x._id) for x in xs],
        f"{case.id}: batched VJP on arrays and on tensors",
    )
    for b in range(batch):
        alone = backward(
            tape._nodes, {y._id: Tensor(s[b]) for y, s in zip(ys, seeds)}, ids
        )
        for x in xs:
            want, got = alone.get(x._id), together.get(x._id)
            assert (want is None) == (got is None), f"{case.id}: batched connectivity"
            if want is not None:
                np.testing.assert_allclose(
                    got._value[b], want._value, rtol=1e-10, atol=1e-12,
                    err_msg=f"{case.id}: batched cotangent row {b}",
                )  # fmt: skip


def _check_float32(case, arrays, extra, us) -> None:
    """Both sweeps in float32: the same dtype, the same values to float32's
    precision (a rule whose constant is a NumPy float64 would widen on arrays)."""
    xs = [Tensor(a.astype(np.float32)) for a in arrays]
    try:
        with GradientTape(persistent=True) as tape:
            for x in xs:
                tape.watch(x)
            ys = _flat(case.fn(*xs, *extra))
        seeds = [Tensor(u.astype(y._value.dtype)) for u, y in zip(us, ys)]
        grads = tape.gradient(ys, xs, output_gradients=seeds)
        with GradientTape():
            engine = tape.gradient(ys, xs, output_gradients=seeds)
    except (TypeError, ValueError, InvalidArgumentError):
        return  # the case mixes in float64 values: it runs in float64 only
    _same(grads, engine, f"{case.id}: float32 VJP on arrays and on tensors", 1e-5)


def _same(raw: list, engine: list, what: str, rtol: float = 1e-12) -> None:
    for a, b in zip(raw, engine):
        assert (a is None) == (b is None), f"{what}: connectivity differs"
        if a is not None:
            assert a._value.dtype == b._value.dtype, f"{what}: dtypes differ"
            np.testing.assert_allclose(
                a._value, b._value, rtol=rtol, atol=1e-300 if rtol < 1e-6 else 1e-6,
                err_msg=what,
            )  # fmt: skip


def _inner_directional(case, xs, extra, us, vs) -> Tensor:
    """<grad of <u, f(x)>, v> computed on tapes, so it can be differentiated again."""
    with GradientTape() as inner:
        for x in xs:
            inner.watch(x)
        ys = _flat(case.fn(*xs, *extra))
    grads = inner.gradient(ys, xs, output_gradients=[Tensor(u) for u in us])
    total = None
    for g, v in zip(grads, vs):
        part = reduce_sum(g * Tensor(v))
        total = part if total is None else total + part
    return total


def _check_second_order(case, arrays, extra, us, vs, rng) -> None:
    xs = [Tensor(a) for a in arrays]
    with GradientTape() as outer:
        for x in xs:
            outer.watch(x)
        h = _inner_directional(case, xs, extra, us, vs)
    second = outer.gradient(h, xs, unconnected_gradients="zero")
    ws = [rng.standard_normal(a.shape) for a in arrays]
    analytic = float(sum(np.sum(s._value * w) for s, w in zip(second, ws)))

    def h_at(shifted):
        return float(
            _inner_directional(case, [Tensor(a) for a in shifted], extra, us, vs)._value
        )

    plus = h_at([a + case.eps * w for a, w in zip(arrays, ws)])
    minus = h_at([a - case.eps * w for a, w in zip(arrays, ws)])
    _close(
        analytic,
        (plus - minus) / (2 * case.eps),
        case.tol * 10,
        f"{case.id} second order",
    )
