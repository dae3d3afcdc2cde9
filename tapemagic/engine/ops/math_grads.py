"""The gradients of sqrt, rsqrt and reciprocal as primitives, as TensorFlow's.

``math`` imports this module, so its ops' VJPs find these in the namespace.
"""

from __future__ import annotations

import numpy as np

from ..op import defop

__all__ = ["reciprocal_grad", "rsqrt_grad", "sqrt_grad"]

# TensorFlow's SqrtGrad, RsqrtGrad and ReciprocalGrad: the gradients as primitives
# (y is the op's output, g the incoming gradient). Their kernels return 0 where g
# is 0 even where the local derivative is inf, so the untaken branch of a `where`
# contributes 0, not NaN; their VJPs are TensorFlow's SqrtGradGrad and kin, so a
# second derivative through an element where g is 0 is the same as there.
sqrt_grad = defop(
    "sqrt_grad",
    lambda y, g: np.where(g == 0, 0, 0.5 * g / y),
    (
        lambda ns, gg, r, y, g: ns.unbroadcast(-(gg / y) * r, y, r),
        lambda ns, gg, r, y, g: ns.unbroadcast(0.5 * (gg / y), g, r),
    ),
    saves={"y": ("y", "r"), "g": ("y",)},
)
rsqrt_grad = defop(
    "rsqrt_grad",
    # mul_no_nan twice, in its kernel's order: 0 where g or y (x = inf) is 0
    lambda y, g: np.where((g == 0) | (y == 0), 0, (-0.5 * (y * y)) * (y * g)),
    (
        lambda ns, gg, r, y, g: ns.unbroadcast(-1.5 * gg * g * ns.square(y), y, r),
        lambda ns, gg, r, y, g: ns.unbroadcast(ns.rsqrt_grad(y, gg), g, r),
    ),
    saves={"y": ("y", "g"), "g": ("y",)},
)
reciprocal_grad = defop(
    "reciprocal_grad",
    lambda y, g: np.where(g == 0, 0, -(y * y) * g),
    (
        lambda ns, gg, r, y, g: ns.unbroadcast(gg * -2.0 * g * y, y, r),
        lambda ns, gg, r, y, g: ns.unbroadcast(ns.reciprocal_grad(y, gg), g, r),
    ),
    saves={"y": ("y", "g"), "g": ("y",)},
)
