"""The engines a ``%%tape`` cell runs on: tapemagic's own, or real TensorFlow.

The cell's engine is what ``tf`` names in the user namespace
(:func:`choose_engine`), or what ``--engine`` says. An :class:`Engine` holds
what the magic needs of one: its tape class (a ``RecordingTape`` for
TensorFlow), which objects are its tensors and variables, its
``UnconnectedGradients``, how to take a listener off, and the surface through
which the graph package reads its tapes (:mod:`tapemagic.graph.recorders`).
TensorFlow and its recorder load only when a cell runs on TensorFlow.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from IPython.core.error import UsageError

from . import alias, tf_recorder
from .engine.recorder import detach
from .engine.tape import GradientTape, UnconnectedGradients
from .engine.tensor import Tensor, Variable
from .graph import recorders

__all__ = ["TAPEMAGIC", "Engine", "choose_engine", "is_tape", "tensorflow_engine"]


def is_tape(obj: Any) -> bool:
    """Whether ``obj`` is a GradientTape of tapemagic's engine or of TensorFlow
    (whose recorder then becomes readable by the graph package).

    Example:
        >>> is_tape(GradientTape()), is_tape(None)
        (True, False)
    """
    if isinstance(obj, GradientTape):
        return True
    if not _from_tensorflow(obj):
        return False
    surface = tensorflow_engine().surface
    return surface.owns(obj)


def _from_tensorflow(obj: Any) -> bool:
    return any(
        cls.__module__.startswith("tensorflow.") for cls in type(obj).__mro__[:-1]
    )


class Engine:
    """What the magic needs of one engine: its tapes, values and recorder."""

    def __init__(
        self,
        name: str,
        surface: Any,
        tape: Any,
        is_value: Any,
        unconnected: Any,
        detach: Any,
        module: Any = None,
    ) -> None:
        self.name = name
        self.module = module
        self.surface = surface
        self.tape = tape
        self.is_value = is_value
        self.unconnected = unconnected
        self.detach = detach


def _is_engine_value(obj: Any) -> bool:
    return isinstance(obj, (Tensor, Variable))


TAPEMAGIC = Engine(
    "tapemagic",
    recorders.ENGINE,
    GradientTape,
    _is_engine_value,
    UnconnectedGradients,
    detach,
)
_TENSORFLOW: list[Engine] = []


def tensorflow_engine() -> Engine:
    """Real TensorFlow as the magic's engine: imports TensorFlow and its
    recorder, and lets the graph package read TensorFlow's tapes.

    Raises:
        UsageError: if TensorFlow is not installed, saying how to install it,
            or while ``import tensorflow`` loads tapemagic (tapemagic.alias).
    """
    if not _TENSORFLOW:
        if alias.is_aliased():
            raise UsageError(
                "%%tape --engine tensorflow needs real TensorFlow, but `import "
                "tensorflow` loads tapemagic in this kernel (tapemagic.alias is "
                "on). Run the cell without --engine, on tapemagic; or call "
                "tapemagic.alias.unalias_tensorflow() and rebind tf with import "
                "tensorflow as tf."
            )
        try:
            module = tf_recorder.load()
        except ModuleNotFoundError:
            raise UsageError(
                f"%%tape --engine tensorflow: {tf_recorder.MISSING}"
            ) from None
        import tensorflow as tf

        recorders.register(module.SURFACE)

        def detach_both(listener: Any) -> None:
            module.recorder.detach(listener)
            detach(listener)

        _TENSORFLOW.append(
            Engine(
                "tensorflow",
                module.SURFACE,
                module.RecordingTape,
                module.SURFACE.is_value,
                tf.UnconnectedGradients,
                detach_both,
                module,
            )
        )
    return _TENSORFLOW[0]


def choose_engine(option: str | None, ns: dict) -> Engine:
    """The engine a cell runs on: ``option`` if given (``--engine``), else the
    one ``tf`` names in ``ns`` (real TensorFlow when it is TensorFlow, or when
    ``tf`` is unbound and the namespace holds TensorFlow or Keras under another
    name; tapemagic's otherwise).

    Raises:
        UsageError: for TensorFlow, when it is not installed.

    Example:
        >>> import tapemagic.tf as tf
        >>> choose_engine(None, {"tf": tf}).name, choose_engine("tapemagic", {}).name
        ('tapemagic', 'tapemagic')
    """
    if option == "tapemagic":
        return TAPEMAGIC
    if option == "tensorflow":
        return tensorflow_engine()
    tf = ns.get("tf")
    if isinstance(tf, ModuleType):
        name = tf.__name__
        if name == "tensorflow" or name.startswith("tensorflow."):
            return tensorflow_engine()
        return TAPEMAGIC
    if any(
        isinstance(value, ModuleType)
        and value.__name__.split(".")[0] in ("tensorflow", "keras")
        for value in ns.values()
    ):
        return tensorflow_engine()
    return TAPEMAGIC
