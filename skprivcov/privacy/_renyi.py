"""Rényi-DP curves on a fixed public grid of orders (docs/algorithms.rst §14, §22).

A cost that is neither pure ε-DP nor ρ-zCDP (the cost of private selection by
random stopping) is stored as its Rényi curve λ ↦ ε(λ) at the orders of
:data:`RENYI_ORDERS`. Every function here is arithmetic on public privacy
parameters and errs upwards: a value computed in floating point is moved one
ulp up (or by a relative 1e-12 where a formula has several roundings), so a
stored curve is never below the true one.
"""

import math

import numpy as np

from skprivcov.privacy._conversions import cks_epsilon_at

__all__ = [
    "RENYI_ORDERS",
    "curve_at",
    "envelope_epsilon",
    "expected_runs",
    "pure_curve",
    "rdp_epsilon",
    "repeat_and_select_curve",
    "selection_inner_minimum",
    "zcdp_curve",
]

#: The public grid of Rényi orders λ > 1 on which curves are stored (§14).
#: Every value is a binary fraction, so λ is exact in floating point.
RENYI_ORDERS = (
    1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0,
    8.0, 10.0, 12.0, 14.0, 16.0, 20.0, 24.0, 28.0, 32.0, 40.0, 48.0, 56.0,
    64.0, 80.0, 96.0, 128.0, 192.0, 256.0, 384.0, 512.0, 768.0, 1024.0,
)  # fmt: skip

_RELATIVE_MARGIN = 1e-12


def _up(values):
    """Values moved up by a relative margin (and one ulp): formulas with a few
    floating-point roundings are then never below their exact results."""
    values = np.asarray(values, dtype=np.float64)
    return np.nextafter(values + np.abs(values) * _RELATIVE_MARGIN, np.inf)


def _orders(orders):
    orders = np.asarray(RENYI_ORDERS if orders is None else orders, dtype=np.float64)
    if orders.ndim != 1 or orders.size == 0 or np.any(~(orders > 1.0)):
        raise ValueError("Rényi orders must be a non-empty list of numbers > 1.")
    return orders


def zcdp_curve(rho, orders=None):
    """The curve of ρ-zCDP, ε(λ) = ρλ (Bun & Steinke 2016, Def. 1.1)."""
    return _up(rho * _orders(orders))


def pure_curve(epsilon, orders=None):
    """The sharp curve implied by pure ε-DP (§7.3, §14).

    ε̂(λ) = ε − log((1 + e^−ε) / (1 + e^−(2λ−1)ε)) / (λ − 1), never above ε;
    the worst case over ε-DP mechanisms is randomised response, whose curve
    this is.
    """
    lam = _orders(orders)
    if epsilon == 0.0:
        return np.zeros_like(lam)
    # Also at most ε²λ/2 (BS16 Prop. 1.4). For a small ε the sharp formula
    # loses its digits to cancellation, so it is used only from ε = 0.05,
    # where its rounding (a few 1e−16 over λ − 1 ≥ 1/4) is far below the
    # margin added: a relative 1e−9 and an absolute 1e−14.
    bound = np.minimum(_up(0.5 * epsilon * epsilon * lam), epsilon)
    if epsilon < 0.05:
        return bound
    sharp = epsilon - (
        np.log1p(math.exp(-epsilon)) - np.log1p(np.exp(-(2.0 * lam - 1.0) * epsilon))
    ) / (lam - 1.0)
    return np.minimum(_up(sharp * (1.0 + 1e-9) + 1e-14), bound)


def curve_at(orders, curve, at):
    """A valid bound on ε(λ) at the orders ``at`` from a curve known at
    ``orders``: Rényi divergence is non-decreasing in λ, so the value at the
    smallest grid order ≥ λ bounds it; above the grid, +inf."""
    orders = _orders(orders)
    curve = np.asarray(curve, dtype=np.float64)
    at = np.atleast_1d(np.asarray(at, dtype=np.float64))
    index = np.searchsorted(orders, at, side="left")
    padded = np.append(curve, np.inf)
    return padded[index]


def _log_complement(lam):
    """log(1 − 1/λ) to a few roundings: λ − 1 is exact for 1 < λ < 2^53, so
    log(λ − 1) − log λ near λ = 1 (where 1 − 1/λ would cancel)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        near = np.log(lam - 1.0) - np.log(lam)
    return np.where(lam < 2.0, near, np.log1p(-1.0 / lam))


def _conversion_term(lam, delta):
    """(λ·log(1 − 1/λ) − log(λ − 1) − log δ)/(λ − 1), CKS20 Prop. 12's price
    of turning ε(λ) into (ε, δ) at the order λ (§14)."""
    return (lam * _log_complement(lam) - np.log(lam - 1.0) - math.log(delta)) / (
        lam - 1.0
    )


def _conversion_scale(lam, delta):
    """The absolute sum of the conversion term's parts, whose roundings (a
    few units of 2^−53 each) bound its absolute error: the result may be far
    smaller than its parts (ε near 0, §7.4)."""
    return (
        np.abs(lam * _log_complement(lam))
        + np.abs(np.log(lam - 1.0))
        + abs(math.log(delta))
    ) / (lam - 1.0)


# Points per interval between two stored orders at which the chord bound is
# converted: any λ gives a valid ε, so the count only decides how close to
# the best real order the minimum comes (§22: under 1e−4 of the ε here).
_CHORD_POINTS = 64


def rdp_epsilon(curve, delta, orders=None):
    """The ε of (ε, δ)-DP implied by a Rényi curve, over real orders (§14, §22).

    ε = min over λ > 1 of ε(λ) + (λ·log(1 − 1/λ) − log(λ − 1) − log δ)/(λ − 1)
    (CKS20 Prop. 12; §7.1 is its zCDP case). The curve is known at the stored
    orders only; between two of them, λ ↦ (λ − 1)·ε(λ) lies under its chord,
    because (λ − 1)·D_λ = log ∫ p^λ q^(1−λ) is convex in λ for every pair of
    neighbours (Hölder) and a supremum of convex functions is convex. The
    chord through the stored values (upper bounds of the true ones) is then an
    upper bound of the true curve at every real order between them, and the
    conversion is minimised over those orders too. Every λ gives a valid ε,
    so the result is never below the true conversion of the true curve.

    Parameters
    ----------
    curve : array-like
        The ε(λ) at the orders.
    delta : float in (0, 1)
        The δ.
    orders : array-like, default=None
        The orders λ, increasing; None for ``RENYI_ORDERS``.

    Returns
    -------
    epsilon : float
        The ε.
    """
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}.")
    lam = _orders(orders)
    curve = np.asarray(curve, dtype=np.float64)
    # Each value with the rounding of its parts (§7.4): 1e−14 of their sum.
    best = np.min(
        curve
        + _conversion_term(lam, delta)
        + 1e-14 * (np.abs(curve) + _conversion_scale(lam, delta))
    )
    if lam.size > 1 and np.all(np.diff(lam) > 0):
        # Real orders between stored ones: (λ − 1)ε(λ) under the chord.
        weight = np.linspace(0.0, 1.0, _CHORD_POINTS + 2)[1:-1, None]
        low, high = lam[:-1], lam[1:]
        between = low + weight * (high - low)
        scaled = (low - 1.0) * curve[:-1] + weight * (
            (high - 1.0) * curve[1:] - (low - 1.0) * curve[:-1]
        )
        chord = _up(scaled / (between - 1.0))
        best = min(
            best,
            np.min(
                chord
                + _conversion_term(between, delta)
                + 1e-14 * (np.abs(chord) + _conversion_scale(between, delta))
            ),
        )
    return float(max(_up(best), 0.0))


def envelope_epsilon(envelope, delta):
    """The ε of (ε, δ)-DP from a closed-form Rényi bound, over all real orders.

    ``envelope`` = (a, b, c) states ε(λ) ≤ a·λ + b + c/(λ − 1) for every
    λ > 1, the form of ρ-zCDP (a = ρ) and of the selection curve of ρ-zCDP
    candidates (§14: a = ρ, b = (1 + η)·m, c = log E[K]). With h = λ − 1,
    the conversion of CKS20 Prop. 12 at λ is
    b + a(1+h) − log(1+1/h) − (log(1+h) − log(1/δ) − c)/h: the zCDP
    conversion of ρ = a at log(1/δ) + c, plus b (§22). It is computed by
    :func:`~skprivcov.privacy._conversions.cks_epsilon_at` in closed form
    over every order (the least over h is where ah² + log(1+h) = log(1/δ) + c),
    with each term's rounding bounded (§7.4): it terminates and is never
    below the true conversion for every budget of the documented ranges, δ
    near 0 or 1 included.

    Parameters
    ----------
    envelope : tuple of 3 floats
        The (a, b, c) ≥ 0.
    delta : float in (0, 1)
        The δ.

    Returns
    -------
    epsilon : float
        The ε.
    """
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}.")
    a, b, c = (float(value) for value in envelope)
    # log(1/δ) + c rounded up: the conversion grows with it.
    log_inv = math.nextafter(
        (-math.log(delta) * (1.0 + 4e-16) + c) * (1.0 + 4e-16), math.inf
    )
    converted = cks_epsilon_at(a, log_inv)
    if b == 0.0 or math.isinf(converted):
        return float(converted + b)
    return float(math.nextafter(math.fsum((b, converted)), math.inf))


def expected_runs(eta, gamma):
    """E[K] of the truncated negative binomial TNB(η, γ) (§14).

    η(1 − γ) / (γ(1 − γ^η)) for η > 0 (1/γ for the geometric η = 1), and
    (1/γ − 1) / log(1/γ) for the logarithmic η = 0.

    Parameters
    ----------
    eta : float >= 0
        The TNB shape η.
    gamma : float in (0, 1)
        The TNB parameter γ.

    Returns
    -------
    mean : float
        E[K].
    """
    _check_stopping(eta, gamma)
    if eta == 0.0:
        return (1.0 / gamma - 1.0) / math.log(1.0 / gamma)
    return eta * (1.0 - gamma) / (gamma * -math.expm1(eta * math.log(gamma)))


def selection_inner_minimum(orders, curve, gamma, *, rho=None):
    """The inner minimum of the selection curve (§14).

    min over λ̂ ≥ 1 of (1 − 1/λ̂)·ε(λ̂) + log(1/γ)/λ̂. With ``rho`` (every run
    ρ-zCDP) the exact minimum over all λ̂ ≥ 1 [derived, §14]:
    2√(ρ log(1/γ)) − ρ at λ̂ = √(log(1/γ)/ρ) when ρ ≤ log(1/γ), else
    log(1/γ) at λ̂ = 1. Otherwise the minimum over the grid (and λ̂ = 1,
    where the term is log(1/γ)): a valid bound, as every λ̂ ≥ 1 is allowed.

    Parameters
    ----------
    orders : array-like or None
        The orders λ̂ of the curve (unused with ``rho``).
    curve : array-like or None
        One run's ε(λ̂) at them (unused with ``rho``).
    gamma : float in (0, 1)
        The TNB parameter γ.
    rho : float or None, default=None
        When every run is ρ-zCDP, its ρ.

    Returns
    -------
    minimum : float
        The inner minimum, rounded up.
    """
    log_inv = math.log(1.0 / gamma)
    if rho is not None:
        if rho == 0.0:
            return 0.0
        value = 2.0 * math.sqrt(rho * log_inv) - rho if rho <= log_inv else log_inv
        return float(_up(value))
    lam = _orders(orders)
    curve = np.asarray(curve, dtype=np.float64)
    values = (1.0 - 1.0 / lam) * curve + log_inv / lam
    return float(_up(min(float(np.min(values)), log_inv)))


def repeat_and_select_curve(orders, curve, *, eta, gamma, rho=None):
    """The Rényi curve of the best of K runs, K ~ TNB(η, γ) (§14).

    Papernot & Steinke (ICLR 2022, Thm. 2): if one run is (λ, ε(λ))-RDP for
    every λ, returning the best of K runs is (λ, ε'(λ))-RDP with
    ε'(λ) = ε(λ) + (1+η)·m + log(E[K])/(λ − 1), m the inner minimum of
    :func:`selection_inner_minimum`. The result is then made non-increasing
    towards smaller orders (RDP is monotone in λ, so the value at a larger
    order bounds a smaller one).

    Parameters
    ----------
    orders : array-like
        The grid of orders λ.
    curve : array-like
        One run's curve ε(λ) at the orders.
    eta : float >= 0
        The TNB shape (1: geometric, Liu & Talwar; 0: logarithmic).
    gamma : float in (0, 1)
        The TNB parameter; E[K] grows like 1/γ.
    rho : float or None
        When every run is ρ-zCDP, its ρ, for the exact inner minimum.

    Returns
    -------
    curve : ndarray
        The curve ε'(λ) of the best of K runs, at the orders.
    """
    lam = _orders(orders)
    curve = np.asarray(curve, dtype=np.float64)
    inner = selection_inner_minimum(lam, curve, gamma, rho=rho)
    runs = expected_runs(eta, gamma)
    selected = _up(curve + (1.0 + eta) * inner + math.log(runs) / (lam - 1.0))
    # Monotonicity: ε'(λ) ≤ min over λ' ≥ λ of ε'(λ').
    return np.minimum.accumulate(selected[::-1])[::-1]


def _check_stopping(eta, gamma):
    if not (math.isfinite(eta) and eta >= 0.0):
        raise ValueError(f"eta must be a finite number >= 0, got {eta!r}.")
    if not 0.0 < gamma < 1.0:
        raise ValueError(f"gamma must lie in (0, 1), got {gamma!r}.")
