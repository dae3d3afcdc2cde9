"""The op library: every primitive declared once, forward beside VJP.

Modules group ops by kind; importing this package registers all of them in
:data:`tapemagic.engine.op.OP_TABLE` and connects Python operators to them.
"""

from .. import tensor as _tensor
from . import creation, linalg, math, nn, reduce, shape

_tensor.install_op_library(math, linalg, shape)

__all__ = ["creation", "linalg", "math", "nn", "reduce", "shape"]
