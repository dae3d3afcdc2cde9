"""``%%tape`` and ``%tape``: run a notebook cell inside a gradient tape.

``%%tape`` runs its cell exactly as the body of
``with tf.GradientTape(...) as tape:``, binds ``tape`` in the user namespace,
optionally computes gradients itself (``--target`` / ``--sources``), and shows
what the tape recorded. ``%tape [name]`` shows a tape again.

This module holds the options and the display: how a cell runs is
:mod:`tapemagic.cell`, and what later cells are told is :mod:`tapemagic.later`.

Load it with ``%load_ext tapemagic``, or without any ``%load_ext`` through
IPython's ``lazy_magics``::

    c.MagicsManager.lazy_magics = {"tape": "tapemagic"}
"""

from __future__ import annotations

import sys
from typing import Any

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

from .cell import one_line, run_cell
from .engine.tape import GradientTape
from .engines import is_tape, tensorflow_engine
from .graph.catalogue import explain_code
from .later import explain_every_tape, explain_later_cells, explain_no_gradients
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
    @argument("--name", default="tape",
              help="The name the tape is bound to in the user namespace "
              "(default: tape).")  # fmt: skip
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
    @argument("--out", default="grads",
              help="The name the gradients are bound to (default: grads).")  # fmt: skip
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
    @argument("--quiet", action="store_true",
              help="Record and bind, but display nothing.")  # fmt: skip
    @argument(
        "--show",
        choices=("graph", "text", "none"),
        default="graph",
        help="What the cell displays: the graph (default), the text summary, or "
        "nothing.",
    )
    def tape(self, line: str, cell: str) -> None:
        """Run the cell inside a ``tf.GradientTape`` and show what it recorded.

        The cell runs exactly as the body of ``with tf.GradientTape(...) as
        tape:``, in the user namespace (magics and ``!`` lines work; the last
        expression is displayed). The tape is bound to ``tape`` (``--name``),
        even when the cell raised; ``--target`` and ``--sources`` compute the
        gradients and bind them to ``grads`` (``--out``). Line 1 is the
        ``%%tape`` line, which must be the cell's first (anywhere else IPython
        reports "Line magic function `%%tape` not found"). Options are Python
        expressions, taken as written (no ``$name`` or ``{expr}`` expansion);
        quote one that contains spaces: ``--sources "{'w': w, 'b': b}"``.

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
    @argument(
        "--explain", nargs="?", const="", metavar="CODE",
        help="Print a cause code's page (e.g. TM003); alone, list every code.",
    )  # fmt: skip
    def tape_line(self, line: str) -> TapeView | None:
        """Show a tape again: ``%tape`` (the tape named ``tape``) or ``%tape name``;
        explain every tape's None and NaN gradients: ``%tape --all on|off``; or
        print a cause code's page: ``%tape --explain TM003``."""
        args = parse_argstring(self.tape_line, line)
        if args.explain is not None:
            display(explain_code(args.explain))
            return None
        if args.every is not None:
            explain_every_tape(self.shell, args.every == "on")
            return None
        return show_tape(self.shell, args.name, show=args.show)


def show(tape: Any, name: str | None = None) -> None:
    """Display the view of ``tape``: the widget in a notebook, text elsewhere.

    Args:
        tape: a GradientTape of either engine (best made by ``%%tape`` or with
            ``explain=True``: every op that ran is known, recorded or not).
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
        UsageError: for bad options, or option values that are no tensors.
        Exception: whatever the cell raised, with the cell's traceback.
        The tape is bound all the same, unless an option was malformed.
    """
    __tracebackhide__ = True
    try:
        args = parse_argstring(TapeMagics.tape, line)
    except ValueError as err:  # shlex: an unclosed quote or a trailing backslash
        raise UsageError(
            f"%%tape options {line!r}: {one_line(err).lower()}. Quote an option "
            'that has spaces, e.g. --sources "w, b".'
        ) from None
    if args.quiet:
        args.show = "none"
    tape, gradients = run_cell(shell, args, line, cell)
    return TapeView(tape, args.name, gradients, show=args.show)


# What displayed a GradientTape before loading, per shell; unloading puts it back.
_PREVIOUS_FORMATTERS: dict[int, Any] = {}
# TensorFlow's tape class, named so that registering its display imports nothing.
_TF_TAPE = ("tensorflow.python.eager.backprop", "GradientTape")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext tapemagic``: register ``%%tape``, ``%tape``, what later cells
    are told, and a tape's display: its :class:`~tapemagic.viz.view.TapeView`,
    through IPython's mimebundle formatter (the engine knows nothing of views),
    for TensorFlow's tape by name (loading the extension imports no TensorFlow).
    """
    ipython.register_magics(TapeMagics)
    explain_later_cells(ipython)
    formatter = ipython.display_formatter.mimebundle_formatter
    previous = formatter.for_type(GradientTape, tape_mimebundle)
    if previous is not tape_mimebundle:
        _PREVIOUS_FORMATTERS[id(ipython)] = previous
    formatter.for_type_by_name(*_TF_TAPE, _tensorflow_tape_mimebundle)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what :func:`load_ipython_extension` registered."""
    magics = ipython.magics_manager.magics
    for kind in ("line", "cell"):
        magics[kind].pop("tape", None)
    ipython.magics_manager.registry.pop(TapeMagics.__name__, None)
    explain_later_cells(ipython, on=False)
    formatter = ipython.display_formatter.mimebundle_formatter
    formatter.pop(GradientTape, None)
    formatter.deferred_printers.pop(_TF_TAPE, None)
    if "tensorflow" in sys.modules:
        formatter.pop(sys.modules[_TF_TAPE[0]].GradientTape, None)
    previous = _PREVIOUS_FORMATTERS.pop(id(ipython), None)
    if previous is not None:
        formatter.for_type(GradientTape, previous)


def _tensorflow_tape_mimebundle(tape: Any) -> dict:
    """How IPython shows a ``tf.GradientTape``: its view, as for the engine's."""
    tensorflow_engine()
    return tape_mimebundle(tape)
