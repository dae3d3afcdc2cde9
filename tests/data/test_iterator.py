"""Iterating a dataset: as tensors, or as NumPy values that belong to the caller."""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


def test_as_numpy_iterator_hands_out_copies() -> None:
    source = np.arange(6.0).reshape(3, 2)
    ds = Dataset.from_tensor_slices(source)
    row = next(ds.as_numpy_iterator())
    row[0] = 100.0
    assert next(ds.as_numpy_iterator())[0] == 0.0


def test_iterators_read_one_element_at_a_time() -> None:
    it = iter(Dataset.range(3).batch(2))
    assert isinstance(it, tf.data.Iterator)
    assert it.get_next().numpy().tolist() == [0, 1]
    assert next(it).numpy().tolist() == [2]
    numbers = Dataset.range(2).as_numpy_iterator()
    assert repr(numbers).startswith("NumpyIterator(iterator=")
    assert list(numbers) == [0, 1]
