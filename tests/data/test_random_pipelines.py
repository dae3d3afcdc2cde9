"""300 random pipelines, built from seeded draws, print exactly what TensorFlow
2.21 printed for them: the dataset's repr, its cardinality and its first 30
elements (tensorflow_pipelines.txt holds TensorFlow's output of this very code).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

import tapemagic.tf as tf

EXPECTED = Path(__file__).with_name("tensorflow_pipelines.txt")
rng = random.Random(0)


def _source():
    """A random source, and its name."""
    k = rng.randrange(4)
    if k == 0:
        return tf.data.Dataset.range(rng.randrange(0, 12)), "range"
    if k == 1:
        n = rng.randrange(1, 10)
        return tf.data.Dataset.from_tensor_slices(
            (np.arange(n * 2, dtype=np.float32).reshape(n, 2), np.arange(n))
        ).map(lambda a, b: a[0] + tf.cast(b, tf.float32)), "slices2"
    if k == 2:
        return tf.data.Dataset.from_tensor_slices(
            np.arange(rng.randrange(1, 10), dtype=np.int32)
        ), "slices"
    return tf.data.Dataset.from_tensors(np.int64(7)).repeat(
        rng.randrange(0, 4)
    ), "tensors"


def _step(ds):
    """A random step that fits the element spec, and its name. (padded_batch
    ends a pipeline: TensorFlow 2.21 crashed unbatching one after repeat.)"""
    k = rng.randrange(16)
    spec = ds.element_spec
    scalar = isinstance(spec, tf.TensorSpec) and spec.shape.rank == 0
    if k == 0:
        return ds.batch(rng.randrange(1, 4), drop_remainder=rng.random() < 0.5), "batch"
    if (
        k == 1
        and isinstance(spec, tf.TensorSpec)
        and spec.shape.rank
        and spec.shape.rank >= 1
    ):
        return ds.unbatch(), "unbatch"
    if k == 2 and scalar:
        return ds.map(lambda x: x * 2), "map"
    if k == 3 and scalar:
        return ds.filter(lambda x: x % 3 != 0), "filter"
    if k == 4:
        return ds.take(rng.randrange(-1, 8)), "take"
    if k == 5:
        return ds.skip(rng.randrange(-1, 5)), "skip"
    if k == 6:
        return ds.repeat(rng.randrange(0, 3)), "repeat"
    if k == 7:
        return ds.concatenate(ds), "concat"
    if k == 8:
        return ds.enumerate(rng.randrange(3)), "enumerate"
    if k == 9:
        return ds.cache().prefetch(2), "cache"
    if k == 10 and scalar:
        return tf.data.Dataset.zip((ds, ds.skip(1))), "zip"
    if k == 11 and scalar:
        return ds.map(
            lambda x: tf.fill(tf.expand_dims(tf.cast(x, tf.int32) % 3, 0), x)
        ).padded_batch(2), "padded"
    if k == 12 and scalar:
        size = rng.randrange(1, 4)
        windows = ds.window(
            size, shift=rng.randrange(1, 3), drop_remainder=rng.random() < 0.5
        )
        return windows.flat_map(lambda w: w.batch(size)), "window"
    if k == 13:
        return ds.shard(rng.randrange(1, 4), 0), "shard"
    if k == 14 and scalar:
        return ds.take_while(lambda x: x < 5), "take_while"
    if k == 15 and scalar:
        return ds.interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(2),
            cycle_length=2,
            block_length=rng.randrange(1, 3),
        ), "interleave"
    return ds, "same"


def test_random_pipelines_print_what_tensorflow_printed(capsys) -> None:
    rng.seed(0)
    for trial in range(300):
        ds, path = _source()
        for _ in range(rng.randrange(1, 5)):
            ds, name = _step(ds)
            path += "." + name
            if name == "padded":
                break
        try:
            values = [str(v) for v in ds.take(30).as_numpy_iterator()]
        except Exception as e:
            values = [type(e).__name__]
        print(
            trial,
            path,
            repr(ds)[:200],
            int(ds.cardinality()),
            "|".join(values).replace("\n", ""),
        )
    assert capsys.readouterr().out == EXPECTED.read_text()
