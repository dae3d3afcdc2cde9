"""Initializers in a layer's config, written and read as Keras 3 writes them."""

from __future__ import annotations

from typing import Any

from .. import initializers

__all__ = ["initializer_from", "serialize_initializer"]


def serialize_initializer(initializer: Any) -> Any:
    """An initializer as Keras 3's ``initializers.serialize`` writes it."""
    if initializer is None or not hasattr(initializer, "get_config"):
        return initializer
    return {
        "module": "keras.initializers",
        "class_name": type(initializer).__name__,
        "config": initializer.get_config(),
        "registered_name": None,
    }


def initializer_from(identifier: Any) -> Any:
    """``initializers.get``, also of the dict ``serialize_initializer`` writes."""
    if isinstance(identifier, dict) and "class_name" in identifier:
        cls = getattr(initializers, identifier["class_name"], None)
        if cls is None:
            raise ValueError(
                f"Could not interpret initializer identifier: {identifier!r}. Use "
                "one of the classes in keras.initializers."
            )
        return cls(**identifier.get("config", {}))
    return initializers.get(identifier)
