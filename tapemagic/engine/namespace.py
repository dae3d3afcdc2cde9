"""The two namespaces a VJP runs in: engine tensors, or plain NumPy arrays.

Every VJP takes a namespace first, ``vjp(ns, g, out, *inputs, **params)``, and
writes its rule with the names in it, so one rule serves two sweeps (autograd's
one ``defvjp`` per primitive):

- :data:`TENSORS`: ``ns.multiply``, ``ns.reduce_sum``, ... are the engine's op
  functions, so a VJP run under a recording tape is itself recorded (higher
  derivatives);
- :data:`ARRAYS`: the same names are each op's NumPy forward, so a gradient that
  nothing records costs NumPy calls and no engine op.

``defop`` adds every primitive to both under its table name, with the forward's
signature (inputs positional, the op's static parameters as keywords). Beside the
ops each namespace has a few helpers, the same names on both: ``of`` (a
recorded tensor, or its stub, as a value of the namespace: the backward sweep
hands a node's inputs to its VJP through it), ``shape``,
``dtype`` and ``ndim`` of a value (a shape-only stub too), ``value`` (the NumPy
array of a non-differentiable input, such as indices), ``constant`` (a NumPy
array as a value of the namespace), ``nb`` (the number of batch axes of ``g``)
and ``unbroadcast`` (a gradient summed down to its input's shape). Python
operators (``g * y``, ``-g``, ``1 - out``) work on both kinds of value as they
are. Numbers in a rule are Python numbers: NumPy
keeps a float32 array float32 against a Python float, but widens it against a
NumPy float64 scalar, which an engine op would convert instead.

Two exceptions, each bound by the module that declares the op: ``TENSORS.where``
is the TensorFlow wrapper, which converts ``x`` and ``y`` together (so
``ns.where(c, g, 0)`` keeps g's dtype), and a helper that needs its own code on
each kind of value is added with :func:`register_helper` (``minus_one_hot``,
an in-place update on arrays; ``xent_softmax``, on arrays the softmax from the
exponentials the sparse cross entropy's forward computed).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np

from .tensor import Tensor

__all__ = ["ARRAYS", "TENSORS", "Namespace", "register", "register_helper"]


class Namespace:
    """The functions a VJP may call, on one kind of value (see the module doc)."""

    kind = ""

    def __repr__(self) -> str:
        return f"<Namespace {self.kind}>"

    def unbroadcast(self, g: Any, x: Any, out: Any) -> Any:
        """Sum ``g``, a gradient for ``out``, down to the shape of the input ``x``.

        Undoes NumPy broadcasting of ``x`` into ``out``: axes that broadcasting
        prepended are summed away, axes it stretched from 1 are summed with
        keepdims. The axes ``g`` has beyond ``out``'s rank are batch axes and
        are kept. ``x`` may be a shape-only stub.
        """
        gshape = self.shape(g)
        shape = self.shape(x)
        nbatch = len(gshape) - self.ndim(out)
        if gshape[nbatch:] == shape:
            return g
        lead = len(gshape) - nbatch - len(shape)
        prepended = tuple(range(nbatch, nbatch + lead))
        stretched = tuple(
            nbatch + lead + i
            for i, d in enumerate(shape)
            if d == 1 and gshape[nbatch + lead + i] != 1
        )
        if not stretched:  # only prepended axes (a bias): one sum gives the shape
            return self.reduce_sum(g, axes=prepended, keepdims=False)
        summed = self.reduce_sum(g, axes=prepended + stretched, keepdims=True)
        if not prepended:  # the stretched axes kept with size 1: the shape already
            return summed
        return self.reshape(summed, shape=gshape[:nbatch] + tuple(shape))


# The accessors are attrgetters, called from C: VJPs on small arrays call them
# often enough for a Python-level function to show in a gradient's time.
class _Tensors(Namespace):
    kind = "tensors"

    @staticmethod
    def of(t: Any) -> Any:
        return t

    shape = attrgetter("_value.shape")
    dtype = attrgetter("_value.dtype")
    ndim = attrgetter("_value.ndim")
    value = attrgetter("_value")
    constant = Tensor

    @staticmethod
    def nb(g: Any, out: Any) -> int:
        return g._value.ndim - out._value.ndim


class _Arrays(Namespace):
    kind = "arrays"
    of = attrgetter("_value")
    shape = attrgetter("shape")
    dtype = attrgetter("dtype")
    ndim = attrgetter("ndim")

    @staticmethod
    def value(x: Any) -> Any:
        return x

    @staticmethod
    def constant(array: Any) -> Any:
        return array

    @staticmethod
    def nb(g: Any, out: Any) -> int:
        return g.ndim - out.ndim


TENSORS: Namespace = _Tensors()
ARRAYS: Namespace = _Arrays()


def _unbroadcast_arrays(g: Any, x: Any, out: Any) -> Any:
    # The common cases in plain attribute reads and no bound method (the array
    # sweep runs this for each input of every binary op): nothing to sum, or,
    # without batch axes, only prepended axes (a bias), summed as reduce_sum.
    gshape, shape = g.shape, x.shape
    if gshape == shape or gshape[g.ndim - out.ndim :] == shape:
        return g
    lead = g.ndim - len(shape)
    if g.ndim == out.ndim and gshape[lead:] == shape:
        return _add_reduce(g, axis=tuple(range(lead)), keepdims=False, dtype=g.dtype)
    return Namespace.unbroadcast(ARRAYS, g, x, out)


_add_reduce = np.add.reduce
ARRAYS.unbroadcast = _unbroadcast_arrays


def register(name: str, function: Any, forward: Any) -> None:
    """Make an op callable in both namespaces: its function, and its forward.

    An op named like a helper (the ``shape`` op, ``tf.shape``) leaves the
    helper in place: VJPs read a value's shape with ``ns.shape``, and an op
    without a gradient is never called from a VJP.
    """
    if hasattr(Namespace, name) or hasattr(type(TENSORS), name):
        return
    setattr(TENSORS, name, function)
    setattr(ARRAYS, name, forward)


def register_helper(name: str, on_tensors: Any, on_arrays: Any) -> None:
    """Add a helper that needs its own code on each kind of value (rarely: an
    in-place NumPy update that an engine op cannot make)."""
    setattr(TENSORS, name, on_tensors)
    setattr(ARRAYS, name, on_arrays)
