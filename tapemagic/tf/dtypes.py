# Generated from the op table by tapemagic/tf/_generate.py: do not edit.
# Say where an op lives beside it (defop's tf=, @tf_export) and run
# python -m tapemagic.tf._generate.
"""``tf.dtypes``: the element types and conversions between them."""

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
from ..engine.ops.math import cast

__all__ = [
    "DType",
    "as_dtype",
    "bool",
    "cast",
    "complex64",
    "complex128",
    "double",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
]
