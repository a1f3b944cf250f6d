"""A private upper bound on the trace of the second moment."""

import math
from fractions import Fraction

from skprivcov.mechanisms._sensitivity import (
    gaussian_scale,
    laplace_scale,
    trace_sensitivity,
)
from skprivcov.mechanisms.noise._float import additive_noise
from skprivcov.mechanisms.noise._hardened import hardened_noise, is_hardened

__all__ = ["private_trace_upper_bound"]


def _shift(sensitivity, budget, beta):
    """The shift that makes the noisy trace an upper bound with probability
    1 − β (Gaussian tail for zCDP, Laplace tail for pure)."""
    if budget.notion == "zcdp":
        sigma = gaussian_scale(sensitivity, budget.rho)
        return sigma * math.sqrt(2.0 * math.log(1.0 / beta))
    scale = laplace_scale(sensitivity, budget.parameter)
    return scale * math.log(1.0 / (2.0 * beta))


def private_trace_upper_bound(
    trace, n_samples, budget, beta, rng, *, ceiling=1.0, trace_error=0.0
):
    """A private upper bound on tr Σ of unit-ball rows (sensitivity Δ = 1/n).

    zCDP budget (docs/algorithms.rst §3.5 step 4, §3.7): the Gaussian mechanism,
    t̂r = tr + σ·N(0, 1) + σ·√(2 log(1/β)) with σ = Δ/√(2ρ).
    Pure budget (§3.8): the Laplace mechanism,
    t̂r = tr + b·Lap(1) + b·log(1/(2β)) with b = Δ/ε.
    Either shift makes t̂r ≥ tr with probability at least 1 − β; the result is
    clipped to [0, ceiling] using only the public facts 0 ≤ tr ≤ 1.

    The trace, the noise and the shift are added exactly (as fractions) and the
    sum is rounded once, which is post-processing of the exact sum. With an
    exact ``trace`` (``SufficientStatistics.trace``) the sensitivity 1/n then
    holds in floating point too (§13.6); a float trace carries its own
    rounding.

    Parameters
    ----------
    trace : Fraction or float
        The tr Σ of unit-ball rows, best exact.
    n_samples : int
        The number of rows n (public).
    budget : PrivacyCost
        Spent in full.
    beta : float in (0, 1) or None
        Failure probability of the upper bound (utility only). None: no
        shift, an unbiased estimate (before the clipping to [0, ceiling]).
    rng : numpy.random.Generator
        The only source of noise.
    ceiling : float, default=1.0
        Public upper bound on tr Σ.
    trace_error : float, default=0.0
        Public bound on the distance of a float ``trace`` from tr Σ (hardened
        noise adds it to the sensitivity, docs/algorithms.rst §17).

    Returns
    -------
    bound : float
        The private upper bound t̂r, in [0, ceiling].
    spent : PrivacyCost
        The budget spent, ``budget``.
    """
    sensitivity = trace_sensitivity(n_samples)
    if is_hardened(rng):
        # §17: the exact trace on a grid plus exact discrete noise; the shift
        # and the clipping are post-processing.
        noisy = hardened_noise(
            Fraction(trace),
            sensitivity,
            budget,
            rng,
            statistic_error=trace_error,
            site="trace",
        )
        shift = 0.0 if beta is None else _shift(sensitivity, budget, beta)
        return min(max(noisy + shift, 0.0), ceiling), budget
    if budget.notion == "zcdp":
        scale = gaussian_scale(sensitivity, budget.rho)
    else:
        scale = laplace_scale(sensitivity, budget.parameter)
    noise = additive_noise(None, scale, budget, rng, site="trace")
    shift = 0.0 if beta is None else _shift(sensitivity, budget, beta)
    value = float(Fraction(trace) + Fraction(noise) + Fraction(shift))
    return min(max(value, 0.0), ceiling), budget
