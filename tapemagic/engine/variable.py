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
from .eager_tensor import (
    EagerTensor,
    Tensor,
    _notify_escape,
    _Operators,
    _ref,
    to_array,
    value_text,
)
from .errors import InvalidArgumentError
from .events import AssignEvent, ReadEvent, VariableEvent
from .tensor_shape import TensorShape

__all__ = ["ResourceVariable", "Variable", "backing_variable", "shape_mismatch"]

_new = object.__new__


class Variable(_Operators):
    """A mutable, named tensor: the parameters a model learns (``tf.Variable``).

    Tapes watch a trainable variable automatically the first time it is read
    inside them (unless the tape was made with ``watch_accessed_variables=False``).
    ``Variable(...)`` builds a :class:`ResourceVariable`, as TensorFlow 2 does.

    Example:
        >>> v = Variable([1.0, -2.0], name="w")
        >>> v.name, v.assign_sub([0.5, 0.5]).numpy()
        ('w:0', array([ 0.5, -2.5], dtype=float32))
        >>> type(v).__name__, v[0].assign(7.0).numpy()
        ('ResourceVariable', array([ 7. , -2.5], dtype=float32))
    """

    __slots__ = ("_snapshot", "_id", "_name", "_trainable", "__weakref__")

    def __new__(cls, *args: Any, **kwargs: Any) -> Variable:
        return _new(ResourceVariable if cls is Variable else cls)

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
        if state.observers:
            _notify_variable(self, initial_value)

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

    def _watch_refusal(self) -> str | None:
        """Why ``tape.watch`` refuses this variable, or None: it is watched.

        The protocol by which a subclass declares itself not watchable, as a
        Keras 3 weight is not in TensorFlow: ``tape.watch`` then raises
        TensorFlow's ValueError followed by this text, which says what to watch
        instead. A plain variable returns None.
        """
        return None

    @property
    def _handle(self) -> Variable:
        """The variable that holds the value: itself (see _UnreadVariable)."""
        return self

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
    def _dtype(self) -> DType:
        # What the engine reads: a subclass may give ``dtype`` another form
        # (a Keras weight's is a string, "float32").
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

    def __iter__(self) -> Iterator[Tensor]:
        return iter(self._read())

    # -- writing ---------------------------------------------------------------
    def assign(self, value: Any, use_locking: bool = False, name: Any = None,
               read_value: bool = True) -> Variable | None:  # fmt: skip
        """Replace the value. Not differentiable: a tape does not follow it.

        Returns:
            As in TensorFlow, a variable that reads this one's value when used
            (``<tf.Variable 'UnreadVariable' ...>``), or None with
            ``read_value=False``.

        Raises:
            ValueError: if the new value's shape differs from the variable's.
        """
        new = to_array(value, self._dtype, what=f"the value assigned to {self.name}")
        new = _read_only_copy(new)
        self._replace(new, value, "assign", new)
        return self._lazy_read() if read_value else None

    def assign_add(self, delta: Any, use_locking: bool = False, name: Any = None,
                   read_value: bool = True) -> Variable | None:  # fmt: skip
        """Add ``delta`` to the value; returns what :meth:`assign` returns."""
        self._update(np.add, delta, "added to", "assign_add")
        return self._lazy_read() if read_value else None

    def assign_sub(self, delta: Any, use_locking: bool = False, name: Any = None,
                   read_value: bool = True) -> Variable | None:  # fmt: skip
        """Subtract ``delta`` from the value; returns what :meth:`assign` returns."""
        self._update(np.subtract, delta, "taken from", "assign_sub")
        return self._lazy_read() if read_value else None

    def _assign_slice(self, key: tuple, value: Any) -> Variable:
        """``self[key].assign(value)``: TensorFlow's strided-slice assignment.

        ``key`` is a normalized strided-slice key (ints, slices, ``None``,
        ``...``). ``value`` may broadcast to the slice's shape, and may have extra
        leading axes of size 1; an empty slice takes any value. Not
        differentiable, like :meth:`assign`.

        Raises:
            InvalidArgumentError: if ``value``'s shape does not fit the slice.
            ValueError, TypeError: if ``value`` cannot take the variable's dtype.
        """
        part = to_array(
            value, self._dtype, what=f"the value assigned to a slice of {self.name}"
        )
        if state.observers:
            _notify_assigning(self)
        old = self._snapshot._value
        final = np.shape(old[key])
        if np.prod(final, dtype=np.int64):
            part = part.reshape(_fit_slice(part.shape, final, self.name))
            new = old.copy()
            new[key] = part
            new.flags.writeable = False
            self._snapshot = _snapshot(new, self._id)
        self._notify_assign(value, "assign_slice")
        return self._lazy_read()

    def _update(self, ufunc: np.ufunc, given: Any, how: str, kind: str) -> None:
        if state.observers:
            _notify_assigning(self)
        old = self._snapshot._value
        if type(given) is EagerTensor and given._value.dtype == old.dtype:
            delta = given._value  # a step as a tensor: nothing to convert
        elif type(given) is np.ndarray and given.dtype == old.dtype:
            delta = given  # a Keras optimizer's step: what to_array would give
        else:
            delta = to_array(given, self._dtype, what=f"the delta {how} {self.name}")
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
            flags = old.flags
            flags.writeable = True
            try:
                ufunc(old, delta, out=old)
            finally:
                flags.writeable = False
            if state.observers:
                self._notify_assign(given, kind, delta)
            return
        new = ufunc(old, delta)
        if isinstance(new, np.generic):
            new = np.asarray(new)
        new.flags.writeable = False
        self._replace(new, given, kind, delta)

    def _replace(self, new: np.ndarray, value: Any, kind: str = "assign",
                 operand: Any = None) -> None:  # fmt: skip
        # `new` is read-only and held by no one else.
        if state.observers:
            _notify_assigning(self)
        old = self._snapshot._value
        if new.shape != old.shape:
            raise shape_mismatch(self, new.shape)
        self._snapshot = _snapshot(new, self._id)
        self._notify_assign(value, kind, operand)

    def _notify_assign(self, value: Any, how: str = "assign",
                       operand: Any = None) -> None:  # fmt: skip
        if state.observers:
            value_id = value._id if isinstance(value, _Operators) else None
            event = AssignEvent(
                _ref(self), value_id, type(value).__name__, how, operand
            )
            for observer in state.observers:
                observer.on_assign(event)

    def _lazy_read(self) -> Variable:
        # What an assignment returns. As TensorFlow's does, it counts as an
        # access: a tape watches the (trainable) variable from here on.
        tapes = state.tapes
        if tapes:
            for tape in tapes:
                if tape._watch_accessed and self._trainable:
                    tape._watch_variable(self)
        unread = _new(_UnreadVariable)
        unread._variable = self
        return unread

    # -- printing ----------------------------------------------------------------
    def __repr__(self) -> str:
        text = value_text(self._snapshot._value, is_repr=True)
        return (
            f"<tf.Variable '{self.name}' shape={self.shape} "
            f"dtype={self._dtype.name}, numpy={text}>"
        )

    def __format__(self, spec: str) -> str:
        # As in TensorFlow, a variable formats as its repr and takes no spec.
        if not spec:
            return str(self)
        raise TypeError(
            f"unsupported format string passed to {type(self).__name__}.__format__. "
            f'Format the variable\'s value: f"{{v.numpy():{spec}}}".'
        )

    def __reduce__(self) -> tuple:
        return _rebuild_variable, (self.numpy(), self._trainable, self._name)


class ResourceVariable(Variable):
    """The class of every ``tf.Variable(...)``, under TensorFlow 2's name for it.

    ``type(v).__name__`` is ``"ResourceVariable"``, as TensorFlow's guides print
    it; test for a variable with ``isinstance(v, tf.Variable)``.
    """

    __slots__ = ()


class _View(Variable):
    """A variable that holds no value of its own: it reads and writes another."""

    __slots__ = ("_variable",)

    @property
    def _handle(self) -> Variable:
        return self._variable

    @property
    def _snapshot(self) -> Tensor:  # type: ignore[override]
        return self._variable._snapshot

    @property
    def _id(self) -> int:  # type: ignore[override]
        return self._variable._id

    @property
    def _trainable(self) -> bool:  # type: ignore[override]
        return self._variable._trainable


class _UnreadVariable(_View):
    """What ``assign`` returns: a view of the variable that reads it when used.

    It prints as ``<tf.Variable 'UnreadVariable' ...>`` with the variable's value
    at the time it is printed, works in arithmetic as a read of the variable,
    and assigning to it assigns to the variable, all as in TensorFlow. Using it
    does not make a tape watch the variable (the assignment already did).
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        return "UnreadVariable"

    def _read(self) -> Tensor:
        variable = self._variable
        if state.observers:
            _notify_read(variable)
        return variable._snapshot

    def assign(self, *args: Any, **kwargs: Any) -> Variable | None:
        return self._variable.assign(*args, **kwargs)

    def assign_add(self, *args: Any, **kwargs: Any) -> Variable | None:
        return self._variable.assign_add(*args, **kwargs)

    def assign_sub(self, *args: Any, **kwargs: Any) -> Variable | None:
        return self._variable.assign_sub(*args, **kwargs)

    def __copy__(self) -> Variable:
        return self._variable._lazy_read()

    def __deepcopy__(self, memo: dict) -> Any:
        raise ValueError(_NO_COPY)

    def __reduce__(self) -> tuple:
        raise ValueError(_NO_COPY)


class _BackingVariable(_View, ResourceVariable):
    """A ``tf.Variable`` under its own name that holds another variable's value.

    What a Keras 3 weight's ``.value`` is: the ``tf.Variable`` behind it, named
    ``"dense/kernel:0"``. Reading it reads the weight (a tape watches the
    weight when it reads it, as for any variable), ``tape.watch`` of it watches
    the weight, and ``assign`` on it assigns the weight with TensorFlow's
    ``tf.Variable.assign``. A copy or a pickle of it is a plain variable.
    """

    __slots__ = ("_backing_name",)

    @property
    def _name(self) -> str:  # type: ignore[override]
        return self._backing_name

    def _read(self) -> Tensor:
        return self._variable._read()

    def assign(self, value: Any, use_locking: bool = False, name: Any = None,
               read_value: bool = True) -> Variable | None:  # fmt: skip
        return Variable.assign(self._variable, value, read_value=read_value)

    def assign_add(self, delta: Any, use_locking: bool = False, name: Any = None,
                   read_value: bool = True) -> Variable | None:  # fmt: skip
        return Variable.assign_add(self._variable, delta, read_value=read_value)

    def assign_sub(self, delta: Any, use_locking: bool = False, name: Any = None,
                   read_value: bool = True) -> Variable | None:  # fmt: skip
        return Variable.assign_sub(self._variable, delta, read_value=read_value)


# As TensorFlow prints its class: type(layer.kernel.value).__name__.
_BackingVariable.__name__ = _BackingVariable.__qualname__ = "ResourceVariable"


def backing_variable(variable: Variable, name: str) -> Variable:
    """A ``tf.Variable`` named ``name`` that reads and writes ``variable``.

    For a subclass whose objects stand in front of a ``tf.Variable``, as a Keras
    3 weight does: the result watches, reads and assigns ``variable`` itself.

    Example:
        >>> w = Variable([1.0, 2.0], name="kernel")
        >>> backing_variable(w, "dense/kernel").assign([3.0, 4.0]).numpy()
        array([3., 4.], dtype=float32)
        >>> w.numpy()
        array([3., 4.], dtype=float32)
    """
    view = _new(_BackingVariable)
    view._variable = variable
    view._backing_name = str(name)
    return view


_NO_COPY = (
    "The value assign() returns (an UnreadVariable) reads its variable when used "
    "and cannot be deep-copied or pickled, as in TensorFlow. Copy or pickle the "
    "variable itself, or its value: tf.constant(v)."
)


def _fit_slice(given: tuple, final: tuple, name: str) -> tuple:
    """The shape ``given`` takes to broadcast into a slice of shape ``final``.

    TensorFlow's rule (StridedSliceAssignBCast): extra leading axes of size 1 are
    dropped, then each axis must match or be 1.

    Raises:
        InvalidArgumentError: if ``given`` does not fit.
    """
    extra = len(given) - len(final)
    kept = given[extra:] if extra > 0 else given
    fits = all(d == 1 for d in given[: max(extra, 0)]) and all(
        g in (1, f) for g, f in zip(reversed(kept), reversed(final))
    )
    if not fits:
        raise InvalidArgumentError(
            f"Cannot broadcast input shape [{','.join(map(str, given))}] into final "
            f"shape [{','.join(map(str, final))}]: a value assigned to a slice of "
            f"{name} needs the slice's shape {list(final)}, or one that broadcasts "
            "to it.",
            op="ResourceStridedSliceAssign",
        )
    return kept


def _rebuild_variable(value: Any, trainable: bool, name: str) -> Variable:
    return Variable(value, trainable=trainable, name=name)


def _snapshot(value: np.ndarray, var_id: int) -> Tensor:
    # A read of a variable: a tensor that shares the variable's id.
    t = _new(EagerTensor)
    t._value = value
    t._id = var_id
    return t


def _read_only_copy(value: np.ndarray) -> np.ndarray:
    value = np.array(value, copy=True)
    value.flags.writeable = False
    return value


def _notify_variable(var: Variable, initial: Any) -> None:
    # A new variable, and what it copied its initial value from (a listener
    # links a variable made from a computed tensor back to that tensor).
    made_from = _ref(initial) if isinstance(initial, (Tensor, Variable)) else None
    event = VariableEvent(_ref(var), made_from, type(initial).__name__, initial)
    for observer in state.observers:
        hear = getattr(observer, "on_variable", None)
        if hear is not None:
            hear(event)


def _notify_assigning(var: Variable) -> None:
    # Before an assignment changes ``var``: a listener that restores values
    # (a tf.function trace that must run again) keeps the value it had.
    for observer in state.observers:
        hear = getattr(observer, "on_assigning", None)
        if hear is not None:
            hear(var)


def _notify_read(var: Variable) -> None:
    key = var._id
    tapes = tuple([t for t in state.tapes if key in t._tracked])
    event = ReadEvent(_ref(var), tapes)
    for observer in state.observers:
        observer.on_variable_read(event)


def shape_mismatch(variable: Variable, shape: tuple) -> ValueError:
    """TensorFlow's error for assigning a value of another shape to ``variable``."""
    return ValueError(
        f"Cannot assign a value of shape {shape} to variable {variable.name!r} of "
        f"shape {variable._snapshot._value.shape}. The shapes must match."
    )
