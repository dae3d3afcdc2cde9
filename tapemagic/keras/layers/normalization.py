"""``BatchNormalization``: batch statistics while training, moving ones otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.ops import nn as _nn
from ...engine.ops.math import cast, where
from ...engine.ops.reduce import reduce_sum
from ...engine.ops.shape import reshape, squeeze
from ...engine.tensor import Tensor, array_of, convert_to_tensor
from .. import backend, initializers
from .core import _float_input, _incompatible, _no_regularizers
from .layer import Layer

__all__ = ["BatchNormalization"]


class BatchNormalization(Layer):
    """Normalize each feature to mean 0 and variance 1, then scale and shift it.

    Called with ``training=True`` (``fit`` does, and so does an outer model
    called with it), the layer normalizes with the mean and variance of the
    batch, over every axis but ``axis``, and moves its statistics towards them:
    ``moving_mean = moving_mean * momentum + mean * (1 - momentum)``, the same
    for ``moving_variance``. Otherwise (``evaluate``, ``predict``, a plain call)
    it normalizes with the moving statistics. Either way the output is
    ``gamma * (x - mean) / sqrt(variance + epsilon) + beta``.

    The weights are ``gamma`` and ``beta`` (trainable) and ``moving_mean`` and
    ``moving_variance`` (non-trainable: assigned by the training calls, never
    differentiated). As in Keras 3, a layer with ``trainable = False`` runs in
    inference mode even when training, so a frozen layer stays frozen.

    Args:
        axis: the feature axis, normalized on its own (default -1, the
            channels of ``channels_last`` images; 1 for ``channels_first``).
        momentum: how much of the moving statistics each training call keeps.
        epsilon: added to the variance before its square root.
        center: add ``beta`` (otherwise no ``beta`` weight).
        scale: multiply by ``gamma`` (otherwise no ``gamma`` weight).
        beta_initializer: default "zeros".
        gamma_initializer: default "ones".
        moving_mean_initializer: default "zeros".
        moving_variance_initializer: default "ones".
        synchronized: accepted; there is one device, so nothing to synchronize.
        **kwargs: base layer arguments (name, dtype, trainable).

    Raises:
        NotImplementedError: for regularizers, constraints or ``renorm=True``.
        IndexError: (when built) if ``axis`` is not an axis of the input.

    Example:
        >>> import numpy as np
        >>> layer = BatchNormalization(epsilon=0.0)
        >>> x = np.array([[1.0], [3.0]], np.float32)
        >>> layer(x, training=True).numpy().ravel()
        array([-1.,  1.], dtype=float32)
        >>> layer.moving_mean.numpy(), [w.name for w in layer.non_trainable_weights]
        (array([0.02], dtype=float32), ['moving_mean', 'moving_variance'])
    """

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        renorm: bool = False,
        renorm_clipping: Any = None,
        renorm_momentum: float = 0.99,
        synchronized: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        _no_regularizers(
            "BatchNormalization",
            beta_regularizer=beta_regularizer,
            gamma_regularizer=gamma_regularizer,
            beta_constraint=beta_constraint,
            gamma_constraint=gamma_constraint,
        )
        if renorm:
            raise NotImplementedError(
                "BatchNormalization(renorm=True) (batch renormalization) is not "
                "supported by tapemagic; use the default renorm=False."
            )
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.synchronized = bool(synchronized)
        self.renorm = False
        self.renorm_clipping = renorm_clipping
        self.renorm_momentum = renorm_momentum
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.gamma = None
        self.beta = None
        self.moving_mean = None
        self.moving_variance = None
        self._built_ndim: int | None = None

    def build(self, input_shape: Any) -> None:
        ndim = len(input_shape)
        if not -ndim <= self.axis < ndim:
            raise IndexError(
                f"BatchNormalization {self.name!r} has axis={self.axis}, which is not "
                f"an axis of its input of shape {tuple(input_shape)}. Use an axis in "
                f"[{-ndim}, {ndim - 1}]: -1 for the last (channels) axis."
            )
        size = input_shape[self.axis]
        if size is None:
            raise ValueError(
                f"BatchNormalization {self.name!r} normalizes axis {self.axis} of "
                f"inputs of shape {tuple(input_shape)}, whose size is unknown. Give "
                "that axis a size (e.g. keras.Input(shape=...) with it set)."
            )
        shape = (size,)
        if self.scale:
            self.gamma = self.add_weight(
                shape=shape, name="gamma", initializer=self.gamma_initializer,
                trainable=True, autocast=False,
            )  # fmt: skip
        if self.center:
            self.beta = self.add_weight(
                shape=shape, name="beta", initializer=self.beta_initializer,
                trainable=True, autocast=False,
            )  # fmt: skip
        self.moving_mean = self.add_weight(
            shape=shape, name="moving_mean", initializer=self.moving_mean_initializer,
            trainable=False, autocast=False,
        )  # fmt: skip
        self.moving_variance = self.add_weight(
            shape=shape, name="moving_variance",
            initializer=self.moving_variance_initializer, trainable=False,
            autocast=False,
        )  # fmt: skip
        self._built_ndim = ndim

    def _check_input_shape(self, shape: Any) -> None:
        # Keras' InputSpec: the rank and the feature axis' size it was built for
        if self._built_ndim is None or not isinstance(shape, tuple):
            return
        if len(shape) != self._built_ndim:
            raise ValueError(
                f"{_incompatible(self)}expected ndim={self._built_ndim}, found "
                f"ndim={len(shape)}. Full shape received: {shape}. The layer was "
                f"built for inputs of rank {self._built_ndim}; use a new "
                "BatchNormalization for other inputs."
            )
        expected = self.moving_mean.shape[0]
        if shape[self.axis] not in (None, expected):
            raise ValueError(
                f"{_incompatible(self)}expected axis {self.axis} of input shape to "
                f"have value {expected}, but received input with shape {shape}"
            )

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Tensor:
        x = _float_input(inputs, self.compute_dtype)
        if x.dtype != self.compute_dtype:
            x = cast(x, self.compute_dtype)
        ndim = x.ndim
        axis = self.axis % ndim
        if training and self.trainable:
            reduction_axes = [a for a in range(ndim) if a != axis]
            if mask is None:
                mean, variance = _nn.moments(x, axes=reduction_axes)
            else:
                mean, variance = _masked_moments(x, mask, reduction_axes)
            # assignments, not ops: a tape does not follow them (as in TensorFlow)
            self.moving_mean.assign(
                self.moving_mean * self.momentum + mean * (1.0 - self.momentum)
            )
            self.moving_variance.assign(
                self.moving_variance * self.momentum + variance * (1.0 - self.momentum)
            )
        else:
            mean, variance = self.moving_mean, self.moving_variance
        stats = [mean, variance, self.beta, self.gamma]
        if axis != ndim - 1:
            # (C,) statistics broadcast along `axis`: shape [1, C, 1, 1] for axis 1
            shape = [1] * ndim
            shape[axis] = -1
            stats = [None if s is None else reshape(s, shape) for s in stats]
        mean, variance, beta, gamma = stats
        return _nn.batch_normalization(x, mean, variance, beta, gamma, self.epsilon)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


def _masked_moments(x: Tensor, mask: Any, axes: list) -> tuple:
    """The mean and variance over ``axes`` of the steps the mask keeps, as
    Keras 3's BatchNormalization computes them."""
    keep = np.asarray(array_of(convert_to_tensor(mask)), bool)
    keep = np.broadcast_to(keep[..., None], tuple(x.shape))
    dtype = x.dtype.name
    zero = np.zeros((), dtype)
    total = reduce_sum(where(keep, x, zero), axis=axes, keepdims=True)
    count = np.sum(keep, axis=tuple(axes), keepdims=True).astype(dtype)
    count = count + np.asarray(backend.epsilon(), dtype)
    mean = total / count
    difference = where(keep, x - mean, zero)
    variance = reduce_sum(difference * difference, axis=axes, keepdims=True) / count
    return squeeze(mean), squeeze(variance)
