"""Variable: a named, mutable slot whose reads are tensors that tapes follow.

Every read of a :class:`Variable` yields a tensor that carries the variable's
id, so a tape that watches the variable sees all its reads, and each read keeps
the value it had at that moment (a later ``assign`` does not change a gradient
already recorded).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import dtypes
from .context import new_id, state
from .dtypes import DType
from .eager_tensor import Tensor, _notify_escape, _Operators, _ref, to_array
from .events import AssignEvent, ReadEvent
from .tensor_shape import TensorShape

__all__ = ["Variable"]


class Variable(_Operators):
    """A mutable, named tensor: the parameters a model learns.

    Tapes watch a trainable variable automatically the first time it is read
    inside them (unless the tape was made with ``watch_accessed_variables=False``).

    Example:
        >>> v = Variable([1.0, -2.0], name="w")
        >>> v.name, v.assign_sub([0.5, 0.5]).numpy()
        ('w:0', array([ 0.5, -2.5], dtype=float32))
    """

    __slots__ = ("_snapshot", "_id", "_name", "_trainable", "__weakref__")

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
        shape: Any = None,
    ) -> None:
        if initial_value is None:
            raise ValueError(
                "Variable needs an initial value, e.g. tf.Variable(0.0) or "
                "tf.Variable(tf.zeros([3]))."
            )
        if callable(initial_value):
            initial_value = initial_value()
        value = _read_only_copy(to_array(initial_value, dtype))
        if shape is not None and tuple(shape) != value.shape:
            raise ValueError(
                f"Variable initial value has shape {value.shape}, but shape={shape!r} "
                "was given. Pass a value of that shape or drop the shape argument."
            )
        self._id = new_id()
        # Inside tf.name_scope("outer"), a variable "w" is "outer/w", as in TF.
        self._name = state.name_scope + ("Variable" if name is None else str(name))
        self._trainable = bool(trainable)
        self._snapshot = _snapshot(value, self._id)

    # -- reading ---------------------------------------------------------------
    def _read(self) -> Tensor:
        """The current value as a tensor, announced to the tapes that watch reads."""
        tapes = state.tapes
        if tapes:
            for tape in tapes:
                if tape._watch_accessed and self._trainable:
                    tape._watch_variable(self)
        if state.observers:
            _notify_read(self)
        return self._snapshot

    def read_value(self) -> Tensor:
        return self._read()

    def value(self) -> Tensor:
        return self._read()

    @property
    def _value(self) -> np.ndarray:
        return self._snapshot._value

    @property
    def name(self) -> str:
        return f"{self._name}:0"

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def dtype(self) -> DType:
        return dtypes.from_numpy(self._snapshot._value.dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._snapshot._value.shape)

    @property
    def ndim(self) -> int:
        return self._snapshot._value.ndim

    @property
    def device(self) -> str:
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    def get_shape(self) -> TensorShape:
        return self.shape

    def numpy(self) -> Any:
        value = self._snapshot._value
        result = value.copy() if value.ndim else value[()]
        if state.observers:
            _notify_escape(self, "numpy", result)
        return result

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        value = np.array(self._snapshot._value, dtype=dtype, copy=True)
        if state.observers:
            _notify_escape(self, "__array__", value)
        return value

    def __float__(self) -> float:
        result = float(self._snapshot._value)
        if state.observers:
            _notify_escape(self, "float", result)
        return result

    def __int__(self) -> int:
        result = int(self._snapshot._value)
        if state.observers:
            _notify_escape(self, "int", result)
        return result

    def __bool__(self) -> bool:
        return bool(self._read())

    def __len__(self) -> int:
        return len(self._snapshot)

    def __iter__(self) -> Iterator[Tensor]:
        return iter(self._read())

    # -- writing ---------------------------------------------------------------
    def assign(self, value: Any, use_locking: bool = False, name: Any = None,
               read_value: bool = True) -> Variable:  # fmt: skip
        """Replace the value. Not differentiable: a tape does not follow it.

        Raises:
            ValueError: if the new value's shape differs from the variable's.
        """
        new = to_array(value, self.dtype, what=f"the value assigned to {self.name}")
        return self._replace(_read_only_copy(new), value)

    def assign_add(self, delta: Any, use_locking: bool = False, name: Any = None,
                   read_value: bool = True) -> Variable:  # fmt: skip
        return self._update(np.add, delta, "added to")

    def assign_sub(self, delta: Any, use_locking: bool = False, name: Any = None,
                   read_value: bool = True) -> Variable:  # fmt: skip
        return self._update(np.subtract, delta, "taken from")

    def _update(self, ufunc: np.ufunc, given: Any, how: str) -> Variable:
        old = self._snapshot._value
        if type(given) is Tensor and given._value.dtype == old.dtype:
            delta = given._value  # an optimizer's step: nothing to convert
        else:
            delta = to_array(given, self.dtype, what=f"the delta {how} {self.name}")
        if (
            delta.shape == old.shape
            and sys.getrefcount(self._snapshot) == 2
            and sys.getrefcount(old) == 3
        ):
            # Nothing but this variable holds its value (no tape, read, view or
            # tensor refers to it; the counts include this frame's and the call's
            # own references), so no recorded gradient can see the change: update
            # in place, as TensorFlow's AssignSub kernel does, instead of
            # allocating a new array for every training step.
            old.flags.writeable = True
            try:
                ufunc(old, delta, out=old)
            finally:
                old.flags.writeable = False
            return self._notify_assign(given)
        new = ufunc(old, delta)
        if isinstance(new, np.generic):
            new = np.asarray(new)
        new.flags.writeable = False
        return self._replace(new, given)

    def _replace(self, new: np.ndarray, value: Any) -> Variable:
        # `new` is read-only and held by no one else.
        old = self._snapshot._value
        if new.shape != old.shape:
            raise ValueError(
                f"Cannot assign a value of shape {new.shape} to variable "
                f"{self.name!r} of shape {old.shape}. The shapes must match."
            )
        self._snapshot = _snapshot(new, self._id)
        return self._notify_assign(value)

    def _notify_assign(self, value: Any) -> Variable:
        if state.observers:
            value_id = value._id if isinstance(value, (Tensor, Variable)) else None
            event = AssignEvent(_ref(self), value_id, type(value).__name__)
            for observer in state.observers:
                observer.on_assign(event)
        return self

    def __repr__(self) -> str:
        value = self._snapshot._value
        text = repr(value[()]) if not value.ndim else repr(value)
        if not value.ndim and text.startswith("np."):
            text = str(value[()])
        return (
            f"<tf.Variable '{self.name}' shape={self.shape} "
            f"dtype={self.dtype.name}, numpy={text}>"
        )

    def __format__(self, spec: str) -> str:
        return self._snapshot.__format__(spec) if spec else repr(self)

    def __reduce__(self) -> tuple:
        return _rebuild_variable, (self.numpy(), self._trainable, self._name)


def _rebuild_variable(value: Any, trainable: bool, name: str) -> Variable:
    return Variable(value, trainable=trainable, name=name)


def _snapshot(value: np.ndarray, var_id: int) -> Tensor:
    # A read of a variable: a tensor that shares the variable's id.
    t = Tensor.__new__(Tensor)
    t._value = value
    t._id = var_id
    return t


def _read_only_copy(value: np.ndarray) -> np.ndarray:
    value = np.array(value, copy=True)
    value.flags.writeable = False
    return value


def _notify_read(var: Variable) -> None:
    key = var._id
    tapes = tuple([t for t in state.tapes if key in t._tracked])
    event = ReadEvent(_ref(var), tapes)
    for observer in state.observers:
        observer.on_variable_read(event)
