"""The names a user knows values by, and how an op or a line reads in a sentence.

A finding names values as the user does: the names that held a value after
the cell ran, the expressions the ``gradient(...)`` call wrote, the name a line
assigns, else a description (``the result of exp at line 3``). :class:`Names`
answers that for one graph; the causes' words (:mod:`tapemagic.graph.words`)
and the shared reasoning (:mod:`tapemagic.graph.facts`) both ask it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from .cause import Query
from .index import GraphIndex
from .model import GradientRequest, Graph, OpNode, Value
from .source import assigned_name, gradient_call, option_call

__all__ = ["COMPARISONS", "Names", "at_line", "op_words"]

# Comparison ops as the user wrote them.
COMPARISONS = {
    "equal": "==",
    "not_equal": "!=",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
}

# The longest code quoted in a sentence.
_CODE_SHOWN = 60


class Names:
    """The names a user knows values by: the names that held a value after the
    cell ran, how the ``gradient(...)`` call spelled it, the name its line
    assigns, else a description ("the result of exp at line 3")."""

    def __init__(self, graph: Graph, index: GraphIndex) -> None:
        self.graph = graph
        self.index = index
        self.values = index.values
        self._assigned: dict[int, str | None] = {}
        self._next_line: dict[str, int | None] | None = None
        self._calls: dict[tuple, tuple | None] = {}

    def of(self, value_id: str, q: Query | None = None) -> str:
        """What to call a value in a finding about ``q`` (if given)."""
        request = q.request if q is not None else None
        if request is not None and value_id == q.source:
            return self.sources_of(q)[q.index]
        return self._base(value_id, q)

    def sources_of(self, q: Query) -> list[str]:
        """The names of every source of ``q``'s request, in order; two sources
        that would share a name get the expression the call wrote (``params[1]``),
        else their full path or place, so no two are called alike."""
        request = q.request
        key = ("sources", request.id)
        if key not in self._calls:
            names = []
            for index, source in enumerate(request.sources):
                if source is None:
                    names.append(f"source {index + 1}")
                    continue
                one = Query(source, q.targets, q.tape, q.before, request, None, index)
                names.append(self._base(source, one))
            self._calls[key] = self._distinct(request, names)
        return self._calls[key]

    def _distinct(self, request: GradientRequest, names: list[str]) -> list[str]:
        counts = Counter(names)
        if all(counts[n] == 1 for n in names):
            return names
        out = []
        for index, name in enumerate(names):
            if counts[name] == 1:
                out.append(name)
                continue
            source = request.sources[index]
            value = self.values[source] if source is not None else None
            placed = self._placed(request, index)
            if placed is not None and placed not in names:
                out.append(placed)
            elif value is not None and value.path and value.path != name:
                out.append(value.path)
            else:
                out.append(f"{name} (source {index + 1})")
        return out

    def _base(self, value_id: str, q: Query | None) -> str:
        value = self.values[value_id]
        if value.names:
            return value.names[0]
        request = q.request if q is not None else None
        if request is not None:
            written = self.written(q, value_id)
            if written is not None:
                return written
        if value.path:
            # A Keras weight: its layer and name, "dense_1/kernel".
            return "/".join(value.path.split("/")[-2:])
        if request is not None and value_id == q.source:
            # The expression written (params[0]) before the variable's own
            # name: that name may now be the user's for another value.
            placed = self._placed(request, q.index)
            if placed is not None:
                return placed
        if value.variable is not None and not _anonymous(value.variable):
            return value.variable.split(":")[0]
        op = self.index.producer(value_id)
        if op is not None:
            name = self.assigned_name(op)
            if name is not None:
                return name
        if q is not None and value_id == q.source:
            if request is None or len(request.sources) == 1:
                return "the source"
            return f"the source {q.index + 1} of {len(request.sources)}"
        if op is not None:
            made = op_words(self.values, op)
            return f"the result of {made} {at_line(op.line)}".rstrip()
        if q is not None and value_id in q.targets:
            return "the target"
        if value.origin == "variable":
            return "a tf.Variable"
        if value.origin == "numpy":
            return "a NumPy array"
        if value.origin == "python":
            return f"a Python {value.python_type or 'value'}"
        if value.origin == "constant":
            return "a constant"
        return "a tensor"

    def _placed(self, request: GradientRequest, index: int) -> str | None:
        """``params[1]``: the sources' expression as the call wrote it, and the
        place of source ``index`` in the structure it gave."""
        parsed = self._parsed(request)
        paths = request.source_paths
        if parsed is None or index >= len(paths) or not paths[index]:
            return None
        _, sources = parsed
        if len(sources) != 1:
            return None
        (whole,) = sources
        if not _simple(whole):
            whole = f"({whole})"
        return f"{whole}{paths[index]}"

    def written(self, q: Query, value_id: str) -> str | None:
        """How the ``gradient(...)`` call spelled the target or this source."""
        request = q.request
        parsed = self._parsed(request)
        if parsed is None:
            return None
        targets, sources = parsed
        if value_id == q.source and len(sources) == len(request.sources):
            return sources[q.index]
        if value_id in request.targets and len(targets) == len(request.targets):
            return targets[request.targets.index(value_id)]
        return None

    def written_target(self, q: Query) -> str | None:
        """How the ``gradient(...)`` call spelled its target, whole."""
        parsed = self._parsed(q.request)
        if parsed is None:
            return None
        targets, _ = parsed
        return targets[0] if len(targets) == 1 else f"[{', '.join(targets)}]"

    def _parsed(self, request: GradientRequest) -> tuple | None:
        key = (request.via, request.here, request.line, request.code)
        if key not in self._calls:
            self._calls[key] = self._call_texts(request)
        return self._calls[key]

    def _call_texts(self, request: GradientRequest) -> tuple | None:
        if request.via is not None:
            call = option_call(request.via)
        elif request.here:
            code = self.graph.cell.line(request.line)
            call = gradient_call(code, request.kind)
        elif request.code is not None:
            call = gradient_call(request.code, request.kind)
        else:
            return None
        if call is None:
            return None
        return call.targets, call.source_list

    def assigned_name(self, op: OpNode) -> str | None:
        """``name`` when the op is the last one on a line ``name = ...``."""
        if op.line is None or op.during is not None:
            return None
        if self._next_line is None:
            lines = [o.line for o in self.index.forward_ops]
            self._next_line = {
                o.id: lines[i + 1] if i + 1 < len(lines) else None
                for i, o in enumerate(self.index.forward_ops)
            }
        if self._next_line.get(op.id) == op.line:
            return None
        if op.line not in self._assigned:
            self._assigned[op.line] = assigned_name(self.graph.cell.line(op.line))
        return self._assigned[op.line]


def _anonymous(variable: str) -> bool:
    """Whether a variable's name is the default TensorFlow gives one made
    without a name (``Variable:0``, ``outer/Variable_1:0``)."""
    last = variable.split(":")[0].rsplit("/", 1)[-1]
    return last == "Variable" or (
        last.startswith("Variable_") and last[len("Variable_") :].isdigit()
    )


def _simple(text: str) -> bool:
    """Whether an expression can take ``[i]`` as written (a name, attribute,
    call or subscript)."""
    return all(ch.isalnum() or ch in "_.()[]'\"" for ch in text)


def at_line(line: int | None, code: str | None = None) -> str:
    """``at line 3 (y = c * c)``: a line number and its code, clipped.

    Example:
        >>> at_line(3, "y = c * c"), at_line(3), at_line(None)
        ('at line 3 (y = c * c)', 'at line 3', '')
    """
    if line is None:
        return ""
    if not code:
        return f"at line {line}"
    if len(code) > _CODE_SHOWN:
        code = code[: _CODE_SHOWN - 3] + "..."
    return f"at line {line} ({code})"


def op_words(values: Mapping[str, Value], op: OpNode) -> str:
    """An op as a student reads it, given the graph's values by id.

    Example:
        >>> from tapemagic.graph.model import OpNode
        >>> op_words({}, OpNode("op1", 1, "greater", ("t1", "t2"), ("t3",), False,
        ...                     False, 2, "recording"))
        'the comparison >'
    """
    name = op.op
    if name == "cast":
        before = values[op.inputs[0]].dtype
        after = values[op.outputs[0]].dtype
        return f"cast({before} -> {after})"
    if name in COMPARISONS:
        return f"the comparison {COMPARISONS[name]}"
    if name.startswith("custom_gradient/"):
        return name.split("/", 1)[1]
    if name in ("where", "stop_gradient"):
        return f"tf.{name}"
    if name == "argsort" and dict(op.params).get("k", "-1") != "-1":
        return "tf.math.top_k"  # its indices
    return name
