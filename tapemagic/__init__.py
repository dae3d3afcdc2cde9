"""tapemagic: see what a gradient tape recorded, and why a gradient is None.

``import tapemagic.tf as tf`` gives a TensorFlow-compatible API on a NumPy engine;
``%load_ext tapemagic`` adds the ``%%tape`` cell magic.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "load_ipython_extension", "unload_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%tape`` and ``%tape`` (IPython calls this on ``%load_ext``)."""
    from .magic import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what ``load_ipython_extension`` registered."""
    from .magic import unload_ipython_extension as unload

    unload(ipython)
