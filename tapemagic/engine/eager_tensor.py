"""Tensor, the immutable array every op takes and returns.

A :class:`Tensor` is a NumPy array with an id that tapes track. Its Python
operators are engine ops, bound when the op library loads
(tapemagic/engine/ops/operators.py). Variables (engine/variable.py) share those
operators; ``to_array`` reads either, and turns other values into arrays by
TensorFlow's rules (engine/values.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import dtypes
from .context import new_id, state
from .dtypes import DType
from .events import ConvertEvent, EscapeEvent, ValueRef
from .tensor_shape import TensorShape
from .values import cast_value, default_array

__all__ = [
    "EagerTensor",
    "Tensor",
    "contains_tensor",
    "pack_tensors",
    "tensor_of",
    "to_array",
    "value_text",
]


class _Operators:
    """Python operators shared by Tensor and Variable; each is one engine op.

    Being an ``_Operators`` is what makes a value a Tensor or a Variable.

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


def value_text(value: np.ndarray | np.generic, is_repr: bool) -> str:
    """A value as TensorFlow prints it inside a tensor's or a variable's text.

    ``repr`` gives a scalar as the Python number it holds (``0.10000000149011612``
    for float32 0.1) and an array as NumPy's ``repr``; ``str`` gives NumPy's
    ``str``. Text that spans lines starts on a line of its own.

    Example:
        >>> x = np.float32(0.1)
        >>> value_text(x, is_repr=True), value_text(x, is_repr=False)
        ('0.10000000149011612', '0.1')
    """
    if value.ndim:
        text = repr(value) if is_repr else str(value)
    else:
        scalar = value[()]
        text = repr(scalar.item()) if is_repr else str(scalar)
    return "\n" + text if "\n" in text else text


_new = object.__new__


class Tensor(_Operators):
    """An immutable n-dimensional array of one dtype: ``tf.Tensor``.

    Build one with ``tf.constant`` or as the result of an op; tapes record the ops
    that produce tensors from watched values. Every tensor is an
    :class:`EagerTensor`, as in TensorFlow's eager mode; ``Tensor(array)`` builds
    one from a NumPy array or scalar of a supported dtype.

    Example:
        >>> t = Tensor(np.array([1.0, 2.0], np.float32))
        >>> print(t)
        tf.Tensor([1. 2.], shape=(2,), dtype=float32)
        >>> type(t).__name__, isinstance(t, Tensor)
        ('EagerTensor', True)
    """

    # _sliced_from: (variable, key) when the tensor is variable[key], so that
    # variable[key].assign(value) can write back (see `assign`); unset otherwise.
    __slots__ = ("_value", "_id", "_sliced_from", "__weakref__")

    def __new__(cls, value: np.ndarray | np.generic) -> Tensor:
        return _new(EagerTensor if cls is Tensor else cls)

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
        if state.observers:
            _notify_python_use(self, "index")
        return int(self._value)

    def __bool__(self) -> bool:
        if self._value.size != 1:
            raise ValueError(
                f"The truth value of a tensor of shape {self.shape} is ambiguous. "
                "Use tf.reduce_any(t) or tf.reduce_all(t)."
            )
        if state.observers:
            _notify_python_use(self, "bool")
        return bool(self._value)

    def __len__(self) -> int:
        if not self._value.ndim:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._value.ndim:
            raise TypeError("Cannot iterate over a scalar tensor.")
        if state.observers:
            _notify_python_use(self, "iter")
        return iter(_Operators._unstack(self, axis=0))

    # -- a slice of a variable -------------------------------------------------
    @property
    def assign(self) -> Callable[..., Any]:
        """For ``variable[key]``, a function that assigns to that slice.

        ``v[0, 0].assign(3.0)`` writes into ``v`` and returns what
        ``v.assign`` returns; any other tensor has no ``assign``, as in TensorFlow.

        Raises:
            AttributeError: for a tensor that is not a slice of a variable.
        """
        try:
            variable, key = self._sliced_from
        except AttributeError:
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute 'assign'. A tensor "
                "is immutable: assign to a tf.Variable (v.assign(value)) or to a "
                "slice of one (v[0].assign(value))."
            ) from None

        def assign(value: Any, name: str | None = None) -> Any:
            return variable._assign_slice(key, value)

        return assign

    @property
    def assign_add(self) -> Any:
        raise AttributeError(_no_slice_update(self, "assign_add", "+"))

    @property
    def assign_sub(self) -> Any:
        raise AttributeError(_no_slice_update(self, "assign_sub", "-"))

    # -- printing ----------------------------------------------------------------
    def __repr__(self) -> str:
        if TRACED and self._id in TRACED:
            name, shape = TRACED[self._id]
            return f"<tf.Tensor '{name}' shape={shape} dtype={self.dtype.name}>"
        text = value_text(self._value, is_repr=True)
        return f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={text}>"

    def __str__(self) -> str:
        if TRACED and self._id in TRACED:
            name, shape = TRACED[self._id]
            shown = "" if shape is None else f"shape={shape}, "
            return f'Tensor("{name}", {shown}dtype={self.dtype.name})'
        text = value_text(self._value, is_repr=False)
        return f"tf.Tensor({text}, shape={self.shape}, dtype={self.dtype.name})"

    def __format__(self, spec: str) -> str:
        # TensorFlow formats the NumPy value: "{}" gives NumPy's str, and a
        # scalar takes any number format (f"{loss:.3f}"); an array takes none.
        try:
            return self._value.__format__(spec)
        except TypeError as err:
            raise TypeError(
                f"{err}: a tensor of shape {self.shape} holds no single number to "
                f'format with {spec!r}. Format a scalar, e.g. f"{{t[0]:{spec}}}", or '
                "the elements: np.array2string(t.numpy(), precision=3)."
            ) from None

    def __reduce__(self) -> tuple:
        return Tensor, (self._value,)

    def __copy__(self) -> Tensor:
        return self

    def __deepcopy__(self, memo: dict) -> Tensor:
        return self


class EagerTensor(Tensor):
    """The class of every tensor, under TensorFlow's name for a tensor with a value.

    ``type(t).__name__`` is ``"EagerTensor"``, as TensorFlow's guides print it;
    test for a tensor with ``isinstance(t, tf.Tensor)``.
    """

    __slots__ = ()


def tensor_of(value: np.ndarray | np.generic) -> EagerTensor:
    """A new tensor holding ``value``, a NumPy array or scalar of a supported dtype.

    The engine's own constructor: what ``Tensor(value)`` does, without the
    detour through ``Tensor.__new__`` (the op hot path builds one per op).

    Example:
        >>> tensor_of(np.float32(2.0))
        <tf.Tensor: shape=(), dtype=float32, numpy=2.0>
    """
    t = _new(EagerTensor)
    t._value = value
    t._id = new_id()
    return t


def constant_of(value: np.ndarray | np.generic) -> EagerTensor:
    """:func:`tensor_of` for a value that shapes and constants alone decide
    (ones or zeros of a shape, an identity, a range, a shape).

    A ``tf.function`` trace keeps such a tensor as a constant of its plan; a
    tensor made outside the ops from anything else (NumPy on a tensor's
    values) makes the trace run eagerly instead, as it cannot be replayed.

    Example:
        >>> constant_of(np.ones(2, np.float32))
        <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 1.], dtype=float32)>
    """
    t = tensor_of(value)
    if state.observers:
        for observer in state.observers:
            hear = getattr(observer, "on_constant", None)
            if hear is not None:
                hear(t)
    return t


def _no_slice_update(t: Tensor, method: str, sign: str) -> str:
    missing = f"'{type(t).__name__}' object has no attribute '{method}'."
    if hasattr(t, "_sliced_from"):
        return (
            f"{missing} A slice of a variable has only assign(), as in TensorFlow: "
            f"write v[1:].assign(v[1:] {sign} delta)."
        )
    return f"{missing} A tensor is immutable: use v.{method}(delta) on a tf.Variable."


def _ref(obj: Any) -> ValueRef:
    """What events say about a tensor or a variable (see recorder.describe)."""
    value = obj._value
    if isinstance(obj, Tensor):
        return ValueRef(obj._id, value.shape, value.dtype, value, None)
    # A variable, or what assign returned: the variable it reads.
    return ValueRef(obj._id, value.shape, value.dtype, value, obj._handle)


def _notify_escape(obj: Any, how: str, result: Any) -> None:
    # `result` is the object handed to the user, so a listener can recognise it
    # if it comes back into an op as a constant.
    event = EscapeEvent(_ref(obj), how, result)
    for observer in state.observers:
        observer.on_escape(event)


# Tensors a tf.function trace shows as TensorFlow shows its symbolic tensors
# (``Tensor("x:0", shape=(), dtype=int32)``) while the trace runs: id -> (name,
# shape text, or None for an unknown rank). Filled and emptied by engine/trace.py.
TRACED: dict[int, tuple[str, str | None]] = {}


def _notify_python_use(obj: Any, how: str) -> None:
    # Python used a tensor's value to decide what runs (``bool``, ``iter``,
    # ``index``): a listener that compiles what it hears (a tf.function trace)
    # cannot replay that decision.
    event = EscapeEvent(_ref(obj), how, None)
    for observer in state.observers:
        hear = getattr(observer, "on_python_use", None)
        if hear is not None:
            hear(event)


def _notify_fresh(tensor: Any, draw: Callable[[], Any]) -> None:
    # A tensor drawn at random: ``draw()`` draws a new value of its shape.
    for observer in state.observers:
        hear = getattr(observer, "on_fresh", None)
        if hear is not None:
            hear(tensor, draw)


def _notify_convert(value: Any, tensor: Tensor, how: str) -> None:
    # A Python or NumPy value became a tensor: implicitly, as an op input
    # ("input"), or explicitly through convert_to_tensor ("constant").
    event = ConvertEvent(value, how, _ref(tensor))
    for observer in state.observers:
        observer.on_convert(event)


def to_array(value: Any, dtype: Any = None, what: str = "value") -> np.ndarray:
    """``value`` as a NumPy array of ``dtype`` (default: TensorFlow's default).

    A tensor's or a variable's own array comes back as it is (no copy); a list
    that holds tensors is stacked by a recorded op.

    Raises:
        ValueError: if a tensor's dtype is not ``dtype``.
        TypeError: if a value cannot take ``dtype`` without loss.
    """
    if isinstance(value, _Operators):  # a Tensor or a Variable
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
    if contains_tensor(value):
        return to_array(pack_tensors(value), dtype, what)
    array = default_array(value)
    if dtype is None:
        return array
    dtype = dtypes.as_dtype(dtype)
    return cast_value(value, array, dtype, what)


def contains_tensor(value: Any) -> bool:
    """Whether a (nested) list or tuple holds a tensor or a variable."""
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, _Operators) or contains_tensor(v) for v in value)
    return False


def pack_tensors(value: Any) -> Any:
    """A nested list that holds tensors, stacked into one tensor by recorded ops."""
    if isinstance(value, (list, tuple)) and contains_tensor(value):
        return _Operators._stack([pack_tensors(v) for v in value])
    return value
