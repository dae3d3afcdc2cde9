"""Causes where a value left the engine and came back as a new constant: a
copy to NumPy or Python, the Python number a tensor was made from, an
assignment to a variable.

Where the model cannot be sure, a sentence says what it saw: the tensor
added by ``assign_add``/``assign_sub`` is taken to be the value computed
on that line just before; a value copied out by a NumPy function that
returns a new array is tied to its copy by time only.
"""

from __future__ import annotations

import math

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts
from ..fixes import (
    NUMPY_TO_TF,
    first_argument_name,
    names_used,
    numpy_functions,
    numpy_to_tf,
    predict_as_call,
    rename,
    unwrap_call,
)
from ..model import Assign, Escape, OpNode
from ..source import assigned_name
from ..words import Words

__all__: list[str] = []


# -- numpy_copy -----------------------------------------------------------------------


def _find_copy_out(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """A value computed from the source left the engine before values the
    target was computed from came in (tied by time only)."""
    values = facts.values
    desc = facts.descendants(q.source, q.before)
    fresh = [
        v
        for v in anc
        if values[v].origin in ("numpy", "python", "constant")
        and values[v].escape is None
    ]
    for e in sorted(facts.graph.escapes, key=lambda e: e.seq):
        if e.value not in desc or e.seq >= q.before:
            continue
        if any(facts.first_use_seq(v) > e.seq for v in fresh):
            return Break(None, e.line, e.seq, (e, False), e.value)
    return None


def _find_copy_cut(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, Escape):
        return None
    return Break(None, event.line, event.seq, (event, True), value)


def _numpy_copy_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    escape, linked = b.detail
    if escape.value == w.q.source:
        value = whose = s
    elif w.facts.values[escape.value].names:
        value = w.name(escape.value)
        whose = f"{value} (computed from {s})"
    else:
        value = "it"
        whose = f"a value computed from {s}"
    how = {
        "numpy": "converted to a NumPy array by .numpy()",
        "__array__": "converted to a NumPy array (np.asarray or a NumPy function)",
        "float": "turned into a Python float by float()",
        "int": "turned into a Python int by int()",
        "constant": "copied into a new tensor by tf.constant()",
    }.get(escape.how, f"copied out of the tensor ({escape.how})")
    called = numpy_functions(w.facts.graph.cell.line(b.line))
    if escape.how == "__array__" and called:
        how = f"converted to a NumPy array by np.{called[0]}"
    if escape.how in ("float", "int"):
        then = (
            f"{t} is then computed from that Python number, which the tape "
            "cannot follow"
        )
    elif linked:
        then = f"the path to {t} continues from a constant made of its values"
    else:
        then = (
            f"{t} is then computed from those copied values, which the tape "
            "cannot follow"
        )
    return f"{whose} was {how} {w.at(b.line)}; {then}", _copy_fix(w, b, value)


# What made the copy, as the user wrote it: the call a fix takes out.
_COPIERS = {
    "numpy": (".numpy",),
    "float": ("float",),
    "int": ("int",),
    "constant": ("tf.constant", "tf.convert_to_tensor"),
    "__array__": ("np.array", "np.asarray", "numpy.array", "numpy.asarray"),
}


def _copy_fix(w: Words, b: Break, value: str) -> str:
    """The copying line without the copy: ``.numpy()``, ``float()`` or
    ``tf.constant()`` taken out, a NumPy function replaced by TensorFlow's."""
    escape, _ = b.detail
    line = w.facts.graph.cell.line(b.line)
    if escape.how == "__array__":
        called = numpy_functions(line)
        twin = numpy_to_tf(line)
        if twin is not None and called:
            names = ", ".join(
                f"{NUMPY_TO_TF[name]} for np.{name}" for name in dict.fromkeys(called)
            )
            return f"Use TensorFlow's functions ({names}): {twin.strip()}"
        missing = [name for name in called if name not in NUMPY_TO_TF]
        if missing:
            return (
                f"Compute it with tf ops instead of np.{missing[0]}, which has no "
                "TensorFlow twin with the same arguments"
            )
    rewritten = unwrap_call(line, _COPIERS.get(escape.how, ()))
    if rewritten is not None and escape.how == "constant":
        return f"Use {value} itself instead of a copy: {rewritten.strip()}"
    if rewritten is not None:
        return f"Keep {value} a tensor: {rewritten.strip()}"
    return {
        "float": f"Keep {value} a tensor: use it in tf ops instead of float()",
        "int": f"Keep {value} a tensor: use it in tf ops instead of int()",
        "constant": f"Use {value} itself instead of tf.constant({value})",
    }.get(escape.how, f"Use {value} directly in tf ops")


declare_cause(
    "numpy_copy",
    code="TM004",
    doc="copied out of the engine (.numpy(), np.asarray, float(), "
    "tf.constant(var)) and used again as a new constant",
    detect=[
        Detector("unlinked", 10, _find_copy_out),
        Detector("cut", 30, _find_copy_cut),
    ],
    words=_numpy_copy_words,
)


# -- numpy_result ---------------------------------------------------------------------


def _find_numpy_result(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """A name bound on a line where the source was used (``y = model.predict(x)``)
    comes back into the target as NumPy values, with no copy the log saw: the
    line's result left the engine inside a library call."""
    desc = facts.descendants(q.source, q.before)
    dead: dict[int, OpNode] = {}
    for op in facts.index.forward_ops:
        if op.seq >= q.before or op.line is None:
            continue
        if set(op.inputs) & desc and not any(o in anc for o in op.outputs):
            dead.setdefault(op.line, op)
    if not dead:
        return None
    for v in sorted(anc, key=facts.order):
        value = facts.values[v]
        if value.origin not in ("numpy", "python") or value.line is None:
            continue
        used = names_used(facts.graph.cell.line(value.line))
        for line in sorted(dead, reverse=True):
            name = assigned_name(facts.graph.cell.line(line))
            if line <= value.line and name in used:
                return Break(dead[line], line, math.inf, (name, value), q.source)
    return None


def _numpy_result_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    name, value = b.detail
    line = w.facts.graph.cell.line(b.line)
    why = ""
    if ".predict(" in (line or ""):
        why = " (model.predict returns NumPy arrays)"
    message = (
        f"{name}, made {w.at(b.line)} from {s}, holds NumPy values, not a "
        f"tensor{why}, so {t} is computed from numbers the tape cannot follow"
    )
    rewritten = predict_as_call(line) or numpy_to_tf(line)
    if rewritten is not None:
        return message, f"Keep {name} a tensor: {rewritten.strip()}"
    return message, f"Compute {name} with tf ops, so that it stays a tensor"


declare_cause(
    "numpy_result",
    code="TM005",
    doc="a result computed from the source came back as NumPy values "
    "(model.predict, a library returning arrays)",
    detect=[Detector("unlinked", 15, _find_numpy_result)],
    words=_numpy_result_words,
)


# -- variable_copy --------------------------------------------------------------------


def _find_variable_copy(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, Escape) or event.how != "variable":
        return None
    return Break(None, event.line, event.seq, event, value)


def _variable_copy_words(w: Words, b: Break) -> tuple[str, str]:
    s = w.source
    escape = b.detail
    copies = w.facts.index.copies_of.get(escape.id, ())
    new = w.name(copies[0]) if copies else "a new tf.Variable"
    if escape.value == w.q.source:
        made = kept = s
    elif w.facts.values[escape.value].names:
        kept = w.name(escape.value)
        made = f"{kept} (computed from {s})"
    else:
        kept = "that tensor"
        made = f"a tensor computed from {s}"
    message = (
        f"{new} is a new tf.Variable made {w.at(b.line)} from {made}, and a new "
        f"Variable copies its initial value, so no gradient flows back into {s}"
    )
    rewritten = unwrap_call(w.facts.graph.cell.line(b.line), ("tf.Variable",))
    if rewritten is not None:
        fix = f"Use the tensor itself instead of a new Variable: {rewritten.strip()}"
    else:
        fix = f"Use {kept} itself in the computation instead of a new tf.Variable"
    return message, fix


declare_cause(
    "variable_copy",
    code="TM006",
    doc="a new tf.Variable made from a tensor computed from the source",
    detect=[Detector("cut", 25, _find_variable_copy)],
    words=_variable_copy_words,
)


# -- python_number --------------------------------------------------------------------


def _find_python_twin(facts: Facts, q: Query, anc: set[str]) -> Break | None:
    """The target used another tensor made from the same Python or NumPy
    value as the source."""
    s = q.source
    values = facts.values
    anchor = values[s].same_as or s
    twins = [
        v.id for v in facts.graph.values if v.id != s and anchor in (v.id, v.same_as)
    ]
    used = [v for v in twins if v in anc]
    if not used:
        return None
    twin = values[used[0]]
    first = facts.first_consumer(used[0], anc)
    line = twin.line if twin.line is not None else (first.line if first else None)
    return Break(first, line, math.inf, twin, used[0])


def _python_number_words(w: Words, b: Break) -> tuple[str, str]:
    twin = b.detail
    kind = {"numpy": "NumPy array", "python": f"Python {twin.python_type}"}.get(
        twin.origin, "Python value"
    )
    message = (
        f"{w.target} is computed {w.at(b.line)} from the {kind} that "
        f"{w.source} was made from, not from the tensor {w.source}, and "
        "the tape only follows tensors"
    )
    # The name the source was made from (pt = tf.constant(p): p), replaced by
    # the source's own name on the line that used it.
    facts, source = w.facts, w.facts.values[w.q.source]
    made = source.made_at if source.origin == "variable" else source.line
    if made is None:  # tf.constant's copy: the line that binds the source's name
        made = next(
            (
                number
                for number, code in enumerate(facts.graph.cell.lines, 1)
                if assigned_name(code) == w.source
            ),
            None,
        )
    given = first_argument_name(
        facts.graph.cell.line(made), ("tf.Variable", "tf.constant")
    )
    if given is not None and w.source.isidentifier():
        rewritten = rename(facts.graph.cell.line(b.line), given, w.source)
        if rewritten is not None:
            return message, f"Use the tensor {w.source} instead: {rewritten.strip()}"
    return message, f"Use the tensor {w.source} in the computation of {w.target}"


declare_cause(
    "python_number",
    code="TM007",
    doc="a Python number where a tensor was needed",
    detect=[Detector("unlinked", 20, _find_python_twin)],
    words=_python_number_words,
)


# -- assign_cut -----------------------------------------------------------------------


def _find_assign_cut(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, Assign):
        return None
    return Break(None, event.line, event.seq, event, value)


def _assign_cut_words(w: Words, b: Break) -> tuple[str, str]:
    assign = b.detail
    variable = w.name(assign.variable)
    method = "assign"
    for name in ("assign_add", "assign_sub"):
        if f".{name}(" in (w.facts.line_text(b.line) or ""):
            method = name
    return (
        f"the path from {w.source} to {w.target} goes through "
        f"{variable}.{method}(...) {w.at(b.line)}: assigning to a variable "
        "copies the value, and the gradient does not flow through the copy",
        f"Use the computed tensor directly instead of assigning it to "
        f"{variable} inside the tape",
    )


declare_cause(
    "assign_cut",
    code="TM008",
    doc="a Variable's value was replaced with assign*() inside the tape",
    detect=[Detector("cut", 40, _find_assign_cut)],
    words=_assign_cut_words,
)
