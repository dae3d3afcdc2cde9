"""TensorFlow's op types under the names users write, and what each op is.

TensorFlow runs ``MatMul``, ``AddV2``, ``Sum``; a user writes ``tf.matmul``,
``+``, ``tf.reduce_sum``. The graph, the diagnosis and the views speak the
user's names (the names tapemagic's engine gives its ops), so the recorder
turns each op type into an :class:`~tapemagic.engine.events.OpInfo` under that
name, with the facts the diagnosis reads: whether the op has a gradient, where
its derivative or value blows up, which inputs never get a gradient. Op types
not in the table get their snake_case spelling (``BiasAdd`` -> ``bias_add``).

Pure data: no TensorFlow import. Whether an op has a gradient at all comes from
TensorFlow's gradient registry (:mod:`tapemagic.tf_recorder.recorder` asks it);
the table adds the ops whose registered gradient is None for every input.
"""

from __future__ import annotations

import re

from ..engine.events import OpInfo
from ._kernels import OP_NAMES

__all__ = [
    "NO_GRADIENT",
    "NAMES",
    "NO_GRADIENT_INPUTS",
    "SINGULAR",
    "STATIC_INPUTS",
    "function_name",
    "op_info",
    "user_name",
]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _snake(op_type: str) -> str:
    return _CAMEL.sub("_", op_type).lower()


# TensorFlow's op types the recorder knows by name. An engine op's name comes
# from its declaration (``kernels=`` beside the op, generated into _kernels.py);
# the others are their snake case, or below.
_KNOWN = frozenset(
    {
        "Abs",
        "Acos",
        "Acosh",
        "Add",
        "AddN",
        "Asin",
        "Asinh",
        "Atan",
        "Atan2",
        "Atanh",
        "BiasAdd",
        "BroadcastTo",
        "Cast",
        "Ceil",
        "Cholesky",
        "ClipByValue",
        "Cos",
        "Cosh",
        "Cumprod",
        "Cumsum",
        "Einsum",
        "Elu",
        "Equal",
        "Erf",
        "Exp",
        "ExpandDims",
        "Expm1",
        "Fill",
        "Floor",
        "GatherNd",
        "Greater",
        "GreaterEqual",
        "Identity",
        "IdentityN",
        "IsFinite",
        "IsInf",
        "IsNan",
        "LeakyRelu",
        "Less",
        "LessEqual",
        "Log",
        "Log1p",
        "LogSoftmax",
        "LogicalAnd",
        "LogicalNot",
        "LogicalOr",
        "Maximum",
        "Minimum",
        "NotEqual",
        "OneHot",
        "OnesLike",
        "Pad",
        "Pow",
        "Rank",
        "Reciprocal",
        "Relu",
        "Relu6",
        "Reshape",
        "Rint",
        "Round",
        "Rsqrt",
        "Selu",
        "Shape",
        "Sigmoid",
        "Sign",
        "Sin",
        "Sinh",
        "Size",
        "Slice",
        "Softmax",
        "SoftmaxCrossEntropyWithLogits",
        "Softplus",
        "SparseSoftmaxCrossEntropyWithLogits",
        "Split",
        "Sqrt",
        "Square",
        "SquaredDifference",
        "Squeeze",
        "StopGradient",
        "StridedSlice",
        "Tan",
        "Tanh",
        "TensorScatterAdd",
        "Tile",
        "Transpose",
        "Xdivy",
        "Xlogy",
        "ZerosLike",
    }  # fmt: skip
)
# Functions the engine composes of other ops, whose op type is not their name
# in snake case.
_COMPOSED = {
    "TopKV2": "top_k",
    "TruncateDiv": "truncatediv",
}

# TensorFlow op type -> the name users write (tf.<name>, or the operator's op).
NAMES: dict[str, str] = {
    op_type: OP_NAMES.get(op_type) or _COMPOSED.get(op_type) or _snake(op_type)
    for op_type in sorted(_KNOWN | OP_NAMES.keys() | _COMPOSED.keys())
}

# Ops whose registered gradient function returns None for every input: the
# registry has them, yet no gradient passes (math_grad.py: "return [None]").
NO_GRADIENT = frozenset(
    {
        "ArgMax",
        "ArgMin",
        "Ceil",
        "Floor",
        "FloorDiv",
        "LoopCond",
        "Rint",
        "Round",
        "TruncateDiv",
    }  # fmt: skip
)

# Where an op's derivative ("derivative") or its value ("value") is infinite
# or undefined at some finite input, as for the engine's ops of the same name.
SINGULAR: dict[str, str] = {
    "Acos": "derivative",
    "Acosh": "derivative",
    "Asin": "derivative",
    "Atan2": "derivative",
    "Atanh": "derivative",
    "Cholesky": "derivative",
    "Cosh": "value",
    "Div": "derivative",
    "Exp": "value",
    "Expm1": "value",
    "Inv": "derivative",
    "Log": "derivative",
    "Log1p": "derivative",
    "LogMatrixDeterminant": "derivative",
    "MatrixDeterminant": "derivative",
    "MatrixSolve": "derivative",
    "Pow": "derivative",
    "RealDiv": "derivative",
    "Reciprocal": "derivative",
    "Rsqrt": "derivative",
    "Sinh": "value",
    "Sqrt": "derivative",
    "Tan": "value",
}

# Inputs that never get a gradient through the op (its indices, its condition).
NO_GRADIENT_INPUTS: dict[str, tuple[int, ...]] = {
    "GatherNd": (1,),
    "GatherV2": (1, 2),
    "ResourceGather": (1,),
    "Select": (0,),
    "SelectV2": (0,),
    "SparseSoftmaxCrossEntropyWithLogits": (1,),
}

# Inputs that say how an op works (an axis, a shape, a permutation) rather
# than carry values: TensorFlow passes them as tensors, tapemagic's engine as
# parameters. A constant made for one of them becomes a parameter of the op,
# under the name given here (negative positions count from the end).
STATIC_INPUTS: dict[str, dict[int, str]] = {
    "All": {1: "axis"},
    "Any": {1: "axis"},
    "ArgMax": {1: "axis"},
    "ArgMin": {1: "axis"},
    "BroadcastTo": {1: "shape"},
    "ConcatV2": {-1: "axis"},
    "Cumprod": {1: "axis"},
    "Cumsum": {1: "axis"},
    "ExpandDims": {1: "axis"},
    "Fill": {0: "dims"},
    "GatherV2": {2: "axis"},
    "Max": {1: "axis"},
    "Mean": {1: "axis"},
    "Min": {1: "axis"},
    "OneHot": {1: "depth"},
    "Pad": {1: "paddings"},
    "PadV2": {1: "paddings"},
    "Prod": {1: "axis"},
    "RandomStandardNormal": {0: "shape"},
    "RandomUniform": {0: "shape"},
    "Range": {0: "start", 1: "limit", 2: "delta"},
    "Reshape": {1: "shape"},
    "ReverseV2": {1: "axis"},
    "Slice": {1: "begin", 2: "size"},
    "Split": {0: "axis"},
    "SplitV": {1: "size_splits", 2: "axis"},
    "StatelessRandomNormalV2": {0: "shape"},
    "StatelessRandomUniformV2": {0: "shape"},
    "StridedSlice": {1: "begin", 2: "end", 3: "strides"},
    "Sum": {1: "axis"},
    "Tile": {1: "multiples"},
    "TopKV2": {1: "k"},
    "Transpose": {1: "perm"},
}

# A tf.function's call op: "__inference_loss_fn_123", "__forward_step_45".
_FUNCTION = re.compile(r"^__(?:inference|forward|backward)_(.+?)_\d+$")


def function_name(op_type: str) -> str | None:
    """The Python name of the ``tf.function`` an op type calls, or None.

    Example:
        >>> function_name("__inference_loss_fn_123"), function_name("MatMul")
        ('loss_fn', None)
        >>> function_name("__inference___backward_loss_fn_20_43")
        'loss_fn'
    """
    match = _FUNCTION.match(op_type)
    if match is None:
        return None
    name = match.group(1)
    # A gradient's function is named after the one it differentiates:
    # "__inference___backward_f_20_43" is f's.
    while (inner := _FUNCTION.match(name)) is not None:
        name = inner.group(1)
    return name


def user_name(op_type: str) -> str:
    """The name users write for a TensorFlow op type.

    Example:
        >>> user_name("MatMul"), user_name("BiasAdd"), user_name("__inference_f_7")
        ('matmul', 'bias_add', 'f')
    """
    name = NAMES.get(op_type)
    if name is not None:
        return name
    called = function_name(op_type)
    if called is not None:
        return called
    return _snake(op_type)


def op_info(op_type: str, registered: bool) -> OpInfo:
    """The :class:`OpInfo` of a TensorFlow op type.

    Args:
        op_type: TensorFlow's op type (``"MatMul"``), or a ``tf.function``'s
            call op (``"__inference_f_12"``).
        registered: whether TensorFlow's gradient registry has a gradient
            function for it (a ``tf.function`` always has one).

    Example:
        >>> op_info("Round", True)
        OpInfo(name='round', differentiable=False, singular=None, no_gradient_inputs=())
        >>> op_info("Log", True).singular, op_info("SelectV2", True).no_gradient_inputs
        ('derivative', (0,))
    """
    return OpInfo(
        name=user_name(op_type),
        differentiable=registered and op_type not in NO_GRADIENT,
        singular=SINGULAR.get(op_type),
        no_gradient_inputs=NO_GRADIENT_INPUTS.get(op_type, ()),
    )
