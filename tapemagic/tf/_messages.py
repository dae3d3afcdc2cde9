"""What ``tf.function`` tells the user, as TensorFlow tells it.

TensorFlow's warning when most recent calls traced (on the ``tensorflow``
logger), the warning of a function that runs eagerly because the tracer could
not replay it, the errors of a trace that makes variables, and the ``stdout``
of a trace run again for a shape TensorFlow traced once (Python's ``print``
quiet).
"""

from __future__ import annotations

import io
import logging
import sys
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "NOT_FIRST",
    "SINGLETON",
    "Quiet",
    "RecentTracing",
    "tensorflow_logger",
    "warn_eager",
]


class RecentTracing:
    """TensorFlow's warning when most recent calls traced: 5 traces within
    the last 10 calls warn (twice at most per function), on the
    ``tensorflow`` logger as TensorFlow logs it."""

    def __init__(self) -> None:
        self.calls_per_trace: list[int] = []  # calls since each trace
        self.calls = 0
        self.warnings = 0

    def called(self, traced: bool, function: Any = None) -> None:
        self.calls += 1
        if not traced:
            if not self.calls_per_trace:
                self.calls_per_trace = [0]
            self.calls_per_trace[-1] += 1
            return
        self.calls_per_trace.append(1)
        while self.calls_per_trace and self.calls - self.calls_per_trace[0] > 10:
            self.calls -= self.calls_per_trace.pop(0)
        if self.warnings >= 2 or len(self.calls_per_trace) < 5:
            return
        self.warnings += 1
        tensorflow_logger().warning(
            f"{len(self.calls_per_trace)} out of the last {self.calls} calls to "
            f"{function} triggered tf.function retracing. Tracing is expensive "
            "and the excessive number of tracings could be due to (1) creating "
            "@tf.function repeatedly in a loop, (2) passing tensors with "
            "different shapes, (3) passing Python objects instead of tensors. "
            "For (1), please define your @tf.function outside of the loop. For "
            "(2), @tf.function has reduce_retracing=True option that can avoid "
            "unnecessary retracing. For (3), please refer to "
            "https://www.tensorflow.org/guide/function#controlling_retracing and "
            "https://www.tensorflow.org/api_docs/python/tf/function for  more "
            "details."
        )


class Quiet(io.TextIOBase):
    """``sys.stdout`` while a trace runs again for a new shape: Python's
    ``print`` says nothing, while ``tf.print`` (which prints on every call)
    writes to the stream behind it (``real``), then and on every replay."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def write(self, text: str) -> int:
        return len(text)


class _Stderr(logging.StreamHandler):
    """A handler writing to whatever ``sys.stderr`` is when it writes."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        # logging sets the stream on construction; this handler never keeps one
        del value


def tensorflow_logger() -> logging.Logger:
    # "WARNING:tensorflow:..." on stderr, as TensorFlow's own handler shows it
    # (unless the application configured the logger itself).
    logger = logging.getLogger("tensorflow")
    if not logger.handlers:
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    return logger


SINGLETON = (
    "tf.function only supports singleton tf.Variables created on the first call. "
    "Make sure the tf.Variable is only created once or created outside "
    "tf.function. See https://www.tensorflow.org/guide/function"
    "#creating_tfvariables for more information."
)
NOT_FIRST = (
    "Creating variables on a non-first call to a function decorated with "
    "tf.function. Create them on the first call only (if self.v is None: ...), "
    "or outside the function."
)


_HINTS = {
    "branch": "TensorFlow's autograph would convert it (to tf.cond or "
    "tf.while_loop); write it with tf.cond, tf.where or tf.while_loop to have "
    "the function traced.",
    "escape": "In TensorFlow a traced tensor has no value (this raises); keep "
    "the computation in tf ops to have the function traced.",
    "other": "Write it with tf ops to have the function traced.",
}


def warn_eager(function: Callable, reason: Any) -> None:
    """Warn that ``function`` runs eagerly on every call: the user's line
    (``reason``, from the tracer) and what to write instead."""
    name = getattr(function, "__name__", "function")
    warnings.warn_explicit(
        f"tf.function {name!r} runs eagerly on every call: line "
        f"{reason.lineno} of {reason.filename} {reason.reason}, which a traced "
        f"function cannot replay. {_HINTS[reason.kind]}",
        UserWarning,
        reason.filename,
        reason.lineno,
    )
