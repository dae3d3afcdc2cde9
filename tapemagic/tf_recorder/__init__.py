"""``%%tape`` on real TensorFlow: a second recorder, fed by TensorFlow itself.

tapemagic's engine is one recorder of events (:mod:`tapemagic.engine.events`);
this package is another, for programs that run on TensorFlow: it hears
TensorFlow's eager execution (its op callbacks, its tapes, its variables) and
emits the same records, so the explanation log, the graph model, the
diagnosis and the views work on it unchanged. It imports nothing of tapemagic
but those records.

Importing this package does not import TensorFlow (``import tapemagic`` never
does): :func:`available` says whether it is installed, :func:`load` imports
the recorder and TensorFlow with it. Modules: ``opnames`` (TensorFlow's op
types under the names users write; no TensorFlow import), ``state`` (what the
recorder keeps per thread), ``values`` (tensors and variables as events see
them), ``ops`` (ops, reads, assignments), ``crossings`` (conversions,
escapes), ``recorder`` (who listens, the hooks) and ``tape`` (tape events,
:class:`~tapemagic.tf_recorder.tape.RecordingTape`, and the surface through
which the graph package reads a TensorFlow tape).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

__all__ = ["MISSING", "available", "load"]

MISSING = (
    "TensorFlow is not installed in this kernel's environment. Install it with "
    "pip install 'tapemagic[tensorflow]' (or pip install tensorflow), then "
    "restart the kernel; or use tapemagic's engine: import tapemagic.tf as tf."
)


def available() -> bool:
    """Whether TensorFlow can be imported (without importing it).

    Example:
        >>> isinstance(available(), bool)
        True
    """
    return importlib.util.find_spec("tensorflow") is not None


def load() -> ModuleType:
    """Import TensorFlow and the recorder; the module whose ``SURFACE``,
    ``RecordingTape`` and helpers the magic uses.

    Raises:
        ModuleNotFoundError: if TensorFlow is not installed, saying how to get it.
    """
    if not available():
        raise ModuleNotFoundError(MISSING, name="tensorflow")
    return importlib.import_module(f"{__name__}.tape")
