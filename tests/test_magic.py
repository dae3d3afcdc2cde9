"""%%tape and %tape, driven through a real IPython InteractiveShell."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.engine import GradientTape
from tapemagic.graph.from_tape import graph_from_tape
from tapemagic.graph.index import index_of
from tapemagic.graph.model import Graph
from tapemagic.magic import TapeMagics, TapeView, run_tape_cell

SETUP = """
import numpy as np
import tapemagic.tf as tf
x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = tf.constant([[1.0], [0.0], [2.0]])
w = tf.Variable([[0.5], [-1.0]], name="w")
b = tf.Variable([0.25], name="b")
"""


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    ip.extension_manager.load_extension("tapemagic")
    yield ip
    ip.extension_manager.unload_extension("tapemagic")


@pytest.fixture
def ip(shell):
    """The shell with x, y, w, b defined; names the test adds are removed after."""
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    before = set(shell.user_ns)
    run(shell, SETUP)
    yield shell
    for name in set(shell.user_ns) - before:
        if not name.startswith("_"):  # IPython's own _, _1, _i... stay
            del shell.user_ns[name]


def run(ip, code: str):
    """Run a cell as a notebook would; returns (result, captured output)."""
    with capture_output() as captured:
        result = ip.run_cell(code, store_history=True)
    return result, captured


def shown(captured) -> str:
    """Everything a cell printed or displayed, as text."""
    texts = [captured.stdout]
    texts += [out.data.get("text/plain", "") for out in captured.outputs]
    return "\n".join(texts)


def reference_gradients():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = np.array([[1.0], [0.0], [2.0]])
    w = np.array([[0.5], [-1.0]])
    r = x @ w + 0.25 - y
    return 2.0 / 3.0 * x.T @ r, 2.0 / 3.0 * r.sum(axis=0)


# -- the extension -----------------------------------------------------------------


def test_help_comes_from_magic_arguments(ip):
    _, captured = run(ip, "%%tape?")
    text = captured.stdout
    assert "%%tape [--persistent] [--no-watch-accessed]" in text
    for option in (
        "--watch NAMES",
        "--name NAME",
        "--target EXPR",
        "--sources NAMES_OR_EXPR",
        "--out OUT",
        "--unconnected {none,zero}",
        "--quiet",
        "--show {graph,text,none}",
    ):
        assert option in text
    assert "Run the cell inside a ``tf.GradientTape``" in text
    assert TapeMagics.tape.__doc__ in text


def test_unload_removes_both_magics(ip):
    ip.extension_manager.unload_extension("tapemagic")
    result, captured = run(ip, "%%tape\nz = w * 2.0")
    assert isinstance(result.error_in_exec, UsageError)
    assert "Cell magic `%%tape` not found" in str(result.error_in_exec)
    assert ip.find_line_magic("tape") is None
    ip.extension_manager.load_extension("tapemagic")
    assert ip.find_cell_magic("tape") is not None


def test_a_tape_ending_a_cell_shows_its_view_while_loaded(ip):
    code = "with tf.GradientTape() as t2:\n    z = w * 2.0\nt2"
    result, captured = run(ip, code)
    assert result.success, result.error_in_exec
    text = shown(captured)
    assert "GradientTape 't2' (non-persistent, stopped)" in text
    assert "Ops: 1 recorded on the tape" in text
    ip.extension_manager.unload_extension("tapemagic")
    try:
        formatter = ip.display_formatter.mimebundle_formatter
        assert GradientTape not in formatter.type_printers
        result, captured = run(ip, code)
        assert (
            shown(captured)
            .strip()
            .endswith("<GradientTape non-persistent, stopped, 1 ops recorded>")
        )
    finally:
        ip.extension_manager.load_extension("tapemagic")
    result, captured = run(ip, code)
    assert "GradientTape 't2' (non-persistent, stopped)" in shown(captured)


def test_lazy_magics_loads_the_extension_on_first_use(ip):
    ip.extension_manager.unload_extension("tapemagic")
    saved = dict(ip.magics_manager.lazy_magics)
    ip.magics_manager.lazy_magics = {"tape": "tapemagic"}
    try:
        assert "tape" not in ip.magics_manager.magics["cell"]
        result, captured = run(ip, "%%tape --show text\nz = w * 3.0")
        assert result.success, result.error_in_exec
        assert "tapemagic" in ip.extension_manager.loaded
        assert isinstance(ip.user_ns["tape"], GradientTape)
        grad = ip.user_ns["tape"].gradient(ip.user_ns["z"], ip.user_ns["w"])
        np.testing.assert_allclose(grad.numpy(), [[3.0], [3.0]])
    finally:
        ip.magics_manager.lazy_magics = saved


# -- running the cell --------------------------------------------------------------


def test_issue_example_binds_tape_and_grads(ip):
    result, captured = run(
        ip,
        "%%tape --persistent --target loss --sources w,b\n"
        "y_hat = tf.matmul(x, w) + b\n"
        "loss = tf.reduce_mean((y_hat - y) ** 2)\n",
    )
    assert result.success, result.error_in_exec
    tape = ip.user_ns["tape"]
    assert isinstance(tape, GradientTape)
    dw, db = reference_gradients()
    grads = ip.user_ns["grads"]
    assert isinstance(grads, list) and len(grads) == 2
    np.testing.assert_allclose(grads[0].numpy(), dw, rtol=1e-6)
    np.testing.assert_allclose(grads[1].numpy(), db, rtol=1e-6)
    # A persistent tape answers again in a later cell.
    run(ip, "again = tape.gradient(loss, b)")
    np.testing.assert_allclose(ip.user_ns["again"].numpy(), db, rtol=1e-6)
    text = shown(captured)
    assert "GradientTape 'tape' (persistent, stopped)" in text
    assert "Ops: 5 recorded on the tape, of 5 that ran." in text
    assert "w (float32 (2, 1)), variable: watched when read at line 2" in text
    assert "g1: gradient(loss, [w, b]) by %%tape --target loss --sources w,b" in text
    assert "None gradients" not in text


def test_cell_is_the_body_of_a_tape(ip):
    run(ip, "%%tape --quiet\nz = w * w\ninside = tape")
    assert ip.user_ns["inside"] is ip.user_ns["tape"]
    grad = ip.user_ns["tape"].gradient(ip.user_ns["z"], ip.user_ns["w"])
    np.testing.assert_allclose(grad.numpy(), [[1.0], [-2.0]])  # 2 * w


def test_non_persistent_tape_answers_once(ip):
    run(ip, "%%tape --quiet\nz = w * w")
    run(ip, "first = tape.gradient(z, w)")
    result, _ = run(ip, "second = tape.gradient(z, w)")
    assert isinstance(result.error_in_exec, RuntimeError)
    assert "can only be used to compute one set" in str(result.error_in_exec)


def test_no_watch_accessed_and_watch_option(ip):
    run(ip, "%%tape --quiet --no-watch-accessed\nz = w * w")
    assert ip.user_ns["tape"].gradient(ip.user_ns["z"], ip.user_ns["w"]) is None
    run(ip, "%%tape --quiet --no-watch-accessed --watch x,b\nz = tf.reduce_sum(x) * b")
    tape = ip.user_ns["tape"]
    assert [v.name for v in tape.watched_variables()] == ["b:0"]
    run(ip, "gx, gw = tape.gradient(z, [x, w])")
    np.testing.assert_allclose(ip.user_ns["gx"].numpy(), np.full((3, 2), 0.25))
    assert ip.user_ns["gw"] is None


def test_watch_option_refuses_a_keras_weight_and_takes_its_value(ip):
    """tape.watch refuses a Keras weight itself, as TensorFlow 2.21's does."""
    run(ip, "layer = tf.keras.layers.Dense(1)\nlayer.build((None, 2))")
    for text, watch in [
        ("layer.kernel", "'layer.kernel.value'"),
        ("layer.trainable_weights", "'[w.value for w in layer.trainable_weights]'"),
    ]:
        result, _ = run(ip, f"%%tape --quiet --watch {text}\ny = layer(x)")
        assert isinstance(result.error_in_exec, UsageError)
        message = str(result.error_in_exec)
        assert f"--watch {text!r} holds a Keras weight of type 'Variable'" in message
        assert f"Watch the tf.Variable behind it: --watch {watch}" in message
    run(
        ip,
        "%%tape --quiet --no-watch-accessed --watch layer.kernel.value\n"
        "y = tf.reduce_sum(layer(tf.ones((1, 2))))",
    )
    tape, layer = ip.user_ns["tape"], ip.user_ns["layer"]
    assert tape.watched_variables() == (layer.kernel,)
    run(ip, "gk, gb = tape.gradient(y, [layer.kernel, layer.bias])")
    np.testing.assert_allclose(ip.user_ns["gk"].numpy(), [[1.0], [1.0]])
    assert ip.user_ns["gb"] is None


def test_name_out_and_single_source_structure(ip):
    run(ip, "%%tape --quiet --name t2 --out dz --target z --sources w\nz = w * 4.0")
    assert isinstance(ip.user_ns["t2"], GradientTape)
    assert "tape" not in ip.user_ns or ip.user_ns["tape"] is not ip.user_ns["t2"]
    np.testing.assert_allclose(ip.user_ns["dz"].numpy(), [[4.0], [4.0]])
    run(ip, "%%tape --quiet --target z --sources \"{'a': w, 'b': b}\"\nz = w * 4.0")
    grads = ip.user_ns["grads"]
    assert set(grads) == {"a", "b"} and grads["b"] is None


def test_unconnected_zero(ip):
    run(ip, "%%tape --quiet --target z --sources w,b --unconnected zero\nz = w * 2.0")
    gw, gb = ip.user_ns["grads"]
    np.testing.assert_allclose(gw.numpy(), [[2.0], [2.0]])
    np.testing.assert_array_equal(gb.numpy(), [0.0])
    run(ip, "%%tape --quiet --target z --sources w,b\nz = w * 2.0")
    assert ip.user_ns["grads"][1] is None


def test_quiet_and_show_none_display_nothing(ip):
    for option in ("--quiet", "--show none"):
        result, captured = run(ip, f"%%tape {option}\nz = w * 2.0")
        assert result.success
        assert captured.outputs == [] and captured.stdout == ""
        assert isinstance(ip.user_ns["tape"], GradientTape)


def test_show_text_displays_the_summary(ip):
    _, captured = run(ip, "%%tape --show text\nz = w * 2.0")
    (output,) = captured.outputs
    assert output.data["text/plain"].startswith("GradientTape 'tape' (non-persistent")


def test_other_magics_shell_lines_and_last_expression(ip):
    result, captured = run(
        ip,
        "%%tape --quiet\n"
        "print('printed')\n"
        "!echo from-the-shell\n"
        "%time z = w * 5.0\n"
        "z + 1.0\n",
    )
    assert result.success, result.error_in_exec
    assert "printed" in captured.stdout
    assert "from-the-shell" in captured.stdout
    assert "Wall time" in captured.stdout
    # The last expression displays as usual and becomes Out[n].
    assert "numpy=\narray([[ 3.5]," in captured.stdout
    out = ip.user_ns["Out"][ip.execution_count - 1]
    np.testing.assert_allclose(out.numpy(), [[3.5], [-4.0]])
    grad = ip.user_ns["tape"].gradient(ip.user_ns["z"], ip.user_ns["w"])
    np.testing.assert_allclose(grad.numpy(), [[5.0], [5.0]])


def test_semicolon_silences_the_last_expression(ip):
    _, captured = run(ip, "%%tape --quiet\nw * 2.0;")
    assert captured.stdout == ""


def test_records_nothing_says_so(ip):
    _, captured = run(ip, "%%tape --show text\nn = 1 + 2")
    assert "The tape recorded nothing: no tensor operation ran." in shown(captured)
    _, captured = run(ip, "%%tape --show text\nc = x * 2.0")
    assert (
        "The tape recorded nothing: 1 op ran, but none used a watched variable or "
        "tensor." in shown(captured)
    )


def test_tape_line_magic_shows_a_tape_again(ip):
    run(ip, "%%tape --quiet --name t3\nz = w * 2.0")
    result, captured = run(ip, "%tape t3 --show text")
    assert isinstance(result.result, TapeView)
    assert "GradientTape 't3'" in shown(captured)
    result, _ = run(ip, "%tape nothing_here")
    assert isinstance(result.error_in_exec, UsageError)
    assert "'nothing_here' is not defined, not a GradientTape" in str(
        result.error_in_exec
    )


def test_tape_magic_off_the_first_line_is_ipythons_usual_error(ip):
    result, _ = run(ip, "z = 1\n%%tape\nz = w * 2.0")
    assert isinstance(result.error_in_exec, UsageError)
    assert "Line magic function `%%tape` not found" in str(result.error_in_exec)


def test_run_tape_cell_from_python(ip):
    view = run_tape_cell(ip, "--target z --sources w --show text", "z = w * 6.0")
    assert view.show == "text" and view.name == "tape"
    np.testing.assert_allclose(view.gradients.numpy(), [[6.0], [6.0]])
    assert view.graph.ops[0].op == "multiply"
    assert view.graph.ops[0].line == 2


def test_run_cell_from_python_binds_the_tape_and_the_gradients(ip):
    from types import SimpleNamespace

    from tapemagic.cell import run_cell

    args = SimpleNamespace(
        engine=None, watch=None, persistent=False, watch_accessed=True,
        name="mine", target="z", sources="w", out="dz", unconnected="none",
    )  # fmt: skip
    tape, gradients = run_cell(ip, args, "--name mine", "z = w * 6.0")
    assert ip.user_ns["mine"] is tape and ip.user_ns["dz"] is gradients
    np.testing.assert_allclose(gradients.numpy(), [[6.0], [6.0]])
    args.out = "mine"  # the options are checked here too
    with pytest.raises(UsageError, match="--name and --out are both 'mine'"):
        run_cell(ip, args, "--name mine --out mine", "z = w * 6.0")


def test_the_magic_names_keep_their_import_path():
    from tapemagic import cell, later, magic

    assert magic.run_tape_cell.__module__ == "tapemagic.magic"
    assert magic.explain_every_tape is later.explain_every_tape
    assert magic.explain_no_gradients is later.explain_no_gradients
    names = {"run_tape_cell", "show", "show_tape", "find_problems", "TapeView",
             "explain_every_tape", "explain_no_gradients", "TapeMagics",
             "load_ipython_extension", "unload_ipython_extension"}  # fmt: skip
    assert names <= set(magic.__all__)
    assert set(cell.__all__) <= set(dir(cell)) and set(later.__all__) <= set(dir(later))


# -- errors ------------------------------------------------------------------------


def test_raising_cell_shows_user_traceback_and_binds_the_tape(ip):
    result, captured = run(
        ip,
        "%%tape --persistent\n"
        "z = w * 2.0\n"
        "def f(v):\n"
        "    return v / undefined_name\n"
        "q = f(z)\n",
    )
    error = result.error_in_exec
    assert isinstance(error, NameError)
    text = captured.stdout
    n = ip.execution_count - 1
    assert f"Cell In[{n}], line 5" in text
    assert "----> 5 q = f(z)" in text
    assert f"Cell In[{n}], line 4, in f(v)" in text
    assert "----> 4     return v / undefined_name" in text
    assert "magic.py" not in text and "run_tape_cell" not in text
    assert "the tape recorded 1 op before the error; it is bound to 'tape'" in text
    tape = ip.user_ns["tape"]
    assert not tape._recording
    graph = graph_from_tape(tape)
    assert [(op.op, op.line) for op in graph.ops] == [("multiply", 2)]
    grad = tape.gradient(ip.user_ns["z"], ip.user_ns["w"])
    np.testing.assert_allclose(grad.numpy(), [[2.0], [2.0]])


def test_syntax_error_reports_the_cell_line(ip):
    result, captured = run(ip, "%%tape\nz = w * 2.0\nz = = 3\n")
    assert isinstance(result.error_in_exec, SyntaxError)
    assert result.error_in_exec.lineno == 3


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--bogus", "unrecognized arguments: --bogus"),
        ("--show pretty", "argument --show: invalid choice: 'pretty'"),
        ("--name 2x", "--name '2x' is not a valid Python name."),
        ("--target z", "--sources is missing"),
        ("--watch nope", "--watch 'nope' raised NameError"),
    ],
)
def test_bad_options_change_nothing(ip, line, message):
    ip.user_ns.pop("tape", None)
    names = dict(ip.user_ns)
    result, _ = run(ip, f"%%tape {line}\nz = w * 2.0")
    assert isinstance(result.error_in_exec, UsageError)
    assert message in str(result.error_in_exec)
    changed = {
        k
        for k in ip.user_ns
        if (k not in names or ip.user_ns[k] is not names[k])
        and not k.startswith("_")  # IPython's input history: _i, _i7...
    }
    assert changed == set()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--target lossx --sources w", "--target 'lossx' raised NameError"),
        ("--target z --sources w,lr", "--sources 'lr' is 0.1 of type 'float'"),
        ("--target z[5] --sources w", "--target 'z[5]' raised"),
        ("--target z --sources w.nope", "--sources 'w.nope' raised AttributeError"),
    ],
)
def test_bad_target_or_sources_keep_the_tape(ip, line, message):
    run(ip, "lr = 0.1")
    ip.user_ns.pop("grads", None)
    result, _ = run(ip, f"%%tape {line}\nz = w * 2.0")
    assert isinstance(result.error_in_exec, UsageError)
    assert message in str(result.error_in_exec)
    assert "\n" not in str(result.error_in_exec)
    assert isinstance(ip.user_ns["tape"], GradientTape)
    assert "grads" not in ip.user_ns


def test_gradient_error_names_the_options(ip):
    # The cell uses up its non-persistent tape, so the magic's own call fails.
    cell = "%%tape --target z --sources w\nz = w * 2.0\nfirst = tape.gradient(z, w)"
    result, _ = run(ip, cell)
    assert isinstance(result.error_in_exec, UsageError)
    assert "--target 'z' --sources 'w': tape.gradient raised RuntimeError" in str(
        result.error_in_exec
    )


# -- the explanation log of a cell -------------------------------------------------


def test_log_shows_every_origin_kind(ip):
    run(ip, "before = tf.sin(tf.constant([0.0, 0.0]))")
    result, _ = run(
        ip,
        "%%tape --quiet --persistent\n"  # 1
        "c = tf.constant([2.0, 2.0])\n"  # 2
        "tape.watch(c)\n"  # 3
        "v = tf.reshape(w, [2]) * c\n"  # 4
        "u = v * np.array([3.0, 4.0], np.float32) + 0.5\n"  # 5
        "s = u + before\n"  # 6
        "bn = b.numpy()\n"  # 7
        "q = s * bn\n"  # 8
        "total = float(tf.reduce_sum(q))\n"  # 9
        "b.assign([1.0])\n"  # 10
        "with tape.stop_recording():\n"  # 11
        "    p = v * 2.0\n",  # 12
    )
    assert result.success, result.error_in_exec
    run(ip, "gq = tape.gradient(q, [w, c, b])")
    graph = graph_from_tape(ip.user_ns["tape"], name="tape")
    by_name = {name: v for v in graph.values for name in v.names}

    assert by_name["w"].origin == "variable" and by_name["w"].variable == "w:0"
    assert by_name["w"].line == 4
    assert by_name["c"].origin == "constant" and by_name["c"].line is None
    assert by_name["v"].origin == "op"
    assert index_of(graph).producer(by_name["v"].id).op == "multiply"
    assert by_name["before"].origin == "outside"
    numpy_input, python_input = [
        index_of(graph).values[i]
        for op in graph.ops
        if op.line == 5
        for i in op.inputs
        if index_of(graph).values[i].origin in ("numpy", "python")
    ]
    assert (numpy_input.origin, numpy_input.python_type, numpy_input.line) == (
        "numpy",
        "ndarray",
        5,
    )
    assert (python_input.origin, python_input.python_type, python_input.line) == (
        "python",
        "float",
        5,
    )
    # b left the engine at line 7 and came back as a NumPy array at line 8.
    escape_numpy, escape_float = graph.escapes
    assert (escape_numpy.value, escape_numpy.how, escape_numpy.line) == (
        by_name["b"].id,
        "numpy",
        7,
    )
    (came_back,) = [
        index_of(graph).values[i]
        for op in graph.ops
        if op.line == 8
        for i in op.inputs
        if index_of(graph).values[i].escape
    ]
    assert (came_back.origin, came_back.escape, came_back.python_type) == (
        "numpy",
        escape_numpy.id,
        "ndarray",
    )
    assert (escape_float.how, escape_float.line) == ("float", 9)
    (assign,) = graph.assigns
    assert (assign.variable, assign.line, assign.python_type) == (
        by_name["b"].id,
        10,
        "list",
    )
    (watch,) = graph.watches
    assert (watch.tape, watch.value, watch.line) == (0, by_name["c"].id, 3)
    paused = index_of(graph).producer(by_name["p"].id)
    assert (paused.recorded, paused.tape_state, paused.line) == (False, "paused", 12)
    # Entered and left on the %%tape line; paused and resumed by line 11.
    assert [(e.event, e.line) for e in graph.tape_events] == [
        ("start", 1),
        ("stop", 11),
        ("pause", 11),
        ("start", 11),
        ("stop", 1),
    ]
    # b is never read (.numpy() and assign are not reads); w is, at line 4.
    assert {(r.value, r.line) for r in graph.reads} == {(by_name["w"].id, 4)}
    (request,) = graph.gradients
    assert request.where == f"In[{ip.execution_count - 1}]" and request.line == 1
    assert [r.none for r in request.results] == [False, False, True]
    sources = {s.value: s for s in graph.sources}
    assert sources[by_name["c"].id].how == "watch"
    assert sources[by_name["w"].id].how == "accessed"
    assert Graph.from_json(graph.to_json()) == graph


def test_rebinding_a_variable_name_is_recorded(ip):
    run(ip, "%%tape --quiet\nz = w * 2.0\nw = w - 0.1 * z\nfresh = tf.constant(1.0)")
    graph = graph_from_tape(ip.user_ns["tape"])
    bindings = {b.name: b for b in graph.bindings}
    assert (bindings["w"].previous_kind, bindings["w"].kind) == ("variable", "tensor")
    assert index_of(graph).values[bindings["w"].value].origin == "op"
    assert (bindings["fresh"].previous_kind, bindings["fresh"].kind) == (None, "tensor")
    assert bindings["z"].kind == "tensor"
    assert "x" not in bindings and "b" not in bindings


# -- later cells: a None or NaN asked after the %%tape cell is explained there ------


def test_a_none_asked_in_a_later_cell_is_explained_under_that_cell(ip):
    _, captured = run(
        ip, "%%tape --quiet\nloss = tf.reduce_sum(tf.matmul(x, tf.round(w)))"
    )
    assert shown(captured).strip() == ""
    result, captured = run(ip, "grads = tape.gradient(loss, w)")
    assert result.success and ip.user_ns["grads"] is None  # the value is untouched
    text = shown(captured)
    assert text.strip().startswith("w: None because the path from w to loss goes "
                                   "through round at line 2")  # fmt: skip
    assert "tf.stop_gradient(tf.round(x) - x)" in text
    # Shown once: the next cell asks nothing new.
    _, captured = run(ip, "n = 1")
    assert shown(captured).strip() == ""


def test_the_tape_cell_own_gradients_are_not_shown_again(ip):
    _, captured = run(ip, "%%tape --show text --target loss --sources w\n"
                          "loss = tf.reduce_sum(tf.round(w))")  # fmt: skip
    assert shown(captured).count("w: None because") == 1  # in the cell's view
    _, captured = run(ip, "n = 1")
    assert shown(captured).strip() == ""


def test_a_second_derivative_taken_outside_the_outer_tape_is_explained(ip):
    run(ip, "v = tf.Variable(3.0)")
    run(ip, "%%tape --quiet --name outer\nwith tf.GradientTape() as inner:\n"
            "    cube = v ** 3")  # fmt: skip
    _, captured = run(ip, "slope = inner.gradient(cube, v)\n"
                          "curvature = outer.gradient(slope, v)")  # fmt: skip
    assert float(ip.user_ns["slope"]) == 27.0 and ip.user_ns["curvature"] is None
    text = shown(captured)
    assert "v: None because slope was computed after the tape stopped recording" in (
        text
    )
    assert "Compute slope inside the tape" in text
    # The fix: the inner gradient inside the outer tape.
    run(ip, "%%tape --quiet --name outer\nwith tf.GradientTape() as inner:\n"
            "    cube = v ** 3\nslope = inner.gradient(cube, v)")  # fmt: skip
    _, captured = run(ip, "curvature = outer.gradient(slope, v)")
    assert float(ip.user_ns["curvature"]) == 18.0  # 6 v
    assert shown(captured).strip() == ""


def test_a_nan_asked_in_a_later_cell_is_explained(ip):
    run(ip, "d = tf.Variable([0.0, 0.0])")
    run(ip, "%%tape --quiet --persistent\nlength = tf.norm(d)")
    _, captured = run(ip, "g = tape.gradient(length, d)")
    assert np.isnan(ip.user_ns["g"].numpy()).all()
    text = shown(captured)
    assert "d: the gradient holds NaN because tf.norm at line 2" in text
    assert "length = tf.sqrt(tf.reduce_sum(tf.square(d)) + 1e-12)." in text


def test_tape_all_explains_every_gradient_tape_and_off_stops(ip):
    from tapemagic.engine import hooks

    run(ip, "%tape --all on")
    try:
        assert hooks._explain_default is True
        _, captured = run(ip, "with tf.GradientTape() as t:\n"
                              "    total = tf.reduce_sum(tf.floor(w))\n"
                              "g = t.gradient(total, w)")  # fmt: skip
        assert ip.user_ns["g"] is None
        text = shown(captured)
        assert text.strip().startswith("w: None because the path from w to total "
                                       "goes through floor at line 2")  # fmt: skip
        # A sound plain tape: nothing shown.
        _, captured = run(ip, "with tf.GradientTape() as t:\n"
                              "    total = tf.reduce_sum(w * w)\n"
                              "g = t.gradient(total, w)")  # fmt: skip
        assert shown(captured).strip() == ""
        # Tapes made inside tapemagic (Keras' fit) keep no log.
        made = []
        factory = hooks.set_explain_factory(lambda: made.append(1) or factory())
        try:
            result, _ = run(
                ip,
                "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
                "model.compile(optimizer='sgd', loss='mse')\n"
                "model.fit(x, y, epochs=2, verbose=0)\n"
                "mine = tf.GradientTape()",
            )
        finally:
            hooks.set_explain_factory(factory)
        assert result.success, result.error_in_exec
        assert made == [1]  # the user's own tape only
    finally:
        run(ip, "%tape --all off")
    assert hooks._explain_default is False
    # The package's own factory is back: its logs name no notebook cell.
    with GradientTape(explain=True) as back:
        pass
    assert back._explain.label_for is None
    _, captured = run(ip, "with tf.GradientTape() as t:\n"
                          "    total = tf.reduce_sum(tf.floor(w))\n"
                          "g = t.gradient(total, w)")  # fmt: skip
    assert ip.user_ns["g"] is None and shown(captured).strip() == ""
    assert ip.user_ns["t"]._explain is None


def test_unloading_stops_explaining_later_cells(ip):
    run(ip, "%%tape --quiet\nloss = tf.reduce_sum(tf.round(w))")
    run(ip, "%tape --all on")
    ip.extension_manager.unload_extension("tapemagic")
    try:
        from tapemagic.engine import hooks

        assert hooks._explain_default is False
        _, captured = run(ip, "grads = tape.gradient(loss, w)")
        assert ip.user_ns["grads"] is None and shown(captured).strip() == ""
    finally:
        ip.extension_manager.load_extension("tapemagic")


def test_a_tape_around_a_traced_function_records_and_explains_its_ops(ip):
    run(
        ip,
        "@tf.function\n"
        "def predict(x):\n"
        "    print('tracing')\n"
        "    return tf.matmul(x, w) + b\n"
        "traced = predict(x)\n",
    )
    result, captured = run(
        ip,
        "%%tape --target loss --sources w,b\n"
        "loss = tf.reduce_mean((predict(x) - y) ** 2)\n",
    )
    assert result.success, result.error_in_exec
    dw, db = reference_gradients()
    grads = ip.user_ns["grads"]
    np.testing.assert_allclose(grads[0].numpy(), dw, rtol=1e-6)
    np.testing.assert_allclose(grads[1].numpy(), db, rtol=1e-6)
    assert "tracing" not in captured.stdout  # traced once, in the first cell
    text = shown(captured)
    assert "Ops: 5 recorded on the tape, of 5 that ran." in text
    assert "w (float32 (2, 1)), variable: watched when read at line 2" in text


def test_a_traced_function_first_called_inside_a_tape_cell_traces_there(ip):
    run(
        ip,
        "@tf.function\n"
        "def predict2(x):\n"
        "    print('tracing')\n"
        "    return tf.matmul(x, w) + b\n",
    )
    result, captured = run(
        ip,
        "%%tape --target loss --sources w,b\n"
        "loss = tf.reduce_mean((predict2(x) - y) ** 2)\n",
    )
    assert result.success, result.error_in_exec
    assert captured.stdout.startswith("tracing\n")
    dw, db = reference_gradients()
    np.testing.assert_allclose(ip.user_ns["grads"][0].numpy(), dw, rtol=1e-6)
    np.testing.assert_allclose(ip.user_ns["grads"][1].numpy(), db, rtol=1e-6)
    assert "Ops: 5 recorded on the tape, of 5 that ran." in shown(captured)
    assert ip.user_ns["predict2"].experimental_get_tracing_count() == 1


def test_tape_explain_prints_a_code_page_and_lists_the_codes(ip, monkeypatch):
    monkeypatch.setenv("TAPEMAGIC_DOCS_URL", "https://example.org/docs")
    result, captured = run(ip, "%tape --explain TM003")
    assert result.success
    (output,) = captured.outputs  # displayed: Markdown in a notebook, text here
    text = output.data["text/plain"]
    assert text.startswith("# TM003: the target given to the gradient call is")
    assert "## What you see" in text and "## The fix" in text
    assert text.endswith("On the site: https://example.org/docs/causes/TM003.html")
    result, captured = run(ip, "%tape --explain")
    assert result.success
    (output,) = captured.outputs
    listing = output.data["text/plain"].splitlines()
    assert listing[0] == (
        "TM001  the target and the sources of the gradient call are swapped"
    )
    assert any(line.startswith("TM026  the gradient is all zeros") for line in listing)
    result, _ = run(ip, "%tape --explain TM999")
    assert isinstance(result.error_in_exec, ValueError)
    assert "No cause has the code 'TM999'" in str(result.error_in_exec)
