"""take, skip, shard, repeat, prefetch and cache: chunks passed on whole or cut."""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


def test_take_skip_and_repeat() -> None:
    r = Dataset.range(5)
    assert _values(r.skip(1).take(2)) == [1, 2]
    assert _values(r.take(-1)) == [0, 1, 2, 3, 4]
    assert _values(r.skip(-1)) == []
    assert _values(r.take(2).repeat(3)) == [0, 1] * 3
    assert _values(r.take(0).repeat()) == []
    assert _values(r.repeat().take(12)) == [0, 1, 2, 3, 4] * 2 + [0, 1]


def test_shard_slices_every_nth_row() -> None:
    source = Dataset.from_tensor_slices(np.arange(10))
    assert _values(source.shard(3, 2)) == [2, 5, 8]
    assert int(source.shard(3, 2).cardinality()) == 3
    assert _values(source.repeat(2).shard(4, 1)) == [1, 5, 9, 3, 7]


def test_cache_keeps_the_first_complete_pass() -> None:
    calls = []

    def record(v):
        calls.append(int(v))
        return v

    ds = Dataset.range(4).map(record).cache()
    calls.clear()
    assert _values(ds) == [0, 1, 2, 3]
    assert _values(ds) == [0, 1, 2, 3]
    assert calls == [0, 1, 2, 3]  # the second pass read the cache
    shuffled = Dataset.range(20).shuffle(20).cache()
    assert _values(shuffled) == _values(shuffled)
