"""``%%tape`` on real TensorFlow and Keras models, through a real IPython shell.

The gradients are TensorFlow's (tensorflow-cpu 2.21.0, Keras 3.15.1 in this
process); the explanations are tapemagic's, from the TensorFlow recorder's
events.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.engines import choose_engine
from tapemagic.graph.from_tape import graph_from_tape
from tapemagic.magic import explain_no_gradients, run_tape_cell

SETUP = """
import numpy as np
import tensorflow as tf
import keras
import tapemagic
keras.utils.set_random_seed(0)
x_batch = np.random.default_rng(0).normal(size=(8, 4)).astype("float32")
y_batch = np.random.default_rng(1).integers(0, 3, size=(8,))
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
"""

SEQUENTIAL = """
model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(5, activation="relu"), keras.layers.Dense(3)]
)
"""

SUBCLASS = """
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(5, activation="relu")
        self.unused = keras.layers.Dense(3)
        self.head = keras.layers.Dense(3)

    def build(self, input_shape):
        self.hidden.build(input_shape)
        self.unused.build(input_shape)
        self.head.build((input_shape[0], 5))

    def call(self, x):
        h = self.hidden(x)
        pick = tf.one_hot(tf.argmax(h, axis=1), 5)
        return self.head(pick)

model = Net()
model(x_batch)
"""


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    if "tapemagic" not in ip.extension_manager.loaded:
        ip.extension_manager.load_extension("tapemagic")
    return ip


@pytest.fixture
def ip(shell):
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    before = set(shell.user_ns)
    run_ok(shell, SETUP)
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):
            del shell.user_ns[name]


def run(ip, code: str):
    with capture_output() as captured:
        result = ip.run_cell(code, store_history=True)
    return result, captured


def run_ok(ip, code: str):
    result, captured = run(ip, code)
    assert result.error_in_exec is None, result.error_in_exec
    return captured


def findings(ip, call: str = "tapemagic.explain(tape)") -> list:
    run_ok(ip, f"_found = {call}")
    return list(ip.user_ns["_found"])


def test_a_sequential_model_with_a_numpy_copy_is_explained(ip):
    run_ok(ip, SEQUENTIAL)
    run_ok(
        ip,
        "%%tape --target loss --sources model.trainable_weights\n"
        "logits = model(x_batch, training=True)\n"
        "probs = tf.nn.softmax(logits).numpy()\n"
        "loss = loss_fn(y_batch, probs)\n",
    )
    assert ip.user_ns["grads"] == [None] * 4
    found = findings(ip)
    assert [f.source for f in found] == [
        f"{layer.name}/{kind}"
        for layer in ip.user_ns["model"].layers
        for kind in ("kernel", "bias")
    ]
    for f in found:
        assert (f.cause, f.line) == ("numpy_copy", 3)
        assert "converted to a NumPy array by .numpy() at line 3" in f.message
        assert "Variable" not in f.source and not f.source.startswith("t")
    # The corrected cell: TensorFlow's gradients, no finding.
    run_ok(
        ip,
        "%%tape --target loss --sources model.trainable_weights\n"
        "logits = model(x_batch, training=True)\n"
        "loss = loss_fn(y_batch, logits)\n",
    )
    grads = ip.user_ns["grads"]
    assert [g.shape for g in grads] == [(4, 5), (5,), (5, 3), (3,)]
    assert all(np.isfinite(g.numpy()).all() for g in grads)
    assert findings(ip) == []


def weight_name(weight) -> str:
    """How findings name a Keras weight, on either engine: its layer and its
    name (``dense_1/kernel`` for ``net/dense_1/kernel``)."""
    return "/".join(weight.path.split("/")[-2:])


def test_a_subclassed_model_with_a_broken_path_is_explained(ip):
    run_ok(ip, SUBCLASS)
    run_ok(
        ip,
        "%%tape --target loss --sources model.trainable_weights\n"
        "logits = model(x_batch, training=True)\n"
        "loss = loss_fn(y_batch, logits)\n",
    )
    model = ip.user_ns["model"]
    grads = ip.user_ns["grads"]
    paths = [weight_name(w) for w in model.trainable_weights]
    by_source = {f.source: f for f in findings(ip)}
    hidden = [weight_name(w) for w in model.hidden.trainable_weights]
    unused = [weight_name(w) for w in model.unused.trainable_weights]
    assert set(by_source) == set(hidden) | set(unused)
    for path in hidden:
        f = by_source[path]
        assert (f.cause, f.line, f.op_name) == ("non_differentiable", 2, "argmax")
        assert "tf.nn.softmax" in f.fix
    for path in unused:
        assert by_source[path].cause == "not_connected"
        assert f"leave {path} out of the sources" in by_source[path].fix
    # TensorFlow's None gradients are those, and the head's exist.
    nones = {p for p, g in zip(paths, grads) if g is None}
    assert nones == set(hidden) | set(unused)


def test_a_corrected_subclassed_model_has_no_finding(ip):
    run_ok(ip, SUBCLASS.replace("tf.one_hot(tf.argmax(h, axis=1), 5)", "h"))
    run_ok(
        ip,
        "%%tape --target loss --sources model.trainable_weights\n"
        "logits = model(x_batch, training=True)\n"
        "loss = loss_fn(y_batch, logits)\n",
    )
    model = ip.user_ns["model"]
    grads = dict(zip([w.path for w in model.trainable_weights], ip.user_ns["grads"]))
    unused = {w.path for w in model.unused.trainable_weights}
    assert {p for p, g in grads.items() if g is None} == unused
    # Only the layer the call never uses: asked about the others, no finding.
    found = findings(
        ip,
        "tapemagic.explain(tape, loss, model.hidden.trainable_weights"
        " + model.head.trainable_weights)",
    )
    assert found == []


def test_no_gradients_provided_is_explained_after_the_cell(ip):
    run_ok(ip, SEQUENTIAL)
    run_ok(ip, "optimizer = keras.optimizers.SGD(0.1)")
    result, captured = run(
        ip,
        "%%tape\n"
        "logits = model(x_batch)\n"
        "probs = tf.nn.softmax(logits).numpy()\n"
        "loss = loss_fn(y_batch, probs)\n"
        "grads = tape.gradient(loss, model.trainable_variables)\n"
        "optimizer.apply_gradients(zip(grads, model.trainable_variables))\n",
    )
    assert isinstance(result.error_in_exec, ValueError)
    assert "No gradients provided for any variable" in str(result.error_in_exec)
    out = captured.stdout
    assert "the optimizer got only None gradients" in out
    assert "4 gradients are None" in out
    assert "converted to a NumPy array by .numpy() at line 3" in out
    # In a later cell, from the last %%tape tape, the same.
    result, captured = run(
        ip, "optimizer.apply_gradients(zip(grads, model.trainable_variables))"
    )
    assert isinstance(result.error_in_exec, ValueError)
    assert "4 gradients are None" in captured.stdout
    # Any other error says nothing more.
    result, captured = run(ip, "1 / 0")
    assert "tapemagic" not in captured.stdout


def test_explain_no_gradients_without_a_none_to_explain(ip):
    run_ok(ip, "%%tape --quiet\nv = tf.Variable(1.0)\nz = v * 2.0")
    text = explain_no_gradients(ValueError("No gradients provided for any variable."))
    assert "asked for no gradient that is None" in text
    assert explain_no_gradients(ValueError("other")) is None


def test_the_engine_follows_tf_and_the_option(ip):
    import keras
    import tensorflow as tf

    import tapemagic.tf as tmtf

    assert choose_engine(None, {"tf": tf}).name == "tensorflow"
    assert choose_engine(None, {"tf": tmtf}).name == "tapemagic"
    assert choose_engine("tapemagic", {"tf": tf}).name == "tapemagic"
    assert choose_engine("tensorflow", {"tf": tmtf}).name == "tensorflow"
    assert choose_engine(None, {"keras": keras}).name == "tensorflow"
    assert choose_engine(None, {"np": np}).name == "tapemagic"
    run_ok(ip, "%%tape --quiet\nc = tf.constant(2.0)\ntape.watch(c)\ny = c * c")
    assert type(ip.user_ns["tape"]).__mro__[1] is tf.GradientTape
    assert isinstance(ip.user_ns["y"], tf.Tensor)
    run_ok(ip, "import tapemagic.tf as tm\nm = tm.constant(2.0)")
    run_ok(ip, "%%tape --quiet --engine tapemagic\ntape.watch(m)\nn = m * m")
    assert type(ip.user_ns["tape"]).__module__ == "tapemagic.engine.tape"


def test_the_view_of_a_tensorflow_tape(ip):
    run_ok(ip, "w = tf.Variable([[0.5], [-1.0]], name='w')\nx = tf.ones((3, 2))")
    captured = run_ok(
        ip,
        "%%tape --show text --target loss --sources w\n"
        "h = tf.matmul(x, w)\n"
        "loss = tf.reduce_sum(tf.round(h))\n",
    )
    text = captured.outputs[0].data["text/plain"]
    assert "Ops: 1 recorded on the tape, of 3 that ran." in text
    assert "not recorded: round at line 3, reduce_sum at line 3" in text
    assert "w (float32 (2, 1)), variable: watched when read at line 2" in text
    assert (
        "w: None because the path from w to loss goes through round at line 3 "
        "(loss = tf.reduce_sum(tf.round(h))), which has no gradient." in text
    )
    graph = graph_from_tape(ip.user_ns["tape"])
    forward = [op for op in graph.ops if op.during is None]
    assert [(op.op, op.line, op.recorded) for op in forward] == [
        ("matmul", 2, True),
        ("round", 3, False),
        ("reduce_sum", 3, False),
    ]
    # The gradient was asked after the cell's block: its sweep's ops are not
    # in the graph, as on tapemagic's engine.
    assert len(forward) == len(graph.ops)
    assert graph.sources[0].how == "accessed"
    # %tape shows it again.
    result, _ = run(ip, "%tape --show text")
    assert result.result.text() == text


def shown(captured) -> str:
    texts = [captured.stdout]
    texts += [out.data.get("text/plain", "") for out in captured.outputs]
    return "\n".join(texts)


def test_a_tensorflow_tape_ending_a_cell_shows_its_view_while_loaded(ip):
    code = "with tf.GradientTape() as t2:\n    z = tf.Variable(2.0) * 2.0\nt2"
    _, captured = run(ip, code)
    text = shown(captured)
    assert "GradientTape 't2' (non-persistent, stopped)" in text
    assert "Watched:" in text  # the variable it watched, though no log was kept
    ip.extension_manager.unload_extension("tapemagic")
    try:
        _, captured = run(ip, code)
        assert "<tensorflow.python.eager.backprop.GradientTape at" in shown(captured)
    finally:
        ip.extension_manager.load_extension("tapemagic")


def test_run_tape_cell_from_python_on_tensorflow(ip):
    run_ok(ip, "c = tf.constant(3.0)")
    view = run_tape_cell(ip, "--watch c --target y --sources c", "y = c * c")
    assert ip.user_ns["grads"].numpy() == 6.0
    assert view.graph.tape.explained


def test_bad_target_on_tensorflow_names_the_option(ip):
    run_ok(ip, "c = tf.constant(3.0)")
    with pytest.raises(UsageError, match="--target 'c_np' is .* not a tensor"):
        run_tape_cell(ip, "--target c_np --sources c", "c_np = c.numpy()")


def test_engine_tensorflow_without_tensorflow_says_how_to_install_it():
    # TensorFlow is installed here: the recorder is made to find none.
    program = textwrap.dedent(
        """
        import sys
        import importlib.util, tapemagic.tf_recorder as rec
        real = importlib.util.find_spec
        rec.importlib.util.find_spec = lambda name, *a: (
            None if name == "tensorflow" else real(name, *a))
        from IPython.testing import globalipapp
        globalipapp.start_ipython()
        ip = globalipapp.get_ipython()
        ip.extension_manager.load_extension("tapemagic")
        ip.run_cell("import tapemagic.tf as tf")
        result = ip.run_cell("%%tape --engine tensorflow\\nx = tf.constant(1.0)")
        print(type(result.error_in_exec).__name__)
        print(result.error_in_exec)
        print("tensorflow" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    kind, message, loaded = done.stdout.splitlines()[-3:]
    assert kind == "UsageError"
    assert "TensorFlow is not installed" in message
    assert "pip install 'tapemagic[tensorflow]'" in message
    assert loaded == "False"
