"""Confusion-matrix metrics: counts, ``Precision``, ``Recall`` and ``AUC``.

Each keeps counts of true/false positives/negatives at its thresholds in
variables (:mod:`.confusion_matrix` counts a batch) and computes its result
from them, as Keras does: with one threshold the result is a scalar, with
several a vector.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.tensor import Tensor, array_of
from .base import Metric, divide_no_nan, values_of
from .confusion_matrix import (
    NEG_INF,
    confusion_counts,
    is_evenly_distributed,
    parse_thresholds,
)

__all__ = [
    "AUC",
    "FalseNegatives",
    "FalsePositives",
    "Precision",
    "Recall",
    "TrueNegatives",
    "TruePositives",
]


class _ConfusionCounts(Metric):
    """A metric that keeps some of the four counts, one per threshold."""

    _counts: tuple[str, ...] = ()
    _names = {
        "tp": "true_positives",
        "fp": "false_positives",
        "tn": "true_negatives",
        "fn": "false_negatives",
    }

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = 0.5 if top_k is None else NEG_INF
        self.thresholds = parse_thresholds(thresholds, default)
        self._evenly = is_evenly_distributed(self.thresholds)
        for count in self._counts:
            variable = self.add_variable(
                shape=(len(self.thresholds),), name=self._names[count]
            )
            setattr(self, self._names[count], variable)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the (weighted) counts of this batch at every threshold."""
        counts = confusion_counts(
            y_true,
            y_pred,
            self.thresholds,
            which=self._counts,
            evenly=self._evenly,
            sample_weight=sample_weight,
            top_k=self.top_k,
            class_id=self.class_id,
            dtype=self.dtype,
        )
        for count, value in counts.items():
            getattr(self, self._names[count]).assign_add(value)

    def _per_threshold(self, values: np.ndarray) -> Tensor:
        return Tensor(values[0] if len(self.thresholds) == 1 else values)

    def _count(self, count: str) -> np.ndarray:
        return array_of(getattr(self, self._names[count]))

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds}


class _ConditionCount(_ConfusionCounts):
    def __init__(
        self, thresholds: Any = None, name: str | None = None, dtype: Any = None
    ) -> None:
        super().__init__(thresholds=thresholds, name=name, dtype=dtype)

    def result(self) -> Tensor:
        return self._per_threshold(self._count(self._counts[0]).copy())


class TruePositives(_ConditionCount):
    """The (weighted) number of positive labels predicted above the threshold.

    Example:
        >>> float(TruePositives()([0, 1, 1, 1], [1, 0, 1, 1]))
        2.0
    """

    _counts = ("tp",)


class FalsePositives(_ConditionCount):
    """The (weighted) number of negative labels predicted above the threshold.

    Example:
        >>> float(FalsePositives()([0, 1, 0, 0], [0, 0, 1, 1]))
        2.0
    """

    _counts = ("fp",)


class TrueNegatives(_ConditionCount):
    """The (weighted) number of negative labels predicted at or below it.

    Example:
        >>> float(TrueNegatives()([0, 1, 0, 0], [1, 1, 0, 0]))
        2.0
    """

    _counts = ("tn",)


class FalseNegatives(_ConditionCount):
    """The (weighted) number of positive labels predicted at or below it.

    Example:
        >>> float(FalseNegatives()([0, 1, 1, 1], [0, 1, 0, 0]))
        2.0
    """

    _counts = ("fn",)


class Precision(_ConfusionCounts):
    """``tp / (tp + fp)``: how many of the predicted positives are positive.

    A prediction is positive above ``thresholds`` (0.5 by default); with
    ``top_k`` only each row's ``k`` best classes are; with ``class_id`` only
    that class counts.

    Args:
        thresholds: a float or a list of floats in [0, 1] (a list gives one
            precision per threshold).
        top_k: count the ``k`` best classes of each row as predicted.
        class_id: the class (last axis) to measure.
        name: the metric's name (default "precision", made unique).
        dtype: the metric's dtype.

    Example:
        >>> m = Precision()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> round(float(m.result()), 4)
        0.6667
    """

    _counts = ("tp", "fp")

    def result(self) -> Tensor:
        tp = self._count("tp")
        return self._per_threshold(divide_no_nan(tp, tp + self._count("fp")))

    def get_config(self) -> dict:
        return {**super().get_config(), "top_k": self.top_k, "class_id": self.class_id}


class Recall(_ConfusionCounts):
    """``tp / (tp + fn)``: how many of the positives are predicted positive.

    Takes the arguments of :class:`Precision`.

    Example:
        >>> m = Recall()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> round(float(m.result()), 4)
        0.6667
    """

    _counts = ("tp", "fn")

    def result(self) -> Tensor:
        tp = self._count("tp")
        return self._per_threshold(divide_no_nan(tp, tp + self._count("fn")))

    def get_config(self) -> dict:
        return {**super().get_config(), "top_k": self.top_k, "class_id": self.class_id}


_CURVES = {"roc": "ROC", "pr": "PR", "prgain": "PRGAIN"}
_SUMMATIONS = ("interpolation", "majoring", "minoring")


class AUC(Metric):
    """The area under the ROC (or precision-recall) curve, approximated at
    thresholds, as Keras computes it.

    Counts at ``num_thresholds`` thresholds spread evenly over [0, 1] (plus
    one just below 0 and one just above 1) give a point of the curve each; the
    area between consecutive points is summed: with "interpolation" (the
    trapezoid rule; for PR, Davis & Goadrich's interpolation), "minoring" or
    "majoring".

    Args:
        num_thresholds: the number of thresholds (> 1), default 200.
        curve: "ROC" (default), "PR" or "PRGAIN".
        summation_method: "interpolation" (default), "minoring" or "majoring".
        name: the metric's name (default "auc", made unique).
        dtype: the metric's dtype.
        thresholds: thresholds in [0, 1] to use instead of evenly spread ones.
        multi_label: compute one AUC per label (the last axis) and average them.
        num_labels: the number of labels, with ``multi_label`` (else taken from
            the first batch).
        label_weights: a weight per label (the average's weights, with
            ``multi_label``).
        from_logits: apply a sigmoid to the predictions first.

    Raises:
        ValueError: for ``num_thresholds`` <= 1, an unknown curve or summation
            method, or ``num_labels`` without ``multi_label``.

    Example:
        >>> m = AUC()
        >>> m.update_state([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        >>> round(float(m.result()), 4)
        0.75
    """

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            self.num_thresholds = len(thresholds) + 2
            inner = sorted(thresholds)
            self._evenly = is_evenly_distributed(np.array([0.0, *inner, 1.0]))
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    "Argument `num_thresholds` must be an integer > 1. "
                    f"Received: num_thresholds={num_thresholds}"
                )
            self.num_thresholds = num_thresholds
            inner = list(np.arange(1, num_thresholds - 1) / (num_thresholds - 1))
            self._evenly = True
        # one threshold just outside each end of [0, 1], for float imprecision
        eps = 1e-7
        self._thresholds = np.array([0.0 - eps, *inner, 1.0 + eps])
        self.curve = _parse_choice("curve", curve, _CURVES)
        self.summation_method = _parse_choice(
            "summation_method", summation_method, {s: s for s in _SUMMATIONS}
        )
        super().__init__(name=name, dtype=dtype)
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = (
            None if label_weights is None else values_of(label_weights, "float32")
        )
        self._from_logits = from_logits
        self._built = False
        if multi_label:
            if num_labels:
                self._build((None, num_labels))
        elif num_labels:
            raise ValueError("`num_labels` is needed only when `multi_label` is True.")
        else:
            self._build(None)

    @property
    def thresholds(self) -> list:
        """The thresholds, with the two outside [0, 1]."""
        return list(self._thresholds)

    def _build(self, shape: Any) -> None:
        if self.multi_label:
            if len(shape) != 2:
                raise ValueError(
                    "`y_pred` must have rank 2 when `multi_label=True`. Found rank "
                    f"{len(shape)}. Full shape received for `y_pred`: {shape}"
                )
            self._num_labels = shape[1]
            variable_shape: tuple = (self.num_thresholds, self._num_labels)
        else:
            variable_shape = (self.num_thresholds,)
        for name in ("true_positives", "false_positives", "true_negatives",
                     "false_negatives"):  # fmt: skip
            setattr(self, name, self.add_variable(shape=variable_shape, name=name))
        self._built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Add the counts of this batch at every threshold."""
        y_pred = values_of(y_pred, self.dtype)
        if not self._built:
            self._build(y_pred.shape)
        if self._from_logits:
            y_pred = _sigmoid(y_pred)
        counts = confusion_counts(
            y_true,
            y_pred,
            self._thresholds,
            evenly=self._evenly,
            sample_weight=sample_weight,
            multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
            dtype=self.dtype,
        )
        self.true_positives.assign_add(counts["tp"])
        self.false_positives.assign_add(counts["fp"])
        self.true_negatives.assign_add(counts["tn"])
        self.false_negatives.assign_add(counts["fn"])

    def result(self) -> Tensor:
        """The area under the curve so far (0 before any update)."""
        tp, fp = array_of(self.true_positives), array_of(self.false_positives)
        tn, fn = array_of(self.true_negatives), array_of(self.false_negatives)
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._average(self._interpolated_pr_areas(tp, fp, fn))
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), divide_no_nan(tp, tp + fn)
        elif self.curve == "PR":
            x, y = divide_no_nan(tp, tp + fn), divide_no_nan(tp, tp + fp)
        else:
            x, y = _precision_recall_gain(tp, fp, tn, fn)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2
        elif self.summation_method == "minoring":
            heights = np.minimum(y[:-1], y[1:])
        else:
            heights = np.maximum(y[:-1], y[1:])
        return self._average((x[:-1] - x[1:]) * heights)

    def _interpolated_pr_areas(
        self, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray
    ) -> np.ndarray:
        """Davis & Goadrich's interpolation of the PR curve, piece by piece."""
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = divide_no_nan(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        ratio = np.where(both, divide_no_nan(p[:-1], np.maximum(p[1:], 0)), 1)
        return divide_no_nan(
            slope * (dtp + intercept * np.log(ratio)), np.maximum(tp[1:] + fn[1:], 0)
        )

    def _average(self, pieces: np.ndarray) -> Tensor:
        """The sum of the areas, averaged over labels with ``multi_label``."""
        if not self.multi_label:
            return Tensor(pieces.sum(dtype=pieces.dtype))
        by_label = pieces.sum(axis=0, dtype=pieces.dtype)
        if self.label_weights is None:
            return Tensor(by_label.mean(dtype=by_label.dtype))
        weights = self.label_weights.astype(by_label.dtype)
        return Tensor(divide_no_nan((by_label * weights).sum(), weights.sum()))

    def reset_state(self) -> None:
        if self._built:
            super().reset_state()

    def get_config(self) -> dict:
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": self.label_weights,
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp of minus |x| only, so no logit overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


def _parse_choice(argument: str, value: Any, choices: dict[str, str]) -> str:
    choice = choices.get(str(value).lower())
    if choice is None:
        raise ValueError(
            f"Invalid AUC {argument} value: {value!r}. Expected one of "
            f"{sorted(set(choices.values()))}."
        )
    return choice


def _precision_recall_gain(
    tp: np.ndarray, fp: np.ndarray, tn: np.ndarray, fn: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Recall gain and precision gain (Flach & Kull), clamped as Keras does."""
    scale = divide_no_nan(tp + fn, tn + fp)
    recall_gain = 1.0 - scale * divide_no_nan(fn, tp)
    precision_gain = 1.0 - scale * divide_no_nan(fp, tp)
    no_tp = tp == 0
    recall_gain = np.maximum(np.where(no_tp, 0.0, recall_gain), 0.0)
    precision_gain = np.where(no_tp, 1.0, precision_gain)
    return recall_gain.astype(tp.dtype), precision_gain.astype(tp.dtype)
