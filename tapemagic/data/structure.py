"""Elements of a dataset: nested structures of tensors, and their specs.

An element is a tensor, or a tuple, named tuple or dict of elements. As in
``tf.data``, a Python list is a value, not a structure: ``[x, y]`` becomes one
tensor, except at the top of what a ``map`` function returns, where a list is
read as a tuple. Inside a pipeline an element travels flat, as its leaves in
``tf.nest`` order (dicts by sorted key), each a NumPy array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import (
    Tensor,
    TensorShape,
    TensorSpec,
    Variable,
    array_of,
    convert_to_tensor,
    nest,
)
from ..engine.errors import InvalidArgumentError

__all__ = [
    "call_with_element",
    "flatten_up_to",
    "leaf_arrays",
    "normalize",
    "sample_of",
    "spec_of",
    "trace",
]


def normalize(value: Any, list_is_tuple: bool = False) -> Any:
    """``value`` as an element: its tuples and dicts kept, every leaf a tensor.

    Args:
        value: a tensor, array, number, list, or a tuple or dict of those.
        list_is_tuple: read a list at the top as a tuple (a ``map`` result).

    Returns:
        The element, with a tensor at every leaf.

    Raises:
        ValueError: if ``value`` is None or an empty structure.

    Example:
        >>> normalize(([1, 2], {"a": 1.5}))
        (<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>, \
{'a': <tf.Tensor: shape=(), dtype=float32, numpy=1.5>})
    """
    if list_is_tuple and isinstance(value, list):
        value = tuple(value)
    if value is None or (isinstance(value, (tuple, dict)) and not value):
        raise ValueError("Invalid `element`. `element` should not be empty.")
    return _normalize(value)


def _normalize(value: Any) -> Any:
    if isinstance(value, dict):
        return type(value)((key, _normalize(item)) for key, item in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_normalize(item) for item in value))
    if isinstance(value, tuple):
        return tuple(_normalize(item) for item in value)
    if isinstance(value, TensorSpec):
        raise TypeError(
            f"A dataset element must hold values, got the spec {value!r}. Pass "
            "tensors or arrays of that shape instead."
        )
    if _is_array_like(value):
        value = np.asarray(value)  # a pandas Series, for example
    return convert_to_tensor(value)


def _is_array_like(value: Any) -> bool:
    return hasattr(value, "__array__") and not isinstance(
        value, (Tensor, Variable, np.ndarray, np.generic)
    )


def spec_of(element: Any) -> Any:
    """The ``element_spec`` of an element: a TensorSpec in place of each tensor.

    Example:
        >>> spec_of(normalize((1, 2.0)))
        (TensorSpec(shape=(), dtype=tf.int32, name=None), \
TensorSpec(shape=(), dtype=tf.float32, name=None))
    """
    return nest.map_structure(TensorSpec.from_tensor, element)


def leaf_arrays(element: Any) -> tuple[np.ndarray, ...]:
    """The NumPy arrays behind an element's tensors, in ``tf.nest`` order.

    Example:
        >>> leaf_arrays(normalize({"b": 1, "a": [2, 3]}))
        (array([2, 3], dtype=int32), array(1, dtype=int32))
    """
    return tuple(array_of(leaf) for leaf in nest.flatten(element))


def call_with_element(fn: Callable, element: Any, *extra: Any) -> Any:
    """Call ``fn`` on an element the way ``tf.data`` does.

    A plain tuple is spread over the arguments (``lambda x, y: ...``); any other
    element, dicts and named tuples included, is one argument. ``extra`` comes
    first (the state of ``reduce``).

    Example:
        >>> call_with_element(lambda x, y: x + y, (1, 2))
        3
    """
    if type(element) is tuple:
        return fn(*extra, *element)
    return fn(*extra, element)


# Two sample elements a traced function sees: (fill value, size of a dimension
# of unknown size). Output dimensions that differ between them follow a size or
# a value (tf.range(x), tf.fill([x], x)) and become None, as TensorFlow leaves
# them unknown. The sizes are multiples of 2, 3, 4 and 6, so reshapes such as
# [-1, 4] still work; the values are small enough to index a lookup table.
_SAMPLES = ((0, 12), (1, 24))


def trace(
    fn: Callable,
    spec: Any,
    sample: Callable[[Any, int, int], Any] | None = None,
    describe: Callable[[Any], Any] | None = None,
) -> Any:
    """The spec of what ``fn`` returns for an element of ``spec``.

    TensorFlow traces ``map`` and ``filter`` functions into a graph once, when
    the dataset is built. tapemagic has no graphs: it calls ``fn`` on two sample
    elements of the spec's shapes instead, one of zeros and one of ones (with
    different sizes for a None dimension), and output dimensions that differ
    between the two become None. The function's Python side effects happen then
    too, as TensorFlow's do when it traces. If only the sample of ones fails,
    the zeros' output stands alone.

    Args:
        fn: the function, called as :func:`call_with_element` calls it.
        spec: the element spec of its input.
        sample: makes a sample leaf from a leaf spec, a fill value and a size
            for unknown dimensions; zeros or ones of the spec by default.
        describe: the spec of what ``fn`` returned; by default, of the element
            it returned (a top-level list read as a tuple).

    Returns:
        The element spec of its output.

    Raises:
        Exception: whatever ``fn`` raises on the sample of zeros.

    Example:
        >>> trace(lambda x: x * 2, TensorSpec([None, 3]))
        TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)
    """
    sample = sample or sample_of
    describe = describe or _element_spec_of
    leaves = nest.flatten(spec)
    specs = []
    for value, size in _SAMPLES:
        element = [sample(s, value, size) for s in leaves]
        try:
            out = call_with_element(fn, nest.pack_sequence_as(spec, element))
        except Exception:
            if specs:
                return specs[0]
            raise
        specs.append(describe(out))
    first, second = (nest.flatten(s) for s in specs)
    if len(first) != len(second):
        return specs[0]
    merged = [a.most_specific_common_supertype([b]) or a for a, b in zip(first, second)]
    return nest.pack_sequence_as(specs[0], merged)


def _element_spec_of(out: Any) -> Any:
    return spec_of(normalize(out, True))


def sample_of(spec: TensorSpec, value: int, size: int) -> Any:
    """A sample tensor of ``spec``, filled with ``value``; an unknown dimension
    (or rank) takes ``size``.

    Example:
        >>> sample_of(TensorSpec([None, 2]), 1, 3).shape
        TensorShape([3, 2])
    """
    shape = [size] if spec.shape.rank is None else spec.shape
    dims = [size if dim is None else dim for dim in shape]
    return convert_to_tensor(np.full(dims, value, spec.dtype.as_numpy_dtype))


def flatten_up_to(structure: Any, value: Any) -> list:
    """The parts of ``value`` at the leaves of ``structure`` (lists stay whole
    where ``structure`` has a leaf).

    Raises:
        InvalidArgumentError: if ``value`` does not have the structure.

    Example:
        >>> flatten_up_to((1, {"b": 2, "a": 3}), ([4, 5], {"a": 6, "b": 7}))
        [[4, 5], 6, 7]
    """
    if isinstance(structure, dict):
        if not isinstance(value, dict) or set(value) != set(structure):
            raise InvalidArgumentError(_not_like(value, structure))
        return [
            leaf
            for key in sorted(structure)
            for leaf in flatten_up_to(structure[key], value[key])
        ]
    if isinstance(structure, tuple) and not isinstance(structure, TensorShape):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise InvalidArgumentError(_not_like(value, structure))
        return [
            leaf for part, item in zip(structure, value)
            for leaf in flatten_up_to(part, item)
        ]  # fmt: skip
    return [value]


def _not_like(value: Any, structure: Any) -> str:
    # from_generator's wording: what a generator yields is where it shows up
    return (
        f"`generator` yielded {value!r}, which does not match the structure of "
        f"the element spec {structure!r}. Yield values of that structure."
    )
