"""The loops of a model: ``fit``, ``evaluate`` and ``predict``.

Each pass over the data comes from an :class:`~.epoch_iterator.EpochIterator`;
each batch goes to the model's ``train_step``, ``test_step`` or
``predict_step`` (:mod:`.trainer`). The logs are what Keras 3 hands to
callbacks: sorted by name, the compiled metrics' dict flattened into them,
values as Python floats.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from typing import Any

import numpy as np

from ...engine.tensor import Tensor, Variable, array_of
from ..callbacks import History
from ..layers.variable import KerasVariable
from .compile_utils import CompileMetrics
from .epoch_iterator import (
    EpochIterator,
    train_validation_split,
    unpack_x_y_sample_weight,
)

__all__ = ["TrainingLoops", "untracked_advice", "untracked_variables"]


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


def untracked_variables(model: Any) -> list[str]:
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


def untracked_advice(names: list[str]) -> str:
    """Why fit leaves the ``tf.Variable`` attributes ``names`` alone, and what to do.

    Example:
        >>> untracked_advice(["w"]).split(", so")[0]
        'Keras 3 does not track tf.Variable attributes of a layer or model (here: w)'
    """
    return (
        f"Keras 3 does not track tf.Variable attributes of a layer or model (here: "
        f"{', '.join(names)}), so they are not in trainable_variables and fit() "
        "does not train them. Create them with self.add_weight(...) (in __init__ "
        "or build) or as keras.Variable(...)."
    )


class TrainingLoops:
    """``fit``, ``evaluate`` and ``predict`` for a :class:`~.trainer.Trainer`.

    A mixin: the model defines ``train_step``, ``test_step``, ``predict_step``,
    ``metrics`` and ``get_metrics_result``.

    Example:
        >>> from tapemagic.keras import Input, Sequential, layers
        >>> model = Sequential([Input(shape=(2,)), layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> model.predict(np.ones((5, 2)), batch_size=2, verbose=0).shape
        (5, 1)
    """

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
        untracked = untracked_variables(self)
        if untracked and self.trainable_weights:
            warnings.warn(untracked_advice(untracked), stacklevel=3)

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
