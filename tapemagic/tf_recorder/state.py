"""The recorder's per-thread state, and what it knows of each tape.

TensorFlow's op callbacks and tape stack are per thread, and so is what the
recorder keeps: who listens, which tapes record, which tensors it saw made.
No TensorFlow import: the state is plain Python.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

__all__ = ["STATE", "Mirror", "Request"]

# Reads of variables (tensor id -> variable id) and recorded ops remembered
# before the oldest half is forgotten (a tape uses them only while it lives).
_ALIASES_KEPT = 1 << 16


class Mirror:
    """What a ``tf.GradientTape`` follows, as the recorder sees it.

    TensorFlow keeps a tape's state in C++; the recorder follows the same
    rules over the events it hears: a tape follows what it watches and the
    trainable variables it reads (unless ``watch_accessed_variables=False``),
    and the outputs of every op with a gradient and a floating-point result
    that used something it follows, while it records.

    Attributes:
        tape: a weak reference to the tape.
        connected: ids the tape follows (watched tensors, watched
            floating-point variables, results of the ops it recorded).
        variables: variable id -> the variable, for the variables it watches.
        watched: tensor id -> the tensor, for ``tape.watch``'d tensors.
        used: a non-persistent tape gave its one answer.
    """

    __slots__ = ("tape", "connected", "variables", "watched", "used")

    def __init__(self, tape: Any) -> None:
        self.tape = weakref.ref(tape)
        self.restart()

    def restart(self) -> None:
        """Forget everything (a new recording, or ``reset``)."""
        self.connected: set[int] = set()
        self.variables: dict[int, Any] = {}
        self.watched: dict[int, Any] = {}
        self.used = False

    def watch_variable(self, key: int, var: Any, floating: bool) -> None:
        if key not in self.variables:
            self.variables[key] = var
            if floating:
                self.connected.add(key)

    def watch_tensor(self, key: int, tensor: Any, floating: bool) -> None:
        if floating:
            self.watched[key] = tensor
            self.connected.add(key)


class Request:
    """A gradient request being answered: who hears it, what its sweep reached
    and what each op passed back to its inputs."""

    __slots__ = ("flowed", "listeners", "reached", "tape")

    def __init__(self, tape: Any, listeners: list) -> None:
        self.tape = tape
        self.listeners = listeners
        self.reached: list[tuple] = []
        self.flowed: list[tuple] = []


class _State(threading.local):
    """One thread's recorder state (see the module docs)."""

    def __init__(self) -> None:
        self.listeners: list = []
        # > 0 while the recorder runs ops of its own: nothing is heard.
        self.quiet = 0
        # > 0 inside a user's escape or conversion: the event that sums it up
        # is enough; reads still make the tapes watch a variable.
        self.escaping = 0
        # > 0 inside tape.reset(): its pop and push are one "reset" event.
        self.resetting = 0
        self.stack: list[Mirror] = []  # the recording tapes, in push order
        self.alias: dict[int, int] = {}  # read tensor id -> variable id
        # (op type, input ids) -> output ids, for the ops tapes recorded: a
        # backward sweep names an op by its inputs when it keeps no outputs.
        self.outputs: dict[tuple, tuple] = {}
        # The ids of a recorded op's inputs (aliased), by its output ids.
        self.inputs: dict[tuple, tuple] = {}
        self.known: set[int] = set()  # tensors seen made while listening
        self.plumbing: set[int] = set()  # integer results of integer constants
        self.floats: dict[tuple, float] = {}  # a constant's value -> its float
        self.made: dict[int, str] = {}  # converted tensor id -> the type it came from
        self.mark = 0  # no tensor made since listening began has a smaller id
        self.requests: list[Request] = []
        self.accessed: list = []  # variables asked "trainable?" since the last op
        self.scope: Any = None  # the variable creator scope while listening

    def remember_read(self, key: int, var_key: int) -> None:
        _keep(self.alias, key, var_key)

    def remember_outputs(self, op: tuple, output_ids: tuple) -> None:
        _keep(self.outputs, op, output_ids)
        _keep(self.inputs, output_ids, op[1])

    def forget_session(self) -> None:
        """Drop what only one listening session needs."""
        self.known = set()
        self.plumbing = set()
        self.accessed = []
        self.floats = {}
        self.made = {}


def _keep(kept: dict, key: Any, value: Any) -> None:
    """``kept[key] = value``, forgetting the oldest half past a bound."""
    if len(kept) >= _ALIASES_KEPT:
        for old in list(kept)[: _ALIASES_KEPT // 2]:
            del kept[old]
    kept[key] = value


STATE = _State()
