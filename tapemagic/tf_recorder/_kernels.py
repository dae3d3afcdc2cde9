# Generated from the op table by tapemagic/tf/_generate.py: do not edit.
# Say where an op lives beside it (defop's tf=, @tf_export) and run
# python -m tapemagic.tf._generate.
"""TensorFlow's op types under the names of the engine's ops, where the
name is not the op type in snake case (see opnames.py).
"""

__all__ = ["OP_NAMES"]

OP_NAMES: dict[str, str] = {
    "AddV2": "add",
    "All": "reduce_all",
    "Any": "reduce_any",
    "ArgMax": "argmax",
    "ArgMin": "argmin",
    "AvgPool": "avg_pool2d",
    "BatchMatMul": "matmul",
    "BatchMatMulV2": "matmul",
    "BatchMatMulV3": "matmul",
    "ConcatV2": "concat",
    "Conv2D": "conv2d",
    "Div": "truediv",
    "DivNoNan": "divide_no_nan",
    "FloorDiv": "floordiv",
    "FloorMod": "mod",
    "GatherV2": "gather",
    "Inv": "reciprocal",
    "LogMatrixDeterminant": "slogdet",
    "MatMul": "matmul",
    "MatrixDeterminant": "det",
    "MatrixSolve": "solve",
    "Max": "reduce_max",
    "MaxPool": "max_pool2d",
    "Mean": "reduce_mean",
    "Min": "reduce_min",
    "Mul": "multiply",
    "Neg": "negative",
    "Pack": "stack",
    "PadV2": "pad",
    "Prod": "reduce_prod",
    "RealDiv": "truediv",
    "ResourceGather": "gather",
    "ReverseV2": "reverse",
    "Select": "where",
    "SelectV2": "where",
    "SplitV": "split",
    "Sub": "subtract",
    "Sum": "reduce_sum",
    "Unpack": "unstack",
    "Where": "where_indices",
}
