"""``tf.Module`` and ``tf.name_scope``: named containers of variables.

A module finds its variables and submodules by walking its attributes, and the
lists, tuples and dicts in them, the way TensorFlow does: attributes in sorted
order, dicts by sorted key, a module's own variables before those of its
submodules, each object once. Name scopes nest per thread; a module remembers
the scope it was built in (``outer/my_module/``).

Variables do not take the name scope into their names yet (``w:0``, where
TensorFlow gives ``my_module/w:0``): :func:`current_name_scope` is there for
``Variable`` to read.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

from . import nest
from .context import state
from .tensor import Variable

__all__ = ["Module", "current_name_scope", "name_scope"]


def current_name_scope() -> str:
    """The name scope open in this thread: ``""``, or a path ending in ``/``.

    Example:
        >>> with name_scope("outer"), name_scope("inner"):
        ...     current_name_scope()
        'outer/inner/'
    """
    return state.name_scope


class name_scope:  # lowercase: TensorFlow's spelling
    """A context in which names get a prefix: ``with tf.name_scope("block"):``.

    Entering gives the full scope, ending in ``/``. A name that ends in ``/`` is
    taken as a full scope rather than nested, and ``""`` goes back to the top.

    Args:
        name: the scope's name.

    Raises:
        ValueError: if ``name`` is not a string.

    Example:
        >>> with name_scope("outer"):
        ...     with name_scope("inner") as scope:
        ...         scope
        'outer/inner/'
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise ValueError(
                f"name for name_scope must be a string. Got {name!r}: pass the "
                "scope's name as a str."
            )
        self._name = name
        # what each entry replaced, per thread: one object (a module's scope)
        # may be entered in several threads at once, or within itself
        self._entered = threading.local()

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> str:
        outer = state.name_scope
        if not self._name:
            scope = ""
        elif self._name.endswith("/"):
            scope = self._name
        else:
            scope = f"{outer}{self._name}/"
        self._outer_scopes().append(outer)
        state.name_scope = scope
        return scope

    def __exit__(self, *exc_info: Any) -> None:
        state.name_scope = self._outer_scopes().pop()

    def _outer_scopes(self) -> list[str]:
        return self._entered.__dict__.setdefault("scopes", [])


# TensorFlow's rules for the name a module takes from its class, and for a name
# given to it: "MyModule" -> "my_module", "HTTPServer2D" -> "http_server2_d".
_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def _camel_to_snake(value: str) -> str:
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


class Module:
    """A named container of variables, submodules and the code that uses them.

    Subclass it, call ``super().__init__()``, and assign variables and modules to
    attributes (directly or in lists, tuples and dicts): ``variables``,
    ``trainable_variables`` and ``submodules`` find them.

    Args:
        name: the module's name, a Python identifier; by default the class name
            in snake case (``MyModule`` -> ``my_module``).

    Raises:
        ValueError: if ``name`` is not a valid Python identifier.

    Example:
        >>> class Dense(Module):
        ...     def __init__(self, name=None):
        ...         super().__init__(name=name)
        ...         self.w = Variable([[1.0], [2.0]], name="w")
        ...         self.b = Variable([0.0], name="b", trainable=False)
        >>> layer = Dense()
        >>> layer.name, layer.name_scope.name
        ('dense', 'dense/')
        >>> [v.name for v in layer.variables], len(layer.trainable_variables)
        (['b:0', 'w:0'], 1)
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid "
                "Python identifiers (e.g. a valid class name)."
            )
        self._name = name
        with name_scope(name) as scope:
            self._name_scope = name_scope(scope)

    @property
    def name(self) -> str:
        """The module's name, without its enclosing scopes.

        Example:
            >>> with name_scope("outer"):
            ...     m = Module(name="inner")
            >>> m.name, m.name_scope.name
            ('inner', 'outer/inner/')
        """
        return self._name

    @property
    def name_scope(self) -> name_scope:
        """The scope the module was built in, as a ``name_scope`` to enter."""
        return self._name_scope

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable of the module and its submodules, each once.

        Example:
            >>> m = Module()
            >>> m.v = [Variable(1.0, name="a")]
            >>> m.variables
            (<tf.Variable 'a:0' shape=() dtype=float32, numpy=1.0>,)
        """
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The variables made with ``trainable=True``.

        Example:
            >>> m = Module()
            >>> m.w, m.steps = Variable(1.0, name="w"), Variable(0, trainable=False)
            >>> [v.name for v in m.trainable_variables]
            ['w:0']
        """
        return tuple(self._flatten(predicate=_is_trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        """The variables made with ``trainable=False``.

        Example:
            >>> m = Module()
            >>> m.w, m.steps = Variable(1.0, name="w"), Variable(0, trainable=False)
            >>> [v.name for v in m.non_trainable_variables]
            ['Variable:0']
        """
        return tuple(self._flatten(predicate=_is_non_trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every module reachable from this one's attributes, this one excluded:
        its own first, then theirs, each once.

        Example:
            >>> outer = Module(name="outer")
            >>> outer.inner = {"a": Module(name="a"), "b": Module(name="b")}
            >>> [m.name for m in outer.submodules]
            ['a', 'b']
        """
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(
        self, recursive: bool = True, predicate: Callable[[Any], bool] | None = None
    ) -> Iterator[Any]:
        return _walk(self, recursive, predicate or _everything, {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorate a method to run inside the module's name scope.

        Example:
            >>> class Scaled(Module):
            ...     @Module.with_name_scope
            ...     def __call__(self, x):
            ...         return current_name_scope()
            >>> Scaled()(1.0)
            'scaled/'
        """

        @functools.wraps(method)
        def method_with_name_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


def _walk(
    module: Module,
    recursive: bool,
    predicate: Callable[[Any], bool],
    seen: set[int],
    stack: list[int],
) -> Iterator[Any]:
    # TensorFlow's order: the module's own matches attribute by attribute, then
    # each submodule's, depth first; `seen` keeps every object to one visit and
    # `stack` stops a module that contains itself.
    if id(module) in stack:
        recursive = False
    submodules = []
    attributes = vars(module)
    for key in sorted(attributes):
        for leaf in nest.flatten(attributes[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield leaf
            if recursive and isinstance(leaf, Module):
                submodules.append(leaf)
    stack.append(id(module))
    for submodule in submodules:
        yield from _walk(submodule, recursive, predicate, seen, stack)
    stack.pop()


def _everything(value: Any) -> bool:
    return True


def _is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


def _is_trainable(value: Any) -> bool:
    return isinstance(value, Variable) and value.trainable


def _is_non_trainable(value: Any) -> bool:
    return isinstance(value, Variable) and not value.trainable


def _is_module(value: Any) -> bool:
    return isinstance(value, Module)
