"""Tensor, Variable and the conversion of Python and NumPy values into tensors.

A :class:`Tensor` is an immutable NumPy array with an id that tapes track. A
:class:`Variable` is a named, mutable slot whose every read yields a tensor that
carries the variable's id, so a tape that watches the variable sees all its reads,
and each read keeps the value it had at that moment (a later ``assign`` does not
change a gradient already recorded).

Conversion follows TensorFlow: Python floats become float32 and ints int32; NumPy
values keep their dtype; in an op with a tensor, other values take that tensor's
dtype; two tensors of different dtypes are never promoted.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import dtypes
from .context import new_id, state
from .dtypes import DType
from .errors import InvalidArgumentError
from .events import (
    AssignEvent,
    ConvertEvent,
    EscapeEvent,
    ReadEvent,
    ValueRef,
    VariableEvent,
)

__all__ = [
    "Tensor",
    "TensorShape",
    "Variable",
    "array_of",
    "convert_to_tensor",
    "id_of",
    "is_tensor",
]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_FLOAT32 = np.dtype(np.float32)
_INT32 = np.dtype(np.int32)


class TensorShape(tuple):
    """A tensor's shape: a tuple of ints that prints the way TensorFlow's does.

    Example:
        >>> s = TensorShape((2, 3))
        >>> s, s.as_list(), s.rank, s == (2, 3)
        (TensorShape([2, 3]), [2, 3], 2, True)
    """

    __slots__ = ()

    @property
    def rank(self) -> int:
        return len(self)

    @property
    def ndims(self) -> int:
        return len(self)

    def as_list(self) -> list[int]:
        return list(self)

    def num_elements(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def is_fully_defined(self) -> bool:
        return True

    def __getitem__(self, key):  # type: ignore[override]
        item = tuple.__getitem__(self, key)
        return TensorShape(item) if isinstance(key, slice) else item

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return tuple.__repr__(tuple(self))


class _Operators:
    """Python operators shared by Tensor and Variable; each is one engine op.

    The op library binds them when it loads (tapemagic/engine/ops/operators.py):
    ``+``, ``-``, ``*``, ``/`` and unary ``-`` are the op functions themselves,
    one Python call less on the hottest path. ``_stack`` and ``_unstack`` are
    the library's ``stack`` and ``unstack``, for converting nested lists of
    tensors and for iterating over a tensor.
    """

    __slots__ = ()
    # NumPy defers binary operators to an operand of higher priority, so
    # ``np.float64(2) * t`` calls ``t.__rmul__`` and stays on the tape.
    __array_priority__ = 100

    _stack: Any
    _unstack: Any

    def __pos__(self):
        return self

    # Tensors compare elementwise, so they cannot be dict keys (as in TensorFlow).
    __hash__ = None  # type: ignore[assignment]

    def ref(self) -> _Ref:
        """A hashable reference to this object, for use as a dict key or set member."""
        return _Ref(self)

    def experimental_ref(self) -> _Ref:
        return _Ref(self)


class _Ref:
    """What ``tensor.ref()`` returns: hashes and compares by identity."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def deref(self) -> Any:
        return self._obj

    def __hash__(self) -> int:
        return id(self._obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Ref) and other._obj is self._obj

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._obj!r}>"


def _format_value(array: Any) -> str:
    if not np.ndim(array):
        return str(array[()])
    return np.array2string(np.asarray(array), separator=" ")


class Tensor(_Operators):
    """An immutable n-dimensional array of one dtype.

    Build one with ``tf.constant`` or as the result of an op; tapes record the ops
    that produce tensors from watched values.

    Example:
        >>> t = Tensor(np.array([1.0, 2.0], np.float32))
        >>> print(t)
        tf.Tensor([1. 2.], shape=(2,), dtype=float32)
    """

    __slots__ = ("_value", "_id", "__weakref__")

    def __init__(self, value: np.ndarray | np.generic) -> None:
        # Internal: `value` is already a NumPy array or scalar of a supported dtype.
        # Use tf.constant / convert_to_tensor to build tensors from other values.
        self._value = value
        self._id = new_id()

    # -- what a tensor is ----------------------------------------------------
    @property
    def dtype(self) -> DType:
        return dtypes.from_numpy(self._value.dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._value.shape)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def device(self) -> str:
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    def get_shape(self) -> TensorShape:
        return self.shape

    def numpy(self) -> Any:
        """The value as a NumPy array (a NumPy scalar for a 0-d tensor).

        The result is a copy: changing it never changes the tensor. A tape does not
        follow values through NumPy, so a gradient path ends here.
        """
        value = self._value
        result = value.copy() if value.ndim else value[()]
        if state.observers:
            _notify_escape(self, "numpy", result)
        return result

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        value = np.array(self._value, dtype=dtype, copy=True)
        if state.observers:
            _notify_escape(self, "__array__", value)
        return value

    def __float__(self) -> float:
        result = float(self._value)
        if state.observers:
            _notify_escape(self, "float", result)
        return result

    def __int__(self) -> int:
        result = int(self._value)
        if state.observers:
            _notify_escape(self, "int", result)
        return result

    def __index__(self) -> int:
        if self._value.dtype.kind not in "iu":
            raise TypeError(
                f"Only integer tensors can be used as an index, got {self.dtype!r}. "
                "Cast it first: tf.cast(t, tf.int32)."
            )
        return int(self._value)

    def __bool__(self) -> bool:
        if self._value.size != 1:
            raise ValueError(
                f"The truth value of a tensor of shape {self.shape} is ambiguous. "
                "Use tf.reduce_any(t) or tf.reduce_all(t)."
            )
        return bool(self._value)

    def __len__(self) -> int:
        if not self._value.ndim:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._value.ndim:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return iter(_Operators._unstack(self, axis=0))

    def __repr__(self) -> str:
        value = self._value
        text = repr(value[()]) if not value.ndim else repr(value)
        if not value.ndim and text.startswith("np."):
            text = str(value[()])
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={text}>"

    def __str__(self) -> str:
        text = _format_value(self._value)
        if "\n" in text:
            text = "\n" + text
        return f"tf.Tensor({text}, shape={self.shape}, dtype={self.dtype.name})"

    def __format__(self, spec: str) -> str:
        # f"{loss:.3f}" formats the value, as TensorFlow's tensors do.
        if not spec:
            return str(self)
        value = self._value
        return format(value[()] if not value.ndim else value, spec)

    def __reduce__(self) -> tuple:
        return Tensor, (self._value,)

    def __copy__(self) -> Tensor:
        return self

    def __deepcopy__(self, memo: dict) -> Tensor:
        return self


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
        value = _read_only_copy(_to_array(initial_value, dtype))
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
        new = _to_array(value, self.dtype, what=f"the value assigned to {self.name}")
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
            delta = _to_array(given, self.dtype, what=f"the delta {how} {self.name}")
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


def _ref(obj: Tensor | Variable) -> ValueRef:
    """What events say about a tensor or variable (see recorder.describe)."""
    if isinstance(obj, Variable):
        value = obj._snapshot._value
        return ValueRef(obj._id, value.shape, value.dtype, value, obj)
    value = obj._value
    return ValueRef(obj._id, value.shape, value.dtype, value, None)


def _notify_read(var: Variable) -> None:
    key = var._id
    tapes = tuple([t for t in state.tapes if key in t._tracked])
    event = ReadEvent(_ref(var), tapes)
    for observer in state.observers:
        observer.on_variable_read(event)


def _notify_escape(obj: Any, how: str, result: Any) -> None:
    # `result` is the object handed to the user, so a listener can recognise it
    # if it comes back into an op as a constant.
    event = EscapeEvent(_ref(obj), how, result)
    for observer in state.observers:
        observer.on_escape(event)


def _notify_variable(var: Variable, initial: Any) -> None:
    # A new variable, and what it copied its initial value from (a listener
    # links a variable made from a computed tensor back to that tensor).
    made_from = _ref(initial) if isinstance(initial, (Tensor, Variable)) else None
    event = VariableEvent(_ref(var), made_from, type(initial).__name__, initial)
    for observer in state.observers:
        hear = getattr(observer, "on_variable", None)
        if hear is not None:
            hear(event)


def _notify_convert(value: Any, tensor: Tensor, how: str) -> None:
    # A Python or NumPy value became a tensor: implicitly, as an op input
    # ("input"), or explicitly through convert_to_tensor ("constant").
    event = ConvertEvent(value, how, _ref(tensor))
    for observer in state.observers:
        observer.on_convert(event)


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a tapemagic Tensor or Variable."""
    return isinstance(value, (Tensor, Variable))


# -- conversion ----------------------------------------------------------------


def _default_array(value: Any) -> np.ndarray:
    """A Python or NumPy value as an array with TensorFlow's default dtype."""
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind not in "biufc":
            raise TypeError(
                f"Cannot convert a NumPy array of dtype {array.dtype} to a tensor; "
                "use numbers or booleans."
            )
        if array.dtype not in dtypes._BY_NP:
            array = array.astype(_wider(array.dtype))
        return array
    if isinstance(value, bool):
        return np.asarray(value)
    if isinstance(value, int):
        if _INT32_MIN <= value <= _INT32_MAX:
            return np.asarray(value, np.int32)
        if not -(2**63) <= value < 2**63:
            raise TypeError(
                f"Cannot convert {_short(value)} to EagerTensor of dtype int64: it is "
                "out of its range. Use a float, e.g. float(value), or a smaller value."
            )
        return np.asarray(value, np.int64)
    if isinstance(value, float):
        return np.asarray(value, np.float32)
    if isinstance(value, complex):
        return np.asarray(value, np.complex128)
    if isinstance(value, (list, tuple)):
        try:
            array = np.asarray(value)
        except ValueError as err:
            raise ValueError(
                f"Cannot convert a ragged list to a tensor: {err}. Every row must "
                "have the same length."
            ) from None
        kind = array.dtype.kind
        if kind == "f":
            return array.astype(np.float32)
        if kind in "iu":
            if array.size and (array.min() < _INT32_MIN or array.max() > _INT32_MAX):
                return array.astype(np.int64)
            return array.astype(np.int32)
        if kind in "bc":
            return array
        raise TypeError(
            f"Cannot convert {_short(value)} to a tensor: its elements are "
            f"{array.dtype} values, not numbers."
        )
    if isinstance(value, numbers.Number):
        return np.asarray(value)
    raise TypeError(
        f"Cannot convert {_short(value)} of type {type(value).__name__} to a tensor. "
        "Pass a number, a list of numbers, a NumPy array or a tensor."
    )


def _wider(np_dtype: np.dtype) -> np.dtype:
    # uint16/32/64 and other NumPy-only kinds map to the nearest TF dtype.
    if np_dtype.kind == "u":
        return np.dtype(np.int64)
    if np_dtype.kind == "f":
        return np.dtype(np.float64)
    return np_dtype


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _to_array(value: Any, dtype: Any = None, what: str = "value") -> np.ndarray:
    """``value`` as a NumPy array of ``dtype`` (default: TensorFlow's default)."""
    if isinstance(value, (Tensor, Variable)):
        array = value._value
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if array.dtype != dtype._np:
                raise ValueError(
                    f"Tensor conversion requested dtype {dtype.name} for {what} "
                    f"with dtype {value.dtype.name}. Cast it first: "
                    f"tf.cast(x, tf.{dtype.name})."
                )
        return array
    if _contains_tensor(value):
        return _to_array(_Operators._stack([_pack(v) for v in value]), dtype, what)
    array = _default_array(value)
    if dtype is None:
        return array
    dtype = dtypes.as_dtype(dtype)
    return _cast_python(value, array, dtype, what)


def _cast_python(value: Any, array: np.ndarray, dtype: DType, what: str) -> np.ndarray:
    target = dtype._np
    if array.dtype == target:
        return array
    src, dst = array.dtype.kind, target.kind
    lossy = (src == "f" and dst in "iub") or (src == "c" and dst != "c")
    if lossy or (src in "iu" and dst == "b"):
        raise TypeError(
            f"Cannot convert {_short(value)} to EagerTensor of dtype {dtype.name}: "
            f"{what} would lose its {array.dtype} values. Use a tf.{dtype.name} value "
            f"or cast explicitly with tf.cast."
        )
    if not isinstance(value, (np.ndarray, np.generic)):
        # Python numbers convert straight to the target dtype: 0.1 as float64 must
        # not pass through float32 on the way.
        try:
            return np.asarray(value, dtype=target)
        except OverflowError:
            raise TypeError(
                f"Cannot convert {_short(value)} to EagerTensor of dtype "
                f"{dtype.name}: {what} is out of its range. Use a wider dtype, e.g. "
                f"tf.cast(x, tf.int64), or a smaller value."
            ) from None
    return array.astype(target)


def _contains_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(
            isinstance(v, (Tensor, Variable)) or _contains_tensor(v) for v in value
        )
    return False


def _pack(value: Any) -> Any:
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return _Operators._stack([_pack(v) for v in value])
    return value


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None,
                      name: str | None = None) -> Tensor:  # fmt: skip
    """Turn ``value`` into a Tensor, keeping it on the tape when it already is one.

    A Tensor comes back as itself and a Variable as a (watched) read of it, so
    neither breaks a gradient path. Lists that hold tensors are stacked by a
    recorded op.

    Args:
        value: a Tensor, Variable, number, nested list, or NumPy array.
        dtype: the dtype the result must have.
        dtype_hint: the dtype to use when ``value`` does not already fix one.
        name: ignored; accepted for TensorFlow compatibility.

    Returns:
        A Tensor.

    Raises:
        TypeError: if ``value`` is not numeric or cannot take ``dtype``.
        ValueError: if a tensor's dtype differs from ``dtype``.

    Example:
        >>> convert_to_tensor([1, 2]).dtype, convert_to_tensor(1.5).dtype
        (tf.int32, tf.float32)
    """
    if isinstance(value, Tensor):
        if dtype is not None and value._value.dtype != dtypes.as_dtype(dtype)._np:
            _to_array(value, dtype)  # raises the conversion error
        return value
    if isinstance(value, Variable):
        if dtype is not None:
            _to_array(value, dtype)
        return value._read()
    if _contains_tensor(value):
        return convert_to_tensor(_Operators._stack([_pack(v) for v in value]), dtype)
    array = None
    if dtype is None and dtype_hint is not None:
        try:
            array = _to_array(value, dtype_hint)
        except TypeError:
            array = None  # the hint does not fit: use the default dtype instead
    t = Tensor(_to_array(value, dtype) if array is None else array)
    if state.observers:
        _notify_convert(value, t, "constant")
    return t


_TENSORS = (Tensor, Variable)


def convert_inputs(args: tuple) -> tuple[Tensor, ...]:
    """Convert an op's tensor inputs to one common dtype, the TensorFlow way.

    The dtype of the first Tensor or Variable wins; numbers, lists and NumPy arrays
    are converted to it. Tensors of different dtypes are an error, never promoted.
    """
    # The common case, tensors of one dtype, needs no conversion at all.
    first = args[0] if args else None
    if type(first) is Tensor:
        dtype = first._value.dtype
        for arg in args:
            if type(arg) is not Tensor or arg._value.dtype != dtype:
                break
        else:
            return args
    if len(args) == 2 and type(args[0]) in _TENSORS and type(args[1]) in _TENSORS:
        # Tensors and variables (h @ w, h + b): read the variables, no more.
        x, y = args
        if type(x) is Variable:
            x = x._read()
        if type(y) is Variable:
            y = y._read()
        if x._value.dtype != y._value.dtype:
            raise _dtype_mismatch(1, y._value.dtype, x._value.dtype, args)
        return (x, y)
    dtype = None
    for arg in args:
        if isinstance(arg, (Tensor, Variable)):
            dtype = arg._value.dtype
            break
    out = []
    for i, arg in enumerate(args):
        cls = type(arg)
        if cls is Tensor:
            t = arg
        elif cls is Variable or isinstance(arg, Variable):
            t = arg._read()
        elif isinstance(arg, Tensor):
            t = arg
        elif dtype is not None and (cls is float or cls is int) and not state.observers:
            t = _python_scalar(arg, dtype)
        else:
            if dtype is None:
                array = _to_array(arg)
                dtype = array.dtype
            else:
                array = _to_array(arg, dtypes.from_numpy(dtype), what=f"input #{i}")
            t = Tensor(array)
            if state.observers:
                _notify_convert(arg, t, "input")
        if t._value.dtype != dtype:
            raise _dtype_mismatch(i, t._value.dtype, dtype, args)
        out.append(t)
    return tuple(out)


# Python numbers in ops (``1 - x``, ``g * 0.5``) recur constantly, in VJPs above
# all; tensors are immutable, so one tensor per (type, number, dtype) serves them
# all. Not used while an explanation log listens: it wants each conversion's line.
_SCALARS: dict[tuple, Tensor] = {}


def _python_scalar(value: float | int, dtype: np.dtype) -> Tensor:
    key = (type(value), value, dtype)
    t = _SCALARS.get(key)
    if t is None:
        t = Tensor(_to_array(value, dtypes.from_numpy(dtype), what="a Python number"))
        # -0.0 equals 0.0 and NaN equals nothing: neither can share a cache slot.
        if len(_SCALARS) < 4096 and value and value == value:
            _SCALARS[key] = t
    return t


def _dtype_mismatch(i: int, got: np.dtype, want: np.dtype, args: tuple) -> Exception:
    got_name = dtypes.from_numpy(got).name if got in dtypes._BY_NP else str(got)
    want_name = dtypes.from_numpy(want).name
    return InvalidArgumentError(
        f"Input #{i} has dtype {got_name} but the op's other inputs are {want_name}; "
        "TensorFlow never converts between tensor dtypes implicitly. Cast one of "
        f"them, e.g. tf.cast(x, tf.{want_name})."
    )


def array_of(x: Tensor | Variable) -> np.ndarray:
    """The NumPy array behind a tensor, or a variable's current value.

    For tapemagic's own layers (keras, the graph log): no copy is made and no
    observer hears of it, unlike ``x.numpy()``, which a tape's explanation log
    notes as the value leaving the engine. Treat the array as read-only.

    Example:
        >>> array_of(Tensor(np.array([1.0, 2.0])))
        array([1., 2.])
    """
    return x._value


def id_of(x: Tensor | Variable) -> int:
    """The engine's id of a tensor or variable: unique, in creation order.

    Example:
        >>> a, b = Tensor(np.zeros(2)), Tensor(np.zeros(2))
        >>> id_of(a) < id_of(b)
        True
    """
    return x._id
