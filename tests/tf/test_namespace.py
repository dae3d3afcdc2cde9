"""``import tapemagic.tf as tf``: TensorFlow's names, snippets and printed results.

The snippets come from TensorFlow's "Introduction to gradients and automatic
differentiation" and "Advanced automatic differentiation" guides; each test
compares what they print with what TensorFlow prints.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tapemagic.engine as engine
import tapemagic.tf as tf
from tapemagic.engine.ops import creation, reduce
from tapemagic.keras import optimizers

# -- structure -----------------------------------------------------------------------


def test_submodules_import_on_their_own() -> None:
    import tapemagic.tf.linalg
    import tapemagic.tf.math
    from tapemagic.tf import keras

    assert tapemagic.tf.math.reduce_sum is reduce.reduce_sum
    assert tf.math.reduce_sum is tf.reduce_sum
    assert tapemagic.tf.linalg.eye is tf.eye is creation.eye
    assert keras.optimizers is optimizers
    assert tf.keras.optimizers.SGD is optimizers.SGD


def test_aliases_point_at_the_engine() -> None:
    assert tf.Tensor is engine.Tensor and tf.Variable is engine.Variable
    assert tf.GradientTape is engine.GradientTape
    assert tf.UnconnectedGradients is engine.UnconnectedGradients
    assert tf.float32 is engine.dtypes.float32 and tf.dtypes.int64 is tf.int64
    assert tf.as_dtype("float64") is tf.float64
    assert tf.random.normal is creation.random_normal
    assert tf.nn.sigmoid is tf.sigmoid is tf.math.sigmoid
    assert tf.nn.softplus is tf.math.softplus
    assert tf.errors.InvalidArgumentError is engine.errors.InvalidArgumentError
    assert tf.nest.flatten({"b": [1, 2], "a": 3}) == [3, 1, 2]
    assert tf.newaxis is None and tf.executing_eagerly()


def test_names_follow_tensorflow_2_placement() -> None:
    # TensorFlow 2 has tf.math.log but no tf.log (and likewise for these)
    for name in ("log", "log1p", "ceil", "is_nan", "reciprocal", "logical_xor"):
        assert hasattr(tf.math, name), name
        assert not hasattr(tf, name), name
    for name in ("exp", "sqrt", "square", "floor", "sigmoid", "logical_and"):
        assert getattr(tf, name) is getattr(tf.math, name), name


def test_importing_tf_needs_no_ipython_ipywidgets_or_graphviz() -> None:
    program = textwrap.dedent(
        """
        import sys

        BLOCKED = {"IPython", "ipywidgets", "graphviz"}

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ImportError(f"blocked import of {name}")
                return None

        sys.meta_path.insert(0, Block())
        import tapemagic.tf as tf

        x = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.square(x) * tf.ones([2]))
        opt = tf.keras.optimizers.SGD(learning_rate=0.1)
        opt.apply_gradients(zip([tape.gradient(y, x)], [x]))
        print(x.numpy())
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
        print(loaded)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1.8\n[]\n"


def test_explain_works_after_importing_tf_alone_and_loads_graph_on_use() -> None:
    program = textwrap.dedent(
        """
        import sys

        import tapemagic.tf as tf

        print([m for m in sys.modules if m.startswith("tapemagic.graph")])
        w, c = tf.Variable(2.0), tf.constant(3.0)
        with tf.GradientTape(explain=True) as tape:
            y = w * c
        print(tape.gradient(y, [w, c])[1])
        (finding,) = tape.explain()
        print(finding.source, "tapemagic.graph.log" in sys.modules)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\nNone\nc True\n"


# -- the GradientTape guide ------------------------------------------------------------


def test_guide_gradient_of_a_square(capsys) -> None:
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2
    dy_dx = tape.gradient(y, x)
    print(dy_dx.numpy())
    assert capsys.readouterr().out == "6.0\n"


def test_guide_dense_layer_by_hand(capsys) -> None:
    w = tf.Variable(tf.random.normal((3, 2)), name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    print(w.shape)
    print(dl_dw.shape)
    my_vars = {"w": w, "b": b}
    grad = tape.gradient(loss, my_vars)
    assert capsys.readouterr().out == "(3, 2)\n(3, 2)\n"
    # loss = mean(y**2) over two outputs, so dloss/dy = y
    y_np = np.array(x, np.float32) @ w.numpy()
    np.testing.assert_allclose(grad["b"].numpy(), y_np[0], rtol=1e-6)
    np.testing.assert_allclose(dl_dw.numpy(), np.array(x).T @ y_np, rtol=1e-6)


def test_guide_what_the_tape_watches(capsys) -> None:
    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2 = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    for g in grad:
        print(g)
    print([var.name for var in tape.watched_variables()])
    assert capsys.readouterr().out == (
        "tf.Tensor(6.0, shape=(), dtype=float32)\nNone\nNone\nNone\n['x0:0']\n"
    )


def test_guide_watching_a_constant(capsys) -> None:
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    dy_dx = tape.gradient(y, x)
    print(dy_dx.numpy())
    assert capsys.readouterr().out == "6.0\n"


def test_guide_watch_accessed_variables_false(capsys) -> None:
    x0 = tf.Variable(0.0)
    x1 = tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.softplus(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)
    grad = tape.gradient(ys, {"x0": x0, "x1": x1})
    print("dy/dx0:", grad["x0"])
    print("dy/dx1:", grad["x1"].numpy())
    assert capsys.readouterr().out == "dy/dx0: None\ndy/dx1: 0.9999546\n"


def test_guide_intermediate_results_and_persistence(capsys) -> None:
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    print(tape.gradient(z, y).numpy())

    x = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    print(tape.gradient(z, x).numpy())
    print(tape.gradient(y, x).numpy())
    del tape
    assert capsys.readouterr().out == "18.0\n[  4. 108.]\n[2. 6.]\n"


def test_guide_non_scalar_targets(capsys) -> None:
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x
    print(tape.gradient(y0, x).numpy())
    print(tape.gradient(y1, x).numpy())

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y0 = x**2
        y1 = 1 / x
    print(tape.gradient({"y0": y0, "y1": y1}, x).numpy())

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * [3.0, 4.0]
    print(tape.gradient(y, x).numpy())
    assert capsys.readouterr().out == "4.0\n-0.25\n3.75\n7.0\n"


def test_guide_sigmoid_over_linspace() -> None:
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sigmoid(x)
    dy_dx = tape.gradient(y, x)
    s = 1 / (1 + np.exp(-np.linspace(-10.0, 10.0, 201)))
    assert x.dtype == tf.float32 and dy_dx.shape == (201,)
    np.testing.assert_allclose(dy_dx.numpy(), s * (1 - s), rtol=1e-5, atol=1e-7)


def test_guide_control_flow(capsys) -> None:
    x = tf.constant(1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:  # noqa: SIM108  (the guide's code, verbatim)
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    print(dv0)
    print(dv1)
    dx = tape.gradient(result, x)
    print(dx)
    assert capsys.readouterr().out == (
        "tf.Tensor(1.0, shape=(), dtype=float32)\nNone\nNone\n"
    )


def test_guide_cases_that_give_none(capsys) -> None:
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y * y
    print(tape.gradient(z, x))

    x = tf.Variable(2.0)
    for _ in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        print(tape.gradient(y, x))
        x = x + 1  # This should be `x.assign_add(1)`

    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)  # calculated with NumPy: off the tape
        y = tf.reduce_mean(y, axis=0)
    print(tape.gradient(y, x))

    x0 = tf.Variable(3.0)
    x1 = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        x1.assign_add(x0)
        y = x1**2
    print(tape.gradient(y, x0))
    assert capsys.readouterr().out == (
        "None\ntf.Tensor(1.0, shape=(), dtype=float32)\nNone\nNone\nNone\n"
    )


def test_guide_integer_source_warns_and_gives_none(capsys) -> None:
    x = tf.constant(10)
    with pytest.warns(UserWarning, match="must be floating"):
        with tf.GradientTape() as g:
            g.watch(x)
            y = x * x
    with pytest.warns(UserWarning, match="must be floating"):
        print(g.gradient(y, x))
    assert capsys.readouterr().out == "None\n"


def test_guide_zeros_instead_of_none(capsys) -> None:
    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y**2
    print(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))
    assert capsys.readouterr().out == "tf.Tensor([0. 0.], shape=(2,), dtype=float32)\n"


def test_guide_higher_order_gradients(capsys) -> None:
    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    print("dy_dx:", dy_dx.numpy())
    print("d2y_dx2:", d2y_dx2.numpy())
    assert capsys.readouterr().out == "dy_dx: 3.0\nd2y_dx2: 6.0\n"


def test_guide_stop_recording_and_stop_gradient(capsys) -> None:
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    print("dz/dx:", grad["x"])
    print("dz/dy:", grad["y"])

    with tf.GradientTape() as t:
        y_sq = y**2
        z = x**2 + tf.stop_gradient(y_sq)
    grad = t.gradient(z, {"x": x, "y": y})
    print("dz/dx:", grad["x"])
    print("dz/dy:", grad["y"])
    expected = "dz/dx: tf.Tensor(4.0, shape=(), dtype=float32)\ndz/dy: None\n"
    assert capsys.readouterr().out == expected * 2


def test_guide_jacobian_shape(capsys) -> None:
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    delta = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        y = tf.nn.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)
    print(y.shape)
    print(dy_dx.shape)
    assert capsys.readouterr().out == "(201,)\n(201,)\n"


def test_custom_gradient_docs_example(capsys) -> None:
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    print(tape.gradient(y, x))
    assert capsys.readouterr().out == "tf.Tensor(1.0, shape=(), dtype=float32)\n"


# -- tf.function, tf.config ---------------------------------------------------------


def test_function_runs_the_python_function_eagerly() -> None:
    def square(x):
        return x * x

    assert tf.function(square).python_function is square
    assert tf.function(jit_compile=True)(square).__name__ == "square"
    assert type(tf.function(square)).__name__ == "Function"

    @tf.function
    def loss(w):
        return tf.reduce_sum(w * w)

    class Model:
        def __init__(self):
            self.w = tf.Variable([1.0, 2.0])

        @tf.function(reduce_retracing=True)
        def __call__(self, x):
            return self.w * x

    model = Model()
    with tf.GradientTape() as tape:
        out = loss(model(3.0))
    np.testing.assert_allclose(tape.gradient(out, model.w).numpy(), [18.0, 36.0])


def test_config_describes_one_cpu() -> None:
    assert tf.config.list_physical_devices("GPU") == []
    (cpu,) = tf.config.list_physical_devices()
    assert (cpu.name, cpu.device_type) == ("/physical_device:CPU:0", "CPU")
    assert tf.config.run_functions_eagerly(True) is None
    assert tf.config.functions_run_eagerly()


# -- tf.print -------------------------------------------------------------------------


def test_print_goes_to_stderr_by_default(capsys) -> None:
    tf.print(tf.range(10))
    captured = capsys.readouterr()
    assert captured.err == "[0 1 2 ... 7 8 9]\n" and captured.out == ""


def test_print_examples_from_the_tensorflow_docs(capsys) -> None:
    tensor = tf.range(10)
    tf.print("tensors:", tensor, {2: tensor * 2}, output_stream=sys.stdout)
    tensor_a = tf.range(2)
    tensor_b = tensor_a * 2
    tf.print(tensor_a, tensor_b, output_stream=sys.stdout, sep=",")
    assert capsys.readouterr().out == (
        "tensors: [0 1 2 ... 7 8 9] {2: [0 2 4 ... 14 16 18]}\n[0 1],[0 2]\n"
    )


@pytest.mark.parametrize(
    "value, text",
    [
        (np.float32(3.0), "3"),
        (np.float32(1 / 3), "0.333333343"),
        (np.float64(1 / 3), "0.33333333333333331"),
        (np.float64(0.1), "0.1"),
        (np.array([1.5, 2.0, np.inf, np.nan], np.float32), "[1.5 2 inf nan]"),
        (np.array([True, False]), "[1 0]"),
        (np.array([[1, 10], [100, -2]], np.int32), "[[1 10]\n [100 -2]]"),
        (np.arange(8).reshape(2, 2, 2), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"),
        (np.zeros(0, np.float32), "[]"),
    ],
)
def test_print_formats_values_as_tensorflow(capsys, value, text) -> None:
    tf.print(tf.constant(value), output_stream=sys.stdout)
    assert capsys.readouterr().out == text + "\n"


def test_print_summarizes_every_long_dimension(capsys) -> None:
    tf.print(tf.reshape(tf.range(100), [10, 10]), output_stream=sys.stdout)
    rows = [
        f"[{10 * r} {10 * r + 1} {10 * r + 2} ... {10 * r + 7} {10 * r + 8} "
        f"{10 * r + 9}]"
        for r in (0, 1, 2, 7, 8, 9)
    ]
    expected = "[" + "\n ".join(rows[:3] + ["..."] + rows[3:]) + "]\n"
    assert capsys.readouterr().out == expected
    tf.print(tf.range(7), summarize=-1, output_stream=sys.stdout)
    tf.print(tf.range(7), summarize=1, output_stream=sys.stdout)
    assert capsys.readouterr().out == "[0 1 2 3 4 5 6]\n[0 ... 6]\n"


def test_print_variables_structures_and_files(capsys, tmp_path) -> None:
    v = tf.Variable([0.5, 0.25])
    tf.print("v =", v, [v, "a"], end="!\n", output_stream=sys.stdout)
    assert capsys.readouterr().out == "v = [0.5 0.25] [[0.5 0.25], 'a']!\n"
    path = tmp_path / "log.txt"
    tf.print(1.5, output_stream=f"file://{path}")
    tf.print(tf.constant(2), output_stream=f"file://{path}")
    assert path.read_text() == "1.5\n2\n"
    with pytest.raises(ValueError, match="output_stream"):
        tf.print(1, output_stream="stdout")


# -- tf.debugging ------------------------------------------------------------------


def test_assert_equal() -> None:
    assert tf.debugging.assert_equal(tf.constant([1, 2]), [1, 2]) is None
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"shapes differ: Condition x == y did not hold.*\[\[1\]\]",
    ):
        tf.debugging.assert_equal([1, 2, 3], [1, 5, 3], message="shapes differ")


def test_check_numerics() -> None:
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.debugging.check_numerics(x * 3.0, "activations")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])
    for values, kind in (
        ([np.nan, 1.0], "NaN"),
        ([np.inf, 1.0], "Inf"),
        ([np.inf, np.nan], "Inf and NaN"),
    ):
        with pytest.raises(
            tf.errors.InvalidArgumentError, match=f"^weights : Tensor had {kind} values"
        ):
            tf.debugging.check_numerics(tf.constant(values), "weights")
    with pytest.raises(TypeError, match="floating"):
        tf.debugging.check_numerics(tf.constant([1, 2]), "ints")
