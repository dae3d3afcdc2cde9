"""The Keras 3 ``Loss`` base class and the reductions every loss shares.

A loss object converts ``y_true`` and ``y_pred`` to its dtype (floatx,
"float32", unless given), computes one loss per example with ``call``, weights
them by ``sample_weight`` and reduces them, by default with Keras'
"sum_over_batch_size": the sum of the (weighted) losses divided by how many
there are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...engine import dtypes
from ...engine.ops.math import cast, divide_no_nan
from ...engine.ops.reduce import reduce_sum
from ...engine.ops.shape import expand_dims, squeeze
from ...engine.tensor import Tensor, Variable, convert_to_tensor
from .. import backend

__all__ = ["Loss", "LossFunctionWrapper", "squeeze_or_expand_to_same_rank"]

_REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean",
               "mean_with_sample_weight")  # fmt: skip


def _convert(x: Any, dtype: Any) -> Tensor:
    """``x`` as a tensor of ``dtype``: a tensor is cast (recorded), data converted."""
    target = dtypes.as_dtype(backend.standardize_dtype(dtype))
    if isinstance(x, (Tensor, Variable)):
        return cast(convert_to_tensor(x), target)
    array = np.asarray(x)
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"Expected numbers for a loss or metric, got {x!r} (NumPy dtype "
            f"{array.dtype})."
        )
    return Tensor(array.astype(target.as_numpy_dtype))


def squeeze_or_expand_to_same_rank(
    x1: Tensor, x2: Tensor, expand_rank_1: bool = True
) -> tuple[Tensor, Tensor]:
    """Make ranks equal when they differ by one and the longer ends in 1 (Keras).

    ``(N,)`` against ``(N, 1)`` becomes ``(N, 1)`` and ``(N, 1)``; ``(N, M)``
    against ``(N, M, 1)`` drops the trailing 1.

    Example:
        >>> a, b = squeeze_or_expand_to_same_rank(
        ...     convert_to_tensor([1.0, 2.0]), convert_to_tensor([[1.0], [2.0]]))
        >>> a.shape, b.shape
        (TensorShape([2, 1]), TensorShape([2, 1]))
    """
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, -1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, -1)
    return x1, x2


def _standardize_reduction(reduction: Any) -> Any:
    if reduction not in _REDUCTIONS:
        raise ValueError(
            "Invalid value for argument `reduction`. Expected one of "
            f"{set(_REDUCTIONS)}. Received: reduction={reduction!r}"
        )
    return reduction


def _reduce_values(values: Tensor, sample_weight: Any, reduction: Any) -> Tensor:
    if reduction in (None, "none") or tuple(values.shape) in ((), (0,)):
        return values
    loss = reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            loss = divide_no_nan(loss, cast(reduce_sum(sample_weight), loss.dtype))
        else:
            loss = loss / int(np.prod(values.shape))
    return loss


def _reduce_weighted_values(
    values: Any, sample_weight: Any, reduction: Any, dtype: Any
) -> Tensor:
    reduction = _standardize_reduction(reduction)
    values = _convert(values, dtype)
    if sample_weight is not None:
        sample_weight = _convert(sample_weight, values.dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return _reduce_values(values, sample_weight, reduction)


class Loss:
    """Base class of losses: subclasses define ``call(y_true, y_pred)``.

    Calling a loss converts both arguments to its dtype, computes ``call`` (one
    loss per example), multiplies by ``sample_weight`` if given and reduces.

    Args:
        name: the loss's name.
        reduction: "sum_over_batch_size" (default) or "mean": sum / number of
            losses; "sum"; "mean_with_sample_weight": sum / sum of weights; None or
            "none": no reduction.
        dtype: the dtype of the computation (default floatx).

    Raises:
        ValueError: for an unknown reduction.

    Example:
        >>> class Half(Loss):
        ...     def call(self, y_true, y_pred):
        ...         return 0.5 * (y_true - y_pred)
        >>> Half()([2.0, 4.0], [0.0, 0.0]).numpy()
        np.float32(1.5)
    """

    def __init__(
        self,
        name: str | None = None,
        reduction: Any = "sum_over_batch_size",
        dtype: Any = None,
    ) -> None:
        self.name = backend._auto_name(type(self).__name__) if name is None else name
        self.reduction = _standardize_reduction(reduction)
        self._dtype = backend.standardize_dtype(dtype)

    @property
    def dtype(self) -> str:
        return self._dtype

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        y_pred = _convert(y_pred, self.dtype)
        y_true = _convert(y_true, self.dtype)
        losses = self.call(y_true, y_pred)
        return _reduce_weighted_values(
            losses, sample_weight, self.reduction, self.dtype
        )

    def call(self, y_true: Tensor, y_pred: Tensor) -> Tensor:
        raise NotImplementedError(
            f"{type(self).__name__} must define call(self, y_true, y_pred)."
        )

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict) -> Loss:
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


class LossFunctionWrapper(Loss):
    """A loss object around a function ``fn(y_true, y_pred, **kwargs)``.

    Example:
        >>> LossFunctionWrapper(lambda t, p: (t - p) ** 2)([[1.0]], [[3.0]]).numpy()
        np.float32(4.0)
    """

    def __init__(
        self,
        fn: Callable,
        reduction: Any = "sum_over_batch_size",
        name: str | None = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: Tensor, y_pred: Tensor) -> Tensor:
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", repr(self.fn))
        return f"<LossFunctionWrapper({name}, kwargs={self._fn_kwargs})>"
