"""Where the engine's public functions live in TensorFlow's namespace.

Each op says it once, beside its declaration: ``defop(..., tf=("tf",
"tf.math"))`` where the op's public function is the one ``defop`` returns,
``@tf_export("tf", "tf.math")`` on a function (a wrapper of an op, an op
composed of others). A location is a namespace (``"tf.math"``: the function
keeps its name there) or a namespace and the name it has there
(``"tf.random:normal"``). Beside it, an op names TensorFlow's op types that
compute it where they are not its name in CamelCase (``kernels=("AddV2",)``,
:data:`KERNELS`) and the NumPy functions that take the same arguments and give
the same values (``numpy=("sin",)``, :data:`NUMPY_TWINS`).

``tapemagic/tf/_generate.py`` writes from these tables, once every op module
is loaded (``tapemagic.engine.ops.load_all``): the ``tf`` namespace modules,
the TensorFlow recorder's op types (``tf_recorder/_kernels.py``) and the
NumPy calls a fix rewrites (``graph/numpy_twins.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

__all__ = ["KERNELS", "NUMPY_TWINS", "TF_EXPORTS", "record", "tf_export"]

# (namespace, name there) -> (module, attribute): "tf.math", "sin" ->
# "tapemagic.engine.ops.elementary", "sin".
TF_EXPORTS: dict[tuple[str, str], tuple[str, str]] = {}
# TensorFlow's op type -> the op's name: "AddV2" -> "add".
KERNELS: dict[str, str] = {}
# A NumPy function's name -> (module, attribute) of its twin: "sin" ->
# "tapemagic.engine.ops.elementary", "sin".
NUMPY_TWINS: dict[str, tuple[str, str]] = {}

_F = TypeVar("_F", bound=Callable)


def record(
    module: str,
    attribute: str,
    locations: Iterable[str],
    numpy: Iterable[str] = (),
    kernels: Iterable[str] = (),
) -> None:
    """Put ``module.attribute`` at each of ``locations`` in the ``tf`` namespace.

    ``numpy`` names the NumPy functions it is the twin of, ``kernels`` the
    TensorFlow op types that compute it (see the module docstring).

    Raises:
        ValueError: if a location is malformed, or another function holds it.

    Example:
        >>> record("tapemagic.engine.ops.math", "_doctest_pow", ["tf.math"])
        >>> TF_EXPORTS.pop(("tf.math", "_doctest_pow"))
        ('tapemagic.engine.ops.math', '_doctest_pow')
    """
    for location in locations:
        namespace, _, name = location.partition(":")
        if namespace != "tf" and not namespace.startswith("tf."):
            raise ValueError(
                f"{module}.{attribute}: the location {location!r} is not in the tf "
                "namespace; write 'tf', 'tf.math' or 'tf.random:normal'."
            )
        key = (namespace, name or attribute)
        held = TF_EXPORTS.setdefault(key, (module, attribute))
        if held != (module, attribute):
            raise ValueError(
                f"{namespace}.{key[1]} is {held[0]}.{held[1]} already; "
                f"{module}.{attribute} cannot take it too."
            )
    for name in numpy:
        _claim(NUMPY_TWINS, name, (module, attribute), "np." + name)
    for op_type in kernels:
        _claim(KERNELS, op_type, attribute, "the op type " + op_type)


def _claim(table: dict, key: str, value: object, what: str) -> None:
    held = table.setdefault(key, value)
    if held != value:
        raise ValueError(f"{what} is {held!r}'s already; {value!r} cannot take it.")


def tf_export(*locations: str, numpy: Iterable[str] = ()) -> Callable[[_F], _F]:
    """Decorate a public function with its locations in the ``tf`` namespace
    (and the NumPy functions it is the twin of).

    Example:
        >>> @tf_export("tf.math")
        ... def _doctest_twice(x):
        ...     return 2 * x
        >>> TF_EXPORTS.pop(("tf.math", "_doctest_twice"))[1]
        '_doctest_twice'
    """

    def export(fn: _F) -> _F:
        record(fn.__module__, fn.__name__, locations, numpy)
        return fn

    return export
