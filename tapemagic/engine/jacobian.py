"""``jacobian`` and ``batch_jacobian``: one batched backward sweep.

A jacobian of a target with ``m`` elements seeds the tape's sweep with an
identity of shape ``(m,) + target.shape``, so every row comes out of one
sweep; ``batch_jacobian`` seeds the identity of one example's elements on
every example at once. A sweep whose cotangents would hold more than
``JACOBIAN_CHUNK_ELEMENTS`` elements per tensor is split into several, row
blocks concatenated. ``GradientTape.jacobian`` and ``batch_jacobian`` call
these with the tape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import nest
from .eager_tensor import constant_of
from .ops import shape as _shape
from .request import (
    UnconnectedGradients,
    _as_sources,
    _as_target,
    _differentiable_ids,
    _result,
    _unconnected_mode,
)
from .tensor import Tensor, Variable

__all__ = ["JACOBIAN_CHUNK_ELEMENTS", "batch_jacobian", "jacobian"]

# Largest number of cotangent elements one jacobian sweep may hold per tensor;
# bigger jacobians are split into several sweeps of this many rows.
JACOBIAN_CHUNK_ELEMENTS = 1 << 24


def jacobian(tape: Any, target: Any, sources: Any, unconnected_gradients: Any,
             experimental_use_pfor: bool) -> Any:  # fmt: skip
    """``tape.jacobian(target, sources)``: shape target + source for each source."""
    mode, y = _begin(tape, "jacobian", target, unconnected_gradients,
                     experimental_use_pfor)  # fmt: skip
    flat_sources = _as_sources(sources)
    shape = y._value.shape
    size = y._value.size
    wanted = _differentiable_ids(flat_sources, tape._tracked, "jacobian")
    eye = np.eye(size, dtype=y._value.dtype).reshape((size,) + shape)
    grads = {}
    if y._id in tape._tracked:
        # NOTE: a target the tape never saw is unconnected even to itself:
        # TensorFlow reshapes it on the tape first, which records nothing.
        grads = _chunked_sweeps(tape, y, eye, wanted, flat_sources)
    results = []
    for s in flat_sources:
        g = grads.get(s._id)
        if g is not None:
            g = _shape.reshape(g, shape + s._value.shape)
        results.append(_result(g, s, mode, shape + s._value.shape))
    tape._finish()
    return nest.pack_sequence_as(sources, results)


def batch_jacobian(tape: Any, target: Any, source: Any, unconnected_gradients: Any,
                   experimental_use_pfor: bool) -> Tensor:  # fmt: skip
    """``tape.batch_jacobian(target, source)``: per-example jacobians."""
    mode, y = _begin(tape, "batch_jacobian", target, unconnected_gradients,
                     experimental_use_pfor)  # fmt: skip
    (x,) = _as_sources([source])
    yshape, xshape = y._value.shape, x._value.shape
    for what, shape in (("target", yshape), ("source", xshape)):
        if len(shape) < 2:
            raise ValueError(
                f"batch_jacobian needs a {what} of rank at least 2 (batch, ...), "
                f"got shape {shape}. Use jacobian() for unbatched values."
            )
    if yshape[0] != xshape[0]:
        raise ValueError(
            f"Need first dimension of target shape {yshape} and source shape "
            f"{xshape} to match: both are the batch size."
        )
    rows = int(np.prod(yshape[1:], dtype=np.int64))
    eye = np.eye(rows, dtype=y._value.dtype).reshape((rows, 1) + yshape[1:])
    seed = np.broadcast_to(eye, (rows,) + yshape)
    wanted = _differentiable_ids([x], tape._tracked, "batch_jacobian")
    g = None
    if y._id in tape._tracked:  # as in jacobian
        g = _chunked_sweeps(tape, y, seed, wanted, [x]).get(x._id)
    tape._finish()
    out_shape = yshape + xshape[1:]
    if g is None or x._value.dtype.kind not in "fc":
        # NOTE: never None, as in TensorFlow: zeros in the target's dtype,
        # or in the source's when zeros were asked for (each row's answer)
        zero = x if mode is UnconnectedGradients.ZERO else y
        return constant_of(np.zeros(out_shape, zero._value.dtype))
    g = _shape.transpose(g, (1, 0) + tuple(range(2, g._value.ndim)))
    return _shape.reshape(g, out_shape)


def _begin(
    tape: Any, what: str, target: Any, unconnected_gradients: Any, use_pfor: bool
) -> tuple[UnconnectedGradients, Tensor]:
    """What both jacobians do first: check the tape, end a non-persistent
    tape's recording, and read the target on the tape."""
    tape._check_usable(what)
    if not use_pfor and not tape._persistent:
        raise RuntimeError(
            "GradientTape must be created with persistent=True to compute the "
            f"{what} with experimental_use_pfor=False."
        )
    mode = _unconnected_mode(unconnected_gradients)
    if tape._recording and not tape._persistent:
        tape._pop()
    # TensorFlow's jacobians first reshape the target on the tape: a
    # variable target is read there, so a tape that watches accessed
    # variables watches it (trainable) before it asks for the answer.
    if isinstance(target, Variable) and tape._watch_accessed:
        variable = target._handle
        if variable._trainable:
            tape._watch_variable(variable)
    return mode, _as_target(target, 0, what=f"{what} target")


def _chunked_sweeps(tape: Any, y: Tensor, seed: np.ndarray, wanted: set[int],
                    sources: list) -> dict:  # fmt: skip
    rows = seed.shape[0]
    largest = max(
        [o._value.size for node in tape._nodes for o in node[2]] + [y._value.size]
    )
    chunk = max(1, JACOBIAN_CHUNK_ELEMENTS // max(1, largest))
    if rows <= chunk:
        return tape._sweep({y._id: constant_of(np.ascontiguousarray(seed))}, wanted)
    parts: dict[int, list] = {s._id: [] for s in sources}
    for start in range(0, rows, chunk):
        block = np.ascontiguousarray(seed[start : start + chunk])
        grads = tape._sweep({y._id: constant_of(block)}, wanted)
        for key, part in parts.items():
            part.append(grads.get(key))
    return {
        key: _shape.concat(part, axis=0)
        for key, part in parts.items()
        if all(p is not None for p in part)
    }
