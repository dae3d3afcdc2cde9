"""Unchanged TensorFlow programs on tapemagic: ``import tensorflow`` loads
:mod:`tapemagic.tf`, ``import keras`` :mod:`tapemagic.keras`.

Never on by default. A program asks for it one of three ways:

- ``python -m tapemagic run script.py [args]`` runs a script with it on;
- :func:`alias_tensorflow` (or ``%load_ext tapemagic.alias``) turns it on in a
  notebook, before the notebook imports TensorFlow;
- :func:`alias_from_environment` turns it on when the environment variable
  ``TAPEMAGIC_AS_TENSORFLOW`` is ``1``: for a Binder image or a JupyterHub,
  an IPython startup file calls it (binder/postBuild writes one), so a kernel
  started with the variable set runs TensorFlow notebooks on tapemagic.

It says so once, on stderr. It refuses while real TensorFlow is already
imported (a process cannot hold both under one name), and ``%%tape --engine
tensorflow`` refuses while it is on. A finder on ``sys.meta_path``
(:mod:`tapemagic._aliases`) hands back tapemagic's modules themselves, so
``tensorflow.keras.layers`` is ``tapemagic.keras.layers``; a TensorFlow module
tapemagic does not have raises ModuleNotFoundError saying so.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ._aliases import ModuleAliases, install, uninstall

__all__ = [
    "ENVIRONMENT_VARIABLE",
    "alias_from_environment",
    "alias_tensorflow",
    "is_aliased",
    "load_ipython_extension",
    "unalias_tensorflow",
    "unload_ipython_extension",
]

ENVIRONMENT_VARIABLE = "TAPEMAGIC_AS_TENSORFLOW"

_FINDER = ModuleAliases(
    {"tensorflow": "tapemagic.tf", "keras": "tapemagic.keras"},
    missing=(
        "No module named {name!r}: `import tensorflow` loads tapemagic here "
        "(tapemagic.alias), which has no {target}. Run this program on "
        "TensorFlow itself (without python -m tapemagic run or "
        "alias_tensorflow()), or import only the public tf and keras API."
    ),
)
_ANNOUNCED: list[bool] = []


def is_aliased() -> bool:
    """Whether ``import tensorflow`` loads tapemagic in this process.

    Example:
        >>> is_aliased()
        False
    """
    return _FINDER in sys.meta_path


def alias_tensorflow() -> None:
    """Make ``import tensorflow`` and ``import keras`` load tapemagic's modules.

    Says so once, on stderr. Call it before the program imports TensorFlow.

    Raises:
        RuntimeError: if real TensorFlow or Keras is imported already.
    """
    if is_aliased():
        return
    for name in ("tensorflow", "keras"):
        module = sys.modules.get(name)
        if module is not None:
            raise RuntimeError(
                f"{name} is imported already in this process, so `import {name}` "
                "cannot load tapemagic's modules now. Restart the kernel (or the "
                "program) and turn the alias on before anything imports "
                f"{name}; or keep real {name} and use import tapemagic.tf as tf."
            )
    install(_FINDER)
    if not _ANNOUNCED:
        _ANNOUNCED.append(True)
        print(
            "tapemagic: `import tensorflow` and `import keras` load tapemagic's "
            "modules in this process (tapemagic.alias).",
            file=sys.stderr,
        )


def unalias_tensorflow() -> None:
    """Turn the alias off: ``import tensorflow`` finds real TensorFlow again.

    Names bound already (``tf`` in a notebook) keep tapemagic's modules.
    """
    uninstall(_FINDER)


def alias_from_environment() -> bool:
    """Turn the alias on if ``TAPEMAGIC_AS_TENSORFLOW`` is ``1``; say whether it is.

    Any other value leaves it as it is (off, unless asked otherwise).
    """
    if os.environ.get(ENVIRONMENT_VARIABLE, "").strip() == "1":
        alias_tensorflow()
    return is_aliased()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext tapemagic.alias``: :func:`alias_tensorflow` in a notebook."""
    alias_tensorflow()


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext tapemagic.alias``: :func:`unalias_tensorflow`."""
    unalias_tensorflow()
