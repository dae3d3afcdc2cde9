"""Keras 3 models: ``Model`` subclassing, ``Sequential``, functional models, and
``compile``/``fit``/``evaluate``/``predict`` on a GradientTape.

A model is a layer that holds layers. ``fit`` runs the same loop a course
notebook writes by hand: for each batch, ``train_step`` opens a
``GradientTape``, calls the model with ``training=True``, computes the loss,
takes ``tape.gradient(loss, model.trainable_weights)`` and hands it to
``optimizer.apply``. Override ``train_step`` to customise it, as in Keras.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.ops.creation import random_shuffle
from ..engine.tape import GradientTape
from ..engine.tensor import Tensor, Variable, array_of, convert_to_tensor
from . import losses as losses_module
from . import metrics as metrics_module
from . import optimizers
from .callbacks import History
from .layers.layer import (
    InputLayer,
    KerasTensor,
    Layer,
    _frame,
    _shape_of,
)

__all__ = ["Functional", "Model", "Sequential"]


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


# -- Model -----------------------------------------------------------------------------


class Model(Layer):
    """A layer that groups layers and can be trained.

    Subclass it: create layers as attributes in ``__init__`` (after
    ``super().__init__()``) and use them in ``call(inputs, training=None)``. The
    model's weights are those of its attribute layers, in the order the
    attributes were set. ``keras.Model(inputs, outputs)`` builds a functional
    model from ``keras.Input`` instead.

    Example:
        >>> from tapemagic.keras import layers
        >>> class MLP(Model):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = layers.Dense(4, activation="relu")
        ...         self.out = layers.Dense(2)
        ...     def call(self, x, training=None):
        ...         return self.out(self.hidden(x))
        >>> model = MLP()
        >>> model(np.ones((3, 5), np.float32)).shape, model.count_params()
        (TensorShape([3, 2]), 34)
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            return object.__new__(Functional)
        return object.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__ takes keyword arguments only (name, "
                f"trainable, dtype), got positional arguments {args!r}."
            )
        super().__init__(**kwargs)
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

    # -- structure ---------------------------------------------------------------------
    @property
    def layers(self) -> list[Layer]:
        """The model's direct sublayers, in the order they were set."""
        return self._sublayers()

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A sublayer by name or by index in ``layers``.

        Raises:
            ValueError: if no layer matches or neither argument is given.
        """
        if index is not None:
            if not 0 <= index < len(self.layers) and not -len(self.layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(self.layers)} layers."
                )
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            names = [layer.name for layer in self.layers]
            raise ValueError(f"No such layer: {name}. Existing layers are: {names}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def build(self, input_shape: Any) -> None:
        """Create every weight by running ``call`` once on zeros of ``input_shape``."""
        if type(self).call is Model.call:
            return
        concrete = tuple(1 if d is None else d for d in input_shape)
        before = {id(layer) for layer in self._flatten_layers() if layer.built}
        dtype = np.dtype(self.input_dtype)
        self.call(Tensor(np.zeros(concrete, dtype)))
        if input_shape and input_shape[0] is None:
            # the zeros had batch size 1; record the layers' shapes with None
            for layer in self._flatten_layers(include_self=False):
                if id(layer) not in before:
                    for attr in ("_build_input_shape", "_build_output_shape"):
                        shape = layer.__dict__.get(attr)
                        if isinstance(shape, tuple) and shape and shape[0] == 1:
                            layer.__dict__[attr] = (None,) + shape[1:]

    def _build_on_call(self, x: Any) -> None:
        self.__dict__["_build_input_shape"] = _shape_of(x)
        if type(self).build is not Model.build:
            self.build(_shape_of(x))
        # otherwise the sublayers build themselves during the call, as in Keras
        self.built = True

    def call(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"Model {type(self).__name__} has no call() method. Define "
            "call(self, inputs, training=None) using the layers made in __init__."
        )

    def count_params(self) -> int:
        """The number of scalars in the model's weights.

        Raises:
            ValueError: if the model is not built yet (call it on data, or pass
                ``keras.Input`` first).
        """
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the "
                "layer isn't built. You can build it manually via: "
                "`model.build(input_shape)`, or call it on a batch of data first."
            )
        return super().count_params()

    # -- summary -----------------------------------------------------------------------
    def _summary_layers(self) -> list[Layer]:
        return self.layers

    def summary(
        self,
        line_length: int | None = None,
        positions: Any = None,
        print_fn: Callable | None = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        """Print a table of the layers, their output shapes and parameter counts.

        Args:
            line_length: accepted for compatibility.
            positions: accepted for compatibility.
            print_fn: called with the whole text instead of ``print``.
            expand_nested: accepted for compatibility.
            show_trainable: accepted for compatibility.
            layer_range: accepted for compatibility.
        """
        rows = []
        for layer in self._summary_layers():
            shape = layer._build_output_shape
            out = "?" if shape is None else str(_plain_shape(shape))
            params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
            rows.append((f"{layer.name} ({type(layer).__name__})", out, params))
        text = _render_table(f'Model: "{self.name}"', rows)
        trainable = self.trainable_weights
        non_trainable = self.non_trainable_weights
        text += "\n" + _params_line(" Total params", trainable + non_trainable)
        text += "\n" + _params_line(" Trainable params", trainable)
        text += "\n" + _params_line(" Non-trainable params", non_trainable)
        if self.optimizer is not None and self.optimizer.built:
            text += "\n" + _params_line(" Optimizer params", self.optimizer.variables)
        (print_fn or print)(text)

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
        if not self.built and isinstance(self, Sequential):
            self.build((None,) + tuple(x.shape[1:]))
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


def _plain_shape(shape: Any) -> Any:
    if isinstance(shape, list):
        return [_plain_shape(s) for s in shape]
    return tuple(shape)


def _readable_size(num_bytes: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if num_bytes / 1024 < 1:
            return f"{num_bytes:.2f} {unit}"
        num_bytes /= 1024
    return f"{num_bytes:.2f} PB"


def _params_line(label: str, variables: list) -> str:
    count = sum(int(np.prod(v.shape)) for v in variables)
    size = sum(int(np.prod(v.shape)) * array_of(v).dtype.itemsize for v in variables)
    return f"{label}: {count:,} ({_readable_size(size)})"


def _render_table(title: str, rows: list[tuple[str, str, str]]) -> str:
    header = ("Layer (type)", "Output Shape", "Param #")
    widths = [31, 22, 13]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]

    def line(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    def cells(row: tuple, edge: str) -> str:
        parts = [
            f" {row[0]:<{widths[0]}} ",
            f" {row[1]:<{widths[1]}} ",
            f" {row[2]:>{widths[2]}} ",
        ]
        return edge + edge.join(parts) + edge

    out = [title, line("┏", "━", "┳", "┓"), cells(header, "┃")]
    out.append(line("┡", "━", "╇", "┩"))
    for i, row in enumerate(rows):
        if i:
            out.append(line("├", "─", "┼", "┤"))
        out.append(cells(row, "│"))
    out.append(line("└", "─", "┴", "┘"))
    return "\n".join(out)


# -- Sequential ------------------------------------------------------------------------


class Sequential(Model):
    """A linear stack of layers: each layer's output is the next one's input.

    Start with ``keras.Input(shape)`` to build the model at once; otherwise it is
    built on its first call (or ``build(input_shape)``, or ``fit``).

    Args:
        layers: the layers, in order (a ``keras.Input`` may come first).
        trainable: whether its weights are trainable.
        name: the model's name (default "sequential", made unique).

    Raises:
        ValueError: for an entry that is not a layer, or two layers of one name.

    Example:
        >>> from tapemagic.keras import Input, layers
        >>> model = Sequential([Input(shape=(784,)), layers.Dense(10, name="out")],
        ...                    name="mlp")
        >>> model.count_params(), [w.path for w in model.weights]
        (7850, ['mlp/out/kernel', 'mlp/out/bias'])
    """

    def __init__(
        self,
        layers: list | None = None,
        trainable: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(trainable=trainable, name=name)
        self._layers: list[Layer] = []
        for layer in layers or []:
            self.add(layer, rebuild=False)
        if self._layers:
            self._maybe_rebuild()

    def add(self, layer: Any, rebuild: bool = True) -> None:
        """Append a layer (or a ``keras.Input`` as the first entry).

        Raises:
            ValueError: if ``layer`` is not a layer, its name is taken, or an Input
                comes after other layers.
        """
        if not self._layers and getattr(layer, "_input_shape_arg", None) is not None:
            self.add(InputLayer(shape=layer._input_shape_arg), rebuild=False)
        if isinstance(layer, KerasTensor) and layer._input_layer is not None:
            layer = layer._input_layer
        if not isinstance(layer, Layer):
            raise ValueError(
                "Only instances of `keras.Layer` can be added to a Sequential model. "
                f"Received: {layer!r} (of type {type(layer).__name__})"
            )
        if isinstance(layer, InputLayer) and self._layers:
            raise ValueError(
                f"Sequential model '{self.name}' already has layers; an Input can only "
                "be its first entry."
            )
        if any(
            other.name == layer.name and other is not layer for other in self._layers
        ):
            raise ValueError(
                "All layers added to a Sequential model should have unique names. "
                f"Name '{layer.name}' is already the name of a layer in this model. "
                "Update the `name` argument to pass a unique name."
            )
        self._layers.append(layer)
        if rebuild:
            self._maybe_rebuild()
        else:
            self.built = False

    def pop(self, rebuild: bool = True) -> Layer:
        """Remove and return the last layer."""
        layer = self._layers.pop()
        self.built = False
        if rebuild and self._layers:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self) -> None:
        self.built = False
        first = self._layers[0]
        if isinstance(first, InputLayer) and len(self._layers) > 1:
            self.build(first.batch_shape)

    @property
    def layers(self) -> list[Layer]:
        """The layers added, without the Input."""
        return [layer for layer in self._layers if not isinstance(layer, InputLayer)]

    @property
    def input_dtype(self) -> str:
        if self._layers and isinstance(self._layers[0], InputLayer):
            return self._layers[0].dtype
        return self.compute_dtype

    def build(self, input_shape: Any = None) -> None:
        """Build every layer for inputs of ``input_shape`` (batch axis first).

        Raises:
            ValueError: if the model has no layers or was built for another shape.
        """
        if not self.layers:
            raise ValueError(
                f"Sequential model {self.name} cannot be built because it has no "
                "layers. Call `model.add(layer)`."
            )
        input_shape = tuple(None if d is None else int(d) for d in input_shape)
        first = self._layers[0]
        if isinstance(first, InputLayer):
            if first.batch_shape != input_shape:
                raise ValueError(
                    f"Sequential model '{self.name}' has already been configured to "
                    f"use input shape {first.batch_shape}. You cannot build it with "
                    f"input_shape {input_shape}"
                )
        else:
            self._layers.insert(0, InputLayer(batch_shape=input_shape))
        self.__dict__["_build_input_shape"] = input_shape
        shape: Any = input_shape
        with _frame(self, None):
            for layer in self.layers:
                shape = layer._build_symbolic(shape)
        self.__dict__["_build_output_shape"] = shape

    def _build_on_call(self, x: Any) -> None:
        # the layers build themselves on the data as it flows through them
        self.__dict__["_build_input_shape"] = _shape_of(x)
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = input_shape
        for layer in self.layers:
            shape = layer.compute_output_shape(shape)
        return shape

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = inputs
        for layer in self.layers:
            x = layer(x) if training is None else layer(x, training=training)
        return x


# -- functional models ---------------------------------------------------------------


class Functional(Model):
    """A model defined by calling layers on ``keras.Input``: ``Model(inputs, outputs)``.

    Args:
        inputs: a KerasTensor from ``keras.Input`` (or a list of them).
        outputs: the KerasTensor a layer call returned (or a list of them).
        name: the model's name (default "functional", made unique).
        trainable: whether its weights are trainable.

    Raises:
        ValueError: if ``inputs`` are not ``keras.Input`` tensors or an output does
            not depend on them.

    Example:
        >>> from tapemagic.keras import Input, layers
        >>> inputs = Input(shape=(3,))
        >>> outputs = layers.Dense(2)(layers.Dense(4, activation="relu")(inputs))
        >>> model = Model(inputs, outputs)
        >>> model(np.ones((5, 3), np.float32)).shape, model.count_params()
        (TensorShape([5, 2]), 26)
    """

    def __init__(
        self,
        inputs: Any,
        outputs: Any,
        name: str | None = None,
        trainable: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        flat_inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        flat_outputs = (
            list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        )
        for tensor in flat_inputs:
            if not isinstance(tensor, KerasTensor) or tensor._input_layer is None:
                raise ValueError(
                    f"Model inputs must come from `keras.Input`, got {tensor!r}."
                )
        self._inputs = flat_inputs
        self._outputs = flat_outputs
        self._single_input = not isinstance(inputs, (list, tuple))
        self._single_output = not isinstance(outputs, (list, tuple))
        nodes = _topological_nodes(flat_inputs, flat_outputs)
        layers: list[Layer] = [t._input_layer for t in flat_inputs]
        for layer, _, _, _ in nodes:
            if not any(layer is seen for seen in layers):
                layers.append(layer)
        # set before the nodes, so the layers are found in this order
        self._layers = layers
        self._nodes = nodes
        self.__dict__["_build_input_shape"] = (
            flat_inputs[0].shape
            if self._single_input
            else [t.shape for t in flat_inputs]
        )
        self.__dict__["_build_output_shape"] = (
            flat_outputs[0].shape
            if self._single_output
            else [t.shape for t in flat_outputs]
        )
        self.built = True

    @property
    def inputs(self) -> list[KerasTensor]:
        return list(self._inputs)

    @property
    def outputs(self) -> list[KerasTensor]:
        return list(self._outputs)

    @property
    def input_dtype(self) -> str:
        return self._inputs[0].dtype

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self._build_output_shape

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        given = [inputs] if self._single_input else list(inputs)
        if len(given) != len(self._inputs):
            raise ValueError(
                f"Model {self.name!r} expects {len(self._inputs)} input(s), got "
                f"{len(given)}."
            )
        values = {
            id(tensor): self._convert_input(value)
            for tensor, value in zip(self._inputs, given)
        }

        def resolve(arg: Any) -> Any:
            if isinstance(arg, KerasTensor):
                return values[id(arg)]
            if isinstance(arg, (list, tuple)):
                return type(arg)(resolve(a) for a in arg)
            return arg

        for layer, args, kwargs, output in self._nodes:
            call_kwargs = {k: resolve(v) for k, v in kwargs.items()}
            if training is not None:
                call_kwargs["training"] = training
            values[id(output)] = layer(*[resolve(a) for a in args], **call_kwargs)
        results = [values[id(t)] for t in self._outputs]
        return results[0] if self._single_output else results


def _topological_nodes(inputs: list, outputs: list) -> list[tuple]:
    """``(layer, args, kwargs, output)`` for every layer call, inputs first."""
    input_ids = {id(t) for t in inputs}
    nodes: list[tuple] = []
    done: set[int] = set()

    def visit(tensor: Any) -> None:
        if isinstance(tensor, (list, tuple)):
            for item in tensor:
                visit(item)
            return
        if not isinstance(tensor, KerasTensor) or id(tensor) in done:
            return
        if id(tensor) in input_ids:
            done.add(id(tensor))
            return
        if tensor._producer is None:
            raise ValueError(
                f"Graph disconnected: cannot obtain value for {tensor!r}. It is a "
                "keras.Input that was not passed in `inputs`."
            )
        layer, args, kwargs = tensor._producer
        for arg in list(args) + list(kwargs.values()):
            visit(arg)
        done.add(id(tensor))
        nodes.append((layer, args, kwargs, tensor))

    for output in outputs:
        if not isinstance(output, KerasTensor):
            raise ValueError(
                f"Model outputs must be results of layer calls on keras.Input, got "
                f"{output!r}."
            )
        visit(output)
    return nodes
