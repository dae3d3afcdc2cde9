"""A Keras weight (``keras.Variable``) acts as Keras 3.15's does on TensorFlow 2.21.

Each expected output below was printed by the same code under ``import
tensorflow as tf, keras`` (tensorflow-cpu 2.21.0, Keras 3.15): the class's
name, the dtype as a string, what ``assign`` returns, ``.value`` (the
``tf.Variable`` behind the weight), and ``tape.watch`` refusing the weight
itself (tapemagic's message goes on with what to watch instead).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine.tape import unwatchable

keras = tf.keras


def _dense() -> keras.layers.Dense:
    """A built Dense layer named "dense", with a kernel of ones."""
    keras.backend.clear_session()
    layer = keras.layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 3))
    return layer


TENSORFLOW_WEIGHT = """\
Variable
'float32' float32 str
tf.Tensor([1. 2.], shape=(2,), dtype=float32)
tf.Tensor([0. 0.], shape=(2,), dtype=float32)
tf.Tensor([1. 1.], shape=(2,), dtype=float32)
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 3.], dtype=float32)>
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2.5], dtype=float32)>
<Variable path=dense/bias, shape=(2,), dtype=float32, value=[1.5 2.5]>
<tf.Variable 'dense/bias:0' shape=(2,) dtype=float32, \
numpy=array([1.5, 2.5], dtype=float32)>
ResourceVariable dense/bias:0 <dtype: 'float32'>
True
<tf.Variable 'UnreadVariable' shape=(2,) dtype=float32, \
numpy=array([0., 0.], dtype=float32)>
[0. 0.]
TypeError: Variable.assign() got an unexpected keyword argument 'read_value'
<tf.Variable 'w:0' shape=() dtype=float32, numpy=1.0>
"""


def test_a_weight_prints_what_tensorflow_prints(capsys) -> None:
    """The class name, the string dtype (and tf ops taking it), what assign
    returns, and ``.value``: what tensorflow-cpu 2.21.0 printed."""
    layer = _dense()
    print(type(layer.kernel).__name__)
    dtype = layer.kernel.dtype
    print(repr(dtype), str(dtype), type(dtype).__name__)
    print(tf.cast(tf.constant([1, 2]), layer.bias.dtype))
    print(tf.zeros((2,), dtype=layer.bias.dtype))
    print(tf.ones_like(layer.bias, dtype=layer.kernel.dtype))
    print(repr(layer.bias.assign([1.0, 2.0])))
    print(repr(layer.bias.assign_add([1.0, 1.0])))
    print(repr(layer.bias.assign_sub(tf.constant([0.5, 0.5]))))
    print(layer.bias)
    print(repr(layer.bias.value))
    value = layer.bias.value
    print(type(value).__name__, value.name, value.dtype)
    print(layer.bias.value is layer.bias.value)
    print(repr(layer.bias.value.assign([0.0, 0.0])))
    print(layer.bias.numpy())
    v = keras.Variable(1.0, name="w")
    try:
        v.assign(2.0, read_value=False)
    except TypeError as e:
        print("TypeError:", e)
    print(repr(v.value))
    assert capsys.readouterr().out == TENSORFLOW_WEIGHT


def test_what_assign_returns_is_the_new_value_not_a_read() -> None:
    """The tensor assign returns holds the value then, apart from the weight."""
    layer = _dense()
    new = layer.bias.assign([1.0, 2.0])
    layer.bias.assign([5.0, 5.0])
    assert new.numpy().tolist() == [1.0, 2.0]
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer.bias.assign([3.0, 4.0]) * 2.0)
    assert tape.gradient(y, layer.bias) is None


def test_a_weight_pickles_and_its_value_copies_as_a_plain_variable() -> None:
    layer = _dense()
    layer.bias.assign([1.0, 2.0])
    again = pickle.loads(pickle.dumps(layer.bias))
    assert type(again) is type(layer.bias) and again.path == "dense/bias"
    assert again.numpy().tolist() == [1.0, 2.0] and again.dtype == "float32"
    copied = pickle.loads(pickle.dumps(layer.bias.value))
    assert repr(copied) == repr(layer.bias.value)
    copied.assign([9.0, 9.0])
    assert layer.bias.numpy().tolist() == [1.0, 2.0]


# What tensorflow-cpu 2.21.0 raised for tape.watch(layer.kernel) and for
# tape.watch(layer.trainable_weights) (the kernel comes first in the list).
TENSORFLOW_WATCH_ERROR = (
    "Passed in object <Variable path=dense/kernel, shape=(3, 2), dtype=float32, "
    "value=[[1. 1.]\n [1. 1.]\n [1. 1.]]> of type 'Variable', not tf.Tensor or "
    "tf.Variable or ExtensionType."
)


@pytest.mark.parametrize("watched", ["kernel", "trainable_weights"])
def test_tape_watch_refuses_a_weight_as_tensorflow_does(watched) -> None:
    layer = _dense()
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError) as raised:
            tape.watch(getattr(layer, watched))
    message = str(raised.value)
    assert message.startswith(TENSORFLOW_WATCH_ERROR + " ")
    assert "tape.watch(layer.kernel.value)" in message
    assert "tape.watch([w.value for w in model.trainable_weights])" in message
    assert "watch_accessed_variables=True" in message
    assert tape.watched_variables() == ()


def test_a_list_holding_a_weight_watches_nothing() -> None:
    layer = _dense()
    c = tf.constant(1.0)
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match="of type 'Variable'"):
            tape.watch([c, layer.bias])
        y = c * 2.0
    assert tape.gradient(y, c) is None


# tensorflow-cpu 2.21.0's gradients after watching .value, with
# watch_accessed_variables=False: the kernel's, and None for the bias.
TENSORFLOW_WATCH_VALUE = """\
tf.Tensor(
[[1. 1.]
 [2. 2.]
 [3. 3.]], shape=(3, 2), dtype=float32)
None
[<tf.Tensor: shape=(3, 2), dtype=float32, numpy=
array([[12., 12.],
       [24., 24.],
       [36., 36.]], dtype=float32)>, <tf.Tensor: shape=(2,), dtype=float32, \
numpy=array([12., 12.], dtype=float32)>]
"""


def test_watching_value_watches_the_weight(capsys) -> None:
    layer = _dense()
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(layer.kernel.value)
        y = tf.reduce_sum(layer(x))
    dk, db = tape.gradient(y, [layer.kernel, layer.bias])
    print(dk)
    print(db)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([w.value for w in layer.trainable_weights])
        y = tf.reduce_sum(layer(x) ** 2)
    print(tape.gradient(y, layer.trainable_weights))
    assert capsys.readouterr().out == TENSORFLOW_WATCH_VALUE


def test_watched_variables_are_the_weights_themselves() -> None:
    """The documented difference: TensorFlow lists the tf.Variables behind the
    weights (['dense/kernel:0', 'dense/bias:0']); tapemagic lists the weights."""
    layer = _dense()
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        tf.reduce_sum(layer(x))
    assert list(tape.watched_variables()) == [layer.kernel, layer.bias]
    assert [v.value.name for v in tape.watched_variables()] == [
        "dense/kernel:0",
        "dense/bias:0",
    ]
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(layer.bias.value)
    assert tape.watched_variables() == (layer.bias,)


def test_the_value_reads_and_watches_as_the_weight_does() -> None:
    layer = _dense()
    layer.trainable = False
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer.kernel.value * 2.0)
    assert tape.gradient(y, layer.kernel) is None  # not trainable: not watched
    layer.trainable = True
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer.kernel.value * 2.0)
    assert tape.gradient(y, layer.kernel).numpy().tolist() == [[2.0, 2.0]] * 3


def test_a_plain_variable_and_a_tensor_are_watchable() -> None:
    assert unwatchable(tf.Variable(1.0)) is None
    assert unwatchable(tf.constant(1.0)) is None
    assert unwatchable(_dense().kernel.value) is None
    assert unwatchable(_dense().kernel).startswith("Passed in object <Variable path=")
    # what tensorflow-cpu 2.21.0 says for tape.watch(np.float32(1.0)), then the fix
    assert unwatchable(np.float32(1.0)).startswith(
        "Passed in object 1.0 of type 'float32', not tf.Tensor or tf.Variable or "
        "ExtensionType. Convert it first"
    )


def test_the_dtype_string_works_wherever_a_tf_dtype_does() -> None:
    w = keras.Variable(np.zeros((2, 2)), name="w")
    assert w.dtype == "float64" and w.dtype == tf.float64
    assert tf.cast([1, 2], w.dtype).dtype == tf.float64
    assert tf.zeros((2,), dtype=w.dtype).dtype == tf.float64
    assert tf.convert_to_tensor(w, dtype=w.dtype).dtype == tf.float64
    w.assign(np.ones((2, 2)))
    assert w.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert tf.as_dtype(w.dtype) is tf.float64


def test_a_model_trains_with_string_dtypes() -> None:
    """fit and the optimizers read each weight's dtype as Keras 3 gives it."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.1), loss="mse")
    x = np.ones((8, 3), np.float32)
    history = model.fit(x, np.zeros((8, 1), np.float32), epochs=3, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0]
