"""Fuzz ``%%tape`` through a real IPython shell: options, cells, interrupts.

Cells are drawn from a small grammar of statements that compute, delete and
rebind names (the tape's and the gradients' names too), open inner tapes,
call ``tape.gradient``, and raise at any line: ``ValueError``,
``ZeroDivisionError``, ``NameError``, and ``KeyboardInterrupt`` raised in the
cell, in an inner tape, and in the middle of a backward sweep (a
``custom_gradient`` whose gradient raises it). Options are drawn valid and
invalid. Each cell is checked against a reference: the same body run by
plain ``exec`` inside ``with GradientTape(...)``, then the same gradient call.
After every cell:

- no tape is left on the thread's stack and no explanation log is left
  listening (``state.tapes``, ``state.observers`` and the sweep observers are
  empty);
- the tape is bound to its name and closed, or, for a bad option, nothing is
  bound and the error is a one-line ``UsageError``;
- every other name holds what the reference holds: nothing half-made;
- the error, if any, is the reference's;
- the next cell works.

Renderers are broken too (raising ``KeyboardInterrupt`` or an error): an
interrupt stops the cell after the tape and gradients are bound, an error
degrades the view to the text.

Budget: see tests/fuzz/budget.py (``TAPEMAGIC_FUZZ_EXAMPLES`` for a long run).
"""

from __future__ import annotations

import contextlib
import gc
import io
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import graphviz
import numpy as np
import pytest
from hypothesis import event, given, note
from hypothesis import strategies as st
from IPython.core.error import UsageError
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

from tapemagic.engine import GradientTape, Tensor, Variable
from tapemagic.engine.backprop import sweep_observers
from tapemagic.engine.context import state
from tapemagic.engine.tape import UnconnectedGradients
from tapemagic.viz import page as page_module
from tapemagic.viz import view as view_module
from tapemagic.viz import widget as widget_module

from .budget import fuzz_settings

SETUP = """
import numpy as np
import tapemagic.tf as tf
x = tf.constant(3.0)
w = tf.Variable(2.0, name="w")
v = tf.Variable([1.0, -1.0], name="v")

@tf.custom_gradient
def halt(t):
    def grad(g):
        raise KeyboardInterrupt
    return tf.identity(t), grad
"""
# Names IPython puts in every namespace (ip.user_ns_hidden).
IPYTHON_NAMES = {"In", "Out", "exit", "quit", "get_ipython", "open"}
TRACEBACK = "Traceback (most recent call last)"


@pytest.fixture(scope="module")
def ip():
    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    shell.extension_manager.load_extension("tapemagic")
    yield shell
    _reset(shell)


def _reset(shell) -> None:
    """Forget every name a cell bound (IPython's own names stay)."""
    for name in list(_user_names(shell.user_ns)):
        del shell.user_ns[name]


def _fresh(shell) -> None:
    _reset(shell)
    result = shell.run_cell(SETUP)
    assert result.success, result.error_in_exec


def _user_names(ns: dict) -> dict:
    return {
        k: v for k, v in ns.items() if not k.startswith("_") and k not in IPYTHON_NAMES
    }


def assert_nothing_left_running() -> None:
    assert state.tapes == []
    assert state.observers == []
    assert sweep_observers.observers == []


def assert_next_cell_works(ip) -> None:
    """A fresh cell records, binds and differentiates, whatever came before."""
    with capture_output():
        first = ip.run_cell("import tapemagic.tf as tf\n_probe_w = tf.Variable(3.0)")
        result = ip.run_cell(
            "%%tape --name _probe_tape --show none\n_probe_y = _probe_w * _probe_w"
        )
    assert first.success and result.success, result.error_in_exec
    ns = ip.user_ns
    assert float(ns["_probe_tape"].gradient(ns["_probe_y"], ns["_probe_w"])) == 6.0
    assert_nothing_left_running()


# -- the grammar -------------------------------------------------------------------

POOL = ("a", "b", "c")

STATEMENTS = (
    "{n} = w * {k}.0",
    "{n} = tf.reduce_sum(v * w) + {k}.0",
    "{n} = {m} * w",
    "{n} = x * x",
    "{n} = halt(w) * {k}.0",
    "del {n}",
    "{n} = tf.Variable({k}.0)",
    "w.assign_add({k}.0)",
    "{tape}.watch(x)",
    "with {tape}.stop_recording():\n    {n} = w * w",
    "with tf.GradientTape() as inner:\n    inner.watch(x)\n    {n} = x * w",
    "with tf.GradientTape() as inner:\n    {n} = w * w\n    raise KeyboardInterrupt",
    "{n} = {tape}.gradient(w * w, w)",
    "{n} = {tape}.gradient(halt(w), w)",
    "{tape} = {k}",
    "del {tape}",
    "{out} = {k}",
    "del {out}",
    "raise KeyboardInterrupt",
    "raise ValueError('boom {k}')",
    "{k} / 0",
    "{n}",
    "print({n})",
    "for _ in range({k}):\n    {n} = {n} * w if '{n}' in dir() else w",
)


@dataclass
class Options:
    """One ``%%tape`` line and what it asks for."""

    line: str
    name: str = "tape"
    out: str = "grads"
    persistent: bool = False
    watch_accessed: bool = True
    watch: tuple[str, ...] = ()
    target: str | None = None
    sources: str | None = None
    unconnected: str = "none"
    shows: bool = True
    graph: bool = True
    bad: list[str] = field(default_factory=list)


@st.composite
def options(draw: Any, allow_bad: bool = True) -> Options:
    o = Options(line="")
    parts = []
    o.name = draw(st.sampled_from(["tape", "t2", "a"]))
    if o.name != "tape" or draw(st.booleans()):
        parts.append(f"--name {o.name}")
    if draw(st.booleans()):
        o.persistent = True
        parts.append("--persistent")
    if draw(st.booleans()):
        o.watch_accessed = False
        parts.append("--no-watch-accessed")
    watch = draw(st.sampled_from([(), ("x",), ("w",), ("x", "v")]))
    if watch:
        o.watch = watch
        parts.append("--watch " + ",".join(watch))
    if draw(st.booleans()):
        o.target = draw(st.sampled_from(POOL + ("a,b",)))
        o.sources = draw(st.sampled_from(["w", "x", "v", "w,x", "w,v"]))
        o.out = draw(st.sampled_from(["grads", "g2", "b"]))
        parts += [f"--target {o.target}", f"--sources {o.sources}"]
        if o.out != "grads":
            parts.append(f"--out {o.out}")
        if draw(st.booleans()):
            o.unconnected = "zero"
            parts.append("--unconnected zero")
    show = draw(st.sampled_from(["", "--show graph", "--show text", "--show none",
                                 "--quiet"]))  # fmt: skip
    o.shows = show not in ("--show none", "--quiet")
    o.graph = show in ("", "--show graph")
    if show:
        parts.append(show)
    if allow_bad and draw(st.integers(0, 3)) == 0:
        bad = draw(
            st.sampled_from(
                [
                    "--name 1x",
                    "--name class",
                    "--out for",
                    "--show pie",
                    "--unconnected maybe",
                    "--bogus",
                    "--target",
                    '--sources "w',
                    "--watch nothere",
                    "--watch np.eye(2)",
                    "--watch 'w +'",
                    "--name g --out g --target a --sources w",
                ]
            )
        )
        o.bad.append(bad)
        parts.append(bad)  # last: argparse keeps the last value of an option
    o.line = " ".join(parts)
    return o


@st.composite
def bodies(draw: Any, o: Options) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        template = draw(st.sampled_from(STATEMENTS))
        lines.append(
            template.format(
                n=draw(st.sampled_from(POOL)),
                m=draw(st.sampled_from(POOL)),
                k=draw(st.integers(0, 3)),
                tape=o.name,
                out=o.out,
            )
        )
    return "\n".join(lines)


# -- the reference: plain exec inside a plain tape ---------------------------------


@dataclass
class Outcome:
    ns: dict
    error: BaseException | None
    gradients: Any = None
    usage: bool = False


def _split(text: str) -> list[str]:
    return [part for part in text.split(",") if part]


def reference(o: Options, body: str) -> Outcome:
    """What the cell should do, by plain Python: exec in ``with tape:``."""
    ns: dict = {}
    exec(SETUP, ns)
    tape = GradientTape(
        persistent=o.persistent, watch_accessed_variables=o.watch_accessed
    )
    ns[o.name] = tape
    error = None
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            with tape:
                if o.watch:
                    tape.watch([ns[name] for name in o.watch])
                exec(compile(body, "<reference>", "exec"), ns)
        except BaseException as err:
            error = err
    ns[o.name] = tape
    outcome = Outcome(ns, error)
    if error is not None or o.target is None:
        return outcome
    targets = [ns.get(t) for t in _split(o.target)]
    sources = [ns.get(s) for s in _split(o.sources)]
    if not all(isinstance(t, (Tensor, Variable)) for t in targets + sources):
        outcome.usage = True
        return outcome
    target = targets[0] if len(targets) == 1 else targets
    source = sources[0] if len(sources) == 1 else sources
    mode = UnconnectedGradients(o.unconnected)
    try:
        outcome.gradients = tape.gradient(target, source, unconnected_gradients=mode)
    except Exception:
        outcome.usage = True
    except BaseException as err:  # KeyboardInterrupt in the backward sweep
        outcome.error = err
        return outcome
    if not outcome.usage:
        ns[o.out] = outcome.gradients
    return outcome


def assert_same_value(got: Any, want: Any, name: str) -> None:
    if isinstance(want, (Tensor, Variable)):
        assert type(got) is type(want), name
        np.testing.assert_array_equal(np.asarray(got.numpy()), want.numpy(), name)
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), name
        for g, w in zip(got, want):
            assert_same_value(g, w, name)
    elif want is None or isinstance(want, (int, float, str)):
        assert got == want and type(got) is type(want), name
    else:
        assert type(got) is type(want), name


def assert_namespace(ns: dict, want: Outcome, o: Options) -> None:
    got, expected = _user_names(ns), _user_names(want.ns)
    assert set(got) == set(expected), set(got) ^ set(expected)
    for name, value in expected.items():
        if name == o.name:
            continue
        assert_same_value(got[name], value, name)
    tape = got[o.name]
    assert isinstance(tape, GradientTape) and not tape._recording


# -- cells ---------------------------------------------------------------------------


@fuzz_settings(500)
@given(st.data())
def test_cells_leave_a_closed_bound_tape_and_nothing_half_made(ip, data):
    o = data.draw(options(), label="options")
    body = data.draw(bodies(o), label="body")
    rich = data.draw(st.integers(0, 4), label="rich") == 0
    cell = f"%%tape {o.line}\n{body}"
    note(cell)
    _fresh(ip)
    before = dict(_user_names(ip.user_ns))
    with mock.patch.object(view_module, "_rich_frontend", lambda: rich):
        with capture_output() as captured:
            result = ip.run_cell(cell, store_history=True)
    assert_nothing_left_running()
    error = result.error_in_exec
    event(f"error: {type(error).__name__}")

    if o.bad or not body.strip():  # IPython refuses an empty %%tape cell itself
        assert isinstance(error, UsageError), error
        assert "\n" not in str(error)
        after = _user_names(ip.user_ns)
        assert after.keys() == before.keys()
        assert all(after[k] is before[k] for k in before)
        assert_next_cell_works(ip)
        return

    want = reference(o, body)
    if want.error is not None:
        assert type(error) is type(want.error), (error, want.error)
        assert str(error) == str(want.error)
    elif want.usage:
        assert isinstance(error, UsageError) and "\n" not in str(error), error
    else:
        assert error is None, error
        if o.target is not None:
            assert_same_value(ip.user_ns[o.out], want.gradients, "gradients")
    assert_namespace(ip.user_ns, want, o)
    views = [out for out in captured.outputs if "GradientTape" in str(out.data)]
    if error is None and o.shows:
        (view,) = views
        assert view.data["text/plain"].startswith(f"GradientTape {o.name!r}")
        assert ("text/html" in view.data) == (rich and o.graph)
        assert TRACEBACK not in captured.stdout
    elif error is not None:
        assert views == []
    assert_next_cell_works(ip)


# -- any option text -------------------------------------------------------------------

TOKENS = st.sampled_from(
    ["--persistent", "--no-watch-accessed", "--watch", "--name", "--target",
     "--sources", "--out", "--unconnected", "--quiet", "--show", "--show=text",
     "--name=t3", "--persistent=1", "w", "x", "v", "y_", "grads", "tape", "t3",
     "none", "zero", "text", "graph", "pie", "'w, x'", '"w', "w,x", "np.eye(2)",
     "-", "--", "-h", "=", "'", '"', "\\", "1x", "class", "$w", "{w}", "w[0]",
     "(w", "[w, x]", "{'a': w}", "np", "tf", "None"]
)  # fmt: skip
# No letters that spell a method and no operators that make huge numbers.
ODD_TEXT = st.text(alphabet="wxvy_gt019 -='\"\\,[](){}$:", max_size=6)


@fuzz_settings(500)
@given(st.lists(st.one_of(TOKENS, ODD_TEXT), max_size=8).map(" ".join))
def test_any_option_text_runs_or_is_a_one_line_usage_error(ip, line):
    _fresh(ip)
    before = dict(_user_names(ip.user_ns))
    with capture_output():
        result = ip.run_cell(f"%%tape {line}\ny_ = w * 2.0", store_history=True)
    assert_nothing_left_running()
    error = result.error_in_exec
    after = _user_names(ip.user_ns)
    new_tapes = [
        k
        for k, value in after.items()
        if isinstance(value, GradientTape) and before.get(k) is not value
    ]
    event(f"error: {type(error).__name__}, tapes bound: {len(new_tapes)}")
    assert error is None or isinstance(error, UsageError), repr(error)
    if error is not None:
        assert "\n" not in str(error), str(error)
    if isinstance(error, UsageError) and not new_tapes:
        # Refused before the cell ran: nothing bound, nothing changed.
        assert after.keys() == before.keys()
        assert all(after[k] is before[k] for k in before)
    else:
        # The cell ran (a bad --target or --sources is only found after it).
        (name,) = new_tapes
        assert not after[name]._recording
        assert float(after["y_"]) == 4.0
    assert_next_cell_works(ip)


def test_regression_an_unclosed_quote_is_a_usage_error(ip):
    # Found by the option fuzz (issue 8): shlex's ValueError reached the user
    # as a traceback.
    _fresh(ip)
    with capture_output():
        result = ip.run_cell('%%tape --sources "w, b\ny_ = w * 2.0')
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec) == (
        "%%tape options '--sources \"w, b': no closing quotation. Quote an option "
        'that has spaces, e.g. --sources "w, b".'
    )
    assert "y_" not in ip.user_ns and "tape" not in ip.user_ns


def test_regression_the_gradients_cannot_take_the_tapes_name(ip):
    # Found by the cell fuzz (issue 8): --out equal to --name replaced the tape
    # with its gradients.
    _fresh(ip)
    with capture_output():
        result = ip.run_cell("%%tape --name g --out g --target y_ --sources w\n"
                             "y_ = w * 2.0")  # fmt: skip
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec) == (
        "--name and --out are both 'g': the gradients would replace the tape. Give "
        "--out another name."
    )
    assert "g" not in ip.user_ns and "y_" not in ip.user_ns


def test_regression_an_interrupted_gradient_leaves_no_log_listening(ip):
    # Found by the cell fuzz (issue 8): a KeyboardInterrupt in a backward sweep,
    # in the cell or in --target/--sources, left the cell's explanation log on
    # the sweep observers, fed by every later gradient.
    _fresh(ip)
    for cell in (
        "%%tape --persistent\ny_ = halt(w)\ng_ = tape.gradient(y_, w)",
        "%%tape --target y_ --sources w\ny_ = halt(w)",
    ):
        with capture_output():
            result = ip.run_cell(cell)
        assert isinstance(result.error_in_exec, KeyboardInterrupt)
        assert isinstance(ip.user_ns["tape"], GradientTape)
        assert_nothing_left_running()
    assert "g_" not in ip.user_ns and "grads" not in ip.user_ns


def test_regression_a_non_tensor_option_value_is_one_line(ip):
    # Found by the cell fuzz (issue 8): the repr of a NumPy array in the message
    # spread the UsageError over several lines.
    _fresh(ip)
    with capture_output():
        result = ip.run_cell("%%tape --watch np.eye(2)\ny_ = w * 2.0")
    assert str(result.error_in_exec) == (
        "--watch 'np.eye(2)' is array([[1., 0.], [0., 1.]]) of type 'ndarray', "
        "not a tensor or variable. Name tensors or variables (e.g. a tf.Variable, "
        "or a tf.constant you watch)."
    )


# -- renderers that fail ------------------------------------------------------------


def _breaking(target: Any, attribute: str, error: BaseException, calls: list):
    """Patch ``target.attribute`` to note the call and raise ``error``."""

    def broken(*args, **kwargs):
        calls.append(attribute)
        raise error

    return mock.patch.object(target, attribute, broken)


RENDERERS = {
    "render_text": (view_module, "render_text"),
    "build_view": (widget_module, "build_view"),
    "dot": (graphviz.Digraph, "pipe"),
    "widget": (widget_module.TapeWidget, "_repr_mimebundle_"),
    "static_html": (page_module, "static_html"),
}


@fuzz_settings(120)
@given(
    renderer=st.sampled_from(sorted(RENDERERS)),
    error=st.sampled_from([KeyboardInterrupt, RuntimeError, MemoryError, KeyError]),
    rich=st.booleans(),
    target=st.booleans(),
)
def test_a_renderer_that_raises_never_leaves_the_cell_half_done(
    ip, renderer, error, rich, target
):
    _fresh(ip)
    line = "--persistent --target y_ --sources w" if target else "--persistent"
    calls: list = []
    target_object, attribute = RENDERERS[renderer]
    with mock.patch.object(view_module, "_rich_frontend", lambda: rich):
        with _breaking(target_object, attribute, error("broken"), calls):
            with capture_output() as captured:
                result = ip.run_cell(f"%%tape {line}\ny_ = w * w\ny_ + 1.0")
    assert_nothing_left_running()
    ns = ip.user_ns
    # The cell ran and bound everything before anything was drawn.
    tape = ns["tape"]
    assert isinstance(tape, GradientTape) and not tape._recording
    assert float(ns["y_"]) == 4.0
    assert float(tape.gradient(ns["y_"], ns["w"])) == 4.0
    if target:
        assert float(ns["grads"]) == 4.0
    event(f"{renderer} called: {bool(calls)}")
    if calls and error is KeyboardInterrupt:
        assert isinstance(result.error_in_exec, KeyboardInterrupt)
    else:
        assert result.success, result.error_in_exec
        assert float(result.result) == 5.0
        (view,) = captured.outputs
        assert TRACEBACK not in captured.stdout
        first = view.data["text/plain"].split("\n", 1)[0]
        if calls and renderer in ("dot", "build_view"):
            # The graph tab fell back to the text view, with one line on why.
            assert first.startswith("GradientTape 'tape'")
            assert f"could not be drawn ({error.__name__}: " in view.data["text/html"]
        elif calls:
            assert first.startswith("tapemagic: ") and f"({error.__name__}: " in first
        else:
            assert first.startswith("GradientTape 'tape'")
    assert_next_cell_works(ip)


# -- many cells ------------------------------------------------------------------------

MANY = (
    "%%tape --show none\ny_ = w * w",
    "%%tape --show none --target y_ --sources w\ny_ = w * w\nraise KeyboardInterrupt",
    "%%tape --persistent --show none\ny_ = halt(w)\ng_ = tape.gradient(y_, w)",
    "%%tape --show none --target y_ --sources w\ny_ = w * 3.0",
    "%%tape --show text\ny_ = w * w\n1 / 0",
)


def test_many_cells_keep_a_bounded_number_of_tapes_and_logs(ip):
    # A kernel runs %%tape cells for hours: each cell's tape and explanation log
    # go when its name is rebound, interrupted or not.
    from tapemagic.graph.log import ExplainLog

    def live(kind: type) -> int:
        gc.collect()
        return sum(isinstance(obj, kind) for obj in gc.get_objects())

    _fresh(ip)
    tapes, logs = live(GradientTape), live(ExplainLog)  # earlier tests' own
    counts = []
    for n in range(1, 501):
        with capture_output():
            ip.run_cell(MANY[n % len(MANY)], store_history=True)
        assert_nothing_left_running()
        if n % 100 == 0:
            counts.append((live(GradientTape) - tapes, live(ExplainLog) - logs))
    # The tape bound to `tape` and the one the last traceback holds, at most.
    assert all(t <= 2 and g <= 2 for t, g in counts), counts
    assert_next_cell_works(ip)
