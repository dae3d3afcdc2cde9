"""Flatten and rebuild nested structures of tensors, as ``tf.nest`` does.

Lists, tuples (named tuples included) and dicts nest; dicts flatten in sorted key
order, like TensorFlow. Anything else is a leaf.
"""

from __future__ import annotations

from typing import Any

__all__ = ["flatten", "flatten_with_paths", "map_structure", "pack_sequence_as"]


_NESTS = (dict, list, tuple)


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def flatten(structure: Any) -> list:
    """The leaves of ``structure``, in TensorFlow's order.

    Example:
        >>> flatten({"b": [1, 2], "a": (3,)})
        [3, 1, 2]
    """
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        leaves = []
        for item in structure:  # a flat list of tensors needs no recursion
            if isinstance(item, _NESTS):
                leaves.extend(flatten(item))
            else:
                leaves.append(item)
        return leaves
    return [structure]


def flatten_with_paths(structure: Any) -> list[tuple[tuple, Any]]:
    """``(path, leaf)`` for each leaf of ``structure``, in :func:`flatten`'s
    order; a path holds the index or key at each level (``()`` for a leaf
    given alone).

    Example:
        >>> flatten_with_paths({"b": [1, 2], "a": 3})
        [(('a',), 3), (('b', 0), 1), (('b', 1), 2)]
    """
    if isinstance(structure, dict):
        return [
            ((key, *path), leaf)
            for key in sorted(structure)
            for path, leaf in flatten_with_paths(structure[key])
        ]
    if isinstance(structure, (list, tuple)):
        return [
            ((i, *path), leaf)
            for i, item in enumerate(structure)
            for path, leaf in flatten_with_paths(item)
        ]
    return [((), structure)]


def pack_sequence_as(structure: Any, flat: list) -> Any:
    """Rebuild ``structure`` with the leaves of ``flat`` in place of its own.

    Example:
        >>> pack_sequence_as({"b": [0, 0], "a": (0,)}, [3, 1, 2])
        {'b': [1, 2], 'a': (3,)}
    """
    leaves = iter(flat)
    result = _pack(structure, leaves)
    leftover = sum(1 for _ in leaves)
    if leftover:
        raise ValueError(
            f"pack_sequence_as: {leftover} more leaves than the structure."
        )
    return result


def _pack(structure: Any, leaves: Any) -> Any:
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], leaves) for key in sorted(structure)}
        return type(structure)((key, packed[key]) for key in structure)
    if _is_namedtuple(structure):
        return type(structure)(*(_pack(item, leaves) for item in structure))
    if isinstance(structure, (list, tuple)):
        items = [
            _pack(item, leaves) if isinstance(item, _NESTS) else next(leaves)
            for item in structure
        ]
        return items if type(structure) is list else type(structure)(items)
    return next(leaves)


def map_structure(fn: Any, structure: Any) -> Any:
    """Apply ``fn`` to every leaf, keeping the structure."""
    return pack_sequence_as(structure, [fn(leaf) for leaf in flatten(structure)])
