"""Modules under a second name: ``tapemagic.tf.keras.layers`` is
``tapemagic.keras.layers``, the same module object, not a second copy.

A :class:`ModuleAliases` finder on ``sys.meta_path`` answers for every module
under an alias prefix by importing the module it stands for and handing that
module back, so ``import tapemagic.tf.keras.layers`` and ``from tensorflow.keras
import layers`` (under :func:`tapemagic.alias.alias_tensorflow`) load
tapemagic's modules once, under both names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["ModuleAliases", "install", "uninstall"]


class _Existing(importlib.abc.Loader):
    """Loads a module that exists already: the import binds it to the alias."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        # Nothing to run: the module ran under its own name. The import system
        # gave it the alias's spec; it keeps its own (relative imports, reload).
        module.__spec__ = self.spec


class ModuleAliases(importlib.abc.MetaPathFinder):
    """Finds ``alias`` and ``alias.x.y`` as the modules ``target`` and
    ``target.x.y``, for each ``alias -> target`` of ``names``.

    Args:
        names: alias prefix -> the package or module it stands for.
        missing: for an alias module whose target does not exist, the text of
            the ModuleNotFoundError (formatted with ``name`` and ``target``);
            None lets other finders look for it.

    Example:
        >>> finder = ModuleAliases({"_doctest_alias": "tapemagic.keras"})
        >>> install(finder)
        >>> import _doctest_alias.layers, tapemagic.keras.layers
        >>> _doctest_alias.layers is tapemagic.keras.layers
        True
        >>> uninstall(finder)
    """

    def __init__(self, names: dict[str, str], missing: str | None = None) -> None:
        self.names = dict(names)
        self.missing = missing

    def target_of(self, fullname: str) -> str | None:
        """The module ``fullname`` stands for, or None if it is no alias."""
        for alias, target in self.names.items():
            if fullname == alias or fullname.startswith(alias + "."):
                return target + fullname[len(alias) :]
        return None

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        real = self.target_of(fullname)
        if real is None:
            return None
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as err:
            ours = err.name is not None and real.startswith(err.name)
            if self.missing is None or not ours:
                raise
            raise ModuleNotFoundError(
                self.missing.format(name=fullname, target=real), name=fullname
            ) from None
        return importlib.machinery.ModuleSpec(
            fullname,
            _Existing(module),
            is_package=hasattr(module, "__path__"),
        )

    def forget(self) -> None:
        """Take the aliased modules out of ``sys.modules`` (their targets stay)."""
        for name in [n for n in sys.modules if self.target_of(n) is not None]:
            del sys.modules[name]


def install(finder: ModuleAliases) -> None:
    """Put ``finder`` first on ``sys.meta_path`` (once)."""
    if finder not in sys.meta_path:
        sys.meta_path.insert(0, finder)


def uninstall(finder: ModuleAliases) -> None:
    """Take ``finder`` off ``sys.meta_path`` and its aliases out of ``sys.modules``."""
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    finder.forget()
