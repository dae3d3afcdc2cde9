# Generated from the op table by tapemagic/tf/_generate.py: do not edit.
# Say where an op lives beside it (defop's tf=, @tf_export) and run
# python -m tapemagic.tf._generate.
"""TensorFlow's API on tapemagic's engine: ``import tapemagic.tf as tf``.

Every name here is an alias of an engine function or class (or a thin adapter of
its arguments), spelled and placed as in TensorFlow 2: ``tf.reduce_sum`` and
``tf.math.reduce_sum``, ``tf.sigmoid`` and ``tf.nn.sigmoid``, but ``tf.math.log``
only, because TensorFlow 2 has no ``tf.log``. Submodules import on their own
(``import tapemagic.tf.math``, ``import tapemagic.tf.keras.layers``) and
``tf.keras`` is :mod:`tapemagic.keras`.

Importing this package needs NumPy alone: no IPython, ipywidgets or graphviz.
It loads what a first gradient needs (tensors, variables, tapes, the
arithmetic, reduction, shape and matrix ops); every other name loads with its
module on first use (``tf.keras``, ``tf.data``, ``tf.nn``, ``tf.constant``,
``tf.function``, ...), so a script that only takes gradients starts without
them.
"""

import importlib
from typing import TYPE_CHECKING, Any

from ..engine import (
    GradientTape,
    Tensor,
    TensorShape,
    UnconnectedGradients,
    Variable,
    convert_to_tensor,
    is_tensor,
)
from ..engine.dtypes import (
    DType,
    as_dtype,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from ..engine.ops.elementary import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    cos,
    cosh,
    exp,
    sigmoid,
    sin,
    sinh,
    tan,
    tanh,
)
from ..engine.ops.indexing import (
    gather,
    gather_nd,
)
from ..engine.ops.indexing import slice_ as slice
from ..engine.ops.linalg import (
    einsum,
    matmul,
)
from ..engine.ops.math import (
    abs,
    add,
    atan2,
    cast,
    clip_by_value,
    equal,
    floor,
    greater,
    greater_equal,
    identity,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    round,
    sign,
    sqrt,
    square,
    stop_gradient,
    subtract,
    truediv,
    where,
)
from ..engine.ops.math import truediv as divide
from ..engine.ops.norms import (
    clip_by_global_norm,
    clip_by_norm,
    norm,
)
from ..engine.ops.reduce import (
    argmax,
    argmin,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from ..engine.ops.scan import cumsum
from ..engine.ops.shape import (
    broadcast_to,
    concat,
    expand_dims,
    pad,
    rank,
    reshape,
    reverse,
    shape,
    size,
    split,
    squeeze,
    stack,
    tile,
    transpose,
    unstack,
)

if TYPE_CHECKING:  # loaded on first use (see the docstring and _NAMES)
    from ..engine import (
        Module,
        TensorSpec,
        custom_gradient,
        name_scope,
    )
    from ..engine.ops.composed_creation import linspace
    from ..engine.ops.composed_linalg import tensordot
    from ..engine.ops.composed_math import add_n
    from ..engine.ops.composed_shape import (
        boolean_mask,
        meshgrid,
        repeat,
    )
    from ..engine.ops.creation import (
        constant,
        eye,
        fill,
        one_hot,
        ones,
        ones_like,
        range,
        zeros,
        zeros_like,
    )
    from ..engine.ops.sorting import (
        argsort,
        sort,
    )
    from . import (
        config,
        data,
        debugging,
        dtypes,
        errors,
        keras,
        linalg,
        math,
        nest,
        nn,
        random,
    )
    from ._function import (
        executing_eagerly,
        function,
    )
    from ._print import print

# The TensorFlow release whose behaviour tapemagic reproduces.
__version__ = "2.21.0"

newaxis = None

__all__ = [
    "DType",
    "GradientTape",
    "Module",
    "Tensor",
    "TensorShape",
    "TensorSpec",
    "UnconnectedGradients",
    "Variable",
    "abs",
    "acos",
    "acosh",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "argsort",
    "as_dtype",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bool",
    "boolean_mask",
    "broadcast_to",
    "cast",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "complex64",
    "complex128",
    "concat",
    "config",
    "constant",
    "convert_to_tensor",
    "cos",
    "cosh",
    "cumsum",
    "custom_gradient",
    "data",
    "debugging",
    "divide",
    "double",
    "dtypes",
    "einsum",
    "equal",
    "errors",
    "executing_eagerly",
    "exp",
    "expand_dims",
    "eye",
    "fill",
    "float16",
    "float32",
    "float64",
    "floor",
    "function",
    "gather",
    "gather_nd",
    "greater",
    "greater_equal",
    "half",
    "identity",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_tensor",
    "keras",
    "less",
    "less_equal",
    "linalg",
    "linspace",
    "logical_and",
    "logical_not",
    "logical_or",
    "math",
    "matmul",
    "maximum",
    "meshgrid",
    "minimum",
    "multiply",
    "name_scope",
    "negative",
    "nest",
    "newaxis",
    "nn",
    "norm",
    "not_equal",
    "one_hot",
    "ones",
    "ones_like",
    "pad",
    "pow",
    "print",
    "random",
    "range",
    "rank",
    "reduce_all",
    "reduce_any",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "repeat",
    "reshape",
    "reverse",
    "round",
    "shape",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "size",
    "slice",
    "sort",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "stop_gradient",
    "subtract",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "transpose",
    "truediv",
    "uint8",
    "unstack",
    "where",
    "zeros",
    "zeros_like",
]

# What loads on first use: the submodules, and each other name with its
# module.
_SUBMODULES = {
    "config": ".config",
    "data": ".data",
    "debugging": ".debugging",
    "dtypes": ".dtypes",
    "errors": ".errors",
    "keras": ".keras",
    "linalg": ".linalg",
    "math": ".math",
    "nest": ".nest",
    "nn": ".nn",
    "random": ".random",
}
_NAMES = {
    "Module": "..engine",
    "TensorSpec": "..engine",
    "custom_gradient": "..engine",
    "name_scope": "..engine",
    "linspace": "..engine.ops.composed_creation",
    "tensordot": "..engine.ops.composed_linalg",
    "add_n": "..engine.ops.composed_math",
    "boolean_mask": "..engine.ops.composed_shape",
    "meshgrid": "..engine.ops.composed_shape",
    "repeat": "..engine.ops.composed_shape",
    "constant": "..engine.ops.creation",
    "eye": "..engine.ops.creation",
    "fill": "..engine.ops.creation",
    "one_hot": "..engine.ops.creation",
    "ones": "..engine.ops.creation",
    "ones_like": "..engine.ops.creation",
    "range": "..engine.ops.creation",
    "zeros": "..engine.ops.creation",
    "zeros_like": "..engine.ops.creation",
    "argsort": "..engine.ops.sorting",
    "sort": "..engine.ops.sorting",
    "executing_eagerly": "._function",
    "function": "._function",
    "print": "._print",
}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        value = importlib.import_module(_SUBMODULES[name], __name__)
    elif name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
