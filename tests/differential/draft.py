"""The generator's state and its values: what a program drawn so far holds.

A :class:`Draft` keeps the sources and steps drawn so far and a pool of what
is known of each value (its shape and dtype), so that an op's inputs are
picked among the values that fit it, or made for it. Values come from a
small set at the kinks (0, -0, 1, -1, ties, large magnitudes, NaN, inf)
mixed with uniform floats, so ties, zeros and non-finite inputs are common.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .program import Const, Source

__all__ = ["FLOAT", "INT", "REAL", "Draft", "Value", "broadcasts", "shape_of"]

FLOAT = ("float32", "float64")
INT = ("int32", "int64")
REAL = FLOAT + INT
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, 1e4, -1e4]
NONFINITE = [np.nan, np.inf, -np.inf]


def _uniform(width: int) -> Any:
    # no subnormals: TensorFlow's CPU kernels flush them to zero, so
    # rsqrt(-1e-308) is -inf there and NaN in NumPy (docs/RELIABILITY.md);
    # nor numbers so small that an op's result could be one (the smallest
    # normal float32 halved): those are 0
    return st.floats(-3.0, 3.0, width=width, allow_subnormal=False).map(
        lambda v: 0.0 if abs(v) < 1e-30 else v
    )


def _elements(dtype: str) -> Any:
    if dtype == "bool":
        return st.booleans()
    if dtype in INT:
        return st.one_of(st.integers(-3, 3), st.sampled_from([0, 1, -1, 7, 100]))
    width = 32 if dtype == "float32" else 64
    return st.one_of(
        st.sampled_from(SPECIAL),
        _uniform(width),
        st.sampled_from(SPECIAL),
        st.sampled_from(NONFINITE),
    )


def _finite(dtype: str) -> Any:
    if dtype in FLOAT:
        width = 32 if dtype == "float32" else 64
        return st.one_of(st.sampled_from(SPECIAL[:7]), _uniform(width))
    return _elements(dtype)


@dataclass
class Value:
    """What the generator knows of a value: where it is, its shape and dtype."""

    ref: tuple  # ("s", k) a source, ("v", k) a step's value
    shape: tuple
    dtype: str


@dataclass
class Draft:
    """The program being drawn: sources and steps so far, and ``draw``."""

    draw: Callable
    sources: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    pool: list = field(default_factory=list)

    def array(self, shape: tuple, dtype: str, finite: bool = False) -> np.ndarray:
        """Values drawn at the kinks, or without NaN and inf (``finite``)."""
        elements = _finite(dtype) if finite else _elements(dtype)
        return self.draw(hnp.arrays(np.dtype(dtype), shape, elements=elements))

    def source(
        self, shape: tuple, dtype: str, finite: bool = False, value: Any = None
    ) -> Value:
        """A new source of this shape and dtype (or ``value``): a tensor or a
        Variable."""
        kind = self.draw(st.sampled_from(["tensor", "tensor", "variable"]))
        trainable = kind == "tensor" or self.draw(st.booleans() | st.just(True))
        if value is None:
            value = self.array(shape, dtype, finite)
        self.sources.append(Source(value, kind, trainable))
        v = Value(("s", len(self.sources) - 1), shape, dtype)
        self.pool.append(v)
        return v

    def pick(
        self, ok: Callable[[Value], bool], shape: tuple, dtype: str, exact: bool = False
    ) -> Value:
        """A value that satisfies ``ok``, or a new source of ``shape`` and ``dtype``.

        ``exact``: not a float computed by a step, whose last digits may differ
        between the two runs (for the ops whose answer jumps: see rows.JUMPS).
        """
        fits = [
            v
            for v in self.pool
            if ok(v) and not (exact and v.ref[0] == "v" and v.dtype in FLOAT)
        ]
        if fits and self.draw(st.integers(0, 3)):
            return self.draw(st.sampled_from(fits))
        return self.source(shape, dtype)

    def operand(
        self,
        dtypes: tuple,
        min_rank: int = 0,
        finite: bool = False,
        exact: bool = False,
    ) -> Value:
        """An input of one of ``dtypes`` and at least ``min_rank`` axes.

        ``finite``: a new source without NaN or inf (the pool's values may hold
        them), for the rows whose answer at NaN is not reproduced; ``exact``:
        see :meth:`pick`.
        """
        dtype = self.draw(st.sampled_from(dtypes))
        shape = self.draw(hnp.array_shapes(min_dims=min_rank, max_dims=3, max_side=3))
        if finite:
            return self.source(shape, dtype, finite=True)
        return self.pick(
            lambda v: v.dtype in dtypes and len(v.shape) >= min_rank,
            shape,
            dtype,
            exact,
        )

    def partner(self, x: Value, dtype: str | None = None, exact: bool = False) -> Any:
        """A second input that broadcasts with ``x``: a value, source or constant."""
        dtype = dtype or x.dtype
        shape = self.draw(hnp.broadcastable_shapes(x.shape, max_dims=3, max_side=3))
        kind = self.draw(st.sampled_from(["value", "value", "python", "numpy"]))
        if kind == "python":
            # NOTE: not -0.0: TensorFlow caches the tensors it makes of Python
            # scalars by value, and -0.0 == 0.0, so a Python -0.0 becomes
            # whichever zero the process converted first (RELIABILITY.md)
            value = self.array((), dtype).item()
            return Const(0.0 if isinstance(value, float) and value == 0 else value)
        if kind == "numpy":
            return Const(self.array(shape, dtype))
        return self.pick(
            lambda v: v.dtype == dtype and broadcasts(v.shape, x.shape),
            shape,
            dtype,
            exact,
        )


def broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def shape_of(a: Any) -> tuple:
    if isinstance(a, Value):
        return a.shape
    return np.shape(a.value)
