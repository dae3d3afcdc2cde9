"""The reverse sweep: one walk back over a tape's nodes.

A node is the tuple ``(op, inputs, outputs, params)`` that a tape recorded. The
sweep first marks the nodes that depend on a source (a forward pass over the
tape), then walks those backwards, calling each VJP only for inputs that lead to
a source. Cotangents may carry leading batch axes, so one sweep seeded with an
identity gives a whole jacobian.

Each VJP runs in one of two namespaces (engine/namespace.py): on NumPy arrays
when nothing records the sweep, on engine tensors when an outer tape or an
explanation log follows the VJPs' ops.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .context import state
from .eager_tensor import constant_of, tensor_of
from .events import CotangentsReached
from .namespace import ARRAYS, TENSORS
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
    """The ``(output_ids, cotangent)`` pairs a sweep reached, not yet told."""

    __slots__ = ("listeners",)

    def __init__(self, listeners: list) -> None:
        super().__init__()
        self.listeners = listeners

    def tell(self) -> None:
        if self:
            event = CotangentsReached(tuple(self))
            self.clear()
            for listener in self.listeners:
                listener.on_cotangents(event)


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
    reach = set(source_ids)
    relevant = []
    for node in nodes:
        for t in node[1]:
            if t._id in reach:
                relevant.append(node)
                for out in node[2]:
                    reach.add(out._id)
                break
    listeners = sweep_observers.observers
    reached = _Reached(listeners) if listeners else None
    try:
        if state.tapes or state.observers:
            # Someone records the VJPs' ops (an outer tape: higher derivatives)
            # or logs every op that runs (an explanation log inside its cell):
            # run the VJPs as engine ops.
            return _sweep_tensors(relevant, dict(seeds), source_ids, reach, reached)
        arrays = {key: t._value for key, t in seeds.items()}
        grads = _sweep_arrays(relevant, arrays, source_ids, reach, reached)
    finally:
        if reached is not None:
            reached.tell()
    return {key: tensor_of(g) for key, g in grads.items()}


def _sweep_tensors(relevant: list[Node], grads: dict, source_ids: set[int],
                   reach: set[int], reached: Any) -> dict[int, Tensor]:  # fmt: skip
    for op, inputs, outputs, params in reversed(relevant):
        if op.multi_output:
            g = _multi_output_cotangent(grads, outputs, source_ids)
            if g is None:
                continue
            out = outputs
            batched = g[0]._value.ndim != outputs[0]._value.ndim
        else:
            out = outputs[0]
            key = out._id
            g = grads.get(key) if key in source_ids else grads.pop(key, None)
            if g is None:
                continue
            batched = g._value.ndim != out._value.ndim
        if reached is not None:
            if op.multi_output:
                reached.append(
                    (tuple([o._id for o in outputs]), tuple(t._value for t in g))
                )
                reached.tell()
            else:
                value = g._value
                reached.append(((key,), value))
                if len(reached) >= _BATCH or value.nbytes >= _HELD_ALONE:
                    reached.tell()
        if batched and not op.batched:
            pairs = zip(inputs, _looped_vjp(op, g, out, inputs, params, reach))
        elif op.per_input:
            # Only the inputs that lead to a source: a matmul whose left operand
            # is data never computes that operand's gradient.
            pairs = [
                (t, fn(TENSORS, g, out, *inputs, **params))
                for fn, t in zip(op.vjp, inputs)
                if fn is not None and t._id in reach
            ]
        else:
            pairs = zip(inputs, op.vjp(TENSORS, g, out, *inputs, **params))
        _accumulate(grads, pairs, reach)
    return grads


def _accumulate(grads: dict, pairs: Any, reach: set[int]) -> None:
    """Add each ``(input, cotangent)`` pair's cotangent to what its input has."""
    for t, gt in pairs:
        key = t._id
        if gt is None or key not in reach:
            continue
        previous = grads.get(key)
        grads[key] = gt if previous is None else previous + gt


def _sweep_arrays(relevant: list[Node], grads: dict, source_ids: set[int],
                  reach: set[int], reached: Any) -> dict:  # fmt: skip
    """The sweep on NumPy arrays: each op's VJP in the array namespace."""
    ns = ARRAYS
    get, pop = grads.get, grads.pop
    for node in reversed(relevant):
        op, inputs, outputs, params = node
        if op.multi_output:
            if not op.on_arrays:  # a custom gradient: a user function on tensors
                _tensor_vjp_on_arrays(node, grads, source_ids, reach, reached)
                continue
            g = _multi_output_arrays(grads, outputs, source_ids)
            if g is None:
                continue
            out = tuple([o._value for o in outputs])
        else:
            key = outputs[0]._id
            g = get(key) if key in source_ids else pop(key, None)
            if g is None:
                continue
            out = outputs[0]._value
        if reached is not None:
            if op.multi_output:
                reached.append((tuple([o._id for o in outputs]), g))
                reached.tell()
            else:
                reached.append(((key,), g))
                if len(reached) >= _BATCH or g.nbytes >= _HELD_ALONE:
                    reached.tell()
        vjp = op.vjp
        try:
            # (Calls spell out **params only when there are any: an empty
            # mapping unpacked costs more than most VJPs on small arrays.)
            if len(inputs) == 1 and not op.per_input:  # most ops: no lists
                (t,) = inputs
                key = t._id
                if key in reach:
                    if params:
                        (gt,) = vjp(ns, g, out, t._value, **params)
                    else:
                        (gt,) = vjp(ns, g, out, t._value)
                    if gt is not None:
                        previous = get(key)
                        grads[key] = gt if previous is None else previous + gt
                continue
            if op.per_input and len(inputs) == 2:  # add, multiply, matmul
                a, b = inputs
                fa, fb = vjp[0], vjp[1]
                ka, kb = a._id, b._id
                ga = gb = None
                if fa is not None and ka in reach:
                    if params:
                        ga = fa(ns, g, out, a._value, b._value, **params)
                    else:
                        ga = fa(ns, g, out, a._value, b._value)
                if fb is not None and kb in reach:
                    if params:
                        gb = fb(ns, g, out, a._value, b._value, **params)
                    else:
                        gb = fb(ns, g, out, a._value, b._value)
                # (both computed first: the fallback below starts afresh)
                if ga is not None:
                    previous = get(ka)
                    grads[ka] = ga if previous is None else previous + ga
                if gb is not None:
                    previous = get(kb)
                    grads[kb] = gb if previous is None else previous + gb
                continue
            if op.per_input:
                values = [t._value for t in inputs]
                pairs = [
                    (t, fn(ns, g, out, *values, **params))
                    for fn, t in zip(vjp, inputs)
                    if fn is not None and t._id in reach
                ]
            else:
                values = [t._value for t in inputs]
                pairs = list(zip(inputs, vjp(ns, g, out, *values, **params)))
        except ValueError:
            # An op of the rule refused its input (a singular matrix...): run
            # the rule on tensors instead, which raises the engine's error
            # naming the op.
            for o, go in zip(outputs, g if op.multi_output else (g,)):
                grads[o._id] = go
            _tensor_vjp_on_arrays(node, grads, source_ids, reach, None)
            continue
        _accumulate(grads, pairs, reach)
    return grads


def _multi_output_arrays(grads: dict, outputs: tuple, source_ids: set[int]):
    """The cotangents of a multi-output node: zeros for outputs that have none."""
    gs = [
        grads.get(o._id) if o._id in source_ids else grads.pop(o._id, None)
        for o in outputs
    ]
    present = [(g, o) for g, o in zip(gs, outputs) if g is not None]
    if not present:
        return None
    first, first_out = present[0]
    batch = first.shape[: first.ndim - first_out._value.ndim]
    return tuple(
        g if g is not None else np.zeros(batch + o._value.shape, o._value.dtype)
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
    results = _sweep_tensors([node], sub, source_ids, reach, reached)
    for t in inputs:
        if t._id in results and t._id not in keys:
            grads[t._id] = results[t._id]._value


def _vjp(op: Op, g, out, inputs: tuple, params: dict, reach: set[int]) -> tuple:
    ns = TENSORS
    if op.per_input:
        return tuple(
            fn(ns, g, out, *inputs, **params)
            if fn is not None and t._id in reach
            else None
            for fn, t in zip(op.vjp, inputs)
        )
    return op.vjp(ns, g, out, *inputs, **params)


def _multi_output_cotangent(grads: dict, outputs: tuple, source_ids: set[int]):
    gs = [
        grads.get(o._id) if o._id in source_ids else grads.pop(o._id, None)
        for o in outputs
    ]
    present = [g for g in gs if g is not None]
    if not present:
        return None
    first = next((g, o) for g, o in zip(gs, outputs) if g is not None)
    batch = first[0]._value.shape[: first[0]._value.ndim - first[1]._value.ndim]
    return tuple(
        g
        if g is not None
        else constant_of(np.zeros(batch + o._value.shape, o._value.dtype))
        for g, o in zip(gs, outputs)
    )


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
        _vjp(op, row if multi else row[0], out, inputs, params, reach) for row in rows
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
