"""NumPy helpers shared by convolution and pooling: window views of a padded
image, their adjoint (a scatter-add of windows), TensorFlow's padding rules and
the checks of the ops' static arguments.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import InvalidArgumentError
from ..tensor import Tensor
from . import shape

__all__: list[str] = []


def _spatial_pair(name: str, value: Any, data_format: str) -> tuple[int, int]:
    """``strides``/``dilations``/``ksize``: an int or a list of 1, 2 or 4 ints."""
    if isinstance(value, Tensor):
        value = value._value.tolist()
    items = [int(value)] if isinstance(value, (int, np.integer)) else list(value)
    if len(items) == 1:
        h = w = int(items[0])
    elif len(items) == 2:
        h, w = (int(v) for v in items)
    elif len(items) == 4:
        if data_format == "NHWC":
            outer, (h, w) = (items[0], items[3]), (int(items[1]), int(items[2]))
        else:
            outer, (h, w) = (items[0], items[1]), (int(items[2]), int(items[3]))
        if tuple(outer) != (1, 1):
            raise InvalidArgumentError(
                f"{name} in the batch and depth dimensions must be 1, got {name}="
                f"{items!r} for data_format {data_format!r}.",
                op=name,
            )
    else:
        raise ValueError(
            f"{name} should be of length 1, 2 or 4 but was {len(items)} "
            f"({name}={value!r})."
        )
    if h < 1 or w < 1:
        raise ValueError(f"{name} must be positive integers, got {name}={value!r}.")
    return h, w


def _padding_amounts(
    padding: Any,
    in_hw: tuple[int, int],
    k_hw: tuple[int, int],
    strides: tuple[int, int],
    dilations: tuple[int, int],
    data_format: str,
    allow_explicit: bool = True,
) -> tuple[int, int, int, int]:
    """``(top, bottom, left, right)`` zero padding, as TensorFlow computes it."""
    if isinstance(padding, str):
        if padding == "VALID":
            pads = [0, 0, 0, 0]
        elif padding == "SAME":
            # TensorFlow: out = ceil(in / stride); the padding needed to reach it is
            # split with the extra row/column (if odd) at the end.
            pads = []
            for n, k, s, d in zip(in_hw, k_hw, strides, dilations):
                out = -(-n // s)
                total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
                pads += [total // 2, total - total // 2]
        else:
            raise ValueError(
                f"padding must be 'SAME' or 'VALID' (upper case)"
                f"{' or a list of explicit paddings' if allow_explicit else ''}, got "
                f"padding={padding!r}."
            )
    elif allow_explicit and isinstance(padding, (list, tuple)):
        try:
            pairs = [[int(a) for a in pair] for pair in padding]
        except (TypeError, ValueError):
            pairs = []
        if len(pairs) != 4 or any(len(p) != 2 or min(p) < 0 for p in pairs):
            raise ValueError(
                f"explicit padding must be 4 pairs of non-negative ints, one per "
                f"dimension, got padding={padding!r}."
            )
        outer = (0, 3) if data_format == "NHWC" else (0, 1)
        inner = (1, 2) if data_format == "NHWC" else (2, 3)
        if any(pairs[i] != [0, 0] for i in outer):
            raise ValueError(
                f"explicit padding of the batch and channel dimensions must be 0, got "
                f"padding={padding!r}."
            )
        pads = pairs[inner[0]] + pairs[inner[1]]
    else:
        raise ValueError(
            f"padding must be 'SAME' or 'VALID'"
            f"{' or a list of explicit paddings' if allow_explicit else ''}, got "
            f"padding={padding!r}."
        )
    for i, (n, k, s, d) in enumerate(zip(in_hw, k_hw, strides, dilations)):
        effective = (k - 1) * d + 1
        numerator = n + pads[2 * i] + pads[2 * i + 1] - effective + s
        if numerator < 0 and -(-numerator // s) < 0:
            raise InvalidArgumentError(
                f"Computed output size would be negative: {-(-numerator // s)} "
                f"[input_size: {n}, effective_filter_size: {effective}, stride: {s}]. "
                "Use a smaller filter or padding='SAME'.",
                op="conv2d",
            )
    return tuple(pads)  # type: ignore[return-value]


def _pad_hw(x: np.ndarray, pads: tuple, value: Any = 0) -> np.ndarray:
    top, bottom, left, right = pads
    if not (top or bottom or left or right):
        return x
    width = [(0, 0)] * (x.ndim - 3) + [(top, bottom), (left, right), (0, 0)]
    return np.pad(x, width, constant_values=value)


def _out_hw(padded_hw: tuple, k_hw: tuple, strides: tuple, dilations: tuple) -> tuple:
    return tuple(
        max((n - (k - 1) * d - 1) // s + 1, 0)
        for n, k, s, d in zip(padded_hw, k_hw, strides, dilations)
    )


def _windows(xp: np.ndarray, k_hw: tuple, strides: tuple, dilations: tuple,
             out_hw: tuple) -> np.ndarray:  # fmt: skip
    """A read-only view ``(..., Ho, Wo, kh, kw, C)`` of the windows of ``xp``."""
    sh, sw = strides
    dh, dw = dilations
    *lead, _, _, c = xp.shape
    st = xp.strides
    return as_strided(
        xp,
        shape=(*lead, *out_hw, *k_hw, c),
        strides=(*st[:-3], st[-3] * sh, st[-2] * sw, st[-3] * dh, st[-2] * dw, st[-1]),
        writeable=False,
    )


def _scatter_windows(cols: np.ndarray, padded_hw: tuple, strides: tuple,
                     dilations: tuple) -> np.ndarray:  # fmt: skip
    """The adjoint of ``_windows``: sum ``cols`` (M, Ho, Wo, kh, kw, C) into the
    padded input (M, Hp, Wp, C), overlapping windows adding up. One bincount."""
    m, ho, wo, kh, kw, c = cols.shape
    hp, wp = padded_hw
    rows = np.arange(ho)[:, None] * strides[0] + np.arange(kh)[None, :] * dilations[0]
    columns = (
        np.arange(wo)[:, None] * strides[1] + np.arange(kw)[None, :] * dilations[1]
    )
    spatial = rows[:, None, :, None] * wp + columns[None, :, None, :]
    flat = (
        np.arange(m)[:, None, None, None, None, None] * (hp * wp)
        + spatial[None, :, :, :, :, None]
    ) * c + np.arange(c)
    total = np.bincount(flat.ravel(), weights=cols.ravel(), minlength=m * hp * wp * c)
    return total.reshape(m, hp, wp, c).astype(cols.dtype, copy=False)


def _im2col(x: np.ndarray, k_hw: tuple, strides: tuple, dilations: tuple,
            pads: tuple, out_hw: tuple | None = None) -> np.ndarray:  # fmt: skip
    """``x`` (P..., N, H, W, C) as patches (P..., N*Ho*Wo, kh*kw*C)."""
    xp = _pad_hw(x, pads)
    if out_hw is None:
        out_hw = _out_hw(xp.shape[-3:-1], k_hw, strides, dilations)
    win = _windows(xp, k_hw, strides, dilations, out_hw)
    n = x.shape[-4]
    return win.reshape(
        x.shape[:-4] + (n * out_hw[0] * out_hw[1], k_hw[0] * k_hw[1] * x.shape[-1])
    )


def _check_data_format(data_format: str) -> str:
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(
            f"data_format must be 'NHWC' or 'NCHW', got data_format={data_format!r}."
        )
    return data_format


def _to_nhwc(x: Tensor, data_format: str) -> Tensor:
    if data_format == "NHWC":
        return x
    r = x.ndim
    return shape.transpose(x, tuple(range(r - 3)) + (r - 2, r - 1, r - 3))


def _from_nhwc(x: Tensor, data_format: str) -> Tensor:
    if data_format == "NHWC":
        return x
    r = x.ndim
    return shape.transpose(x, tuple(range(r - 3)) + (r - 1, r - 3, r - 2))


def _check_filters(w: Tensor, op_name: str) -> None:
    if w.ndim != 4:
        raise ValueError(
            f"{op_name}: filters must have rank 4 [filter_height, filter_width, "
            f"in_channels, out_channels], got shape {list(w._value.shape)}."
        )


def _check_input(x: Tensor, op_name: str, what: str = "input") -> None:
    if x.ndim < 4:
        raise ValueError(
            f"{op_name}: {what} must have rank >= 4 (batch, height, width, channels),"
            f" got shape {list(x._value.shape)}. Add a batch axis with "
            "tf.expand_dims(x, 0)."
        )


def _conv_params(padding, data_format, strides, dilations, in_hw, k_hw) -> dict:
    fmt = _check_data_format(data_format)
    s = _spatial_pair("strides", strides, fmt)
    d = _spatial_pair("dilations", 1 if dilations is None else dilations, fmt)
    pads = _padding_amounts(padding, tuple(in_hw), tuple(k_hw), s, d, fmt)
    return {"strides": s, "dilations": d, "pads": pads}


def _static_sizes(value: Any, what: str) -> tuple[int, ...]:
    if isinstance(value, Tensor):
        value = value._value.tolist()
    try:
        return tuple(int(v) for v in value)
    except TypeError:
        raise ValueError(f"{what} must be a list of ints, got {value!r}.") from None
