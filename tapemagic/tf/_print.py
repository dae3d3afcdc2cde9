"""``tf.print``: print tensors by their values, formatted as TensorFlow does.

TensorFlow's format differs from NumPy's: elements are not padded to a common
width, floats use the shortest of 6 (float32) or 15 (float64) significant digits
that reads back exactly (else 9 or 17), booleans print as 1 and 0, and each
dimension longer than ``2 * summarize`` shows only its first and last
``summarize`` entries around ``...``.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..engine import nest
from ..engine.context import state
from ..engine.tensor import Tensor, Variable, array_of, convert_to_tensor
from ..engine.trace import host_call

__all__ = ["format_tensor", "print"]


def _element(value: Any) -> str:
    if isinstance(value, np.bool_):
        return "1" if value else "0"
    if isinstance(value, np.floating):
        if value.dtype == np.float16:
            value = np.float32(value)  # TensorFlow prints a half as a float
        if value.dtype == np.float64:
            short, long, kind = 15, 17, np.float64
        else:
            short, long, kind = 6, 9, np.float32
        text = f"{value:.{short}g}"
        if np.isfinite(value) and kind(text) != value:
            text = f"{value:.{long}g}"
        return text
    if isinstance(value, np.complexfloating):
        return str(value)
    return str(int(value))


def _spacing(dim: int, ndim: int) -> str:
    if dim == ndim - 1:
        return " "
    return "\n" * (ndim - dim - 1) + " " * (dim + 1)


def _block(array: np.ndarray, dim: int, ends: int) -> str:
    """``array`` (the part of the tensor at depth ``dim``) as TensorFlow prints it."""
    if array.ndim == 0:
        return _element(array[()])
    ndim = dim + array.ndim
    count = array.shape[0]
    parts = [_block(array[i], dim + 1, ends) for i in range(min(ends, count))]
    if count > 2 * ends:
        parts.append("...")
    parts += [
        _block(array[i], dim + 1, ends) for i in range(max(ends, count - ends), count)
    ]
    return "[" + _spacing(dim, ndim).join(parts) + "]"


def format_tensor(value: Any, summarize: int = 3) -> str:
    """A tensor's values as ``tf.print`` shows them.

    Example:
        >>> format_tensor(np.array([[1.5, 2.0], [3.0, 0.1]], np.float32))
        '[[1.5 2]\\n [3 0.1]]'
    """
    if isinstance(value, (Tensor, Variable)):
        array = array_of(value)
    else:
        array = np.asarray(value)
    ends = array.size if summarize is None or summarize < 0 else int(summarize)
    return _block(array, 0, ends)


class _Shown:
    """Stands in for a tensor inside a printed structure."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _text(item: Any, summarize: int) -> str:
    if isinstance(item, (Tensor, Variable)):
        return format_tensor(item, summarize)
    if isinstance(item, (list, tuple, dict)):
        shown = nest.map_structure(
            lambda leaf: (
                _Shown(format_tensor(leaf, summarize))
                if isinstance(leaf, (Tensor, Variable))
                else leaf
            ),
            item,
        )
        return str(shown)
    return str(item)


def print(
    *inputs: Any,
    output_stream: Any = None,
    summarize: int = 3,
    sep: str = " ",
    end: str = "\n",
    name: str | None = None,
) -> None:
    """Print ``inputs`` like ``tf.print``: tensors by value, to stderr by default.

    Args:
        *inputs: tensors, strings, numbers, or lists/tuples/dicts holding tensors.
        output_stream: a file-like object (default ``sys.stderr``, as TensorFlow),
            or a path written as ``"file://path"`` to append to.
        summarize: entries shown at each end of a long dimension; -1 for all.
        sep: separator between inputs.
        end: written after the last input.
        name: ignored.

    Raises:
        ValueError: for an ``output_stream`` that is neither writable nor a
            ``file://`` path.

    Example:
        >>> import sys
        >>> print("x:", Tensor(np.arange(10, dtype=np.int32)), output_stream=sys.stdout)
        x: [0 1 2 ... 7 8 9]
    """
    if state.observers:
        # Inside a tf.function's trace: print again on every replay, with the
        # values of that call.
        leaves = nest.flatten(inputs)
        leaves = [
            convert_to_tensor(x) if isinstance(x, Variable) else x for x in leaves
        ]
        tensors = [x for x in leaves if isinstance(x, Tensor)]

        def emit(*values: Tensor) -> None:
            given = iter(values)
            again = [next(given) if isinstance(x, Tensor) else x for x in leaves]
            _write(
                nest.pack_sequence_as(inputs, again),
                output_stream, summarize, sep, end,
            )  # fmt: skip

        host_call(emit, *tensors)
        return
    _write(inputs, output_stream, summarize, sep, end)


def _write(inputs: Any, output_stream: Any, summarize: int, sep: str,
           end: str) -> None:  # fmt: skip
    text = sep.join(_text(item, summarize) for item in inputs) + end
    stream = sys.stderr if output_stream is None else output_stream
    # (sys.stdout silenced while a tf.function traces again: tf.print speaks)
    stream = getattr(stream, "real", stream)
    if isinstance(stream, str):
        if not stream.startswith("file://"):
            raise ValueError(
                f"output_stream {stream!r} is not supported; pass sys.stdout, "
                "sys.stderr, or a path as 'file:///tmp/out.txt'."
            )
        with open(stream[len("file://") :], "a", encoding="utf-8") as file:
            file.write(text)
        return
    if not hasattr(stream, "write"):
        raise ValueError(
            f"output_stream {stream!r} cannot be written to; pass sys.stdout, "
            "sys.stderr, or a path as 'file:///tmp/out.txt'."
        )
    stream.write(text)
