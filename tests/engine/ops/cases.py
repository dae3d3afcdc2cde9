"""The op case table: every op in OP_TABLE has at least one row here."""

from __future__ import annotations

from .cases_math import CASES as MATH

CASES = [*MATH]

from .cases_creation import CASES as CREATION  # noqa: E402

CASES += CREATION

from .cases_reduce import CASES as REDUCE  # noqa: E402
from .cases_shape import CASES as SHAPE  # noqa: E402

CASES += REDUCE + SHAPE

from .cases_linalg import CASES as LINALG  # noqa: E402

CASES += LINALG

from .cases_nn import CASES as NN  # noqa: E402

CASES += NN
