"""Causes in the gradient call itself: its target and sources swapped, a source
that is the target, a target that is not a tensor.

These are asked first, of every request (the ``"call"`` stage), since no path
through the graph explains them: the call asked the wrong question.
"""

from __future__ import annotations

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts
from ..fixes import numpy_functions, numpy_to_tf, swap_arguments, unwrap_call
from ..model import GradientRequest
from ..source import assigned_name, gradient_call, option_call
from ..words import Words

__all__: list[str] = []


def _call_line(w: Words) -> str | None:
    """The text of the line that made the gradient call, if known."""
    request = w.q.request
    if request is None:
        return None
    if request.here:
        return w.facts.graph.cell.line(request.line)
    return request.code


def _method(w: Words) -> str:
    """The call as the user wrote it, e.g. ``tape.gradient``."""
    request = w.q.request
    kind = request.kind if request is not None else "gradient"
    return f"{w.facts.graph.tape.name or 'tape'}.{kind}"


# -- swapped_arguments ----------------------------------------------------------------


def _find_swapped(facts: Facts, q: Query) -> Break | None:
    """The source was computed from the targets: ``gradient([w, b], loss)``."""
    if q.result is None or not q.result.none or not q.targets:
        return None
    if q.source in q.targets:
        return None
    made_from, _, _ = facts.index.ancestors((q.source,), q.before)
    if not any(t in made_from for t in q.targets):
        return None
    line = q.request.line if q.request is not None else None
    return Break(None, line, q.before, None, q.source)


def _swapped_words(w: Words, b: Break) -> tuple[str, str]:
    s, t = w.source, w.target
    method = _method(w)
    message = (
        f"the arguments of {method}{w.request_place()} are swapped: {s} was "
        f"computed from {t}, but {method} takes the value to differentiate "
        "first and what to differentiate it by second"
    )
    request = w.q.request
    if request is not None and request.via is not None:
        given = option_call(request.via)
        return message, (
            f"Swap the options: --target {given.sources} --sources {given.target}"
        )
    rewritten = swap_arguments(_call_line(w), request.kind if request else "gradient")
    if rewritten is not None:
        return message, f"Swap them: {rewritten.strip()}"
    return message, f"Swap them: {method}({s}, ...)"


declare_cause(
    "swapped_arguments",
    code="TM001",
    doc="the target and the sources of the gradient call are swapped",
    detect=[Detector("call", 10, _find_swapped)],
    words=_swapped_words,
)


# -- source_is_target -----------------------------------------------------------------


def _find_source_is_target(facts: Facts, q: Query) -> Break | None:
    if q.request is None or q.source not in q.targets:
        return None
    return Break(None, q.request.line, q.before, None, q.source)


def _source_is_target_words(w: Words, b: Break) -> tuple[str, str]:
    s = w.source
    # What the target was computed from, among the values the tape watched:
    # what the call most likely meant to differentiate by.
    facts, q = w.facts, w.q
    made_from, _, _ = facts.index.ancestors((q.source,), q.before)
    watched = [
        source.value
        for source in facts.graph.sources
        if source.watched and source.value in made_from and source.value != q.source
    ]
    message = (
        f"{s}: the gradient of {s} with respect to itself is all ones, because "
        f"{s} is both the target and a source of {_method(w)}{w.request_place()}"
    )
    if watched:
        names = ", ".join(dict.fromkeys(w.name(v) for v in watched))
        wanted = names if len(watched) == 1 else f"[{names}]"
        return message, (
            f"Ask for the gradient with respect to what {s} was computed from: "
            f"{_method(w)}({s}, {wanted})"
        )
    return message, f"Pass the variables {s} was computed from as the sources"


declare_cause(
    "source_is_target",
    code="TM002",
    doc="a source is the target itself (its gradient is ones)",
    detect=[Detector("call", 20, _find_source_is_target)],
    words=_source_is_target_words,
    severity="note",
    headed=False,
)


# -- target_not_tensor ----------------------------------------------------------------


def _find_target_not_tensor(facts: Facts, q: Query) -> Break | None:
    """A call that failed on a target that is not a tensor; the line that made
    that target a number (a ``float()``, a NumPy function), if seen."""
    request = q.request
    if request is None or request.error is None:
        return None
    if not any(kind is not None for kind in request.target_types):
        return None
    name = _written_target(facts, request)
    escape_id = next((e for e in request.target_escapes if e is not None), None)
    escape = facts.index.escapes.get(escape_id) if escape_id is not None else None
    if escape is not None and escape.how in _MAKERS:
        return Break(None, escape.line, q.before, (name, escape, None), q.source)
    made = _assigning_line(facts, request, name)
    line = made if made is not None else request.line
    return Break(None, line, q.before, (name, None, made), q.source)


# What turned a tensor into a number, as the user wrote it.
_MAKERS = {"float": "float()", "int": "int()", "numpy": ".numpy()"}

_KINDS = {
    "float": "a Python float",
    "int": "a Python int",
    "bool": "a Python bool",
    "NoneType": "None",
    "list": "a Python list",
    "ndarray": "a NumPy array",
}


def _target_not_tensor_words(w: Words, b: Break) -> tuple[str, str]:
    facts, request = w.facts, w.q.request
    name, escape, made = b.detail
    name = name or "the target"
    kinds = [k for k in request.target_types if k is not None]
    if len(request.target_types) > 1:
        kind = f"a list of {_kind(kinds[0]).removeprefix('a ')}s"
    else:
        kind = _kind(kinds[0])
    head = (
        f"{name}: {_method(w)}{w.request_place()} failed because {name} is {kind}, "
        "not a tensor, so the tape cannot differentiate it"
    )
    if escape is not None:
        maker = _MAKERS[escape.how]
        each = "each one" if len(request.target_types) > 1 else "it"
        message = f"{head}: {maker} {w.at(escape.line)} turned {each} into a number"
        spelled = ".numpy" if escape.how == "numpy" else escape.how
        rewritten = unwrap_call(facts.graph.cell.line(escape.line), (spelled,))
        if rewritten is not None:
            return message, f"Keep it a tensor: {rewritten.strip()}"
        return message, f"Keep it a tensor: leave out {maker}"
    if made is not None:
        line = facts.graph.cell.line(made)
        if numpy_functions(line):
            message = f"{head}: it was computed with NumPy {w.at(made)}"
            rewritten = numpy_to_tf(line)
            if rewritten is not None:
                return message, (
                    f"Compute it with TensorFlow's functions: {rewritten.strip()}"
                )
            return message, "Compute it with tf ops (tf.math) instead of NumPy"
        message = f"{head}: it was made {w.at(made)}"
    else:
        message = head
    return message, (
        "Compute the target with tf ops on tensors inside the tape, e.g. "
        "tf.reduce_sum instead of sum or float"
    )


def _kind(type_name: str) -> str:
    if type_name in _KINDS:
        return _KINDS[type_name]
    if type_name.startswith(("float", "int")):
        return f"a NumPy {type_name}"
    return f"a {type_name}"


def _written_target(facts: Facts, request: GradientRequest) -> str | None:
    """How the call spelled its target."""
    if request.via is not None:
        return option_call(request.via).target
    code = facts.graph.cell.line(request.line) if request.here else request.code
    parsed = gradient_call(code, request.kind)
    return parsed.target if parsed is not None else None


def _assigning_line(
    facts: Facts, request: GradientRequest, name: str | None
) -> int | None:
    """The last line of the tape's cell before the call that assigns ``name``."""
    if name is None or not name.isidentifier() or not request.here:
        return None
    lines = facts.graph.cell.lines
    last = request.line if request.line is not None else len(lines) + 1
    found = None
    for number in range(2, min(last, len(lines) + 1)):
        if assigned_name(lines[number - 1]) == name:
            found = number
    return found


declare_cause(
    "target_not_tensor",
    code="TM003",
    doc="the target given to the gradient call is not a tensor (a Python or "
    "NumPy number, a list of them)",
    detect=[Detector("call", 30, _find_target_not_tensor)],
    words=_target_not_tensor_words,
    headed=False,
)
