"""Privacy costs, conversions between notions, the budget rule and exceptions."""

from skprivcov.privacy._accountant import PrivacyAccountant
from skprivcov.privacy._budget import resolve_budget
from skprivcov.privacy._caveats import CAVEATS, MCMC_NOISE
from skprivcov.privacy._conversions import (
    bun_steinke_epsilon,
    cks_delta,
    cks_epsilon,
    gaussian_epsilon,
    pure_to_zcdp,
    zcdp_from_approx_dp,
)
from skprivcov.privacy._cost import PrivacyCost
from skprivcov.privacy._exceptions import (
    BudgetExceededError,
    NoiseDominatedWarning,
    UnsupportedPrivacyNotionError,
)
from skprivcov.privacy._ledger import SpendRecord
from skprivcov.privacy._parts import BudgetPart, check_within, compose_parts
from skprivcov.privacy._profiles import (
    SelectionProfile,
    StoppingLaw,
    selection_delta,
)
from skprivcov.privacy._renyi import (
    RENYI_ORDERS,
    envelope_epsilon,
    expected_runs,
    rdp_epsilon,
    repeat_and_select_curve,
    selection_inner_minimum,
)

__all__ = [
    "CAVEATS",
    "MCMC_NOISE",
    "RENYI_ORDERS",
    "BudgetExceededError",
    "BudgetPart",
    "NoiseDominatedWarning",
    "PrivacyAccountant",
    "PrivacyCost",
    "SelectionProfile",
    "SpendRecord",
    "StoppingLaw",
    "UnsupportedPrivacyNotionError",
    "bun_steinke_epsilon",
    "check_within",
    "cks_delta",
    "cks_epsilon",
    "compose_parts",
    "envelope_epsilon",
    "expected_runs",
    "gaussian_epsilon",
    "pure_to_zcdp",
    "rdp_epsilon",
    "repeat_and_select_curve",
    "resolve_budget",
    "selection_delta",
    "selection_inner_minimum",
    "zcdp_from_approx_dp",
]
