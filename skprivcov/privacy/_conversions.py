"""Conversions between privacy notions (docs/algorithms.rst §7).

All functions are pure arithmetic on privacy parameters; none of them sees data.
Every conversion errs on the safe side: where a root is found numerically, the
returned value is nudged until the guarantee provably holds.
"""

import math

from scipy.optimize import brentq
from scipy.special import log_ndtr

__all__ = [
    "bun_steinke_epsilon",
    "cks_delta",
    "cks_epsilon",
    "gaussian_epsilon",
    "pure_to_zcdp",
    "zcdp_from_approx_dp",
]

_XTOL = 1e-13
_NUDGE = 1e-12


def pure_to_zcdp(epsilon):
    """The ρ-zCDP implied by pure ε-DP: ρ = ε²/2 (Bun & Steinke 2016, Prop. 1.4).

    Parameters
    ----------
    epsilon : float
        The ε of pure ε-DP.

    Returns
    -------
    rho : float
        The ρ.
    """
    return 0.5 * epsilon * epsilon


def bun_steinke_epsilon(rho, delta):
    """Simple ρ-zCDP → (ε, δ) bound ε = ρ + 2√(ρ log(1/δ)) (BS16 Prop. 1.3).

    Parameters
    ----------
    rho : float
        The ρ of ρ-zCDP.
    delta : float in (0, 1)
        The δ.

    Returns
    -------
    epsilon : float
        The ε.
    """
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def _cks_log_delta(rho, epsilon):
    """log δ(ε) of Canonne–Kamath–Steinke 2020 (Cor. 13), docs/algorithms.rst §7.1.

    δ(ε) = inf_{α>1} exp((α−1)(αρ−ε)) (1−1/α)^α / (α−1). The optimal α solves
    (2α−1)ρ − ε + log(1−1/α) = 0, a strictly increasing function of α. We solve
    it for t = log(α−1) so that α can approach 1 without cancellation. Any α > 1
    yields a valid bound, so an inexact root is safe.
    """
    if rho == 0.0:
        return -math.inf

    def stationarity(t):
        h = math.exp(t)  # h = α − 1
        return (1.0 + 2.0 * h) * rho - epsilon + t - math.log1p(h)

    # For t ≤ −1, 2h ≤ 0.74, so stationarity(t) < 1.74ρ − ε + t: negative below.
    t_low = min(-1.0, epsilon - 1.74 * rho - 1.0)
    # For α ≥ 2, log(1−1/α) ≥ −log 2, so α − 1 = max(1, (ε+1)/(2ρ)) is positive.
    t_high = math.log(max(1.0, (epsilon + 1.0) / (2.0 * rho)))
    while stationarity(t_high) <= 0.0:
        t_high += 1.0
    t = brentq(stationarity, t_low, t_high, xtol=1e-12)
    h = math.exp(t)
    alpha = 1.0 + h
    log_delta = h * (alpha * rho - epsilon) + alpha * (t - math.log(alpha)) - t
    return min(log_delta, 0.0)


def cks_delta(rho, epsilon):
    """The δ such that ρ-zCDP implies (ε, δ)-DP, by CKS20 Cor. 13 (§7.1).

    Parameters
    ----------
    rho : float
        The ρ of ρ-zCDP.
    epsilon : float
        The ε.

    Returns
    -------
    delta : float
        The δ.
    """
    return math.exp(_cks_log_delta(rho, epsilon))


def cks_epsilon(rho, delta):
    """Smallest ε (to 1e-12) with ρ-zCDP ⇒ (ε, δ)-DP by CKS20 (§7.1).

    Root-finds δ(ε) = δ on [0, ε_simple]; the CKS bound is never worse than the
    simple one, so the bracket is valid. The result is nudged upwards until
    δ(ε) ≤ δ holds exactly, so it never under-reports.

    Parameters
    ----------
    rho : float
        The ρ of ρ-zCDP.
    delta : float in (0, 1)
        The δ.

    Returns
    -------
    epsilon : float
        The ε.
    """
    if rho == 0.0:
        return 0.0
    log_target = math.log(delta)
    if _cks_log_delta(rho, 0.0) <= log_target:
        return 0.0
    high = bun_steinke_epsilon(rho, delta)
    epsilon = brentq(
        lambda e: _cks_log_delta(rho, e) - log_target, 0.0, high, xtol=_XTOL
    )
    while cks_delta(rho, epsilon) > delta:
        epsilon += max(_NUDGE, epsilon * _NUDGE)
    return epsilon


def zcdp_from_approx_dp(epsilon, delta):
    """Largest ρ whose CKS conversion meets (ε, δ) (docs/algorithms.rst §7.2).

    δ(ρ, ε) is increasing in ρ, so bisection applies. The simple bound gives a
    feasible starting point ρ₀ = (√(log(1/δ)+ε) − √log(1/δ))². The result is
    nudged downwards until δ(ρ, ε) ≤ δ holds exactly.

    Parameters
    ----------
    epsilon : float
        The ε.
    delta : float in (0, 1)
        The δ.

    Returns
    -------
    rho : float
        The largest ρ.
    """
    log_target = math.log(delta)
    log_inv = math.log(1.0 / delta)
    low = (math.sqrt(log_inv + epsilon) - math.sqrt(log_inv)) ** 2
    high = 2.0 * low
    while _cks_log_delta(high, epsilon) <= log_target:
        low, high = high, 2.0 * high
    rho = brentq(
        lambda r: _cks_log_delta(r, epsilon) - log_target, low, high, xtol=_XTOL
    )
    while cks_delta(rho, epsilon) > delta:
        rho -= max(_NUDGE * rho, 1e-300)
    return rho


def gaussian_epsilon(rho, delta):
    """Exact ε(δ) of a pipeline of Gaussian mechanisms only (docs/algorithms.rst §7.1).

    Such a pipeline with total ρ is μ-GDP with μ = √(2ρ) (Dong, Roth & Su 2019),
    and δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018).
    Valid only for GaussianCovariance, SeparateCovariance (Gaussian version) and
    ProjectionCovariance; **not** for anything containing a pure-DP part (SVT,
    PrivRadius, the exponential mechanism), for which use :func:`cks_epsilon`.

    Parameters
    ----------
    rho : float
        The total ρ of the Gaussian mechanisms.
    delta : float in (0, 1)
        The δ.

    Returns
    -------
    epsilon : float
        The ε.
    """
    if rho == 0.0:
        return 0.0
    mu = math.sqrt(2.0 * rho)

    def log_delta_gap(eps):
        a = log_ndtr(-eps / mu + mu / 2.0)
        b = eps + log_ndtr(-eps / mu - mu / 2.0)
        # log(e^a − e^b) − log δ, computed stably (a > b always).
        return a + math.log1p(-math.exp(b - a)) - math.log(delta)

    if log_delta_gap(0.0) <= 0.0:
        return 0.0
    high = bun_steinke_epsilon(rho, delta)
    epsilon = brentq(log_delta_gap, 0.0, high, xtol=_XTOL)
    while log_delta_gap(epsilon) > 0.0:
        epsilon += max(_NUDGE, epsilon * _NUDGE)
    return epsilon
