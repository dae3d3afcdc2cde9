"""tf.function's tracing rules, pinned against TensorFlow.

Each program here was run under tensorflow-cpu 2.21.0 (with
``import tensorflow as tf``); the expected strings are what it printed: Python
``print`` on stdout, ``tf.print`` on stderr. tapemagic runs the same programs.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

import tapemagic.tf as tf


@pytest.fixture
def bare_tensorflow_logger(monkeypatch):
    """The "tensorflow" logger as a kernel without TensorFlow has it: no handler.

    In this test process TensorFlow itself may have set its handler on it (the
    recorder's tests import it), whose stream is the stderr of that moment.
    """
    logger = logging.getLogger("tensorflow")
    monkeypatch.setattr(logger, "handlers", [])
    monkeypatch.setattr(logger, "propagate", True)


@pytest.mark.usefixtures("bare_tensorflow_logger")
def test_the_guides_print_and_tf_print_example(capsys):
    """TensorFlow printed on stdout:
    Traced with 1 / Traced with 2 / Traced with Tensor("x:0", shape=(), dtype=int32)
    / Traced with Tensor("x:0", shape=(), dtype=float32) / Traced with
    Tensor("x:0", shape=(2,), dtype=int32); on stderr one "Executed with" per call,
    then "WARNING:tensorflow:5 out of the last 7 calls to <function f at 0x...>
    triggered tf.function retracing. Tracing is expensive and ..." (its frequent
    tracing warning).
    """

    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x)

    f(1)
    f(1)
    f(2)
    f(tf.constant(1))
    f(tf.constant(2))
    f(tf.constant(1.0))
    f(tf.constant([1, 2]))
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "Traced with 1",
        "Traced with 2",
        'Traced with Tensor("x:0", shape=(), dtype=int32)',
        'Traced with Tensor("x:0", shape=(), dtype=float32)',
        'Traced with Tensor("x:0", shape=(2,), dtype=int32)',
    ]
    assert err.splitlines()[:-1] == [
        "Executed with 1",
        "Executed with 1",
        "Executed with 2",
        "Executed with 1",
        "Executed with 2",
        "Executed with 1",
        "Executed with [1 2]",
    ]
    warning = err.splitlines()[-1]
    assert warning.startswith("WARNING:tensorflow:5 out of the last 7 calls to ")
    assert f.python_function.__qualname__ in warning
    assert warning.endswith(
        "triggered tf.function retracing. Tracing is expensive and the excessive "
        "number of tracings could be due to (1) creating @tf.function repeatedly "
        "in a loop, (2) passing tensors with different shapes, (3) passing Python "
        "objects instead of tensors. For (1), please define your @tf.function "
        "outside of the loop. For (2), @tf.function has reduce_retracing=True "
        "option that can avoid unnecessary retracing. For (3), please refer to "
        "https://www.tensorflow.org/guide/function#controlling_retracing and "
        "https://www.tensorflow.org/api_docs/python/tf/function for  more details."
    )
    assert f.experimental_get_tracing_count() == 5


def test_a_new_shape_retraces_and_a_traced_tensor_prints_as_symbolic(capsys):
    """TensorFlow printed:
    y is Tensor("add:0", shape=(), dtype=float32) <tf.Tensor 'add:0' shape=() dtype=float32>
    tf.Tensor(7.0, shape=(), dtype=float32)
    y is Tensor("add:0", shape=(2,), dtype=float32) <tf.Tensor 'add:0' shape=(2,) dtype=float32>
    tf.Tensor([7. 9.], shape=(2,), dtype=float32)
    tf.Tensor([11.  9.], shape=(2,), dtype=float32)
    y is Tensor("add:0", shape=(3,), dtype=float32) <tf.Tensor 'add:0' shape=(3,) dtype=float32>
    tf.Tensor([11.  9.  3.], shape=(3,), dtype=float32)
    g count 3
    """  # noqa: E501

    @tf.function
    def g(x):
        y = x * 2 + 1
        print("y is", y, repr(y))
        return y

    print(g(tf.constant(3.0)))
    print(g(tf.constant([3.0, 4.0])))
    print(g(tf.constant([5.0, 4.0])))
    print(g(tf.constant([5.0, 4.0, 1.0])))
    print("g count", g.experimental_get_tracing_count())
    assert capsys.readouterr().out.splitlines() == [
        'y is Tensor("add:0", shape=(), dtype=float32) '
        "<tf.Tensor 'add:0' shape=() dtype=float32>",
        "tf.Tensor(7.0, shape=(), dtype=float32)",
        'y is Tensor("add:0", shape=(2,), dtype=float32) '
        "<tf.Tensor 'add:0' shape=(2,) dtype=float32>",
        "tf.Tensor([7. 9.], shape=(2,), dtype=float32)",
        "tf.Tensor([11.  9.], shape=(2,), dtype=float32)",
        'y is Tensor("add:0", shape=(3,), dtype=float32) '
        "<tf.Tensor 'add:0' shape=(3,) dtype=float32>",
        "tf.Tensor([11.  9.  3.], shape=(3,), dtype=float32)",
        "g count 3",
    ]


def test_reduce_retracing_relaxes_shapes(capsys):
    """TensorFlow printed:
    trace h Tensor("x:0", shape=(1,), dtype=float32)
    trace h Tensor("x:0", shape=(None,), dtype=float32)
    h count 2
    trace h Tensor("x:0", dtype=float32)
    h count 3
    """

    @tf.function(reduce_retracing=True)
    def h(x):
        print("trace h", x)
        return x + 1

    h(tf.constant([1.0]))
    h(tf.constant([1.0, 2.0]))
    result = h(tf.constant([1.0, 2.0, 3.0]))
    print("h count", h.experimental_get_tracing_count())
    h(tf.constant([[1.0]]))
    scalar = h(tf.constant(1.0))
    print("h count", h.experimental_get_tracing_count())
    assert capsys.readouterr().out.splitlines() == [
        'trace h Tensor("x:0", shape=(1,), dtype=float32)',
        'trace h Tensor("x:0", shape=(None,), dtype=float32)',
        "h count 2",
        'trace h Tensor("x:0", dtype=float32)',
        "h count 3",
    ]
    # Shapes the trace has not seen give the right values all the same.
    assert np.array_equal(result.numpy(), [2.0, 3.0, 4.0])
    assert scalar.numpy() == 2.0


def test_an_input_signature_traces_once_and_refuses_what_does_not_fit(capsys):
    """TensorFlow printed:
    trace k Tensor("x:0", shape=(None,), dtype=float32)
    tf.Tensor([2. 4.], shape=(2,), dtype=float32) tf.Tensor([2.], shape=(1,), dtype=float32)
    k count 1
    and, for an int32 tensor, a (1, 1) tensor and 1.0, a TypeError beginning
    "Binding inputs to tf.function failed due to `Can not cast
    TensorSpec(shape=(2,), dtype=tf.int32, name=None) to TensorSpec(shape=(None,),
    dtype=tf.float32, name=None)`." (the shapes and dtypes of each).
    """  # noqa: E501

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def k(x):
        print("trace k", x)
        return x * 2

    print(k(tf.constant([1.0, 2.0])), k(tf.constant([1.0])))
    print("k count", k.experimental_get_tracing_count())
    assert capsys.readouterr().out.splitlines() == [
        'trace k Tensor("x:0", shape=(None,), dtype=float32)',
        "tf.Tensor([2. 4.], shape=(2,), dtype=float32) "
        "tf.Tensor([2.], shape=(1,), dtype=float32)",
        "k count 1",
    ]
    refused = {
        "TensorSpec(shape=(2,), dtype=tf.int32, name=None)": tf.constant([1, 2]),
        "TensorSpec(shape=(1, 1), dtype=tf.float32, name=None)": tf.constant([[1.0]]),
        "TensorSpec(shape=(), dtype=tf.float32, name=None)": 1.0,
    }
    for spec, value in refused.items():
        with pytest.raises(TypeError) as info:
            k(value)
        assert str(info.value).startswith(
            f"Binding inputs to tf.function failed due to `Can not cast {spec} to "
            "TensorSpec(shape=(None,), dtype=tf.float32, name=None)`."
        )
    assert k.experimental_get_tracing_count() == 1


def test_get_concrete_function_traces_for_a_spec():
    """TensorFlow printed "g count 4" after g had traced (), (2,), (3,) and
    get_concrete_function(TensorSpec([None])) made a fourth; a concrete function
    asked for a shape a trace has (2,) made none: "g count 4"; and the concrete
    function called with [1.0] gave tf.Tensor([3.], shape=(1,), dtype=float32).
    """
    calls = []

    @tf.function
    def g(x):
        calls.append(1)
        return x * 2 + 1

    for value in (3.0, [3.0, 4.0], [5.0, 4.0, 1.0]):
        g(tf.constant(value))
    concrete = g.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert g.experimental_get_tracing_count() == 4
    assert str(concrete(tf.constant([1.0]))) == (
        "tf.Tensor([3.], shape=(1,), dtype=float32)"
    )
    g.get_concrete_function(tf.constant([1.0, 2.0]))
    assert g.experimental_get_tracing_count() == 4


def test_python_values_retrace_by_value_and_keywords_bind_to_the_signature(capsys):
    """TensorFlow printed "trace pyarg 2", "trace pyarg 3" and "pyarg 2" for
    f(x, 2), f(x, 2), f(x, 3), f(x, 2.0), f(x, n=2); a Python list appended to
    while tracing held [1] after two calls; NumPy arrays traced as tensors, by
    dtype and shape: "npx 2" for float64 [1.0], float64 [2.0], float32 [2.0]."""

    @tf.function
    def pyarg(x, n):
        print("trace pyarg", n)
        return x * n

    x = tf.constant(1.0)
    for args, kwargs in (((2,), {}), ((2,), {}), ((3,), {}), ((2.0,), {}),
                         ((), {"n": 2})):  # fmt: skip
        pyarg(x, *args, **kwargs)
    print("pyarg", pyarg.experimental_get_tracing_count())
    seen = []

    @tf.function
    def append(x):
        seen.append(1)
        return x + 1

    append(tf.constant(1))
    append(tf.constant(2))

    @tf.function
    def npx(x):
        return x

    npx(np.array([1.0]))
    npx(np.array([2.0]))
    npx(np.array([2.0], np.float32))
    assert capsys.readouterr().out.splitlines() == [
        "trace pyarg 2",
        "trace pyarg 3",
        "pyarg 2",
    ]
    assert seen == [1]
    assert npx.experimental_get_tracing_count() == 2


def test_variables_are_captured_by_reference():
    """TensorFlow printed "trace f" once, then tf.Tensor(2.0, ...) and, after
    v.assign(3.0) outside, tf.Tensor(6.0, shape=(), dtype=float32)."""
    v = tf.Variable(1.0)
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        return x * v

    assert f(tf.constant(2.0)).numpy() == 2.0
    v.assign(3.0)
    assert str(f(tf.constant(2.0))) == "tf.Tensor(6.0, shape=(), dtype=float32)"
    assert traces == [1]


def test_a_method_traces_per_instance(capsys):
    """TensorFlow printed "trace C 2.0", "trace C 3.0", the results 2.0, 3.0,
    2.0, and the counts "1 1 0" (a.go, b.go, C.go); a.go is a.go: True."""

    class C:
        def __init__(self, k):
            self.k = k

        @tf.function
        def go(self, x):
            print("trace C", self.k)
            return x * self.k

    a, b = C(2.0), C(3.0)
    results = [a.go(tf.constant(1.0)), b.go(tf.constant(1.0)), a.go(tf.constant(1.0))]
    assert [r.numpy() for r in results] == [2.0, 3.0, 2.0]
    counts = [f.experimental_get_tracing_count() for f in (a.go, b.go, C.go)]
    assert counts == [1, 1, 0]
    assert a.go is a.go
    assert capsys.readouterr().out.splitlines() == ["trace C 2.0", "trace C 3.0"]


def test_variables_made_on_the_first_call_trace_twice_and_run_once(capsys):
    """TensorFlow printed "trace M ..." twice on the first call of each
    instance, 2.0 for both calls, and the count 2 (3 after a new shape); in a
    function that makes a variable on its first call and updates another,
    "trace mk" twice, then 11.0 with the counter at 1, 12.0 with it at 2."""

    class M(tf.Module):
        def __init__(self):
            self.w = None

        @tf.function
        def __call__(self, x):
            print("trace M", x)
            if self.w is None:
                self.w = tf.Variable(2.0)
            return self.w * x

    m = M()
    assert m(tf.constant(1.0)).numpy() == 2.0
    assert m(tf.constant(1.0)).numpy() == 2.0
    assert m.__call__.experimental_get_tracing_count() == 2
    m(tf.constant([1.0]))
    assert m.__call__.experimental_get_tracing_count() == 3
    assert capsys.readouterr().out.splitlines() == [
        'trace M Tensor("x:0", shape=(), dtype=float32)',
        'trace M Tensor("x:0", shape=(), dtype=float32)',
        'trace M Tensor("x:0", shape=(1,), dtype=float32)',
    ]
    counter = tf.Variable(0)
    made = {}

    @tf.function
    def mk(x):
        print("trace mk")
        if "w" not in made:
            made["w"] = tf.Variable(10.0)
        counter.assign_add(1)
        made["w"].assign_add(x)
        return made["w"].read_value()

    first = mk(tf.constant(1.0))
    assert (first.numpy(), counter.numpy()) == (11.0, 1)
    second = mk(tf.constant(1.0))
    assert (second.numpy(), counter.numpy()) == (12.0, 2)
    assert mk.experimental_get_tracing_count() == 2
    assert capsys.readouterr().out.splitlines() == ["trace mk", "trace mk"]


def test_a_variable_made_on_every_call_is_refused(capsys):
    """TensorFlow printed "trace bad" twice, then raised ValueError: "...
    tf.function only supports singleton tf.Variables created on the first call.
    Make sure the tf.Variable is only created once or created outside
    tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables
    for more information."; the count was then 1."""

    @tf.function
    def bad(x):
        print("trace bad")
        w = tf.Variable(1.0)
        return w * x

    with pytest.raises(ValueError) as info:
        bad(tf.constant(1.0))
    assert (
        "tf.function only supports singleton tf.Variables created on the first "
        "call. Make sure the tf.Variable is only created once or created outside "
        "tf.function. See https://www.tensorflow.org/guide/function"
        "#creating_tfvariables for more information." in str(info.value)
    )
    assert bad.experimental_get_tracing_count() == 1
    assert capsys.readouterr().out.splitlines() == ["trace bad", "trace bad"]


def test_random_ops_draw_anew_on_every_call():
    """TensorFlow printed True: two calls of a function returning
    tf.random.uniform([2]) gave different values."""

    @tf.function
    def draw():
        return tf.random.uniform([2]), tf.random.normal([3])

    first, second = draw(), draw()
    assert not np.any(first[0].numpy() == second[0].numpy())
    assert not np.any(first[1].numpy() == second[1].numpy())
    assert draw.experimental_get_tracing_count() == 1


def test_a_function_that_branches_on_a_tensor_runs_eagerly_with_one_warning():
    """TensorFlow (autograph) printed 2.0 and 3.0 for |x| at -2 and 3 with one
    trace; tapemagic gives the same values, eagerly, and says why once."""

    @tf.function
    def absolute(x):
        calls.append(1)
        if x > 0:  # the line the warning names
            return x
        return -x

    calls = []
    line = absolute.python_function.__code__.co_firstlineno + 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = [absolute(tf.constant(v)).numpy() for v in (-2.0, 3.0, -4.0)]
    assert values == [2.0, 3.0, 4.0]
    assert len(caught) == 1
    warning = caught[0]
    assert (warning.filename, warning.lineno) == (__file__, line)
    assert str(warning.message).startswith(
        f"tf.function 'absolute' runs eagerly on every call: line {line} of "
        f"{__file__} branches on a tensor's value (bool(t), if t > 0: ...), which "
        "a traced function cannot replay. TensorFlow's autograph would convert it"
    )
    # Eager: the Python function runs on every call (TensorFlow's once).
    assert len(calls) == 3
    assert absolute.experimental_get_tracing_count() == 1


@pytest.mark.parametrize(
    "body, words",
    [
        (lambda x: sum(x), "iterates over a tensor (for row in t: ...)"),
        (lambda x: x.numpy() * 2, "takes a tensor's value into Python (t.numpy())"),
        (lambda x: float(x[0]) * x, "takes a tensor's value into Python (float(t))"),
    ],
)
def test_iterating_over_a_tensor_or_taking_its_value_runs_eagerly(body, words):
    f = tf.function(body)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = f(tf.constant([1.0, 2.0]))
        second = f(tf.constant([3.0, 4.0]))
    assert len(caught) == 1 and words in str(caught[0].message)
    assert np.array_equal(np.asarray(first), np.asarray(body(tf.constant([1.0, 2.0]))))
    assert np.array_equal(np.asarray(second), np.asarray(body(tf.constant([3.0, 4.0]))))


def test_a_variable_made_by_a_later_trace_is_refused(capsys):
    """TensorFlow printed "trace (1,)", tf.Tensor([2.], ...), "trace (2,)", then
    raised ValueError: "Creating variables on a non-first call to a function
    decorated with tf.function."; the count was then 2."""
    made = []
    counter = tf.Variable(0)

    @tf.function
    def f(x):
        print("trace", x.shape)
        counter.assign_add(1)
        if x.shape[0] == 2:
            made.append(tf.Variable(1.0))
        return x + 1

    print(f(tf.constant([1.0])))
    with pytest.raises(ValueError) as info:
        f(tf.constant([1.0, 2.0]))
    assert str(info.value).startswith(
        "Creating variables on a non-first call to a function decorated with "
        "tf.function."
    )
    assert f.experimental_get_tracing_count() == 2
    assert capsys.readouterr().out.splitlines() == [
        "trace (1,)",
        "tf.Tensor([2.], shape=(1,), dtype=float32)",
        "trace (2,)",
    ]
    assert counter.numpy() == 1  # the refused trace left no effect


def test_a_new_shape_for_a_relaxed_trace_prints_with_tf_print_only(capsys):
    """TensorFlow printed "trace Tensor("x:0", shape=(None,), dtype=float32)"
    once, and "run [1 2]", "run [1 2 3]", "run [4]" on stdout, one per call."""
    import sys

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def f(x):
        print("trace", x)
        tf.print("run", x, output_stream=sys.stdout)
        return x

    for value in ([1, 2], [1, 2, 3], [4]):
        f(tf.constant(value))
    assert capsys.readouterr().out.splitlines() == [
        'trace Tensor("x:0", shape=(None,), dtype=int32)',
        "run [1 2]",
        "run [1 2 3]",
        "run [4]",
    ]
