"""Case rows for the ops in tapemagic/engine/ops/creation.py."""

from __future__ import annotations

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
