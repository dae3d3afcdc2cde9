"""Case rows for the ops in tapemagic/engine/ops/creation.py."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tapemagic.engine.ops import creation as C

from .gradcheck import Case, shapes, unary_shapes


def _fill_dims(data, input_shapes):
    return (
        data.draw(
            hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4),
            label="dims",
        ),
    )


CASES = [
    Case("fill", lambda value, dims: C.fill(dims, value), shapes(()), extra=_fill_dims),
    Case("zeros_like", C.zeros_like, unary_shapes(), differentiable=False),
    Case("ones_like", C.ones_like, unary_shapes(), differentiable=False),
    Case(
        "random_shuffle",
        lambda x: C.random_shuffle(x, seed=7),
        unary_shapes(min_dims=1),
        differentiable=False,
    ),
]


def _one_hot_args(data, input_shapes) -> tuple:
    depth = data.draw(st.integers(0, 4), label="depth")
    indices = data.draw(
        hnp.arrays(
            np.int32,
            hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
            elements=st.integers(-1, 4),
        ),
        label="indices",
    )
    axis = data.draw(st.integers(-1, indices.ndim), label="axis")
    return indices, depth, axis


def _one_hot(on, off, indices, depth, axis):
    return C.one_hot(indices, depth, on_value=on, off_value=off, axis=axis)


CASES += [
    # not differentiable, in on_value and off_value too (as TensorFlow)
    Case(
        "one_hot", _one_hot, shapes((), ()), extra=_one_hot_args, differentiable=False
    ),
]
