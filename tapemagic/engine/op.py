"""The op table and ``defop``: one declaration per primitive, forward beside VJP.

``defop`` registers an :class:`Op` under its TensorFlow name and returns the public
function that converts inputs, runs the NumPy forward, and records one node on
every recording tape that watches an input. That is the engine's hot path: with
no tape recording it is a conversion, one NumPy call and one object allocation.

VJP convention (see DESIGN.md): ``vjp(ns, g, out, *inputs, **params)`` returns one
gradient per positional input (``None`` where there is none). ``ns`` is the
namespace the rule runs in (engine/namespace.py): the same rule runs on tensors
(``ns.multiply`` is the engine op, so an outer tape records it and nested tapes
give higher derivatives) and on NumPy arrays (``ns.multiply`` is the op's
forward: a gradient that nothing records costs NumPy calls only). ``g`` may
carry leading batch axes, so rules count axes from the end. Where the inputs'
gradients are independent, ``vjp`` may instead be a tuple of per-input
functions, each returning one gradient; backprop then computes only the ones it
needs (a matmul whose left operand is data never computes that operand's
gradient). The gradient checker runs every op in both namespaces and requires
identical results (tests/engine/ops/gradcheck.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .accepts import Accepts
from .context import new_id, state
from .eager_tensor import EagerTensor, tensor_of
from .errors import InvalidArgumentError
from .events import OpEvent, OpInfo
from .exports import Exports
from .namespace import ARRAYS, register
from .saves import drops_of, positional_names, reads_of
from .tensor import Tensor, convert_inputs, convert_to_tensor
from .variable import ResourceVariable

__all__ = [
    "OP_TABLE",
    "Op",
    "apply",
    "defop",
    "op_function",
]


class Op:
    """One primitive: its name, NumPy forward and VJP.

    Attributes:
        name: TensorFlow's spelling; the table key, graph label and ``tf`` name.
        forward: ``forward(*arrays, **params)`` returning an array, or a tuple of
            arrays when ``multi_output``.
        vjp: ``vjp(ns, g, out, *inputs, **params)`` returning a tuple of
            per-input gradients, a tuple of per-input functions, or ``None`` for a
            non-differentiable op (tapes do not record it, so gradients through it
            are ``None``, as in TensorFlow).
        add_gradients: ``add_gradients(ns, g, out, inputs, params, reach,
            grads)`` runs the VJP of one recorded node in the namespace ``ns``
            (as :meth:`gradients` does) and adds each input's gradient to what
            ``grads``, keyed by tensor id, holds for it: the backward sweep's
            one call per node, chosen for the op's arity when it is made.
        n_inputs: how many positional tensor inputs the op takes (None: any).
        multi_output: whether forward returns several arrays.
        batched: whether the VJP accepts cotangents with leading batch axes.
        on_arrays: whether the VJP may run in the array namespace; False for
            custom gradients (multi-output ops whose VJP is a user function
            written for tensors), which a sweep on arrays runs on wrapped arrays
            instead.
        reads: per input, the positions of the values its VJP reads (the
            inputs' positions, -1 for the output), or None: every value.
        dropped: the positions a node may hold as stubs whichever inputs need
            a gradient; ``drops[mask]``, when the op declares its reads per
            input, the positions it may hold as stubs when the inputs in
            ``mask`` (bit ``i`` for input ``i``) need one (see ``saves`` in
            :func:`defop`).
        accepts: the dtypes the op accepts (see engine/accepts.py), or None:
            any dtype its forward computes.
        singular: where the op can give inf or NaN at finite inputs:
            ``"derivative"`` (its derivative is infinite or undefined somewhere:
            log, sqrt, division), ``"value"`` (its value overflows: exp, cosh),
            or None. The explanation log checks such ops' outputs for
            finiteness, and the diagnosis traces a NaN gradient to them.
        integer_gradient: the op's integer output is recorded and passes a
            gradient back (see :func:`defop`).
    """

    __slots__ = (
        "name",
        "forward",
        "vjp",
        "add_gradients",
        "on_arrays",
        "per_input",
        "n_inputs",
        "multi_output",
        "batched",
        "same_dtype",
        "reads",
        "dropped",
        "drops",
        "singular",
        "integer_gradient",
        "accepts",
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
        reads: tuple[frozenset[int], ...] | None = None,
        on_arrays: bool = True,
        singular: str | None = None,
        integer_gradient: bool = False,
        accepts: Accepts | None = None,
    ) -> None:
        if singular not in (None, "derivative", "value"):
            raise ValueError(
                f"Op {name!r}: singular={singular!r}; use 'derivative', 'value' "
                "or None."
            )
        self.name = name
        self.singular = singular
        self.integer_gradient = integer_gradient
        self.accepts = accepts
        self.forward = forward
        self.vjp = vjp
        self.on_arrays = on_arrays
        self.per_input = isinstance(vjp, tuple)
        self.n_inputs = n_inputs
        self.add_gradients = None if vjp is None else _adder(vjp, n_inputs)
        self.multi_output = multi_output
        self.batched = batched
        self.same_dtype = same_dtype
        # What a recorded node keeps (see `saves` in defop): the values read by
        # the VJPs of the inputs that need a gradient; the others may become
        # shape-only stubs. Positions: the inputs', -1 for the one output.
        self.reads = reads
        self.dropped, self.drops = drops_of(reads)

    @property
    def differentiable(self) -> bool:
        return self.vjp is not None

    def gradients(self, ns: Any, g: Any, out: Any, inputs: tuple, params: dict,
                  reach: set[int]) -> tuple:  # fmt: skip
        """Run the VJP of one recorded node in the namespace ``ns``.

        Args:
            ns: :data:`~tapemagic.engine.namespace.ARRAYS` or ``TENSORS``.
            g, out: the output's cotangent and value, as values of ``ns``
                (tuples of them for a multi-output op).
            inputs: the node's tensors (or stubs); the VJP gets ``ns.of`` of each.
            params: the node's static parameters.
            reach: ids of the tensors that lead to a source. An op with one VJP
                per input runs only those of inputs in ``reach``.

        Returns:
            One gradient per input, None where there is none or none was asked.

        Example:
            >>> from .namespace import ARRAYS
            >>> x = tensor_of(np.float32(3.0))
            >>> OP_TABLE["square"].gradients(ARRAYS, np.float32(1.0), None, (x,), {},
            ...                              {x._id})
            (np.float32(6.0),)
        """
        return _gradients(self.vjp, ns, g, out, inputs, params, reach)

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


OP_TABLE: dict[str, Op] = {}


# -- running a node's VJP ---------------------------------------------------------
# The sweep (backprop.py) makes one call per node: the op's `add_gradients`,
# made below for its arity. One input, and two inputs with a VJP each, are most
# nodes; for them the call builds no list and no iterator, reads the inputs'
# arrays as attributes (not through `ARRAYS.of`, a call), and spells out the
# parameters only when there are any (unpacking an empty mapping costs more
# than many VJPs on small arrays). The closures hold the VJP, never the op: an
# op made for one call (a custom gradient) is freed without the cycle collector.


def _gradients(vjp: Any, ns: Any, g: Any, out: Any, inputs: tuple, params: dict,
               reach: set[int]) -> tuple:  # fmt: skip
    """:meth:`Op.gradients`, of any arity."""
    of = ns.of
    values = [of(t) for t in inputs]
    if not isinstance(vjp, tuple):
        return vjp(ns, g, out, *values, **params)
    return tuple(
        [
            fn(ns, g, out, *values, **params)
            if fn is not None and t._id in reach
            else None
            for fn, t in zip(vjp, inputs)
        ]
    )


def _adder(vjp: Any, n_inputs: int | None) -> Callable[..., None]:
    """The ``add_gradients`` of an op with this VJP and arity (see :class:`Op`)."""
    if n_inputs == 1 and not isinstance(vjp, tuple):

        def add_one(ns, g, out, inputs, params, reach, grads) -> None:
            # (the node is on the sweep, so its one input leads to a source)
            t = inputs[0]
            x = t._value if ns is ARRAYS else t
            if params:
                (gt,) = vjp(ns, g, out, x, **params)
            else:
                (gt,) = vjp(ns, g, out, x)
            if gt is not None:
                key = t._id
                previous = grads.get(key)
                grads[key] = gt if previous is None else previous + gt

        return add_one
    if n_inputs == 2 and isinstance(vjp, tuple):  # add, multiply, matmul
        fa, fb = vjp

        def add_two(ns, g, out, inputs, params, reach, grads) -> None:
            a, b = inputs
            x, y = (a._value, b._value) if ns is ARRAYS else inputs
            ka, kb = a._id, b._id
            ga = gb = None
            if fa is not None and ka in reach:
                ga = fa(ns, g, out, x, y, **params) if params else fa(ns, g, out, x, y)
            if fb is not None and kb in reach:
                gb = fb(ns, g, out, x, y, **params) if params else fb(ns, g, out, x, y)
            # (both computed before either is added: a VJP that raises leaves
            # the cotangents as they were, for the sweep's fallback)
            if ga is not None:
                previous = grads.get(ka)
                grads[ka] = ga if previous is None else previous + ga
            if gb is not None:
                previous = grads.get(kb)
                grads[kb] = gb if previous is None else previous + gb

        return add_two

    def add_any(ns, g, out, inputs, params, reach, grads) -> None:
        gs = _gradients(vjp, ns, g, out, inputs, params, reach)
        for t, gt in zip(inputs, gs):
            if gt is not None:
                key = t._id
                if key in reach:  # (a whole VJP gives every input's gradient)
                    previous = grads.get(key)
                    grads[key] = gt if previous is None else previous + gt

    return add_any


def _positional_arity(fn: Callable) -> int | None:
    """Number of positional parameters, or None if it takes *args."""
    if isinstance(fn, np.ufunc):
        return fn.nin
    names, varargs = positional_names(fn)
    return None if varargs else len(names)


def defop(
    name: str,
    forward: Callable,
    vjp: Callable | tuple | None = None,
    *,
    n_inputs: int | None = None,
    multi_output: bool = False,
    batched: bool = True,
    same_dtype: bool = True,
    saves: tuple[str, ...] | dict[str, tuple[str, ...]] | None = None,
    singular: str | None = None,
    integer_gradient: bool = False,
    accepts: Accepts | None = None,
    tf: tuple[str, ...] = (),
    numpy: tuple[str, ...] = (),
    kernels: tuple[str, ...] = (),
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
        saves: which values the VJP reads, by the names of its signature
            (``"out"`` or an input's name): a tuple of names for the whole VJP,
            or, for per-input VJPs, a mapping from each differentiable input's
            name to the names its own VJP reads (``{"x": ("y",), "y": ("x",)}``
            for a product). A recorded node keeps the values read by the VJPs
            of the inputs that need a gradient on its tape and holds the others
            as shape-and-dtype stubs, so a tape frees what its gradients will
            not need (TensorFlow's OpGradientDoesntRequireInputIndices, per
            input as autograd's tracing decides it). None keeps everything.
        singular: ``"derivative"`` if the op's derivative is infinite or
            undefined at some finite inputs, ``"value"`` if only its value can
            overflow there, else None (see :class:`Op`).
        integer_gradient: the op's integer output passes a gradient back to its
            floating input, so a tape records it (TensorFlow's top_k, whose
            indices give zeros); otherwise an integer result carries none.
        accepts: the dtypes the op accepts, as TensorFlow lists them
            (engine/accepts.py), checked on every call: any other dtype
            raises TensorFlow's error. None accepts every dtype.
        tf: where the function lives in the ``tf`` namespace (``("tf",
            "tf.math")``; see engine/exports.py); the calling module must bind
            it to ``name``. Empty where a wrapper is the public function.
        numpy: the NumPy functions it is the twin of (same arguments, same
            values), for the fixes that rewrite a NumPy call.
        kernels: TensorFlow's op types that compute it, where they are not
            ``name`` in CamelCase (``("AddV2",)``), for the TensorFlow recorder.

    Returns:
        ``fn(*inputs, **params)`` returning a Tensor (a tuple for multi-output ops).
        The op is also added to both VJP namespaces under ``name``: the function
        in :data:`~tapemagic.engine.namespace.TENSORS`, the forward in
        :data:`~tapemagic.engine.namespace.ARRAYS`.

    Raises:
        ValueError: at import time, if ``name`` is taken or the VJP's arity does not
            match the forward's.

    Example:
        >>> double = defop("_doctest_double", lambda x: 2 * x,
        ...                lambda ns, g, out, x: (ns.multiply(g, 2),))
        >>> double(3.0).numpy()
        np.float32(6.0)
        >>> from .namespace import ARRAYS
        >>> ARRAYS._doctest_double(np.arange(3.0))
        array([0., 2., 4.])
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
            if arity is not None and arity != n_inputs + 3:
                raise ValueError(
                    f"Op {name!r}: the VJP takes {arity} positional arguments; it must "
                    f"take (ns, g, out, *inputs), i.e. {n_inputs + 3}."
                )
    reads = reads_of(name, vjp, n_inputs, saves, multi_output)
    if accepts is not None and accepts.op is None:
        accepts = accepts.for_op(_tf_op_name(name))
    op = Op(
        name,
        forward,
        vjp,
        n_inputs=n_inputs,
        multi_output=multi_output,
        batched=batched,
        same_dtype=same_dtype,
        reads=reads,
        singular=singular,
        integer_gradient=integer_gradient,
        accepts=accepts,
    )
    OP_TABLE[name] = op

    fn = _function(op)
    fn.__name__ = fn.__qualname__ = name.rsplit(".", 1)[-1]
    fn.__doc__ = forward.__doc__
    fn.op = op  # type: ignore[attr-defined]
    register(name, fn, forward)
    if tf or numpy or kernels:  # a mark only: engine/exports.py reads it
        module = sys._getframe(1).f_globals["__name__"]
        fn.tf_exports = Exports(module, name, tf, numpy, kernels)  # type: ignore[attr-defined]
    return fn


def _function(op: Op, refused: Callable | None = None) -> Callable[..., Any]:
    """The public function of ``op``: conversion, the dtype check, the forward,
    recording. ``refused(x, y)``, for a binary op, answers instead of the
    error for a dtype the op does not accept (see :func:`op_function`)."""
    forward_ = op.forward  # the closures below read locals, not the op's slots
    n_inputs, same_dtype, multi_output = op.n_inputs, op.same_dtype, op.multi_output
    accepts = op.accepts
    # the dtypes that run, as a local: one frozenset membership test per call
    accepted = None if accepts is None else accepts.numpy

    # Whether a tape records the op (see _announce, inlined below for one tape
    # and no listener: one Python call less on every op a tape records).
    recorded = op.vjp is not None

    if same_dtype and n_inputs == 1 and not multi_output:

        def fn(x: Any, name: str | None = None, **params: Any) -> Any:
            # `apply`, inlined: the hot path is one NumPy call and one Tensor.
            if type(x) is not EagerTensor:
                (x,) = _convert(accepts, (x,))
            if accepted is not None and x._value.dtype not in accepted:
                raise accepts.error(x._value.dtype)
            try:
                # (unpacking an empty mapping costs more than the check)
                value = forward_(x._value, **params) if params else forward_(x._value)
            except (ValueError, IndexError, TypeError) as err:
                raise _op_error(op, (x,), err) from None
            result = _new_tensor(EagerTensor)  # tensor_of(value), inlined
            result._value = value
            result._id = new_id()
            tapes = state.tapes
            if tapes and recorded and len(tapes) == 1 and not state.observers:
                tapes[0]._record(op, (x,), (result,), params)
            elif tapes or state.observers:
                _announce(op, (x,), (result,), params)
            return result

    elif same_dtype and n_inputs == 2 and not multi_output:

        def fn(x: Any, y: Any, name: str | None = None, **params: Any) -> Any:
            # Two tensors of one dtype need no conversion at all; a tensor
            # and a variable (h + b) only the variable's read.
            if not (
                type(x) is EagerTensor
                and type(y) is EagerTensor
                and x._value.dtype == y._value.dtype
            ):
                if type(x) is EagerTensor and type(y) is ResourceVariable:
                    y = y._read()
                    if x._value.dtype != y._value.dtype:
                        x, y = convert_inputs((x, y))  # raises the mismatch
                else:
                    x, y = _convert(accepts, (x, y))
            if accepted is not None and x._value.dtype not in accepted:
                if refused is not None:
                    return refused(x, y)
                raise accepts.error(x._value.dtype)
            try:
                if params:
                    value = forward_(x._value, y._value, **params)
                else:
                    value = forward_(x._value, y._value)
            except (ValueError, IndexError, TypeError) as err:
                raise _op_error(op, (x, y), err) from None
            result = _new_tensor(EagerTensor)
            result._value = value
            result._id = new_id()
            tapes = state.tapes
            if tapes and recorded and len(tapes) == 1 and not state.observers:
                tapes[0]._record(op, (x, y), (result,), params)
            elif tapes or state.observers:
                _announce(op, (x, y), (result,), params)
            return result

    elif same_dtype:

        def fn(*args: Any, name: str | None = None, **params: Any) -> Any:
            return apply(op, _convert(accepts, args), params)

    else:

        def fn(*args: Any, name: str | None = None, **params: Any) -> Any:
            return apply(op, tuple(convert_inputs((a,))[0] for a in args), params)

    return fn


def op_function(op: Op, refused: Callable[[Tensor, Tensor], Any]) -> Callable:
    """Another public function of the binary ``op`` (``defop``'s, as fast),
    calling ``refused(x, y)`` where the op refuses the inputs' dtype: Python's
    ``*`` on bools is their logical and, where ``tf.multiply`` refuses them.
    """
    if not (op.same_dtype and op.n_inputs == 2 and not op.multi_output):
        raise ValueError(
            f"op_function: {op.name} is not a binary op of one dtype; only those "
            "can answer a refusal their own way."
        )
    fn = _function(op, refused)
    fn.__name__ = fn.__qualname__ = op.name.rsplit(".", 1)[-1]
    fn.op = op  # type: ignore[attr-defined]
    return fn


def _tf_op_name(name: str) -> str:
    """TensorFlow's op type for an op named in snake case: ``is_nan`` -> ``IsNan``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _convert(accepts: Accepts | None, args: tuple) -> tuple[Tensor, ...]:
    """Convert an op's inputs; those of an op of one fixed dtype (bool) as
    TensorFlow's eager path does: a NumPy value is cast to it, a Python value
    converted to it (``logical_and([1, 2], b)``: TypeError), and then, beside
    a Python value, a tensor of another dtype cannot be (ValueError); without
    one, the op refuses that tensor (InvalidArgumentError)."""
    if accepts is None or accepts.attr is not None or all(map(_is_tensor, args)):
        return convert_inputs(args)
    (dtype,) = accepts.numpy
    python = False
    values = []
    for a in args:
        if isinstance(a, (np.ndarray, np.generic)):
            a = convert_to_tensor(np.asarray(a).astype(dtype))
        elif not _is_tensor(a):
            a = convert_to_tensor(a, dtype=dtype)
            python = True
        values.append(a)
    if python:
        values = [convert_to_tensor(a, dtype=dtype) for a in values]
    for a in values:
        if a.dtype._np != dtype:
            raise accepts.error(a.dtype._np)
    return convert_inputs(tuple(values))


def _is_tensor(value: Any) -> bool:
    return isinstance(value, (Tensor, ResourceVariable))


def apply(op: Op, inputs: tuple[Tensor, ...], params: dict, reads: tuple = ()) -> Any:
    """Run ``op`` on tensors and record it on every tape that watches an input.

    ``reads`` are tensors the op read as parameters (a shape, a mask, indices
    given as a tensor) already folded into ``params``: they carry no gradient
    and tapes do not record them, but listeners hear them as more inputs, with
    no gradient, so what set the op's result is in the explanation graph.
    """
    accepts = op.accepts
    if accepts is not None:
        t = inputs[accepts.input]
        if t._value.dtype not in accepts.numpy:
            raise accepts.error(t._value.dtype)
    try:
        n = len(inputs)
        if n == 1:
            value = op.forward(inputs[0]._value, **params)
        elif n == 2:
            value = op.forward(inputs[0]._value, inputs[1]._value, **params)
        else:
            value = op.forward(*[t._value for t in inputs], **params)
    except (ValueError, IndexError, TypeError) as err:
        raise _op_error(op, inputs, err) from None
    if op.multi_output:
        outputs = tuple(tensor_of(v) for v in value)
        result = outputs
    else:
        result = tensor_of(value)
        outputs = (result,)
    if state.tapes or state.observers:
        _announce(op, inputs, outputs, params, reads)
    return result


def _announce(
    op: Op, inputs: tuple, outputs: tuple, params: dict, reads: tuple = ()
) -> None:
    """Record an op that ran on every tape that watches one of its inputs, and
    tell the listeners (see recorder.py) which tapes did; ``reads`` (see
    :func:`apply`) reach the listeners only, as inputs without a gradient.

    A non-differentiable op is not recorded, but its floating outputs stay
    on the tapes that track an input, as TensorFlow's tape records the op
    (with a None gradient): a later op on them is recorded, and a gradient
    with respect to them is not None. TensorFlow's tape skips stop_gradient.
    """
    st = state
    tapes = st.tapes
    if not st.observers:
        if tapes and op.vjp is not None:
            for tape in tapes:
                tape._record(op, inputs, outputs, params)
        elif tapes and op.name != "stop_gradient":
            for tape in tapes:
                tape._track_outputs(inputs, outputs)
        return
    recorded = ()
    if tapes and op.vjp is None and op.name != "stop_gradient":
        for tape in tapes:
            tape._track_outputs(inputs, outputs)
    elif tapes and op.vjp is not None:
        if len(tapes) == 1:  # the common case: no list to build
            tape = tapes[0]
            if tape._record(op, inputs, outputs, params):
                recorded = (tape,)
        else:
            recorded = tuple(
                [tape for tape in tapes if tape._record(op, inputs, outputs, params)]
            )
    # The event, built inline: this runs for every op of a logged cell. Built
    # here, before any listener is called, so that their frame walks start at
    # the same depth for every op.
    info = _OP_INFO.get(op)
    if info is None:
        info = _op_info(op)
    if reads:
        # Read parameters follow the op's own inputs, marked as having no
        # gradient (the op's info is built for this call).
        first = len(inputs)
        inputs = inputs + reads
        blocked = info.no_gradient_inputs + tuple(range(first, len(inputs)))
        info = OpInfo(info.name, info.differentiable, info.singular, blocked)
    if len(inputs) == 1:
        (x,) = inputs
        input_ids, input_values = (x._id,), (x._value,)
    elif len(inputs) == 2:
        x, y = inputs
        input_ids, input_values = (x._id, y._id), (x._value, y._value)
    else:
        input_ids = tuple([t._id for t in inputs])
        input_values = tuple([t._value for t in inputs])
    if len(outputs) == 1:
        (out,) = outputs
        output_ids, output_values = (out._id,), (out._value,)
    else:
        output_ids = tuple([t._id for t in outputs])
        output_values = tuple([t._value for t in outputs])
    event = _new(
        OpEvent,
        (info, params, input_ids, output_ids, input_values, output_values, recorded),
    )
    for observer in st.observers:
        observer.on_op(event)


_new = tuple.__new__  # builds an event without the named tuple's Python __new__
_new_tensor = object.__new__

# Op -> its OpInfo, for the ops of the op table (custom-gradient ops are new
# objects on every call, so they are not kept); recorder.op_info is the public
# form of _op_info.
_OP_INFO: dict[Op, OpInfo] = {}


def _op_info(op: Op) -> OpInfo:
    """What an op is, for listeners: name, differentiable, singular, and the
    positions of inputs without a gradient (see recorder.OpInfo)."""
    info = _OP_INFO.get(op)
    if info is None:
        vjp = op.vjp
        blocked = (
            tuple([i for i, fn in enumerate(vjp) if fn is None]) if op.per_input else ()
        )
        info = OpInfo(op.name, vjp is not None, op.singular, blocked)
        if OP_TABLE.get(op.name) is op:
            _OP_INFO[op] = info
    return info


def _op_error(op: Op, inputs: tuple[Tensor, ...], err: Exception) -> Exception:
    shapes = ", ".join(f"{t._value.dtype}{list(t._value.shape)}" for t in inputs)
    message = f"{op.name}: {err} (inputs: {shapes})"
    if isinstance(err, TypeError):
        return TypeError(message)
    return InvalidArgumentError(message, op=op.name)
