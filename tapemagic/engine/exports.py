"""Where the engine's public functions live in TensorFlow's namespace.

Each op says it once, beside its declaration: ``defop(..., tf=("tf",
"tf.math"))`` where the op's public function is the one ``defop`` returns,
``@tf_export("tf", "tf.math")`` on a function (a wrapper of an op, an op
composed of others). A location is a namespace (``"tf.math"``: the function
keeps its name there) or a namespace and the name it has there
(``"tf.random:normal"``). Beside it, an op names TensorFlow's op types that
compute it where they are not its name in CamelCase (``kernels=("AddV2",)``)
and the NumPy functions that take the same arguments and give the same values
(``numpy=("sin",)``).

A declaration only marks the function (an :class:`Exports` in its
``tf_exports`` attribute): importing an op module builds no table.
:func:`tables` reads the marks of the loaded op modules, and
``tapemagic/tf/_generate.py`` writes from them, once every op module is
loaded (``tapemagic.engine.ops.load_all``): the ``tf`` namespace modules, the
TensorFlow recorder's op types (``tf_recorder/_kernels.py``) and the NumPy
calls a fix rewrites (``graph/numpy_twins.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NamedTuple, TypeVar

__all__ = ["Exports", "Tables", "tables", "tf_export"]

_F = TypeVar("_F", bound=Callable)
_OPS = "tapemagic.engine.ops."


class Exports(NamedTuple):
    """What a public function declares: where it lives in ``tf``, its NumPy
    twins, and (for an op) TensorFlow's op types that compute it."""

    module: str
    name: str
    locations: tuple[str, ...]
    numpy: tuple[str, ...] = ()
    kernels: tuple[str, ...] = ()


class Tables(NamedTuple):
    """The declarations of the loaded op modules, as tables.

    ``tf``: (namespace, name there) -> (module, attribute); ``kernels``:
    TensorFlow's op type -> the op's name; ``numpy``: a NumPy function's name
    -> (module, attribute) of its twin.
    """

    tf: dict[tuple[str, str], tuple[str, str]]
    kernels: dict[str, str]
    numpy: dict[str, tuple[str, str]]


def tf_export(*locations: str, numpy: tuple[str, ...] = ()) -> Callable[[_F], _F]:
    """Mark a public function with its locations in the ``tf`` namespace (and
    the NumPy functions it is the twin of).

    Example:
        >>> @tf_export("tf.math")
        ... def twice(x):
        ...     return 2 * x
        >>> twice.tf_exports.locations
        ('tf.math',)
    """

    def export(fn: _F) -> _F:
        fn.tf_exports = Exports(fn.__module__, fn.__name__, locations, numpy)  # type: ignore[attr-defined]
        return fn

    return export


def tables() -> Tables:
    """The tables of every declaration in the loaded op modules.

    Raises:
        ValueError: if a location is not in the ``tf`` namespace, or two
            functions claim one location, NumPy name or op type.
    """
    result = Tables({}, {}, {})
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith(_OPS):
            continue
        for value in list(vars(module).values()):
            exports = getattr(value, "tf_exports", None)
            if isinstance(exports, Exports) and exports.module == module_name:
                _add(result, exports)
    return result


def _add(tables: Tables, exports: Exports) -> None:
    target = (exports.module, exports.name)
    for location in exports.locations:
        namespace, _, name = location.partition(":")
        if namespace != "tf" and not namespace.startswith("tf."):
            raise ValueError(
                f"{exports.module}.{exports.name}: the location {location!r} is not "
                "in the tf namespace; write 'tf', 'tf.math' or 'tf.random:normal'."
            )
        _claim(tables.tf, (namespace, name or exports.name), target, location)
    for name in exports.numpy:
        _claim(tables.numpy, name, target, "np." + name)
    for op_type in exports.kernels:
        _claim(tables.kernels, op_type, exports.name, "the op type " + op_type)


def _claim(table: dict, key: object, value: object, what: str) -> None:
    held = table.setdefault(key, value)
    if held != value:
        raise ValueError(
            f"{what} is declared by {held!r} already; {value!r} cannot declare "
            "it too: say it beside one of them only."
        )
