"""The gradient requests an explanation log heard: one record, one writer.

:class:`Requests` keeps, for every ``gradient``/``jacobian``/``batch_jacobian``
request, what was asked and what it answered, and the cotangent reaching each
node of its backward sweep (its shape and norm: the norms are taken in one
NumPy pass per request, never one call per node). Only its own methods write
it; the log's gradient handlers call them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .previews import glimpse

__all__ = ["Requests"]


class Requests:
    """The requests of one log, in the order they were asked.

    Attributes:
        requests: one dict per request (kind, tape, where, line, code, here,
            via, targets, sources, results, flags, error, ...).
        cotangents: ``(request number, tensor id, shape, norm, is_result)`` for
            the cotangent reaching each node of a request's backward sweep, in
            sweep order, then one per source for the gradient it got.
        edges: ``(request number, output id, shape, norm, input id)`` for the
            cotangent each node of a sweep passed to one of its inputs (the
            node named by its first output), summed where the node uses the
            input twice.
        current: the number of the request whose computation runs now, or None.
    """

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.cotangents: list[tuple] = []
        self.edges: list[tuple] = []
        self.current: int | None = None
        self._pending: list[int] = []
        # Cotangents whose norms are still to be computed, in one NumPy pass
        # per gradient request (or per _NORM_BATCH_BYTES): their positions in
        # self.cotangents or self.edges, where they hold the array in the
        # norm's place (fourth).
        self._unnormed: list[tuple[list, int]] = []
        self._unnormed_bytes = 0

    @property
    def open(self) -> int:
        """How many requests are asked and not answered yet (nested sweeps)."""
        return len(self._pending)

    def ask(self, request: dict) -> int:
        """A request starts: ops until its answer belong to it. Its number."""
        number = len(self.requests)
        self.requests.append(request)
        self._pending.append(number)
        self.current = number
        return number

    def close(self) -> int:
        """The innermost open request finished: its number (what it answered
        follows, through :meth:`answer`)."""
        self.flush_norms()
        number = self._pending.pop()
        self.current = self._pending[-1] if self._pending else None
        return number

    def answer(self, number: int, answered: dict, results: tuple | None) -> None:
        """What request ``number`` was asked about (``answered``: its targets,
        sources, error...) and its gradients (``results``; None when it
        raised)."""
        request = self.requests[number]
        request.update(answered)
        if results is not None:
            request["results"] = tuple(_summary(g) for g in results)
            request["flags"] = tuple(_flags(g) for g in results)

    def result(self, number: int, key: int, g: Any) -> None:
        """Request ``number`` gave the source ``key`` the gradient ``g``."""
        self._add(number, key, g, True)

    def reached(self, reached: Any, known: dict) -> None:
        """The open request's sweep reached these nodes with these cotangents
        (``(output ids, cotangent or tuple of them)`` pairs); only values in
        ``known`` are kept."""
        if not self._pending:
            return
        number = self._pending[-1]
        cotangents, unnormed = self.cotangents, self._unnormed
        held = 0
        for output_ids, g in reached:
            if type(g) is not tuple:  # one output: the common case
                key = output_ids[0]
                if key in known:
                    unnormed.append((cotangents, len(cotangents)))
                    cotangents.append((number, key, g.shape, g, False))
                    held += g.nbytes
                continue
            for key, array in zip(output_ids, g):
                if key in known:
                    self._add(number, key, array, False)
        self._unnormed_bytes += held
        if self._unnormed_bytes > _NORM_BATCH_BYTES:
            self.flush_norms()

    def flowed(self, flowed: Any, known: dict) -> None:
        """The open request's sweep passed these cotangents from nodes to their
        inputs (``(output ids, input ids, cotangents)`` per node); only edges
        between values in ``known`` are kept."""
        if not self._pending or not flowed:
            return
        number = self._pending[-1]
        for output_ids, input_ids, arrays in flowed:
            key = output_ids[0]
            if key not in known:
                continue
            shares: dict = {}
            for input_id, array in zip(input_ids, arrays):
                if array is None or input_id not in known:
                    continue
                held = shares.get(input_id)
                shares[input_id] = array if held is None else held + array
            for input_id, array in shares.items():
                self._keep(self.edges, (number, key, array.shape, array, input_id))

    def _add(self, number: int, key: int, array: Any, result: bool) -> None:
        self._keep(self.cotangents, (number, key, array.shape, array, result))

    def _keep(self, kept: list, entry: tuple) -> None:
        """Append ``entry`` (its array fourth) to ``kept``; its norm comes later."""
        self._unnormed.append((kept, len(kept)))
        kept.append(entry)
        self._unnormed_bytes += entry[3].nbytes
        if self._unnormed_bytes > _NORM_BATCH_BYTES:
            self.flush_norms()

    def flush_norms(self) -> None:
        """Put the norms of the kept cotangents in their place, and drop them."""
        if not self._unnormed:
            return
        norms = _norms([kept[i][3] for kept, i in self._unnormed])
        for (kept, i), norm in zip(self._unnormed, norms):
            number, key, shape, _, last = kept[i]
            kept[i] = (number, key, shape, norm, last)
        self._unnormed = []
        self._unnormed_bytes = 0


def _flags(g: Any) -> tuple[bool, bool, bool]:
    """``(has NaN, has Inf, all zeros)`` of one gradient result (an array)."""
    if g is None:
        return (False, False, False)
    array = np.asarray(g)
    if array.dtype.kind not in "fc":
        return (False, False, not array.any())
    return (bool(np.isnan(array).any()), bool(np.isinf(array).any()), not array.any())


def _summary(g: Any) -> tuple:
    """``(is_none, shape, numpy dtype, glimpse)`` of one gradient result."""
    if g is None:
        return (True, None, None, None)
    array = np.asarray(g)
    return (False, array.shape, array.dtype, glimpse(array))


# The log keeps cotangents for their norms only until this many bytes are held.
_NORM_BATCH_BYTES = 1 << 20


def _norms(arrays: list) -> list[float]:
    """Frobenius norms of several arrays, in one NumPy pass over all of them.

    NaN or inf in an array gives a NaN or inf norm; an empty array's is 0.
    A backward sweep reaches hundreds of small cotangents: a NumPy call each
    would cost more than the sweep.
    """
    flat = [a.ravel() for a in arrays]  # arrays and NumPy scalars alike
    sizes = np.array([f.size for f in flat], dtype=np.intp)
    # in double precision: float32 squares under- and overflow long before
    # the norms they add up to would
    values = np.concatenate(flat)
    values = values.astype(np.result_type(values.dtype, np.float64), copy=False)
    if values.dtype.kind == "c":
        squares = values.real * values.real + values.imag * values.imag
    else:
        squares = values * values
    sums = np.zeros(len(flat), dtype=squares.dtype)
    filled = sizes > 0
    if filled.any():
        starts = np.cumsum(sizes) - sizes
        sums[filled] = np.add.reduceat(squares, starts[filled])
    return np.sqrt(sums).tolist()
