"""``keras.Variable`` (``KerasVariable``): a layer's weight, as Keras 3's acts."""

from __future__ import annotations

from typing import Any

from ...engine import tensor as engine
from ...engine.variable import backing_variable
from .. import backend, initializers

__all__ = ["KerasVariable", "Variable"]


class Variable(engine.Variable):
    """A layer's weight: an engine Variable that acts as ``keras.Variable``.

    Its class is named ``Variable``, as Keras 3's is; tapemagic calls it
    ``KerasVariable``.

    ``keras.Variable`` is this class: ``keras.Variable(1.0, name="w")``, or
    ``keras.Variable("zeros", shape=(3,))`` with an initializer. Unlike a
    plain ``tf.Variable``, it becomes a weight of the layer or model whose
    attribute it is.

    ``name`` is the name given to ``add_weight`` ("kernel", with no ":0") and
    ``path`` adds the layers it was created in ("sequential/dense/kernel").
    Setting ``trainable`` also decides whether tapes watch it automatically. It
    prints as Keras 3 prints its variables and its ``dtype`` is a string
    (``'float32'``), as in Keras 3.

    As on TensorFlow, ``assign``, ``assign_add`` and ``assign_sub`` return the
    new value as a tensor; ``.value`` is the ``tf.Variable`` behind the weight
    (named ``"dense/bias:0"``), and ``tape.watch`` refuses the weight itself
    with TensorFlow's ValueError: watch ``.value``, or let the tape watch the
    weight when it reads it (``watch_accessed_variables=True``, the default).

    Example:
        >>> import numpy as np
        >>> v = KerasVariable(np.zeros(2, np.float32), name="bias", path="dense/bias")
        >>> v.name, v.path, v.trainable
        ('bias', 'dense/bias', True)
        >>> v
        <Variable path=dense/bias, shape=(2,), dtype=float32, value=[0. 0.]>
        >>> v.assign([1.0, 2.0])
        <tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>
        >>> v.value.name, v.value.numpy()
        ('dense/bias:0', array([1., 2.], dtype=float32))
    """

    __slots__ = ("_path", "_backing")

    def __init__(
        self,
        initializer: Any = None,
        shape: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        aggregation: str = "none",
        synchronization: str = "auto",
        name: str | None = None,
        path: str | None = None,
    ) -> None:
        if isinstance(initializer, str) or callable(initializer):
            # keras.Variable(initializer="zeros", shape=(2,)): the value is drawn
            if shape is None:
                raise ValueError(
                    f"A variable made with initializer {initializer!r} needs its "
                    "shape: keras.Variable(initializer, shape=(...))."
                )
            shape = tuple(int(d) for d in shape)
            initializer = initializers.get(initializer)(
                shape, dtype=backend.standardize_dtype(dtype)
            )
        name = "variable" if name is None else str(name)
        super().__init__(initializer, trainable=trainable, name=name, dtype=dtype)
        self._path = name if path is None else path
        self._backing: engine.Variable | None = None

    @property
    def name(self) -> str:
        # Keras 3 names carry no TensorFlow output index (":0")
        return super().name.removesuffix(":0")

    @property
    def path(self) -> str:
        return self._path

    @property
    def dtype(self) -> str:  # type: ignore[override]
        # Keras 3 names its dtypes: 'float32', not tf.float32
        return super().dtype.name

    @property
    def value(self) -> engine.Variable:  # type: ignore[override]
        """The ``tf.Variable`` behind this weight, named ``path + ":0"``.

        ``tape.watch(layer.kernel.value)`` watches the weight, and reading,
        assigning or watching it reads, assigns or watches the weight.
        """
        if self._backing is None:
            self._backing = backing_variable(self, self._path)
        return self._backing

    def assign(self, value: Any) -> engine.Tensor:  # type: ignore[override]
        """Replace the value; returns the new value as a tensor (Keras 3).

        Raises:
            ValueError: if the new value's shape differs from the weight's.
        """
        super().assign(value, read_value=False)
        return engine.Tensor(engine.array_of(self))

    def assign_add(self, value: Any) -> engine.Tensor:  # type: ignore[override]
        """Add ``value``; returns the new value as a tensor (Keras 3)."""
        super().assign_add(value, read_value=False)
        return engine.Tensor(engine.array_of(self))

    def assign_sub(self, value: Any) -> engine.Tensor:  # type: ignore[override]
        """Subtract ``value``; returns the new value as a tensor (Keras 3)."""
        super().assign_sub(value, read_value=False)
        return engine.Tensor(engine.array_of(self))

    def _watch_refusal(self) -> str:
        # TensorFlow's tape.watch does not take a Keras 3 weight.
        name = self.name
        return (
            f"A Keras weight cannot be watched itself: watch the tf.Variable behind "
            f"it, tape.watch(layer.{name}.value) (for a list of weights: "
            f"tape.watch([w.value for w in model.trainable_weights])), or leave "
            "watch_accessed_variables=True: a tape watches trainable Keras weights "
            "when it reads them."
        )

    @property
    def trainable(self) -> bool:
        return super().trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        # The engine's Variable has no trainable setter (TensorFlow fixes the
        # flag at creation), and tapes read this slot to decide what to watch.
        self._trainable = bool(value)

    def __repr__(self) -> str:
        # as Keras 3.15 prints its variables: path first, then the value
        return (
            f"<Variable path={self._path}, shape={tuple(self.shape)}, "
            f"dtype={self.dtype}, value={self.numpy()}>"
        )

    def __str__(self) -> str:
        return self.__repr__()

    def __reduce__(self) -> tuple:
        return _rebuild, (self.numpy(), self.trainable, self.name, self._path)


# The name the rest of tapemagic uses, as Keras's own base class is named.
KerasVariable = Variable


def _rebuild(value: Any, trainable: bool, name: str, path: str) -> KerasVariable:
    return KerasVariable(value, trainable=trainable, name=name, path=path)
