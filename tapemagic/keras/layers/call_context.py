"""The call context of Keras layers: which layers are running, and in which mode.

Each layer call or build pushes a frame ``(layer, training)``; the ``training``
flag of the innermost frame that has one reaches the layers called inside it,
and the frames give a weight its Keras 3 path (``outer/dense/kernel``).
``shapes_only`` marks runs that only learn shapes (builds, symbolic calls), in
which ``add_loss`` keeps nothing.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .keras_tensor import _as_shape

__all__ = [
    "CallSpec",
    "call_spec",
    "context_training",
    "frame",
    "marking_built",
    "scope_path",
    "shapes_only",
    "call_state",
]


class CallState(threading.local):
    def __init__(self) -> None:
        # (layer, training) for each layer call or build in progress, innermost last
        self.frames: list[tuple[Any, Any]] = []
        # > 0 while layers run only to find shapes: add_loss keeps nothing then
        self.shape_only = 0


call_state = CallState()


@contextmanager
def frame(layer: Any, training: Any) -> Iterator[None]:
    call_state.frames.append((layer, training))
    try:
        yield
    finally:
        call_state.frames.pop()


@contextmanager
def shapes_only() -> Iterator[None]:
    """Run layers to learn shapes (a build, a symbolic call): losses are dropped.

    Keras builds symbolically, so ``add_loss`` during a build adds nothing; here
    a build runs ``call`` on zeros, so the losses it adds are discarded.
    """
    call_state.shape_only += 1
    try:
        yield
    finally:
        call_state.shape_only -= 1


def context_training() -> Any:
    for _, training in reversed(call_state.frames):
        if training is not None:
            return training
    return None


def scope_path(layer: Any, name: str) -> str:
    """Keras 3's variable path: the layers being called or built, then ``name``."""
    scopes: list = []
    for frame_layer, _ in call_state.frames:
        if not scopes or scopes[-1] is not frame_layer:
            scopes.append(frame_layer)
    if not scopes or scopes[-1] is not layer:
        scopes.append(layer)
    return "/".join([s.name for s in scopes] + [name])


def marking_built(build: Any) -> Any:
    """Wrap a subclass's build: runs in the layer's scope, then marks it built."""

    @functools.wraps(build)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        self._check_super_called()
        if args and self._build_input_shape is None:
            self.__dict__["_build_input_shape"] = _as_shape(args[0])
        if call_state.frames and call_state.frames[-1][0] is self:
            result = build(self, *args, **kwargs)
        else:
            with frame(self, None):
                result = build(self, *args, **kwargs)
        self.built = True
        return result

    wrapped._marks_built = True  # type: ignore[attr-defined]
    return wrapped


class CallSpec:
    __slots__ = ("has_training", "training_default", "has_mask", "names")

    def __init__(
        self,
        has_training: bool,
        training_default: Any,
        has_mask: bool = False,
        names: tuple = (),
    ) -> None:
        self.has_training = has_training
        self.training_default = training_default
        # whether call() takes `mask`: it then receives the mask of its input
        self.has_mask = has_mask
        # call()'s parameter names, without self: which `<name>_mask` it takes
        self.names = names


@functools.cache
def call_spec(cls: type) -> CallSpec:
    params = inspect.signature(cls.call).parameters
    has_mask = "mask" in params
    names = tuple(params)[1:]
    # as Keras 3: only a call() that names `training` receives it
    if "training" in params:
        default = params["training"].default
        return CallSpec(
            True,
            None if default is inspect.Parameter.empty else default,
            has_mask,
            names,
        )
    return CallSpec(False, None, has_mask, names)
