"""window, flat_map and interleave: datasets of datasets, opened in TensorFlow's
order."""

from __future__ import annotations

import pytest

import tapemagic.tf as tf

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


def test_windows_pass_through_generic_steps() -> None:
    windows = Dataset.range(6).window(2).skip(1).repeat(2).shuffle(10, seed=0)
    rows = sorted(w.tolist() for w in windows.flat_map(lambda w: w.batch(2))
                  .as_numpy_iterator())  # fmt: skip
    assert rows == [[2, 3], [2, 3], [4, 5], [4, 5]]
    pairs = Dataset.zip((Dataset.range(4).window(2), Dataset.range(2)))
    firsts = [int(next(iter(w))) for w, _ in pairs]
    assert firsts == [0, 2]


def test_flat_map_must_return_a_dataset() -> None:
    with pytest.raises(TypeError, match="`map_func` must return a `Dataset` object"):
        Dataset.range(3).flat_map(lambda x: x)


def test_interleave_order_matches_tensorflows_rule() -> None:
    # TensorFlow 2.21 prints this order for cycle_length=3, block_length=1
    ds = Dataset.range(1, 6).interleave(
        lambda x: Dataset.from_tensors(x).repeat(x), cycle_length=3
    )
    assert _values(ds) == [1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 4, 5, 5, 5]
    ranges = Dataset.range(1, 6).interleave(lambda x: Dataset.range(x), cycle_length=2)
    assert _values(ranges) == [0, 0, 1, 0, 1, 0, 2, 1, 2, 0, 3, 1, 2, 3, 4]


def test_window_shift_can_jump_over_elements() -> None:
    # TensorFlow 2.21: [[0], [2], [4], [6], [8]] and [[0, 1], [3, 4], [6, 7]]
    def rows(windows, size):
        batches = windows.flat_map(lambda w: w.batch(size)).as_numpy_iterator()
        return [b.tolist() for b in batches]

    assert rows(Dataset.range(9).window(1, shift=2), 1) == [[0], [2], [4], [6], [8]]
    assert rows(Dataset.range(8).window(2, shift=3, drop_remainder=True), 2) == [
        [0, 1],
        [3, 4],
        [6, 7],
    ]
