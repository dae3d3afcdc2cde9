"""batch, padded_batch and unbatch: batches of slices are views, batches across
chunks are joined."""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf
from tapemagic.engine import array_of

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


def test_batch_across_chunk_boundaries() -> None:
    # repeat joins passes; the batches straddle them as in TensorFlow
    ds = Dataset.from_tensor_slices(np.arange(5)).repeat(3).batch(4)
    batches = [b.tolist() for b in ds.as_numpy_iterator()]
    assert batches == [[0, 1, 2, 3], [4, 0, 1, 2], [3, 4, 0, 1], [2, 3, 4]]
    dropped = Dataset.range(10).batch(4, drop_remainder=True)
    assert [b.tolist() for b in dropped.as_numpy_iterator()] == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
    ]
    per_element = Dataset.range(7).map(lambda v: v * 2).batch(3)
    assert [b.tolist() for b in per_element.as_numpy_iterator()] == [
        [0, 2, 4],
        [6, 8, 10],
        [12],
    ]


def test_batch_of_slices_cuts_the_arrays_without_stacking() -> None:
    features = np.arange(20.0, dtype=np.float32).reshape(10, 2)
    labels = np.arange(10)
    ds = Dataset.from_tensor_slices((features, labels))
    source = ds._arrays
    batches = list(ds.batch(4))
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    for x, y in batches:
        # each batch is a view of the dataset's own array: one slice per batch
        assert np.shares_memory(array_of(x), source[0])
        assert np.shares_memory(array_of(y), source[1])
    np.testing.assert_array_equal(array_of(batches[1][0]), features[4:8])


def test_padded_batch_of_fixed_shapes_is_a_plain_batch() -> None:
    source = np.arange(12).reshape(6, 2)
    ds = Dataset.from_tensor_slices(source)
    batches = list(ds.padded_batch(4))
    assert np.shares_memory(array_of(batches[0]), ds._arrays[0])
    padded = list(ds.padded_batch(4, padded_shapes=[3]).as_numpy_iterator())
    assert padded[1].tolist() == [[8, 9, 0], [10, 11, 0]]


def test_unbatch_is_the_inverse_of_batch() -> None:
    r = Dataset.range(5)
    assert _values(r.batch(2).unbatch()) == [0, 1, 2, 3, 4]
    assert int(r.batch(2, drop_remainder=True).unbatch().cardinality()) == 4
    assert int(r.batch(2).unbatch().cardinality()) == -2
