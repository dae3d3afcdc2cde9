"""``shuffle``: elements in tapemagic's own random order.

TensorFlow's order cannot be reproduced, so the order is tapemagic's own. A
buffer of ``buffer_size`` elements is filled from the input; each output is
drawn uniformly from the buffer and its slot refilled with the next input
element (when the buffer holds the whole of a sliced or ``range`` source, that
is a uniform permutation, drawn in one call). A source's rows are then gathered
by index, a block at a time, instead of passing one row at a time.

The draws come from a NumPy generator seeded, by TensorFlow's rules, from
``seed`` and ``tf.random.set_seed``: with either, the orders repeat from run to
run; with ``reshuffle_each_iteration=True`` each pass over the dataset has a new
order, the k-th pass the same in every run.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..engine.random_seed import get_seed
from .step import BLOCK, INT64_MAX, Chunk, Step, UnaryStep, one_row

__all__ = ["Shuffle"]


class Shuffle(UnaryStep):
    """The input's elements drawn at random from a buffer of ``buffer_size``.

    A negative ``buffer_size`` (``UNKNOWN_CARDINALITY``) holds everything.

    Example:
        >>> from tapemagic.data import Dataset
        >>> ds = Dataset.range(5).shuffle(5, seed=1)
        >>> sorted(ds.as_numpy_iterator()) == list(range(5))
        True
    """

    def __init__(
        self, input_dataset: Step, buffer_size: int, seed: Any, reshuffle: bool
    ) -> None:
        super().__init__(input_dataset)
        global_seed, op_seed = get_seed(seed)
        if op_seed is None:
            # no seed anywhere: fresh entropy, drawn once, so that
            # reshuffle_each_iteration=False repeats one order
            global_seed, op_seed = 0, int(np.random.default_rng().integers(2**62))
        self._seeds = [global_seed, op_seed]
        self._buffer_size = INT64_MAX if buffer_size < 0 else buffer_size
        self._reshuffle = reshuffle
        self._passes = 0

    def _chunks(self) -> Iterator[Chunk]:
        rng = np.random.default_rng([*self._seeds, self._passes])
        if self._reshuffle:
            self._passes += 1
        size = self._input._size()
        if size is not None:
            order = _shuffled_order(size, self._buffer_size, rng)
            for first in builtins.range(0, size, BLOCK):
                yield self._input._gather(order[first : first + BLOCK])
            return
        for row in _buffer_shuffle(self._input._rows(), self._buffer_size, rng):
            yield tuple(one_row(leaf) for leaf in row)


def _shuffled_order(size: int, buffer_size: int, rng: np.random.Generator) -> Any:
    if buffer_size >= size:
        return rng.permutation(size)
    return np.fromiter(
        _buffer_shuffle(iter(builtins.range(size)), buffer_size, rng),
        dtype=np.intp,
        count=size,
    )


def _buffer_shuffle(
    items: Iterator[Any], buffer_size: int, rng: np.random.Generator
) -> Iterator[Any]:
    """Draw each output uniformly from a buffer refilled from ``items``."""
    buffer = list(itertools.islice(items, buffer_size))
    draws, k = rng.random(BLOCK), 0
    end = object()
    while buffer:
        if k == BLOCK:
            draws, k = rng.random(BLOCK), 0
        i = int(draws[k] * len(buffer))
        k += 1
        yield buffer[i]
        item = next(items, end)
        if item is end:
            buffer[i] = buffer[-1]
            buffer.pop()
        else:
            buffer[i] = item
