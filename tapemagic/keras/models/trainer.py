"""``compile``/``fit``/``evaluate``/``predict``: the training loop on a GradientTape.

``fit`` runs the same loop a course notebook writes by hand: for each batch,
``train_step`` opens a ``GradientTape``, calls the model with ``training=True``,
computes the loss, takes ``tape.gradient(loss, model.trainable_weights)`` and
hands it to ``optimizer.apply``. Override ``train_step`` to customise it, as in
Keras. :class:`Trainer` holds this half of a model; ``Model`` is a ``Trainer``
and a ``Layer``, as in Keras 3.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ...engine.ops.creation import random_shuffle
from ...engine.tape import GradientTape
from ...engine.tensor import Tensor, Variable, array_of, convert_to_tensor
from .. import losses as losses_module
from .. import metrics as metrics_module
from .. import optimizers
from ..callbacks import History

__all__ = ["Trainer"]


# -- helpers ---------------------------------------------------------------------------


def _array(value: Any) -> Any:
    """Training data as NumPy (a tensor's value; data is never differentiated)."""
    if value is None:
        return None
    if isinstance(value, (Tensor, Variable)):
        return array_of(value)
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], np.ndarray):
        raise NotImplementedError(
            "tapemagic's fit/evaluate/predict take one input array and one target "
            "array; for several inputs write a custom training loop."
        )
    return np.asarray(value)


def _unpack(data: Any) -> tuple[Any, Any, Any]:
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, w)``."""
    if isinstance(data, tuple):
        if len(data) == 1:
            return data[0], None, None
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 3:
            return data
        raise ValueError(
            "Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
            f"`(x, y, sample_weight)`, found a tuple of {len(data)} items."
        )
    return data, None, None


def _pythonify_logs(logs: Any) -> dict[str, float]:
    """Logs as ``{name: float}``: a train_step may return tensors, as in Keras."""
    if not isinstance(logs, dict):
        raise TypeError(
            f"train_step/test_step must return a dict of metric values, got {logs!r}."
        )
    out = {}
    for key, value in logs.items():
        if isinstance(value, (Tensor, Variable)):
            value = array_of(value)
        out[key] = float(np.asarray(value))
    return out


def _format_value(value: float) -> str:
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def _format_logs(logs: dict) -> str:
    return " - ".join(f"{k}: {_format_value(v)}" for k, v in logs.items())


def _progress_line(steps: int, seconds: float, logs: dict) -> str:
    per_step = 1000 * seconds / max(steps, 1)
    line = f"{steps}/{steps} - {seconds:.0f}s - {per_step:.0f}ms/step"
    return line + (f" - {_format_logs(logs)}" if logs else "")


def _verbosity(verbose: Any) -> int:
    return 1 if verbose == "auto" else int(verbose)


_OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "rmsprop": "RMSprop"}


def _get_optimizer(identifier: Any) -> Any:
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


def _get_loss(identifier: Any) -> Any:
    if identifier is None or isinstance(identifier, losses_module.Loss):
        return identifier
    fn = losses_module.get(identifier)
    if isinstance(fn, losses_module.Loss):
        return fn
    name = identifier if isinstance(identifier, str) else getattr(fn, "__name__", None)
    return losses_module.LossFunctionWrapper(fn, name=name)


def _get_metric(identifier: Any, y_true: Any, y_pred: Any) -> metrics_module.Metric:
    if isinstance(identifier, metrics_module.Metric):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in ("accuracy", "acc"):
        # Keras picks the accuracy that fits the shapes of labels and predictions
        true_shape, pred_shape = np.shape(y_true), tuple(y_pred.shape)
        if pred_shape[-1] == 1:
            return metrics_module.BinaryAccuracy(name=identifier)
        sparse = len(true_shape) < len(pred_shape) or (
            true_shape[-1] == 1 and pred_shape[-1] > 1
        )
        if sparse:
            return metrics_module.SparseCategoricalAccuracy(name=identifier)
        return metrics_module.CategoricalAccuracy(name=identifier)
    if isinstance(identifier, str):
        try:
            metric = metrics_module.get(identifier)
        except ValueError:
            fn = losses_module.get(identifier)
            return metrics_module.MeanMetricWrapper(fn, name=identifier)
        metric.name = identifier
        return metric
    if callable(identifier):
        return metrics_module.MeanMetricWrapper(identifier)
    raise ValueError(
        f"Could not interpret metric identifier: {identifier!r}. Pass a name such as "
        "'accuracy', a keras.metrics.Metric, or a function (y_true, y_pred)."
    )


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
    """

    def __init__(self) -> None:
        d = self.__dict__
        d["optimizer"] = None
        d["loss"] = None
        d["compiled"] = False
        d["stop_training"] = False
        d["_loss_fn"] = None
        d["_metric_ids"] = []
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

        Args:
            optimizer: a name ("adam", "sgd", "rmsprop") or an optimizer.
            loss: a name ("sparse_categorical_crossentropy", "mse", ...), a Loss,
                or a function ``(y_true, y_pred)``.
            loss_weights: must be None.
            metrics: a list of names ("accuracy" picks the accuracy that fits the
                labels), Metric objects or functions.
            weighted_metrics: must be None.
            run_eagerly: accepted for compatibility (always eager).
            steps_per_execution: accepted for compatibility.
            jit_compile: accepted for compatibility.
            auto_scale_loss: accepted for compatibility.

        Raises:
            ValueError: for an unknown optimizer, loss or metric name.
            NotImplementedError: for loss_weights or weighted_metrics.
        """
        if loss_weights is not None or weighted_metrics is not None:
            raise NotImplementedError(
                "compile(loss_weights=..., weighted_metrics=...) is not supported by "
                "tapemagic; pass sample_weight to fit instead."
            )
        self.optimizer = _get_optimizer(optimizer)
        self.loss = loss
        self._loss_fn = _get_loss(loss)
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            metrics = [metrics]
        self._metric_ids = list(metrics or [])
        self._compile_metrics = None
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.compiled = True

    def _assert_compiled(self, method: str) -> None:
        if not self.compiled:
            raise RuntimeError(
                f"You must call `compile()` before using the model in `{method}()`, "
                "e.g. model.compile(optimizer='adam', "
                "loss='sparse_categorical_crossentropy', metrics=['accuracy'])."
            )

    @property
    def metrics(self) -> list[metrics_module.Metric]:
        """The loss tracker, the compiled metrics, then Metric attributes."""
        found: list = []
        if self.compiled:
            found.append(self._loss_tracker)
            found.extend(self._compile_metrics or [])
        for value in vars(self).values():
            if isinstance(value, metrics_module.Metric) and not any(
                value is m for m in found
            ):
                found.append(value)
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
        """The compiled loss of ``y_pred`` against ``y`` (a scalar tensor).

        Raises:
            ValueError: if ``compile`` was given no loss.
        """
        if self._loss_fn is None:
            raise ValueError(
                "No loss to compute. Provide a `loss` argument in `compile()`."
            )
        return self._loss_fn(y, y_pred, sample_weight)

    def compute_metrics(
        self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None
    ) -> dict[str, float]:
        """Update the compiled metrics with a batch and return every metric's value."""
        if self._compile_metrics is None:
            self._compile_metrics = [
                _get_metric(identifier, y, y_pred) for identifier in self._metric_ids
            ]
        for metric in self._compile_metrics:
            metric.update_state(y, y_pred, sample_weight=sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, float]:
        """``{name: value}`` for every metric in ``metrics``, as Python floats."""
        return {m.name: float(m.result()) for m in self.metrics}

    def train_step(self, data: Any) -> dict[str, float]:
        """One optimization step on a batch: the GradientTape loop of a notebook.

        Args:
            data: ``(x, y)`` or ``(x, y, sample_weight)``.

        Returns:
            The metrics so far this epoch, by name.
        """
        x, y, sample_weight = _unpack(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(
                x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True
            )
        self._loss_tracker.update_state(loss, sample_weight=len(x))
        variables = self.trainable_weights
        grads = tape.gradient(loss, variables)
        self.optimizer.apply(grads, variables)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict[str, float]:
        """Loss and metrics on a batch, with ``training=False`` and no update."""
        x, y, sample_weight = _unpack(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(
            x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False
        )
        self._loss_tracker.update_state(loss, sample_weight=len(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's output on a batch, with ``training=False``."""
        x, _, _ = _unpack(data)
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
        validation_freq: int = 1,
    ) -> History:
        """Train for ``epochs`` passes over ``(x, y)`` in shuffled mini-batches.

        Each epoch's logs are the averages over its batches (``loss`` weighted by
        batch size, metrics accumulated), then ``val_*`` values from
        ``evaluate`` on the validation data.

        Args:
            x: inputs, one row per example (NumPy array or tensor).
            y: targets.
            batch_size: examples per step (default 32).
            epochs: the index of the last epoch (training starts at
                ``initial_epoch``).
            verbose: 0 silent; 1, 2 or "auto" print one line per epoch.
            callbacks: Callback objects.
            validation_split: the fraction of the data, taken from the end before
                shuffling, kept for validation.
            validation_data: ``(x_val, y_val)`` to evaluate after each epoch.
            shuffle: reshuffle the examples every epoch (``tf.random`` seeds it).
            class_weight: must be None.
            sample_weight: one weight per example.
            initial_epoch: the epoch to start from.
            steps_per_epoch: must be None.
            validation_steps: must be None.
            validation_batch_size: default ``batch_size``.
            validation_freq: evaluate every this many epochs.

        Returns:
            A :class:`History`.

        Raises:
            RuntimeError: if ``compile`` was not called.
            ValueError: if ``x`` and ``y`` have different lengths.
        """
        self._assert_compiled("fit")
        if class_weight is not None or steps_per_epoch is not None:
            raise NotImplementedError(
                "fit(class_weight=..., steps_per_epoch=...) is not supported by "
                "tapemagic; pass sample_weight instead of class_weight."
            )
        x, y, sample_weight = _array(x), _array(y), _array(sample_weight)
        _check_lengths(x, y, sample_weight)
        if validation_data is None and validation_split:
            split = int(math.floor(len(x) * (1.0 - validation_split)))
            validation_data = (x[split:], y[split:])
            x, y = x[:split], y[:split]
            sample_weight = None if sample_weight is None else sample_weight[:split]
        batch_size = batch_size or 32
        verbosity = _verbosity(verbose)
        if not self.built:
            self._build_for_fit(x)
        history = History()
        callbacks = [history] + list(callbacks or [])
        steps = math.ceil(len(x) / batch_size)
        params = {"verbose": verbosity, "epochs": epochs, "steps": steps}
        for callback in callbacks:
            callback.set_model(self)
            callback.set_params(params)
        self.stop_training = False
        for callback in callbacks:
            callback.on_train_begin()
        logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            for callback in callbacks:
                callback.on_epoch_begin(epoch)
            self.reset_metrics()
            start = time.perf_counter()
            if shuffle:
                order = array_of(random_shuffle(convert_to_tensor(np.arange(len(x)))))
            else:
                order = np.arange(len(x))
            for first in range(0, len(x), batch_size):
                index = order[first : first + batch_size]
                batch = (x[index], y[index])
                if sample_weight is not None:
                    batch = batch + (sample_weight[index],)
                logs = self.train_step(batch)
            logs = _pythonify_logs(logs)
            seconds = time.perf_counter() - start
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                val_x, val_y, val_w = _unpack(tuple(validation_data))
                val_logs = self.evaluate(
                    val_x,
                    val_y,
                    batch_size=validation_batch_size or batch_size,
                    verbose=0,
                    sample_weight=val_w,
                    return_dict=True,
                )
                logs.update({f"val_{k}": v for k, v in val_logs.items()})
            logs = dict(sorted(logs.items()))
            if verbosity:
                print(f"Epoch {epoch + 1}/{epochs}")
                print(_progress_line(steps, seconds, logs))
            for callback in callbacks:
                callback.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        for callback in callbacks:
            callback.on_train_end(logs)
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
        """The loss and metrics on ``(x, y)``, with ``training=False``.

        Args:
            x: inputs.
            y: targets.
            batch_size: examples per step (default 32).
            verbose: 0 silent, otherwise print one line.
            sample_weight: one weight per example.
            steps: must be None.
            callbacks: accepted for compatibility.
            return_dict: return ``{name: value}`` instead of a list.

        Returns:
            The loss alone if there are no metrics, else ``[loss, metric, ...]`` in
            ``metrics_names`` order (or a dict).

        Raises:
            RuntimeError: if ``compile`` was not called.
        """
        self._assert_compiled("evaluate")
        x, y, sample_weight = _array(x), _array(y), _array(sample_weight)
        _check_lengths(x, y, sample_weight)
        batch_size = batch_size or 32
        self.reset_metrics()
        start = time.perf_counter()
        logs: dict = {}
        for first in range(0, len(x), batch_size):
            batch = (x[first : first + batch_size], y[first : first + batch_size])
            if sample_weight is not None:
                batch = batch + (sample_weight[first : first + batch_size],)
            logs = self.test_step(batch)
        logs = dict(sorted(_pythonify_logs(logs).items()))
        if _verbosity(verbose):
            steps_done = math.ceil(len(x) / batch_size)
            print(_progress_line(steps_done, time.perf_counter() - start, logs))
        if return_dict:
            return logs
        names = [name for name in self.metrics_names if name in logs]
        results = [logs[name] for name in names]
        results += [v for k, v in logs.items() if k not in names]
        return results[0] if len(results) == 1 else results

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: list | None = None,
    ) -> np.ndarray:
        """The model's outputs on ``x`` in batches, as one NumPy array.

        Args:
            x: inputs.
            batch_size: examples per step (default 32).
            verbose: 0 silent, otherwise print one line.
            steps: must be None.
            callbacks: accepted for compatibility.

        Returns:
            The concatenated outputs.
        """
        x = _array(x)
        batch_size = batch_size or 32
        start = time.perf_counter()
        outputs = [
            np.asarray(array_of(self.predict_step((x[first : first + batch_size],))))
            for first in range(0, len(x), batch_size)
        ]
        if _verbosity(verbose):
            print(_progress_line(len(outputs), time.perf_counter() - start, {}))
        return np.concatenate(outputs, axis=0)

    def _build_for_fit(self, x: np.ndarray) -> None:
        """Build an unbuilt model before ``fit`` (Sequential does, from ``x``).

        Other models build on their first call, inside the first train step.
        """


def _check_lengths(x: Any, y: Any, sample_weight: Any) -> None:
    if x is None:
        raise ValueError("Pass the inputs `x` (one row per example).")
    for name, value in (("y", y), ("sample_weight", sample_weight)):
        if value is not None and len(value) != len(x):
            raise ValueError(
                f"Data cardinality is ambiguous: x has {len(x)} examples but {name} "
                f"has {len(value)}. Make sure all arrays contain the same number of "
                "samples."
            )
