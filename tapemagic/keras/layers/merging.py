"""The merge layers: Add, Subtract, Multiply, Average, Maximum, Minimum,
Concatenate and Dot, and their functional forms (``layers.add([a, b])``), as
Keras 3 defines them.

Each is called on a list of tensors and composed of the engine's elementwise
ops, ``concat`` or ``matmul``, in Keras' order (``maximum`` of the running
result first, so a tie's gradient goes to the earlier input, as in
TensorFlow). Inputs of different ranks get axes of size 1 after the batch
axis, as Keras adds them.
"""

from __future__ import annotations

from typing import Any

from ...engine.ops import linalg as _linalg
from ...engine.ops import math as _math
from ...engine.ops import reduce as _reduce
from ...engine.ops import shape as _shape
from ...engine.tensor import Tensor, convert_to_tensor
from .layer import Layer

__all__ = [
    "Add",
    "Average",
    "Concatenate",
    "Dot",
    "Maximum",
    "Minimum",
    "Multiply",
    "Subtract",
    "add",
    "average",
    "concatenate",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]


def _not_a_list(what: str, value: Any) -> ValueError:
    return ValueError(
        f"A merge layer should be called on a list of inputs. Received: {what}="
        f"{value} (not a list of {'shapes' if what == 'input_shape' else 'tensors'})."
        " Pass the tensors in a list: layers.Add()([a, b])."
    )


def _elementwise_shape(shape1: Any, shape2: Any) -> Any:
    """Keras' broadcast of two shapes without their batch axes."""
    if shape1 is None or shape2 is None:
        return None
    if len(shape1) < len(shape2):
        return _elementwise_shape(shape2, shape1)
    if not shape2:
        return tuple(shape1)
    out = list(shape1[: -len(shape2)])
    for i, j in zip(shape1[-len(shape2) :], shape2):
        if i is None or j is None:
            out.append(None)
        elif i == 1:
            out.append(j)
        elif j == 1 or i == j:
            out.append(i)
        else:
            raise ValueError(
                "Inputs have incompatible shapes. Received shapes "
                f"{tuple(shape1)} and {tuple(shape2)}"
            )
    return tuple(out)


class _Merge(Layer):
    """What the elementwise merge layers share: the list, the shapes, the ranks."""

    _convert_input_args = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check_input_shape(self, shape: Any) -> None:
        if not isinstance(shape, list) or not all(isinstance(s, tuple) for s in shape):
            raise _not_a_list("input_shape", shape)
        batch_sizes = {s[0] for s in shape if s} - {None}
        if len(batch_sizes) > 1:
            raise ValueError(
                "Cannot merge tensors with different batch sizes. Received tensors "
                f"with shapes {shape}"
            )
        self.compute_output_shape(shape)

    def _merge_function(self, inputs: list) -> Tensor:
        raise NotImplementedError

    def call(self, inputs: Any) -> Tensor:
        if not isinstance(inputs, (list, tuple)):
            raise _not_a_list("inputs", inputs)
        tensors = [convert_to_tensor(x) for x in inputs]
        ndim = max(t.ndim for t in tensors)
        # as Keras: lower ranks get axes of size 1 after the batch axis
        for i, t in enumerate(tensors):
            for _ in range(ndim - t.ndim):
                t = _shape.expand_dims(t, 1)
            tensors[i] = t
        return self._merge_function(tensors)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        out = None if input_shape[0] is None else tuple(input_shape[0][1:])
        for shape in input_shape[1:]:
            out = _elementwise_shape(out, None if shape is None else shape[1:])
        batch_sizes = {s[0] for s in input_shape if s is not None} - {None}
        batch = batch_sizes.pop() if len(batch_sizes) == 1 else None
        return (batch,) + out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The masks of the inputs or-ed together (None if any is None)."""
        if mask is None or any(m is None for m in mask):
            return None
        out = convert_to_tensor(mask[0])
        for m in mask[1:]:
            out = _math.logical_or(out, m)
        return out


def _fold(op: Any, tensors: list) -> Tensor:
    out = tensors[0]
    for t in tensors[1:]:
        out = op(out, t)
    return out


class Add(_Merge):
    """The sum of a list of inputs (broadcast as NumPy, batch axis first).

    Example:
        >>> import numpy as np
        >>> Add()([np.ones((1, 2), np.float32), np.full((1, 2), 2.0, np.float32)]).numpy()
        array([[3., 3.]], dtype=float32)
    """  # noqa: E501

    def _merge_function(self, inputs: list) -> Tensor:
        return _fold(_math.add, inputs)


class Subtract(_Merge):
    """The difference of exactly two inputs: ``inputs[0] - inputs[1]``.

    Raises:
        ValueError: for another number of inputs.

    Example:
        >>> import numpy as np
        >>> Subtract()([np.ones((1, 2), np.float32), np.ones((1, 2), np.float32)]).numpy()
        array([[0., 0.]], dtype=float32)
    """  # noqa: E501

    def _check_input_shape(self, shape: Any) -> None:
        super()._check_input_shape(shape)
        if len(shape) != 2:
            raise ValueError(
                "A `Subtract` layer should be called on exactly 2 inputs. Received: "
                f"input_shape={shape}"
            )

    def _merge_function(self, inputs: list) -> Tensor:
        return _math.subtract(inputs[0], inputs[1])


class Multiply(_Merge):
    """The elementwise product of a list of inputs.

    Example:
        >>> import numpy as np
        >>> Multiply()([np.full((1, 2), 3.0, np.float32), np.full((1, 1), 2.0, np.float32)]).numpy()
        array([[6., 6.]], dtype=float32)
    """  # noqa: E501

    def _merge_function(self, inputs: list) -> Tensor:
        return _fold(_math.multiply, inputs)


class Average(_Merge):
    """The elementwise mean of a list of inputs.

    Example:
        >>> import numpy as np
        >>> Average()([np.zeros((1, 2), np.float32), np.ones((1, 2), np.float32)]).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """  # noqa: E501

    def _merge_function(self, inputs: list) -> Tensor:
        return _fold(_math.add, inputs) / len(inputs)


class Maximum(_Merge):
    """The elementwise maximum of a list of inputs (a tie's gradient goes to the
    earlier input).

    Example:
        >>> import numpy as np
        >>> Maximum()([np.array([[1.0, 5.0]], np.float32), np.array([[3.0, 2.0]], np.float32)]).numpy()
        array([[3., 5.]], dtype=float32)
    """  # noqa: E501

    def _merge_function(self, inputs: list) -> Tensor:
        return _fold(_math.maximum, inputs)


class Minimum(_Merge):
    """The elementwise minimum of a list of inputs (a tie's gradient goes to the
    earlier input).

    Example:
        >>> import numpy as np
        >>> Minimum()([np.array([[1.0, 5.0]], np.float32), np.array([[3.0, 2.0]], np.float32)]).numpy()
        array([[1., 2.]], dtype=float32)
    """  # noqa: E501

    def _merge_function(self, inputs: list) -> Tensor:
        return _fold(_math.minimum, inputs)


class Concatenate(_Merge):
    """Join a list of inputs along ``axis`` (their other axes must agree).

    Args:
        axis: the axis to join along (default -1).
        **kwargs: base layer arguments.

    Raises:
        ValueError: for inputs whose other axes differ.

    Example:
        >>> import numpy as np
        >>> Concatenate()([np.zeros((2, 3), np.float32), np.ones((2, 1), np.float32)]).shape
        TensorShape([2, 4])
    """  # noqa: E501

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def _check_input_shape(self, shape: Any) -> None:
        if not isinstance(shape, list) or not all(isinstance(s, tuple) for s in shape):
            raise ValueError(
                "A `Concatenate` layer should be called on a list of inputs. "
                f"Received: input_shape={shape}. Pass the tensors in a list: "
                "layers.Concatenate()([a, b])."
            )
        ranks = {len(s) for s in shape}
        rest = [[d for i, d in enumerate(s) if i != self.axis % len(s)] for s in shape]
        fits = len(ranks) == 1 and all(
            len({d for d in dims if d is not None}) <= 1 for dims in zip(*rest)
        )
        if not fits:
            raise ValueError(
                "A `Concatenate` layer requires inputs with matching shapes except "
                f"for the concatenation axis. Received: input_shape={shape}"
            )

    def call(self, inputs: Any) -> Tensor:
        if not isinstance(inputs, (list, tuple)):
            raise _not_a_list("inputs", inputs)
        return _shape.concat(list(inputs), axis=self.axis)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        out = list(input_shape[0])
        for shape in input_shape[1:]:
            if out[self.axis] is None or shape[self.axis] is None:
                out[self.axis] = None
                break
            out[self.axis] += shape[self.axis]
        return tuple(out)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


def _batch_dot(x: Tensor, y: Tensor, axes: list[int]) -> Tensor:
    """Keras 3's ``batch_dot``: contract ``x``'s axis ``axes[0]`` with ``y``'s
    ``axes[1]``, example by example, as one batched ``matmul``."""
    orig_x_ndim, orig_y_ndim = x.ndim, y.ndim
    x_ndim, y_ndim = x.ndim, y.ndim
    a0, a1 = axes
    if x_ndim == 2:
        x = _shape.expand_dims(x, 1)
        a0 += 1
        x_ndim += 1
    if y_ndim == 2:
        y = _shape.expand_dims(y, 2)
        y_ndim += 1
    if a0 != x_ndim - 1:
        # the contracted axis of x last
        x = _shape.transpose(x, [i for i in range(x_ndim) if i != a0] + [a0])
    if a1 != 1:
        # the contracted axis of y second
        y = _shape.transpose(y, [0, a1] + [i for i in range(1, y_ndim) if i != a1])
    x_mid, y_trail = tuple(x.shape[1:-1]), tuple(y.shape[2:])
    x = _shape.reshape(x, (x.shape[0], -1, x.shape[-1]))
    y = _shape.reshape(y, (y.shape[0], y.shape[1], -1))
    out = _linalg.matmul(x, y)
    out = _shape.reshape(out, (out.shape[0],) + x_mid + y_trail)
    # the axis expand_dims gave a rank-2 input goes again
    if orig_x_ndim == 2:
        return _shape.squeeze(out, [1])
    if orig_y_ndim == 2:
        return _shape.squeeze(out, [-1])
    return out


def _l2_normalize(x: Tensor, axis: int) -> Tensor:
    # Keras' ops.normalize: x * min(rsqrt(sum(x**2)), 1 / epsilon)
    square_sum = _reduce.reduce_sum(_math.square(x), axis=axis, keepdims=True)
    return x * _math.minimum(_math.rsqrt(square_sum), 1.0 / 1e-7)


class Dot(_Merge):
    """The dot product of two inputs along ``axes``, example by example.

    ``Dot(axes=1)([a, b])`` of two ``(batch, n)`` inputs is ``(batch, 1)``;
    with ``normalize=True`` it is the cosine similarity.

    Args:
        axes: an int (the same axis of both) or a pair, never the batch axis.
        normalize: L2-normalize both inputs along ``axes`` first.
        **kwargs: base layer arguments.

    Raises:
        TypeError: if ``axes`` is not an int or a list.
        ValueError: for a malformed ``axes``, or inputs whose contracted axes
            differ in size.

    Example:
        >>> import numpy as np
        >>> a = np.array([[1.0, 2.0]], np.float32)
        >>> Dot(axes=1)([a, a]).numpy()
        array([[5.]], dtype=float32)
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(
                    "Invalid type for argument `axes`: it should be a list or an "
                    f"int. Received: axes={axes}"
                )
            if len(axes) != 2:
                raise ValueError(
                    "Invalid format for argument `axes`: it should contain two "
                    f"elements. Received: axes={axes}"
                )
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(
                    "Invalid format for argument `axes`: list elements should be "
                    f"integers. Received: axes={axes}"
                )
        self.axes = axes
        self.normalize = normalize

    def _axes_for(self, ndims: tuple[int, int]) -> list[int]:
        axes = [self.axes] * 2 if isinstance(self.axes, int) else list(self.axes)
        return [a % n if a < 0 else a for a, n in zip(axes, ndims)]

    def _check_input_shape(self, shape: Any) -> None:
        if not isinstance(shape, list) or len(shape) != 2:
            raise ValueError(
                "A `Dot` layer should be called on a list of 2 inputs. Received: "
                f"input_shape={shape}"
            )
        a0, a1 = self._axes_for((len(shape[0]), len(shape[1])))
        if 0 in (a0, a1):
            raise ValueError(
                "Cannot perform batch_dot over axis 0. If your inputs are not "
                "batched, add a dummy batch dimension to your inputs using "
                "keras.ops.expand_dims(x, 0)"
            )
        if shape[0][a0] != shape[1][a1]:
            raise ValueError(
                f"Incompatible input shapes: axis values {shape[0][a0]} (at axis "
                f"{a0}) != {shape[1][a1]} (at axis {a1}). Full input shapes: "
                f"{shape[0]}, {shape[1]}"
            )

    def call(self, inputs: Any) -> Tensor:
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(
                f"A `Dot` layer should be called on exactly 2 inputs. Received: "
                f"inputs={inputs}"
            )
        x, y = (convert_to_tensor(t) for t in inputs)
        axes = self._axes_for((x.ndim, y.ndim))
        if self.normalize:
            x, y = _l2_normalize(x, axes[0]), _l2_normalize(y, axes[1])
        return _batch_dot(x, y, axes)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape1, shape2 = list(input_shape[0]), list(input_shape[1])
        a0, a1 = self._axes_for((len(shape1), len(shape2)))
        shape1.pop(a0)
        shape2.pop(a1)
        shape2.pop(0)
        out = shape1 + shape2
        if len(out) == 1:
            out += [1]
        return tuple(out)

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        """None: a dot product has no steps left to mask."""
        return None

    def get_config(self) -> dict:
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def add(inputs: list, **kwargs: Any) -> Any:
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs: list, **kwargs: Any) -> Any:
    """``Subtract(**kwargs)(inputs)``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: list, **kwargs: Any) -> Any:
    """``Multiply(**kwargs)(inputs)``."""
    return Multiply(**kwargs)(inputs)


def average(inputs: list, **kwargs: Any) -> Any:
    """``Average(**kwargs)(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs: list, **kwargs: Any) -> Any:
    """``Maximum(**kwargs)(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: list, **kwargs: Any) -> Any:
    """``Minimum(**kwargs)(inputs)``."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    """``Concatenate(axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: list, axes: Any = -1, **kwargs: Any) -> Any:
    """``Dot(axes, **kwargs)(inputs)``."""
    return Dot(axes=axes, **kwargs)(inputs)
