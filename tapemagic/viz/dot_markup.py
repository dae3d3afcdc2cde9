"""Writing DOT: the looks of every role, escaping, and HTML-like labels.

:mod:`tapemagic.viz.dot` decides what a view shows; this module turns it into
text graphviz reads. Every label is escaped here: HTML-like labels are built
from :func:`escape_label`\\ d text and plain attributes go through
:func:`escape_plain`, so a name like ``<img src=x onerror=alert(1)>`` is drawn
as text.
"""

from __future__ import annotations

import html
import math
import re

import graphviz

from ..graph.model import OpNode, Value

__all__ = [
    "fit_code",
    "ESCAPE_HOW",
    "STYLE",
    "TEXT_BREAK",
    "TEXT_DIM",
    "TEXT_OK",
    "TEXT_WARN",
    "clip",
    "count_phrase",
    "describe_call_unrecorded",
    "describe_leaf",
    "describe_unrecorded",
    "describe_watch",
    "escape_label",
    "escape_plain",
    "format_norm",
    "has_error",
    "set_graph_attributes",
    "write_bold",
    "write_code",
    "write_finding_lines",
    "write_italic",
    "write_label",
    "write_legend",
    "write_small",
]

_FONT = "Helvetica,Arial,sans-serif"
_MONO = "DejaVu Sans Mono,Menlo,Consolas,monospace"

# Node and edge looks, by role. Tests and the legend read them from here.
STYLE: dict[str, dict[str, str]] = {
    "source": {"shape": "cylinder", "style": "filled", "fillcolor": "#dbeafe",
               "color": "#1d4ed8", "margin": "0.12,0.12"},
    "unwatched_source": {"shape": "cylinder", "style": "filled",
                         "fillcolor": "#f3f4f6", "color": "#9ca3af",
                         "fontcolor": "#4b5563", "margin": "0.12,0.12"},
    "target": {"shape": "doubleoctagon", "style": "filled", "fillcolor": "#dcfce7",
               "color": "#15803d"},
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ffffff",
           "color": "#64748b"},
    "op_on_path": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ffffff",
                   "color": "#2563eb", "penwidth": "1.6"},
    "unrecorded_op": {"shape": "box", "style": "rounded,dashed,filled",
                      "fillcolor": "#ffffff", "color": "#94a3b8",
                      "fontcolor": "#4b5563"},
    "input": {"shape": "ellipse", "style": "filled", "fillcolor": "#f3f4f6",
              "color": "#9ca3af", "fontcolor": "#4b5563"},
    "hidden": {"shape": "note", "style": "filled", "fillcolor": "#f8fafc",
               "color": "#cbd5e1", "fontcolor": "#475569"},
    "gradient_call": {"shape": "box", "style": "rounded,filled",
                      "fillcolor": "#f5f3ff", "color": "#7c3aed"},
    "gradient_call_on_path": {"shape": "box", "style": "rounded,filled",
                              "fillcolor": "#f5f3ff", "color": "#2563eb",
                              "penwidth": "1.6"},
    "gradient_cluster": {"style": "rounded,dashed", "color": "#7c3aed",
                         "fontcolor": "#5b21b6"},
    "break": {"fillcolor": "#fee2e2", "color": "#dc2626", "penwidth": "2"},
    "warning": {"fillcolor": "#fef3c7", "color": "#d97706", "penwidth": "2"},
    "none_source": {"color": "#dc2626", "penwidth": "2"},
    "step_reached": {"fillcolor": "#ffedd5"},
    "step_current": {"fillcolor": "#fed7aa", "color": "#ea580c", "penwidth": "3"},
    "edge": {"color": "#94a3b8"},
    "edge_on_path": {"color": "#2563eb", "penwidth": "1.6"},
    "edge_unrecorded": {"style": "dashed", "color": "#94a3b8"},
    "edge_ghost": {"style": "dashed", "color": "#dc2626", "fontcolor": "#b91c1c",
                   "penwidth": "1.4"},
    "edge_step": {"color": "#ea580c", "penwidth": "2"},
    "edge_asked": {"style": "dotted", "color": "#7c3aed", "arrowhead": "odot"},
}  # fmt: skip

TEXT_BREAK = "#b91c1c"
TEXT_WARN = "#b45309"
TEXT_DIM = "#475569"
TEXT_OK = "#15803d"

ESCAPE_HOW = {
    "numpy": ".numpy()",
    "__array__": "np.asarray()",
    "float": "float()",
    "int": "int()",
    "constant": "tf.constant()",
}
_ORIGIN_TEXT = {
    "variable": "variable",
    "constant": "constant",
    "numpy": "NumPy value",
    "python": "Python value",
    "outside": "from before the tape",
    "unknown": "input",
}


def set_graph_attributes(dot: graphviz.Digraph, rankdir: str) -> None:
    """Set the graph, node and edge defaults every view shares.

    Example:
        >>> dot = graphviz.Digraph()
        >>> set_graph_attributes(dot, "LR")
        >>> "rankdir=LR" in dot.source
        True
    """
    dot.attr(
        rankdir=rankdir,
        fontname=_FONT,
        fontsize="10",
        nodesep="0.25",
        ranksep="0.35",
        bgcolor="white",
        pad="0.15",
        labelloc="b",
        labeljust="l",
        # Bound dot's x-placement passes: one source feeding ~100 ops in a
        # chain (a weight read at every step of a loop) otherwise takes dot
        # half a minute; usual graphs converge long before the bound.
        nslimit="5",
    )
    dot.attr(
        "node",
        fontname=_FONT,
        fontsize="10",
        margin="0.10,0.05",
        height="0.3",
        penwidth="1.2",
        color="#64748b",
        fontcolor="#111827",
    )
    dot.attr(
        "edge",
        fontname=_FONT,
        fontsize="8",
        arrowsize="0.6",
        color="#94a3b8",
        fontcolor=TEXT_DIM,
    )


def write_legend(
    dot: graphviz.Digraph, classes: set[str], ghosts: bool, steps: bool
) -> None:
    """Add a legend of the styles drawn (CSS ``classes``, ghost edges) as the
    graph's label; with ``steps`` the backward-step entry shows all along.

    Example:
        >>> dot = graphviz.Digraph()
        >>> write_legend(dot, {"tm-target"}, ghosts=False, steps=False)
        >>> ">target<" in dot.source
        True
    """
    entries = [
        ("tm-watched", "source", STYLE["source"]),
        ("tm-target", "target", STYLE["target"]),
        ("tm-path", "op on a path", STYLE["op_on_path"]),
        ("tm-call", "gradient computed in the tape", STYLE["gradient_call"]),
        ("tm-break", "path breaks here", STYLE["break"]),
        ("tm-unwatched", "source not watched", STYLE["unwatched_source"]),
        ("tm-input", "unwatched input", STYLE["input"]),
        ("tm-unrecorded", "not recorded", STYLE["unrecorded_op"]),
        ("tm-reached", "backward step", STYLE["step_current"]),
    ]
    cells = []
    if steps:  # in the legend all along: the slider never moves the layout
        classes.add("tm-reached")
    for css, text, style in entries:
        if css not in classes:
            continue
        dashed = ' STYLE="dashed"' if "dashed" in style.get("style", "") else ""
        cells.append(
            f'<TD BGCOLOR="{style.get("fillcolor", "#ffffff")}" '
            f'COLOR="{style.get("color", "#64748b")}" BORDER="1"{dashed}>'
            f'<FONT POINT-SIZE="8">{html.escape(text)}</FONT></TD>'
        )
    if ghosts:
        cells.append(
            '<TD BORDER="0"><FONT POINT-SIZE="8" COLOR="#b91c1c">- - &#x25B8; '
            "value left the engine</FONT></TD>"
        )
    if "tm-asked" in classes:
        cells.append(
            '<TD BORDER="0"><FONT POINT-SIZE="8" COLOR="#5b21b6">&#x00B7;&#x00B7;'
            "&#x00B7; &#x25E6; what a gradient was asked of</FONT></TD>"
        )
    if cells:
        table = '<TABLE BORDER="0" CELLSPACING="3" CELLPADDING="2"><TR>'
        dot.attr(label="<" + table + "".join(cells) + "</TR></TABLE>>")


def has_error(findings) -> bool:
    """Whether any of the findings is an error (a None gradient), not a warning.

    Example:
        >>> has_error([])
        False
    """
    return any(f.severity == "error" for f in findings)


def write_finding_lines(findings) -> list[str]:
    """The first two findings' short texts for a node label, then ``+N more``.

    Example:
        >>> write_finding_lines([])
        []
    """
    shorts = list(dict.fromkeys(f.short for f in findings))
    colour = TEXT_BREAK if has_error(findings) else TEXT_WARN
    lines = [write_small("✗ " + clip(s, 40), colour) for s in shorts[:2]]
    if len(shorts) > 2:
        lines.append(write_small(f"+{len(shorts) - 2} more", colour))
    return lines


def describe_watch(
    how: str,
    watched: bool,
    line: int | None,
    trainable: bool | None,
    via: str | None = None,
) -> str:
    """How a source was watched, for its node (``via``: the ``%%tape`` option
    that watched it, if one did).

    Example:
        >>> describe_watch("accessed", True, 2, False)
        'watched when read · line 2 · trainable=False'
        >>> describe_watch("watch", True, None, None, "--watch image")
        '%%tape --watch'
    """
    at = f" · line {line}" if line is not None else ""
    caller = "%%tape --watch" if via is not None else "tape.watch"
    if how == "accessed":
        text = f"watched when read{at}"
    elif how == "watch":
        text = f"{caller}{at}" if watched else f"{caller}: not watchable{at}"
    else:
        text = "not watched"
    if trainable is False:
        text += " · trainable=False"
    return text


def describe_unrecorded(op: OpNode) -> str:
    """Why the tape did not record an op, for its node.

    Example:
        >>> from tapemagic.graph.model import OpNode
        >>> describe_unrecorded(OpNode("op1", 1, "exp", (), (), True, False, 2,
        ...                            "paused"))
        'not recorded: stop_recording'
    """
    if op.tape_state == "paused":
        return "not recorded: stop_recording"
    if op.tape_state in ("idle", "stopped"):
        return "not recorded: tape not recording"
    if not op.differentiable:
        return "not recorded: no gradient"
    return "not recorded"


def describe_call_unrecorded(ops: list[OpNode]) -> str:
    """Why the tape recorded none of a gradient call's ops.

    Example:
        >>> from tapemagic.graph.model import OpNode
        >>> describe_call_unrecorded([OpNode("op1", 1, "exp", (), (), True, False,
        ...                                  2, "stopped")])
        'not recorded: tape not recording'
    """
    states = {op.tape_state for op in ops}
    if "paused" in states:
        return "not recorded: stop_recording"
    if states <= {"idle", "stopped"}:
        return "not recorded: tape not recording"
    return "not recorded: it used nothing the tape watched"


def describe_leaf(value: Value, ops: dict[str, OpNode]) -> str:
    """What an unnamed input is, for its node (``Python float``, ``constant``).

    Example:
        >>> from tapemagic.graph.model import Value
        >>> describe_leaf(Value("t1", "python", (), "float32", True,
        ...                     python_type="float"), {})
        'Python float'
    """
    if value.origin == "python":
        return f"Python {value.python_type or 'value'}"
    if value.origin == "numpy":
        return f"NumPy {value.python_type or 'value'}"
    if value.origin == "op" and value.op in ops:
        if ops[value.op].during is not None:
            # Made by a gradient call whose ops the view does not draw (the
            # tape's own answer, computed without recording).
            return "result of a gradient call"
        return f"{ops[value.op].op} (not drawn)"
    return _ORIGIN_TEXT.get(value.origin, value.origin)


def format_norm(norm: float) -> str:
    """A norm with three significant digits (``nan`` and ``inf`` as they are).

    Example:
        >>> format_norm(2.0 / 3), format_norm(float("inf"))
        ('0.667', 'inf')
    """
    if not math.isfinite(norm):
        return str(norm)
    return f"{norm:.3g}"


def count_phrase(n: int, plural: str) -> str:
    """``"3 ops off the paths"``, ``"1 op off the paths"``: the first plural of
    the phrase's first two words becomes singular for one.

    Example:
        >>> count_phrase(1, "ops off the paths"), count_phrase(1200, "gradients")
        ('1 op off the paths', '1,200 gradients')
    """
    if n != 1:
        return f"{n:,} {plural}"
    words = plural.split(" ")
    for i, word in enumerate(words[:2]):
        if word.endswith("s"):
            words[i] = word[:-1]
            break
    return f"1 {' '.join(words)}"


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, an ellipsis marking the cut.

    Example:
        >>> clip("abcdef", 4)
        'abc…'
    """
    return text if len(text) <= width else text[: width - 1] + "…"


# Characters XML 1.0 forbids (and lone surrogates, which UTF-8 cannot encode):
# in a label, dot's HTML parser rejects them; in a tooltip, the SVG would not parse.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# A backslash dot would read as an escape in a label (see escape_label).
_DOT_ESCAPES = re.compile(r"\\[NGETH\\]")


def _printable(text: str) -> str:
    """``text`` with each character XML forbids replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def escape_label(text: str) -> str:
    """Text for an HTML-like label; blank text shows as its repr (dot rejects a
    label part such as ``<B></B>`` that holds no text).

    Example:
        >>> escape_label("<b>&</b>"), escape_label(" ")
        ('&lt;b&gt;&amp;&lt;/b&gt;', '&#x27; &#x27;')
    """
    if not text.strip():
        text = repr(text)
    escaped = html.escape(_printable(text))
    if _DOT_ESCAPES.search(escaped):
        # dot expands \N, \G, \E, \T and \H (node, graph, edge names) even in
        # HTML-like labels; a doubled backslash draws one.
        escaped = escaped.replace("\\", "\\\\")
    if not text.replace("]", "").strip():
        # dot's HTML lexer rejects a part that is only "]" or "]]" (after
        # whitespace); the character reference draws the same bracket.
        escaped = escaped.replace("]", "&#93;")
    return escaped


def escape_plain(text: str) -> str:
    """Text for a quoted DOT string: dot reads ``&name;`` entities there too.

    Example:
        >>> escape_plain("a & b")
        'a &amp; b'
    """
    return graphviz.escape(_printable(text).replace("&", "&amp;"))


def write_bold(text: str) -> str:
    """A bold label part (clipped to 32 characters).

    Example:
        >>> write_bold("w")
        '<B>w</B>'
    """
    return f"<B>{escape_label(clip(text, 32))}</B>"


def write_italic(text: str) -> str:
    """An italic label part (clipped to 32 characters).

    Example:
        >>> write_italic("constant")
        '<I>constant</I>'
    """
    return f"<I>{escape_label(clip(text, 32))}</I>"


def write_small(text: str, colour: str = TEXT_DIM) -> str:
    """A small label part in ``colour``.

    Example:
        >>> write_small("line 3")
        '<FONT POINT-SIZE="8" COLOR="#475569">line 3</FONT>'
    """
    return f'<FONT POINT-SIZE="8" COLOR="{colour}">{escape_label(text)}</FONT>'


# Graphviz sizes a node by its own estimate of each text's width. For monospace
# text the estimate falls short of what browsers draw (DejaVu Sans Mono, Menlo,
# Courier: 0.6 em a character) by up to 0.05 em a character: a node holding a
# cell line gets that much more margin, so the line stays inside its border.
_MONO_SHORTFALL = 0.05
_CODE = re.compile(
    rf'<FONT FACE="{re.escape(_MONO)}" POINT-SIZE="([0-9.]+)">(.*?)</FONT>'
)
_DEFAULT_MARGIN = (0.11, 0.055)  # graphviz's, in inches


def fit_code(label: str, attrs: dict[str, str]) -> dict[str, str]:
    """``attrs`` with the horizontal margin widened for the label's monospace
    lines (see ``_MONO_SHORTFALL``); ``attrs`` itself if it has none.

    Example:
        >>> fit_code(write_code("y = x"), {"margin": "0.1,0.05"})
        {'margin': '0.128,0.05'}
        >>> fit_code("<B>y</B>", {})
        {}
    """
    extra = max(
        (
            len(html.unescape(text)) * float(size) * _MONO_SHORTFALL
            for size, text in _CODE.findall(label)
        ),
        default=0.0,
    )
    if not extra:
        return attrs
    given = attrs.get("margin")
    x, y = (
        _DEFAULT_MARGIN
        if given is None
        else tuple(float(m) for m in (given.split(",") * 2)[:2])
    )
    return {**attrs, "margin": f"{x + extra / 72:.3g},{y:.3g}"}


def write_code(text: str) -> str:
    """A label part in a monospace font, for a cell line.

    Example:
        >>> write_code("y = x").endswith('POINT-SIZE="8">y = x</FONT>')
        True
    """
    return f'<FONT FACE="{_MONO}" POINT-SIZE="8">{escape_label(text)}</FONT>'


def write_label(lines: list[str]) -> str:
    """An HTML-like label of ``lines`` (label parts), one per line.

    Example:
        >>> write_label(["<B>w</B>", "scalar"])
        '<<B>w</B><BR/>scalar>'
    """
    return "<" + "<BR/>".join(lines) + ">"
