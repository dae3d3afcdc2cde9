"""Keras 3 weight initializers: ``initializer(shape, dtype)`` returns a tensor.

The distributions and their parameters are Keras 3's (Glorot and He are
``VarianceScaling`` with Keras' fans and its truncated-normal correction
0.8796...). The draws come from NumPy, so the numbers differ from TensorFlow's;
the rules for repeating them are Keras': an initializer made with an int
``seed`` returns the same values on every call, and one made without a seed
takes its seed from the global random state when it is created, so
``tf.random.set_seed(s)`` (or ``keras.utils.set_random_seed(s)``) before
building a model gives the same weights on every run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engine.ops.creation import random_uniform
from ..engine.tensor import Tensor, array_of, convert_to_tensor
from . import backend

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "compute_fans",
    "get",
]

# The standard deviation of a unit normal truncated to [-2, 2]: dividing by it
# gives the truncated distribution the variance asked for.
_TRUNCATED_STDDEV = 0.87962566103423978


def _np_dtype(dtype: Any) -> np.dtype:
    from ..engine import dtypes

    return np.dtype(dtypes.as_dtype(backend.standardize_dtype(dtype)).as_numpy_dtype)


def _draw_seed() -> int:
    # from the engine's random state, so tf.random.set_seed governs it
    return int(array_of(random_uniform([], maxval=2**31 - 1, dtype="int64")))


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(d) for d in shape)


class Initializer:
    """Base class: subclasses define ``__call__(shape, dtype=None)``."""

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        raise NotImplementedError(
            f"{type(self).__name__} must define __call__(self, shape, dtype=None)."
        )

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Initializer:
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class _Seeded(Initializer):
    def __init__(self, seed: int | None = None) -> None:
        if seed is not None and not isinstance(seed, int):
            raise ValueError(
                f"`seed` must be an int or None, got seed={seed!r} of type "
                f"{type(seed).__name__}."
            )
        self.seed = _draw_seed() if seed is None else seed
        # whether the seed was drawn, not given: a copy of the layer draws anew
        self._drawn_seed = seed is None

    def _rng(self) -> np.random.Generator:
        # a fresh generator each call: the same seed gives the same values
        return np.random.default_rng(self.seed)


class Zeros(Initializer):
    """All zeros.

    Example:
        >>> Zeros()((2,)).numpy()
        array([0., 0.], dtype=float32)
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return Tensor(np.zeros(_shape(shape), _np_dtype(dtype)))


class Ones(Initializer):
    """All ones.

    Example:
        >>> Ones()((2,)).numpy()
        array([1., 1.], dtype=float32)
    """

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        return Tensor(np.ones(_shape(shape), _np_dtype(dtype)))


class Constant(Initializer):
    """Every element equal to ``value``.

    Example:
        >>> Constant(0.5)((2,)).numpy()
        array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        value = np.asarray(array_of(convert_to_tensor(self.value)))
        return Tensor(np.full(_shape(shape), value, _np_dtype(dtype)))

    def get_config(self) -> dict:
        return {"value": self.value}


class RandomNormal(_Seeded):
    """Normal draws with ``mean`` and ``stddev`` (default 0 and 0.05).

    Example:
        >>> RandomNormal(seed=1)((3,)).numpy().tolist() == \\
        ...     RandomNormal(seed=1)((3,)).numpy().tolist()
        True
    """

    def __init__(
        self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None
    ) -> None:
        super().__init__(seed)
        self.mean = mean
        self.stddev = stddev

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        values = self._rng().normal(self.mean, self.stddev, _shape(shape))
        return Tensor(values.astype(_np_dtype(dtype)))

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


def _truncated_normal(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    # unit normal draws, redrawn where more than two standard deviations out
    values = rng.standard_normal(shape)
    outside = np.abs(values) > 2
    while outside.any():
        values[outside] = rng.standard_normal(int(outside.sum()))
        outside = np.abs(values) > 2
    return values


class TruncatedNormal(_Seeded):
    """Normal draws, redrawn where more than two ``stddev`` from ``mean``.

    Example:
        >>> w = TruncatedNormal(stddev=1.0, seed=3)((1000,)).numpy()
        >>> bool((abs(w) <= 2).all())
        True
    """

    def __init__(
        self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None
    ) -> None:
        super().__init__(seed)
        self.mean = mean
        self.stddev = stddev

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        values = _truncated_normal(self._rng(), _shape(shape))
        values = values * self.stddev + self.mean
        return Tensor(values.astype(_np_dtype(dtype)))

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(_Seeded):
    """Uniform draws in ``[minval, maxval)`` (default [-0.05, 0.05)).

    Example:
        >>> w = RandomUniform(0.0, 1.0, seed=2)((100,)).numpy()
        >>> bool(((0 <= w) & (w < 1)).all())
        True
    """

    def __init__(
        self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None
    ) -> None:
        super().__init__(seed)
        self.minval = minval
        self.maxval = maxval

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        values = self._rng().uniform(self.minval, self.maxval, _shape(shape))
        return Tensor(values.astype(_np_dtype(dtype)))

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


def compute_fans(shape: Any) -> tuple[int, int]:
    """Keras' ``(fan_in, fan_out)`` of a weight shape.

    A conv kernel ``(kh, kw, in, out)`` has ``fan_in = kh*kw*in`` and
    ``fan_out = kh*kw*out``; a matrix ``(in, out)`` has ``in`` and ``out``.

    Example:
        >>> compute_fans((784, 10)), compute_fans((3, 3, 1, 8))
        ((784, 10), (9, 72))
    """
    shape = _shape(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class VarianceScaling(_Seeded):
    """Draws whose variance is ``scale / n``, ``n`` set by ``mode``.

    ``mode`` is "fan_in", "fan_out" or "fan_avg"; ``distribution`` is
    "truncated_normal" (stddev ``sqrt(scale / n) / 0.8796...``),
    "untruncated_normal" (stddev ``sqrt(scale / n)``) or "uniform" (limit
    ``sqrt(3 * scale / n)``).

    Raises:
        ValueError: for a non-positive ``scale`` or an unknown mode or
            distribution.

    Example:
        >>> w = VarianceScaling(distribution="uniform", seed=0)((300, 300)).numpy()
        >>> bool(abs(w).max() <= 0.1)
        True
    """

    def __init__(
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
    ) -> None:
        if scale <= 0.0:
            raise ValueError(
                f"Argument `scale` must be positive float. Received: scale={scale}"
            )
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(
                "Invalid `mode` argument: expected one of 'fan_in', 'fan_out', "
                f"'fan_avg'. Received: mode={mode!r}"
            )
        distribution = distribution.lower()
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(
                "Invalid `distribution` argument: expected one of 'uniform', "
                "'truncated_normal', 'untruncated_normal'. Received: "
                f"distribution={distribution!r}"
            )
        super().__init__(seed)
        self.scale = scale
        self.mode = mode
        self.distribution = distribution

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        shape = _shape(shape)
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}
        scale = self.scale / max(1.0, n[self.mode])
        rng = self._rng()
        if self.distribution == "truncated_normal":
            values = _truncated_normal(rng, shape) * (
                math.sqrt(scale) / _TRUNCATED_STDDEV
            )
        elif self.distribution == "untruncated_normal":
            values = rng.standard_normal(shape) * math.sqrt(scale)
        else:
            limit = math.sqrt(3.0 * scale)
            values = rng.uniform(-limit, limit, shape)
        return Tensor(values.astype(_np_dtype(dtype)))

    def get_config(self) -> dict:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
        }


class GlorotUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))``.

    Example:
        >>> w = GlorotUniform(seed=0)((784, 10)).numpy()
        >>> bool(abs(w).max() <= (6 / 794) ** 0.5)
        True
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``.

    Example:
        >>> GlorotNormal(seed=0)((4, 4)).shape
        TensorShape([4, 4])
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class HeNormal(VarianceScaling):
    """Truncated normal with stddev ``sqrt(2 / fan_in)``.

    Example:
        >>> HeNormal(seed=0)((4, 4)).shape
        TensorShape([4, 4])
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(2.0, "fan_in", "truncated_normal", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class HeUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / fan_in)``.

    Example:
        >>> HeUniform(seed=0)((4, 4)).shape
        TensorShape([4, 4])
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(2.0, "fan_in", "uniform", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class LecunNormal(VarianceScaling):
    """Truncated normal with stddev ``sqrt(1 / fan_in)``.

    Example:
        >>> LecunNormal(seed=0)((4, 4)).shape
        TensorShape([4, 4])
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_in", "truncated_normal", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class LecunUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(3 / fan_in)``.

    Example:
        >>> LecunUniform(seed=0)((4, 4)).shape
        TensorShape([4, 4])
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_in", "uniform", seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class Orthogonal(_Seeded):
    """A random orthogonal matrix (rows or columns orthonormal), times ``gain``.

    Of a shape of more than two axes, the leading axes are flattened into rows.
    Keras' default for the recurrent kernels of SimpleRNN, LSTM and GRU.

    Example:
        >>> w = Orthogonal(seed=0)((3, 3)).numpy()
        >>> np.allclose(w @ w.T, np.eye(3), atol=1e-6)
        True
    """

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None) -> Tensor:
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize must be at least two-dimensional. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = self._rng().standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return Tensor((self.gain * q.reshape(shape)).astype(_np_dtype(dtype)))

    def get_config(self) -> dict:
        return {"seed": self.seed, "gain": self.gain}


_BY_NAME: dict[str, type] = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
    "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform,
    "orthogonal": Orthogonal,
}
_BY_NAME.update({cls.__name__: cls for cls in list(_BY_NAME.values())})
# Keras 3's short aliases (Embedding's default is "uniform")
_BY_NAME.update({"uniform": RandomUniform, "normal": RandomNormal})


def get(identifier: Any) -> Any:
    """An initializer from a name ("glorot_uniform" or "GlorotUniform"), an
    instance, or a callable ``f(shape, dtype)``; None gives None.

    A name makes a new instance each time (so each layer draws its own values).

    Raises:
        ValueError: for an unknown name or a value that is not callable.

    Example:
        >>> type(get("he_normal")).__name__
        'HeNormal'
    """
    if identifier is None or isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier)
        if cls is None:
            known = ", ".join(sorted(k for k in _BY_NAME if k.islower()))
            raise ValueError(
                f"Could not interpret initializer identifier: {identifier!r}. Known "
                f"names: {known}."
            )
        return cls()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(
        f"Could not interpret initializer identifier: {identifier!r}. Pass a name "
        "such as 'glorot_uniform', an initializer, or a function of (shape, dtype)."
    )
