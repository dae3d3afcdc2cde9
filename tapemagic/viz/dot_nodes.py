"""The nodes of a drawing: what each value, op, gradient call and line says.

:class:`NodeWriter` writes the nodes a :class:`~tapemagic.viz.dot_plan.ViewPlan`
chose into a ``graphviz.Digraph``: a value (source, target or unwatched
input), an op, a gradient computed inside the tape, a cell line's group of
ops, a group of sources, and the count of what is not drawn. Each node's
label, colours and CSS classes come from the plan and
:mod:`tapemagic.viz.dot_markup`; the edges between them are
:mod:`tapemagic.viz.dot`'s.
"""

from __future__ import annotations

from collections import Counter

import graphviz

from ..graph.model import Graph, OpNode, Value
from ..graph.source import gradient_call
from .dot_markup import (
    STYLE,
    TEXT_BREAK,
    TEXT_OK,
    TEXT_WARN,
    clip,
    count_phrase,
    describe_call_unrecorded,
    describe_leaf,
    describe_unrecorded,
    describe_watch,
    escape_label,
    escape_plain,
    fit_code,
    format_norm,
    has_error,
    write_bold,
    write_code,
    write_finding_lines,
    write_italic,
    write_label,
    write_small,
)
from .dot_plan import ViewPlan
from .labels import shape_text

__all__ = ["NodeWriter"]


class NodeWriter:
    """Writes the nodes of one view into its Digraph.

    Attributes:
        names: the DOT names of the nodes written, in order.
        classes: the CSS classes they carry (the legend shows those).
    """

    def __init__(self, graph: Graph, plan: ViewPlan, dot: graphviz.Digraph) -> None:
        self.graph = graph
        self.plan = plan
        self.dot = dot
        self.names: list[str] = []
        self.classes: set[str] = set()

    def source_group(self, name: str, members: list[str]) -> None:
        source = self.plan.source_of[members[0]]
        names = [self.plan.index.name_of(v) for v in members]
        shown = ", ".join(names[:2]) + (", …" if len(names) > 2 else "")
        kind = "variables" if source.kind == "variable" else "tensors"
        value = self.plan.values[members[0]]
        lines = [
            write_bold(shown),
            write_small(
                f"{len(members):,} {kind}, e.g. {shape_text(value.shape)} {value.dtype}"
            ),
            write_small(
                describe_watch(
                    source.how, source.watched, source.line, None, source.via
                )
            ),
        ]
        if self.plan.request is not None and members[0] in self.plan.request.sources:
            lines.append(write_small("∂ ok for all", TEXT_OK))
        attrs = dict(STYLE["source" if source.watched else "unwatched_source"])
        css = "tm-source tm-source-group " + (
            "tm-watched" if source.watched else "tm-unwatched"
        )
        reached = [v for v in members if v in self.plan.reached]
        if self.plan.current in members:
            attrs.update(STYLE["step_current"])
        elif reached:
            attrs.update(STYLE["step_reached"])
        if reached:
            css += " tm-reached"
        self._add(name, write_label(lines), attrs, css, f"{len(members)} {kind}")

    def _add(
        self, name: str, label: str, attrs: dict[str, str], css: str, *tooltip: str
    ) -> None:
        self.names.append(name)
        self.classes.update(css.split())
        attrs = fit_code(label, attrs)  # a cell line inside the node's border
        self.dot.node(
            name,
            label=label,
            # Lines joined by DOT's \n escape; each part escaped on its own.
            tooltip=graphviz.nohtml(r"\n".join(escape_plain(t) for t in tooltip)),
            **{"class": css},
            **attrs,
        )

    def value(self, value: Value) -> None:
        v = value.id
        if v in self.names:
            return
        name = self.plan.index.name_of(v)
        source = self.plan.source_of.get(v)
        lines = []
        if v in self.plan.targets_drawn and v not in self.plan.sources_drawn:
            role, css = "target", "tm-target"
            # Picked in the view, though another tape's gradient asked for it.
            what = "inner target" if v in self.plan.inner_targets else "target"
            lines.append(write_bold(name))
            lines.append(
                write_small(f"{shape_text(value.shape)} {value.dtype} · {what}")
            )
        elif source is not None and v in self.plan.sources_drawn:
            role = "source" if source.watched else "unwatched_source"
            css = "tm-source " + ("tm-watched" if source.watched else "tm-unwatched")
            kind = "variable" if source.kind == "variable" else "tensor"
            lines.append(write_bold(name))
            lines.append(
                write_small(f"{shape_text(value.shape)} {value.dtype} · {kind}")
            )
            lines.append(
                write_small(
                    describe_watch(
                        source.how,
                        source.watched,
                        source.line,
                        value.trainable,
                        source.via,
                    )
                )
            )
        else:
            role, css = "input", "tm-input"
            if value.names or value.variable:
                lines.append(write_bold(name))
            else:
                lines.append(write_italic(describe_leaf(value, self.plan.all_ops)))
            lines.append(write_small(f"{shape_text(value.shape)} {value.dtype}"))
        attrs = dict(STYLE[role])
        status = self._source_status(v)
        if status is not None:
            text, colour = status
            lines.append(write_small(text, colour))
            if colour == TEXT_BREAK:
                attrs.update(STYLE["none_source"])
        found = self.plan.source_findings(v)
        if found:
            attrs.update(STYLE["break" if has_error(found) else "warning"])
            lines.extend(write_finding_lines(found))
            css += " tm-break"
        self._step_style(v, attrs)
        if v in self.plan.reached:
            css += " tm-reached"
        tooltip = [f"{f.cause_code}: {f.message}" for f in found]
        self._add(v, write_label(lines), attrs, css, f"{name}: {value.dtype}", *tooltip)

    def _source_status(self, v: str) -> tuple[str, str] | None:
        status = self.plan.source_gradient(v)
        if status is None:
            return None
        gv = self.plan.gvalues.get(v)
        if status == "None":
            return "∂ None", TEXT_BREAK
        if status == "NaN":
            return "∂ has NaN/inf", TEXT_WARN
        if status == "zero":
            return "∂ = 0", TEXT_WARN
        norm = f", norm {format_norm(gv.norm)}" if gv is not None else ""
        return f"∂ ok{norm}", TEXT_OK

    def op(self, op: OpNode) -> None:
        lines = []
        out = op.outputs[0] if op.outputs else None
        named = [
            self.plan.index.name_of(o) for o in op.outputs if self.plan.values[o].names
        ]
        head = write_bold(op.op)
        if named:
            head = escape_label(clip(", ".join(named), 24)) + " = " + head
        lines.append(head)
        if len(op.outputs) == 1 and out is not None:
            value = self.plan.values[out]
            meta = f"{shape_text(value.shape)} {value.dtype}"
        else:
            meta = f"{len(op.outputs)} outputs"
        if op.line is not None:
            meta += f" · line {op.line}"
        lines.append(write_small(meta))
        if not op.recorded:
            lines.append(write_small(describe_unrecorded(op)))
        role = "op"
        css = "tm-op"
        if op.id in self.plan.path_ops:
            role, css = "op_on_path", "tm-op tm-path"
        if not op.recorded:
            role, css = "unrecorded_op", css + " tm-unrecorded"
        attrs = dict(STYLE[role])
        found = self.plan.by_op_finding.get(op.id, [])
        if found:
            attrs.update(STYLE["break" if has_error(found) else "warning"])
            lines.extend(write_finding_lines(found))
            css += " tm-break"
        self._step_style(op.id, attrs)
        if op.id in self.plan.reached:
            css += " tm-reached"
        code = self.graph.cell.line(op.line)
        tooltip = [f"{op.op} ({op.id})"] + ([code.strip()] if code else [])
        tooltip += [f"{f.cause_code}: {f.message}" for f in found]
        self._add(op.id, write_label(lines), attrs, css, *tooltip)

    def _step_style(self, name: str, attrs: dict[str, str]) -> None:
        if name == self.plan.current:
            attrs.update(STYLE["step_current"])
        elif name in self.plan.reached:
            attrs.update(STYLE["step_reached"])

    def hidden(self, count: int, what: str) -> None:
        label = write_label(
            [write_bold(f"… {count:,} {what}"), write_small("not drawn")]
        )
        self._add(
            "hidden",
            label,
            dict(STYLE["hidden"]),
            "tm-hidden",
            f"{count} {what} not drawn",
        )

    def call_lines(self, ops: list[OpNode]) -> list[str]:
        """``∂y/∂x``, the cell line that asked, and what it gave: shape, dtype,
        line and op count (and how many calls, when a line's are grouped)."""
        calls = list(dict.fromkeys(op.during for op in ops))
        request = self.plan.nested[calls[0]]
        line = ops[0].line
        code = self.graph.cell.line(line)
        asked = None
        if request.here and request.line == line:
            asked = gradient_call(code, request.kind)
        if asked is not None:
            head = f"∂{asked.target}/∂{asked.sources}"
        else:
            names = [self._known_name(v) for v in (*request.targets, *request.sources)]
            if None in names or not request.targets or not request.sources:
                head = f"{request.kind}()"
            else:
                ys = ", ".join(names[: len(request.targets)])
                xs = ", ".join(names[len(request.targets) :])
                head = f"∂{ys}/∂{xs}"
        lines = [write_bold(head)]
        if code:
            lines.append(write_code(clip(code.strip(), 44)))
        results = request.results
        if len(results) == 1 and not results[0].none:
            meta = f"{shape_text(results[0].shape)} {results[0].dtype}"
        else:
            meta = count_phrase(len(request.sources), "gradients")
        if line is not None:
            meta += f" · line {line}"
        if len(calls) > 1:
            meta += f" · {len(calls):,} calls"
        meta += f" · {count_phrase(len(ops), 'ops')}"
        if not request.here and request.where:
            meta += f" · {request.kind}() in {request.where}"
        lines.append(write_small(meta))
        return lines

    def _known_name(self, v: str | None) -> str | None:
        if v is None:
            return None
        value = self.plan.values[v]
        if value.names:
            return value.names[0]
        return value.variable.split(":")[0] if value.variable else None

    def call(self, name: str, ops: list[OpNode], drawn: set[str]) -> int:
        """One node for a gradient computed inside the tape (collapsed by line:
        for its line's gradient calls); returns how many constants it folds in."""
        request = self.plan.nested[ops[0].during]
        lines = self.call_lines(ops)
        folded = {
            v
            for op in ops
            for v in op.inputs
            if self.plan.folded(v, op)
            or (
                self.plan.collapsed
                and v not in self.plan.tail_of
                and self.plan.values[v].op not in drawn
            )
        }
        if folded:
            constants = all(
                self.plan.values[v].origin in ("python", "numpy", "constant")
                for v in folded
            )
            what = "constants" if constants else "unwatched inputs"
            lines.append(write_small(f"+{count_phrase(len(folded), what)}"))
        ids = {op.id for op in ops}
        role, css = "gradient_call", "tm-op tm-call"
        if ids & self.plan.path_ops:
            role, css = "gradient_call_on_path", css + " tm-path"
        attrs = dict(STYLE[role])
        if not any(op.recorded for op in ops):
            lines.append(write_small(describe_call_unrecorded(ops)))
            attrs.update(STYLE["unrecorded_op"])
            css += " tm-unrecorded"
        found = [f for op in ops for f in self.plan.by_op_finding.get(op.id, [])]
        if found:
            attrs.update(STYLE["break" if has_error(found) else "warning"])
            lines.extend(write_finding_lines(found))
            css += " tm-break"
        if self.plan.current in ids:
            attrs.update(STYLE["step_current"])
        elif ids & self.plan.reached:
            attrs.update(STYLE["step_reached"])
        if ids & self.plan.reached:
            css += " tm-reached"
        code = self.graph.cell.line(ops[0].line)
        tooltip = [f"{request.kind} ({name}): {count_phrase(len(ops), 'ops')}"]
        self._add(
            name,
            write_label(lines),
            attrs,
            css,
            *tooltip,
            *([code.strip()] if code else []),
        )
        return len(folded)

    def group(self, key: str, ops: list[OpNode], drawn: set[str]) -> int:
        line = ops[0].line
        counts = Counter(op.op for op in ops)
        head = f"line {line}" if line is not None else ops[0].op
        lines = [
            write_bold(head)
            + write_small(f"  {len(ops):,} op{'s' if len(ops) != 1 else ''}")
        ]
        code = self.graph.cell.line(line)
        if code:
            lines.append(write_code(clip(code.strip(), 44)))
        summary = ", ".join(
            f"{name} ×{n:,}" if n > 1 else name for name, n in counts.most_common(3)
        )
        if len(counts) > 3:
            summary += f", +{len(counts) - 3} more"
        lines.append(write_small(summary))
        leaves = {
            v
            for op in ops
            for v in op.inputs
            if v not in self.plan.tail_of and self._group_leaf(v, drawn)
        }
        if leaves:
            lines.append(
                write_small(
                    f"+{len(leaves)} unwatched input{'s' if len(leaves) != 1 else ''}"
                )
            )
        ids = {op.id for op in ops}
        recorded = any(op.recorded for op in ops)
        role, css = "op", "tm-op tm-group"
        if ids & self.plan.path_ops:
            role, css = "op_on_path", css + " tm-path"
        if not recorded:
            role, css = "unrecorded_op", css + " tm-unrecorded"
        attrs = dict(STYLE[role])
        found = [f for op in ops for f in self.plan.by_op_finding.get(op.id, [])]
        if found:
            attrs.update(STYLE["break" if has_error(found) else "warning"])
            lines.extend(write_finding_lines(found))
            css += " tm-break"
        if self.plan.current in ids:
            attrs.update(STYLE["step_current"])
        elif ids & self.plan.reached:
            attrs.update(STYLE["step_reached"])
        if ids & self.plan.reached:
            css += " tm-reached"
        self._add(key, write_label(lines), attrs, css, f"{head}: {len(ops)} ops")
        return len(leaves)

    def _group_leaf(self, v: str, drawn: set[str]) -> bool:
        value = self.plan.values[v]
        return value.op is None or value.op not in drawn
