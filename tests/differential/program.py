"""A tape program as plain data, and the one interpreter that runs it on a ``tf``.

A :class:`Program` names its sources (tensors or Variables), the steps run
under a tape (each a call of a public ``tf`` function or a Python operator,
on earlier values or constants), and the gradient requests made after it.
``run(program, tf)`` runs it against any module with TensorFlow's API
(``tapemagic.tf`` or ``tensorflow``) and returns an :class:`Outcome` per
thing it observed: every source, every step's value, every answer; the first
error ends the run and is its last outcome. ``to_source`` writes the same
program as the Python a user would type, for reports and regression tests.
"""

from __future__ import annotations

import contextlib
import operator
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Const",
    "Outcome",
    "Program",
    "Query",
    "Source",
    "Step",
    "TapeSpec",
    "observe",
    "run",
    "to_source",
]

OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "@": operator.matmul,
    "<": operator.lt,
    ">=": operator.ge,
    "neg": operator.neg,
    "abs": operator.abs,
}


@dataclass(frozen=True)
class Source:
    """A value made before any tape: ``tf.constant`` or ``tf.Variable``."""

    value: np.ndarray
    kind: str = "tensor"  # "tensor" or "variable"
    trainable: bool = True


@dataclass(frozen=True)
class Const:
    """A value written inline in a call: a Python number or list, or a NumPy array."""

    value: Any


@dataclass(frozen=True)
class Step:
    """``v_n = fn(*args, **kwargs)[take]``, optionally under ``stop_recording``.

    ``fn`` is a dotted path in the ``tf`` module (``"nn.relu"``), ``"op:+"`` for
    a Python operator or ``"getitem"`` for ``x[key]`` (``kwargs["key"]``).
    ``args`` hold value indices (ints) or :class:`Const`.
    """

    fn: str
    args: tuple
    kwargs: tuple = ()  # (name, value) pairs, static Python values
    take: int | None = None
    paused: bool = False


@dataclass(frozen=True)
class TapeSpec:
    persistent: bool = False
    watch_accessed_variables: bool = True
    watch: tuple = ()  # value indices watched as the tape opens


@dataclass(frozen=True)
class Query:
    """One request: ``tape.<kind>(target, sources, ...)``.

    ``sources`` is a nest of value indices (an int, list or dict), ``target``
    a value index (or a list of them: the gradient of their sum),
    ``unconnected`` ``"none"`` or ``"zero"``, ``seed`` an output_gradients
    array (gradient only).
    """

    kind: str
    target: Any
    sources: Any
    unconnected: str = "none"
    seed: np.ndarray | None = None


@dataclass(frozen=True)
class Program:
    sources: tuple
    steps: tuple
    tape: TapeSpec = field(default_factory=TapeSpec)
    queries: tuple = ()
    # second order: an outer tape around everything; its query differentiates
    # the sum of the first inner answer with respect to these sources
    outer: TapeSpec | None = None
    outer_sources: Any = None


@dataclass(frozen=True)
class Outcome:
    """What one thing observed was, in a form both engines give.

    ``kind`` is ``"tensor"`` (dtype, shape, numbers and repr), ``"none"``,
    ``"error"`` (the exception class's name in ``dtype``), ``"list"`` (the
    class's name in ``dtype``: list, tuple or a named tuple's) or ``"dict"``
    (``items``: the outcomes inside, in order, with their keys).
    """

    what: str
    kind: str
    dtype: str = ""
    shape: tuple = ()
    numbers: Any = None
    text: str = ""
    items: tuple = ()


def observe(what: str, value: Any, tf: Any = None) -> Outcome:
    """The outcome of a result: a tensor, None, a list, tuple or dict of them.

    TensorFlow's ``IndexedSlices`` (a gather's gradient) is observed as the
    dense tensor ``tf.convert_to_tensor`` makes of it: tapemagic gives that
    dense tensor on purpose (docs/differences.md).
    """
    if type(value).__name__ == "IndexedSlices":
        value = tf.convert_to_tensor(value)
    if value is None:
        return Outcome(what, "none")
    if isinstance(value, dict):
        items = tuple((k, observe(f"{what}[{k!r}]", v, tf)) for k, v in value.items())
        return Outcome(what, "dict", items=items)
    if isinstance(value, (list, tuple)):
        items = tuple((i, observe(f"{what}[{i}]", v, tf)) for i, v in enumerate(value))
        return Outcome(what, "list", dtype=type(value).__name__, items=items)
    dtype = getattr(value, "dtype", None)
    numbers = np.array(value.numpy() if hasattr(value, "numpy") else value)
    return Outcome(
        what,
        "tensor",
        dtype=getattr(dtype, "name", str(dtype)),
        shape=tuple(numbers.shape),
        numbers=numbers,
        text=repr(value),
    )


def _resolve(tf: Any, path: str) -> Any:
    obj = tf
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _arg_value(a: Any, values: list) -> Any:
    if isinstance(a, Const):
        return a.value
    if isinstance(a, list):
        return [_arg_value(x, values) for x in a]
    return values[a]


def _call(tf: Any, step: Step, values: list) -> Any:
    args = [_arg_value(a, values) for a in step.args]
    kwargs = dict(step.kwargs)
    if step.fn.startswith("op:"):
        out = OPERATORS[step.fn[3:]](*args)
    elif step.fn == "getitem":
        out = args[0][kwargs["key"]]
    else:
        if "dtype" in kwargs:
            kwargs["dtype"] = getattr(tf, kwargs["dtype"])
        out = _resolve(tf, step.fn)(*args, **kwargs)
    return out


def _nest(sources: Any, values: list) -> Any:
    if isinstance(sources, dict):
        return {k: _nest(v, values) for k, v in sources.items()}
    if isinstance(sources, list):
        return [_nest(v, values) for v in sources]
    return values[sources]


def _ask(tf: Any, tape: Any, q: Query, values: list) -> Any:
    unconnected = getattr(tf.UnconnectedGradients, q.unconnected.upper())
    sources = _nest(q.sources, values)
    target = _nest(q.target, values)
    if q.kind == "gradient":
        seed = None if q.seed is None else tf.constant(q.seed)
        return tape.gradient(
            target, sources, output_gradients=seed, unconnected_gradients=unconnected
        )
    return getattr(tape, q.kind)(target, sources, unconnected_gradients=unconnected)


def _first_tensor(answer: Any) -> Any:
    if isinstance(answer, dict):
        answer = list(answer.values())
    if isinstance(answer, list):
        found = [a for a in map(_first_tensor, answer) if a is not None]
        return found[0] if found else None
    return answer


class _Stop(Exception):
    pass


def run(program: Program, tf: Any) -> list[Outcome]:
    """Run ``program`` with ``tf`` and return what it observed, in order."""
    seen: list[Outcome] = []

    def attempt(what: str, thunk: Any) -> Any:
        try:
            result = thunk()
        except Exception as e:  # noqa: BLE001 (an error is an observation)
            seen.append(Outcome(what, "error", dtype=type(e).__name__, text=str(e)))
            raise _Stop from e
        seen.append(observe(what, result, tf))
        return result

    values: list = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(_Stop):
            _run(program, tf, values, attempt)
    return seen


def _run(program: Program, tf: Any, values: list, attempt: Any) -> None:
    for i, s in enumerate(program.sources):
        if s.kind == "variable":
            make = lambda s=s: tf.Variable(s.value, trainable=s.trainable)  # noqa: E731
        else:
            make = lambda s=s: tf.constant(s.value)  # noqa: E731
        values.append(attempt(f"v{i}", make))
    outer = None
    with contextlib.ExitStack() as stack:
        if program.outer is not None:
            outer = stack.enter_context(_tape(tf, program.outer))
            for w in program.outer.watch:
                attempt(f"outer.watch(v{w})", lambda w=w: outer.watch(values[w]))
        tape = _tape(tf, program.tape)
        with tape:
            for w in program.tape.watch:
                attempt(f"tape.watch(v{w})", lambda w=w: tape.watch(values[w]))
            for step in program.steps:
                n = len(values)
                call = lambda step=step: _paused(tape, step, tf, values)  # noqa: E731
                out = attempt(f"v{n}", call)  # a tuple is observed whole
                values.append(out if step.take is None else out[step.take])
        answers = [
            attempt(f"answer{j}", lambda q=q: _ask(tf, tape, q, values))
            for j, q in enumerate(program.queries)
        ]
        if outer is None or not answers:
            return
        inner = _first_tensor(answers[0])
        if inner is None:
            return
        values.append(attempt("inner_sum", lambda: tf.reduce_sum(inner)))
        second = Query("gradient", len(values) - 1, program.outer_sources)
    attempt("second", lambda: _ask(tf, outer, second, values))


def _tape(tf: Any, spec: TapeSpec) -> Any:
    return tf.GradientTape(
        persistent=spec.persistent,
        watch_accessed_variables=spec.watch_accessed_variables,
    )


def _paused(tape: Any, step: Step, tf: Any, values: list) -> Any:
    if not step.paused:
        return _call(tf, step, values)
    with tape.stop_recording():
        return _call(tf, step, values)


# -- the program as Python --------------------------------------------------------


def _literal(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype=np.{value.dtype.name})"
    if isinstance(value, np.generic):
        return f"np.{value.dtype.name}({value.item()!r})"
    return repr(value)


def _arg(a: Any) -> str:
    if isinstance(a, Const):
        return _literal(a.value)
    if isinstance(a, list):
        return "[" + ", ".join(map(_arg, a)) + "]"
    return f"v{a}"


def _nest_source(sources: Any) -> str:
    if isinstance(sources, dict):
        return (
            "{"
            + ", ".join(f"{k!r}: {_nest_source(v)}" for k, v in sources.items())
            + "}"
        )
    if isinstance(sources, list):
        return "[" + ", ".join(_nest_source(v) for v in sources) + "]"
    return f"v{sources}"


def _step_source(step: Step) -> str:
    args = [_arg(a) for a in step.args]
    kwargs = dict(step.kwargs)
    if step.fn.startswith("op:"):
        op = step.fn[3:]
        if op == "neg":
            text = f"-{args[0]}"
        elif op == "abs":
            text = f"abs({args[0]})"
        else:
            text = f"{args[0]} {op} {args[1]}"
    elif step.fn == "getitem":
        text = f"{args[0]}[{kwargs['key']!r}]"
    else:
        if "dtype" in kwargs:
            kwargs["dtype"] = _Raw(f"tf.{kwargs['dtype']}")
        parts = args + [f"{k}={v!r}" for k, v in kwargs.items()]
        text = f"tf.{step.fn}({', '.join(parts)})"
    return text if step.take is None else f"{text}[{step.take}]"


class _Raw(str):
    def __repr__(self) -> str:
        return str(self)


def _query_source(tape: str, q: Query) -> str:
    parts = [_nest_source(q.target), _nest_source(q.sources)]
    if q.seed is not None:
        parts.append(f"output_gradients=tf.constant({_literal(q.seed)})")
    if q.unconnected != "none":
        parts.append("unconnected_gradients=tf.UnconnectedGradients.ZERO")
    return f"{tape}.{q.kind}({', '.join(parts)})"


def _tape_source(name: str, spec: TapeSpec) -> str:
    flags = []
    if spec.persistent:
        flags.append("persistent=True")
    if not spec.watch_accessed_variables:
        flags.append("watch_accessed_variables=False")
    return f"with tf.GradientTape({', '.join(flags)}) as {name}:"


def to_source(program: Program) -> str:
    """The program as the Python a user would write (``tf`` and ``np`` imported)."""
    lines = []
    for i, s in enumerate(program.sources):
        if s.kind == "variable":
            flag = "" if s.trainable else ", trainable=False"
            lines.append(f"v{i} = tf.Variable({_literal(s.value)}{flag})")
        else:
            lines.append(f"v{i} = tf.constant({_literal(s.value)})")
    pad = ""
    if program.outer is not None:
        lines.append(_tape_source("outer", program.outer))
        pad = "    "
        lines += [f"{pad}outer.watch(v{w})" for w in program.outer.watch]
    lines.append(pad + _tape_source("tape", program.tape))
    inner = pad + "    "
    lines += [f"{inner}tape.watch(v{w})" for w in program.tape.watch]
    n = len(program.sources)
    for k, step in enumerate(program.steps):
        if step.paused:
            lines.append(f"{inner}with tape.stop_recording():")
            lines.append(f"{inner}    v{n + k} = {_step_source(step)}")
        else:
            lines.append(f"{inner}v{n + k} = {_step_source(step)}")
    for j, q in enumerate(program.queries):
        lines.append(f"{pad}answer{j} = {_query_source('tape', q)}")
    if program.outer is not None and program.queries:
        m = n + len(program.steps)
        lines.append(f"{pad}v{m} = tf.reduce_sum(<first tensor of answer0>)")
        second = Query("gradient", m, program.outer_sources)
        lines.append(f"second = {_query_source('outer', second)}")
    return "\n".join(lines)
