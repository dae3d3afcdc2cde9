"""After a cell: why a gradient it asked of an explained tape is None or NaN.

Two ``post_run_cell`` callbacks (:func:`explain_later_cells`): one displays, under any
cell, the findings of the gradient requests it made of a tape that keeps a
live explanation log (a ``%%tape`` cell's tape, ``explain=True``, or every
tape after ``%tape --all on``); the other explains "No gradients provided for
any variable" from the last ``%%tape`` tape when a cell raised it.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from .cell import last_tape, make_labeller, one_line
from .engine.tape import set_explain_default, set_explain_factory
from .engines import TAPEMAGIC, choose_engine
from .graph.findings import Findings
from .graph.from_tape import explain_tape, unseen_findings
from .graph.log import ExplainLog

__all__ = [
    "explain_every_tape",
    "explain_later_cells",
    "explain_no_gradients",
]

# The post_run_cell callback each shell runs, to unregister it on unloading.
_LATER_CELLS: dict[int, Any] = {}
# The log factory that `%tape --all on` replaced, put back by `%tape --all off`.
_REPLACED_FACTORY: list[Any] = []


def explain_later_cells(shell: Any, on: bool = True) -> None:
    """Whether ``shell`` explains, under every cell it runs, the None and NaN
    gradients the cell asked of an explained tape, and "No gradients provided
    for any variable" (``%load_ext tapemagic`` turns it on; unloading turns it
    off, and ``%tape --all`` with it)."""
    callbacks = shell.events.callbacks["post_run_cell"]
    if on:
        if id(shell) not in _LATER_CELLS:
            _LATER_CELLS[id(shell)] = _explain_later_cells(shell)
            shell.events.register("post_run_cell", _LATER_CELLS[id(shell)])
        if _explain_after_cell not in callbacks:
            shell.events.register("post_run_cell", _explain_after_cell)
        return
    later = _LATER_CELLS.pop(id(shell), None)
    if later is not None:
        shell.events.unregister("post_run_cell", later)
    explain_every_tape(shell, False)
    if _explain_after_cell in callbacks:
        shell.events.unregister("post_run_cell", _explain_after_cell)


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

    Raises:
        UsageError: for ``on`` where ``tf`` is real TensorFlow, whose tapes it
            cannot make keep a log (a ``%%tape`` cell's tape does).
    """
    if on and choose_engine(None, shell.user_ns) is not TAPEMAGIC:
        raise UsageError(
            "%tape --all on explains the tapes of tapemagic's engine, and `tf` is "
            "real TensorFlow here: its tf.GradientTape keeps no explanation log. "
            "Run the cell with %%tape instead (its tape explains itself: "
            "tape.explain()), or use import tapemagic.tf as tf."
        )
    if on:
        label_for = make_labeller(shell)

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
        tape = last_tape()
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
    lines = "\n".join(f"- {f}" for f in errors)
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
        text = f"tapemagic: could not explain the None gradients ({one_line(err)})."
    if text is not None:
        print(text)
