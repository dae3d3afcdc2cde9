"""The Keras 3 ``Metric`` base class and the NumPy helpers every metric shares.

A metric keeps its state in non-trainable variables: ``update_state`` adds a
batch, ``result()`` reads the value so far and ``reset_state()`` starts again;
calling a metric does the first two. The bookkeeping runs on the values of its
inputs (NumPy), so updating a metric inside a ``GradientTape`` records nothing
of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...engine import dtypes, nest
from ...engine.context import state
from ...engine.tensor import Tensor, Variable, array_of
from ...engine.trace import host_call
from .. import backend, initializers
from ..layers.variable import KerasVariable

__all__ = ["Metric"]


def values_of(x: Any, dtype: Any = None) -> np.ndarray:
    """The value of a tensor, variable, array or number, as NumPy (never recorded)."""
    array = array_of(x) if isinstance(x, (Tensor, Variable)) else np.asarray(x)
    if dtype is not None:
        array = array.astype(dtype, copy=False)
    return np.asarray(array)


def numpy_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype of a Keras dtype name ("float32")."""
    return np.dtype(dtypes.as_dtype(backend.standardize_dtype(dtype)).as_numpy_dtype)


def squeeze_or_expand(
    x1: np.ndarray, x2: np.ndarray, expand_rank_1: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """NumPy twin of ``losses.squeeze_or_expand_to_same_rank``.

    When the ranks differ by one and the longer shape ends in 1, that axis goes
    (or, for rank 1 against rank 2, the shorter gains one).

    Example:
        >>> a, b = squeeze_or_expand(np.zeros(3), np.zeros((3, 1)))
        >>> a.shape, b.shape
        ((3, 1), (3, 1))
    """
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = x2[..., None]
        else:
            x1 = x1[..., 0]
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = x1[..., None]
        else:
            x2 = x2[..., 0]
    return x1, x2


def divide_no_nan(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, and 0 wherever the denominator is 0.

    Example:
        >>> divide_no_nan(np.array([1.0, 2.0]), np.array([0.0, 4.0]))
        array([0. , 0.5])
    """
    zero = denominator == 0
    return np.where(zero, 0, numerator / np.where(zero, 1, denominator)).astype(
        np.result_type(numerator, denominator)
    )


class Metric:
    """Base class: subclasses define ``update_state`` and ``result``.

    Create the state in ``__init__`` with :meth:`add_variable`; metrics held in
    attributes count their variables as this metric's too.

    Args:
        dtype: the dtype of the metric's variables and result (default floatx).
        name: the metric's name (default: from the class, made unique).

    Example:
        >>> class Count(Metric):
        ...     def __init__(self, name="count"):
        ...         super().__init__(name=name)
        ...         self.total = self.add_variable(name="total")
        ...     def update_state(self, values):
        ...         self.total.assign_add(float(np.size(values)))
        ...     def result(self):
        ...         return self.total
        >>> m = Count()
        >>> float(m([1, 2, 3])), [v.path for v in m.variables]
        (3.0, ['count/total'])
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A metric computes with NumPy on its variables' arrays: inside a
        # tf.function each of these calls is one host call of the plan, run
        # again on every call, with that call's tensors.
        for name in _HOSTED:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "hosted", False):
                setattr(cls, name, _hosted(method))

    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        self.name = name or backend._auto_name(type(self).__name__)
        self._dtype = backend.standardize_dtype(dtype)
        self._variables: list[KerasVariable] = []

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def variables(self) -> list[KerasVariable]:
        """The state variables (non-trainable), then those of metric attributes."""
        self._check_super_called()
        found = list(self._variables)
        seen = {id(v) for v in found}
        for value in vars(self).values():
            if isinstance(value, Metric) and value is not self:
                for variable in value.variables:
                    if id(variable) not in seen:
                        seen.add(id(variable))
                        found.append(variable)
        return found

    def add_variable(
        self,
        shape: Any = (),
        initializer: Any = "zeros",
        dtype: Any = None,
        aggregation: str = "sum",
        name: str | None = None,
    ) -> KerasVariable:
        """A new non-trainable state variable, reset to zeros by ``reset_state``.

        Args:
            shape: the variable's shape.
            initializer: a name ("zeros", "ones"), an initializer or a function
                of ``(shape, dtype)``.
            dtype: default the metric's dtype.
            aggregation: accepted for compatibility.
            name: the variable's name; its path is ``"<metric name>/<name>"``.

        Raises:
            RuntimeError: if ``super().__init__()`` was not called.
        """
        self._check_super_called()
        dtype = backend.standardize_dtype(dtype or self.dtype)
        shape = tuple(int(d) for d in shape)
        value = initializers.get(initializer)(shape, dtype=dtype)
        name = "variable" if name is None else name
        variable = KerasVariable(
            values_of(value, numpy_dtype(dtype)).reshape(shape),
            trainable=False,
            name=name,
            dtype=dtype,
            path=f"{self.name.replace('/', '>')}/{name}",
        )
        self._variables.append(variable)
        return variable

    def add_weight(
        self,
        shape: Any = (),
        initializer: Any = None,
        dtype: Any = None,
        name: str | None = None,
    ) -> KerasVariable:
        """The older name of :meth:`add_variable` (zeros by default)."""
        return self.add_variable(
            shape=shape, initializer=initializer or "zeros", dtype=dtype, name=name
        )

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} must define update_state(...) that adds a batch "
            "to the metric's variables."
        )

    def result(self) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} must define result() that computes the value "
            "from the metric's variables."
        )

    def reset_state(self) -> None:
        """Set every state variable back to zeros."""
        for variable in self.variables:
            variable.assign(np.zeros(variable.shape, array_of(variable).dtype))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_super_called()
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict) -> Metric:
        return cls(**config)

    def _check_super_called(self) -> None:
        if "_variables" not in vars(self):
            raise RuntimeError(
                "You forgot to call `super().__init__()` in the `__init__()` method "
                f"of {type(self).__name__}. Go add it!"
            )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__


_HOSTED = ("update_state", "result", "reset_state")


def _hosted(method: Callable) -> Callable:
    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not state.observers:
            return method(self, *args, **kwargs)
        leaves = nest.flatten((args, kwargs))
        tensors = [x for x in leaves if isinstance(x, Tensor)]

        def run(*given: Tensor) -> Any:
            again = iter(given)
            values = [next(again) if isinstance(x, Tensor) else x for x in leaves]
            call_args, call_kwargs = nest.pack_sequence_as((args, kwargs), values)
            return method(self, *call_args, **call_kwargs)

        return host_call(run, *tensors)

    wrapper.hosted = True  # type: ignore[attr-defined]
    return wrapper


for _name in _HOSTED:
    setattr(Metric, _name, _hosted(Metric.__dict__[_name]))
