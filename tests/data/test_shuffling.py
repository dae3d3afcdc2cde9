"""shuffle: tapemagic's own order, deterministic under a seed, gathered in blocks
from a source."""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf
from tapemagic.data import sources

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


def test_shuffle_then_batch_gathers_rows_in_blocks(monkeypatch) -> None:
    ds = Dataset.from_tensor_slices(np.arange(10_000)).shuffle(10_000, seed=3)
    calls = []
    gather = sources.TensorSlices._gather

    def counted(self, indices):
        calls.append(len(indices))
        return gather(self, indices)

    monkeypatch.setattr(sources.TensorSlices, "_gather", counted)
    values = np.concatenate(list(ds.batch(32).as_numpy_iterator()))
    assert sorted(values.tolist()) == list(range(10_000))
    assert calls == [4096, 4096, 1808]


def test_shuffle_is_a_permutation() -> None:
    for buffer_size in (1, 3, 10, 1000):
        values = _values(Dataset.range(50).shuffle(buffer_size))
        assert sorted(values) == list(range(50))
    # a buffer of one changes nothing
    assert _values(Dataset.range(10).shuffle(1)) == list(range(10))
    # a buffer of two can only delay an element, never move it forward by 2
    values = _values(Dataset.range(30).map(lambda v: v).shuffle(2, seed=1))
    assert all(v <= i + 1 for i, v in enumerate(values))


def test_shuffle_with_a_seed_repeats_and_reshuffles_each_pass() -> None:
    a = Dataset.range(20).shuffle(20, seed=3)
    b = Dataset.range(20).shuffle(20, seed=3)
    first, second = _values(a), _values(a)
    assert first == _values(b) and second == _values(b)
    assert first != second  # reshuffle_each_iteration=True
    same = Dataset.range(20).shuffle(20, seed=3, reshuffle_each_iteration=False)
    assert _values(same) == _values(same)
    unseeded = Dataset.range(20).shuffle(20, reshuffle_each_iteration=False)
    assert _values(unseeded) == _values(unseeded)


def test_shuffle_follows_the_global_seed() -> None:
    try:
        tf.random.set_seed(5)
        first = _values(Dataset.range(50).shuffle(10))
        tf.random.set_seed(5)
        again = _values(Dataset.range(50).shuffle(10))
        assert first == again
        assert _values(Dataset.range(50).shuffle(10)) != first  # the next op seed
    finally:
        tf.random.set_seed(None)


def test_shuffle_order_is_pinned() -> None:
    # tapemagic's own order (TensorFlow's cannot be reproduced): fixed by the seed
    assert _values(Dataset.range(10).shuffle(10, seed=1)) == [
        1, 6, 7, 9, 8, 3, 4, 0, 5, 2
    ]  # fmt: skip
    assert _values(Dataset.range(10).map(lambda v: v).shuffle(4, seed=1)) == [
        2, 3, 4, 5, 0, 6, 8, 9, 7, 1
    ]  # fmt: skip
