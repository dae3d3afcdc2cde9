"""Running a ``%%tape`` cell: compile it, run it inside a tape, bind the results.

The cell body goes through IPython's own input transformations (magics and
``!`` lines inside it still work), and its last expression is displayed as
usual; top-level ``await`` is not supported. It is compiled under the file
name of the notebook cell that holds it, whose cached source becomes the
``%%tape`` line plus the body: line numbers everywhere (tracebacks, the
debugger, the explanation log, the summary) are the cell's own, line 1 being
the ``%%tape`` line.

The cell runs in the user namespace, inside a tape of the engine that ``tf``
names there: real TensorFlow (``import tensorflow as tf``; the cell then runs
in a real ``tf.GradientTape``, heard by :mod:`tapemagic.tf_recorder`) or
tapemagic's own (``import tapemagic.tf as tf``); ``--engine`` chooses one. The
tape is bound to ``--name`` even when the cell raised, and ``--target`` and
``--sources`` give the gradients, bound to ``--out``. The options come parsed
from :mod:`tapemagic.magic`, which displays the result.
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

from .engine.tape import unwatchable
from .engine.tensor import Variable
from .engines import TAPEMAGIC, Engine, choose_engine
from .graph.from_tape import graph_from_tape, view_model
from .graph.log import ExplainLog
from .graph.source import assigned_name, split_commas

__all__ = ["check_options", "last_tape", "make_labeller", "one_line", "run_cell"]

# The tape of the last %%tape cell (held weakly).
_LAST_TAPE: list[Any] = []


def run_cell(shell: Any, args: Any, line: str, cell: str) -> tuple[Any, Any]:
    """Run ``cell`` inside a tape, as ``%%tape line`` says, and bind the results.

    Args:
        shell: the InteractiveShell whose namespace the cell runs in.
        args: the options of ``line``, parsed (``tapemagic.magic.run_tape_cell``
            parses them); they are checked here.
        line: the options as written, for the cell's first line.
        cell: the cell body.

    Returns:
        The tape (bound to ``--name``) and the gradients (bound to ``--out``;
        None without ``--target``).

    Raises:
        UsageError: for options that do not go together (:func:`check_options`),
            or a ``--watch``, ``--target`` or ``--sources`` that does not
            evaluate to tensors (the tape is still bound then).
        Exception: whatever the cell raised, with the cell's traceback and
            notes on what the tape recorded; the tape is bound all the same.
    """
    __tracebackhide__ = True
    check_options(args)
    engine = choose_engine(args.engine, shell.user_ns)
    watch = [
        _evaluate(shell, engine, text, "--watch", before=True)
        for text in split_commas(args.watch or "")
    ]
    header = f"%%tape {line}".rstrip()
    filename, codes = _compile_cell(shell, header, cell)
    log = _cell_log(shell, engine, filename, (header, *cell.splitlines()))
    tape, error = _run_in_tape(shell, engine, log, args, watch, codes)
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
    if args.target is None:
        return tape, None
    try:
        gradients = _gradients(shell, engine, tape, log, args)
    finally:
        # A gradient that a KeyboardInterrupt stopped half-way leaves the
        # log on the listener lists: every later sweep would feed it.
        engine.detach(log)
        log.shown = len(log.requests)  # the cell's view explains them
    shell.user_ns[args.out] = gradients
    return tape, gradients


def check_options(args: Any) -> None:
    """Refuse ``%%tape`` options that do not go together.

    Raises:
        UsageError: for a ``--name`` or ``--out`` that is no Python name,
            ``--target`` without ``--sources`` (or the reverse), or ``--out``
            that would replace the tape.

    Example:
        >>> from types import SimpleNamespace
        >>> options = SimpleNamespace(name="tape", out="tape", target="y", sources="x")
        >>> try:
        ...     check_options(options)
        ... except UsageError as err:
        ...     print(str(err).split(":")[0])
        --name and --out are both 'tape'
    """
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


def last_tape() -> Any:
    """The tape of the last ``%%tape`` cell, if it is still alive (else None)."""
    return _LAST_TAPE[0]() if _LAST_TAPE else None


def _cell_log(
    shell: Any, engine: Engine, filename: str, lines: tuple[str, ...]
) -> ExplainLog:
    """The explanation log of a cell's tape: it quotes the cell's ``lines``,
    labels cells as the notebook does (``In[7]``) and finds the earlier cells'
    assignments."""
    log = ExplainLog(filename, lines=lines, recorder=engine.surface)
    log.label_for = make_labeller(shell)
    log.label = log.label_for(filename)
    log.assignment_of = _assignment_finder(shell)
    return log


def _run_in_tape(
    shell: Any, engine: Engine, log: ExplainLog, args: Any, watch: list, codes: list
) -> tuple[Any, BaseException | None]:
    """Run the compiled cell in the user namespace inside a new tape, bound to
    ``--name`` before and after (even when the cell raised); tell the log
    which tensors the cell bound to which names.

    Returns:
        The tape, and what the cell raised (None if nothing).
    """
    ns = shell.user_ns
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
                log.via = f"--watch {args.watch}"  # the watch events' origin
                try:
                    tape.watch(watch)
                finally:
                    log.via = None
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
    return tape, error


def _explain_failed_calls(tape: Any, name: str, error: BaseException) -> None:
    """Add the diagnosis of a gradient call that failed on its arguments (a
    target that is not a tensor) to the error, under its traceback."""
    for sentence in _failed_call_sentences(tape, name):
        error.add_note(sentence)


def _failed_call_sentences(tape: Any, name: str) -> list[str]:
    """What the diagnosis says of the tape's gradient calls that failed on
    their arguments: each finding's message, fix and cause code."""
    graph, findings = view_model(tape, name=name)
    failed = {r.id for r in graph.gradients if r.error is not None}
    return [str(f) for f in findings if f.request in failed]


def one_line(err: BaseException) -> str:
    """An error's message on one line, as a usage error or a note quotes it.

    Example:
        >>> one_line(ValueError("shapes (2,)\\n  and (3,)"))
        'shapes (2,) and (3,)'
    """
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
            f"{option} {text!r} raised {type(err).__name__}: {one_line(err)}.{hint}"
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
            f"raised {type(err).__name__}: {one_line(err)}"
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


def make_labeller(shell: Any) -> Any:
    """``label(filename)``: the label of the notebook cell compiled under
    ``filename`` (``In[7]``), or None for a file that is no cell."""
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
