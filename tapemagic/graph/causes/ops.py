"""Causes at an op on the path: a cast to an integer, an op without a
gradient, ``tf.stop_gradient``, and NaN or Inf from an op's singular point.
"""

from __future__ import annotations

import math

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts, Role
from ..fixes import add_epsilon, safe_norm
from ..model import OpNode
from ..names import COMPARISONS
from ..words import Words

__all__: list[str] = []


# -- integer_cast ---------------------------------------------------------------------


def _find_integer_cast(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, OpNode) or event.op != "cast":
        return None
    if facts.values[event.outputs[0]].differentiable:
        return None
    return Break(event, event.line, event.seq, index, value)


def _integer_cast_words(w: Words, b: Break) -> tuple[str, str]:
    role = w.facts.role(b.op.outputs, w.q)
    if role is not None:
        return _role_words(w, b, role)
    return (
        f"the path from {w.source} to {w.target} goes through "
        f"{w.op(b.op)} {w.at(b.line)}, which has no gradient",
        "Keep the values floating point: cast to a float dtype such as "
        "tf.float32, or leave the cast out",
    )


declare_cause(
    "integer_cast",
    code="TM014",
    doc="cast to an integer or bool dtype on the way to the target",
    detect=[Detector("cut", 20, _find_integer_cast)],
    words=_integer_cast_words,
)


# -- non_differentiable ---------------------------------------------------------------


def _find_no_gradient_op(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, OpNode):
        return None
    return Break(event, event.line, event.seq, index, value)


def _find_custom_gradient_none(facts: Facts, q: Query, reach: set[str]) -> Break | None:
    """A custom gradient on the recorded path must have returned None."""
    for op in facts.graph.ops:
        if op.op.startswith("custom_gradient/") and set(op.inputs) & reach:
            return Break(op, op.line, op.seq, "custom", q.source)
    return None


def _non_differentiable_words(w: Words, b: Break) -> tuple[str, str]:
    s, t, op = w.source, w.target, b.op
    if b.detail == "custom":
        return (
            f"the custom gradient {w.op(op)} {w.at(b.line)} returned None for {s}",
            f"Return a gradient for {s} from the custom gradient function",
        )
    if b.detail in op.no_gradient_inputs:
        # The source itself is the condition, the indices, the shape...
        role = w.facts.role((b.value,), w.q)
        if role is not None and role.op is op:
            return _role_words(w, b, role)
    if op.op in ("shape", "size", "rank"):
        return (
            f"only the {op.op} of {s} is used, through tf.{op.op} {w.at(b.line)}, "
            f"and a {op.op} has no gradient",
            f"Compute {t} from the values of {s}, not only from its {op.op}",
        )
    role = w.facts.role(op.outputs, w.q)
    if role is not None and op.op not in ("zeros_like", "ones_like"):
        return _role_words(w, b, role)
    if op.op in ("argmax", "argmin", "argsort"):
        return (
            f"the path from {s} to {t} goes through {w.op(op)} {w.at(b.line)}, "
            "which gives indices, and positions have no gradient",
            _non_differentiable_fix(op.op),
        )
    return (
        f"the path from {s} to {t} goes through {w.op(op)} "
        f"{w.at(b.line)}, which has no gradient",
        _non_differentiable_fix(op.op),
    )


# What each role does, and what a value in that role may not carry.
_ROLE_WORDS = {
    "condition": ("the condition of {call}", "only picks a branch"),
    "mask": ("the mask of {call}", "only chooses which elements are kept"),
    "indices": ("the indices of {call}", "only choose which elements are taken"),
    "shape": ("the shape that {call} makes", "only sets a size"),
    "argument": ("an argument of {call} that has no gradient", "has no gradient"),
}


def _role_words(w: Words, b: Break, role: Role) -> tuple[str, str]:
    """The words of a path that ends as a condition, a mask, indices, a shape."""
    s, t = w.source, w.target
    call = role.call
    if role.kind == "indices" and call == "indexing":
        what, does = "an index in [...]", "only chooses which elements are taken"
    else:
        what, does = (part.format(call=call) for part in _ROLE_WORDS[role.kind])
    where = w.at(role.op.line)
    made = ""
    if b.op is not None and b.op is not role.op:
        place = "on that line" if b.line == role.op.line else w.at(b.line)
        made = f", made by {w.op(b.op)} {place},"
    message = (
        f"{s} reaches {t} only as {what} {where}{made} and that {role.kind} "
        f"{does}, so it has no gradient"
    )
    if role.kind == "condition":
        fix = (
            f"Use {s} in the branches of tf.where (its second and third "
            "arguments), not only in its condition"
        )
    elif role.kind == "mask":
        fix = f"Use {s} in the values tf.boolean_mask keeps (its first argument)"
    elif role.kind == "indices" and call == "tf.one_hot":
        # tf.one_hot takes no values, only the indices: the op that made them
        # (an argmax, say) needs a differentiable stand-in.
        if b.op is not None and b.op is not role.op:
            fix = _non_differentiable_fix(b.op.op)
        else:
            fix = (
                f"Use {s} as values, not as the indices of tf.one_hot, e.g. "
                "tf.nn.softmax weights instead of a one-hot index"
            )
    elif role.kind == "indices" and call == "indexing":
        fix = f"Use {s} in the tensor being indexed, not only in the index"
    elif role.kind == "indices":
        fix = f"Use {s} in the values {call} takes from, not only in the indices"
    elif role.kind == "shape":
        fix = f"Compute {t} from the values of {s}, not only from a shape"
    else:
        fix = f"Use {s} in an argument of {call} that has a gradient"
    return message, fix


def _non_differentiable_fix(name: str) -> str:
    if name in COMPARISONS or name.startswith("logical_") or name.startswith("is_"):
        return (
            "A comparison only gives True or False: use the compared values "
            "themselves in the computation, e.g. in the branches of tf.where"
        )
    if name in ("round", "floor", "ceil", "floordiv"):
        return (
            f"Use a smooth stand-in for {name} on the gradient path, e.g. the value "
            f"itself, or x + tf.stop_gradient(tf.{name}(x) - x) to keep the "
            "rounded value with the gradient of x"
        )
    if name in ("argmax", "argmin"):
        value = "tf.reduce_max" if name == "argmax" else "tf.reduce_min"
        return (
            f"Use the value itself ({value}), which has a gradient, or "
            "tf.nn.softmax weights instead of an index"
        )
    if name == "argsort":
        return (
            "Use the sorted values themselves (tf.sort, or the values of "
            "tf.math.top_k), which have a gradient, or tf.nn.softmax weights "
            "instead of an index"
        )
    if name in ("zeros_like", "ones_like"):
        return (
            f"{name} uses only the shape of its input: compute the values from the "
            "source instead"
        )
    return f"Use ops with a gradient on the path instead of {name}"


declare_cause(
    "non_differentiable",
    code="TM015",
    doc="went through an op with no gradient (argmax, round, "
    "floor, comparisons, the condition of where, ...)",
    detect=[
        Detector("cut", 90, _find_no_gradient_op),
        Detector("unexplained", 10, _find_custom_gradient_none),
    ],
    words=_non_differentiable_words,
)


# -- stop_gradient --------------------------------------------------------------------


def _find_stop_gradient(
    facts: Facts, q: Query, event: object, index: int, value: str
) -> Break | None:
    if not isinstance(event, OpNode) or event.op != "stop_gradient":
        return None
    return Break(event, event.line, event.seq, index, value)


def _stop_gradient_words(w: Words, b: Break) -> tuple[str, str]:
    return (
        f"the path from {w.source} to {w.target} goes through "
        f"tf.stop_gradient {w.at(b.line)}, which blocks the gradient on "
        "purpose",
        f"Remove tf.stop_gradient from the path if {w.source} should get a gradient",
    )


declare_cause(
    "stop_gradient",
    code="TM016",
    doc="went through tf.stop_gradient",
    detect=[Detector("cut", 10, _find_stop_gradient)],
    words=_stop_gradient_words,
)


# -- nan_gradient ---------------------------------------------------------------------


def _find_nan(facts: Facts, q: Query) -> Break:
    """The first op on the path whose output is not finite (else the first
    with a singular derivative), and a tf.where after it that masks it."""
    reach = facts.forward(q, recorded=True)
    anc, _, _ = facts.ancestors(q)
    path = [
        op
        for op in facts.graph.ops
        if op.seq < q.before
        and op.during is None
        and set(op.inputs) & reach
        and any(o in anc and o in reach for o in op.outputs)
    ]
    located = next(
        (op for op in path if any(facts.values[o].finite is False for o in op.outputs)),
        None,
    )
    if located is None:
        located = next((op for op in path if op.singular == "derivative"), None)
    mask = None
    if located is not None:
        below = set(located.outputs)
        for op in path:
            if op.seq <= located.seq:
                continue
            if set(op.inputs) & below:
                if op.op == "where" and set(op.inputs[1:]) & below:
                    mask = op
                    break
                below.update(op.outputs)
    if located is None:
        return Break(None, None, math.inf, mask, q.source)
    return Break(located, located.line, located.seq, mask, q.source)


def _nan_gradient_words(w: Words, b: Break) -> tuple[str, str]:
    op, mask = b.op, b.detail
    if op is None:
        return (
            f"some values on the path from {w.source} to {w.target} are "
            "NaN or infinite",
            "Check the inputs with tf.debugging.check_numerics and keep each op "
            "inside its domain",
        )
    name = w.op(op)
    if mask is not None:
        where = "on that line" if mask.line == b.line else w.at(mask.line)
        return (
            f"{name} {w.at(b.line)} is infinite or NaN for some elements, "
            f"and tf.where {where} hides them only in the forward "
            "pass: their gradient is still computed and 0 times infinity is NaN",
            f"Make the input of {op.op} safe before the op as well, e.g. "
            f"tf.where(mask, x, 1.0) inside it, so no element hits its bad point",
        )
    line = w.facts.graph.cell.line(b.line)
    if op.op == "sqrt" and safe_norm(line) is not None:
        return (
            f"tf.norm {w.at(b.line)} takes the square root of a sum of squares "
            "that is 0 there, and the derivative of the square root at 0 is "
            "infinite, so its gradient is 0 times infinity, which is NaN",
            "Write the norm out with a small number inside the square root: "
            f"{safe_norm(line).strip()}",
        )
    message = (
        f"{name} {w.at(b.line)} has an infinite or undefined derivative at "
        "some of its inputs (for example sqrt or log at 0, or a division by 0)"
    )
    spelled = _SAFE_SPELLINGS.get(op.op)
    rewritten = add_epsilon(line, spelled, "1e-12") if spelled else None
    if rewritten is not None:
        return message, (
            f"Keep the input of {op.op} away from 0 with a small number: "
            f"{rewritten.strip()}"
        )
    return message, (
        f"Keep the input of {op.op} away from those points, e.g. add a small "
        "epsilon or clip it with tf.maximum"
    )


# How the user may call the ops a small number keeps away from 0.
_SAFE_SPELLINGS = {
    "sqrt": ("tf.sqrt", "tf.math.sqrt"),
    "log": ("tf.math.log", "tf.log"),
}


declare_cause(
    "nan_gradient",
    code="TM017",
    doc="the gradient exists but holds NaN or Inf",
    detect=[Detector("nan", 10, _find_nan)],
    words=_nan_gradient_words,
    severity="warning",
)
