"""tf.data programs run unchanged, printing exactly what TensorFlow 2.21 printed.

Each expected output below was printed by the same code under ``import
tensorflow as tf`` (tensorflow-cpu 2.21.0): the tf.data guide's examples, the
repr and cardinality of every kind of dataset, and the exception type and first
words of each error (tapemagic's messages go on with what to do about it).
"""

from __future__ import annotations

import numpy as np

import tapemagic.tf as tf
from tapemagic.data import dataset as dataset_module


def test_guide_examples(capsys) -> None:
    """The tf.data guide's examples, and more of the same kind."""
    dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
    print(dataset)
    for elem in dataset:
        print(elem.numpy())
    it = iter(dataset)
    print(next(it).numpy())
    print(dataset.reduce(0, lambda state, value: state + value).numpy())
    dataset1 = tf.data.Dataset.from_tensor_slices(tf.ones([4, 10]))
    print(dataset1.element_spec)
    dataset2 = tf.data.Dataset.from_tensor_slices(
        (tf.ones([4]), tf.zeros([4, 100], dtype=tf.int32))
    )
    print(dataset2.element_spec)
    dataset3 = tf.data.Dataset.zip((dataset1, dataset2))
    print(dataset3.element_spec)
    for a, (b, c) in dataset3:
        print(f"shapes: {a.shape}, {b.shape}, {c.shape}")
    features = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.array([0, 1, 0, 1, 1, 0], dtype=np.uint8)
    ds = tf.data.Dataset.from_tensor_slices((features, labels))
    print(ds)
    inc_dataset = tf.data.Dataset.range(100)
    dec_dataset = tf.data.Dataset.range(0, -100, -1)
    dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
    batched_dataset = dataset.batch(4)
    for batch in batched_dataset.take(4):
        print([arr.numpy() for arr in batch])
    print(batched_dataset)
    print(dataset.batch(7, drop_remainder=True))
    titanic_batches = tf.data.Dataset.range(10).repeat(3).batch(4)
    for batch in titanic_batches:
        print(batch.numpy())
    print(tf.data.Dataset.range(10).batch(4).repeat(3).cardinality().numpy())
    lines = tf.data.Dataset.range(100).enumerate()
    print(lines)
    for i, v in lines.take(2):
        print(i.numpy(), v.numpy())
    ds = tf.data.Dataset.from_tensor_slices({"x": features, "y": labels}).batch(4)
    for b in ds:
        print({k: v.shape for k, v in b.items()})
    print(ds.element_spec)
    print(ds.unbatch())
    print(ds.unbatch().cardinality())

    def norm(x, y):
        return tf.cast(x, tf.float64) / 10.0, tf.one_hot(y, 2)

    m = tf.data.Dataset.from_tensor_slices((features, labels.astype(np.int32))).map(
        norm, num_parallel_calls=tf.data.AUTOTUNE
    )
    print(m)
    for x, y in m.batch(4).take(1):
        print(x)
        print(y)
    print(list(tf.data.Dataset.range(5).filter(lambda x: x > 2).as_numpy_iterator()))
    print(tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(3)).cardinality())
    print(len(tf.data.Dataset.range(5).batch(2)))
    print(list(tf.data.Dataset.range(5).skip(2).take(2).as_numpy_iterator()))
    print(
        tf.data.Dataset.from_tensors({"a": [1.0, 2.0]}).repeat(2).batch(2).element_spec
    )
    print(
        next(iter(tf.data.Dataset.from_tensors({"a": [1.0, 2.0]}).repeat(2).batch(2)))[
            "a"
        ].numpy()
    )
    print(tf.data.Dataset.range(8).batch(3).unbatch().batch(4).element_spec)
    print(
        list(tf.data.Dataset.range(8).batch(3).unbatch().batch(4).as_numpy_iterator())
    )
    s = tf.data.Dataset.range(100).shuffle(10)
    print(s.cardinality().numpy(), sorted(s.as_numpy_iterator()) == list(range(100)))
    print(
        tf.data.Dataset.range(6)
        .map(lambda x: (x, x * 2))
        .reduce((np.int64(0), np.int64(0)), lambda s, e: (s[0] + e[0], s[1] + e[1]))
    )
    print(tf.data.Dataset.range(3).map(lambda x: {"sq": x * x}).batch(2).element_spec)
    print(
        list(
            tf.data.Dataset.range(3)
            .map(lambda x: {"sq": x * x})
            .batch(2)
            .as_numpy_iterator()
        )
    )
    print(tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) * 0.5))
    print(list(tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) * 0.5)))
    assert capsys.readouterr().out == GUIDE_EXAMPLES_OUTPUT


GUIDE_EXAMPLES_OUTPUT = """\
<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
8
3
0
8
2
1
8
22
TensorSpec(shape=(10,), dtype=tf.float32, name=None)
(TensorSpec(shape=(), dtype=tf.float32, name=None), TensorSpec(shape=(100,), dtype=tf.int32, name=None))
(TensorSpec(shape=(10,), dtype=tf.float32, name=None), (TensorSpec(shape=(), dtype=tf.float32, name=None), TensorSpec(shape=(100,), dtype=tf.int32, name=None)))
shapes: (10,), (), (100,)
shapes: (10,), (), (100,)
shapes: (10,), (), (100,)
shapes: (10,), (), (100,)
<_TensorSliceDataset element_spec=(TensorSpec(shape=(2,), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.uint8, name=None))>
[array([0, 1, 2, 3]), array([ 0, -1, -2, -3])]
[array([4, 5, 6, 7]), array([-4, -5, -6, -7])]
[array([ 8,  9, 10, 11]), array([ -8,  -9, -10, -11])]
[array([12, 13, 14, 15]), array([-12, -13, -14, -15])]
<_BatchDataset element_spec=(TensorSpec(shape=(None,), dtype=tf.int64, name=None), TensorSpec(shape=(None,), dtype=tf.int64, name=None))>
<_BatchDataset element_spec=(TensorSpec(shape=(7,), dtype=tf.int64, name=None), TensorSpec(shape=(7,), dtype=tf.int64, name=None))>
[0 1 2 3]
[4 5 6 7]
[8 9 0 1]
[2 3 4 5]
[6 7 8 9]
[0 1 2 3]
[4 5 6 7]
[8 9]
9
<_ZipDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))>
0 0
1 1
{'x': TensorShape([4, 2]), 'y': TensorShape([4])}
{'x': TensorShape([2, 2]), 'y': TensorShape([2])}
{'x': TensorSpec(shape=(None, 2), dtype=tf.float32, name=None), 'y': TensorSpec(shape=(None,), dtype=tf.uint8, name=None)}
<_UnbatchDataset element_spec={'x': TensorSpec(shape=(2,), dtype=tf.float32, name=None), 'y': TensorSpec(shape=(), dtype=tf.uint8, name=None)}>
tf.Tensor(-2, shape=(), dtype=int64)
<_ParallelMapDataset element_spec=(TensorSpec(shape=(2,), dtype=tf.float64, name=None), TensorSpec(shape=(2,), dtype=tf.float32, name=None))>
tf.Tensor(
[[0.  0.1]
 [0.2 0.3]
 [0.4 0.5]
 [0.6 0.7]], shape=(4, 2), dtype=float64)
tf.Tensor(
[[1. 0.]
 [0. 1.]
 [1. 0.]
 [0. 1.]], shape=(4, 2), dtype=float32)
[np.int64(3), np.int64(4)]
tf.Tensor(6, shape=(), dtype=int64)
3
[np.int64(2), np.int64(3)]
{'a': TensorSpec(shape=(None, 2), dtype=tf.float32, name=None)}
[[1. 2.]
 [1. 2.]]
TensorSpec(shape=(None,), dtype=tf.int64, name=None)
[array([0, 1, 2, 3]), array([4, 5, 6, 7])]
100 True
(<tf.Tensor: shape=(), dtype=int64, numpy=15>, <tf.Tensor: shape=(), dtype=int64, numpy=30>)
{'sq': TensorSpec(shape=(None,), dtype=tf.int64, name=None)}
[{'sq': array([0, 1])}, {'sq': array([4])}]
<_MapDataset element_spec=TensorSpec(shape=(), dtype=tf.float32, name=None)>
[<tf.Tensor: shape=(), dtype=float32, numpy=0.0>, <tf.Tensor: shape=(), dtype=float32, numpy=0.5>, <tf.Tensor: shape=(), dtype=float32, numpy=1.0>]
"""  # noqa: E501


def test_reprs_and_cardinalities(capsys) -> None:
    """Every kind of dataset prints as TensorFlow's does and counts alike."""
    r = tf.data.Dataset.range(10)
    x = np.arange(12.0).reshape(6, 2).astype(np.float32)
    y = np.arange(6)
    d = tf.data.Dataset.from_tensor_slices((x, y))
    inf = r.repeat()
    unk = r.filter(lambda v: True)
    cases = [
        r,
        d,
        tf.data.Dataset.from_tensor_slices({"b": y, "a": x}),
        tf.data.Dataset.from_tensor_slices(({"a": x, "b": y}, y)),
        tf.data.Dataset.from_tensor_slices([x, x]),
        tf.data.Dataset.from_tensors([1, 2, 3]),
        tf.data.Dataset.range(3, output_type=tf.int32),
        r.batch(3),
        r.batch(3, drop_remainder=True),
        r.batch(3, num_parallel_calls=2),
        r.shuffle(4),
        r.map(lambda v: v * 2),
        r.map(lambda v: v, num_parallel_calls=tf.data.AUTOTUNE),
        r.filter(lambda v: v % 2 == 0),
        inf,
        r.take(3),
        r.skip(3),
        r.prefetch(1),
        r.cache(),
        tf.data.Dataset.zip((r, d)),
        tf.data.Dataset.zip({"a": r, "b": r}),
        r.enumerate(),
        d.batch(4).unbatch(),
        r.concatenate(r),
        tf.data.Dataset.from_tensors([1, 2]).concatenate(
            tf.data.Dataset.from_tensors([1, 2, 3])
        ),
        d.map(lambda a, b: [a, a]),
        r.map(lambda v: 1.5),
        r.map(lambda v: (v, 2)),
        r.map(lambda v: np.float64(3)),
        d.batch(4).map(lambda a, b: (tf.reshape(a, [-1]), b)),
        d.batch(4).map(lambda a, b: (tf.reshape(a, [-1, 4]), b)),
        r.map(lambda v: {"y": v, "x": v}),
        r.map(lambda v: ([v, v], v)),
        tf.data.Dataset.from_tensor_slices([True, False]).batch(2),
        tf.data.Dataset.from_tensor_slices(np.zeros(2, np.float16)),
        tf.data.Dataset.from_tensor_slices(tf.Variable([1.0, 2.0])),
        tf.data.Dataset.from_tensors(x).unbatch(),
    ]
    for c in cases:
        print(c)
    cards = [
        r.filter(lambda v: v % 2 == 0),
        inf,
        r.repeat(3),
        r.repeat(0),
        inf.take(3),
        r.skip(30),
        r.take(-1),
        r.take(20),
        r.skip(-1),
        inf.filter(lambda v: True),
        inf.batch(2).unbatch(),
        tf.data.Dataset.zip((inf, unk)),
        tf.data.Dataset.zip((r, unk)),
        tf.data.Dataset.zip((inf, inf)),
        tf.data.Dataset.zip((r, r.take(3))),
        unk.take(3),
        unk.take(-1),
        unk.skip(3),
        inf.skip(3),
        unk.concatenate(inf),
        inf.concatenate(unk),
        unk.batch(3),
        inf.batch(3),
        unk.repeat(0),
        unk.repeat(),
        unk.repeat(2),
        r.take(0).repeat(),
        r.enumerate(),
        r.batch(3),
        r.batch(3, True),
        r.shuffle(3),
        inf.shuffle(3),
        r.batch(3).unbatch(),
        r.concatenate(r),
        tf.data.Dataset.range(2, 10, 3),
        tf.data.Dataset.range(0),
        tf.data.Dataset.range(5, 1, -2),
        tf.data.Dataset.from_tensors(x).unbatch(),
    ]
    print([int(c.cardinality()) for c in cards])
    print(
        tf.data.AUTOTUNE,
        tf.data.INFINITE_CARDINALITY,
        tf.data.UNKNOWN_CARDINALITY,
        tf.data.experimental.AUTOTUNE,
    )
    print(tf.data.experimental.cardinality(r))
    print(r.cardinality())
    assert capsys.readouterr().out == REPRS_AND_CARDINALITIES_OUTPUT


REPRS_AND_CARDINALITIES_OUTPUT = """\
<_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_TensorSliceDataset element_spec=(TensorSpec(shape=(2,), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))>
<_TensorSliceDataset element_spec={'b': TensorSpec(shape=(), dtype=tf.int64, name=None), 'a': TensorSpec(shape=(2,), dtype=tf.float32, name=None)}>
<_TensorSliceDataset element_spec=({'a': TensorSpec(shape=(2,), dtype=tf.float32, name=None), 'b': TensorSpec(shape=(), dtype=tf.int64, name=None)}, TensorSpec(shape=(), dtype=tf.int64, name=None))>
<_TensorSliceDataset element_spec=TensorSpec(shape=(6, 2), dtype=tf.float32, name=None)>
<_TensorDataset element_spec=TensorSpec(shape=(3,), dtype=tf.int32, name=None)>
<_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>
<_BatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>
<_BatchDataset element_spec=TensorSpec(shape=(3,), dtype=tf.int64, name=None)>
<_ParallelBatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>
<_ShuffleDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_MapDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_ParallelMapDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_FilterDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_RepeatDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_TakeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_SkipDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_PrefetchDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<CacheDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_ZipDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), (TensorSpec(shape=(2,), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None)))>
<_ZipDataset element_spec={'a': TensorSpec(shape=(), dtype=tf.int64, name=None), 'b': TensorSpec(shape=(), dtype=tf.int64, name=None)}>
<_ZipDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))>
<_UnbatchDataset element_spec=(TensorSpec(shape=(2,), dtype=tf.float32, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))>
<_ConcatenateDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
<_ConcatenateDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int32, name=None)>
<_MapDataset element_spec=(TensorSpec(shape=(2,), dtype=tf.float32, name=None), TensorSpec(shape=(2,), dtype=tf.float32, name=None))>
<_MapDataset element_spec=TensorSpec(shape=(), dtype=tf.float32, name=None)>
<_MapDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int32, name=None))>
<_MapDataset element_spec=TensorSpec(shape=(), dtype=tf.float64, name=None)>
<_MapDataset element_spec=(TensorSpec(shape=(None,), dtype=tf.float32, name=None), TensorSpec(shape=(None,), dtype=tf.int64, name=None))>
<_MapDataset element_spec=(TensorSpec(shape=(None, 4), dtype=tf.float32, name=None), TensorSpec(shape=(None,), dtype=tf.int64, name=None))>
<_MapDataset element_spec={'y': TensorSpec(shape=(), dtype=tf.int64, name=None), 'x': TensorSpec(shape=(), dtype=tf.int64, name=None)}>
<_MapDataset element_spec=(TensorSpec(shape=(2,), dtype=tf.int64, name=None), TensorSpec(shape=(), dtype=tf.int64, name=None))>
<_BatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.bool, name=None)>
<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.float16, name=None)>
<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.float32, name=None)>
<_UnbatchDataset element_spec=TensorSpec(shape=(2,), dtype=tf.float32, name=None)>
[-2, -1, 30, 0, 3, 0, 10, 10, 0, -2, -1, -2, -2, -1, 3, -2, -2, -2, -1, -1, -1, -2, -1, 0, -1, -2, 0, 10, 4, 3, 10, -1, -2, 20, 3, 0, 2, 6]
-1 -1 -2 -1
tf.Tensor(10, shape=(), dtype=int64)
tf.Tensor(10, shape=(), dtype=int64)
"""  # noqa: E501


def test_from_generator_and_array_like_input(capsys) -> None:
    """from_generator (output_signature, or output_types and output_shapes), and
    values that only offer ``__array__`` (a pandas Series, for example).

    TensorFlow wraps the generator's TypeError in InvalidArgumentError; its
    message here is the wrapped error's first line.
    """

    def attempt(f):
        try:
            print(f())
        except Exception as e:
            print(
                type(e).__name__ + ":", str(e).split("\n")[0].split(". ")[0].rstrip(".")
            )

    def gen():
        for i in range(3):
            yield i, [float(i)] * 2

    ds = tf.data.Dataset.from_generator(
        gen,
        output_signature=(
            tf.TensorSpec(shape=(), dtype=tf.int32),
            tf.TensorSpec(shape=(2,), dtype=tf.float32),
        ),
    )
    print(ds)
    print(list(ds.as_numpy_iterator()))
    print(ds.cardinality())
    print(list(ds.batch(2).as_numpy_iterator()))
    ds2 = tf.data.Dataset.from_generator(
        gen, output_types=(tf.int64, tf.float64), output_shapes=((), (None,))
    )
    print(ds2)
    print(list(ds2.take(1).as_numpy_iterator()))
    ds3 = tf.data.Dataset.from_generator(gen, output_types=(tf.int64, tf.float64))
    print(ds3)

    def bad():
        yield np.zeros(3, np.float32)

    attempt(
        lambda: list(
            tf.data.Dataset.from_generator(
                bad, output_signature=tf.TensorSpec((2,), tf.float32)
            )
        )
    )

    def bad2():
        yield 1.5

    attempt(
        lambda: list(
            tf.data.Dataset.from_generator(
                bad2, output_signature=tf.TensorSpec((), tf.int32)
            )
        )
    )

    def bad3():
        yield (1, 2)

    attempt(
        lambda: list(
            tf.data.Dataset.from_generator(
                bad3, output_signature=tf.TensorSpec((), tf.int32)
            )
        )
    )

    def withargs(n, scale):
        print(type(n).__name__, type(scale).__name__)
        for i in range(n):
            yield i * scale

    attempt(
        lambda: list(
            tf.data.Dataset.from_generator(
                withargs, args=(2, 1.5), output_signature=tf.TensorSpec((), tf.float32)
            ).as_numpy_iterator()
        )
    )
    attempt(lambda: tf.data.Dataset.from_generator(gen))
    attempt(
        lambda: tf.data.Dataset.from_generator(
            gen(), output_signature=tf.TensorSpec((), tf.int32)
        )
    )
    attempt(
        lambda: tf.data.Dataset.from_generator(
            gen, output_signature=(tf.TensorSpec((), tf.int32), 1)
        )
    )
    d = tf.data.Dataset.from_generator(
        lambda: iter([{"a": 1}]), output_signature={"a": tf.TensorSpec((), tf.int64)}
    )
    print(d, list(d))

    # pandas-like
    class FakeSeries:
        def __init__(self, v):
            self.v = np.asarray(v)

        def __array__(self, dtype=None, copy=None):
            return self.v

    attempt(lambda: tf.data.Dataset.from_tensor_slices({"a": FakeSeries([1.0, 2.0])}))
    print(
        list(
            tf.data.Dataset.from_generator(
                gen,
                output_signature=(
                    tf.TensorSpec(shape=(), dtype=tf.int32),
                    tf.TensorSpec(shape=(2,), dtype=tf.float32),
                ),
            )
            .repeat(2)
            .as_numpy_iterator()
        )[3]
    )
    assert capsys.readouterr().out == FROM_GENERATOR_AND_ARRAY_LIKE_INPUT_OUTPUT


FROM_GENERATOR_AND_ARRAY_LIKE_INPUT_OUTPUT = """\
<_FlatMapDataset element_spec=(TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(2,), dtype=tf.float32, name=None))>
[(np.int32(0), array([0., 0.], dtype=float32)), (np.int32(1), array([1., 1.], dtype=float32)), (np.int32(2), array([2., 2.], dtype=float32))]
tf.Tensor(-2, shape=(), dtype=int64)
[(array([0, 1], dtype=int32), array([[0., 0.],
       [1., 1.]], dtype=float32)), (array([2], dtype=int32), array([[2., 2.]], dtype=float32))]
<_FlatMapDataset element_spec=(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorSpec(shape=(None,), dtype=tf.float64, name=None))>
[(np.int64(0), array([0., 0.]))]
<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, dtype=tf.int64, name=None), TensorSpec(shape=<unknown>, dtype=tf.float64, name=None))>
InvalidArgumentError: `generator` yielded an element of shape (3,) where an element of shape (2,) was expected
[<tf.Tensor: shape=(), dtype=int32, numpy=1>]
InvalidArgumentError: `generator` yielded an element of shape (2,) where an element of shape () was expected
int32 float32
[np.float32(0.0), np.float32(1.5)]
TypeError: To specify the output signature you need to provide either the `output_signature` argument or the `output_types` argument
TypeError: `generator` must be a Python callable
TypeError: `output_signature` must contain objects that are subclass of `tf.TypeSpec` but found <class 'int'> which is not
<_FlatMapDataset element_spec={'a': TensorSpec(shape=(), dtype=tf.int64, name=None)}> [{'a': <tf.Tensor: shape=(), dtype=int64, numpy=1>}]
<_TensorSliceDataset element_spec={'a': TensorSpec(shape=(), dtype=tf.float64, name=None)}>
(np.int32(0), array([0., 0.], dtype=float32))
"""  # noqa: E501


def test_padded_batch(capsys) -> None:
    """padded_batch as TensorFlow's API page shows it (``tf.fill`` takes its
    shape as a tensor here), and its errors."""

    def attempt(f):
        try:
            print(f())
        except Exception as e:
            print(
                type(e).__name__ + ":", str(e).split("\n")[0].split(". ")[0].rstrip(".")
            )

    A = tf.data.Dataset.range(1, 6, output_type=tf.int32).map(
        lambda x: tf.fill(tf.expand_dims(x, 0), x)
    )
    print(A)
    B = A.padded_batch(2)
    print(B)
    for element in B.as_numpy_iterator():
        print(element)
    C = A.padded_batch(2, padded_shapes=5)
    print(C)
    print(list(C.as_numpy_iterator())[0])
    D = A.padded_batch(2, padded_shapes=[None], padding_values=-1, drop_remainder=True)
    print(D, D.cardinality())
    print(list(D.as_numpy_iterator()))
    E = tf.data.Dataset.zip((A, A.map(lambda x: tf.cast(x, tf.float32)))).padded_batch(
        2, padding_values=(0, 0.5)
    )
    print(E)
    print(list(E.take(1).as_numpy_iterator()))
    attempt(lambda: list(A.padded_batch(2, padded_shapes=3)))
    attempt(lambda: A.padded_batch(2, padded_shapes=[3, 3]))
    F = tf.data.Dataset.from_tensor_slices({"a": [[1, 2], [3, 4]]}).padded_batch(
        2, padded_shapes={"a": [4]}
    )
    print(F, list(F.as_numpy_iterator()))
    G = tf.data.Dataset.range(3).padded_batch(2)
    print(G, list(G.as_numpy_iterator()))
    attempt(lambda: A.padded_batch(0))
    assert capsys.readouterr().out == PADDED_BATCH_OUTPUT


PADDED_BATCH_OUTPUT = """\
<_MapDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int32, name=None)>
<_PaddedBatchDataset element_spec=TensorSpec(shape=(None, None), dtype=tf.int32, name=None)>
[[1 0]
 [2 2]]
[[3 3 3 0]
 [4 4 4 4]]
[[5 5 5 5 5]]
<_PaddedBatchDataset element_spec=TensorSpec(shape=(None, 5), dtype=tf.int32, name=None)>
[[1 0 0 0 0]
 [2 2 0 0 0]]
<_PaddedBatchDataset element_spec=TensorSpec(shape=(2, None), dtype=tf.int32, name=None)> tf.Tensor(2, shape=(), dtype=int64)
[array([[ 1, -1],
       [ 2,  2]], dtype=int32), array([[ 3,  3,  3, -1],
       [ 4,  4,  4,  4]], dtype=int32)]
<_PaddedBatchDataset element_spec=(TensorSpec(shape=(None, None), dtype=tf.int32, name=None), TensorSpec(shape=(None, None), dtype=tf.float32, name=None))>
[(array([[1, 0],
       [2, 2]], dtype=int32), array([[1. , 0.5],
       [2. , 2. ]], dtype=float32))]
DataLossError: Attempted to pad to a smaller size than the input element
ValueError: The padded shape (3, 3) is not compatible with the shape (None,) of the corresponding input component
<_PaddedBatchDataset element_spec={'a': TensorSpec(shape=(None, 4), dtype=tf.int32, name=None)}> [{'a': array([[1, 2, 0, 0],
       [3, 4, 0, 0]], dtype=int32)}]
<_PaddedBatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)> [array([0, 1]), array([2])]
InvalidArgumentError: Batch size must be greater than zero
"""  # noqa: E501


def test_window_flat_map_interleave_and_friends(capsys, monkeypatch) -> None:
    """window, flat_map (the time-series course's windowed_dataset), interleave,
    take_while, shard and get_single_element. TensorFlow picks interleave's
    default cycle_length from the CPU cores, as tapemagic does: two here, as on
    the machine that printed the expected output."""
    monkeypatch.setattr(dataset_module, "_cpu_cores", lambda: 2)

    def attempt(f):
        try:
            print(f())
        except Exception as e:
            print(
                type(e).__name__ + ":", str(e).split("\n")[0].split(". ")[0].rstrip(".")
            )

    r = tf.data.Dataset.range(7)
    w = r.window(3, shift=1, drop_remainder=True)
    print(w)
    print(w.element_spec, type(w.element_spec).__name__)
    print(w.cardinality())
    for win in w.take(2):
        print(win, list(win.as_numpy_iterator()))
    f = w.flat_map(lambda win: win.batch(3))
    print(f, f.cardinality())
    print([x.tolist() for x in f.as_numpy_iterator()])

    print([list(ws.as_numpy_iterator()) for ws in r.window(3)])
    print([list(ws.as_numpy_iterator()) for ws in r.window(3, shift=2, stride=2)])
    print(
        r.window(3).cardinality(),
        r.window(3, drop_remainder=True).cardinality(),
        r.window(3, shift=2, drop_remainder=True).cardinality(),
    )
    d = tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5.0)))
    dw = d.window(2, drop_remainder=True)
    print(dw)
    print(dw.flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2)))))
    print(
        list(
            dw.flat_map(
                lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2)))
            ).as_numpy_iterator()
        )
    )
    dd = tf.data.Dataset.from_tensor_slices({"a": np.arange(4)}).window(2)
    print(dd)
    print(dd.flat_map(lambda e: e["a"].batch(2)))

    def windowed_dataset(series, window_size, batch_size, shuffle_buffer):
        dataset = tf.data.Dataset.from_tensor_slices(series)
        dataset = dataset.window(window_size + 1, shift=1, drop_remainder=True)
        dataset = dataset.flat_map(lambda window: window.batch(window_size + 1))
        dataset = dataset.shuffle(shuffle_buffer).map(
            lambda window: (window[:-1], window[-1])
        )
        dataset = dataset.batch(batch_size).prefetch(1)
        return dataset

    ds = windowed_dataset(np.arange(20, dtype=np.float32), 4, 3, 10)
    print(ds)
    print(sum(len(x) for x, y in ds))
    fm = r.flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
    print(fm, fm.cardinality(), list(fm.as_numpy_iterator()))
    fm2 = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(
        tf.data.Dataset.from_tensor_slices
    )
    print(fm2, list(fm2.as_numpy_iterator()))
    il = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(3),
        cycle_length=2,
        block_length=2,
    )
    print(il, il.cardinality(), list(il.as_numpy_iterator()))
    il2 = tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=3
    )
    print(list(il2.as_numpy_iterator()))
    il3 = tf.data.Dataset.range(1, 4).interleave(
        lambda x: tf.data.Dataset.range(x), num_parallel_calls=tf.data.AUTOTUNE
    )
    print(il3, list(il3.as_numpy_iterator()))
    print(
        tf.data.Dataset.range(1, 4).interleave(
            lambda x: tf.data.Dataset.range(x), cycle_length=1
        )
    )
    attempt(lambda: r.window(0))
    print(
        r.take_while(lambda x: x < 3),
        list(r.take_while(lambda x: x < 3).as_numpy_iterator()),
    )
    print(
        r.shard(3, 1),
        list(r.shard(3, 1).as_numpy_iterator()),
        r.shard(3, 1).cardinality(),
    )
    print(r.take(1).get_single_element())
    attempt(lambda: r.get_single_element())
    assert capsys.readouterr().out == WINDOW_FLAT_MAP_INTERLEAVE_AND_FRIENDS_OUTPUT


WINDOW_FLAT_MAP_INTERLEAVE_AND_FRIENDS_OUTPUT = """\
<_WindowDataset element_spec=DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))>
DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([])) DatasetSpec
tf.Tensor(5, shape=(), dtype=int64)
<_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> [np.int64(0), np.int64(1), np.int64(2)]
<_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> [np.int64(1), np.int64(2), np.int64(3)]
<_FlatMapDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)> tf.Tensor(-2, shape=(), dtype=int64)
[[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]
[[np.int64(0), np.int64(1), np.int64(2)], [np.int64(3), np.int64(4), np.int64(5)], [np.int64(6)]]
[[np.int64(0), np.int64(2), np.int64(4)], [np.int64(2), np.int64(4), np.int64(6)], [np.int64(4), np.int64(6)], [np.int64(6)]]
tf.Tensor(3, shape=(), dtype=int64) tf.Tensor(2, shape=(), dtype=int64) tf.Tensor(3, shape=(), dtype=int64)
<_WindowDataset element_spec=(DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([])), DatasetSpec(TensorSpec(shape=(), dtype=tf.float64, name=None), TensorShape([])))>
<_FlatMapDataset element_spec=(TensorSpec(shape=(None,), dtype=tf.int64, name=None), TensorSpec(shape=(None,), dtype=tf.float64, name=None))>
[(array([0, 1]), array([0., 1.])), (array([2, 3]), array([2., 3.]))]
<_WindowDataset element_spec={'a': DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))}>
<_FlatMapDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>
<_PrefetchDataset element_spec=(TensorSpec(shape=(None, None), dtype=tf.float32, name=None), TensorSpec(shape=(None,), dtype=tf.float32, name=None))>
16
<_FlatMapDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> tf.Tensor(-2, shape=(), dtype=int64) [np.int64(1), np.int64(2), np.int64(2), np.int64(3), np.int64(3), np.int64(3), np.int64(4), np.int64(4), np.int64(4), np.int64(4), np.int64(5), np.int64(5), np.int64(5), np.int64(5), np.int64(5), np.int64(6), np.int64(6), np.int64(6), np.int64(6), np.int64(6), np.int64(6)]
<_FlatMapDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)> [np.int32(1), np.int32(2), np.int32(3), np.int32(4)]
<_InterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> tf.Tensor(-2, shape=(), dtype=int64) [np.int64(1), np.int64(1), np.int64(2), np.int64(2), np.int64(1), np.int64(2), np.int64(3), np.int64(3), np.int64(3)]
[np.int64(1), np.int64(2), np.int64(3), np.int64(2), np.int64(3), np.int64(4), np.int64(3), np.int64(4), np.int64(5), np.int64(4), np.int64(5), np.int64(4), np.int64(5), np.int64(5), np.int64(5)]
<_ParallelInterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> [np.int64(0), np.int64(0), np.int64(1), np.int64(0), np.int64(1), np.int64(2)]
<_InterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>
InvalidArgumentError: Window size must be greater than zero
<_TakeWhileDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> [np.int64(0), np.int64(1), np.int64(2)]
<_ShardDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)> [np.int64(1), np.int64(4)] tf.Tensor(2, shape=(), dtype=int64)
tf.Tensor(0, shape=(), dtype=int64)
InvalidArgumentError: Dataset had more than one element
"""  # noqa: E501
