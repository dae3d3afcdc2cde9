"""``compile``/``fit``/``evaluate``/``predict``: the training loop on a GradientTape.

``fit`` runs the same loop a course notebook writes by hand: for each batch,
``train_step`` opens a ``GradientTape``, calls the model with ``training=True``,
computes the loss, takes ``tape.gradient(loss, model.trainable_weights)`` and
hands it to the optimizer. Override ``train_step`` (or ``test_step``) to
customise it, as in Keras. :class:`Trainer` holds this half of a model;
``Model`` is a ``Trainer`` and a ``Layer``, as in Keras 3. What ``compile``
makes of its arguments is in :mod:`.compile_utils`; the batches of each epoch
come from :mod:`.epoch_iterator`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
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
from ..callbacks import History
from ..layers.variable import KerasVariable
from .compile_utils import CompileLoss, CompileMetrics, get_optimizer
from .epoch_iterator import (
    EpochIterator,
    train_validation_split,
    unpack_x_y_sample_weight,
)

__all__ = ["Trainer"]


# -- logs ------------------------------------------------------------------------------


def _pythonify_logs(logs: Any) -> dict[str, Any]:
    """Logs as Keras hands them to callbacks: keys sorted, nested dicts (the
    compiled metrics) flattened in place, tensors turned into floats."""
    if not isinstance(logs, dict):
        raise TypeError(
            "train_step/test_step must return a dict of metric values, e.g. "
            f"{{m.name: m.result() for m in self.metrics}}, got {logs!r}."
        )
    result: dict[str, Any] = {}
    for key, value in sorted(logs.items()):
        if isinstance(value, dict):
            result.update(_pythonify_logs(value))
            continue
        if isinstance(value, (Tensor, Variable)):
            value = array_of(value)
        with contextlib.suppress(TypeError, ValueError):
            value = float(value)
        result[key] = value
    return result


def _format_value(value: Any) -> str:
    if not isinstance(value, float):
        return str(value)
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def _progress_line(steps: int, seconds: float, logs: dict) -> str:
    per_step = 1000 * seconds / max(steps, 1)
    line = f"{steps}/{steps} - {seconds:.0f}s - {per_step:.0f}ms/step"
    details = " - ".join(f"{k}: {_format_value(v)}" for k, v in logs.items())
    return line + (f" - {details}" if details else "")


def _verbosity(verbose: Any) -> int:
    return 1 if verbose == "auto" else int(verbose)


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


def _untracked_variables(model: Any) -> list[str]:
    """``tf.Variable`` attributes of the model and its layers, which Keras 3
    does not track (only ``add_weight`` and ``keras.Variable`` weights)."""
    found = []
    for layer in model._flatten_layers():
        for attr, value in vars(layer).items():
            items = value if isinstance(value, (list, tuple)) else (value,)
            if any(
                isinstance(v, Variable) and not isinstance(v, KerasVariable)
                for v in items
            ):
                found.append(attr if layer is model else f"{layer.name}.{attr}")
    return found


def _untracked_advice(names: list[str]) -> str:
    return (
        f"Keras 3 does not track tf.Variable attributes of a layer or model (here: "
        f"{', '.join(names)}), so they are not in trainable_variables and fit() "
        "does not train them. Create them with self.add_weight(...) (in __init__ "
        "or build) or as keras.Variable(...)."
    )


@functools.cache
def _takes_training(compute_loss: Any) -> bool:
    return "training" in inspect.signature(compute_loss).parameters


# -- Trainer ---------------------------------------------------------------------------


class Trainer:
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
            untracked = _untracked_variables(self)
            if untracked:
                message += " " + _untracked_advice(untracked)
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

    # -- the loops --------------------------------------------------------------------
    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: list | None = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: Any = 1,
    ) -> History:
        """Train for ``epochs`` passes over the data, one ``train_step`` per batch.

        Each epoch's logs are the metrics at its end (``loss`` averaged over its
        examples, the compiled metrics accumulated), then ``val_*`` values from
        evaluating the validation data.

        Args:
            x: inputs, one row per example (NumPy array or tensor), or a
                ``tf.data.Dataset`` of batches ``x``, ``(x, y)`` or ``(x, y,
                sample_weight)``.
            y: targets (not with a dataset).
            batch_size: examples per step for arrays (default 32; a dataset
                batches itself).
            epochs: the index of the last epoch (training starts at
                ``initial_epoch``).
            verbose: 0 silent; 1, 2 or "auto" print one line per epoch.
            callbacks: Callback objects.
            validation_split: the fraction of the arrays, taken from the end
                before shuffling, kept for validation.
            validation_data: ``(x_val, y_val)``, ``(x_val, y_val, weights)`` or a
                dataset, evaluated after each epoch.
            shuffle: reshuffle arrays every epoch (``tf.random`` seeds it); a
                dataset is not shuffled (and a warning says so unless False).
            class_weight: must be None.
            sample_weight: one weight per example (not with a dataset).
            initial_epoch: the epoch to start from.
            steps_per_epoch: batches per epoch (needed for an infinite dataset).
            validation_steps: batches of validation data per evaluation.
            validation_batch_size: default ``batch_size``.
            validation_freq: evaluate every this many epochs, or after the
                epochs in a list.

        Returns:
            A :class:`History`.

        Raises:
            ValueError: if ``compile`` was not called, lengths differ, or a
                dataset is infinite and no step count is given.
        """
        self._assert_compiled("fit")
        if class_weight is not None:
            raise NotImplementedError(
                "fit(class_weight=...) is not supported by tapemagic; pass "
                "sample_weight (the class weight of each example's label) instead."
            )
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                (x, y, sample_weight), validation_split
            )
        iterator = EpochIterator(
            x, y, sample_weight, batch_size, steps_per_epoch, shuffle
        )
        val_iterator = None
        if validation_data is not None:
            val_x, val_y, val_weight = unpack_x_y_sample_weight(validation_data)
            val_iterator = EpochIterator(
                val_x,
                val_y,
                val_weight,
                validation_batch_size or batch_size,
                validation_steps,
                steps_name="validation_steps",
            )
        verbosity = _verbosity(verbose)
        if not self.built and iterator.first_inputs() is not None:
            self._build_for_fit(iterator.first_inputs())
        history = History()
        callbacks = [history] + list(callbacks or [])
        params = {"verbose": verbosity, "epochs": epochs, "steps": iterator.num_batches}
        for callback in callbacks:
            callback.set_model(self)
            callback.set_params(params)
        self.stop_training = False
        for callback in callbacks:
            callback.on_train_begin()
        training_logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            for callback in callbacks:
                callback.on_epoch_begin(epoch)
            start = time.perf_counter()
            logs: Any = {}
            steps = 0
            for batch in iterator:
                logs = self.train_step(batch)
                steps += 1
                if epoch == initial_epoch and steps == 1:
                    self._warn_untracked_variables()
                if self.stop_training:
                    break
            seconds = time.perf_counter() - start
            epoch_logs = dict(self._get_metrics_result_or_logs(logs))
            if val_iterator is not None and _should_evaluate(epoch, validation_freq):
                val_logs = self._evaluate_epoch(val_iterator, verbosity=0)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            epoch_logs = _pythonify_logs(epoch_logs)
            if verbosity:
                print(f"Epoch {epoch + 1}/{epochs}")
                print(_progress_line(steps, seconds, epoch_logs))
            for callback in callbacks:
                callback.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        for callback in callbacks:
            callback.on_train_end(training_logs)
        history.params = params
        history.model = self
        self.history = history
        return history

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: list | None = None,
        return_dict: bool = False,
    ) -> Any:
        """The loss and metrics on the data, with ``training=False``.

        Args:
            x: inputs, or a ``tf.data.Dataset`` of batches.
            y: targets (not with a dataset).
            batch_size: examples per step for arrays (default 32).
            verbose: 0 silent, otherwise print one line.
            sample_weight: one weight per example (not with a dataset).
            steps: batches to evaluate (default: all; needed for an infinite
                dataset).
            callbacks: accepted for compatibility.
            return_dict: return ``{name: value}`` instead of a list.

        Returns:
            The loss alone if there are no metrics, else ``[loss, metric, ...]``
            in the order of ``metrics`` (the compiled metrics in their order),
            or a dict.

        Raises:
            ValueError: if ``compile`` was not called.
        """
        self._assert_compiled("evaluate")
        iterator = EpochIterator(
            x, y, sample_weight, batch_size, steps, steps_name="steps"
        )
        logs = self._evaluate_epoch(iterator, _verbosity(verbose))
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def _evaluate_epoch(self, iterator: EpochIterator, verbosity: int) -> dict:
        """One pass of ``test_step`` over the iterator; the pythonified logs."""
        iterator.reset()
        self.reset_metrics()
        start = time.perf_counter()
        logs: Any = {}
        steps = 0
        for batch in iterator:
            logs = self.test_step(batch)
            steps += 1
        logs = _pythonify_logs(self._get_metrics_result_or_logs(logs))
        if verbosity:
            print(_progress_line(steps, time.perf_counter() - start, logs))
        return logs

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: list | None = None,
    ) -> Any:
        """The model's outputs on ``x`` in batches, as NumPy arrays.

        Args:
            x: inputs, or a ``tf.data.Dataset`` of batches (``x`` or ``(x, y)``).
            batch_size: examples per step for arrays (default 32).
            verbose: 0 silent, otherwise print one line.
            steps: batches to predict (default: all; needed for an infinite
                dataset).
            callbacks: accepted for compatibility.

        Returns:
            The outputs of all batches, concatenated (in the structure of the
            model's outputs).

        Raises:
            ValueError: if there are no batches.
        """
        iterator = EpochIterator(x, batch_size=batch_size, steps_per_epoch=steps,
                                 steps_name="steps")  # fmt: skip
        start = time.perf_counter()
        outputs = [self.predict_step(batch) for batch in iterator]
        if not outputs:
            raise ValueError(
                "predict() got no batches: the input has no examples, or steps=0."
            )
        if _verbosity(verbose):
            print(_progress_line(len(outputs), time.perf_counter() - start, {}))
        return _concatenate(outputs)

    def _warn_untracked_variables(self) -> None:
        """Say that tf.Variable attributes are left alone by fit (the model has
        other weights; without any, train_step's warning says it)."""
        untracked = _untracked_variables(self)
        if untracked and self.trainable_weights:
            warnings.warn(_untracked_advice(untracked), stacklevel=3)

    def _get_metrics_result_or_logs(self, logs: Any) -> Any:
        """The metrics' results when a step returned exactly their names, else the
        step's logs (a custom step may report other values)."""
        metric_logs = self.get_metrics_result()
        if isinstance(logs, dict) and set(logs) == set(metric_logs):
            return metric_logs
        return logs

    def _flatten_metrics_in_order(self, logs: dict) -> Any:
        """The logs as a list in the order of ``metrics`` (the compiled metrics'
        names in place of the container's), then any other logs by name."""
        names: list[str] = []
        for metric in self.metrics:
            if isinstance(metric, CompileMetrics):
                names.extend(m.name for m in metric.metrics)
            else:
                names.append(metric.name)
        results = [logs[name] for name in names if name in logs]
        results += [logs[key] for key in sorted(logs) if key not in names]
        return results[0] if len(results) == 1 else results

    def _build_for_fit(self, x: np.ndarray) -> None:
        """Build an unbuilt model before ``fit`` (Sequential does, from ``x``).

        Other models build on their first call, inside the first train step.
        """


def _should_evaluate(epoch: int, validation_freq: Any) -> bool:
    if isinstance(validation_freq, int):
        return (epoch + 1) % validation_freq == 0
    if isinstance(validation_freq, list):
        return epoch + 1 in validation_freq
    raise ValueError(
        "Expected `validation_freq` to be a list or int. Received: "
        f"validation_freq={validation_freq} of the type {type(validation_freq)}."
    )


def _concatenate(outputs: list) -> Any:
    """Batch outputs joined along the batch axis, as NumPy, in their structure."""
    first = outputs[0]
    if isinstance(first, dict):
        return {k: _concatenate([o[k] for o in outputs]) for k in first}
    if isinstance(first, (list, tuple)):
        return type(first)(
            _concatenate([o[i] for o in outputs]) for i in range(len(first))
        )
    arrays = [array_of(o) if isinstance(o, (Tensor, Variable)) else o for o in outputs]
    return np.concatenate([np.asarray(a) for a in arrays], axis=0)
