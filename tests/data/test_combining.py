"""zip and concatenate (and enumerate, a zip with a range)."""

from __future__ import annotations

import tapemagic.tf as tf

Dataset = tf.data.Dataset


def _values(ds):
    return [int(v) for v in ds.as_numpy_iterator()]


def test_zip_concatenate_and_enumerate() -> None:
    r = Dataset.range(5)
    assert _values(r.take(2).concatenate(r.skip(3))) == [0, 1, 3, 4]
    pairs = list(Dataset.zip((r, r.skip(3))).as_numpy_iterator())
    assert pairs == [(0, 3), (1, 4)]
    named = next(Dataset.zip({"a": r, "b": r.skip(1)}).as_numpy_iterator())
    assert named == {"a": 0, "b": 1}
    assert list(r.take(2).enumerate(5).as_numpy_iterator()) == [(5, 0), (6, 1)]
    assert _values(Dataset.zip(r.batch(2), r.batch(3)).map(lambda a, b: a[0])) == [0, 2]


def test_concatenate_widens_shapes_and_counts() -> None:
    a = Dataset.from_tensors([1, 2])
    b = Dataset.from_tensors([3])
    both = a.concatenate(b)
    assert both.element_spec.shape.as_list() == [None]
    assert int(both.cardinality()) == 2
    assert int(a.concatenate(b.repeat()).cardinality()) == -1
