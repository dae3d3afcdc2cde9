"""The reverse sweep: one walk back over a tape's nodes.

A node is the tuple ``(op, inputs, outputs, params)`` that a tape recorded. The
sweep first marks the nodes that depend on a source (a forward pass over the
tape), then walks those backwards, calling each VJP only for inputs that lead to
a source. Cotangents may carry leading batch axes, so one sweep seeded with an
identity gives a whole jacobian.

One loop walks the nodes, in one of two namespaces (engine/namespace.py): on
NumPy arrays when nothing records the sweep, on engine tensors when an outer
tape or an explanation log follows the VJPs' ops. The namespace is the loop's
only parameter; each node's VJP is called by its op (``Op.add_gradients``).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .context import state
from .eager_tensor import constant_of, tensor_of
from .events import CotangentsReached
from .namespace import ARRAYS, TENSORS, Namespace
from .op import Op
from .tensor import Tensor

__all__ = ["Node", "backward", "sweep_observers"]

Node = tuple  # (op: Op, inputs: tuple[Tensor], outputs: tuple[Tensor], params: dict)


class _SweepObservers(threading.local):
    def __init__(self) -> None:
        # Listeners told of the cotangents arriving at the nodes, in batches
        # (a CotangentsReached event, see recorder.py). A gradient request
        # puts its tape's listeners here while it runs; empty, the sweep pays
        # one attribute read.
        self.observers: list = []


sweep_observers = _SweepObservers()

# A sweep hands its listeners the cotangents it reached once this many are
# held, or at once for one this large: a batch keeps at most about 1 MiB alive.
_BATCH = 64
_HELD_ALONE = 16384


class _Reached(list):
    """The ``(output_ids, cotangent)`` pairs a sweep reached, not yet told, and
    what each node passed on to its inputs (``flowed``)."""

    __slots__ = ("flowed", "held", "listeners")

    def __init__(self, listeners: list) -> None:
        super().__init__()
        self.listeners = listeners
        self.flowed: list = []
        self.held = 0

    def flow(self, ns: Namespace, node: Node, gs: tuple) -> None:
        """Node ``node`` gave its inputs the cotangents ``gs`` (None: none).
        Kept as given (values of ``ns``), made an event's tuples when told."""
        self.flowed.append((node, gs))
        held = self.held
        for g in gs:
            if g is not None:
                held += (g if ns is ARRAYS else g._value).nbytes
        self.held = held
        if len(self) >= _BATCH or held >= _HELD_ALONE:
            self.tell()

    def tell(self) -> None:
        if self or self.flowed:
            flowed = tuple(
                [
                    (
                        tuple([o._id for o in node[2]]),
                        tuple([t._id for t in node[1]]),
                        tuple([_array(g) for g in gs]),
                    )
                    for node, gs in self.flowed
                ]
            )
            event = CotangentsReached(tuple(self), flowed)
            self.clear()
            self.flowed = []
            self.held = 0
            for listener in self.listeners:
                listener.on_cotangents(event)


def _array(g: Any) -> Any:
    """A cotangent as an array (None stays None)."""
    return g._value if isinstance(g, Tensor) else g


def backward(
    nodes: list[Node], seeds: dict[int, Tensor], source_ids: set[int]
) -> dict[int, Tensor]:
    """Propagate ``seeds`` (cotangents keyed by tensor id) back to the sources.

    Args:
        nodes: recorded nodes in execution order.
        seeds: the cotangent of each target; all share the same batch axes.
        source_ids: ids of the tensors whose gradients are wanted.

    Returns:
        Cotangents keyed by id; a source absent from it is unconnected.
    """
    # The nodes that depend on a source, and the tensors that do. A recorded
    # node has an input and an output; most have one of each.
    reach = set(source_ids)
    relevant = []
    keep, add = relevant.append, reach.add
    for node in nodes:
        inputs = node[1]
        if inputs[0]._id in reach or (
            len(inputs) > 1 and not reach.isdisjoint([t._id for t in inputs])
        ):
            keep(node)
            outputs = node[2]
            if len(outputs) == 1:
                add(outputs[0]._id)
            else:
                reach.update([o._id for o in outputs])
    listeners = sweep_observers.observers
    reached = _Reached(listeners) if listeners else None
    # Someone records the VJPs' ops (an outer tape: higher derivatives) or logs
    # every op that runs (an explanation log inside its cell): run the VJPs as
    # engine ops. Otherwise on the arrays.
    ns = TENSORS if state.tapes or state.observers else ARRAYS
    try:
        grads = _sweep(
            ns, relevant, {key: ns.of(t) for key, t in seeds.items()},
            source_ids, reach, reached,
        )  # fmt: skip
    finally:
        if reached is not None:
            reached.tell()
    if ns is TENSORS:
        return grads
    return {key: tensor_of(g) for key, g in grads.items()}


def _sweep(ns: Namespace, relevant: list[Node], grads: dict, source_ids: set[int],
           reach: set[int], reached: Any) -> dict:  # fmt: skip
    """Walk ``relevant`` backwards with each VJP in ``ns``; ``grads`` holds
    the cotangents reached so far, values of ``ns``, and is returned."""
    of = ns.of
    on_arrays = ns is ARRAYS
    get, pop = grads.get, grads.pop
    for node in reversed(relevant):
        op, inputs, outputs, params = node
        if op.multi_output:
            if on_arrays and not op.on_arrays:  # a user function on tensors
                _tensor_vjp_on_arrays(node, grads, source_ids, reach, reached)
                continue
            g = _multi_output_cotangent(ns, grads, outputs, source_ids)
            if g is None:
                continue
            out = tuple([of(o) for o in outputs])
            if reached is not None:
                value = ns.value
                reached.append(
                    (tuple([o._id for o in outputs]), tuple([value(x) for x in g]))
                )
        else:
            key = outputs[0]._id
            g = get(key) if key in source_ids else pop(key, None)
            if g is None:
                continue
            out = outputs[0]._value if on_arrays else outputs[0]  # (no call: hot)
            if reached is not None:
                value = ns.value(g)
                reached.append(((key,), value))
                reached.held += value.nbytes
        try:
            if op.batched or not _has_batch_axes(ns, g, out):
                if reached is None:
                    op.add_gradients(ns, g, out, inputs, params, reach, grads)
                else:  # each input's own share, for the listeners
                    gs = op.gradients(ns, g, out, inputs, params, reach)
                    _accumulate(grads, zip(inputs, gs), reach)
                    reached.flow(ns, node, gs)
            else:  # a custom gradient takes one cotangent at a time
                gs = _looped_vjp(op, g, out, inputs, params, reach)
                _accumulate(grads, zip(inputs, gs), reach)
                if reached is not None:
                    reached.flow(ns, node, gs)
        except ValueError:
            if not on_arrays:
                raise
            # An op of the rule refused its input (a singular matrix...): run
            # the rule on tensors instead, which raises the engine's error
            # naming the op.
            for o, go in zip(outputs, g if op.multi_output else (g,)):
                grads[o._id] = go
            _tensor_vjp_on_arrays(node, grads, source_ids, reach, None)
    return grads


def _accumulate(grads: dict, pairs: Any, reach: set[int]) -> None:
    """Add each ``(input, cotangent)`` pair's cotangent to what its input has."""
    for t, gt in pairs:
        key = t._id
        if gt is None or key not in reach:
            continue
        previous = grads.get(key)
        grads[key] = gt if previous is None else previous + gt


def _has_batch_axes(ns: Namespace, g: Any, out: Any) -> bool:
    if isinstance(g, tuple):
        g, out = g[0], out[0]
    return ns.ndim(g) != ns.ndim(out)


def _multi_output_cotangent(ns: Namespace, grads: dict, outputs: tuple,
                            source_ids: set[int]) -> tuple | None:  # fmt: skip
    """The cotangents of a multi-output node: zeros for outputs that have none."""
    gs = [
        grads.get(o._id) if o._id in source_ids else grads.pop(o._id, None)
        for o in outputs
    ]
    first = next(((g, o) for g, o in zip(gs, outputs) if g is not None), None)
    if first is None:
        return None
    shape = ns.shape(first[0])
    batch = shape[: len(shape) - first[1]._value.ndim]
    zero = constant_of if ns is TENSORS else ns.constant
    return tuple(
        g if g is not None else zero(np.zeros(batch + o._value.shape, o._value.dtype))
        for g, o in zip(gs, outputs)
    )


def _tensor_vjp_on_arrays(node: Node, grads: dict, source_ids: set[int],
                          reach: set[int], reached: Any) -> None:  # fmt: skip
    """One node of an array sweep through the op's VJP on tensors.

    The node's inputs join the one-node sweep with what they have so far, so an
    input used twice (``concat([x, x])``) sums its cotangents in the order the
    tensor sweep does: both sweeps give the same bits.
    """
    op, inputs, outputs, params = node
    keys = [o._id for o in outputs]
    if not any(k in grads for k in keys):
        return
    sub = {k: tensor_of(grads[k]) for k in keys if k in grads}
    for k in sub:
        if k not in source_ids:
            del grads[k]
    for t in inputs:
        if t._id in grads and t._id not in sub:
            sub[t._id] = tensor_of(grads[t._id])
    results = _sweep(TENSORS, [node], sub, source_ids, reach, reached)
    for t in inputs:
        if t._id in results and t._id not in keys:
            grads[t._id] = results[t._id]._value


def _looped_vjp(op: Op, g, out, inputs, params, reach: set[int]) -> tuple:
    """VJP for an op whose rule takes one cotangent at a time (custom gradients)."""
    multi = isinstance(g, tuple)
    first, first_out = (g[0], out[0]) if multi else (g, out)
    nb = first._value.ndim - first_out._value.ndim
    batch = first._value.shape[:nb]
    count = int(np.prod(batch, dtype=np.int64))

    def flat(t: Tensor) -> tuple[Tensor, ...]:
        shape = (count,) + t._value.shape[nb:]
        rows = t if t._value.shape == shape else TENSORS.reshape(t, shape=shape)
        return TENSORS.unstack(rows, axis=0)

    rows = list(zip(*[flat(t) for t in g])) if multi else [(r,) for r in flat(g)]
    per_row = [
        op.gradients(TENSORS, row if multi else row[0], out, inputs, params, reach)
        for row in rows
    ]
    result = []
    for i, t in enumerate(inputs):
        column = [r[i] for r in per_row]
        if any(c is None for c in column):
            result.append(None)
            continue
        stacked = TENSORS.stack(*column, axis=0)
        shape = batch + t._value.shape
        if stacked._value.shape != shape:
            stacked = TENSORS.reshape(stacked, shape=shape)
        result.append(stacked)
    return tuple(result)
