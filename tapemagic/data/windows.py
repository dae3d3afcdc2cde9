"""Datasets of datasets: ``window`` makes them, ``flat_map`` and ``interleave``
open them.

A window holds one dataset per component of the element, and travels through
the steps after it as a one-row object array (:func:`~.step.one_row`); steps
that need tensors refuse it. ``flat_map`` and ``interleave`` call the user's
function on each element and read the datasets it returns, which is how
windows turn back into tensors: ``ds.window(5).flat_map(lambda w: w.batch(5))``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..engine import TensorSpec, nest
from .step import UNKNOWN_CARDINALITY, Chunk, Step, UnaryStep, frozen, one_row
from .structure import call_with_element

__all__ = ["FlatMap", "Interleave", "Window", "returned_dataset"]


class Window(UnaryStep):
    """Windows of the input: window ``i`` holds the elements
    ``i * shift + k * stride`` for ``k < size``.

    Args:
        input_dataset: the step it reads.
        spec: its element spec, a ``DatasetSpec`` per component.
        make_window: makes one window of a component from the component's
            spec and the window's rows (a dataset, so the user can chain steps
            on it).
        size, shift, stride: as ``Dataset.window`` takes them, all positive.
        drop: drop the windows at the end that hold fewer than ``size``
            elements.

    Example:
        >>> from tapemagic.data import Dataset
        >>> Dataset.range(5).window(2, drop_remainder=True).cardinality().numpy()
        np.int64(2)
    """

    def __init__(
        self,
        input_dataset: Step,
        spec: Any,
        make_window: Callable[[TensorSpec, Chunk], Step],
        size: int,
        shift: int,
        stride: int,
        drop: bool,
    ) -> None:
        super().__init__(input_dataset, spec)
        self._make_window = make_window
        self._size, self._shift, self._stride, self._drop = size, shift, stride, drop
        self._leaf_specs: list[TensorSpec] = nest.flatten(input_dataset.element_spec)

    def _chunks(self) -> Iterator[Chunk]:
        rows = self._input._rows()
        span = (self._size - 1) * self._stride + 1  # rows a full window covers
        buffer: list[tuple[Any, ...]] = []  # the input's rows from `start` on
        start, read, ended = 0, 0, False
        while True:
            while not ended and read < start + span:
                row = next(rows, None)
                if row is None:
                    ended = True
                    break
                if read >= start:  # rows a shift jumps over are never kept
                    buffer.append(row)
                read += 1
            window = buffer[: span : self._stride]
            if not window or (self._drop and len(window) < self._size):
                return
            yield tuple(one_row(self._window(j, window)) for j in range(len(window[0])))
            start += self._shift
            del buffer[: self._shift]

    def _window(self, j: int, window: list[tuple[Any, ...]]) -> Step:
        arrays = (frozen(np.stack([row[j] for row in window])),)
        return self._make_window(self._leaf_specs[j], arrays)

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        if not self._drop:
            return -(-n // self._shift)
        span = (self._size - 1) * self._stride + 1
        return 0 if n < span else (n - span) // self._shift + 1


class FlatMap(UnaryStep):
    """The elements of the dataset ``fn`` returns for each element, in turn.

    Example:
        >>> from tapemagic.data import Dataset
        >>> ds = Dataset.range(3).flat_map(lambda x: Dataset.range(x))
        >>> [int(x) for x in ds.as_numpy_iterator()]
        [0, 0, 1]
    """

    def __init__(self, input_dataset: Step, fn: Callable, spec: Any) -> None:
        super().__init__(input_dataset, spec)
        self._fn = fn

    def _datasets(self) -> Iterator[Step]:
        source = self._input
        for row in source._rows():
            yield returned_dataset(call_with_element(self._fn, source._element(row)))

    def _chunks(self) -> Iterator[Chunk]:
        for dataset in self._datasets():
            yield from dataset._chunks()

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


class Interleave(FlatMap):
    """The datasets ``fn`` returns, ``cycle`` open at once, ``block`` elements
    from each in turn (TensorFlow's order).

    Example:
        >>> from tapemagic.data import Dataset
        >>> ds = Dataset.range(1, 3).interleave(
        ...     lambda x: Dataset.from_tensors(x).repeat(2), cycle_length=2)
        >>> [int(x) for x in ds.as_numpy_iterator()]
        [1, 2, 1, 2]
    """

    def __init__(
        self, input_dataset: Step, fn: Callable, spec: Any, cycle: int, block: int
    ) -> None:
        super().__init__(input_dataset, fn, spec)
        self._cycle, self._block = cycle, block

    def _chunks(self) -> Iterator[Chunk]:
        # TensorFlow's order: take `block` rows from each of `cycle` open
        # datasets in turn; a slot whose dataset ends opens the next one.
        datasets = self._datasets()
        slots: list[Iterator[tuple[Any, ...]] | None] = [None] * self._cycle
        index, taken, open_slots, exhausted = 0, 0, 0, False
        while True:
            slot = slots[index]
            if slot is None and not exhausted:
                dataset = next(datasets, None)
                if dataset is None:
                    exhausted = True
                else:
                    slots[index] = dataset._rows()
                    open_slots += 1
                continue
            row = None if slot is None else next(slot, None)
            if row is not None:
                yield tuple(one_row(leaf) for leaf in row)
                taken += 1
                if taken < self._block:
                    continue
            elif slot is not None:
                slots[index] = None
                open_slots -= 1
            elif exhausted and not open_slots:
                return
            index, taken = (index + 1) % self._cycle, 0


def returned_dataset(value: Any) -> Step:
    """``value``, which a ``flat_map`` or ``interleave`` function returned, if it
    is a dataset.

    Raises:
        TypeError: if it is not.

    Example:
        >>> returned_dataset(3)
        Traceback (most recent call last):
        ...
        TypeError: `map_func` must return a `Dataset` object. Got <class 'int'>: \
return a dataset, e.g. tf.data.Dataset.from_tensor_slices(x).
    """
    if not isinstance(value, Step):
        raise TypeError(
            f"`map_func` must return a `Dataset` object. Got {type(value)}: return "
            "a dataset, e.g. tf.data.Dataset.from_tensor_slices(x)."
        )
    return value
