"""``tf.Module`` and ``tf.name_scope``, printing what TensorFlow 2.21 printed.

The expected output was printed by the same code under ``import tensorflow as
tf``. Variable names are compared without their scope prefix: TensorFlow gives
``seq/w:0`` where tapemagic's variables, which do not read the name scope yet,
give ``w:0`` (see the expected failure below). Errors match in type and first
words (tapemagic's messages go on with what to do).
"""

from __future__ import annotations

import pytest

import tapemagic.tf as tf


def test_modules_and_scopes_as_tensorflow_prints_them(capsys) -> None:
    def attempt(f):
        try:
            print(f())
        except Exception as e:
            print(type(e).__name__ + ":", str(e).split("\n")[0][:110])

    class MyModule(tf.Module):
        pass

    class HTTPServer2D(tf.Module):
        pass

    class Dense(tf.Module):
        def __init__(self, i, o, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.ones([i, o]), name="w")
            self.b = tf.Variable(tf.zeros([o]), name="b")

        def __call__(self, x):
            return tf.nn.relu(x @ self.w + self.b)

    class Seq(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.d1 = Dense(3, 3)
                self.d2 = Dense(3, 2)
            self.extra = [
                Dense(2, 2, name="in_list"),
                {"z": Dense(1, 1, name="zz"), "a": tf.Variable(1.0, name="av")},
                (tf.Variable(2.0, trainable=False, name="nt"),),
            ]
            self.dup = self.d1
            self.v = tf.Variable(5.0, name="v")
            self.c = tf.constant(1.0)
            self._private = tf.Variable(3.0, name="priv")

    attempt(lambda: (tf.Module().name, tf.Module().name_scope.name))
    attempt(lambda: (MyModule().name, HTTPServer2D().name, MyModule(name="foo").name))
    attempt(lambda: MyModule(name="foo bar"))
    attempt(lambda: MyModule(name="1foo"))
    attempt(lambda: MyModule(name="a/b"))
    s = Seq()

    def strip(name):
        return name.split("/")[-1]

    print([strip(v.name) for v in s.variables])
    print([strip(v.name) for v in s.trainable_variables])
    print([strip(v.name) for v in s.non_trainable_variables])
    print([m.name for m in s.submodules])
    print(type(s.variables).__name__, type(s.submodules).__name__)
    print(s.d1.name, s.d1.name_scope.name)
    print(s.d2(tf.ones([1, 3])))

    class Lazy(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(tf.ones([x.shape[1], 3]))
            return tf.matmul(x, self.w)

    m = Lazy()
    print(m(tf.ones([1, 2])))
    print(strip(m.w.name), Lazy.__call__.__name__)
    with tf.name_scope("outer"):
        with tf.name_scope("inner") as scope:
            print(scope)
        mm = MyModule()
        print(mm.name_scope.name, mm.name)
        with tf.name_scope("inner/") as scope:
            print(scope)
        with tf.name_scope("") as scope:
            print(repr(scope))
    with tf.name_scope("a b") as scope:
        print(scope)
    print(tf.name_scope("x").name)
    attempt(lambda: tf.name_scope(1))
    m1, m2 = MyModule(), MyModule()
    print(m1.name_scope.name, m2.name_scope.name)

    class Cyc(tf.Module):
        def __init__(self):
            super().__init__()
            self.me = self
            self.v = tf.Variable(1.0)

    print(len(Cyc().variables), Cyc().submodules)

    class T(tf.Module):
        def __init__(self):
            super().__init__()
            self.t = tf.constant(1.0)
            self.v = [tf.Variable(1.0, name="b"), tf.Variable(1.0, name="a")]
            self.a = tf.Variable(1.0, name="first_attr")

    print([v.name for v in T().variables])

    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(1, 1, name="x1")]
            self.layers[0].inner = Dense(1, 1, name="x2")
            self.shared = self.layers[0].w

    print(
        [m.name for m in Holder().submodules],
        [strip(v.name) for v in Holder().variables],
    )
    print(isinstance(Dense(1, 1), tf.Module))
    assert capsys.readouterr().out == EXPECTED


EXPECTED = """\
('module', 'module/')
('my_module', 'http_server2_d', 'foo')
ValueError: 'foo bar' is not a valid module name. Module names must be valid Python identifiers (e.g. a valid class name).
ValueError: '1foo' is not a valid module name. Module names must be valid Python identifiers (e.g. a valid class name).
ValueError: 'a/b' is not a valid module name. Module names must be valid Python identifiers (e.g. a valid class name).
['priv:0', 'av:0', 'nt:0', 'v:0', 'b:0', 'w:0', 'b:0', 'w:0', 'b:0', 'w:0', 'b:0', 'w:0']
['priv:0', 'av:0', 'v:0', 'b:0', 'w:0', 'b:0', 'w:0', 'b:0', 'w:0', 'b:0', 'w:0']
['nt:0']
['dense', 'dense', 'in_list', 'zz']
tuple tuple
dense seq/dense/
tf.Tensor([[3. 3.]], shape=(1, 2), dtype=float32)
tf.Tensor([[2. 2. 2.]], shape=(1, 3), dtype=float32)
Variable:0 __call__
outer/inner/
outer/my_module/ my_module
inner/
''
a b/
x
ValueError: name for name_scope must be a string. Got 1: pass the scope's name as a str.
my_module/ my_module/
1 ()
['first_attr:0', 'b:0', 'a:0']
['x1', 'x2'] ['w:0', 'b:0', 'b:0', 'w:0']
True
"""  # noqa: E501


def test_variables_take_the_name_scope_into_their_names() -> None:
    # TensorFlow 2.21 prints outer/v:0, outer/inner/Variable:0 and w:0.
    with tf.name_scope("outer"):
        assert tf.Variable(1.0, name="v").name == "outer/v:0"
        with tf.name_scope("inner"):
            assert tf.Variable(1.0).name == "outer/inner/Variable:0"
    assert tf.Variable(1.0, name="w").name == "w:0"


def test_with_name_scope_keeps_the_method_and_restores_the_scope() -> None:
    class Counter(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, fail):
            """Count."""
            if fail:
                raise RuntimeError("inside")
            return tf.name_scope("step").__enter__()

    counter = Counter()
    assert counter.__call__.__doc__ == "Count."
    with pytest.raises(RuntimeError):
        counter(True)
    # a scope entered and never left inside the method ends with the method
    assert counter(False) == "counter/step/"
    with tf.name_scope("probe") as scope:
        assert scope == "probe/"  # the failed call left no scope open


def test_guides_introduction_to_modules_and_basic_training_loops(capsys) -> None:
    """TensorFlow's "Introduction to modules" and "Basic training loops" guides,
    then the same model trained on a batched tf.data pipeline with an optimizer
    and called through a tf.function with an input_signature."""

    class SimpleModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.a_variable = tf.Variable(5.0, name="train_me")
            self.non_trainable_variable = tf.Variable(
                5.0, trainable=False, name="do_not_train_me"
            )

        def __call__(self, x):
            return self.a_variable * x + self.non_trainable_variable

    simple_module = SimpleModule(name="simple")
    print(simple_module(tf.constant(5.0)))
    print("trainable variables:", simple_module.trainable_variables)
    print("all variables:", simple_module.variables)

    class Dense(tf.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.ones([in_features, out_features]), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    class SequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)

    my_model = SequentialModule(name="the_model")
    print("Model results:", my_model(tf.constant([[2.0, 2.0, 2.0]])))
    print("Submodules:", [m.name for m in my_model.submodules])
    for var in my_model.variables:
        print(var.shape, var.dtype, var.name)

    class MyModel(tf.Module):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    model = MyModel()
    print("Variables:", model.variables)
    TRUE_W = 3.0
    TRUE_B = 2.0
    x = tf.linspace(-2, 2, 201)
    x = tf.cast(x, tf.float32)
    y = x * TRUE_W + TRUE_B

    def loss(target_y, predicted_y):
        return tf.reduce_mean(tf.square(target_y - predicted_y))

    def train(model, x, y, learning_rate):
        with tf.GradientTape() as t:
            current_loss = loss(y, model(x))
        dw, db = t.gradient(current_loss, [model.w, model.b])
        model.w.assign_sub(learning_rate * dw)
        model.b.assign_sub(learning_rate * db)

    for _epoch in range(10):
        train(model, x, y, learning_rate=0.1)
    print(
        f"W = {model.w.numpy():1.2f}, b = {model.b.numpy():1.2f}, "
        f"loss={loss(y, model(x)):2.5f}"
    )

    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(50)
    opt = tf.keras.optimizers.SGD(learning_rate=0.1)
    m2 = MyModel(name="batched")
    for _epoch in range(5):
        for bx, by in dataset:
            with tf.GradientTape() as tape:
                batch_loss = loss(by, m2(bx))
            grads = tape.gradient(batch_loss, m2.trainable_variables)
            opt.apply_gradients(zip(grads, m2.trainable_variables))
    print(
        f"{m2.w.numpy():.3f} {m2.b.numpy():.3f}",
        [v.name for v in m2.trainable_variables],
    )

    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
    def predict(v):
        return m2(v)

    print(predict(tf.constant([1.0, 2.0])))
    assert capsys.readouterr().out == GUIDES_OUTPUT


GUIDES_OUTPUT = """\
tf.Tensor(30.0, shape=(), dtype=float32)
trainable variables: (<tf.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>,)
all variables: (<tf.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>, <tf.Variable 'do_not_train_me:0' shape=() dtype=float32, numpy=5.0>)
Model results: tf.Tensor([[18. 18.]], shape=(1, 2), dtype=float32)
Submodules: ['dense', 'dense']
(3,) <dtype: 'float32'> b:0
(3, 3) <dtype: 'float32'> w:0
(2,) <dtype: 'float32'> b:0
(3, 2) <dtype: 'float32'> w:0
Variables: (<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.0>, <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=5.0>)
W = 3.09, b = 1.79, loss=0.05625
3.002 1.995 ['Variable:0', 'Variable:0']
tf.Tensor([4.9977036 8.       ], shape=(2,), dtype=float32)
"""  # noqa: E501


def test_name_scopes_are_per_thread() -> None:
    import threading

    seen = {}
    module = tf.Module(name="shared")

    def work(key):
        with tf.name_scope(key), module.name_scope as scope:
            barrier.wait()
            seen[key] = (scope, tf.name_scope("x").__enter__())

    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=work, args=(k,)) for k in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # a module's scope is absolute: the same in both threads, whatever encloses it
    assert seen == {"a": ("shared/", "shared/x/"), "b": ("shared/", "shared/x/")}
