"""The op table and ``defop``: one declaration per primitive, forward beside VJP.

``defop`` registers an :class:`Op` under its TensorFlow name and returns the public
function that converts inputs, runs the NumPy forward, and records one node on
every recording tape that watches an input. That is the engine's hot path: with
no tape recording it is a conversion, one NumPy call and one object allocation.

VJP convention (see DESIGN.md): ``vjp(g, out, *inputs, **params)`` returns one
gradient per positional input (``None`` where there is none). ``g`` may carry
leading batch axes, so rules count axes from the end. Where the inputs' gradients
are independent, ``vjp`` may instead be a tuple of per-input functions, each
returning one gradient; backprop then computes only the ones it needs (a matmul
whose left operand is data never computes that operand's gradient). VJPs are
written with engine ops, so an outer tape records them: nested tapes give higher
derivatives with no extra code.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .context import state
from .errors import InvalidArgumentError
from .tensor import Tensor, convert_inputs

__all__ = ["OP_TABLE", "Op", "apply", "defop"]


class Op:
    """One primitive: its name, NumPy forward and VJP.

    Attributes:
        name: TensorFlow's spelling; the table key, graph label and ``tf`` name.
        forward: ``forward(*arrays, **params)`` returning an array, or a tuple of
            arrays when ``multi_output``.
        vjp: a function returning a tuple of per-input gradients, a tuple of
            per-input functions, or ``None`` for a non-differentiable op (tapes do
            not record it, so gradients through it are ``None``, as in TensorFlow).
        n_inputs: how many positional tensor inputs the op takes (None: any).
        multi_output: whether forward returns several arrays.
        batched: whether the VJP accepts cotangents with leading batch axes.
    """

    __slots__ = (
        "name",
        "forward",
        "vjp",
        "per_input",
        "n_inputs",
        "multi_output",
        "batched",
        "same_dtype",
        "doc",
    )

    def __init__(
        self,
        name: str,
        forward: Callable,
        vjp: Callable | tuple | None,
        *,
        n_inputs: int | None = None,
        multi_output: bool = False,
        batched: bool = True,
        same_dtype: bool = True,
    ) -> None:
        self.name = name
        self.forward = forward
        self.vjp = vjp
        self.per_input = isinstance(vjp, tuple)
        self.n_inputs = n_inputs
        self.multi_output = multi_output
        self.batched = batched
        self.same_dtype = same_dtype

    @property
    def differentiable(self) -> bool:
        return self.vjp is not None

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


OP_TABLE: dict[str, Op] = {}


def _positional_arity(fn: Callable) -> int | None:
    """Number of positional parameters, or None if it takes *args."""
    if isinstance(fn, np.ufunc):
        return fn.nin
    count = 0
    for p in inspect.signature(fn).parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            return None
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            count += 1
    return count


def defop(
    name: str,
    forward: Callable,
    vjp: Callable | tuple | None = None,
    *,
    n_inputs: int | None = None,
    multi_output: bool = False,
    batched: bool = True,
    same_dtype: bool = True,
) -> Callable[..., Any]:
    """Register a primitive and return its public function.

    Args:
        name: TensorFlow's name for the op; must be new to the table.
        forward: NumPy implementation, tensor inputs positional, params keyword-only.
        vjp: the vector-Jacobian product (see the module docstring), or None.
        n_inputs: tensor inputs; inferred from ``forward``'s signature if omitted.
        multi_output: ``forward`` returns a tuple of arrays.
        batched: the VJP handles leading batch axes on ``g``.
        same_dtype: convert all inputs to one dtype (TensorFlow's binary-op rule);
            if False each input is converted on its own.

    Returns:
        ``fn(*inputs, **params)`` returning a Tensor (a tuple for multi-output ops).

    Raises:
        ValueError: at import time, if ``name`` is taken or the VJP's arity does not
            match the forward's.

    Example:
        >>> double = defop("_doctest_double", lambda x: 2 * x,
        ...                lambda g, out, x: (2 * g,))
        >>> double(3.0).numpy()
        np.float32(6.0)
        >>> del OP_TABLE["_doctest_double"]
    """
    if name in OP_TABLE:
        raise ValueError(f"Op {name!r} is already registered; op names must be unique.")
    if n_inputs is None:
        n_inputs = _positional_arity(forward)
    if vjp is not None and n_inputs is not None:
        if isinstance(vjp, tuple):
            if len(vjp) != n_inputs:
                raise ValueError(
                    f"Op {name!r}: {len(vjp)} per-input VJPs for {n_inputs} inputs."
                )
        else:
            arity = _positional_arity(vjp)
            if arity is not None and arity != n_inputs + 2:
                raise ValueError(
                    f"Op {name!r}: the VJP takes {arity} positional arguments; it must "
                    f"take (g, out, *inputs), i.e. {n_inputs + 2}."
                )
    op = Op(
        name,
        forward,
        vjp,
        n_inputs=n_inputs,
        multi_output=multi_output,
        batched=batched,
        same_dtype=same_dtype,
    )
    OP_TABLE[name] = op

    if same_dtype and n_inputs == 1:

        def fn(x: Any, name: str | None = None, **params: Any) -> Any:
            inputs = (x,) if type(x) is Tensor else convert_inputs((x,))
            return apply(op, inputs, params)

    elif same_dtype and n_inputs == 2:

        def fn(x: Any, y: Any, name: str | None = None, **params: Any) -> Any:
            # Two tensors of one dtype: the hot path, with no conversion at all.
            if (
                type(x) is Tensor
                and type(y) is Tensor
                and x._value.dtype == y._value.dtype
            ):
                return apply(op, (x, y), params)
            return apply(op, convert_inputs((x, y)), params)

    elif same_dtype:

        def fn(*args: Any, name: str | None = None, **params: Any) -> Any:
            return apply(op, convert_inputs(args), params)

    else:

        def fn(*args: Any, name: str | None = None, **params: Any) -> Any:
            return apply(op, tuple(convert_inputs((a,))[0] for a in args), params)

    fn.__name__ = fn.__qualname__ = name.rsplit(".", 1)[-1]
    fn.__doc__ = forward.__doc__
    fn.op = op  # type: ignore[attr-defined]
    return fn


def apply(op: Op, inputs: tuple[Tensor, ...], params: dict) -> Any:
    """Run ``op`` on tensors and record it on every tape that watches an input."""
    try:
        if len(inputs) == 1:
            value = op.forward(inputs[0]._value, **params)
        else:
            value = op.forward(*[t._value for t in inputs], **params)
    except (ValueError, IndexError, TypeError) as err:
        raise _op_error(op, inputs, err) from None
    if op.multi_output:
        outputs = tuple(Tensor(v) for v in value)
        result = outputs
    else:
        result = Tensor(value)
        outputs = (result,)
    st = state
    if st.tapes and op.vjp is not None:
        for tape in st.tapes:
            tracked = tape._tracked
            for t in inputs:
                if t._id in tracked:
                    tape._record(op, inputs, outputs, params)
                    break
    if st.observers:
        for observer in st.observers:
            observer.on_op(op, inputs, outputs, params)
    return result


def _op_error(op: Op, inputs: tuple[Tensor, ...], err: Exception) -> Exception:
    shapes = ", ".join(f"{t._value.dtype}{list(t._value.shape)}" for t in inputs)
    message = f"{op.name}: {err} (inputs: {shapes})"
    if isinstance(err, TypeError):
        return TypeError(message)
    return InvalidArgumentError(message, op=op.name)
