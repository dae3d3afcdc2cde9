"""The batches of each epoch, from arrays or a ``tf.data.Dataset``, as Keras 3
hands them to ``train_step``, ``test_step`` and ``predict_step``.

Arrays are cut into batches of ``batch_size`` (shuffled each pass if asked;
floats become floatx). A dataset gives its own batches: ``y``,
``sample_weight`` and ``shuffle`` belong to it, and ``batch_size`` is ignored,
as in Keras. ``steps_per_epoch`` follows Keras too: an epoch stops after that
many batches and the next one goes on from there; data that runs out ends the
epoch early with Keras' warning, and the next epoch starts it again.

One difference, on purpose: an infinite dataset (``repeat()``) without a step
count is refused, where TensorFlow would train forever.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ...data import INFINITE_CARDINALITY, Dataset
from ...engine.ops.creation import random_shuffle
from ...engine.tensor import Tensor, Variable, array_of, convert_to_tensor
from .. import backend

__all__ = [
    "EpochIterator",
    "pack_x_y_sample_weight",
    "train_validation_split",
    "unpack_x_y_sample_weight",
]


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, w)``.

    Raises:
        ValueError: for a tuple of more than three items.

    Example:
        >>> unpack_x_y_sample_weight((1, 2))
        (1, 2, None)
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(
        "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
        f"`(x, y, sample_weight)`, found: {data}"
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """The batch Keras builds: ``x`` alone, ``(x, y)`` or ``(x, y, sample_weight)``.

    Example:
        >>> pack_x_y_sample_weight(1), pack_x_y_sample_weight(1, 2)
        (1, (1, 2))
    """
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _is_structure(value: Any) -> bool:
    """A list of arrays (one per input of a model), not a nested list of numbers."""
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(v, (np.ndarray, Tensor, Variable)) for v in value)
    )


def _each(fn: Any, value: Any) -> Any:
    """``fn`` of each array of a structure (a list for a list), or of the one."""
    if isinstance(value, list) and _is_structure(value):
        return [fn(v) for v in value]
    return fn(value)


def _batch_of(value: Any, rows: Any) -> Any:
    """The tensors of the ``rows`` of an array, or of each array of a list."""
    return _each(lambda v: Tensor(np.ascontiguousarray(v[rows])), value)


def _rows(value: Any) -> int:
    return len(value[0]) if isinstance(value, list) else len(value)


def _standard_array(value: Any) -> Any:
    """Training data as NumPy, floats as floatx (as Keras' array adapter does);
    a list of arrays (a model of several inputs or outputs) as a list."""
    if value is None:
        return None
    if _is_structure(value):
        arrays = [_standard_array(v) for v in value]
        if len({len(a) for a in arrays}) > 1:
            raise ValueError(
                "Data cardinality is ambiguous: the arrays of one list have "
                f"{[len(a) for a in arrays]} examples. Make sure all arrays contain "
                "the same number of samples."
            )
        return arrays
    if isinstance(value, (Tensor, Variable)):
        value = array_of(value)
    array = np.asarray(value)
    floatx = np.dtype(backend.floatx())
    if array.dtype.kind == "f" and array.dtype != floatx:
        array = array.astype(floatx)
    return array


def train_validation_split(
    arrays: tuple, validation_split: float
) -> tuple[tuple, tuple]:
    """The arrays cut in two: the last ``validation_split`` of them (before any
    shuffling) is kept for validation.

    Raises:
        ValueError: if an input is a dataset.

    Example:
        >>> train, val = train_validation_split((np.arange(10), None, None), 0.2)
        >>> train[0].tolist(), val[0].tolist()
        ([0, 1, 2, 3, 4, 5, 6, 7], [8, 9])
    """
    if any(isinstance(a, Dataset) for a in arrays):
        kinds = [type(a) for a in arrays if a is not None]
        raise ValueError(
            "Argument `validation_split` is only supported for tensors or NumPy "
            f"arrays.Found incompatible type in the input: {kinds}. Split a dataset "
            "with .take(n) and .skip(n) and pass the second part as validation_data."
        )
    arrays = tuple(_standard_array(a) for a in arrays)
    split = int(math.floor(_rows(arrays[0]) * (1.0 - validation_split)))
    train = tuple(None if a is None else _each(lambda v: v[:split], a) for a in arrays)
    val = tuple(None if a is None else _each(lambda v: v[split:], a) for a in arrays)
    return train, val


class _ArrayBatches:
    """Batches cut from arrays, in a new (shuffled) order each pass."""

    def __init__(
        self, x: Any, y: Any, sample_weight: Any, batch_size: int, shuffle: bool
    ) -> None:
        arrays = [_standard_array(a) for a in (x, y, sample_weight)]
        if arrays[0] is None:
            raise ValueError("Pass the inputs `x` (one row per example).")
        size = _rows(arrays[0])
        for name, array in zip(("y", "sample_weight"), arrays[1:]):
            if array is not None and _rows(array) != size:
                raise ValueError(
                    f"Data cardinality is ambiguous: x has {size} examples but {name} "
                    f"has {_rows(array)}. Make sure all arrays contain the same number "
                    "of samples."
                )
        self._arrays = arrays
        self._size = size
        self._batch_size = batch_size
        self._shuffle = shuffle
        self.num_batches: int | None = math.ceil(size / batch_size)
        self.infinite = False

    def first_inputs(self) -> np.ndarray:
        return self._arrays[0]

    def __iter__(self) -> Iterator[Any]:
        if self._shuffle:
            # tf.random seeds the order, so tf.random.set_seed makes it repeatable
            order = array_of(random_shuffle(convert_to_tensor(np.arange(self._size))))
        else:
            order = None
        for start in range(0, self._size, self._batch_size):
            if order is None:
                rows: Any = slice(start, start + self._batch_size)
            else:
                rows = order[start : start + self._batch_size]
            yield pack_x_y_sample_weight(
                *(None if a is None else _batch_of(a, rows) for a in self._arrays)
            )


class _DatasetBatches:
    """The elements of a dataset, each a batch."""

    def __init__(self, dataset: Dataset) -> None:
        self._dataset = dataset
        cardinality = int(array_of(dataset.cardinality()))
        self.num_batches: int | None = cardinality if cardinality >= 0 else None
        self.infinite = cardinality == INFINITE_CARDINALITY

    def first_inputs(self) -> None:
        return None

    def __iter__(self) -> Iterator[Any]:
        return iter(self._dataset)


def _refuse_dataset_argument(name: str, description: str) -> None:
    raise ValueError(
        f"When providing `x` as a tf.data.Dataset, `{name}` should not be passed. "
        f"Instead, {description} should be included as part of the tf.data.Dataset."
    )


class EpochIterator:
    """The batches of one epoch at a time, over arrays or a dataset.

    Args:
        x: inputs (an array or tensor), or a ``tf.data.Dataset`` of batches.
        y: targets (arrays only).
        sample_weight: one weight per example (arrays only).
        batch_size: examples per batch for arrays (default 32).
        steps_per_epoch: batches per epoch (default: all of them).
        shuffle: reshuffle arrays each pass; with a dataset, a warning.
        steps_name: the argument that gives the step count, for messages.

    Raises:
        ValueError: for ``y`` or ``sample_weight`` beside a dataset, or an
            infinite dataset without a step count.

    Example:
        >>> it = EpochIterator(np.zeros((5, 2)), np.ones(5), batch_size=2)
        >>> [tuple(x.shape) for x, y in it], it.num_batches
        ([(2, 2), (2, 2), (1, 2)], 3)
    """

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: int | None = None,
        steps_per_epoch: int | None = None,
        shuffle: bool = False,
        steps_name: str = "steps_per_epoch",
    ) -> None:
        if isinstance(x, Dataset):
            if y is not None:
                _refuse_dataset_argument("y", "the targets")
            if sample_weight is not None:
                _refuse_dataset_argument("sample_weights", "the sample weights")
            if shuffle:
                warnings.warn(
                    "`shuffle=True` was passed, but will be ignored since the data "
                    "`x` was provided as a tf.data.Dataset. The Dataset is expected "
                    "to already be shuffled (via `.shuffle(buffer_size)`).",
                    stacklevel=3,
                )
            self._source: Any = _DatasetBatches(x)
        else:
            self._source = _ArrayBatches(
                x, y, sample_weight, batch_size or 32, bool(shuffle)
            )
        if self._source.infinite and not steps_per_epoch:
            raise ValueError(
                "The dataset is infinite (it repeats forever), so an epoch over it "
                f"would never end: TensorFlow would run until interrupted. Pass "
                f"{steps_name}=... (the number of batches that make an epoch), or "
                "repeat the dataset a finite number of times: .repeat(n)."
            )
        self.steps_per_epoch = steps_per_epoch
        self._current: Iterator[Any] | None = None
        self._seen = 0
        self._num_batches = self._source.num_batches

    @property
    def num_batches(self) -> int | None:
        """The steps of an epoch: ``steps_per_epoch``, or the batches (None if
        the dataset's length is unknown)."""
        return self.steps_per_epoch or self._num_batches

    def first_inputs(self) -> np.ndarray | None:
        """The whole input array (None for a dataset)."""
        return self._source.first_inputs()

    def reset(self) -> None:
        """Start the next epoch from the first batch."""
        self._current = None
        self._seen = 0
        self._num_batches = self._source.num_batches

    def __iter__(self) -> Iterator[Any]:
        steps = self.steps_per_epoch or self._num_batches
        if steps is None:
            # a dataset of unknown length: until it runs out
            self._current = iter(self._source)
            self._seen = 0
            while True:
                batch = self._next_batch()
                if batch is None:
                    return
                yield batch
        if self._current is None or self.steps_per_epoch is None:
            self._current = iter(self._source)
            self._seen = 0
        for _ in range(steps):
            if self._num_batches and self._seen >= self._num_batches:
                if self.steps_per_epoch:
                    _warn_ran_out()
                break
            batch = self._next_batch()
            if batch is None:
                return
            yield batch
        if self._num_batches and self._seen >= self._num_batches:
            self._current = iter(self._source)
            self._seen = 0

    def _next_batch(self) -> Any:
        """The next batch, or None (with Keras' warning) when the data ran out."""
        # counted before it is read, as Keras counts the step that found no data
        self._seen += 1
        try:
            return next(self._current)
        except StopIteration:
            if self._num_batches is None:
                self._num_batches = self._seen
            _warn_ran_out()
            self._current = None
            return None


def _warn_ran_out() -> None:
    warnings.warn(
        "Your input ran out of data; interrupting training. Make sure that your "
        "dataset or generator can generate at least `steps_per_epoch * epochs` "
        "batches. You may need to use the `.repeat()` function when building your "
        "dataset.",
        stacklevel=4,
    )
