"""Every op in the op table passes the gradient checker (see gradcheck.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapemagic.engine import OP_TABLE, defop

from .cases import CASES
from .gradcheck import Case, check_case, shapes, unary_shapes


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_gradient_check(case: Case, data: st.DataObject) -> None:
    input_shapes = data.draw(case.shapes, label="shapes")
    extra = case.extra(data, input_shapes) if case.extra else ()
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    check_case(case, input_shapes, extra, seed)


def test_every_op_has_a_case_row() -> None:
    covered = {case.op for case in CASES}
    missing = sorted(name for name in OP_TABLE if name not in covered)
    assert not missing, f"ops without a gradient-check row: {missing}"


def test_checker_rejects_a_wrong_vjp() -> None:
    # cube with the VJP of a square: the first-order check must catch it
    wrong = defop("_wrong_cube", lambda x: x**3, lambda ns, g, out, x: (g * 2 * x,))
    try:
        case = Case("_wrong_cube", wrong, shapes((3,)))
        with pytest.raises(AssertionError, match="first order"):
            check_case(case, ((3,),), (), seed=0)
    finally:
        del OP_TABLE["_wrong_cube"]


def test_checker_rejects_a_vjp_that_ignores_batch_axes() -> None:
    # right for one cotangent, but sums the batch axis in too
    def vjp(ns, g, out, x):
        total = 2 * np.sum(ns.value(g))
        return (ns.constant(np.broadcast_to(total, ns.shape(x))),)

    bad = defop("_bad_batch", lambda x: 2 * x.sum(keepdims=True) * np.ones_like(x), vjp)
    try:
        case = Case("_bad_batch", bad, unary_shapes(1, 1), smooth=False)
        with pytest.raises(AssertionError):
            check_case(case, ((3,),), (), seed=1)
    finally:
        del OP_TABLE["_bad_batch"]
