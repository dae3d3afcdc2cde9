"""Random tape programs (hypothesis): ops, shapes, dtypes and values drawn to fit.

``programs()`` draws a :class:`~.program.Program`: a few sources (tensors,
trainable or frozen Variables), a chain of steps where each op is drawn from
``rows.OPS`` (one row per public function, covering tapemagic's op table)
with its inputs picked from the values made so far that fit it (shape,
dtype, broadcasting) or made for it (draft.py), then the tape's options and
gradient requests, and one program in four inside an outer tape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .draft import FLOAT, INT, Draft, Value
from .program import Program, Query, Step, TapeSpec
from .rows import OPS, Row

__all__ = ["programs"]


def _step(g: Draft, row: Row) -> bool:
    drawn = row.draw(g, row)
    if drawn is None:
        return False
    args, kwargs, (shape, dtype), *rest = drawn
    take = rest[0] if rest else None
    paused = g.draw(st.integers(0, 9)) == 9  # shrinks to recording
    g.steps.append((row.path, args, kwargs, take, paused))
    if None not in shape:  # a boolean_mask's length is known only when it runs
        g.pool.append(Value(("v", len(g.steps) - 1), tuple(shape), dtype))
    return True


def _index(ref: tuple, n_sources: int) -> int:
    kind, k = ref
    return k if kind == "s" else n_sources + k


def _resolve_arg(a: Any, n: int) -> Any:
    if isinstance(a, Value):
        return _index(a.ref, n)
    if isinstance(a, list):
        return [_resolve_arg(x, n) for x in a]
    return a


@st.composite
def programs(draw: Callable, max_steps: int = 5) -> Program:
    """A random tape program (see the module docstring)."""
    g = Draft(draw)
    n_first = draw(st.integers(1, 2))
    for _ in range(n_first):
        g.source(
            draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)),
            draw(st.sampled_from(FLOAT + FLOAT + INT)),
        )
    for _ in range(draw(st.integers(1, max_steps))):
        _step(g, draw(st.sampled_from(OPS)))
    n = len(g.sources)
    steps = []
    for path, args, kwargs, take, paused in g.steps:
        resolved = []
        resolved = tuple(_resolve_arg(a, n) for a in args)
        steps.append(Step(path, resolved, tuple(kwargs.items()), take, paused))
    return _with_tapes(draw, g, n, tuple(steps))


def _nest_of(draw: Callable, indices: list) -> Any:
    form = draw(st.sampled_from(["list", "single", "dict", "nested"]))
    if form == "single" or len(indices) == 1 and form != "list":
        return indices[0]
    if form == "dict":
        return {f"k{i}": j for i, j in enumerate(indices)}
    if form == "nested" and len(indices) > 1:
        return [indices[0], {"rest": indices[1:]}]
    return indices


def _query(draw: Callable, g: Draft, pool: dict, targets: list, sources: Any) -> Query:
    kind = draw(st.sampled_from(["gradient"] * 6 + ["jacobian", "batch_jacobian"]))
    if any(path == "einsum" and args[0].value == "ii->i" for path, args, *_ in g.steps):
        # TensorFlow's pfor cannot vectorize the gradient of a diagonal einsum
        # (its i->ii), and its jacobians raise ValueError (RELIABILITY.md)
        kind = "gradient"
    target = draw(st.sampled_from(targets))
    shape, dtype = pool[target].shape, pool[target].dtype
    unconnected = draw(st.sampled_from(["none", "zero"]))
    if kind == "batch_jacobian":
        # one source of rank >= 1, a target of rank >= 1: TensorFlow fails on
        # others from inside (AttributeError, IndexError) where tapemagic says
        # what to pass (docs/differences.md)
        # and a batch of one or more: TensorFlow divides by the batch size
        # inside, and raises ZeroDivisionError on an empty one
        ranked = [i for i, v in pool.items() if v.shape and v.shape[0]]
        if shape and shape[0] and ranked:
            return Query(kind, target, draw(st.sampled_from(ranked)), unconnected)
        kind = "jacobian"
    if kind == "jacobian":
        return Query(kind, target, sources, unconnected)
    numeric = [i for i in targets if pool[i].dtype != "bool"]
    if numeric and draw(st.integers(0, 4)) == 0:
        # several targets: the gradient of their sum (of their seeds, where a
        # source is a target; TensorFlow cannot add boolean seeds)
        both = draw(st.lists(st.sampled_from(numeric), min_size=2, max_size=2))
        return Query(kind, both, sources, unconnected)
    seed = None
    if dtype in FLOAT and draw(st.booleans()):
        seed = g.array(shape, dtype, finite=True)
    return Query(kind, target, sources, unconnected, seed)


def _indices(nest: Any) -> list:
    """The value indices in a nest of sources (an int, a list or a dict)."""
    if isinstance(nest, dict):
        return [i for v in nest.values() for i in _indices(v)]
    if isinstance(nest, list):
        return [i for v in nest for i in _indices(v)]
    return [nest]


def _sources(draw: Callable, indices: list, most: int) -> Any:
    chosen = st.lists(st.sampled_from(indices), min_size=1, max_size=most, unique=True)
    return _nest_of(draw, draw(chosen))


def _with_tapes(draw: Callable, g: Draft, n: int, steps: tuple) -> Program:
    pool = {_index(v.ref, n): v for v in g.pool}
    made = list(range(n))
    watch = st.lists(st.sampled_from(made), max_size=2, unique=True)
    tape = TapeSpec(
        persistent=draw(st.booleans()),
        watch_accessed_variables=draw(st.sampled_from([True, True, False])),
        watch=tuple(draw(watch)),
    )
    # a boolean step value is never a target: TensorFlow raises LookupError
    # for a seed that reaches is_nan, is_inf or is_finite; nor an integer's
    # round, which is its input itself (a Variable's read: RELIABILITY.md)
    targets = [
        i
        for i, v in pool.items()
        if i >= n
        and v.dtype != "bool"
        and not (g.steps[i - n][0] == "round" and v.dtype in INT)
    ]
    targets = targets or [i for i in pool if i < n]
    sources = _sources(draw, list(pool), 3)
    count = draw(st.integers(1, 2))
    queries = tuple(_query(draw, g, pool, targets, sources) for _ in range(count))
    # second order: not through a jacobian of its target with respect to the
    # target itself: TensorFlow's pfor leaves the outer tape a path of zeros
    # from that identity to the target's inputs, tapemagic's is a constant
    # (None), as TensorFlow's own with experimental_use_pfor=False
    # (RELIABILITY.md)
    own = any(q.kind != "gradient" and q.target in _indices(q.sources) for q in queries)
    if own or draw(st.integers(0, 3)):
        return Program(tuple(g.sources), steps, tape, queries)
    outer = TapeSpec(
        persistent=draw(st.booleans()),
        watch=tuple(draw(st.lists(st.sampled_from(made), max_size=1))),
    )
    outer_sources = _sources(draw, made, 2)
    return Program(tuple(g.sources), steps, tape, queries, outer, outer_sources)
