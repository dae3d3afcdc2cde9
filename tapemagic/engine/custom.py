"""``custom_gradient``: a user function whose gradient the user supplies.

The function runs with every tape paused, so its inner ops are not recorded; the
tapes instead record one node whose VJP is the user's gradient function. That
function runs with the tapes active again, so an outer tape records its ops and
second derivatives work. Variables the function reads are found with a private
tape and handed to the gradient function as ``variables=``, as in TensorFlow.
The user's function is written for tensors, so unlike the ops' VJPs it runs in
the tensor namespace only: a sweep on arrays wraps the node's arrays for it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from . import nest
from .context import state
from .eager_tensor import tensor_of
from .op import Op, _announce
from .tape import GradientTape
from .tensor import Tensor, convert_to_tensor

__all__ = ["custom_gradient"]


def custom_gradient(f: Callable | None = None) -> Callable:
    """Decorate ``f(*x) -> (y, grad_fn)`` so tapes use ``grad_fn`` as its VJP.

    ``grad_fn(*upstream)`` returns one gradient per input of ``f`` (``None`` for
    none). If ``f`` reads trainable variables, ``grad_fn`` must accept
    ``variables=`` and return ``(input_grads, variable_grads)``.

    Example:
        >>> from tapemagic.engine import GradientTape, Variable
        >>> @custom_gradient
        ... def clip_grad(x):
        ...     def grad(g):
        ...         return g * 0.5
        ...     return x * 3.0, grad
        >>> v = Variable(1.0)
        >>> with GradientTape() as tape:
        ...     y = clip_grad(v)
        >>> float(tape.gradient(y, v))
        0.5
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        inputs = tuple(convert_to_tensor(a) for a in args)
        result, grad_fn, variables = _run_paused(f, inputs, kwargs)
        flat = [convert_to_tensor(r) for r in nest.flatten(result)]
        outputs = tuple(tensor_of(r._value) for r in flat)
        if variables and "variables" not in _parameters(grad_fn):
            names = ", ".join(v.name for v in variables)
            raise TypeError(
                f"{f.__name__} reads the trainable variables {names}, so its gradient "
                "function must accept `variables=None` and return (input_grads, "
                "variable_grads)."
            )
        op = Op(
            f"custom_gradient/{f.__name__}",
            forward=f,
            vjp=_make_vjp(grad_fn, len(inputs), variables, len(outputs)),
            multi_output=True,
            batched=False,
            on_arrays=False,
        )
        node_inputs = inputs + tuple(v._snapshot for v in variables)
        for tape in state.tapes:
            if tape._watch_accessed:
                for v in variables:
                    tape._watch_variable(v)
        _announce(op, node_inputs, outputs, {})  # as every op is: tapes, then the log
        return nest.pack_sequence_as(result, list(outputs))

    return wrapper


def _run_paused(f: Callable, inputs: tuple, kwargs: dict) -> tuple:
    """Run ``f`` with tapes paused: its result, grad_fn and the variables it read."""
    paused = state.tapes[:]
    state.tapes.clear()
    probe = GradientTape(watch_accessed_variables=True)
    try:
        with probe:
            result, grad_fn = f(*inputs, **kwargs)
    finally:
        state.tapes[:] = paused
    variables = [v for v in probe.watched_variables() if v.trainable]
    return result, grad_fn, variables


def _parameters(fn: Callable) -> set[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return set()
    names = {p.name for p in params}
    if any(p.kind == p.VAR_KEYWORD for p in params):
        names.add("variables")
    return names


def _make_vjp(grad_fn: Callable, n_inputs: int, variables: list, n_outputs: int):
    def vjp(ns: Any, g: tuple, out: tuple, *inputs: Tensor) -> tuple:
        upstream = g if n_outputs > 1 else (g[0],)
        if variables:
            input_grads, variable_grads = grad_fn(*upstream, variables=variables)
        else:
            input_grads, variable_grads = grad_fn(*upstream), []
        input_grads = _as_list(input_grads, n_inputs, "inputs")
        variable_grads = _as_list(variable_grads, len(variables), "variables")
        return tuple(
            None if grad is None else convert_to_tensor(grad, dtype=t.dtype)
            for grad, t in zip(input_grads + variable_grads, inputs)
        )

    return vjp


def _as_list(grads: Any, count: int, what: str) -> list:
    if count == 1 and not isinstance(grads, (list, tuple)):
        return [grads]
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != count:
        raise ValueError(
            f"The custom gradient function returned {len(grads)} gradients for "
            f"{count} {what}; return one per {what[:-1]} (None where there is none)."
        )
    return grads
