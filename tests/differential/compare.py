"""How two runs of one program are compared: what counts as the same answer.

- The same things observed, in the same order: a run that stops with an error
  must stop at the same place, with an exception class of the same name
  (``tf.errors.InvalidArgumentError`` and tapemagic's ``InvalidArgumentError``
  match; the messages may differ).
- ``None`` where the other has ``None``; lists and dicts with the same keys.
- Tensors: the same dtype and shape; integers and booleans equal; floats
  equal to a tolerance (relative ``RTOL`` of the dtype, absolute the same
  times the largest finite magnitude), with NaN at the same positions and
  infinities of the same sign.
- The printed repr: identical when the numbers are bit for bit the same;
  otherwise identical once every number in it is replaced by ``#`` and
  spaces are left out (NumPy's printing picks digits and column widths from the
  values, so a last-digit difference moves the layout; the numbers themselves
  are compared above).
"""

from __future__ import annotations

import re

import numpy as np

from .program import Outcome

__all__ = ["RTOL", "differences", "same_repr"]

# float64 to 1e-7: TensorFlow's float64 gelu is off by 5e-9 (its erfc kernel)
RTOL = {"float16": 1e-2, "float32": 2e-4, "float64": 1e-7}
_NUMBER = re.compile(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?)")


def _close(ours: np.ndarray, theirs: np.ndarray, dtype: str) -> bool:
    if dtype not in RTOL:
        return np.array_equal(ours, theirs)
    ours, theirs = ours.astype(np.float64), theirs.astype(np.float64)
    if not np.array_equal(np.isnan(ours), np.isnan(theirs)):
        return False
    finite = theirs[np.isfinite(theirs)]
    scale = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
    rtol = RTOL[dtype]
    return bool(np.allclose(ours, theirs, rtol=rtol, atol=rtol * scale, equal_nan=True))


def same_repr(ours: str, theirs: str, exact: bool) -> bool:
    """Whether two reprs agree: exactly, or with numbers and spacing left out."""
    if exact or ours == theirs:
        return ours == theirs

    def shape(text: str) -> str:
        return re.sub(r"\s+", "", _NUMBER.sub("#", text))

    return shape(ours) == shape(theirs)


def _tensor(ours: Outcome, theirs: Outcome) -> str | None:
    if (ours.dtype, ours.shape) != (theirs.dtype, theirs.shape):
        return f"dtype/shape {ours.dtype}{ours.shape} != {theirs.dtype}{theirs.shape}"
    if not _close(ours.numbers, theirs.numbers, theirs.dtype):
        return f"numbers\n  ours:   {ours.numbers!r}\n  theirs: {theirs.numbers!r}"
    exact = ours.numbers.tobytes() == theirs.numbers.tobytes()
    if not same_repr(ours.text, theirs.text, exact):
        return f"repr\n  ours:   {ours.text}\n  theirs: {theirs.text}"
    return None


def _one(ours: Outcome, theirs: Outcome) -> list[str]:
    where = theirs.what
    if ours.kind != theirs.kind:
        return [f"{where}: ours {_brief(ours)}, TensorFlow {_brief(theirs)}"]
    if ours.kind == "error" and ours.dtype != theirs.dtype:
        return [f"{where}: ours {_brief(ours)}, TensorFlow {_brief(theirs)}"]
    if ours.kind == "tensor":
        found = _tensor(ours, theirs)
        return [f"{where}: {found}"] if found else []
    if ours.kind in ("list", "dict"):
        keys = [k for k, _ in ours.items], [k for k, _ in theirs.items]
        if keys[0] != keys[1] or ours.dtype != theirs.dtype:
            return [f"{where}: {ours.dtype} {keys[0]} != {theirs.dtype} {keys[1]}"]
        return [
            d for (_, a), (_, b) in zip(ours.items, theirs.items) for d in _one(a, b)
        ]
    return []


def _brief(o: Outcome) -> str:
    if o.kind == "error":
        return f"raised {o.dtype}: {o.text[:300]}"
    if o.kind == "tensor":
        return f"gave {o.text}"
    return f"gave {o.kind}"


def differences(ours: list[Outcome], theirs: list[Outcome]) -> list[str]:
    """What differs between our run and TensorFlow's, as sentences (empty: nothing)."""
    found = []
    for a, b in zip(ours, theirs):
        found += _one(a, b)
        if found:
            return found
    if len(ours) != len(theirs):
        more, who = (
            (ours, "ours") if len(ours) > len(theirs) else (theirs, "TensorFlow")
        )
        extra = more[min(len(ours), len(theirs))]
        found.append(f"{extra.what}: only {who} got here and {_brief(extra)}")
    return found
