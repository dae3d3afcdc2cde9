"""A traced tf.function replays its plan: the same values and gradients as the
eager run, bit for bit, over the course notebooks' training steps; and a tape
or a listener around a call still records and hears it."""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import pytest

import tapemagic.tf as tf
from tapemagic.engine.recorder import Listener
from tapemagic.engine.tensor import array_of

RNG = np.random.default_rng(0)
DIGITS = RNG.random((40, 64)).astype("float32")
IMAGES = DIGITS.reshape(40, 8, 8, 1)
LABELS = RNG.integers(0, 10, 40).astype("int32")


def same(a, b) -> bool:
    flat_a, flat_b = tf.nest.flatten(a), tf.nest.flatten(b)
    return len(flat_a) == len(flat_b) and all(
        np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(flat_a, flat_b)
    )


def run_both(make, batches):
    """Run the step ``make()`` returns eagerly and under tf.function, on two
    copies built alike; both results and all weights after every step."""
    eager_weights, eager_step = make()
    traced_weights, traced_step = make()
    traced_step = tf.function(traced_step)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # traced and replayed, never run eagerly
        for args in batches:
            assert same(eager_step(*args), traced_step(*args))
            assert same(eager_weights, traced_weights)
    return traced_step


def batches(x, y, size=16):
    return [(x[i : i + size], y[i : i + size]) for i in range(0, len(x), size)] * 2


def test_notebook_4s_training_step_replays_bit_for_bit():
    def make():
        tf.keras.utils.set_random_seed(0)
        model = tf.keras.Sequential(
            [
                tf.keras.Input(shape=(64,)),
                tf.keras.layers.Dense(64, activation="relu"),
                tf.keras.layers.Dense(10),
            ]
        )
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        optimizer = tf.keras.optimizers.Adam(learning_rate=0.005)

        def train_step(x, y):
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply(grads, model.trainable_weights)
            return loss

        return model.weights, train_step

    step = run_both(make, batches(DIGITS, LABELS))
    # The first call made Adam's variables: two traces; the last, smaller
    # batch a third; the calls after that replayed.
    assert step.experimental_get_tracing_count() == 3


def test_notebook_6s_gradient_ascent_step_replays_bit_for_bit():
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(8, 8, 1)),
            tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
            tf.keras.layers.MaxPooling2D(2),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(10),
        ]
    )

    def make():
        image = tf.Variable(tf.zeros([1, 8, 8, 1]))

        def ascend(digit, step_size=0.01):
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(image)
                logits = model(image)
                score = logits[0, digit] - 0.1 * tf.reduce_sum(image**2)
            grad = tape.gradient(score, image)
            image.assign(tf.clip_by_value(image + step_size * grad, 0.0, 1.0))
            return score, grad

        return [image], ascend

    step = run_both(make, [(3,)] * 12 + [(5,)] * 3)
    assert step.experimental_get_tracing_count() == 2  # one per digit


class DigitsModel(tf.keras.Model):
    """Notebook 7's model: its own train_step, with the compiled metrics."""

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=logits)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}


def test_notebook_7s_custom_train_step_replays_bit_for_bit():
    def make():
        tf.keras.utils.set_random_seed(2)
        inputs = tf.keras.Input(shape=(8, 8, 1))
        h = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
        outputs = tf.keras.layers.Dense(10)(tf.keras.layers.Flatten()(h))
        model = DigitsModel(inputs, outputs)
        model.compile(
            optimizer=tf.keras.optimizers.Adam(0.01),
            loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        return model.weights, lambda x, y: model.train_step((x, y))

    data = [(tf.constant(x), tf.constant(y)) for x, y in batches(IMAGES, LABELS)]
    step = run_both(make, data)
    assert step.experimental_get_tracing_count() == 3


@pytest.mark.parametrize(
    "optimizer",
    [
        lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
        lambda: tf.keras.optimizers.RMSprop(0.01),
    ],  # fmt: skip
)
def test_a_keras_optimizer_update_inside_the_function_replays(optimizer):
    def make():
        w = tf.Variable(np.linspace(-1.0, 1.0, 6, dtype="float32").reshape(2, 3))
        opt = optimizer()
        opt.build([w])

        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) ** 2)
            opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
            return loss

        return [w, opt.iterations], step

    x = RNG.random((4, 2)).astype("float32")
    step = run_both(make, [(x,)] * 5)
    assert step.experimental_get_tracing_count() == 1


def test_the_benchmark_mlp_step_replays_and_updates_its_variables_in_place():
    x = tf.constant(RNG.standard_normal((6, 8)).astype("float32"))
    y = tf.constant(RNG.integers(0, 5, 6).astype("int32"))
    start = RNG.standard_normal((8, 5)).astype("float32")

    def make():
        w, b = tf.Variable(start), tf.Variable(np.zeros(5, "float32"))

        def step():
            with tf.GradientTape() as tape:
                logits = tf.nn.relu(tf.matmul(x, w) + b)
                loss = tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(
                        labels=y, logits=logits
                    )
                )
            grads = tape.gradient(loss, [w, b])
            for p, g in zip([w, b], grads):
                p.assign_sub(0.1 * g)
            return loss, grads

        return [w, b], step

    run_both(make, [()] * 4)
    (w, b), step = make()
    step = tf.function(step)
    step()
    step()
    held = weakref.ref(array_of(w))  # (a reference would stop the update)
    step()
    # Nothing else holds the weights' arrays: the update wrote into them.
    assert held() is array_of(w)


def test_a_tape_around_a_call_records_the_replayed_ops():
    w = tf.Variable(2.0)

    @tf.function
    def f(x):
        return w * x * x

    f(tf.constant(3.0))  # traced
    with tf.GradientTape() as tape:
        y = f(tf.constant(3.0))
    assert tape.gradient(y, w).numpy() == 9.0
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert tape.gradient(y, x).numpy() == 12.0


class Heard(Listener):
    def __init__(self):
        self.ops, self.reads = [], []

    def on_op(self, event):
        self.ops.append(event.op.name)

    def on_variable_read(self, event):
        self.reads.append(event.variable.variable)


def test_an_explanation_log_around_a_call_hears_the_replayed_ops(capsys):
    w = tf.Variable(2.0)

    @tf.function
    def f(x):
        print("traced")
        return tf.tanh(w * x)

    f(tf.constant(1.0))
    heard = Heard()
    with tf.GradientTape(explain=heard) as tape:
        y = f(tf.constant(1.0))
    assert heard.ops == ["multiply", "tanh"] and heard.reads == [w]
    assert tape.gradient(y, w).numpy() == pytest.approx(1 - np.tanh(2.0) ** 2)
    assert capsys.readouterr().out == "traced\n"  # side effects did not rerun


def test_an_explained_tape_inside_the_body_records_while_tracing():
    w = tf.Variable(3.0)
    heard = Heard()

    @tf.function
    def f(x):
        with tf.GradientTape(explain=heard) as tape:
            y = w * x
        return tape.gradient(y, w)

    assert f(tf.constant(2.0)).numpy() == 2.0
    assert f(tf.constant(5.0)).numpy() == 5.0
    assert heard.ops[0] == "multiply"


def test_a_traced_function_calling_another_traces_through_it():
    @tf.function
    def inner(x):
        return tf.sin(x) * 2.0

    @tf.function
    def outer(x):
        tf.print("outer", x)
        return inner(x) + 1.0

    inner(tf.constant(1.0))  # traced on its own first
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # traced, not run eagerly
        values = [outer(tf.constant(v)).numpy() for v in (0.5, 1.5)]
    assert values == [np.float32(np.sin(np.float32(v)) * 2 + 1) for v in (0.5, 1.5)]
    assert outer.experimental_get_tracing_count() == 1


def test_batch_normalization_moving_statistics_replay_bit_for_bit():
    def make():
        tf.keras.utils.set_random_seed(0)
        model = tf.keras.Sequential(
            [
                tf.keras.Input((3,)),
                tf.keras.layers.Dense(4),
                tf.keras.layers.BatchNormalization(),
            ]
        )
        optimizer = tf.keras.optimizers.SGD(0.1)

        def step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x, training=True) ** 2)
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply(grads, model.trainable_weights)
            return loss

        return model.weights, step

    run_both(make, [(RNG.random((8, 3)).astype("float32"),) for _ in range(4)])


def test_dropout_computes_its_mask_in_numpy_so_the_function_runs_eagerly():
    tf.keras.utils.set_random_seed(3)
    layer = tf.keras.layers.Dropout(0.5)

    @tf.function
    def f(x):
        return layer(x, training=True)

    x = np.ones((4, 50), "float32")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = f(x), f(x)
    assert len(caught) == 1
    assert "converts a NumPy value computed inside tapemagic" in str(caught[0].message)
    assert not np.array_equal(first.numpy(), second.numpy())  # a new mask each call


def test_reads_before_and_after_an_assignment_keep_their_own_values():
    v = tf.Variable(1.0)

    def body(x):
        before = v.read_value()
        v.assign_add(x)
        return before * 1.0, v * 1.0, tf.identity(v)

    traced = tf.function(body)
    expected = []
    for x in (1.0, 2.0, 3.0):
        expected.append([t.numpy() for t in body(tf.constant(x))])
    v.assign(1.0)
    got = [[t.numpy() for t in traced(tf.constant(x))] for x in (1.0, 2.0, 3.0)]
    assert got == expected == [[1.0, 2.0, 2.0], [2.0, 4.0, 4.0], [4.0, 7.0, 7.0]]


def test_random_shuffle_draws_outside_its_op_so_the_function_runs_eagerly():
    @tf.function
    def f(x):
        return tf.random.shuffle(x)

    x = tf.range(50)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = f(x), f(x)
    assert "random_shuffle" in str(caught[0].message)
    assert not np.array_equal(first.numpy(), second.numpy())


def test_constants_made_inside_the_function_are_part_of_its_plan():
    @tf.function
    def f(x):
        return (
            x + tf.constant([1.0, 2.0]) + tf.constant(3.0, shape=[2]) + tf.constant(x)
        )

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # traced, not run eagerly
        values = [f(tf.constant(v)).numpy().tolist() for v in ([1.0, 1.0], [2.0, 0.0])]
    assert values == [[6.0, 7.0], [8.0, 5.0]]
