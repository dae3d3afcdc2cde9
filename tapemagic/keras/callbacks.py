"""Training callbacks: hooks that ``fit`` calls at the start and end of epochs.

``History`` records each epoch's logs (``fit`` returns it);
``EarlyStopping`` ends training when a monitored value stops improving.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["Callback", "EarlyStopping", "History"]


class Callback:
    """Base class of training callbacks: override the hooks you need.

    ``fit`` calls ``on_train_begin(logs)``, then per epoch
    ``on_epoch_begin(epoch, logs)`` and ``on_epoch_end(epoch, logs)``, then
    ``on_train_end(logs)``. Setting ``self.model.stop_training = True`` ends
    training after the current epoch.
    """

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict = {}

    def set_model(self, model: Any) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    def on_train_begin(self, logs: dict | None = None) -> None:
        pass

    def on_train_end(self, logs: dict | None = None) -> None:
        pass

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        pass

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        pass


class History(Callback):
    """What ``fit`` returns: ``history.history["loss"]`` lists one value per epoch.

    Example:
        >>> h = History()
        >>> h.on_epoch_end(0, {"loss": 0.5}); h.on_epoch_end(1, {"loss": 0.25})
        >>> h.history, h.epoch
        ({'loss': [0.5, 0.25]}, [0, 1])
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[float]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)


class EarlyStopping(Callback):
    """Stop training when ``monitor`` has not improved for ``patience`` epochs.

    Args:
        monitor: the log to watch (default "val_loss").
        min_delta: the smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints a line when it stops or restores weights.
        mode: "min", "max", or "auto" ("max" for accuracies, else "min").
        baseline: training stops unless the value beats this within ``patience``.
        restore_best_weights: end with the weights of the best epoch.
        start_from_epoch: epochs to wait before watching.

    Raises:
        ValueError: for an unknown ``mode``.

    Example:
        >>> stop = EarlyStopping(monitor="loss", patience=1)
        >>> class _Model:
        ...     stop_training = False
        >>> stop.set_model(_Model()); stop.on_train_begin()
        >>> for epoch, loss in enumerate([3.0, 2.0, 2.5]):
        ...     stop.on_epoch_end(epoch, {"loss": loss})
        >>> stop.model.stop_training, stop.stopped_epoch
        (True, 2)
    """

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(
                f"EarlyStopping mode {mode!r} is unknown; use 'auto', 'min' or 'max'."
            )
        if mode == "auto":
            mode = "max" if "acc" in monitor or "auc" in monitor else "min"
        self.monitor = monitor
        self.mode = mode
        self.min_delta = abs(min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.on_train_begin()

    def _is_improvement(self, value: float, reference: float) -> bool:
        if self.mode == "max":
            return bool(np.greater(value - self.min_delta, reference))
        return bool(np.less(value + self.min_delta, reference))

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = -np.inf if self.mode == "max" else np.inf
        self.best_weights: Any = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not "
                f"available. Available metrics are: {', '.join(logs or {})}",
                UserWarning,
                stacklevel=2,
            )
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)
