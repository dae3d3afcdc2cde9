"""What a tape shows in a notebook or a terminal: its graph model, rendered.

:class:`TapeView` turns a tape into the widget (in a notebook), its static HTML
(for viewers without a kernel) and the text summary (terminals, logs). A tape
is an opaque object here: the view builds the graph model through
:mod:`tapemagic.graph` and renders it with the other viz modules; it never
imports the engine. The ``%%tape`` magic displays a view after each cell, and
``%load_ext tapemagic`` registers it as how IPython displays a GradientTape.
"""

from __future__ import annotations

from typing import Any

from ..graph.diagnosis import diagnose
from ..graph.findings import Finding, Findings
from ..graph.from_tape import view_model
from ..graph.model import Graph
from .text import render_text

__all__ = ["TapeView", "find_problems", "tape_mimebundle"]


class TapeView:
    """What a ``%%tape`` cell shows: its tape's graph model, rendered.

    Attributes:
        tape: the GradientTape.
        name: the user's name for it.
        gradients: what ``--target``/``--sources`` computed (None otherwise).
        show: ``"graph"``, ``"text"`` or ``"none"``.

    Example:
        >>> import tapemagic.tf as tf
        >>> w = tf.Variable(2.0)
        >>> with tf.GradientTape(explain=True) as tape:
        ...     y = w * w
        >>> print(TapeView(tape, "tape", show="text").text().splitlines()[1])
        Ops: 1 recorded on the tape, of 1 that ran.
    """

    def __init__(self, tape: Any, name: str | None = None,
                 gradients: Any = None, show: str = "graph") -> None:  # fmt: skip
        self.tape = tape
        self.name = name
        self.gradients = gradients
        self.show = show

    def model(self) -> tuple[Graph, Findings]:
        """The graph model and its findings, for the tape as it is now (see
        :func:`tapemagic.graph.from_tape.view_model`: computed once per state
        of the tape, whichever view asks)."""
        name = self.name if self.name is not None else _name_in_user_ns(self.tape)
        return view_model(self.tape, name=name)

    @property
    def graph(self) -> Graph:
        """The graph model, built from the tape as it is now."""
        return self.model()[0]

    def text(self) -> str:
        """The plain-text summary."""
        return render_text(*self.model())

    def widget(self) -> Any:
        """The ipywidgets view (a :class:`tapemagic.viz.widget.TapeWidget`)."""
        from .widget import TapeWidget

        return TapeWidget(*self.model())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        # Showing a tape never breaks a cell: a failing renderer falls back to
        # the text view, a failing text view to the tape's repr, with one line
        # saying why.
        if self.show == "none":
            return {}
        try:
            graph, findings = self.model()
            text = render_text(graph, findings)
        except Exception as err:
            note = _view_failed(err, "the view of this tape", "the tape's repr")
            return {"text/plain": f"{note}\n{self.tape!r}"}
        if self.show == "text" or not _rich_frontend():
            return {"text/plain": text}
        try:
            return _rich_bundle(graph, findings, text)
        except Exception as err:
            note = _view_failed(err, "the graph view", "the text view")
            return {"text/plain": f"{note}\n{text}"}

    def __repr__(self) -> str:
        return self.text()


def _rich_bundle(graph: Graph, findings: Findings, text: str) -> dict:
    """The widget, its static HTML and the text, for a notebook."""
    from .page import static_html
    from .widget import TapeWidget

    widget = TapeWidget(graph, findings)
    bundle = dict(widget._repr_mimebundle_() or {})
    # Viewers without a kernel (nbconvert, GitHub) show the static HTML: the
    # same SVG and tables; terminals and logs get the text.
    bundle["text/html"] = static_html(graph, findings, widget.graph_part)
    bundle["text/plain"] = text
    return bundle


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


def _view_failed(err: Exception, what: str, instead: str) -> str:
    """The one line that says a view failed and what is shown instead."""
    reason = f"{type(err).__name__}: {_one_line(err)}"
    reason = reason if len(reason) <= 200 else reason[:197] + "..."
    if isinstance(err, ImportError):
        return (
            f"tapemagic: {what} needs ipywidgets and graphviz ({reason}); "
            f"pip install ipywidgets graphviz. Here is {instead}."
        )
    return f"tapemagic: {what} failed ({reason}); here is {instead}."


def find_problems(graph: Graph) -> tuple[Finding, ...]:
    """The diagnosis's findings for a graph model built elsewhere (a view of a
    tape asks :func:`~tapemagic.graph.from_tape.view_model` instead, which
    keeps them with the tape).

    Example:
        >>> from tapemagic.graph.model import Cell, TapeInfo
        >>> tape = TapeInfo("t", False, True, "new", True)
        >>> find_problems(Graph(tape, Cell(None, None)))
        ()
    """
    return tuple(diagnose(graph))


def tape_mimebundle(tape: Any) -> dict:
    """How IPython shows a tape at the end of a cell: its :class:`TapeView`.

    ``%load_ext tapemagic`` registers this with IPython's mimebundle formatter
    for GradientTape.

    Args:
        tape: a GradientTape.

    Returns:
        The MIME bundle (the widget, its static HTML and the text summary in a
        notebook; the text in a terminal).

    Example:
        >>> import tapemagic.tf as tf
        >>> w = tf.Variable(2.0)
        >>> with tf.GradientTape(explain=True) as tape:
        ...     y = w * w
        >>> print(tape_mimebundle(tape)["text/plain"].splitlines()[1])
        Ops: 1 recorded on the tape, of 1 that ran.
    """
    return TapeView(tape)._repr_mimebundle_()


def _rich_frontend() -> bool:
    """Whether the frontend shows HTML (a notebook), not only text (a terminal)."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return True
    return "text/html" in shell.display_formatter.active_types


def _name_in_user_ns(tape: Any) -> str | None:
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return None
    return next(
        (
            key
            for key, value in shell.user_ns.items()
            if value is tape and not key.startswith("_")
        ),
        None,
    )
