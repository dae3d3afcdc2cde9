"""Keras 3 metrics: running averages kept in non-trainable variables.

``update_state`` adds a batch, ``result()`` returns the value so far,
``reset_state()`` starts again; calling a metric does the first two. Metrics
are bookkeeping, not part of a model's computation: they work on the values
of their inputs and are never recorded by a tape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import dtypes
from ..engine.tensor import Tensor, Variable, array_of
from . import backend

__all__ = [
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "Mean",
    "MeanMetricWrapper",
    "Metric",
    "SparseCategoricalAccuracy",
    "accuracy",
    "binary_accuracy",
    "categorical_accuracy",
    "get",
    "sparse_categorical_accuracy",
]


def _values(x: Any, dtype: Any = None) -> np.ndarray:
    """The value of a tensor, array or number, as NumPy (never recorded)."""
    array = array_of(x) if isinstance(x, (Tensor, Variable)) else np.asarray(x)
    if dtype is not None:
        array = array.astype(dtype)
    return np.asarray(array)


def _squeeze_or_expand(x1: np.ndarray, x2: np.ndarray) -> tuple:
    # NumPy twin of losses.squeeze_or_expand_to_same_rank
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1:
            x2 = x2[..., None]
        else:
            x1 = x1[..., 0]
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1:
            x1 = x1[..., None]
        else:
            x2 = x2[..., 0]
    return x1, x2


def _floatx() -> np.dtype:
    return np.dtype(dtypes.as_dtype(backend.floatx()).as_numpy_dtype)


class Metric:
    """Base class: subclasses define ``update_state`` and ``result``.

    Args:
        dtype: the dtype of the metric's variables (default floatx).
        name: the metric's name (default: from the class).
    """

    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        self.name = backend._auto_name(type(self).__name__) if name is None else name
        self._dtype = backend.standardize_dtype(dtype)
        self._variables: list[Variable] = []

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def variables(self) -> list[Variable]:
        """The metric's state variables (non-trainable)."""
        return list(self._variables)

    def add_variable(
        self,
        shape: Any = (),
        initializer: str = "zeros",
        dtype: Any = None,
        aggregation: str = "sum",
        name: str | None = None,
    ) -> Variable:
        """A new non-trainable state variable, reset to zeros by ``reset_state``."""
        standard = dtypes.as_dtype(backend.standardize_dtype(dtype or self.dtype))
        np_dtype = np.dtype(standard.as_numpy_dtype)
        make = np.ones if initializer == "ones" else np.zeros
        variable = Variable(make(tuple(shape), np_dtype), trainable=False, name=name)
        self._variables.append(variable)
        return variable

    add_weight = add_variable

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} must define update_state(...)."
        )

    def result(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define result().")

    def reset_state(self) -> None:
        """Set every state variable back to zero."""
        for v in self._variables:
            v.assign(np.zeros(v.shape, array_of(v).dtype))

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


class Mean(Metric):
    """The (weighted) mean of the values seen so far.

    Values of rank > 1 count once per example: each example's values are
    averaged first, as Keras does.

    Example:
        >>> m = Mean()
        >>> m.update_state([1.0, 3.0])
        >>> m.update_state([5.0], sample_weight=[2.0])
        >>> float(m.result())  # (1 + 3 + 2 * 5) / (1 + 1 + 2)
        3.5
    """

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Add ``values`` (weighted by ``sample_weight``) to the running mean."""
        np_dtype = np.dtype(dtypes.as_dtype(self.dtype).as_numpy_dtype)
        values = _values(values, np_dtype)
        weight = None
        if sample_weight is not None:
            weight = _values(sample_weight, np_dtype)
            values, weight = _squeeze_or_expand(values, weight)
            if values.ndim > weight.ndim:
                values = values.mean(axis=tuple(range(weight.ndim, values.ndim)))
            weight = np.broadcast_to(weight, values.shape)
            values = values * weight
            if weight.ndim > 1:
                weight = weight.mean(axis=tuple(range(1, weight.ndim)))
        if values.ndim > 1:
            values = values.mean(axis=tuple(range(1, values.ndim)))
        if weight is not None:
            count = weight.sum()
        elif values.ndim >= 1:
            count = values.shape[0]
        else:
            count = 1
        self.total.assign(array_of(self.total) + values.sum(dtype=np_dtype))
        self.count.assign(array_of(self.count) + np.asarray(count, np_dtype))

    def result(self) -> Tensor:
        """``total / count`` (0 before any update)."""
        total, count = array_of(self.total), array_of(self.count)
        value = total / count if count != 0 else np.zeros_like(total)
        return Tensor(np.asarray(value, total.dtype))


class MeanMetricWrapper(Mean):
    """The running mean of ``fn(y_true, y_pred, **kwargs)``.

    Example:
        >>> m = MeanMetricWrapper(sparse_categorical_accuracy, name="acc")
        >>> float(m([0, 1], [[0.9, 0.1], [0.8, 0.2]]))
        0.5
    """

    def __init__(
        self, fn: Callable, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name or fn.__name__, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the per-example values of ``fn`` for this batch."""
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values, sample_weight=sample_weight)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``argmax(y_pred)`` equals the integer label, else 0.0.

    Example:
        >>> sparse_categorical_accuracy([1, 0], [[0.1, 0.9], [0.2, 0.8]]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_pred = _values(y_pred)
    y_true = _values(y_true, y_pred.dtype)
    if y_true.ndim == y_pred.ndim and y_true.ndim and y_true.shape[-1] == 1:
        y_true = y_true[..., 0]
    predicted = np.argmax(y_pred, axis=-1).astype(y_true.dtype)
    return Tensor((y_true == predicted).astype(_floatx()))


def categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``argmax(y_pred)`` equals ``argmax(y_true)`` (one-hot labels).

    Example:
        >>> categorical_accuracy([[0, 1], [1, 0]], [[0.1, 0.9], [0.2, 0.8]]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_true = np.argmax(_values(y_true), axis=-1)
    y_pred = np.argmax(_values(y_pred), axis=-1)
    return Tensor((y_true == y_pred).astype(_floatx()))


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Tensor:
    """1.0 where ``y_pred > threshold`` matches the 0/1 label, elementwise.

    Example:
        >>> binary_accuracy([[1.0], [0.0]], [[0.7], [0.6]]).numpy()
        array([[1.],
               [0.]], dtype=float32)
    """
    y_pred = _values(y_pred)
    y_true = _values(y_true, y_pred.dtype)
    y_true, y_pred = _squeeze_or_expand(y_true, y_pred)
    predicted = (y_pred > threshold).astype(y_true.dtype)
    return Tensor((y_true == predicted).astype(_floatx()))


def accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1.0 where ``y_pred`` equals ``y_true`` exactly, elementwise.

    Example:
        >>> accuracy([1, 2], [1, 3]).numpy()
        array([1., 0.], dtype=float32)
    """
    y_pred = _values(y_pred)
    y_true = _values(y_true, y_pred.dtype)
    y_true, y_pred = _squeeze_or_expand(y_true, y_pred)
    return Tensor((y_true == y_pred).astype(_floatx()))


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` equals the integer label.

    Example:
        >>> m = SparseCategoricalAccuracy()
        >>> m.update_state([2, 1], [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]])
        >>> float(m.result())
        0.5
    """

    def __init__(
        self, name: str = "sparse_categorical_accuracy", dtype: Any = None
    ) -> None:
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often ``argmax(y_pred)`` equals ``argmax`` of the one-hot label.

    Example:
        >>> float(CategoricalAccuracy()([[0, 1]], [[0.3, 0.7]]))
        1.0
    """

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches the 0/1 label.

    Example:
        >>> float(BinaryAccuracy()([[1.0], [0.0]], [[0.7], [0.6]]))
        0.5
    """

    def __init__(
        self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5
    ) -> None:
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels exactly.

    Example:
        >>> float(Accuracy()([1, 2], [1, 3]))
        0.5
    """

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(accuracy, name=name, dtype=dtype)


_BY_NAME: dict[str, type] = {
    "accuracy": Accuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "binary_accuracy": BinaryAccuracy,
    "mean": Mean,
}
_BY_NAME.update({cls.__name__: cls for cls in list(_BY_NAME.values())})


def get(identifier: Any) -> Any:
    """A metric from a name ("sparse_categorical_accuracy"), a Metric or callable.

    Raises:
        ValueError: for an unknown name or a value that is not callable.

    Example:
        >>> get("categorical_accuracy").name
        'categorical_accuracy'
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier)
        if cls is None:
            known = ", ".join(sorted(_BY_NAME))
            raise ValueError(
                f"Could not interpret metric identifier: {identifier!r}. Known names: "
                f"{known}."
            )
        return cls()
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret metric identifier: {identifier!r}. Pass a name such as "
        "'accuracy', a Metric, or a function (y_true, y_pred)."
    )
