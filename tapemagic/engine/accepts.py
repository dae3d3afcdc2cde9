"""The dtypes an op accepts, declared once per op as TensorFlow registers them.

An :class:`Accepts` holds TensorFlow's list of an op's allowed dtypes, spelled
as TensorFlow spells it in its error (``"bfloat16, half, float, double"``), and
the dtypes among them that have a CPU kernel. ``defop(..., accepts=...)``
checks the dtype of an op's input against it on every call (a frozenset
membership test) and raises what TensorFlow raises for any other dtype:

- a dtype outside the list: ``InvalidArgumentError`` "Value for attr 'T' of
  int32 is not in the list of allowed values: ..." (for an op of one fixed
  dtype, as ``LogicalAnd``: "... was expected to be a bool tensor but is a
  int32 tensor");
- a listed dtype without a CPU kernel (``Reciprocal`` of int32):
  ``NotFoundError`` "Could not find device for node: ...";
- where TensorFlow's Python wrapper refuses first (``x / y`` of bools): the
  exception class and message the declaration gives.

TensorFlow's message comes first, then what to do about it. Names in the list
that tapemagic has no dtype for (bfloat16, uint16, the quantized types) are
kept in the message and accept nothing here.

Example:
    >>> floats = Accepts("bfloat16, half, float, double", op="Floor")
    >>> print(floats.error(np.dtype("int32")))
    Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, \
float, double [Op:Floor]. Cast it first: tf.cast(x, tf.float32).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import InvalidArgumentError, NotFoundError

__all__ = [
    "ADD",
    "FLOATING",
    "NN_FLOATING",
    "NUMBER",
    "REAL_FLOATING",
    "RELU6",
    "SIGNED",
    "Accepts",
    "tf_name",
]

# TensorFlow's C names of tapemagic's dtypes (what its messages print)
_TF_NAMES = {
    np.dtype(np.float16): "half",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.int8): "int8",
    np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.bool_): "bool",
    np.dtype(np.complex64): "complex64",
    np.dtype(np.complex128): "complex128",
}
_BY_TF_NAME = {name: dtype for dtype, name in _TF_NAMES.items()}
_ENUM = {"half": "HALF", "float": "FLOAT", "double": "DOUBLE"}


def tf_name(dtype: np.dtype) -> str:
    """TensorFlow's name of a dtype in its kernels' messages: ``half``,
    ``float``, ``double``, ``int32``..."""
    return _TF_NAMES.get(dtype, dtype.name)


def _dtypes(names: str) -> frozenset[np.dtype]:
    return frozenset(
        [
            _BY_TF_NAME[n]
            for n in (s.strip() for s in names.split(","))
            if n in _BY_TF_NAME
        ]
    )


class Accepts:
    """The dtypes one op accepts (see the module docstring).

    Args:
        allowed: TensorFlow's list, as its message prints it; None: any dtype
            (TensorFlow's op takes every type; ``cpu`` says which run).
        op: TensorFlow's name of the op in messages (``"Sin"``); ``defop``
            fills it in from the op's name when it is left out.
        cpu: the listed dtypes with a CPU kernel, when not all of them; a
            listed dtype outside it raises ``NotFoundError``.
        attr: the attribute's name in the message (``"T"``; ``"TI"`` for
            one_hot's indices); None for an op of the one fixed dtype
            ``allowed``.
        also: dtypes accepted though not listed (an op composed of others
            that takes them by another route).
        error: the exception class, for a refusal by TensorFlow's Python
            wrapper, with ``message`` (``{dtype}``: the dtype's name).
        input: which positional input the declaration is about.
    """

    __slots__ = (
        "numpy",
        "listed",
        "allowed",
        "op",
        "attr",
        "error_class",
        "message",
        "input",
        "_spec",
    )

    def __init__(
        self,
        allowed: str | None,
        *,
        op: str | None = None,
        cpu: str | None = None,
        attr: str | None = "T",
        also: str = "",
        error: type[Exception] | None = None,
        message: str = "",
        input: int = 0,
    ) -> None:
        self._spec = dict(cpu=cpu, attr=attr, also=also, error=error, message=message,
                          input=input)  # fmt: skip
        self.allowed = allowed
        self.listed = frozenset(_TF_NAMES) if allowed is None else _dtypes(allowed)
        self.numpy = (self.listed if cpu is None else _dtypes(cpu)) | _dtypes(also)
        self.op = op
        self.attr = attr
        self.error_class = error
        self.message = message
        self.input = input

    def for_op(self, op: str) -> Accepts:
        """The same declaration for the op TensorFlow names ``op``."""
        return Accepts(self.allowed, op=op, **self._spec)

    def check(self, t: Any) -> None:
        """Raise what TensorFlow raises unless tensor ``t``'s dtype is accepted."""
        dtype = t._value.dtype
        if dtype not in self.numpy:
            raise self.error(dtype)

    def error(self, dtype: np.dtype) -> Exception:
        """The exception TensorFlow raises for an input of ``dtype``."""
        hint = self._hint()
        if self.error_class is not None:
            name = dtype.name
            return self.error_class(f"{self.message.replace('{dtype}', name)} {hint}")
        name = tf_name(dtype)
        if dtype in self.listed:
            enum = _ENUM.get(name, name.upper())
            return NotFoundError(
                f"Could not find device for node: {{{{node {self.op}}}}} = "
                f"{self.op}[T=DT_{enum}] [Op:{self.op}]. {self.op} has no CPU kernel "
                f"for {dtype.name}. {hint}",
                op=self.op,
            )
        if self.attr is None:
            return InvalidArgumentError(
                f"cannot compute {self.op} as input #{self.input}(zero-based) was "
                f"expected to be a {self.allowed} tensor but is a {name} tensor "
                f"[Op:{self.op}]. {hint}",
                op=self.op,
            )
        return InvalidArgumentError(
            f"Value for attr '{self.attr}' of {name} is not in the list of allowed "
            f"values: {self.allowed} [Op:{self.op}]. {hint}",
            op=self.op,
        )

    def _hint(self) -> str:
        x = "indices" if self.attr == "TI" else "x"
        for to in (np.float32, np.int32, np.bool_):
            if np.dtype(to) in self.numpy:
                if to is np.bool_:
                    return f"Compare first ({x} > 0) or cast: tf.cast({x}, tf.bool)."
                return f"Cast it first: tf.cast({x}, tf.{np.dtype(to).name})."
        return ""

    def __repr__(self) -> str:
        return f"Accepts({self.allowed!r}, op={self.op!r})"


# TensorFlow's lists shared by several ops (each op names its own otherwise)
FLOATING = Accepts("bfloat16, half, float, double, complex64, complex128")
REAL_FLOATING = Accepts("bfloat16, half, float, double")
NN_FLOATING = Accepts("half, bfloat16, float, double")
SIGNED = Accepts(
    "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128"
)
ADD = Accepts(
    "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, "
    "int64, complex64, complex128"
)
RELU6 = Accepts(
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
    "uint64"
)
NUMBER = Accepts(
    "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
    "qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64"
)
