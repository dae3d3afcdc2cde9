"""The Keras 3 ``Optimizer`` base class: building, slots, applying gradients.

Each optimizer's ``update_step`` follows Keras 3's to the letter (the same
operations in the same order, in the variable's dtype), so the numbers match
``tf.keras.optimizers`` up to float rounding. Updates run in NumPy on the
variables' values and are written with ``Variable.assign``: like every
assignment, they are never recorded by a tape, even when ``apply_gradients``
runs inside one.

As in Keras, an optimizer is built on the variables of its first call: it makes
its slot variables (momentums, velocities...) for each of them, keyed by the
variable's identity, and refuses variables it was not built with. ``None``
gradients are skipped with a ``UserWarning`` naming the variables.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...engine import dtypes
from ...engine.tensor import Tensor, Variable, array_of, id_of
from ...engine.trace import host_call
from .schedules import LearningRateSchedule

__all__ = ["Optimizer"]

# Keras options tapemagic does not implement, with their "off" values.
_UNSUPPORTED = {
    "weight_decay": None,
    "clipnorm": None,
    "clipvalue": None,
    "global_clipnorm": None,
    "use_ema": False,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}


# The count each update adds to `iterations`, as the variable's own dtype: the
# assignment takes it as it is, with no conversion.
_ONE = np.ones((), np.int64)
_ONE.flags.writeable = False


def _array(value: Any) -> np.ndarray:
    """A gradient, hyperparameter or tensor as a NumPy value (never recorded)."""
    if isinstance(value, (Tensor, Variable)):
        return array_of(value)
    return np.asarray(value)


def _cast(value: Any, dtype: np.dtype) -> np.ndarray:
    # ops.cast(value, variable.dtype) in Keras' update steps; a value already
    # of that dtype comes back as it is (no update step writes into it), so a
    # step costs the arithmetic of its rule and no copy of the gradient.
    array = value if type(value) is np.ndarray else _array(value)
    return array if array.dtype == dtype else array.astype(dtype)


def _plain(value: Any) -> Any:
    """A hyperparameter as a Python or NumPy scalar (a tensor gives its value)."""
    if isinstance(value, (Tensor, Variable)):
        return array_of(value)[()]
    return value


class Optimizer:
    """Base class of the Keras optimizers: building, slots, applying gradients.

    Subclasses define ``build(var_list)`` (making slot variables) and
    ``update_step(gradient, variable, learning_rate)``.

    Args:
        learning_rate: a float, a :class:`~.schedules.LearningRateSchedule` (called
            with ``iterations``), or a callable taking no arguments.
        name: the optimizer's name.
        **kwargs: Keras options; those tapemagic does not implement (clipnorm,
            weight_decay, ...) must keep their default.

    Raises:
        ValueError: for a learning rate that is not a float, schedule or callable,
            or an unknown keyword argument.
        NotImplementedError: for a Keras option tapemagic does not implement.
    """

    def __init__(
        self,
        learning_rate: Any,
        name: str | None = None,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        **kwargs: Any,
    ) -> None:
        if kwargs.pop("decay", None) is not None:
            warnings.warn(
                "Argument `decay` is no longer supported and will be ignored. Use a "
                "learning-rate schedule, e.g. "
                "tf.keras.optimizers.schedules.ExponentialDecay.",
                UserWarning,
                stacklevel=3,
            )
        for option, off in _UNSUPPORTED.items():
            value = kwargs.pop(option, off)
            if value is not off and value != off:
                raise NotImplementedError(
                    f"{type(self).__name__}({option}={value!r}) is not supported by "
                    "tapemagic's optimizers. Leave it out, or do it by hand before "
                    "apply_gradients (e.g. tf.clip_by_value on the gradients)."
                )
        if kwargs:
            hint = " Use learning_rate= instead of lr=." if "lr" in kwargs else ""
            raise ValueError(f"Argument(s) not recognized: {kwargs}.{hint}")
        self.name = type(self).__name__.lower() if name is None else name
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.built = False
        self._variables: list[Variable] = []
        self._trainable_variables: list[Variable] = []
        self._index: dict[int, int] = {}
        self._iterations = self._track(
            Variable(np.int64(0), trainable=False, name="iteration")
        )
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            self._learning_rate: Any = learning_rate
        else:
            if not isinstance(learning_rate, float):
                hint = ""
                if isinstance(learning_rate, int) and not isinstance(
                    learning_rate, bool
                ):
                    hint = (
                        f" Write it as a float: learning_rate={float(learning_rate)!r}."
                    )
                raise ValueError(
                    "Argument `learning_rate` should be float, or an instance of "
                    "LearningRateSchedule, or a callable (that takes in the current "
                    "iteration value and returns the corresponding learning rate "
                    f"value). Received instead: learning_rate={learning_rate!r}.{hint}"
                )
            self._learning_rate = self._track(
                self._learning_rate_variable(learning_rate)
            )

    # -- state -----------------------------------------------------------------
    def _track(self, variable: Variable) -> Variable:
        self._variables.append(variable)
        return variable

    @staticmethod
    def _learning_rate_variable(value: float) -> Variable:
        return Variable(np.float32(value), trainable=False, name="learning_rate")

    @property
    def iterations(self) -> Variable:
        """How many updates have been applied (an int64, non-trainable Variable)."""
        return self._iterations

    @property
    def variables(self) -> list[Variable]:
        """The optimizer's own variables: iterations, learning rate, then the slots."""
        return list(self._variables)

    @property
    def learning_rate(self) -> Any:
        """The current learning rate: a float32 Variable, or a schedule's value.

        Assign a float to change it; assigning a callable or schedule replaces it.

        Raises:
            TypeError: when assigning a float to an optimizer built with a schedule.
        """
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            return lr(self._iterations)
        if callable(lr):
            return lr()
        return lr

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        current = self._learning_rate
        if isinstance(value, LearningRateSchedule) or callable(value):
            if isinstance(current, Variable):
                # by identity: == on variables compares their values
                self._variables = [v for v in self._variables if v is not current]
            self._learning_rate = value
        elif isinstance(current, LearningRateSchedule):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as "
                "its `learning_rate` constructor argument, hence its learning rate "
                "is not settable. If you need the learning rate to be settable, you "
                "should instantiate the optimizer with a float `learning_rate` "
                "argument."
            )
        elif isinstance(current, Variable):
            current.assign(value)
        else:
            self._learning_rate = self._learning_rate_variable(float(_plain(value)))
            self._variables.insert(1, self._learning_rate)

    def _var_key(self, variable: Variable) -> int:
        # the engine's id: unique per Variable for the life of the process
        return id_of(variable)

    def _get_variable_index(self, variable: Variable) -> int:
        return self._index[self._var_key(variable)]

    # -- building ----------------------------------------------------------------
    def build(self, var_list: list[Variable]) -> None:
        """Record the model variables this optimizer updates (subclasses add slots).

        Raises:
            TypeError: if an entry is not a Variable.
        """
        for i, variable in enumerate(var_list):
            if not isinstance(variable, Variable):
                raise TypeError(
                    f"{type(self).__name__} can only update tf.Variable objects, got "
                    f"{type(variable).__name__} at position {i}. A tensor cannot be "
                    "changed in place: hold the parameter in a tf.Variable and "
                    "update it with the optimizer or var.assign_sub(...)."
                )
            self._index[self._var_key(variable)] = i
        self._trainable_variables = list(var_list)
        self.built = True

    def add_variable(
        self,
        shape: Any,
        initializer: str = "zeros",
        dtype: Any = None,
        name: str | None = None,
    ) -> Variable:
        """A new non-trainable variable owned (and listed) by the optimizer.

        Raises:
            ValueError: for an initializer other than "zeros" or "ones".
        """
        if initializer not in ("zeros", "ones"):
            raise ValueError(
                f"Unsupported initializer {initializer!r} for an optimizer variable; "
                "use 'zeros' or 'ones'."
            )
        make = np.zeros if initializer == "zeros" else np.ones
        np_dtype = np.float32 if dtype is None else _dtype_of(dtype)
        value = make(tuple(shape), dtype=np_dtype)
        return self._track(Variable(value, trainable=False, name=name))

    def add_variable_from_reference(
        self,
        reference_variable: Variable,
        name: str | None = None,
        initializer: str = "zeros",
    ) -> Variable:
        """A slot: zeros with the shape and dtype of ``reference_variable``.

        Named as Keras names slots of a ``tf.Variable``: ``"w:0"`` and
        ``"momentum"`` give ``"w_0_momentum"``.
        """
        base = str(reference_variable.name).replace("/", "_").replace(":", "_")
        return self.add_variable(
            reference_variable.shape,
            initializer=initializer,
            dtype=array_of(reference_variable).dtype,
            name=f"{base}_{name or 'var'}",
        )

    def add_optimizer_variables(
        self, var_list: list[Variable], name: str, initializer: str = "zeros"
    ) -> list[Variable]:
        """One slot per variable of ``var_list`` (see add_variable_from_reference)."""
        return [
            self.add_variable_from_reference(v, name=name, initializer=initializer)
            for v in var_list
        ]

    # -- applying gradients --------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable) -> Variable:
        """Apply one update from ``(gradient, variable)`` pairs.

        Args:
            grads_and_vars: a zip or list of pairs. Pairs whose gradient is None are
                skipped with a UserWarning naming their variables.

        Returns:
            The ``iterations`` Variable (for compatibility with tf.keras).

        Raises:
            ValueError: if there are no pairs, every gradient is None, or a variable
                is not one the optimizer was built with.
        """
        pairs = list(grads_and_vars)
        if not pairs:
            raise ValueError(
                "apply_gradients got no (gradient, variable) pairs. Pass "
                "zip(grads, variables) with the gradients from tape.gradient."
            )
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ValueError(
                    f"apply_gradients expects (gradient, variable) pairs, but item {i} "
                    f"is {pair!r}. Pass zip(grads, variables)."
                )
        grads, variables = zip(*pairs)
        self._apply(list(grads), list(variables), stacklevel=3)
        return self._iterations

    def apply(self, grads: list, trainable_variables: list | None = None) -> None:
        """Apply one update: ``grads[i]`` to ``trainable_variables[i]``.

        Args:
            grads: gradients, one per variable (None entries are skipped with a
                UserWarning).
            trainable_variables: the variables; optional once the optimizer is
                built (it then uses the variables it was built with).

        Raises:
            ValueError: as for :meth:`apply_gradients`, or if ``trainable_variables``
                is omitted before the optimizer is built, or the counts differ.
        """
        self._apply(list(grads), trainable_variables, stacklevel=3)

    def _apply(self, grads: list, variables: list | None, stacklevel: int) -> None:
        # One host call: inside a tf.function the update (NumPy on the
        # gradients' arrays) runs again on every call of its plan.
        present = [g for g in grads if isinstance(g, Tensor)]

        def update(*given: Tensor) -> None:
            again = iter(given)
            self._update([next(again) if isinstance(g, Tensor) else g for g in grads],
                         variables, stacklevel + 3)  # fmt: skip

        host_call(update, *present)

    def _update(self, grads: list, variables: list | None, stacklevel: int) -> None:
        if not grads:
            return
        if variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must "
                    "already be built on a list of variables. Call "
                    "`optimizer.build(trainable_variables)` first, or pass the "
                    "variables: optimizer.apply(grads, trainable_variables)."
                )
            if len(grads) != len(self._trainable_variables):
                raise ValueError(
                    f"Received a list of {len(grads)} gradients, but the optimizer is "
                    f"tracking {len(self._trainable_variables)} trainable variables; "
                    "pass one gradient per variable, in the same order."
                )
            variables = self._trainable_variables
        else:
            variables = list(variables)
            if len(grads) != len(variables):
                raise ValueError(
                    f"Received {len(grads)} gradients for {len(variables)} variables; "
                    "pass one gradient per variable."
                )
            if not self.built:
                self.build(variables)
            self._check_variables_are_known(variables)
        pairs = [(g, v) for g, v in zip(grads, variables) if g is not None]
        missing = [v.name for g, v in zip(grads, variables) if g is None]
        if not pairs:
            raise ValueError(
                f"No gradients provided for any variable: {missing}. Every gradient "
                "is None: the loss does not depend on these variables through "
                "recorded ops. Compute the loss from the variables inside the "
                "`with tf.GradientTape()` block."
            )
        if missing:
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the "
                "loss, so they were not updated. The loss does not depend on them "
                "through ops the tape recorded (look for .numpy(), tf.constant(var), "
                "a cast to an integer dtype or a variable used outside the tape).",
                UserWarning,
                stacklevel=stacklevel,
            )
        learning_rate = self.learning_rate
        for g, v in pairs:
            gradient = _array(g)
            if gradient.shape != array_of(v).shape:
                raise ValueError(
                    f"The gradient for {v.name} has shape {gradient.shape} but the "
                    f"variable has shape {array_of(v).shape}; they must match."
                )
            self.update_step(gradient, v, learning_rate)
        self._iterations.assign_add(_ONE)

    def _check_variables_are_known(self, variables: list) -> None:
        for v in variables:
            if not isinstance(v, Variable) or self._var_key(v) not in self._index:
                raise ValueError(
                    f"Unknown variable: {v!r}. This optimizer can only be called for "
                    "the variables it was originally built with. When working with a "
                    "new set of variables, you should recreate a new optimizer "
                    "instance."
                )

    def update_step(
        self, gradient: Any, variable: Variable, learning_rate: Any
    ) -> None:
        """Update one variable from its gradient (defined by each optimizer)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define update_step(gradient, variable, "
            "learning_rate)."
        )

    # -- configuration ---------------------------------------------------------------
    def get_config(self) -> dict:
        """The constructor arguments, as Keras reports them.

        Example:
            >>> from tapemagic.keras.optimizers import SGD
            >>> SGD(learning_rate=0.5, momentum=0.9).get_config()["momentum"]
            0.9
        """
        lr = self._learning_rate
        if isinstance(lr, Variable):
            lr = float(array_of(lr))
        return {
            "name": self.name,
            "learning_rate": lr,
            **_UNSUPPORTED,
            "ema_momentum": self.ema_momentum,
            "ema_overwrite_frequency": self.ema_overwrite_frequency,
        }

    @classmethod
    def from_config(cls, config: dict) -> Optimizer:
        """A new optimizer with the settings of ``get_config()``."""
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


def _dtype_of(dtype: Any) -> np.dtype:
    if isinstance(dtype, dtypes.DType):
        return np.dtype(dtype.as_numpy_dtype)
    return np.dtype(dtype)
