"""What a recorded node keeps: the values its VJPs read, and stubs for the rest.

``defop(saves=...)`` names, per input, the values that input's VJP reads;
:func:`reads_of` turns that into positions and :func:`drops_of` into the
positions a node may hold as :class:`Stub` (shape and dtype only) for each set
of inputs that need a gradient. :func:`slim` makes the stubs when a tape
records a node, for values of :data:`STUB_MIN_BYTES` or more.
"""

from __future__ import annotations

import inspect
import math
import weakref
from types import FunctionType as _FunctionType
from typing import Any

from .tensor import Tensor

__all__ = [
    "STUB_MIN_BYTES",
    "Stub",
    "drops_of",
    "positional_names",
    "reads_of",
    "slim",
]


def reads_of(name: str, vjp: Any, n_inputs: int | None, saves: Any,
           multi_output: bool) -> tuple[frozenset[int], ...] | None:  # fmt: skip
    """Turn ``saves`` into the positions each input's VJP reads (-1: the output)."""
    if saves is None or vjp is None or n_inputs is None or multi_output:
        return None
    per_input = isinstance(vjp, tuple)
    fn = next(f for f in vjp if f is not None) if per_input else vjp
    params, _ = positional_names(fn)
    names = params[3 : 3 + n_inputs]
    position = {n: i for i, n in enumerate(names)}
    position[params[2]] = -1  # the output, by the VJP's name for it ("out")

    def positions(read: Any, whose: str) -> frozenset[int]:
        if isinstance(read, str) or not all(isinstance(n, str) for n in read):
            raise ValueError(
                f"Op {name!r}: saves{whose} must be a tuple of names, got {read!r}; "
                "write a single name as ('x',)."
            )
        unknown = set(read) - set(position)
        if unknown:
            raise ValueError(
                f"Op {name!r}: saves{whose} names {sorted(unknown)}, which are not "
                f"the VJP's names for its output, {params[2]!r}, or its inputs, "
                f"{names}."
            )
        return frozenset([position[n] for n in read])

    if not isinstance(saves, dict):
        both = positions(saves, "")
        return tuple([both] * n_inputs)
    if not per_input:
        raise ValueError(
            f"Op {name!r}: saves per input needs one VJP per input (a tuple of "
            "functions); a single VJP computes every input's gradient, so give "
            "saves as one tuple of names."
        )
    differentiable = [n for n, f in zip(names, vjp) if f is not None]
    if set(saves) != set(differentiable):
        raise ValueError(
            f"Op {name!r}: saves maps {sorted(saves)}; it must map exactly the "
            f"inputs that have a VJP, {differentiable}."
        )
    return tuple(
        [positions(saves[n], f"[{n!r}]") if n in saves else frozenset() for n in names]
    )


def positional_names(fn: Any) -> tuple[list[str], bool]:
    """The names of ``fn``'s positional parameters, and whether it takes
    ``*args``.

    A plain function is read from its code object: ``inspect.signature``, its
    general form, would be a tenth of the package's import time, run for
    every op of the table.

    Example:
        >>> positional_names(lambda ns, g, out, x, *, axis: None)
        (['ns', 'g', 'out', 'x'], False)
    """
    if type(fn) is _FunctionType and not hasattr(fn, "__wrapped__"):
        code = fn.__code__
        names = list(code.co_varnames[: code.co_argcount])
        return names, bool(code.co_flags & inspect.CO_VARARGS)
    kinds = inspect.signature(fn).parameters.values()
    names = [
        p.name for p in kinds if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return names, any(p.kind == p.VAR_POSITIONAL for p in kinds)


def drops_of(reads: tuple[frozenset[int], ...] | None) -> tuple[tuple, tuple | None]:
    """The positions a node may stub: for every input needing a gradient, and,
    when the inputs' VJPs read different values, per mask of those that do."""
    if reads is None:
        return (), None
    every = frozenset(range(-1, len(reads)))
    union = frozenset().union(*reads)
    dropped = tuple(sorted(every - union))
    if all(r == reads[0] for r in reads):
        return dropped, None
    drops = []
    for mask in range(1 << len(reads)):
        needed = frozenset().union(*[r for i, r in enumerate(reads) if mask >> i & 1])
        drops.append(tuple(sorted(every - needed)))
    return dropped, tuple(drops)


# Values smaller than this stay in a recorded node even when its VJP does not
# read them: a stub would save less memory than it costs to make.
STUB_MIN_BYTES = 1024


class Stub:
    """A value a recorded node does not keep: its id, shape and dtype only.

    VJPs may read ``ns.shape(x)``, ``ns.dtype(x)`` and ``ns.ndim(x)`` of a value
    they declared no need for, in either namespace (a stub has ``shape``,
    ``dtype``, ``ndim`` and ``size``, and is its own ``_value``); any other use
    raises a RuntimeError that says why the value is missing, so a wrong
    ``saves`` declaration cannot give a silently wrong gradient. A stub refers
    weakly to the tensor it stands for: a tape that watches an input late puts
    the values that input's gradient needs back, while they are alive.
    """

    __slots__ = ("_id", "dtype", "shape", "source", "op", "reason")

    def __init__(self, t: Tensor, op: Any = None) -> None:  # op: the Op, or None
        # (slim builds stubs without this call: it is on the recording path)
        value = t._value
        self._id = t._id
        self.shape = value.shape
        self.dtype = value.dtype
        self.source = _weakref(t)
        self.op = op

    @property
    def _value(self) -> Stub:
        return self

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return _prod(self.shape)

    def tensor(self) -> Tensor | None:
        """The tensor this stub stands for, if it is still alive."""
        return self.source()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        what = f"the gradient of {self.op.name}" if self.op else "a gradient"
        raise RuntimeError(
            getattr(self, "reason", None)
            or f"{what} read a value of shape {self.shape} that its node does not "
            "keep: the op's `saves` declaration in defop leaves it out. Add the "
            "value's name to `saves` (for the inputs whose VJP reads it)."
        )

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __matmul__ = _refuse
    __rmatmul__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __float__ = __int__ = __bool__ = __iter__ = __len__ = _refuse

    def __repr__(self) -> str:
        return f"<Stub id={self._id} shape={self.shape} dtype={self.dtype}>"


def slim(op: Any, inputs: tuple, outputs: tuple, dropped: tuple) -> tuple[tuple, tuple]:
    """What a node of ``op`` keeps: stubs for the large values at the positions
    ``dropped`` (-1: the output), which the VJPs it will run never read."""
    minimum = STUB_MIN_BYTES
    inputs, outputs = list(inputs), list(outputs)
    for i in dropped:
        values, j = (outputs, 0) if i < 0 else (inputs, i)
        t = values[j]
        value = t._value
        if value.nbytes >= minimum:
            stub = _new_object(Stub)  # Stub(t, op), without the call
            stub._id = t._id
            stub.shape = value.shape
            stub.dtype = value.dtype
            stub.source = _weakref(t)
            stub.op = op
            values[j] = stub
    return tuple(inputs), tuple(outputs)


_new_object = object.__new__
_weakref = weakref.ref
_prod = math.prod
