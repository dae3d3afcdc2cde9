"""tapemagic: see what a gradient tape recorded, and why a gradient is None.

``import tapemagic.tf as tf`` gives a TensorFlow-compatible API on a NumPy engine;
``%load_ext tapemagic`` adds the ``%%tape`` cell magic, which runs on that
engine or on real TensorFlow (``import tensorflow as tf``);
``tapemagic.show(tape)`` draws any tape, ``tapemagic.explain(tape)`` says why its
gradients are None. Importing tapemagic imports neither TensorFlow nor IPython.
"""

from __future__ import annotations

from typing import Any

from .hooks import set_diagnosis as _set_diagnosis
from .hooks import set_explain_factory as _set_explain_factory

__version__ = "0.1.0"
__all__ = [
    "__version__",
    "assert_no_none_gradients",
    "explain",
    "explain_code",
    "load_ipython_extension",
    "show",
    "unload_ipython_extension",
]


def assert_no_none_gradients(
    tape: Any, target: Any = None, sources: Any = None
) -> None:
    """Raise ``AssertionError`` saying why, if a gradient of ``tape`` is None.

    For autograded exercises: the error lists each cause with its fix (see
    ``tapemagic.graph.from_tape.assert_no_none_gradients``).

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
    from .graph.from_tape import assert_no_none_gradients as check

    _make_readable(tape)
    check(tape, target, sources)


def explain(tape: Any, target: Any = None, sources: Any = None) -> Any:
    """Why gradients of ``tape`` are None: cause, cell line and fix of each.

    Args:
        tape: a ``%%tape`` cell's tape, on tapemagic's engine or on TensorFlow,
            or a ``GradientTape(explain=True)``.
        target, sources: tensors or variables (nested structures allowed), user
            names, or None for every gradient asked so far; a pair not asked yet
            is predicted.

    Returns:
        The findings (a ``tapemagic.graph.findings.Findings``; empty when no
        gradient is None).

    Raises:
        ValueError: if the tape keeps no explanation log.

    Example:
        >>> import tapemagic.tf as tf
        >>> c = tf.constant(3.0)
        >>> with tf.GradientTape(explain=True) as tape:
        ...     y = c * c
        >>> found = explain(tape, y, c)
        >>> print(found[0].cause, found[0].cause_code)
        not_watched TM020
    """
    from .graph.from_tape import explain_tape

    _make_readable(tape)
    return explain_tape(tape, target, sources)


def explain_code(code: str | None = None) -> Any:
    """The page of a cause code (``"TM003"``): what you see, why, an example on
    each engine, the fix; with no code, every code and its one-line meaning.
    ``%tape --explain TM003`` shows the same.

    Args:
        code: a finding's ``cause_code``, e.g. ``"TM003"``.

    Returns:
        The page (Markdown in a notebook, text in a terminal), or the list.

    Raises:
        ValueError: if no cause has ``code``.

    Example:
        >>> print(explain_code("TM020").markdown.splitlines()[0])
        # TM020: a constant (or other tensor) that the tape never watched
    """
    from .graph.catalogue import explain_code as page

    return page(code)


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


def _make_readable(tape: Any) -> None:
    """Let the graph package read a TensorFlow tape (its recorder loads then)."""
    if any(cls.__module__.startswith("tensorflow.") for cls in type(tape).__mro__):
        from .graph.recorders import register
        from .tf_recorder import load

        register(load().SURFACE)


# The engine never imports the graph package: GradientTape(explain=True) and
# tape.explain() ask through the slots of tapemagic.hooks, filled here with
# these loaders, and the graph package loads on first use. The root imports
# only that module, which imports nothing (importing tapemagic.graph.diagnosis
# must not load the engine); every engine module runs after this one.
def _explain_log() -> Any:
    """What ``GradientTape(explain=True)`` listens with: a new ExplainLog."""
    from .graph.log import ExplainLog

    return ExplainLog()


def _explain_tape(tape: Any, target: Any, sources: Any) -> Any:
    """What ``tape.explain(target, sources)`` returns: the tape's findings."""
    from .graph.from_tape import explain_tape

    _make_readable(tape)  # a TensorFlow tape's RecordingTape.explain comes here
    return explain_tape(tape, target, sources)


_set_explain_factory(_explain_log)
_set_diagnosis(_explain_tape)
