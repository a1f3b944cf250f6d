"""A private upper bound on the trace of the second moment."""

import math

from skprivcov.mechanisms._sensitivity import gaussian_scale, trace_sensitivity
from skprivcov.privacy import UnsupportedPrivacyNotionError

__all__ = ["private_trace_upper_bound"]


def private_trace_upper_bound(trace, n_samples, budget, beta, rng, *, ceiling=1.0):
    """Gaussian-mechanism upper bound on tr Σ (ALGORITHMS.md §3.5 step 4, §3.7).

    t̂r = clip(tr + σ·N(0, 1) + σ·√(2 log(1/β)), 0, ceiling), σ = Δ/√(2ρ) with
    Δ = 1/n (rows in the unit ball). The shift makes t̂r ≥ tr with probability at
    least 1 − β; clipping to [0, ceiling] uses only the public facts 0 ≤ tr ≤ 1.

    Parameters
    ----------
    trace : float
        tr Σ of unit-ball rows.
    n_samples : int
        n (public).
    budget : PrivacyCost
        A zCDP budget spent in full.
    beta : float in (0, 1)
        Failure probability of the upper bound (utility only).
    rng : numpy.random.Generator
    ceiling : float, default=1.0
        Public upper bound on tr Σ.

    Returns
    -------
    bound : float
    spent : PrivacyCost
    """
    if budget.notion != "zcdp":
        raise UnsupportedPrivacyNotionError(
            "The Gaussian trace bound needs a zCDP budget."
        )
    sigma = gaussian_scale(trace_sensitivity(n_samples), budget.rho)
    shift = sigma * math.sqrt(2.0 * math.log(1.0 / beta))
    value = trace + sigma * rng.standard_normal() + shift
    return min(max(value, 0.0), ceiling), budget
