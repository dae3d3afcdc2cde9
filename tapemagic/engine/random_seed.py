"""The seed pair a random operation runs with, by TensorFlow's rules.

Random ops in the op library draw from NumPy generators that follow these rules;
other stateful randomness (``tf.data``'s shuffle) asks :func:`get_seed` for its
pair, so ``tf.random.set_seed`` makes it reproducible too.
"""

from __future__ import annotations

from .ops import creation

__all__ = ["get_seed"]


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The (global seed, op seed) pair an op with seed ``op_seed`` runs with.

    As ``tf.compat.v1.random.get_seed``: with both seeds, both; with a global seed
    only, the op seed is the next one in a sequence that ``set_seed`` restarts;
    with an op seed only, TensorFlow's default global seed; with neither,
    ``(None, None)``: the caller draws fresh entropy.

    Args:
        op_seed: the seed given to the op, or None.

    Returns:
        A pair of ints, or ``(None, None)``.

    Example:
        >>> creation.set_seed(None)
        >>> get_seed(None), get_seed(7)
        ((None, None), (87654321, 7))
        >>> creation.set_seed(3)
        >>> get_seed(None) == get_seed(None)
        False
        >>> creation.set_seed(None)
    """
    seeds = creation._seeds
    if op_seed is not None:
        global_seed = seeds.global_seed
        if global_seed is None:
            global_seed = creation._DEFAULT_GLOBAL_SEED
        return global_seed, int(op_seed) % creation._MAX_SEED
    if seeds.global_seed is not None:
        # shares the counter of the ops that draw without a seed
        seeds.counter += 1
        return seeds.global_seed, seeds.counter
    return None, None
