"""The op library: every primitive declared once, forward beside VJP.

Modules group ops by kind and import each other only downwards, in this order:
``math`` (elementwise), ``indexing`` and ``shape`` (moving elements; ``shape``
re-exports ``indexing``), ``reduce``, ``creation``, ``decompositions`` and
``norms``, ``linalg`` (re-exporting those two under ``tf.linalg``'s names), then
the neural-network ops (``activations``, ``softmax``, ``conv``, ``pooling``, and
``nn``, which composes ops and re-exports the rest under ``tf.nn``'s names).
The ops composed of others sit apart from the primitives, one module per area:
``composed_math``, ``reductions``, ``composed_shape``, ``composed_creation`` and
``composed_linalg``; ``sorting`` holds ``argsort`` beside ``sort`` and ``top_k``.

VJPs import nothing: they call the ops they need through the namespace they
run in (engine/namespace.py). Importing this package registers every op in
:data:`tapemagic.engine.op.OP_TABLE` and binds Python's operators on tensors to
them (``operators``).
"""

from .. import eager_tensor as _eager_tensor
from .. import variable as _variable
from . import (
    activations,
    composed_creation,
    composed_linalg,
    composed_math,
    composed_shape,
    conv,
    creation,
    decompositions,
    indexing,
    linalg,
    math,
    nn,
    norms,
    operators,
    pooling,
    reduce,
    reductions,
    shape,
    softmax,
    sorting,
)

operators.bind_operators(_eager_tensor._Operators, _variable.Variable)

__all__ = [
    "activations",
    "composed_creation",
    "composed_linalg",
    "composed_math",
    "composed_shape",
    "conv",
    "creation",
    "decompositions",
    "indexing",
    "linalg",
    "math",
    "nn",
    "norms",
    "operators",
    "pooling",
    "reduce",
    "reductions",
    "shape",
    "softmax",
    "sorting",
]
