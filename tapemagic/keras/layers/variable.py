"""``KerasVariable``: a layer's weight, an engine Variable named as Keras 3 names it."""

from __future__ import annotations

from typing import Any

from ...engine.tensor import Variable
from .. import backend, initializers

__all__ = ["KerasVariable"]


class KerasVariable(Variable):
    """A layer's weight: an engine Variable with Keras 3's ``name`` and ``path``.

    ``keras.Variable`` is this class: ``keras.Variable(1.0, name="w")``, or
    ``keras.Variable("zeros", shape=(3,))`` with an initializer. Unlike a
    plain ``tf.Variable``, it becomes a weight of the layer or model whose
    attribute it is.

    ``name`` is the name given to ``add_weight`` ("kernel", with no ":0") and
    ``path`` adds the layers it was created in ("sequential/dense/kernel").
    Setting ``trainable`` also decides whether tapes watch it automatically. It
    prints as Keras 3 prints its variables.

    Example:
        >>> import numpy as np
        >>> v = KerasVariable(np.zeros(2, np.float32), name="bias", path="dense/bias")
        >>> v.name, v.path, v.trainable
        ('bias', 'dense/bias', True)
        >>> v
        <Variable path=dense/bias, shape=(2,), dtype=float32, value=[0. 0.]>
    """

    __slots__ = ("_path",)

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

    @property
    def name(self) -> str:
        # Keras 3 names carry no TensorFlow output index (":0")
        return super().name.removesuffix(":0")

    @property
    def path(self) -> str:
        return self._path

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
            f"dtype={self.dtype.name}, value={self.numpy()}>"
        )

    def __str__(self) -> str:
        return self.__repr__()

    def __reduce__(self) -> tuple:
        return _rebuild, (self.numpy(), self.trainable, self.name, self._path)


def _rebuild(value: Any, trainable: bool, name: str, path: str) -> KerasVariable:
    return KerasVariable(value, trainable=trainable, name=name, path=path)
