"""Per-thread recording state: which tapes are recording right now.

Kept apart from the tape and tensor modules so that both can read it without
importing each other. Everything here is per thread: a tape opened in one thread
never sees ops run in another.
"""

from __future__ import annotations

import itertools
import threading

__all__ = ["new_id", "state"]


class _ThreadState(threading.local):
    def __init__(self) -> None:
        # Tapes recording in this thread, innermost last. The op hot path reads
        # this list once per op; empty means "nothing to record".
        self.tapes: list = []
        # Observers of every op, read and escape (the explanation log of a tape).
        self.observers: list = []
        # The open tf.name_scope: "" at the top, else a path ending in "/".
        # New variables take it into their names (engine/module.py sets it).
        self.name_scope = ""


state = _ThreadState()

# Every tensor and variable gets a unique integer id. Tapes track ids, never the
# objects, and ids from one counter also give variables their creation order.
new_id = itertools.count(1).__next__
