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
        >>> import tapemagic.graph.log  # makes GradientTape(explain=True) work
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
    from .graph import log  # noqa: F401  (registers tape.explain)
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
