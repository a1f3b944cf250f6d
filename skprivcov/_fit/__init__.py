"""The parameter rules and the shared pieces of every fit: constraints, shared
documentation, the data as a mechanism sees it (docs/algorithms.rst §13.2).
"""

from skprivcov._fit._bounds import (
    auto_norm_bound,
    bound_quantile,
    bound_range,
    is_private_bound,
)
from skprivcov._fit._budget import (
    budget_parameters,
    check_handed_down,
    estimator_budget,
)
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
from skprivcov._fit._describe import (
    describe,
    public_parameters,
)
from skprivcov._fit._diagnostics import (
    NOISE_DOMINATED_RATIO,
    collected_warnings,
    issue_warnings,
    signal_to_noise,
    silenced_warnings,
    warn_if_noise_dominated,
)
from skprivcov._fit._docstrings import (
    fill_shared_docs,
)
from skprivcov._fit._feature_scaling import (
    FEATURE_SCALING,
    check_feature_scaling,
    choose_feature_scaling,
    scaling_mode,
    to_raw_units,
    z_limit,
)
from skprivcov._fit._precision import (
    eigenvalue_floor,
    floored_inverse,
)

__all__ = [
    "BUDGET",
    "BUDGET_RANGE",
    "DELTA",
    "FEATURE_SCALING",
    "NOISE",
    "NOISE_DOMINATED_RATIO",
    "NONFINITE",
    "NORM_BOUND",
    "NORM_BOUND_RANGE",
    "PROJECTION",
    "RELEASE_NORM_BOUND",
    "RELEASE_SEED",
    "SHARE",
    "ClippedData",
    "auto_norm_bound",
    "bound_quantile",
    "bound_range",
    "budget_parameters",
    "check_feature_scaling",
    "check_handed_down",
    "choose_feature_scaling",
    "collected_warnings",
    "describe",
    "eigenvalue_floor",
    "estimator_budget",
    "fill_shared_docs",
    "floored_inverse",
    "is_auto",
    "is_private_bound",
    "issue_warnings",
    "public_parameters",
    "scaling_mode",
    "signal_to_noise",
    "silenced_warnings",
    "to_raw_units",
    "warn_if_noise_dominated",
    "z_limit",
]
