"""A gradient request: what it is given, what it answers, what listeners hear.

The arguments of ``watch``, ``gradient`` and the jacobians as the tape reads
them (targets, sources, output gradients, the unconnected mode), what an
unconnected or integer source gets, the warnings and errors about them, and
the events each request sends its listeners (``_explained``).
"""

from __future__ import annotations

import enum
import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import nest
from .backprop import sweep_observers
from .context import state
from .dtypes import from_numpy
from .eager_tensor import EagerTensor, _ref, constant_of
from .events import GradientAnswered, GradientAsked
from .tensor import Tensor, Variable, convert_to_tensor
from .tensor import array_of as _array_of
from .variable import ResourceVariable

__all__ = ["UnconnectedGradients", "unwatchable"]


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def _unconnected_mode(value: Any) -> UnconnectedGradients:
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(getattr(value, "value", value))
    except ValueError:
        raise ValueError(
            f"unconnected_gradients={value!r} is not valid; use "
            "tf.UnconnectedGradients.NONE or tf.UnconnectedGradients.ZERO."
        ) from None


def _observers_of(tape: Any) -> list:
    """Observers listening now, plus the tape's own log even when it is not."""
    observers = list(state.observers)
    log = tape._explain
    if log is not None and not any(o is log for o in observers):
        observers.append(log)
    return observers


def _explained(method: Callable) -> Callable:
    """Tell the listeners about each gradient request: before, its sweep's
    cotangents, and its result."""
    kind = method.__name__
    signature = inspect.signature(method)

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self._explain is None and not state.observers:
            return method(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        call = dict(bound.arguments)
        asked = GradientAsked.of_call(self, kind, call)
        observers = _observers_of(self)
        for observer in observers:
            observer.on_gradient_asked(asked)
        # The listeners hear the sweep's cotangents until the answer; a request
        # made inside another (a gradient in a custom gradient's function)
        # leaves them to the outer one.
        sweep = sweep_observers.observers
        added = [o for o in observers if not any(s is o for s in sweep)]
        sweep.extend(added)
        target = call.get("target")
        sources = call.get("sources", call.get("source"))
        given = tuple(nest.flatten(target))
        paths = tuple([path for path, _ in nest.flatten_with_paths(sources)])
        try:
            result = method(self, *args, **kwargs)
        except BaseException as err:  # an interrupt too: listeners must hear the end
            _remove(sweep, added)
            answered = GradientAnswered(
                self, kind, _refs(target), _refs(sources), None, err, given, paths
            )
            for observer in observers:
                observer.on_gradient_answered(answered)
            raise
        _remove(sweep, added)
        flat = [result] if kind == "batch_jacobian" else nest.flatten(result)
        results = tuple([_array_or_none(g) for g in flat])
        answered = GradientAnswered(
            self, kind, _refs(target), _refs(sources), results, None, given, paths
        )
        for observer in observers:
            observer.on_gradient_answered(answered)
        return result

    return wrapper


def _remove(observers: list, gone: list) -> None:
    for item in gone:
        for i in range(len(observers) - 1, -1, -1):
            if observers[i] is item:
                del observers[i]


def _refs(structure: Any) -> tuple:
    return tuple(
        [
            _ref(item) if isinstance(item, (Tensor, Variable)) else None
            for item in nest.flatten(structure)
        ]
    )


def _array_or_none(g: Any) -> Any:
    if g is None:
        return None
    return _array_of(g) if isinstance(g, (Tensor, Variable)) else np.asarray(g)


def unwatchable(item: Any) -> str | None:
    """Why ``tape.watch(item)`` raises, or None for a tensor or variable it watches.

    ``item`` is one leaf; a variable refuses through ``Variable._watch_refusal``
    (a Keras weight does, as in TensorFlow).

    Example:
        >>> unwatchable(Variable(1.0)) is None
        True
        >>> print(unwatchable(3.0))  # doctest: +NORMALIZE_WHITESPACE
        Passed in object 3.0 of type 'float', not tf.Tensor or tf.Variable or
        ExtensionType. Convert it first: x = tf.constant(value), then tape.watch(x).
    """
    if isinstance(item, Variable):
        refusal = item._watch_refusal()
        if refusal is None:
            return None
        return (
            f"Passed in object {item!r} of type {type(item).__name__!r}, not "
            f"tf.Tensor or tf.Variable or ExtensionType. {refusal}"
        )
    if isinstance(item, Tensor):
        return None
    return (
        f"Passed in object {_describe(item, str)} of type {type(item).__name__!r}, not "
        "tf.Tensor or tf.Variable or ExtensionType. Convert it first: "
        "x = tf.constant(value), then tape.watch(x)."
    )


def _describe(value: Any, show: Callable[[Any], str] = repr) -> str:
    text = show(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _warn_not_floating(what: str, tensor: Any, call: str) -> None:
    dtype = from_numpy(tensor._value.dtype).name
    warnings.warn(
        f"The dtype of the {what} must be floating (e.g. tf.float32) when calling "
        f"GradientTape.{call}, got tf.{dtype}. Its gradient is None; cast it first: "
        f"tf.cast(x, tf.float32).",
        UserWarning,
        stacklevel=_user_stacklevel(),
    )


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside tapemagic: the user's line."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _as_target(value: Any, index: int, what: str = "target") -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, Variable):
        return value._snapshot
    where = what if index == 0 else f"{what} #{index}"
    raise TypeError(
        f"The {where} must be a tensor computed inside the tape, got "
        f"{_describe(value)} of type {type(value).__name__!r}. Compute it with tf "
        "ops on watched values inside the `with tf.GradientTape()` block."
    )


# The two concrete classes of sources, which the fast paths test for exactly.
_LEAVES = (EagerTensor, ResourceVariable)


def _as_sources(sources: Any) -> list:
    if type(sources) is list:
        # A flat list of variables (model.trainable_variables) or tensors.
        out = []
        for s in sources:
            cls = type(s)
            if cls is ResourceVariable:
                out.append(s._snapshot)
            elif cls is EagerTensor:
                out.append(s)
            else:
                break
        else:
            return out
    flat = nest.flatten(sources)
    out = []
    for i, s in enumerate(flat):
        if s is None:
            raise ValueError(
                f"sources[{i}] is None. Pass the tensors or variables to "
                "differentiate with respect to, e.g. model.trainable_variables."
            )
        if isinstance(s, Variable):
            out.append(s._snapshot)
        elif isinstance(s, Tensor):
            out.append(s)
        else:
            raise ValueError(
                f"sources[{i}] is {_describe(s)} of type {type(s).__name__!r}, not a "
                "tf.Tensor or tf.Variable. Gradients can only be taken with respect "
                "to tensors: make it a tf.Variable, or tf.constant and tape.watch it."
            )
    return out


def _differentiable_ids(sources: list, tracked: set[int], call: str) -> set[int]:
    """Ids of the sources that can get a gradient: floating and known to the tape.

    A tensor the tape neither watched nor computed gets None even when a recorded
    op used it (a constant multiplied by a variable, say), as in TensorFlow.
    """
    wanted = set()
    for s in sources:
        if s._value.dtype.kind not in "fc":
            _warn_not_floating("source tensor", s, call)
        elif s._id in tracked:
            wanted.add(s._id)
    return wanted


def _seeds(targets: list[Tensor], output_gradients: Any) -> dict[int, Tensor]:
    if output_gradients is None:
        given = [None] * len(targets)
    else:
        given = nest.flatten(output_gradients)
        if len(given) != len(targets):
            raise ValueError(
                f"output_gradients has {len(given)} entries but there are "
                f"{len(targets)} targets; give one cotangent per target (or None). For "
                "a single target pass one tensor, e.g. tf.constant([...])."
            )
    seeds: dict[int, Tensor] = {}
    for i, (t, og) in enumerate(zip(targets, given)):
        if og is None:
            shape, dtype = t._value.shape, t._value.dtype
            # (np.array of a number is a C call; np.ones goes through Python)
            seed = constant_of(np.ones(shape, dtype) if shape else np.array(1, dtype))
        else:
            seed = convert_to_tensor(og, dtype_hint=from_numpy(t._value.dtype))
            if seed._value.shape != t._value.shape:
                raise ValueError(
                    f"output_gradients[{i}] has shape {seed._value.shape} but target "
                    f"#{i} has shape {t._value.shape}; they must match."
                )
            if seed._value.dtype != t._value.dtype:
                raise ValueError(
                    f"output_gradients[{i}] has dtype {seed.dtype.name} but target "
                    f"#{i} has dtype {t.dtype.name}; they must match."
                )
        previous = seeds.get(t._id)
        seeds[t._id] = seed if previous is None else previous + seed
    return seeds


def _identity_or_result(g: Tensor | None, source: Tensor, seeds: dict,
                        mode: UnconnectedGradients) -> Tensor | None:  # fmt: skip
    # NOTE: a source that is a target gets its seed whatever its dtype:
    # TensorFlow's gradient(x, x) of an int32 x is an int32 1.
    if source._value.dtype.kind not in "fc" and source._id in seeds:
        return seeds[source._id]
    return _result(g, source, mode, source._value.shape)


def _result(g: Tensor | None, source: Tensor, mode: UnconnectedGradients,
            shape: tuple) -> Tensor | None:  # fmt: skip
    if g is not None and source._value.dtype.kind in "fc":
        return g
    if mode is UnconnectedGradients.ZERO:
        return constant_of(np.zeros(shape, source._value.dtype))
    return None
