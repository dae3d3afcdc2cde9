"""Plans: a trace's steps (engine/trace.py) compiled to straight-line NumPy code.

:func:`compile_plan` writes one Python function per trace: its parameters are
the argument arrays, each op is one call of the op's NumPy forward on local
variables, a variable read is one attribute read, an assignment one call, and
each value is dropped (``del``) after its last use, so that memory is freed as
early as in the eager run and an optimizer's update can write into its
variable in place. A replay costs one Python call per NumPy call: no tensor,
no tape, no dispatch.

:func:`run_on_tensors` replays the same steps through the engine's ops on
tensors instead, for when a tape records or a listener listens at call time:
tapes record the ops, listeners hear them; Python side effects do not rerun.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from . import nest
from .context import state
from .eager_tensor import _notify_fresh, constant_of, tensor_of
from .op import apply
from .tensor import Tensor
from .trace import host_call
from .variable import shape_mismatch

__all__ = ["Plan", "compile_plan", "run_on_tensors"]


class Plan:
    """A compiled trace: ``plan(*arrays)`` returns the output arrays and values.

    Attributes:
        run: the generated function.
        source: its Python source (for reading and debugging).
        steps, outputs: what it was compiled from (for :func:`run_on_tensors`).
    """

    __slots__ = ("outputs", "run", "slots", "source", "steps")

    def __init__(self, run: Callable, source: str, steps: list,
                 outputs: list) -> None:  # fmt: skip
        self.run = run
        self.source = source
        self.steps = steps
        self.outputs = outputs
        self.slots = tuple([kind == "slot" for kind, _ in outputs])

    def call(self, arguments: list) -> list:
        """Run on the argument tensors; the output leaves, arrays as tensors.

        Example:
            >>> from .op import OP_TABLE
            >>> steps = [("arg", 1, 0), ("op", OP_TABLE["square"], {}, (1,), (2,))]
            >>> compile_plan(steps, [("slot", 2)], 1).call([tensor_of(np.float32(3))])
            [<tf.Tensor: shape=(), dtype=float32, numpy=9.0>]
        """
        results = self.run(*[t._value for t in arguments])
        return [
            tensor_of(value) if is_slot else value
            for is_slot, value in zip(self.slots, results)
        ]


def compile_plan(steps: list[tuple], outputs: list[tuple], n_args: int) -> Plan:
    """Compile trace steps into a function of the argument arrays.

    Args:
        steps: the steps of a :class:`~tapemagic.engine.trace.Tracer`.
        outputs: one ``("slot", slot)`` or ``("value", value)`` per output leaf.
        n_args: how many argument arrays the function takes.

    Returns:
        A :class:`Plan` whose ``run(*arrays)`` returns a tuple with, per output
        leaf, its array (or its value, for a ``"value"`` leaf).

    Example:
        >>> from tapemagic.engine.op import OP_TABLE
        >>> steps = [("arg", 1, 0), ("op", OP_TABLE["tanh"], {}, (1,), (2,))]
        >>> plan = compile_plan(steps, [("slot", 2)], 1)
        >>> plan.run(np.zeros(2))
        (array([0., 0.]),)
    """
    steps = _live(steps, outputs)
    names: dict[int, str] = {}  # slot -> how the code names it
    space: dict[str, Any] = {
        "_assign": _assign,
        "_update": _update,
        "_add": np.add,
        "_subtract": np.subtract,
        "_tensor": tensor_of,
        "_arrays": _arrays,
    }
    params = [f"a{i}" for i in range(n_args)]
    lines: list[str] = []
    last_use = _last_uses(steps, outputs)
    kept = {slot for kind, slot in outputs if kind == "slot"}
    reusable = _buffers(steps, last_use, kept)

    def bind(obj: Any, prefix: str) -> str:
        name = f"{prefix}{len(space)}"
        space[name] = obj
        return name

    def free(index: int, slots: tuple) -> None:
        dead = sorted(
            {s for s in slots if last_use.get(s) == index and s not in kept}
            - {s for s in slots if names.get(s, "").startswith("k")}
        )
        if dead:
            lines.append("del " + ", ".join(names[s] for s in dead))

    for index, step in enumerate(steps):
        kind = step[0]
        if kind == "arg":
            _, slot, position = step
            names[slot] = f"a{position}"
        elif kind == "const":
            _, slot, value = step
            names[slot] = bind(value, "k")
        elif kind == "read":
            _, slot, variable = step
            names[slot] = f"s{slot}"
            lines.append(f"s{slot} = {bind(variable, 'v')}._snapshot._value")
        elif kind == "fresh":
            _, slot, draw = step
            names[slot] = f"s{slot}"
            lines.append(f"s{slot} = {bind(draw, 'd')}()")
        elif kind == "op":
            op, op_params, ins, outs = step[1:5]
            fn = bind(op.forward, "f")
            args = [names[s] for s in ins]
            args += [f"{key}={bind(value, 'p')}" for key, value in op_params.items()]
            buffer = reusable.get(index)
            if buffer is not None:
                args.append(f"out={names[buffer]}")
            for s in outs:
                names[s] = f"s{s}"
            target = ", ".join(names[s] for s in outs)
            if op.multi_output:
                target += ","
            lines.append(f"{target} = {fn}({', '.join(args)})")
            free(index, ins)
            dead = [s for s in outs if s not in last_use and s not in kept]
            if dead:
                lines.append("del " + ", ".join(names[s] for s in dead))
        elif kind == "assign":
            _, variable, how, slot = step
            var = bind(variable, "v")
            if how == "assign":
                owned = _owned(steps, slot) and last_use.get(slot) == index
                owned = owned and slot not in kept
                lines.append(f"_assign({var}, {names[slot]}, {owned})")
            else:
                ufunc = "_add" if how == "assign_add" else "_subtract"
                lines.append(f"_update({var}, {ufunc}, {names[slot]})")
            free(index, (slot,))
        elif kind == "call":
            _, fn, ins, outs = step
            args = ", ".join(f"_tensor({names[s]})" for s in ins)
            call = f"{bind(fn, 'h')}({args})"
            if outs:
                for s in outs:
                    names[s] = f"s{s}"
                call = f"{', '.join(names[s] for s in outs)}, = _arrays({call})"
            lines.append(call)
            free(index, ins)
    results = [names[slot] if kind == "slot" else bind(slot, "r")
               for kind, slot in outputs]  # fmt: skip
    lines.append(f"return ({''.join(r + ', ' for r in results)})")
    body = "\n".join("    " + line for line in lines)
    source = f"def replay({', '.join(params)}):\n{body}\n"
    exec(compile(source, "<tf.function plan>", "exec"), space)  # noqa: S102
    return Plan(space["replay"], source, steps, outputs)


def _live(steps: list[tuple], outputs: list[tuple]) -> list[tuple]:
    """The steps without ops whose results nothing uses (dead code)."""
    needed = {slot for kind, slot in outputs if kind == "slot"}
    kept = []
    for step in reversed(steps):
        kind = step[0]
        if kind == "op":
            if not any(s in needed for s in step[4]):
                continue
            needed.update(step[3])
        elif kind == "assign":
            needed.add(step[3])
        elif kind == "call":
            needed.update(step[2])
        kept.append(step)
    return kept[::-1]


def _last_uses(steps: list[tuple], outputs: list[tuple]) -> dict[int, int]:
    last: dict[int, int] = {}
    for index, step in enumerate(steps):
        kind = step[0]
        if kind == "op":
            for s in step[3]:
                last[s] = index
        elif kind == "assign":
            last[step[3]] = index
        elif kind == "call":
            for s in step[2]:
                last[s] = index
    return last


def _buffers(steps: list[tuple], last_use: dict[int, int],
             kept: set[int]) -> dict[int, int]:  # fmt: skip
    """Step index -> an input slot whose array the step's ufunc may write its
    result into (``out=``): an array an earlier op of the plan made, that owns
    its memory, has the result's shape and dtype, and that nothing else holds
    or views (no output, assignment, host call, or view made of it)."""
    made: dict[int, tuple] = {}  # slot -> (shape, dtype, owns)
    shared: set[int] = set(kept)
    for step in steps:
        kind = step[0]
        if kind == "op" and len(step) > 5:
            made.update(zip(step[4], step[5]))
            if not all(owns for _, _, owns in step[5]):
                shared.update(step[3])  # an output may view these inputs
        elif kind == "assign":
            shared.add(step[3])
        elif kind == "call":
            shared.update(step[2])
    chosen: dict[int, int] = {}
    for index, step in enumerate(steps):
        if step[0] != "op" or len(step) <= 5 or step[2]:
            continue
        op, ins, meta = step[1], step[3], step[5]
        if not isinstance(op.forward, np.ufunc) or op.forward.nout != 1:
            continue
        shape, dtype, _ = meta[0]
        for slot in ins:
            info = made.get(slot)
            if (
                info is not None
                and info[2]
                and info[0] == shape
                and info[1] == dtype
                and isinstance(dtype, np.dtype)
                and len(shape) > 0
                and last_use.get(slot) == index
                and slot not in shared
            ):
                chosen[index] = slot
                break
    return chosen


def _arrays(result: Any) -> list:
    """The arrays of the tensors in a host call's result, in ``nest`` order."""
    return [leaf._value for leaf in nest.flatten(result) if isinstance(leaf, Tensor)]


def _owned(steps: list[tuple], slot: int) -> bool:
    # Only an op's fresh result, no view of another array, is held by no one
    # but the plan.
    for step in steps:
        if step[0] == "op" and slot in step[4]:
            if len(step) <= 5:
                return False
            return step[5][step[4].index(slot)][2]
    return False


def _assign(variable: Any, value: Any, owned: bool) -> None:
    old = variable._snapshot._value
    if not isinstance(value, np.ndarray) or value.dtype != old.dtype or not owned:
        value = np.array(value, dtype=old.dtype, copy=True)
    if value.shape != old.shape:
        raise shape_mismatch(variable, value.shape)
    value.flags.writeable = False
    _set(variable, value)


def _update(variable: Any, ufunc: np.ufunc, delta: Any) -> None:
    """``assign_add`` or ``assign_sub``, in place when nothing else holds the
    variable's value (as the eager ``Variable._update`` decides)."""
    snapshot = variable._snapshot
    old = snapshot._value
    if (
        getattr(delta, "shape", None) == old.shape
        and getattr(delta, "dtype", None) == old.dtype
        and sys.getrefcount(snapshot) == 3
        and sys.getrefcount(old) == 3
    ):
        old.flags.writeable = True
        try:
            ufunc(old, delta, out=old)
        finally:
            old.flags.writeable = False
        return
    new = np.asarray(ufunc(old, np.asarray(delta, dtype=old.dtype)))
    if new.shape != old.shape:
        raise shape_mismatch(variable, new.shape)
    new.flags.writeable = False
    _set(variable, new)


def _set(variable: Any, value: np.ndarray) -> None:
    t = tensor_of(value)
    t._id = variable._id
    variable._snapshot = t


def run_on_tensors(plan: Plan, arguments: list) -> list:
    """Replay ``plan`` through the engine's ops on tensors: tapes record it and
    listeners hear it, as if the function ran eagerly (without its Python side
    effects). Returns the output leaves (tensors, or values).

    Example:
        >>> from .op import OP_TABLE
        >>> steps = [("arg", 1, 0), ("op", OP_TABLE["negative"], {}, (1,), (2,))]
        >>> plan = compile_plan(steps, [("slot", 2), ("value", 3)], 1)
        >>> run_on_tensors(plan, [tensor_of(np.float32(2.0))])
        [<tf.Tensor: shape=(), dtype=float32, numpy=-2.0>, 3]
    """
    values: dict[int, Any] = {}
    for step in plan.steps:
        kind = step[0]
        if kind == "arg":
            values[step[1]] = arguments[step[2]]
        elif kind == "const":
            values[step[1]] = constant_of(step[2])
        elif kind == "read":
            values[step[1]] = step[2]._read()
        elif kind == "fresh":
            t = values[step[1]] = tensor_of(step[2]())
            if state.observers:
                _notify_fresh(t, step[2])
        elif kind == "op":
            op, params, ins, outs = step[1:5]
            result = apply(op, tuple([values[s] for s in ins]), params)
            if op.multi_output:
                values.update(zip(outs, result))
            else:
                values[outs[0]] = result
        elif kind == "assign":
            _, variable, how, slot = step
            getattr(variable, how)(values[slot])
        elif kind == "call":
            result = host_call(step[1], *[values[s] for s in step[2]])
            leaves = [x for x in nest.flatten(result) if isinstance(x, Tensor)]
            values.update(zip(step[3], leaves))
    return [values[slot] if kind == "slot" else slot for kind, slot in plan.outputs]
