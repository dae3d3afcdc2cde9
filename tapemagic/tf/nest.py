"""``tf.nest``: flatten and rebuild nested structures the way TensorFlow does."""

from ..engine.nest import flatten, map_structure, pack_sequence_as

__all__ = ["flatten", "map_structure", "pack_sequence_as"]
