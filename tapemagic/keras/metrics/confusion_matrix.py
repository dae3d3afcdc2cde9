"""Counting true/false positives/negatives at thresholds, as Keras' metrics_utils.

A prediction is positive at a threshold when it is strictly greater than it;
a label is positive when it is not 0. Counts are weighted by
``sample_weight`` (and, for AUC, ``label_weights``) and come back as one value
per threshold, or per threshold and label with ``multi_label``.

Two ways of counting give the same counts up to float rounding, and Keras
picks between them, so tapemagic does too: thresholds spread evenly over
[0, 1] (AUC's default) put each prediction in a bucket, ``ceil(p * (T - 1)) -
1``, and sum the buckets from the top; any other thresholds compare every
prediction with every threshold.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import backend
from .base import numpy_dtype, squeeze_or_expand, values_of

__all__ = [
    "NEG_INF",
    "confusion_counts",
    "is_evenly_distributed",
    "parse_thresholds",
]

# the threshold below every score: with top_k, the classes outside the top k
# are moved below it
NEG_INF = -1e10

_COUNTS = ("tp", "fp", "tn", "fn")


def parse_thresholds(thresholds: Any, default: float) -> list[float]:
    """The thresholds as a list (``default`` alone when None).

    Raises:
        ValueError: for a threshold outside [0, 1].

    Example:
        >>> parse_thresholds(None, 0.5), parse_thresholds(0.3, 0.5)
        ([0.5], [0.3])
    """
    if thresholds is None:
        return [default]
    if isinstance(thresholds, Iterable) and not isinstance(thresholds, str):
        values = list(thresholds)
    else:
        values = [thresholds]
    invalid = [t for t in values if t is None or t < 0 or t > 1]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {invalid}")
    return values


def is_evenly_distributed(thresholds: Any) -> bool:
    """Whether there are 3 or more thresholds at ``i / (T - 1)`` (within 1e-7).

    Example:
        >>> is_evenly_distributed([0.0, 0.5, 1.0]), is_evenly_distributed([0.5])
        (True, False)
    """
    count = len(thresholds)
    if count < 3:
        return False
    even = np.arange(count, dtype=np.float32) / (count - 1)
    return bool(np.allclose(thresholds, even, atol=backend.epsilon()))


def _filter_top_k(x: np.ndarray, k: int) -> np.ndarray:
    """``x`` with every score outside each row's top ``k`` set to NEG_INF."""
    # a stable sort keeps the first of tied scores first, as tf.math.top_k does
    top = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    mask = np.zeros_like(x)
    np.put_along_axis(mask, top, 1, axis=-1)
    return x * mask + x.dtype.type(NEG_INF) * (1 - mask)


def _weights(
    sample_weight: np.ndarray | None,
    label_weights: Any,
    shape: tuple,
    multi_label: bool,
    dtype: np.dtype,
) -> np.ndarray | None:
    weights = None
    if sample_weight is not None:
        weights = np.broadcast_to(sample_weight, shape).astype(dtype)
    if label_weights is not None and not multi_label:
        per_label = np.broadcast_to(values_of(label_weights, dtype)[None], shape)
        weights = per_label if weights is None else weights * per_label
    return weights


def confusion_counts(
    y_true: Any,
    y_pred: Any,
    thresholds: Any,
    which: Iterable[str] = _COUNTS,
    evenly: bool = False,
    sample_weight: Any = None,
    top_k: int | None = None,
    class_id: int | None = None,
    multi_label: bool = False,
    label_weights: Any = None,
    dtype: Any = None,
) -> dict[str, np.ndarray]:
    """The weighted counts of this batch, for each of ``which`` ("tp", "fp"...).

    Args:
        y_true: labels (positive when not 0).
        y_pred: scores, positive at a threshold when strictly greater.
        thresholds: the thresholds, in increasing order when ``evenly``.
        which: the counts wanted.
        evenly: whether the thresholds are spread evenly over [0, 1] (then the
            scores are clipped to [0, 1] and bucketed).
        sample_weight: a weight per example (broadcast to the scores).
        top_k: count only each row's ``k`` best scores as positives.
        class_id: count only this class (the last axis).
        multi_label: count each label (the last axis) on its own.
        label_weights: a weight per label, when not ``multi_label``.
        dtype: the dtype of the counts (default floatx).

    Returns:
        ``{name: counts}``, each of shape ``(T,)``, or ``(T, labels)`` with
        ``multi_label``.

    Raises:
        ValueError: for ``class_id`` with rank-1 scores.

    Example:
        >>> counts = confusion_counts([1, 0, 1], [0.9, 0.6, 0.2], [0.5])
        >>> {k: v.tolist() for k, v in counts.items()}
        {'tp': [1.0], 'fp': [1.0], 'tn': [0.0], 'fn': [1.0]}
    """
    np_dtype = numpy_dtype(dtype)
    y_true = values_of(y_true, np_dtype)
    y_pred = values_of(y_pred, np_dtype)
    thresholds = np.asarray(thresholds, np_dtype)
    y_pred, y_true = squeeze_or_expand(y_pred, y_true)
    if sample_weight is not None:
        sample_weight = values_of(sample_weight, np_dtype)[..., None]
        _, sample_weight = squeeze_or_expand(y_true, sample_weight, expand_rank_1=False)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.ndim == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape "
                f"(num_samples, num_classes), found shape: {y_pred.shape}"
            )
        y_true = y_true[..., class_id, None]
        y_pred = y_pred[..., class_id, None]
    weights = _weights(
        sample_weight, label_weights, y_pred.shape, multi_label, np_dtype
    )
    labels = y_true != 0
    if not multi_label:
        y_pred, labels = y_pred.reshape(-1), labels.reshape(-1)
        weights = None if weights is None else weights.reshape(-1)
    if evenly:
        counts = _bucketed_counts(labels, y_pred, thresholds, weights, np_dtype)
    else:
        counts = _compared_counts(labels, y_pred, thresholds, weights, np_dtype)
    return {name: counts[name] for name in which}


def _compared_counts(
    labels: np.ndarray,
    scores: np.ndarray,
    thresholds: np.ndarray,
    weights: np.ndarray | None,
    dtype: np.dtype,
) -> dict[str, np.ndarray]:
    """Every score against every threshold: ``(T, N[, L])`` comparisons."""
    column = thresholds.reshape((-1,) + (1,) * scores.ndim)
    positive = scores[None] > column
    label = labels[None]

    def total(condition: np.ndarray) -> np.ndarray:
        if weights is None:
            return np.count_nonzero(condition, axis=1).astype(dtype)
        return np.where(condition, weights[None], 0).sum(axis=1, dtype=dtype)

    return {
        "tp": total(label & positive),
        "fp": total(~label & positive),
        "tn": total(~label & ~positive),
        "fn": total(label & ~positive),
    }


def _bucketed_counts(
    labels: np.ndarray,
    scores: np.ndarray,
    thresholds: np.ndarray,
    weights: np.ndarray | None,
    dtype: np.dtype,
) -> dict[str, np.ndarray]:
    """Scores in buckets between evenly spread thresholds, summed from the top."""
    count = len(thresholds)
    scores = np.clip(scores, 0, 1)
    weights = np.ones_like(scores) if weights is None else weights
    true_weights = labels * weights
    false_weights = ~labels * weights
    # a score above threshold i lands in a bucket >= i; the float32 product
    # matches Keras' bucket edges exactly
    bucket = np.ceil(scores * dtype.type(count - 1)) - 1
    if thresholds[0] < 0.0 or thresholds[-1] > 1.0:
        # the outer thresholds sit just outside [0, 1]: every score is above the
        # first one
        bucket = np.maximum(bucket, 0)
    bucket = bucket.astype(np.int64)
    labels_count = 1 if scores.ndim == 1 else scores.shape[-1]
    # one run of buckets per label; a bucket of -1 (a score of 0 with no
    # threshold below 0) is above no threshold
    ids = bucket + count * np.arange(labels_count) if scores.ndim > 1 else bucket
    kept = bucket >= 0

    def from_top(values: np.ndarray) -> np.ndarray:
        sums = np.bincount(
            ids[kept], weights=values[kept], minlength=count * labels_count
        )
        sums = sums.reshape(labels_count, count)[:, ::-1].cumsum(axis=1)[:, ::-1]
        return (sums.T if scores.ndim > 1 else sums[0]).astype(dtype)

    tp, fp = from_top(true_weights), from_top(false_weights)
    total_true = true_weights.sum(axis=0, dtype=dtype)
    total_false = false_weights.sum(axis=0, dtype=dtype)
    return {"tp": tp, "fp": fp, "tn": total_false - fp, "fn": total_true - tp}
