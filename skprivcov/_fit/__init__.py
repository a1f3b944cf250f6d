"""The parameter rules and the shared pieces of every fit: constraints, shared
documentation, the data as a mechanism sees it (docs/algorithms.rst §13.2).
"""

from skprivcov._fit._clipped_data import (
    ClippedData,
)
from skprivcov._fit._constraints import (
    BUDGET,
    BUDGET_RANGE,
    DELTA,
    NOISE,
    NONFINITE,
    NORM_BOUND,
    NORM_BOUND_RANGE,
    PROJECTION,
    RELEASE_NORM_BOUND,
    RELEASE_SEED,
    SHARE,
    is_auto,
)
from skprivcov._fit._docstrings import (
    fill_shared_docs,
)

__all__ = [
    "BUDGET",
    "BUDGET_RANGE",
    "DELTA",
    "NOISE",
    "NONFINITE",
    "NORM_BOUND",
    "NORM_BOUND_RANGE",
    "PROJECTION",
    "RELEASE_NORM_BOUND",
    "RELEASE_SEED",
    "SHARE",
    "ClippedData",
    "fill_shared_docs",
    "is_auto",
]
