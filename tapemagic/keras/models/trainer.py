"""``compile``, the metrics and the loss, and the steps: the training half of a model.

``fit`` runs the same loop a course notebook writes by hand: for each batch,
``train_step`` opens a ``GradientTape``, calls the model with ``training=True``,
computes the loss, takes ``tape.gradient(loss, model.trainable_weights)`` and
hands it to the optimizer. Override ``train_step`` (or ``test_step``) to
customise it, as in Keras. :class:`Trainer` holds this half of a model;
``Model`` is a ``Trainer`` and a ``Layer``, as in Keras 3. What ``compile``
makes of its arguments is in :mod:`.compile_utils`; the loops (``fit``,
``evaluate``, ``predict``) in :mod:`.loops`, over the batches of
:mod:`.epoch_iterator`.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any

import numpy as np

from ...engine.ops.math import cast
from ...engine.ops.reduce import reduce_sum
from ...engine.ops.shape import stack
from ...engine.tape import GradientTape
from ...engine.tensor import Tensor, Variable, array_of
from .. import backend
from .. import metrics as metrics_module
from .compile_utils import CompileLoss, CompileMetrics, get_optimizer
from .epoch_iterator import unpack_x_y_sample_weight
from .loops import TrainingLoops, untracked_advice, untracked_variables

__all__ = ["Trainer"]


# -- helpers ---------------------------------------------------------------------------


def _batch_size(x: Any) -> int:
    """The number of examples in a batch of inputs (the first input's)."""
    while isinstance(x, (list, tuple, dict)):
        x = next(iter(x.values() if isinstance(x, dict) else x))
    return int(np.shape(array_of(x) if isinstance(x, (Tensor, Variable)) else x)[0])


def _metric_attributes(obj: Any, skip: list) -> list[metrics_module.Metric]:
    """The metrics held in ``obj``'s attributes (and their lists), in order."""
    found: list = []
    for value in vars(obj).values():
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, metrics_module.Metric) and not any(
                item is other for other in skip + found
            ):
                found.append(item)
    return found


@functools.cache
def _takes_training(compute_loss: Any) -> bool:
    return "training" in inspect.signature(compute_loss).parameters


# -- Trainer ---------------------------------------------------------------------------


class Trainer(TrainingLoops):
    """The training half of a ``Model``: compile, the steps and the loops.

    A mixin: the model it is mixed into is a ``Layer`` that can be called on a
    batch (``self(x, training=True)``) and lists ``trainable_weights``.

    Example:
        >>> import numpy as np
        >>> from tapemagic.keras import Input, Sequential, layers
        >>> model = Sequential([Input(shape=(2,)), layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
        >>> history = model.fit(np.ones((8, 2)), np.ones((8, 1)), epochs=2, verbose=0)
        >>> sorted(history.history), len(history.history["loss"])
        (['loss', 'mae'], 2)
        >>> [m.name for m in model.metrics]
        ['loss', 'compile_metrics']
    """

    def __init__(self) -> None:
        d = self.__dict__
        d["optimizer"] = None
        d["loss"] = None
        d["compiled"] = False
        d["stop_training"] = False
        d["_compile_loss"] = None
        d["_compile_metrics"] = None
        d["_loss_tracker"] = None
        d["history"] = None

    # -- training configuration --------------------------------------------------------
    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        loss_weights: Any = None,
        metrics: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile: Any = "auto",
        auto_scale_loss: bool = True,
    ) -> None:
        """Choose the optimizer, loss and metrics that ``fit`` and ``evaluate`` use.

        As in Keras 3, a ``compile`` without ``loss`` (or without metrics) keeps
        those of an earlier ``compile``.

        Args:
            optimizer: a name ("adam", "sgd", "rmsprop") or an optimizer.
            loss: a name ("sparse_categorical_crossentropy", "mse", ...), a Loss,
                or a function ``(y_true, y_pred)``.
            loss_weights: a number multiplying the loss.
            metrics: a list of names ("accuracy" picks the accuracy that fits the
                labels), Metric objects or functions; updated without
                ``sample_weight``.
            weighted_metrics: the same, updated with ``sample_weight``.
            run_eagerly: accepted for compatibility (always eager).
            steps_per_execution: accepted for compatibility.
            jit_compile: accepted for compatibility.
            auto_scale_loss: accepted for compatibility.

        Raises:
            ValueError: for an unknown optimizer, or metrics not in a list.
            NotImplementedError: for a loss per output (a list or dict).
        """
        self.optimizer = get_optimizer(optimizer)
        if loss is not None:
            self._compile_loss = CompileLoss(loss, loss_weights)
            self.loss = loss
        if metrics is not None or weighted_metrics is not None:
            self._compile_metrics = CompileMetrics(metrics, weighted_metrics)
        self.stop_training = False
        self.compiled = True
        self._loss_tracker = metrics_module.Mean(name="loss")

    def _assert_compiled(self, method: str) -> None:
        if not self.compiled:
            raise ValueError(
                "You must call `compile()` before using the model, e.g. "
                "model.compile(optimizer='adam', "
                "loss='sparse_categorical_crossentropy', metrics=['accuracy']), "
                f"then call `{method}()`."
            )

    @property
    def metrics(self) -> list[metrics_module.Metric]:
        """The loss tracker, the compiled metrics (one ``CompileMetrics``), then
        the metrics held in attributes of the model and its layers."""
        found: list = []
        if self.compiled:
            found.append(self._loss_tracker)
            if self._compile_metrics is not None:
                found.append(self._compile_metrics)
        own = [self._loss_tracker, self._compile_metrics]
        found.extend(_metric_attributes(self, own + found))
        for layer in self._flatten_layers(include_self=False):
            if not isinstance(layer, Trainer):
                found.extend(_metric_attributes(layer, own + found))
        return found

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        """Reset the state of every metric in ``metrics``."""
        for metric in self.metrics:
            metric.reset_state()

    def compute_loss(
        self,
        x: Any = None,
        y: Any = None,
        y_pred: Any = None,
        sample_weight: Any = None,
        training: bool = True,
    ) -> Tensor:
        """The compiled loss of ``y_pred`` against ``y``, plus the ``add_loss``
        losses of the model's layers (a scalar tensor).

        Args:
            x: the inputs (unused by this default).
            y: the targets.
            y_pred: the model's predictions.
            sample_weight: a weight per example for the compiled loss.
            training: whether it is a training step (unused by this default).

        Raises:
            ValueError: if there is no loss at all (none compiled, none added).
        """
        losses = []
        if self._compile_loss is not None:
            losses.append(self._compile_loss(y, y_pred, sample_weight))
        for loss in self.losses:
            if not loss.dtype.is_floating:
                loss = cast(loss, backend.floatx())
            losses.append(reduce_sum(loss))
        if not losses:
            raise ValueError(
                "No loss to compute. Provide a `loss` argument in `compile()`."
            )
        return losses[0] if len(losses) == 1 else reduce_sum(stack(losses))

    def _compute_loss(self, **kwargs: Any) -> Tensor:
        # an override of compute_loss written before Keras 3.3 has no `training`
        if not _takes_training(type(self).compute_loss):
            kwargs.pop("training", None)
        return self.compute_loss(**kwargs)

    def compute_metrics(
        self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None
    ) -> dict[str, Any]:
        """Update the compiled metrics with a batch; every metric's value by name."""
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, Any]:
        """``{name: value}`` for every metric in ``metrics``, a dict result
        (the compiled metrics) merged in."""
        results: dict[str, Any] = {}
        for metric in self.metrics:
            value = metric.result()
            if isinstance(value, dict):
                results.update(value)
            else:
                results[metric.name] = value
        return results

    # -- what Keras 2 train steps call (deprecated in Keras 3, as there) ---------------
    @property
    def compiled_metrics(self) -> _CompiledMetrics:
        """Keras 2's ``self.compiled_metrics.update_state(y, y_pred)``.

        Deprecated, as in Keras 3: it warns and updates every metric in
        ``metrics``, a ``Mean`` (such as the loss tracker) with ``y_pred``.
        """
        return _CompiledMetrics(self)

    def compiled_loss(
        self,
        y: Any,
        y_pred: Any,
        sample_weight: Any = None,
        regularization_losses: Any = None,
    ) -> Tensor:
        """Keras 2's compiled loss: ``compute_loss`` (with a deprecation warning);
        ``regularization_losses`` is ignored, since it adds ``self.losses``."""
        warnings.warn(
            "`model.compiled_loss()` is deprecated. Instead, use "
            "`model.compute_loss(x, y, y_pred, sample_weight, training)`.",
            stacklevel=2,
        )
        return self.compute_loss(
            x=None, y=y, y_pred=y_pred, sample_weight=sample_weight
        )

    def train_step(self, data: Any) -> dict[str, Any]:
        """One optimization step on a batch: the GradientTape loop of a notebook.

        Args:
            data: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``.

        Returns:
            The metrics so far this epoch, by name.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._compute_loss(
                x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True
            )
            self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        variables = self.trainable_weights
        if variables:
            self.optimizer.apply(tape.gradient(loss, variables), variables)
        else:
            message = "The model does not have any trainable weights."
            untracked = untracked_variables(self)
            if untracked:
                message += " " + untracked_advice(untracked)
            warnings.warn(message, stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data: Any) -> dict[str, Any]:
        """Loss and metrics on a batch, with ``training=False`` and no update."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self._compute_loss(
            x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False
        )
        self._loss_tracker.update_state(loss, sample_weight=_batch_size(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's output on a batch, with ``training=False``."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)


class _CompiledMetrics:
    """What ``model.compiled_metrics`` gives: Keras 3's deprecated shim."""

    def __init__(self, model: Trainer) -> None:
        self._model = model

    def update_state(self, y: Any, y_pred: Any, sample_weight: Any = None) -> None:
        warnings.warn(
            "`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\n"
            "for metric in self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
            stacklevel=2,
        )
        for metric in self._model.metrics:
            # as Keras 3 does: a Mean (the loss tracker too) takes the predictions
            if isinstance(metric, metrics_module.Mean):
                metric.update_state(y_pred, sample_weight=sample_weight)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
