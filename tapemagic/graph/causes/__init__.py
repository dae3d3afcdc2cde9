"""Every None cause the diagnosis names, each declared once, by family.

One :func:`~tapemagic.graph.cause.declare_cause` per cause: its code, its
one-line meaning, where the diagnosis finds it (its detectors, by stage and
rank) and its two sentences (what happened, what to do). See
:mod:`tapemagic.graph.cause` for the stages and what a detector receives.
The families, one module each:

- :mod:`~tapemagic.graph.causes.calls`: the gradient call itself is wrong (its
  arguments swapped, a target that is not a tensor, a source that is the
  target);

- :mod:`~tapemagic.graph.causes.watching`: the tape never watched the source,
  watched it on another tape or before ``reset()``, or it is an integer;
- :mod:`~tapemagic.graph.causes.recording`: the path ran before the tape
  started, after it stopped, or inside ``stop_recording()``;
- :mod:`~tapemagic.graph.causes.copies`: a value left the engine (NumPy,
  Python, an assignment) and came back as a new constant;
- :mod:`~tapemagic.graph.causes.ops`: an op on the path has no gradient, or
  gives NaN or Inf;
- :mod:`~tapemagic.graph.causes.names`: a name rebound, or a target that
  never depended on the source;
- :mod:`~tapemagic.graph.causes.zeros`: notes on a gradient of zeros (which
  op passed back only zeros).

Where the model cannot be sure, a sentence says what it saw and hedges: a
tensor made before the tape started may or may not come from the source (only
values made after the source are suspected, "if h depends on w, ...").
"""

from __future__ import annotations

from . import calls, copies, names, ops, recording, watching, zeros

__all__ = ["calls", "copies", "names", "ops", "recording", "watching", "zeros"]
