"""What ``compile`` turns its arguments into: an optimizer, the compiled loss and
``CompileMetrics``, the one metric that holds every compiled metric.

As in Keras 3, ``model.metrics`` lists the loss tracker and then this
container (named "compile_metrics"), whose ``result()`` is a dict; the
training logs flatten it, so ``fit``'s history has one key per compiled
metric. Metrics named by strings are made when the first batch arrives, since
"accuracy" picks an accuracy that fits the labels and predictions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.ops.math import cast, multiply
from ...engine.tensor import Tensor
from .. import backend, optimizers
from .. import losses as losses_module
from .. import metrics as metrics_module

__all__ = ["CompileLoss", "CompileMetrics", "get_loss", "get_metric", "get_optimizer"]


_OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "rmsprop": "RMSprop"}


def get_optimizer(identifier: Any) -> Any:
    """An optimizer from a name ("adam") or an optimizer instance.

    Raises:
        ValueError: for anything else.

    Example:
        >>> type(get_optimizer("adam")).__name__
        'Adam'
    """
    if isinstance(identifier, str):
        name = _OPTIMIZERS.get(identifier.lower())
        if name is None:
            raise ValueError(
                f"Could not interpret optimizer identifier: {identifier!r}. Use one "
                f"of {sorted(_OPTIMIZERS)} or an optimizer instance."
            )
        return getattr(optimizers, name)()
    if isinstance(identifier, optimizers.Optimizer):
        return identifier
    raise ValueError(
        f"Could not interpret optimizer identifier: {identifier!r}. Pass a name such "
        "as 'adam' or an optimizer, e.g. keras.optimizers.Adam(learning_rate=1e-3)."
    )


def _object_name(obj: Any) -> str:
    """Keras' name for a metric or loss given as an object or a function."""
    if hasattr(obj, "name"):
        return obj.name
    if hasattr(obj, "__name__"):
        return backend._to_snake_case(obj.__name__)
    return backend._to_snake_case(type(obj).__name__)


def _binary_or_sparse(y_true: Any, y_pred: Any) -> tuple[bool, bool]:
    """Whether predictions are one probability, and whether labels are indices."""
    true_shape, pred_shape = np.shape(y_true), tuple(y_pred.shape)
    binary = pred_shape[-1] == 1
    sparse = len(true_shape) < len(pred_shape) or (
        true_shape[-1] == 1 and pred_shape[-1] > 1
    )
    return binary, sparse


def get_metric(identifier: Any, y_true: Any, y_pred: Any) -> metrics_module.Metric:
    """The metric ``compile`` makes of ``identifier``, named as Keras names it.

    "accuracy" and "acc" pick binary, sparse categorical or categorical accuracy
    from the shapes of the labels and predictions; a function becomes a
    ``MeanMetricWrapper``. A metric named by a string takes that string as name.

    Raises:
        ValueError: for None or an identifier ``keras.metrics.get`` rejects.

    Example:
        >>> import numpy as np
        >>> get_metric("acc", np.zeros(4), np.zeros((4, 3))).name
        'acc'
        >>> type(get_metric("mae", np.zeros((4, 1)), np.zeros((4, 1)))).__name__
        'MeanAbsoluteError'
    """
    if identifier is None:
        raise ValueError("Expected metric, received `None`")
    if str(identifier).lower() in ("accuracy", "acc"):
        binary, sparse = _binary_or_sparse(y_true, y_pred)
        if binary:
            metric = metrics_module.BinaryAccuracy(name=str(identifier))
        elif sparse:
            metric = metrics_module.SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = metrics_module.CategoricalAccuracy(name=str(identifier))
    else:
        metric = metrics_module.get(identifier)
    name = identifier if isinstance(identifier, str) else _object_name(metric)
    if not isinstance(metric, metrics_module.Metric):
        metric = metrics_module.MeanMetricWrapper(metric)
    metric.name = name
    return metric


def get_loss(identifier: Any, y_true: Any, y_pred: Any) -> losses_module.Loss:
    """The loss object ``compile`` makes of ``identifier``.

    "crossentropy" and "ce" pick the binary, sparse or categorical cross
    entropy from the shapes, as "accuracy" does for metrics.

    Example:
        >>> import numpy as np
        >>> get_loss("ce", np.zeros(4), np.zeros((4, 3))).name
        'ce'
    """
    if str(identifier).lower() in ("crossentropy", "ce"):
        binary, sparse = _binary_or_sparse(y_true, y_pred)
        if binary:
            loss = losses_module.binary_crossentropy
        elif sparse:
            loss = losses_module.sparse_categorical_crossentropy
        else:
            loss = losses_module.categorical_crossentropy
    else:
        loss = losses_module.get(identifier)
    if isinstance(loss, losses_module.Loss):
        return loss
    name = identifier if isinstance(identifier, str) else _object_name(loss)
    return losses_module.LossFunctionWrapper(loss, name=name)


def _single_output(y_pred: Any, what: str) -> None:
    if isinstance(y_pred, (list, tuple, dict)):
        raise NotImplementedError(
            f"tapemagic compiles {what} for models with one output; this model has "
            f"{len(y_pred)}. Write a train_step that computes the loss of each "
            "output, or build a model per output."
        )


class CompileLoss:
    """The compiled loss: the loss of ``y_pred`` against ``y``, times its weight.

    Args:
        loss: a loss name, a Loss, or a function ``(y_true, y_pred)``.
        loss_weights: a number multiplying the loss (None for 1).

    Raises:
        NotImplementedError: for a list or dict of losses or weights (several
            outputs).

    Example:
        >>> compiled = CompileLoss("mse", loss_weights=2.0)
        >>> float(compiled([[1.0]], Tensor(np.array([[3.0]], np.float32))))
        8.0
    """

    def __init__(self, loss: Any, loss_weights: Any = None) -> None:
        if isinstance(loss, (list, tuple, dict)) or isinstance(
            loss_weights, (list, tuple, dict)
        ):
            raise NotImplementedError(
                "compile(loss=[...]/{...}, loss_weights=[...]/{...}) gives a loss per "
                "output, and tapemagic compiles models with one output: pass one "
                "loss (and a number as loss_weights)."
            )
        self._user_loss = loss
        self._loss_weight = loss_weights
        self._loss: losses_module.Loss | None = None

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        if y_true is None:
            raise ValueError(
                "None values not supported. The batch has no targets `y`, so there "
                "is nothing to compare the predictions with: give fit/evaluate "
                "`(x, y)` (a dataset's elements as `(x, y)` tuples)."
            )
        _single_output(y_pred, "a loss")
        if self._loss is None:
            self._loss = get_loss(self._user_loss, y_true, y_pred)
        value = cast(self._loss(y_true, y_pred, sample_weight), backend.floatx())
        if self._loss_weight is not None:
            value = multiply(value, float(self._loss_weight))
        return value


class CompileMetrics(metrics_module.Metric):
    """The metrics given to ``compile``, updated and reported together.

    ``metrics`` are updated without ``sample_weight`` and
    ``weighted_metrics`` with it, as in Keras 3. It is built by its first
    update; ``result()`` is ``{name: value}`` for every metric (a weighted
    metric whose name is taken gets "weighted_" in front).

    Args:
        metrics: a list (or tuple, or dict) of metric names, objects or
            functions.
        weighted_metrics: the same, for metrics weighted by ``sample_weight``.

    Raises:
        ValueError: if ``metrics`` or ``weighted_metrics`` is not a list,
            tuple or dict.

    Example:
        >>> m = CompileMetrics(["mae"], None)
        >>> m.update_state([[1.0], [2.0]], np.array([[1.5], [2.0]], np.float32))
        >>> {k: float(v) for k, v in m.result().items()}
        {'mae': 0.25}
    """

    def __init__(
        self, metrics: Any, weighted_metrics: Any, name: str = "compile_metric"
    ) -> None:
        super().__init__(name=name)
        for argument, value in (
            ("metrics", metrics),
            ("weighted_metrics", weighted_metrics),
        ):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(
                    f"Expected `{argument}` argument to be a list, tuple, or dict. "
                    f"Received instead: {argument}={value} of type {type(value)}"
                )
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self._unweighted: list[metrics_module.Metric] = []
        self._weighted: list[metrics_module.Metric] = []
        self.built = False
        self.name = "compile_metrics"

    @property
    def metrics(self) -> list[metrics_module.Metric]:
        """The compiled metrics (none before the first update)."""
        return self._unweighted + self._weighted

    @property
    def variables(self) -> list:
        return [v for m in self.metrics for v in m.variables]

    def build(self, y_true: Any, y_pred: Any) -> None:
        """Make the metrics, now that the shapes of a batch are known."""
        _single_output(y_pred, "metrics")
        self._unweighted = [
            get_metric(m, y_true, y_pred) for m in _flat(self._user_metrics)
        ]
        self._weighted = [
            get_metric(m, y_true, y_pred) for m in _flat(self._user_weighted_metrics)
        ]
        self.built = True

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if not self.built:
            self.build(y_true, y_pred)
        for metric in self._unweighted:
            metric.update_state(y_true, y_pred)
        for metric in self._weighted:
            metric.update_state(y_true, y_pred, sample_weight=sample_weight)

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def result(self) -> dict[str, Tensor]:
        """``{name: value}``, the unweighted metrics first.

        Raises:
            ValueError: before the first update.
        """
        if not self.built:
            raise ValueError(
                "Cannot get result() since the metric has not yet been built."
            )
        results: dict[str, Tensor] = {}
        seen: dict[str, int] = {}
        for metric in self._unweighted:
            results[_unique(metric.name, seen)] = metric.result()
        for metric in self._weighted:
            name = metric.name
            if name in seen:
                name = f"weighted_{name}"
            results[_unique(name, seen)] = metric.result()
        return results


def _unique(name: str, seen: dict[str, int]) -> str:
    """``name``, then ``name_1``, ``name_2``... for the same name again."""
    if name not in seen:
        seen[name] = 1
        return name
    index = seen[name]
    seen[name] += 1
    return f"{name}_{index}"


def _flat(metrics: Any) -> list:
    """The metrics of one output: a list's items, or a dict's values by key."""
    if not metrics:
        return []
    if isinstance(metrics, dict):
        return [m for key in sorted(metrics) for m in _flat(metrics[key])]
    if isinstance(metrics, (list, tuple)):
        return [m for item in metrics for m in _flat(item)]
    return [metrics]
