"""``%%tape`` and ``%tape``: run a notebook cell inside a gradient tape.

``%%tape`` runs its cell exactly as the body of
``with tf.GradientTape(...) as tape:``, binds ``tape`` in the user namespace,
optionally computes gradients itself (``--target`` / ``--sources``), and shows
what the tape recorded. ``%tape [name]`` shows a tape again.

The cell body goes through IPython's own input transformations (magics and
``!`` lines inside it still work); its last expression is displayed as usual.
Top-level ``await`` is not supported inside a ``%%tape`` cell. Options are
Python expressions taken as written; quote one that contains spaces:
``--sources "{'w': w, 'b': b}"``.
Line numbers everywhere (tracebacks, the explanation log, the summary) are the
cell's own: line 1 is the ``%%tape`` line. ``%%tape`` must be the cell's first
line, as for every cell magic; elsewhere IPython reports
``UsageError: Line magic function `%%tape` not found``.

The cell runs on the engine that ``tf`` names in the user namespace: real
TensorFlow (``import tensorflow as tf``; the cell then runs in a real
``tf.GradientTape``, heard by :mod:`tapemagic.tf_recorder`) or tapemagic's
own (``import tapemagic.tf as tf``); ``--engine`` chooses one.

Load it with ``%load_ext tapemagic``, or without any ``%load_ext`` through
IPython's ``lazy_magics``::

    c.MagicsManager.lazy_magics = {"tape": "tapemagic"}
"""

from __future__ import annotations

import ast
import keyword
import linecache
import sys
import weakref
from typing import Any

from IPython.core.displayhook import DisplayHook
from IPython.core.error import UsageError
from IPython.core.magic import (
    Magics,
    cell_magic,
    line_magic,
    magics_class,
    no_var_expand,
)
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from .engine.tape import (
    GradientTape,
    set_explain_default,
    set_explain_factory,
    unwatchable,
)
from .engine.tensor import Variable
from .engines import TAPEMAGIC, Engine, choose_engine, is_tape, tensorflow_engine
from .graph.diagnosis import diagnose
from .graph.findings import Findings
from .graph.from_tape import explain_tape, graph_from_tape, unseen_findings
from .graph.log import ExplainLog
from .graph.source import assigned_name, split_commas
from .viz.view import TapeView, find_problems, tape_mimebundle

__all__ = [
    "TapeMagics",
    "TapeView",
    "explain_every_tape",
    "explain_no_gradients",
    "find_problems",
    "load_ipython_extension",
    "run_tape_cell",
    "show",
    "show_tape",
    "unload_ipython_extension",
]


@magics_class
class TapeMagics(Magics):
    """The ``%%tape`` cell magic and the ``%tape`` line magic."""

    @cell_magic("tape")
    @no_var_expand
    @magic_arguments(name="%tape")
    @argument(
        "--persistent",
        action="store_true",
        help="Make a persistent tape: gradient() may be called more than once.",
    )
    @argument(
        "--no-watch-accessed",
        dest="watch_accessed",
        action="store_false",
        help="watch_accessed_variables=False: watch only what tape.watch() names.",
    )
    @argument(
        "--watch",
        metavar="NAMES",
        help="Comma-separated names (or expressions) to tape.watch() before the "
        "cell runs; they must exist already.",
    )
    @argument(
        "--name",
        default="tape",
        help="The name the tape is bound to in the user namespace (default: tape).",
    )
    @argument(
        "--target",
        metavar="EXPR",
        help="After the cell, compute the gradient of this expression (e.g. loss) "
        "with respect to --sources.",
    )
    @argument(
        "--sources",
        metavar="NAMES_OR_EXPR",
        help="What --target is differentiated by: comma-separated names give a "
        "list of gradients; one expression (e.g. model.trainable_variables) gives "
        "gradients of its structure. Quote expressions that contain spaces.",
    )
    @argument(
        "--out",
        default="grads",
        help="The name the gradients are bound to (default: grads).",
    )
    @argument(
        "--unconnected",
        choices=("none", "zero"),
        default="none",
        help="What a source the target does not depend on gets: None (default) "
        "or zeros, as tf.UnconnectedGradients.",
    )
    @argument(
        "--engine",
        choices=("tensorflow", "tapemagic"),
        help="Run the cell on real TensorFlow or on tapemagic's engine (default: "
        "the one `tf` names in the notebook: import tensorflow as tf, or import "
        "tapemagic.tf as tf).",
    )
    @argument(
        "--quiet",
        action="store_true",
        help="Record and bind, but display nothing.",
    )
    @argument(
        "--show",
        choices=("graph", "text", "none"),
        default="graph",
        help="What the cell displays: the graph (default), the text summary, or "
        "nothing.",
    )
    def tape(self, line: str, cell: str) -> None:
        """Run the cell inside a ``tf.GradientTape`` and show what it recorded.

        The cell runs exactly as the body of
        ``with tf.GradientTape(persistent=..., watch_accessed_variables=...) as
        tape:``, in the user namespace; magics and ``!`` lines inside it work,
        and its last expression is displayed as usual. Afterwards the tape is
        bound to ``tape`` (``--name``), even when the cell raised, so later
        cells can call ``tape.gradient(...)`` or inspect what was recorded.
        With ``--target`` and ``--sources`` the magic computes the gradients
        itself and binds them to ``grads`` (``--out``).

        Line numbers are the cell's: the ``%%tape`` line is line 1.
        ``%%tape`` must be the first line of the cell (anywhere else IPython
        reports "Line magic function `%%tape` not found"). Options are Python
        expressions, taken as written (no ``$name`` or ``{expr}`` expansion).

        Example::

            %%tape --persistent --target loss --sources w,b
            y_hat = tf.matmul(x, w) + b
            loss = tf.reduce_mean((y_hat - y) ** 2)
        """
        __tracebackhide__ = True
        view = run_tape_cell(self.shell, line, cell)
        if view.show != "none":
            display(view)

    @line_magic("tape")
    @magic_arguments(name="tape")
    @argument("name", nargs="?", default="tape", help="The tape's name.")
    @argument(
        "--show",
        choices=("graph", "text"),
        default="graph",
        help="Show the graph (default) or the text summary.",
    )
    @argument(
        "--all",
        dest="every",
        choices=("on", "off"),
        help="on: record and explain every tf.GradientTape the notebook creates, "
        "%%%%tape or not; off: only %%%%tape cells and explain=True (the default).",
    )
    def tape_line(self, line: str) -> TapeView | None:
        """Show a tape again: ``%tape`` (the tape named ``tape``) or ``%tape name``.

        ``%tape --all on`` makes every ``tf.GradientTape`` the notebook creates
        keep an explanation log, so that a None or NaN gradient it gives is
        explained under the cell that asked; ``%tape --all off`` stops it.
        """
        args = parse_argstring(self.tape_line, line)
        if args.every is not None:
            explain_every_tape(self.shell, args.every == "on")
            return None
        return show_tape(self.shell, args.name, show=args.show)


def show(tape: Any, name: str | None = None) -> None:
    """Display the view of ``tape``: the widget in a notebook, text elsewhere.

    Args:
        tape: a GradientTape, of tapemagic's engine or of TensorFlow (best made
            by ``%%tape`` or with ``explain=True``, so that every op that ran
            is known, recorded or not).
        name: how to call it in the view (default: its name in the notebook).

    Raises:
        TypeError: if ``tape`` is not a GradientTape.

    Example:
        >>> from tapemagic.engine import Variable
        >>> w = Variable(2.0)
        >>> with GradientTape(explain=True) as tape:
        ...     y = w * w
        >>> show(tape, "tape")  # doctest: +ELLIPSIS
        GradientTape 'tape' (non-persistent, stopped)
        Ops: 1 recorded on the tape, of 1 that ran.
        ...
    """
    if not is_tape(tape):
        raise TypeError(
            f"tapemagic.show() draws a GradientTape, got {type(tape).__name__!r}. "
            "Pass the tape itself, e.g. tapemagic.show(tape)."
        )
    view = TapeView(tape, name)
    from IPython import get_ipython

    if get_ipython() is None:
        print(view.text())
    else:
        display(view)


def show_tape(shell: Any, name: str = "tape", show: str = "graph") -> TapeView:
    """The view of the tape bound to ``name`` in the user namespace.

    Raises:
        UsageError: if ``name`` is not bound to a GradientTape.
    """
    tape = shell.user_ns.get(name)
    if not is_tape(tape):
        what = "not defined" if tape is None else f"a {type(tape).__name__}"
        raise UsageError(
            f"%tape {name}: {name!r} is {what}, not a GradientTape. Run a %%tape "
            "cell first, or give the tape's name: %tape NAME."
        )
    return TapeView(tape, name, show=show)


def run_tape_cell(shell: Any, line: str, cell: str) -> TapeView:
    """Everything ``%%tape line`` does with ``cell``, callable from Python.

    Args:
        shell: the InteractiveShell whose namespace the cell runs in.
        line: the options, as after ``%%tape``.
        cell: the cell body.

    Returns:
        The view of the tape (not yet displayed).

    Raises:
        UsageError: for bad options, or a ``--target``/``--sources`` that does not
            evaluate to tensors (the tape is still bound then).
        Exception: whatever the cell raised, with the cell's traceback; the tape
            is bound all the same.
    """
    __tracebackhide__ = True
    try:
        args = parse_argstring(TapeMagics.tape, line)
    except ValueError as err:  # shlex: an unclosed quote or a trailing backslash
        raise UsageError(
            f"%%tape options {line!r}: {_one_line(err).lower()}. Quote an option "
            'that has spaces, e.g. --sources "w, b".'
        ) from None
    if args.quiet:
        args.show = "none"
    for option, value in (("--name", args.name), ("--out", args.out)):
        if not value.isidentifier() or keyword.iskeyword(value):
            raise UsageError(f"{option} {value!r} is not a valid Python name.")
    if (args.target is None) != (args.sources is None):
        missing = "--sources" if args.sources is None else "--target"
        raise UsageError(
            f"{missing} is missing: give both --target EXPR and --sources NAMES to "
            "compute gradients, or neither."
        )
    if args.target is not None and args.out == args.name:
        raise UsageError(
            f"--name and --out are both {args.name!r}: the gradients would replace "
            "the tape. Give --out another name."
        )
    ns = shell.user_ns
    engine = choose_engine(args.engine, ns)
    watch = [
        _evaluate(shell, engine, text, "--watch", before=True)
        for text in split_commas(args.watch or "")
    ]
    header = f"%%tape {line}".rstrip()
    filename, codes = _compile_cell(shell, header, cell)

    log = ExplainLog(filename, lines=_lines(header, cell), recorder=engine.surface)
    log.label_for = _labeller(shell)
    log.label = log.label_for(filename)
    log.assignment_of = _assignment_finder(shell)
    if engine is not TAPEMAGIC:
        engine.module.note_namespace(ns)
    tape = engine.tape(
        persistent=args.persistent,
        watch_accessed_variables=args.watch_accessed,
        explain=log,
    )
    _LAST_TAPE[:] = [weakref.ref(tape)]
    before = _tensor_names(ns, engine)
    ns[args.name] = tape
    error = None
    try:
        with tape:
            if watch:
                tape.watch(watch)
            for code in codes:
                exec(code, shell.user_global_ns, ns)
    except BaseException as err:  # KeyboardInterrupt too: the tape is still bound
        error = err
    engine.detach(log)
    ns[args.name] = tape
    if engine is not TAPEMAGIC:
        engine.module.note_namespace(ns)  # Keras layers built by the cell
    after = _tensor_names(ns, engine)
    after.update((key, ns[key]) for key in before if key in ns and key not in after)
    after.pop(args.name, None)
    log.note_namespace(before, after)

    log.shown = len(log.requests)  # the cell's view (or its error) explains them
    if error is not None:
        _explain_failed_calls(tape, args.name, error)
        recorded = sum(op.recorded for op in graph_from_tape(tape).ops)
        error.add_note(
            f"%%tape: the tape recorded {recorded} op{'s' if recorded != 1 else ''} "
            f"before the error; it is bound to {args.name!r} (run %tape "
            f"{args.name} to see it)."
        )
        raise error.with_traceback(_user_traceback(error.__traceback__, filename))

    gradients = None
    if args.target is not None:
        try:
            gradients = _gradients(shell, engine, tape, log, args)
        finally:
            # A gradient that a KeyboardInterrupt stopped half-way leaves the
            # log on the listener lists: every later sweep would feed it.
            engine.detach(log)
            log.shown = len(log.requests)  # the cell's view explains them
        ns[args.out] = gradients
    return TapeView(tape, args.name, gradients, show=args.show)


def _explain_failed_calls(tape: Any, name: str, error: BaseException) -> None:
    """Add the diagnosis of a gradient call that failed on its arguments (a
    target that is not a tensor) to the error, under its traceback."""
    for sentence in _failed_call_sentences(tape, name):
        error.add_note(sentence)


def _failed_call_sentences(tape: Any, name: str) -> list[str]:
    """What the diagnosis says of the tape's gradient calls that failed on
    their arguments: each finding's message and fix."""
    graph = graph_from_tape(tape, name=name)
    failed = {r.id for r in graph.gradients if r.error is not None}
    return [f"{f.message} {f.fix}" for f in diagnose(graph) if f.request in failed]


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


def _evaluate(shell: Any, engine: Engine, text: str, option: str,
              before: bool = False) -> Any:  # fmt: skip
    """Evaluate an option's expression; every leaf must be a tensor or variable."""
    try:
        value = eval(text, shell.user_global_ns, shell.user_ns)
    except Exception as err:
        hint = (
            " It is evaluated before the cell runs: define it in an earlier cell, "
            "or call tape.watch() inside the cell."
            if before
            else ""
        )
        raise UsageError(
            f"{option} {text!r} raised {type(err).__name__}: {_one_line(err)}.{hint}"
        ) from None
    for leaf in engine.surface.flatten(value):
        if option == "--watch" and isinstance(leaf, Variable) and unwatchable(leaf):
            # a Keras weight, which tape.watch refuses as TensorFlow's does
            watch = f"{text}.value" if leaf is value else f"[w.value for w in {text}]"
            raise UsageError(
                f"--watch {text!r} holds a Keras weight of type "
                f"{type(leaf).__name__!r}, which tape.watch does not take (not "
                "tf.Tensor or tf.Variable or ExtensionType). Watch the tf.Variable "
                f"behind it: --watch {watch!r}, or drop --watch: the tape watches "
                "trainable Keras weights when it reads them."
            )
        if not engine.is_value(leaf):
            shown = " ".join(repr(leaf).split())  # an array's repr has newlines
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise UsageError(
                f"{option} {text!r} is {shown} of type {type(leaf).__name__!r}, not "
                "a tensor or variable. Name tensors or variables (e.g. a tf.Variable, "
                "or a tf.constant you watch)."
            )
    return value


def _evaluate_items(shell: Any, engine: Engine, text: str, option: str) -> Any:
    """One expression's value, or a list of the values of comma-separated ones."""
    items = split_commas(text)
    if not items:
        raise UsageError(f"{option} is empty: name at least one tensor or variable.")
    if len(items) == 1:
        return _evaluate(shell, engine, items[0], option)
    return [_evaluate(shell, engine, item, option) for item in items]


def _gradients(shell: Any, engine: Engine, tape: Any, log: ExplainLog,
               args: Any) -> Any:  # fmt: skip
    try:
        target = _evaluate_items(shell, engine, args.target, "--target")
    except UsageError as err:
        why = _why_target_is_not_a_tensor(shell, engine, tape, log, args)
        if why is None:
            raise
        raise UsageError(f"{err} {why}") from None
    sources = _evaluate_items(shell, engine, args.sources, "--sources")
    mode = engine.unconnected(args.unconnected)
    log.via = f"--target {args.target} --sources {args.sources}"
    try:
        return tape.gradient(target, sources, unconnected_gradients=mode)
    except Exception as err:
        raise UsageError(
            f"--target {args.target!r} --sources {args.sources!r}: tape.gradient "
            f"raised {type(err).__name__}: {_one_line(err)}"
        ) from None
    finally:
        log.via = None


def _why_target_is_not_a_tensor(shell: Any, engine: Engine, tape: Any,
                                log: ExplainLog, args: Any) -> str | None:  # fmt: skip
    """Where a ``--target`` that is not a tensor became a number or an array
    (``float()`` at line 4...), from the diagnosis of the gradient call as the
    cell would make it: the tape refuses the target, and the log keeps the
    failed call for the view. None if the diagnosis has nothing to add."""
    try:
        target = eval(args.target, shell.user_global_ns, shell.user_ns)
        sources = _evaluate_items(shell, engine, args.sources, "--sources")
    except Exception:
        return None
    log.via = f"--target {args.target} --sources {args.sources}"
    try:
        tape.gradient(target, sources)
    except Exception:
        pass  # refused, as expected: the log has the failed call
    else:
        return None
    finally:
        log.via = None
    return " ".join(_failed_call_sentences(tape, args.name)) or None


def _compile_cell(shell: Any, header: str, cell: str) -> tuple[str, list]:
    """The cell body, transformed and compiled as IPython would, numbered from 2.

    The body is compiled under the file name of the cell that holds it, whose
    cached source becomes the ``%%tape`` line plus the body: tracebacks, the
    debugger and the explanation log then all see the cell as the user wrote
    it, line 1 being ``%%tape``. Called from plain Python (no cell), the body
    gets a name of its own.

    Returns:
        The file name the code is compiled under and the code objects to run,
        in order.
    """
    transformed = shell.transform_cell(cell)
    source = f"{header}\n{transformed}"
    filename = _enclosing_cell(shell)
    if filename is None:
        filename = shell.compile.cache(
            source, number=shell.execution_count, raw_code=f"{header}\n{cell}"
        )
    else:
        lines = [line + "\n" for line in source.splitlines()]
        linecache.cache[filename] = (len(source), None, lines, filename)
    # A blank first line stands for the %%tape line, so line numbers match the
    # cell as the user sees it.
    tree = shell.compile.ast_parse("\n" + transformed, filename=filename)
    tree = shell.transform_ast(tree)
    body = tree.body
    interactive = _interactive_nodes(body, shell.ast_node_interactivity)
    if DisplayHook.semicolon_at_end_of_expression(transformed):
        interactive.discard(len(body) - 1)
    codes, pending = [], []
    for i, node in enumerate(body):
        if i in interactive:
            if pending:
                codes.append(shell.compile(ast.Module(pending, []), filename, "exec"))
                pending = []
            codes.append(shell.compile(ast.Interactive([node]), filename, "single"))
        else:
            pending.append(node)
    if pending:
        codes.append(shell.compile(ast.Module(pending, []), filename, "exec"))
    return filename, codes


def _enclosing_cell(shell: Any) -> str | None:
    """The file name of the innermost cell running this magic, if any."""
    names = getattr(shell.compile, "_filename_map", {})
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if frame.f_globals is shell.user_global_ns and code.co_filename in names:
            return code.co_filename
        frame = frame.f_back
    return None


def _interactive_nodes(body: list, interactivity: str) -> set[int]:
    """Which top-level statements display their value (IPython's setting)."""
    if not body or interactivity == "none":
        return set()
    if interactivity == "all":
        return {i for i, node in enumerate(body) if isinstance(node, ast.Expr)}
    if interactivity == "last":
        return {len(body) - 1}
    return {len(body) - 1} if isinstance(body[-1], ast.Expr) else set()


def _lines(header: str, cell: str) -> tuple[str, ...]:
    return (header, *cell.splitlines())


def _assignment_finder(shell: Any) -> Any:
    """``find(name)``: the last line of an earlier cell that binds ``name``, as
    ``(cell label, line, code)``, read from the notebook's history (None when
    no cell does)."""

    def find(name: str) -> tuple[str, int, str] | None:
        # The cells as typed (a %%tape cell keeps its lines), newest first;
        # a line making a new tf.Variable does not rebind the name to a tensor.
        history = shell.history_manager.input_hist_raw
        for number in range(min(len(history), shell.execution_count) - 1, 0, -1):
            lines = str(history[number]).splitlines()
            for index in range(len(lines) - 1, -1, -1):
                code = lines[index]
                if assigned_name(code) == name and "Variable(" not in code:
                    return f"In[{number}]", index + 1, code.strip()
        return None

    return find


def _labeller(shell: Any) -> Any:
    names = getattr(shell.compile, "_filename_map", {})

    def label(filename: str) -> str | None:
        number = names.get(filename)
        return None if number is None else f"In[{number}]"

    return label


def _tensor_names(ns: dict, engine: Engine) -> dict:
    is_value = engine.is_value
    return {
        key: value
        for key, value in ns.items()
        if not key.startswith("_") and is_value(value)
    }


def _user_traceback(tb: Any, filename: str) -> Any:
    """The traceback from the cell's own frame on (the magic's frames dropped)."""
    first = tb
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return tb if tb is not None else first


# What displayed a GradientTape before the extension was loaded, per shell:
# unloading puts it back.
_PREVIOUS_FORMATTERS: dict[int, Any] = {}
# TensorFlow's tape class, named so that registering its display imports nothing.
_TF_TAPE = ("tensorflow.python.eager.backprop", "GradientTape")
# The tape of the last %%tape cell (held weakly).
_LAST_TAPE: list[Any] = []

# The post_run_cell callback each shell runs, to unregister it on unloading.
_LATER_CELLS: dict[int, Any] = {}
# The log factory that `%tape --all on` replaced, put back by `%tape --all off`.
_REPLACED_FACTORY: list[Any] = []


def _explain_later_cells(shell: Any) -> Any:
    """The callback, run after every cell, that shows under the cell why a
    gradient it asked of an explained tape is None or NaN (in IPython's
    display: the gradients themselves are left as they are)."""

    def show_unseen(result: Any = None) -> None:
        for _, findings in unseen_findings(shell.user_ns):
            display(findings)

    return show_unseen


def explain_every_tape(shell: Any, on: bool) -> None:
    """``%tape --all on|off``: whether every ``tf.GradientTape`` the notebook's
    code creates keeps an explanation log (a ``%%tape`` cell's always does).

    Its logs name the cells they quote as the ``%%tape`` magic does
    (``In[7]``); a None or NaN gradient is explained under the cell that
    asked for it. ``off`` puts back the log factory that ``on`` replaced.
    """
    if on:
        label_for = _labeller(shell)

        def notebook_log() -> ExplainLog:
            log = ExplainLog()  # the file of the user's code making the tape
            log.label_for = label_for
            log.label = label_for(log.filename) if log.filename else None
            return log

        replaced = set_explain_factory(notebook_log)
        if not _REPLACED_FACTORY:  # on twice: the first one replaced the package's
            _REPLACED_FACTORY.append(replaced)
    elif _REPLACED_FACTORY:
        set_explain_factory(_REPLACED_FACTORY.pop())
    set_explain_default(on)


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%tape``, ``%tape``, how a GradientTape is displayed, and the
    explanation of "No gradients provided for any variable".

    ``%load_ext tapemagic`` calls this. A tape that ends a cell shows its
    :class:`~tapemagic.viz.view.TapeView` (the engine knows nothing of views:
    the display is registered with IPython's mimebundle formatter, for
    TensorFlow's tape by name, so loading the extension imports no TensorFlow).
    """
    ipython.register_magics(TapeMagics)
    if id(ipython) not in _LATER_CELLS:
        _LATER_CELLS[id(ipython)] = _explain_later_cells(ipython)
        ipython.events.register("post_run_cell", _LATER_CELLS[id(ipython)])
    formatter = ipython.display_formatter.mimebundle_formatter
    previous = formatter.for_type(GradientTape, tape_mimebundle)
    if previous is not tape_mimebundle:
        _PREVIOUS_FORMATTERS[id(ipython)] = previous
    formatter.for_type_by_name(*_TF_TAPE, _tensorflow_tape_mimebundle)
    if _explain_after_cell not in ipython.events.callbacks["post_run_cell"]:
        ipython.events.register("post_run_cell", _explain_after_cell)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what :func:`load_ipython_extension` registered."""
    magics = ipython.magics_manager.magics
    for kind in ("line", "cell"):
        magics[kind].pop("tape", None)
    ipython.magics_manager.registry.pop(TapeMagics.__name__, None)
    later = _LATER_CELLS.pop(id(ipython), None)
    if later is not None:
        ipython.events.unregister("post_run_cell", later)
    explain_every_tape(ipython, False)
    formatter = ipython.display_formatter.mimebundle_formatter
    formatter.pop(GradientTape, None)
    formatter.deferred_printers.pop(_TF_TAPE, None)
    if "tensorflow" in sys.modules:
        formatter.pop(sys.modules[_TF_TAPE[0]].GradientTape, None)
    previous = _PREVIOUS_FORMATTERS.pop(id(ipython), None)
    if previous is not None:
        formatter.for_type(GradientTape, previous)
    if _explain_after_cell in ipython.events.callbacks["post_run_cell"]:
        ipython.events.unregister("post_run_cell", _explain_after_cell)


def _tensorflow_tape_mimebundle(tape: Any) -> dict:
    """How IPython shows a ``tf.GradientTape``: its view, as for the engine's."""
    tensorflow_engine()
    return tape_mimebundle(tape)


# TensorFlow's and Keras's words when an optimizer gets only None gradients.
_NO_GRADIENTS = "No gradients provided for any variable"


def explain_no_gradients(error: BaseException, tape: Any = None) -> str | None:
    """What to tell a user whose optimizer said "No gradients provided for any
    variable": which gradients of the last ``%%tape`` tape (or ``tape``) are
    None, and why. None for any other error.

    Example:
        >>> explain_no_gradients(ValueError("shapes do not match")) is None
        True
    """
    if _NO_GRADIENTS not in str(error):
        return None
    if tape is None:
        tape = _LAST_TAPE[0]() if _LAST_TAPE else None
    if tape is None:
        return (
            f"tapemagic: {_NO_GRADIENTS}: every gradient given to the optimizer is "
            "None. Run the cell that computes them with %%tape to see why."
        )
    errors = Findings(explain_tape(tape)).errors
    if not errors:
        return (
            f"tapemagic: {_NO_GRADIENTS}: every gradient given to the optimizer is "
            "None, but the last %%tape tape asked for no gradient that is None. "
            "Compute the gradients in the %%tape cell (tape.gradient(loss, "
            "model.trainable_variables)) to see why they are None."
        )
    count = len(errors)
    head = "1 gradient is None" if count == 1 else f"{count} gradients are None"
    lines = "\n".join(f"- {f.message} {f.fix}" for f in errors)
    return (
        f"tapemagic: {_NO_GRADIENTS}: the optimizer got only None gradients. In "
        f"the last %%tape tape, {head}:\n{lines}"
    )


def _explain_after_cell(result: Any) -> None:
    """After a cell that raised "No gradients provided for any variable", say
    why, from the last %%tape tape."""
    error = getattr(result, "error_in_exec", None)
    if error is None:
        return
    try:
        text = explain_no_gradients(error)
    except Exception as err:  # an explanation never breaks the notebook
        text = f"tapemagic: could not explain the None gradients ({_one_line(err)})."
    if text is not None:
        print(text)
