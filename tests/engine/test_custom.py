"""custom_gradient: the user's VJP replaces the function's own."""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.engine import GradientTape, Variable, convert_to_tensor, custom_gradient
from tapemagic.engine.ops import math as M


@custom_gradient
def cube(x):
    def grad(g):
        return g * 3.0 * x * x

    return x * x * x, grad


def test_custom_gradient_is_used_and_second_derivatives_work():
    x = Variable(2.0)
    with GradientTape() as outer:
        with GradientTape() as inner:
            y = cube(x)
        dy = inner.gradient(y, x)
    assert dy.numpy() == 12.0
    assert outer.gradient(dy, x).numpy() == 12.0  # 6 x


def test_custom_gradient_replaces_the_true_gradient():
    @custom_gradient
    def clip_gradient_norm(x):
        def grad(g):
            return M.clip_by_value(g, -0.5, 0.5)

        return M.identity(x), grad

    x = Variable([1.0, 2.0])
    with GradientTape() as tape:
        y = clip_gradient_norm(x) * 10.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.5, 0.5])


def test_custom_gradient_may_return_none_for_an_input():
    @custom_gradient
    def scaled(x, scale):
        def grad(g):
            return g * scale, None

        return x * scale, grad

    x, s = Variable(3.0), Variable(2.0)
    with GradientTape() as tape:
        y = scaled(x, s)
    gx, gs = tape.gradient(y, [x, s])
    assert gx.numpy() == 2.0 and gs is None


def test_custom_gradient_with_variables_read_inside():
    w = Variable(3.0)

    @custom_gradient
    def times_w(x):
        def grad(g, variables=None):
            assert variables == [w] or list(variables)[0] is w
            return g * w, [g * x * 100.0]

        return x * w, grad

    x = Variable(2.0)
    with GradientTape() as tape:
        y = times_w(x)
    gx, gw = tape.gradient(y, [x, w])
    assert gx.numpy() == 3.0 and gw.numpy() == 200.0


def test_custom_gradient_reading_variables_needs_the_variables_argument():
    w = Variable(3.0)

    @custom_gradient
    def times_w(x):
        return x * w, lambda g: g * w

    with pytest.raises(TypeError, match="variables"):
        times_w(convert_to_tensor(1.0))


def test_custom_gradient_in_a_jacobian_falls_back_to_one_row_at_a_time():
    x = Variable([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        y = cube(x)
    np.testing.assert_array_equal(
        tape.jacobian(y, x).numpy(), np.diag([3.0, 12.0, 27.0])
    )


def test_custom_gradient_with_a_wrong_number_of_gradients_says_so():
    @custom_gradient
    def two(x, y):
        return x * y, lambda g: g

    a, b = Variable(1.0), Variable(2.0)
    with GradientTape() as tape:
        z = two(a, b)
    with pytest.raises(ValueError, match="returned 1 gradients for 2 inputs"):
        tape.gradient(z, [a, b])
