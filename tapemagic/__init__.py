"""tapemagic: see what a gradient tape recorded, and why a gradient is None.

``import tapemagic.tf as tf`` gives a TensorFlow-compatible API on a NumPy engine;
``%load_ext tapemagic`` adds the ``%%tape`` cell magic; ``tapemagic.show(tape)``
draws any tape.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = [
    "__version__",
    "assert_no_none_gradients",
    "load_ipython_extension",
    "show",
    "unload_ipython_extension",
]


def assert_no_none_gradients(
    tape: Any, target: Any = None, sources: Any = None
) -> None:
    """Raise ``AssertionError`` saying why, if a gradient of ``tape`` is None.

    For autograded exercises: the error lists each cause with its fix (see
    ``tapemagic.graph.diagnosis.assert_no_none_gradients``).

    Args:
        tape: a ``%%tape`` cell's tape, a ``GradientTape(explain=True)``, or a
            graph model.
        target, sources: what to check; None checks every gradient asked so far.

    Raises:
        AssertionError: listing the findings, when a gradient is (or would be)
            None.

    Example:
        >>> import tapemagic.tf as tf
        >>> w, c = tf.Variable(2.0), tf.constant(3.0)
        >>> with tf.GradientTape(explain=True) as tape:
        ...     y = w * c
        >>> assert_no_none_gradients(tape, y, w)
        >>> try:
        ...     assert_no_none_gradients(tape, y, c)
        ... except AssertionError as err:
        ...     print(str(err).splitlines()[0])
        1 gradient is None:
    """
    from .graph.diagnosis import assert_no_none_gradients as check

    check(tape, target, sources)


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%tape`` and ``%tape`` (IPython calls this on ``%load_ext``)."""
    from .magic import load_ipython_extension as load

    load(ipython)


def show(tape: Any, name: str | None = None) -> None:
    """Display what ``tape`` recorded: graph, sources, gradients (a widget in
    JupyterLab, Notebook 7 and VS Code; text in a terminal).

    Args:
        tape: a GradientTape.
        name: how to call it in the view (default: its name in the notebook).
    """
    from .magic import show as show_view

    show_view(tape, name)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what ``load_ipython_extension`` registered."""
    from .magic import unload_ipython_extension as unload

    unload(ipython)


# The engine never imports the graph package: GradientTape(explain=True) and
# tape.explain() ask through registration hooks, filled with these loaders, and
# the graph package loads on first use. The root imports nothing here (importing
# tapemagic.graph.diagnosis must not load the engine): engine/tape.py hands its
# module to _register_engine_hooks when it is first imported.
def _explain_log() -> Any:
    """What ``GradientTape(explain=True)`` listens with: a new ExplainLog."""
    from .graph.log import ExplainLog

    return ExplainLog()


def _explain_tape(tape: Any, target: Any, sources: Any) -> Any:
    """What ``tape.explain(target, sources)`` returns: the tape's findings."""
    from .graph.from_tape import explain_tape

    return explain_tape(tape, target, sources)


def _register_engine_hooks(tape_module: Any) -> None:
    """Fill the engine's registration hooks with the loaders above."""
    tape_module.set_explain_factory(_explain_log)
    tape_module.set_diagnosis(_explain_tape)
