"""Notes on gradients of zeros: which op on the path passed back only zeros.

A gradient of zeros is not a None: the source is connected and TensorFlow's
answer is right. It is still often a bug (every relu unit inactive, a
saturated sigmoid, a ``tf.where`` that never picks the branch computed from
the source), so the diagnosis says where the zeros came from, as a note: a
finding of severity ``"note"``, never an error.

The backward sweep tells the norm of the cotangent that reached each value
(:class:`~tapemagic.graph.model.GradientValue`); the op that zeroed the
gradient is the one, nearest the target, whose output got a nonzero
cotangent while its inputs on the path from the source got only zeros.
"""

from __future__ import annotations

from ..cause import Break, Detector, Query, declare_cause
from ..facts import Facts
from ..model import OpNode
from ..words import Words

__all__: list[str] = []


def _find_zeroing_op(facts: Facts, q: Query) -> Break | None:
    request = q.request
    if request is None:
        return None
    norms: dict[str, float] = {}
    for gv in facts.graph.gradient_values:
        if gv.request == request.id and gv.op is not None:
            norms[gv.value] = norms.get(gv.value, 0.0) + gv.norm
    reach = facts.forward(q, recorded=True)
    anc, _, _ = facts.ancestors(q)
    zeroing = [
        op
        for op in facts.graph.ops
        if op.op in _ZEROING
        and op.seq < q.before
        and op.during is None
        and any(norms.get(o, 0.0) > 0 for o in op.outputs if o in anc)
        and any(i in reach for i in op.inputs)
        and all(norms.get(i, 0.0) == 0 for i in op.inputs if i in reach)
        and all(_used_once(facts, i, anc) for i in op.inputs if i in reach)
    ]
    if not zeroing:
        return None
    op = max(zeroing, key=lambda o: o.seq)
    # The input on the source's side: the branch of a where, a factor.
    side = next(i for i, v in enumerate(op.inputs) if v in reach)
    return Break(op, op.line, op.seq, side, q.source)


# Ops whose zero slope is worth a note: a unit that never fires, a saturated
# squashing function, a branch never taken, a clip that takes every element, a
# factor of zero, a step function. (A smooth op at a stationary point, square
# at 0 say, is a minimum reached, not a mistake: no note.)
_ZEROING = frozenset(
    {
        "relu",
        "relu6",
        "sigmoid",
        "tanh",
        "where",
        "clip_by_value",
        "maximum",
        "minimum",
        "multiply",
        "matmul",
        "sign",
    }
)


def _used_once(facts: Facts, value: str, anc: set[str]) -> bool:
    """Whether one use of ``value`` leads to the target: a value used twice
    (``w - w``) may get zeros that are a sum cancelling out, no op's doing."""
    uses = [
        op
        for op, _ in facts.index.uses(value)
        if op.during is None and any(o in anc for o in op.outputs)
    ]
    return len(uses) == 1


def _zero_gradient_words(w: Words, b: Break) -> tuple[str, str]:
    op: OpNode = b.op
    s, t = w.source, w.target
    at = w.at(b.line)
    name = op.op
    if name == "relu":
        return (
            f"every unit of relu {at} was inactive (each input was 0 or below), "
            f"so relu passed no gradient back towards {s}",
            "Start from weights that make some units active (small random "
            "weights, a positive bias), or use tf.nn.leaky_relu, whose slope "
            "below 0 is not 0",
        )
    if name in ("sigmoid", "tanh"):
        return (
            f"{name} {at} is saturated: its inputs are so far from 0 that its "
            "slope is 0 in float32, so it passed no gradient back",
            "Scale the inputs down (normalize them, or start from smaller "
            f"weights), or compute {t} from the logits, e.g. with "
            "tf.nn.sigmoid_cross_entropy_with_logits",
        )
    if name == "where":
        branch = "first" if b.detail == 1 else "second"
        return (
            f"tf.where {at} never picked its {branch} branch, the one computed "
            f"from {s}, so the gradient that reached it is all zeros",
            f"Check the condition of tf.where: for these values it always picks "
            f"the branch that does not depend on {s}",
        )
    if name in ("multiply", "matmul"):
        product = "multiplication" if name == "multiply" else "matrix product"
        return (
            f"the other factor of the {product} {at} is all zeros, so the "
            f"product passes no gradient back to {s}",
            "Check the value of the other factor: a zero there zeroes the gradient",
        )
    if name == "sign":
        return (
            f"tf.sign {at} has a slope of 0 everywhere, so it passes no gradient back",
            "Use a smooth stand-in where the gradient should pass, e.g. "
            "tf.tanh(10.0 * x) instead of tf.sign(x)",
        )
    # clip_by_value, maximum, minimum, relu6
    return (
        f"{w.op(op)} {at} clipped every element, and a clipped element "
        "passes no gradient back",
        f"Check the bounds of {name}: with these values no element is inside them",
    )


declare_cause(
    "zero_gradient",
    code="TM026",
    doc="the gradient is all zeros: the op that zeroed it (a note)",
    detect=[Detector("zero", 10, _find_zeroing_op)],
    words=_zero_gradient_words,
    severity="note",
)
