"""What the user's names held: one record of an explanation log, one writer.

After a ``%%tape`` cell ran, the magic hands the log the user's names before
and after (:meth:`ExplainLog.note_namespace
<tapemagic.graph.log.ExplainLog.note_namespace>`); :class:`Bindings` keeps what
they held, which names each value goes by, what a name held before the code
rebound it, and a plain tensor bound to a name that held a Variable at the end
of an earlier cell (``w = w - lr * g``). Only :meth:`Bindings.note` writes it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.recorder import ValueRef

__all__ = ["Bindings"]

# User names that held a Variable at the end of a %%tape cell (name -> the
# variable's id, name, shape and dtype): a later cell finding a plain tensor
# under that name knows the name was rebound in between (``w = w - lr * g`` in
# a plain cell), whether or not the variable itself still exists.
_NAMED_VARIABLES: dict[str, tuple[int, str, tuple, np.dtype]] = {}


class Bindings:
    """The user's names, as the code left them.

    Attributes:
        bindings: ``(name, value id, kind, previous kind, python type)`` for
            each name the code (re)bound.
        names: tensor id -> the user names holding it after the code ran.
        previous: user name -> the id of the tensor or variable it held before
            the code rebound it.
        rebound_from: tensor id -> the variable's name (``"w:0"``), for a plain
            tensor bound to a user name that held that Variable at the end of
            an earlier ``%%tape`` cell.
        rebound_at: for such a tensor, where the name was bound last
            (``("In[4]", 2, "w = w - lr * g")``), when the log's
            ``assignment_of`` (set by the magic, reading the notebook's
            history) finds it.
        noted: how many times names were noted.
    """

    def __init__(self) -> None:
        self.bindings: tuple = ()
        self.names: dict[int, tuple[str, ...]] = {}
        self.previous: dict[str, int] = {}
        self.rebound_from: dict[int, str] = {}
        self.rebound_at: dict[int, tuple[str, int, str]] = {}
        self.noted = 0

    def note(self, before: dict, after: dict, log: Any) -> None:
        """Record what the user's names held before and after the code ran.

        Args:
            before, after: name -> the object it held, for the names worth
                recording (see ``tapemagic.magic``): tensors, variables, and
                names that held one of them before.
            log: the explanation log: its recorder describes the objects, and
                it notes the values it did not see yet.
        """
        describe = log.recorder.describe
        bindings = []
        names: dict[int, list[str]] = {}
        for name in sorted(set(before) | set(after)):
            old = before.get(name, _MISSING)
            new = after.get(name, _MISSING)
            old_ref, new_ref = describe(old), describe(new)
            if old_ref is not None and old_ref.variable is None:
                held = _NAMED_VARIABLES.get(name)
                if held is not None and old_ref.id in log.values:
                    # Made after the variable, with its shape and dtype: most
                    # likely computed from it (w = w - lr * g).
                    var_id, var_name, shape, dtype = held
                    same = old_ref.shape == shape and old_ref.dtype == dtype
                    if same and old_ref.id > var_id:
                        self.rebound_from[old_ref.id] = var_name
                        if log.assignment_of is not None:
                            found = log.assignment_of(name)
                            if found is not None:
                                self.rebound_at[old_ref.id] = found
            if old is not new:
                if old_ref is not None:
                    # What the name held before (a source list may still hold it).
                    log.see(old_ref)
                    self.previous[name] = old_ref.id
                if new_ref is not None:
                    log.see(new_ref)
                bindings.append(
                    (
                        name,
                        None if new_ref is None else new_ref.id,
                        _kind(new, new_ref),
                        _kind(old, old_ref),
                        None if new is _MISSING else type(new).__name__,
                    )
                )
            if new_ref is not None and new_ref.id in log.values:
                names.setdefault(new_ref.id, []).append(name)
        self.bindings = tuple(bindings)
        self.noted += 1
        self.names = {key: tuple(value) for key, value in names.items()}
        # Remember which names hold a Variable now; a name rebound to a plain
        # tensor keeps its entry, so the next cell can still tell.
        for name, new in after.items():
            ref = describe(new)
            if ref is not None and ref.variable is not None:
                _NAMED_VARIABLES[name] = (ref.id, new.name, ref.shape, ref.dtype)


_MISSING = object()


def _kind(obj: Any, ref: ValueRef | None) -> str | None:
    if obj is _MISSING:
        return None
    if ref is not None:
        return "tensor" if ref.variable is None else "variable"
    if isinstance(obj, (np.ndarray, np.generic)):
        return "numpy"
    if isinstance(obj, (bool, int, float, complex)):
        return "python"
    return "other"
