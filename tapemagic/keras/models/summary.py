"""The table ``Model.summary()`` prints: layers, output shapes, parameter counts.

Laid out as Keras 3 lays it out (box-drawing rules, a row per layer, then the
parameter totals with their size in memory), from what the model already knows:
each layer's output shape from its build and its weights' shapes and dtypes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine.tensor import array_of

if TYPE_CHECKING:
    # Model calls this module, so the table is typed by what it reads (a
    # Layer's layers and weights, a Trainer's optimizer), not by Model.
    from ..layers.layer import Layer
    from .trainer import Trainer

__all__ = ["format_summary"]


def format_summary(model: Layer | Trainer) -> str:
    """The text of ``model.summary()``: one row per layer, then the totals.

    Args:
        model: the model to describe; an unbuilt layer shows "?" as its output
            shape and "0 (unbuilt)" as its parameter count.

    Returns:
        The table, without a final newline.

    Example:
        >>> from tapemagic.keras import Input, Sequential, layers
        >>> model = Sequential([Input(shape=(3,)), layers.Dense(2, name="out")],
        ...                    name="tiny")
        >>> print(format_summary(model))
        Model: "tiny"
        ┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
        ┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
        ┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
        │ out (Dense)                     │ (None, 2)              │             8 │
        └─────────────────────────────────┴────────────────────────┴───────────────┘
         Total params: 8 (32.00 B)
         Trainable params: 8 (32.00 B)
         Non-trainable params: 0 (0.00 B)
    """
    rows = []
    for layer in model.layers:
        shape = layer._build_output_shape
        out = "?" if shape is None else str(_plain_shape(shape))
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        rows.append((f"{layer.name} ({type(layer).__name__})", out, params))
    text = _render_table(f'Model: "{model.name}"', rows)
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    text += "\n" + _params_line(" Total params", trainable + non_trainable)
    text += "\n" + _params_line(" Trainable params", trainable)
    text += "\n" + _params_line(" Non-trainable params", non_trainable)
    if model.optimizer is not None and model.optimizer.built:
        text += "\n" + _params_line(" Optimizer params", model.optimizer.variables)
    return text


def _plain_shape(shape: Any) -> Any:
    if isinstance(shape, list):
        return [_plain_shape(s) for s in shape]
    return tuple(shape)


def _readable_size(num_bytes: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if num_bytes / 1024 < 1:
            return f"{num_bytes:.2f} {unit}"
        num_bytes /= 1024
    return f"{num_bytes:.2f} PB"


def _params_line(label: str, variables: list) -> str:
    count = sum(int(np.prod(v.shape)) for v in variables)
    size = sum(int(np.prod(v.shape)) * array_of(v).dtype.itemsize for v in variables)
    return f"{label}: {count:,} ({_readable_size(size)})"


def _render_table(title: str, rows: list[tuple[str, str, str]]) -> str:
    header = ("Layer (type)", "Output Shape", "Param #")
    widths = [31, 22, 13]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]

    def line(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    def cells(row: tuple, edge: str) -> str:
        parts = [
            f" {row[0]:<{widths[0]}} ",
            f" {row[1]:<{widths[1]}} ",
            f" {row[2]:>{widths[2]}} ",
        ]
        return edge + edge.join(parts) + edge

    out = [title, line("┏", "━", "┳", "┓"), cells(header, "┃")]
    out.append(line("┡", "━", "╇", "┩"))
    for i, row in enumerate(rows):
        if i:
            out.append(line("├", "─", "┼", "┤"))
        out.append(cells(row, "│"))
    out.append(line("└", "─", "┴", "┘"))
    return "\n".join(out)
