"""The words of a finding: names the user knows, and the pieces of its sentences.

Messages name values as the user does (their names after the cell ran, the
expressions in the ``gradient(...)`` call, the name a line assigns) and quote
the cell line where the path broke. Each cause's own sentences are declared
with the cause (:mod:`tapemagic.graph.causes`); :class:`Words` holds what they
share.
"""

from __future__ import annotations

import ast

from .cause import REGISTRY, Break, Query
from .facts import Facts
from .model import OpNode
from .names import at_line, op_words

__all__ = ["Words"]


class Words:
    """The two sentences of one finding: what happened, and what to do.

    ``source`` and ``target`` are the names the finding uses, ``head`` starts
    its message (``"b: None because"``); the cause's declared words give the
    rest (see :func:`~tapemagic.graph.cause.declare_cause`).
    """

    def __init__(self, facts: Facts, q: Query) -> None:
        self.facts = facts
        self.q = q
        names = facts.names
        self.source = names.of(q.source, q)
        self.target = " and ".join(dict.fromkeys(names.of(y, q) for y in q.targets))
        if not self.target and q.request is not None:
            # Targets that are not tensors: as the call spelled them.
            self.target = names.written_target(q) or ""
        result = q.result
        if result is None:
            self.head = f"{self.source}: would be None because"
        elif result.none:
            self.head = f"{self.source}: None because"
        elif result.nan or result.inf:
            holds = " and ".join(
                word
                for word, flag in (("NaN", result.nan), ("Inf", result.inf))
                if flag
            )
            self.head = f"{self.source}: the gradient holds {holds} because"
        elif q.request.unconnected == "zero":
            self.head = (
                f"{self.source}: zeros that stand for None "
                "(unconnected_gradients=ZERO) because"
            )
        else:
            self.head = (
                f"{self.source}: zeros that stand for None (batch_jacobian gives "
                "zeros where the gradient is None) because"
            )

    def sentences(self, b: Break) -> tuple[str, str]:
        """The finding's message and fix: the head, then the cause's own words
        (a cause declared without a head words its message itself)."""
        declared = REGISTRY[b.cause]
        cause, fix = declared.words(self, b)
        if not declared.headed:
            return f"{cause}.", f"{fix}."
        head = self.head
        if declared.severity == "note":
            head = f"{self.source}: the gradient is all zeros because"
        return f"{head} {cause}.", f"{fix}."

    # -- pieces the causes' words use ----------------------------------------------
    def at(self, line: int | None) -> str:
        """``at line 3 (y = c * c)``, quoting the cell line."""
        return at_line(line, self.facts.line_text(line))

    def name(self, value_id: str) -> str:
        """What the user calls a value (see :class:`~tapemagic.graph.names.Names`)."""
        return self.facts.names.of(value_id, self.q)

    def watch_call(self) -> str:
        """The ``tape.watch(...)`` call that watches the source.

        A Keras weight is watched through the ``tf.Variable`` behind it:
        ``tape.watch(layer.kernel.value)`` (``tape.watch`` refuses the weight
        itself, as TensorFlow's does); one known by its path only
        (``dense_1/kernel``) is spelled from its layer.
        """
        s = self.source
        path = self.facts.values[self.q.source].path
        if path is None:
            return f"tape.watch({s})"
        if _is_expression(s):
            return f"tape.watch({s}.value)"
        layer, _, weight = path.rpartition("/")
        layer = layer.rsplit("/", 1)[-1] or "its layer"
        return f"tape.watch(layer.{weight}.value), with layer being {layer}"

    # -- pieces ------------------------------------------------------------------
    def op(self, op: OpNode | None) -> str:
        """An op as a student reads it: ``cast(float32 -> int32)``, ``tf.where``."""
        return "an op" if op is None else op_words(self.facts.values, op)

    def tape_name(self) -> str:
        """The explained tape, by the user's name for it."""
        name = self.facts.graph.tape.name
        magic = (self.facts.graph.cell.line(1) or "").lstrip().startswith("%%tape")
        if name and magic:
            return f"{name}, the tape of the %%tape cell"
        if name:
            return name
        return "the tape of the %%tape cell" if magic else "the explained tape"

    def tape_call(self) -> str:
        """The gradient call to make on the explained tape."""
        name = self.facts.graph.tape.name or "tape"
        return f"{name}.gradient({self.target}, {self.source})"

    def request_place(self) -> str:
        """Where the gradient was asked: `` at line 4 (...)``, or ``""``."""
        request = self.q.request
        if request is None or request.line is None:
            return ""
        if request.here:
            return f" {self.at(request.line)}"
        where = f" in {request.where}" if request.where else ""
        return f"{where} at line {request.line}"


def _is_expression(text: str) -> bool:
    """Whether ``text`` names a value in code (``w``, ``layer.kernel``,
    ``params[0]``), not a path such as ``dense_1/kernel``."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name)
