"""``tf.function``: TensorFlow's tracing rules, and a compiled replay.

TensorFlow traces a ``tf.function`` into a graph once per input signature and
runs the graph on every call. tapemagic traces by running the Python function
once per signature with a tracer listening (engine/trace.py), so that Python
side effects (``print``, appending to a list) happen at tracing only and
``tf.print`` on every call, and compiles what the tracer heard (the forward,
the tapes' gradients, the optimizer's updates) into straight-line NumPy code
(engine/plan.py), which later calls replay. A function the tracer cannot
replay (it branches on a tensor's value, iterates over a tensor, or takes a
value into NumPy) runs eagerly on every call instead, with a warning naming
the line. With a tape recording or a listener listening at call time, the
plan replays through the engine's ops, so tapes and explanations see them.

What a traced function does to its arguments and results holds too
(``_arguments.py``: an ``input_signature`` binds and converts them, NumPy
arrays become tensors, results come back as tensors), and what TensorFlow
tells the user (``_messages.py``: the retracing warning, the warning of a
function that runs eagerly, the errors of a trace that makes variables).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import sys
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import Tensor, TensorSpec, Variable, nest
from ..engine.context import state
from ..engine.eager_tensor import tensor_of
from ..engine.plan import Plan, compile_plan, run_on_tensors
from ..engine.tensor import array_of, id_of
from ..engine.trace import Tracer, VariableCreated
from ._arguments import as_result, bind, holds_numpy, numpy_to_tensor, pack_result
from ._messages import NOT_FIRST, SINGLETON, Quiet, RecentTracing, warn_eager
from ._signature import (
    call_key,
    check_arguments,
    check_signature,
    compatible,
    generalize,
    shape_text,
    spec_key,
)

__all__ = ["ConcreteFunction", "Function", "executing_eagerly", "function"]


def function(
    func: Callable | None = None,
    input_signature: Any = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    **kwargs: Any,
) -> Any:
    """Decorate a function (bare ``@tf.function`` or with arguments) to run as
    TensorFlow runs a ``tf.function``: traced once per signature, replayed.

    Args:
        func: the function or method to decorate.
        input_signature: None, or a list or tuple of (nested) ``tf.TensorSpec``,
            one per argument of ``func``: each call converts its arguments to
            them.
        reduce_retracing: trace a new shape as a more general one (unknown
            dimensions where the shapes differ), as TensorFlow does.
        autograph, jit_compile, **kwargs: TensorFlow's compilation options;
            accepted and ignored.

    Returns:
        A :class:`Function` wrapping ``func``, or (when called with options
        only) a decorator that makes one.

    Raises:
        TypeError: if ``input_signature`` is not a list or tuple of specs, or
            leaves an argument of ``func`` without one.

    Example:
        >>> @function(jit_compile=True)
        ... def double(x):
        ...     return 2 * x
        >>> double(3)
        <tf.Tensor: shape=(), dtype=int32, numpy=6>
    """
    if input_signature is not None:
        check_signature(input_signature)
    if func is None:
        return lambda f: _make(f, input_signature, reduce_retracing)
    return _make(func, input_signature, reduce_retracing)


class Function:
    """What ``tf.function`` returns: the Python function, traced and replayed.

    A call converts the arguments as a traced function's call does (see the
    module docstring). The first call for each signature (see
    ``_signature.py``) traces: it runs the Python function with a tracer
    listening and compiles what it heard into a plan (engine/plan.py); later
    calls with that signature replay the plan. Results come back as tensors
    (None stays None). As a method it binds to its instance, each instance
    with its own traces.

    Example:
        >>> import numpy as np
        >>> f = Function(lambda x, n: (x, n), None)
        >>> f(np.array([1.0]), 2)
        (<tf.Tensor: shape=(1,), dtype=float64, numpy=array([1.])>, \
<tf.Tensor: shape=(), dtype=int32, numpy=2>)
    """

    def __init__(
        self,
        python_function: Callable,
        input_signature: Any,
        signature: inspect.Signature | None = None,
        reduce_retracing: bool = False,
    ) -> None:
        self._python_function = python_function
        self._input_signature = input_signature
        self._signature = signature
        self._reduce_retracing = reduce_retracing
        functools.update_wrapper(self, python_function)
        # Call key -> (the result's structure, plan); the plan is None where the
        # function runs eagerly (it could not be traced).
        self._plans: dict[Any, tuple[Any, Plan | None]] = {}
        self._traces: list[Any] = []  # trace keys, TensorFlow's concrete functions
        self._tracing_count = 0
        self._recent = RecentTracing()
        self._warned = False
        self._bound: Any = weakref.WeakKeyDictionary()

    @property
    def python_function(self) -> Callable:
        """The function that was decorated."""
        return self._python_function

    @property
    def input_signature(self) -> Any:
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced (TensorFlow's count)."""
        return self._tracing_count

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        # Each instance keeps its own Function (its traces) in its __dict__,
        # so that both go together; else in a weak mapping.
        key = f"_tf_function_{id(self)}"
        held = getattr(instance, "__dict__", None)
        bound = held.get(key) if held is not None else None
        if bound is None and held is None:
            with contextlib.suppress(TypeError):
                bound = self._bound.get(instance)
        if bound is None:
            signature = self._call_signature()
            parameters = list(signature.parameters.values())[1:]  # without `self`
            bound = Function(
                types.MethodType(self._python_function, instance),
                self._input_signature,
                signature.replace(parameters=parameters),
                self._reduce_retracing,
            )
            if held is not None:
                held[key] = bound
            else:
                with contextlib.suppress(TypeError):
                    self._bound[instance] = bound
        return bound

    def __deepcopy__(self, memo: dict) -> Function:
        # A copy (of a model holding its traced method) traces afresh: the
        # plans read and write the original's variables.
        return Function(
            copy.deepcopy(self._python_function, memo),
            self._input_signature,
            self._signature,
            self._reduce_retracing,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = self._convert(args, kwargs)
        tensors: list = []
        key = call_key((args, kwargs), tensors)
        entry = self._plans.get(key)
        if entry is None:
            # The same call written another way (a keyword for a positional
            # argument) runs the same trace, as in TensorFlow.
            args, kwargs = self._canonical(args, kwargs)
            tensors = []
            canonical = call_key((args, kwargs), tensors)
            entry = self._plans.get(canonical)
            if entry is None:
                count = self._tracing_count
                result = self._trace((args, kwargs), canonical, tensors)
                self._plans[key] = self._plans[canonical]
                if self._tracing_count != count:
                    self._recent.called(traced=True, function=self._python_function)
                else:
                    self._recent.called(traced=False)
                return result
            self._plans[key] = entry
        self._recent.called(traced=False)
        plan = entry[1]
        if plan is None:
            return self._run_eagerly(args, kwargs)
        if state.tapes or state.observers:
            # A tape records or a listener listens: replay on tensors.
            return self._pack(entry[0], run_on_tensors(plan, tensors))
        return self._pack(entry[0], plan.call(tensors))

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """Trace for the given signature (tensors or ``tf.TensorSpec``), without
        running the function's effects on variables, and return the trace as a
        callable :class:`ConcreteFunction`.

        With an ``input_signature`` no arguments are needed.
        """
        if self._input_signature is not None and not args and not kwargs:
            args = tuple(self._input_signature)
        tkey = spec_key((tuple(args), dict(kwargs)))
        stand_ins = nest.map_structure(_stand_in, (tuple(args), dict(kwargs)))
        if self._input_signature is not None:
            stand_ins = self._convert(*stand_ins)
        if not any(compatible(t, tkey) for t in self._traces):
            tensors: list = []
            key = call_key(stand_ins, tensors)
            self._trace(stand_ins, key, tensors, tkey=tkey, dry=True)
        return ConcreteFunction(self, tkey)

    # -- tracing ------------------------------------------------------------------
    def _canonical(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        try:
            bound = self._call_signature().bind(*args, **kwargs)
        except (TypeError, ValueError):
            return args, kwargs
        return bound.args, bound.kwargs

    def _convert(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        if self._input_signature is None:
            if holds_numpy(args):
                args = nest.map_structure(numpy_to_tensor, args)
            if kwargs and holds_numpy(kwargs):
                kwargs = nest.map_structure(numpy_to_tensor, kwargs)
            return args, kwargs
        return bind(self._call_signature(), self._input_signature, args, kwargs)

    def _trace_key_for(self, key: Any) -> tuple[Any, bool]:
        """The trace a call key runs, and whether it exists already."""
        for tkey in reversed(self._traces):
            if compatible(tkey, key):
                return tkey, True
        if self._input_signature is not None:
            return spec_key((tuple(self._input_signature), {})), False
        if self._reduce_retracing:
            for tkey in reversed(self._traces):
                general = generalize(tkey, key)
                if general is not None:
                    return general, False
        return key, False

    def _trace(self, call: tuple, key: Any, tensors: list, tkey: Any = None,
               dry: bool = False) -> Any:  # fmt: skip
        if tkey is None:
            tkey, known = self._trace_key_for(key)
        else:
            known = False
        names = self._symbolic_names(call, tensors, tkey)
        first = not self._traces
        forbid = None if first else NOT_FIRST
        try:
            result, tracer, flat = self._run_traced(call, tensors, names, known, forbid)
            if tracer.created and first:
                # TensorFlow traces again when the first trace made variables,
                # and then allows none: this call's effects are the second run's.
                tracer.restore()
                if not known:
                    self._tracing_count += 1
                result, tracer, flat = self._run_traced(
                    call, tensors, names, known, SINGLETON
                )
        except VariableCreated as err:
            if not first and not known:
                self._tracing_count += 1  # as TensorFlow counts it
            raise ValueError(str(err)) from None
        if not known:
            self._traces.append(tkey)
            self._tracing_count += 1
        if dry:
            tracer.restore()
        plan = None
        if tracer.untraceable is not None:
            self._warn(tracer.untraceable)
        else:
            outputs = [tracer.output(leaf) for leaf in flat]
            plan = compile_plan(tracer.steps, outputs, len(tensors))
        self._plans[key] = (nest.map_structure(_placeholder, result), plan)
        return result

    def _run_traced(self, call: tuple, tensors: list, names: list, silent: bool,
                    forbid: str | None) -> tuple:  # fmt: skip
        args, kwargs = call
        with contextlib.ExitStack() as stack:
            tracer = stack.enter_context(Tracer(tensors, names, forbid))
            if silent:
                # Another shape for a trace TensorFlow made once: its Python
                # side effects ran then, so its prints stay quiet now.
                stack.enter_context(contextlib.redirect_stdout(Quiet(sys.stdout)))
            try:
                result = self._python_function(*args, **kwargs)
            except VariableCreated:
                tracer.restore()  # a refused trace leaves no effect behind
                raise
            # A variable returned is read now (and on every replay); other
            # values become constant tensors, outside the trace.
            flat = [
                as_result(leaf, self._python_function)
                if isinstance(leaf, Variable)
                else leaf
                for leaf in nest.flatten(result)
            ]
        flat = [as_result(leaf, self._python_function) for leaf in flat]
        packed = pack_result(result, flat)
        return packed, tracer, flat

    def _symbolic_names(self, call: tuple, tensors: list, tkey: Any) -> list:
        # TensorFlow shows a tensor argument as Tensor("x:0", shape=..., ...)
        # while tracing: the name of its parameter, and the trace's shape.
        if not tensors:
            return []
        shapes: list = []
        _trace_shapes(tkey, shapes)
        by_id = {}
        args, kwargs = call
        try:
            bound = self._call_signature().bind(*args, **kwargs)
        except TypeError:
            bound = None
        if bound is not None:
            for name, value in bound.arguments.items():
                if isinstance(value, Tensor):
                    by_id[id_of(value)] = f"{name}:0"
        names = []
        for i, t in enumerate(tensors):
            shape = shapes[i] if i < len(shapes) else tuple(array_of(t).shape)
            name = by_id.get(id_of(t))
            names.append(None if name is None else (name, shape_text(shape)))
        return names

    def _warn(self, reason: Any) -> None:
        if self._warned:
            return
        self._warned = True
        warn_eager(self._python_function, reason)

    def _run_eagerly(self, args: tuple, kwargs: dict) -> Any:
        result = self._python_function(*args, **kwargs)
        flat = [as_result(x, self._python_function) for x in nest.flatten(result)]
        return pack_result(result, flat)

    def _pack(self, template: Any, leaves: list) -> Any:
        return nest.pack_sequence_as(template, leaves)

    # -- with an input_signature ------------------------------------------------
    def _call_signature(self) -> inspect.Signature:
        if self._signature is None:
            self._signature = inspect.signature(self._python_function)
        return self._signature


def _make(func: Callable, input_signature: Any, reduce_retracing: bool) -> Function:
    if input_signature is not None:
        check_arguments(func, input_signature)
    return Function(func, input_signature, reduce_retracing=reduce_retracing)


class ConcreteFunction:
    """One trace of a :class:`Function` (``get_concrete_function``): callable
    with arguments of its signature.

    Example:
        >>> f = function(lambda x: x + 1)
        >>> concrete = f.get_concrete_function(TensorSpec([None], "float32"))
        >>> concrete(np.array([1.0], np.float32))
        <tf.Tensor: shape=(1,), dtype=float32, numpy=array([2.], dtype=float32)>
    """

    def __init__(self, function: Function, key: Any) -> None:
        self._function = function
        self._key = key

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._function(*args, **kwargs)

    def __repr__(self) -> str:
        name = getattr(self._function.python_function, "__name__", "function")
        return f"<ConcreteFunction {name}>"


def _placeholder(leaf: Any) -> int:
    return 0


def _stand_in(leaf: Any) -> Any:
    # What a trace for get_concrete_function runs on: zeros of the spec (an
    # unknown dimension as 1; the plan does not depend on the values).
    if isinstance(leaf, TensorSpec):
        dims = leaf.shape.as_list() if leaf.shape.rank is not None else []
        shape = [1 if d is None else d for d in dims]
        return tensor_of(np.zeros(shape, np.dtype(leaf.dtype.as_numpy_dtype)))
    return leaf


def _trace_shapes(key: Any, shapes: list) -> None:
    """The shapes of a trace key's tensors, in order (None: unknown rank)."""
    if type(key) is not tuple:
        return
    if len(key) == 3 and key[0] == "T":
        shapes.append(key[2])
        return
    for part in key:
        _trace_shapes(part, shapes)


def executing_eagerly() -> bool:
    """Always True: tapemagic runs every op eagerly, as TensorFlow 2 does by default.

    Example:
        >>> executing_eagerly()
        True
    """
    return True
