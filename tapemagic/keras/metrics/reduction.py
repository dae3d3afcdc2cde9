"""Metrics that reduce values: ``Sum``, ``Mean``, and ``MeanMetricWrapper``.

Values of rank > 1 count once per example: each example's values are reduced
first (summed for ``Sum``, averaged for ``Mean``), as Keras does, and a
``sample_weight`` weighs whole examples (or, with more axes, parts of them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...engine.tensor import Tensor, array_of
from .base import Metric, divide_no_nan, numpy_dtype, squeeze_or_expand, values_of

__all__ = ["Mean", "MeanMetricWrapper", "Sum", "reduce_to_samplewise_values"]


def reduce_to_samplewise_values(
    values: Any, sample_weight: Any, reduce_fn: Callable, dtype: Any
) -> tuple[np.ndarray, np.ndarray | None]:
    """Weighted values, one per example, and the weights, as Keras reduces them.

    Values beyond the weight's rank are reduced with ``reduce_fn`` first; the
    weight is broadcast to the values and multiplies them; then each example's
    values (and weights) are reduced to one.

    Raises:
        ValueError: if ``sample_weight`` does not broadcast to the values.

    Example:
        >>> v, w = reduce_to_samplewise_values(
        ...     [[1.0, 3.0], [5.0, 7.0]], [1.0, 0.5], np.mean, "float32")
        >>> v.tolist(), w.tolist()
        ([2.0, 3.0], [1.0, 0.5])
    """
    np_dtype = numpy_dtype(dtype)
    values = values_of(values, np_dtype)
    if sample_weight is not None:
        sample_weight = values_of(sample_weight, np_dtype)
        values, sample_weight = squeeze_or_expand(values, sample_weight)
        weight_ndim = sample_weight.ndim
        if values.ndim > weight_ndim:
            values = reduce_fn(values, axis=tuple(range(weight_ndim, values.ndim)))
        try:
            sample_weight = np.broadcast_to(sample_weight, values.shape)
        except ValueError:
            raise ValueError(
                f"sample_weight of shape {sample_weight.shape} does not fit the "
                f"metric's values of shape {values.shape}: a weight needs one "
                "value per example. A metric of rank-1 labels gives one value for "
                "the whole batch; pass labels and predictions of shape (N, 1)."
            ) from None
        values = values * sample_weight
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=tuple(range(1, weight_ndim)))
    if values.ndim > 1:
        values = reduce_fn(values, axis=tuple(range(1, values.ndim)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the values seen so far.

    Example:
        >>> m = Sum()
        >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> float(m.result())
        4.0
    """

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Add the (weighted) ``values``."""
        values, _ = reduce_to_samplewise_values(
            values, sample_weight, np.sum, self.dtype
        )
        self.total.assign_add(values.sum(dtype=values.dtype))

    def result(self) -> Tensor:
        return Tensor(array_of(self.total).copy())


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
        values, sample_weight = reduce_to_samplewise_values(
            values, sample_weight, np.mean, self.dtype
        )
        if sample_weight is not None:
            count = sample_weight.sum(dtype=values.dtype)
        else:
            count = values.shape[0] if values.ndim >= 1 else 1
        self.total.assign_add(values.sum(dtype=values.dtype))
        self.count.assign_add(np.asarray(count, values.dtype))

    def result(self) -> Tensor:
        """``total / count`` (0 before any update)."""
        return Tensor(divide_no_nan(array_of(self.total), array_of(self.count)))


class MeanMetricWrapper(Mean):
    """The running mean of ``fn(y_true, y_pred, **kwargs)``, one value per example.

    Args:
        fn: a function of ``(y_true, y_pred)`` giving a value per example.
        name: the metric's name (default "mean_metric_wrapper", made unique).
        dtype: the metric's dtype.
        **kwargs: passed on to ``fn``.

    Example:
        >>> def abs_error(y_true, y_pred):
        ...     return abs(np.asarray(y_true) - np.asarray(y_pred))
        >>> m = MeanMetricWrapper(abs_error, name="abs_error")
        >>> float(m([1.0, 2.0], [1.5, 1.0]))
        0.75
    """

    def __init__(
        self, fn: Callable, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the per-example values of ``fn`` for this batch."""
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values, sample_weight=sample_weight)

    def get_config(self) -> dict:
        return {**super().get_config(), "fn": self._fn, **self._fn_kwargs}
