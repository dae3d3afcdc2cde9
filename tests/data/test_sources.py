"""Sources: from_tensor_slices keeps its own read-only copy, and range counts as
TensorFlow counts it."""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


def test_the_dataset_keeps_its_own_copy_of_numpy_input() -> None:
    source = np.arange(4)
    ds = Dataset.from_tensor_slices(source)
    source[0] = 99
    assert _values(ds) == [0, 1, 2, 3]


def test_slices_are_one_chunk_of_read_only_arrays() -> None:
    source = np.arange(6).reshape(3, 2)
    ds = Dataset.from_tensor_slices(source)
    assert not ds._arrays[0].flags.writeable
    assert [len(chunk[0]) for chunk in ds._chunks()] == [3]


def test_range_cardinality_as_tensorflow_counts_it() -> None:
    r = Dataset.range(10)
    # TensorFlow 2.21 prints -1, 2, -1, 0, 4 for these
    assert int(r.repeat().enumerate().cardinality()) == -1
    assert int(r.repeat().enumerate(5).take(2).cardinality()) == 2
    assert int(Dataset.range(0, 2**63 - 1, 3).cardinality()) == -1
    assert int(Dataset.range(-5, 5, -1).cardinality()) == 0
    assert int(Dataset.range(5, -5, -3).cardinality()) == 4
    assert _values(Dataset.range(5, -5, -3)) == [5, 2, -1, -4]
