"""Conversions between privacy notions (docs/algorithms.rst §7).

All functions are pure arithmetic on privacy parameters; none of them sees data.
Every conversion errs on the safe side, at every budget of the documented
ranges (ρ, ε from 0 and 1e−30 to 1e30 and their composed totals, δ anywhere
in (0, 1); §7.4): each optimisation over an order only decides how tight the
result is (every order gives a valid bound), and the value at the chosen
order is computed from terms whose roundings are bounded and added to it.
"""

import math
from fractions import Fraction

from scipy.optimize import brentq
from scipy.special import erf, erfcx, ndtr, ndtri

__all__ = [
    "bun_steinke_epsilon",
    "cks_delta",
    "cks_epsilon",
    "gaussian_epsilon",
    "pure_to_zcdp",
    "zcdp_from_approx_dp",
]

# §7.4: a value computed as a sum of a few terms, each with at most a few
# roundings (≤ 10 units of 2^−53 ≈ 1.1e−15 of the terms' absolute sum), is
# moved by this relative margin of that sum, and by an absolute one for
# roundings in the subnormal range.
_MARGIN = 1e-14
_TINY = 1e-300
# §7.4: the special functions of scipy (erf, erfcx, ndtr) are accurate to a
# few 1e−16 relative (checked against mpmath in tests); they are taken to
# 1e−13.
_SPECIAL = 1e-13
# Consistency of the inverse conversions with cks_delta: a few nudges at most.
_NUDGES = 200


def _check_delta(delta):
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}.")


def _check_nonnegative(name, value):
    if not value >= 0.0:
        raise ValueError(f"{name} must be a number >= 0, got {value!r}.")


def _log_inverse_up(delta):
    """An upper bound on log(1/δ) > 0 (math.log is accurate to an ulp)."""
    value = -math.log(delta)
    return math.nextafter(value * (1.0 + 4e-16), math.inf)


def _upper(terms, exact=()):
    """An upper bound on the exact sum of ``terms``, each computed with a few
    roundings, and of ``exact`` ones (inputs, no rounding): their correctly
    rounded sum (fsum) with the margin of §7.4 on the rounded terms, one ulp
    up."""
    margin = _MARGIN * math.fsum(abs(term) for term in terms) + _TINY
    return math.nextafter(math.fsum((*terms, *exact, margin)), math.inf)


def _lower(terms, exact=()):
    """A lower bound, as :func:`_upper`."""
    margin = _MARGIN * math.fsum(abs(term) for term in terms) + _TINY
    return math.nextafter(math.fsum((*terms, *exact, -margin)), -math.inf)


def _log_ratio(h):
    """log(1 + 1/h) for h > 0, accurate to a few roundings for every h (1/h
    overflows below h = 5.6e−309, and log1p(h) − log h loses nothing there
    since both terms are positive)."""
    if h >= 1.0:
        return math.log1p(1.0 / h)
    return math.log1p(h) - math.log(h)


def _round_up(fraction):
    """The smallest float not below an exact fraction."""
    value = float(fraction)
    if Fraction(value) < fraction:
        value = math.nextafter(value, math.inf)
    return value


def pure_to_zcdp(epsilon):
    """The ρ-zCDP implied by pure ε-DP: ρ = ε²/2 (Bun & Steinke 2016, Prop. 1.4).

    Rounded up (§7.3): the float returned is never below the exact ε²/2.

    Parameters
    ----------
    epsilon : float
        The ε of pure ε-DP.

    Returns
    -------
    rho : float
        The ρ.
    """
    rho = 0.5 * epsilon * epsilon
    if not math.isfinite(rho):
        return rho
    return _round_up(Fraction(epsilon) ** 2 / 2)


def bun_steinke_epsilon(rho, delta):
    """Simple ρ-zCDP → (ε, δ) bound ε = ρ + 2√(ρ log(1/δ)) (BS16 Prop. 1.3).

    Rounded up (§7.1): never below the exact value of the formula.

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
    _check_delta(delta)
    _check_nonnegative("rho", rho)
    if rho == 0.0:
        return 0.0
    epsilon = rho + 2.0 * math.sqrt(rho * _log_inverse_up(delta))
    return math.nextafter(epsilon * (1.0 + 1e-15), math.inf)


def _cks_exponent(h, rho, epsilon):
    """log of CKS20 Prop. 12's δ at the order α = 1 + h, as its four terms.

    (α−1)(αρ−ε) + α·log(1−1/α) − log(α−1)
    = h²ρ + h(ρ − ε) − h·log(1 + 1/h) − log(1 + h),
    each term computed with a few roundings (no difference of large terms).
    """
    return (
        h * (h * rho),
        h * (rho - epsilon),
        -h * _log_ratio(h),
        -math.log1p(h),
    )


def _cks_log_delta(rho, epsilon):
    """An upper bound on log δ(ε) of CKS20 Cor. 13 (docs/algorithms.rst §7.1, §7.4).

    δ(ε) = inf_{α>1} exp((α−1)(αρ−ε)) (1−1/α)^α / (α−1). In h = α − 1 the
    exponent is convex (its derivative (1+2h)ρ − ε − log(1+1/h) increases),
    so the optimal h is the root of that derivative, found for t = log h
    (bracketed below; every h of the documented ranges lies in
    [e^−740, e^700]). Any h > 0 yields a valid bound, so an inexact root is
    safe; the exponent at the chosen h is rounded up (§7.4). Capped at 0
    (δ ≤ 1 always).
    """
    if rho == 0.0:
        return -math.inf

    def slope(t):
        h = math.exp(t)
        return (1.0 + 2.0 * h) * rho - epsilon - _log_ratio(h)

    # For t ≤ −1, 1 + 2h ≤ 1.74 and log(1+1/h) ≥ −t: the slope is below
    # 1.74ρ − ε + t. For h ≥ 1, log(1+1/h) ≤ log 2: at h = (ε+1)/ρ ≥ 1 the
    # slope is positive. Below t = −740 the bound is within 1e−300 of 0
    # (δ within 1e−300 of 1); above t = 700, h overflows (beyond the ranges).
    t_low = max(-740.0, min(-1.0, epsilon - 1.74 * rho - 1.0))
    t_high = min(700.0, math.log(max(1.0, (abs(epsilon) + 1.0) / rho)))
    if slope(t_low) >= 0.0:
        t = t_low
    elif slope(t_high) <= 0.0:
        t = t_high
    else:
        t = brentq(slope, t_low, t_high, xtol=1e-12, maxiter=500, disp=False)
    return min(_upper(_cks_exponent(math.exp(t), rho, epsilon)), 0.0)


def cks_delta(rho, epsilon):
    """The δ such that ρ-zCDP implies (ε, δ)-DP, by CKS20 Cor. 13 (§7.1).

    Rounded up (§7.4): the exponent by its bounded roundings, then two ulps
    of δ. (:func:`cks_epsilon` and :func:`zcdp_from_approx_dp` meet δ in log
    δ, exactly; within a few ulps of δ = 1, and below δ = 1e−307, these two
    ulps may put this δ an ulp or two above the δ they were asked for.)

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
    _check_nonnegative("rho", rho)
    log_delta = _cks_log_delta(rho, epsilon)
    if log_delta == -math.inf:
        return 0.0
    # exp is accurate to an ulp: two ulps up.
    delta = math.nextafter(math.nextafter(math.exp(log_delta), 2.0), 2.0)
    return min(delta, 1.0)


def _optimal_order(equation, t_low, t_high):
    """A root in t of an increasing ``equation``, its bracket widened in steps
    of 1 until the signs differ (roundings at the bracket's ends). Any t is a
    valid order; only tightness depends on the root."""
    for _ in range(1500):
        if equation(t_low) <= 0.0:
            break
        t_low -= 1.0
    for _ in range(1500):
        if equation(t_high) >= 0.0:
            break
        t_high += 1.0
    if equation(t_low) > 0.0:
        return t_low
    if equation(t_high) < 0.0:
        return t_high
    return brentq(equation, t_low, t_high, xtol=1e-13, maxiter=500, disp=False)


def _softplus(t):
    """log(1 + e^t), without overflow."""
    return max(t, 0.0) + math.log1p(math.exp(-abs(t)))


def _log_expm1(x):
    """log(e^x − 1) for x > 0, without overflow."""
    return x + math.log(-math.expm1(-x))


def cks_epsilon(rho, delta):
    """Smallest ε with ρ-zCDP ⇒ (ε, δ)-DP by CKS20 (docs/algorithms.rst §7.1, §7.4).

    Inverted in closed form: at the order α = 1 + h the bound δ(ε) ≤ δ holds
    for ε ≥ ε_h = (1+h)ρ − log(1+1/h) − (log(1+h) − log(1/δ))/h, so the
    answer is the least ε_h (clipped at 0). Its derivative in h is
    ρ + (log(1+h) − log(1/δ))/h², so the least ε_h is at the root of
    ρh² + log(1+h) = log(1/δ) (increasing in h; bracketed by
    h ∈ [min(√(L/2ρ), e^(L/2) − 1), min(√(L/ρ), e^L − 1)], L = log(1/δ)).
    ε = 0 is tried first; ε_h is rounded up (§7.4), and nudged up until
    :func:`cks_delta` agrees. It terminates for every ρ ≥ 0 and δ in
    (0, 1), and never under-reports.

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
    _check_delta(delta)
    _check_nonnegative("rho", rho)
    return cks_epsilon_at(rho, _log_inverse_up(delta))


def _log_target(log_inv):
    """The bound on log δ to meet, given an upper bound on L = log(1/δ)."""
    return -log_inv


def cks_epsilon_at(rho, log_inv):
    """:func:`cks_epsilon` for δ given as ``log_inv`` ≥ log(1/δ) > 0.

    The Rényi envelope ε(λ) ≤ aλ + b + c/(λ−1) converts as b plus this at
    ρ = a and log(1/δ) + c (§22), where δ·e^−c may underflow.

    Parameters
    ----------
    rho : float >= 0
        The ρ.
    log_inv : float > 0
        An upper bound on log(1/δ).

    Returns
    -------
    epsilon : float
        The ε.
    """
    if rho == 0.0:
        return 0.0
    if math.isinf(rho) or math.isinf(log_inv):
        return math.inf
    log_target = _log_target(log_inv)
    if _cks_log_delta(rho, 0.0) <= log_target:
        # Where δ(0) ≈ δ, ε_h is a difference of terms far larger than ε:
        # ε = 0 is checked first (and ε → ρ(ε, δ) → ε comes back to ≤ ε).
        return 0.0
    log_rho = math.log(rho)

    def equation(t):  # ρh² + log(1 + h) − L, h = e^t
        t = min(max(t, -740.0), 700.0)
        with_rho = math.exp(min(2.0 * t + log_rho, 700.0))
        return with_rho + _softplus(t) - log_inv

    t_low = min(0.5 * (math.log(log_inv / 2.0) - log_rho), _log_expm1(log_inv / 2.0))
    t_high = min(0.5 * (math.log(log_inv) - log_rho), _log_expm1(log_inv))
    h = math.exp(min(max(_optimal_order(equation, t_low, t_high), -740.0), 700.0))
    epsilon = _upper(
        (h * rho, -_log_ratio(h), -math.log1p(h) / h, log_inv / h), exact=(rho,)
    )
    if epsilon <= 0.0:
        return 0.0
    # Agree with cks_delta (its own order and margin): both are valid bounds.
    step = epsilon * 1e-15
    for _ in range(_NUDGES):
        if _cks_log_delta(rho, epsilon) <= log_target:
            break
        epsilon += step
        step *= 2.0
    return epsilon


def zcdp_from_approx_dp(epsilon, delta):
    """Largest ρ whose CKS conversion meets (ε, δ) (docs/algorithms.rst §7.2, §7.4).

    In closed form: at the order α = 1 + h, CKS20's δ(ρ, ε) ≤ δ holds for
    every ρ ≤ ρ_h = (hε + h·log(1+1/h) + log(1+h) − log(1/δ)) / (h(1+h)).
    ρ_h is quasi-concave in h (its upper level sets are the sets where the
    convex exponent of CKS20 lies below log δ: intervals), and stationary
    where h²(ε + log(1+1/h))/(1+2h) + log(1+h) = log(1/δ): that root (found
    in t = log h) gives the largest ρ. Any h gives a valid ρ; ρ_h is rounded
    down (§7.4), never below the simple bound (√(L+ε) − √L)² (BS16 Prop. 1.3,
    L = log(1/δ)), and nudged down until :func:`cks_delta` agrees and
    :func:`cks_epsilon` gives back at most ε. It terminates for every ε ≥ 0
    and δ in (0, 1): for ε near 0 the answer is the ρ whose δ(0) is δ, about
    (e/2)·δ² for a small δ, not 0.

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
    _check_delta(delta)
    _check_nonnegative("epsilon", epsilon)
    if math.isinf(epsilon):
        return math.inf
    log_inv = _log_inverse_up(delta)

    def equation(t):
        h = math.exp(min(max(t, -740.0), 700.0))
        rise = h * (h / (1.0 + 2.0 * h)) * (epsilon + _log_ratio(h))
        return rise + math.log1p(h) - log_inv

    # Below: h²ε + 2h ≤ L/2 (h·log(1+1/h) ≤ 1); above: log(1+h) ≥ L or
    # h ≥ max(1, 3L/ε) (then h²ε/(1+2h) ≥ hε/3 ≥ L).
    t_low = math.log(log_inv / 8.0)
    if epsilon > 0.0:
        t_low = min(t_low, 0.5 * math.log(log_inv / (4.0 * epsilon)))
    t_high = min(_log_expm1(log_inv), 700.0)
    if epsilon > 0.0:
        t_high = min(t_high, math.log(max(1.0, 3.0 * log_inv / epsilon)))
    h = math.exp(min(max(_optimal_order(equation, t_low, t_high), -740.0), 700.0))
    numerator = _lower((h * epsilon, h * _log_ratio(h), math.log1p(h), -log_inv))
    denominator = math.nextafter(h * (1.0 + h) * (1.0 + 1e-15), math.inf)
    rho = numerator / denominator * (1.0 - 1e-15) if numerator > 0.0 else 0.0
    # The simple bound, rounded down: ε²/(√(L+ε) + √L)².
    root = math.sqrt(log_inv + epsilon) + math.sqrt(log_inv)
    simple = (epsilon / root) ** 2 * (1.0 - 1e-14)
    rho = max(math.nextafter(rho, 0.0), simple, 0.0)
    # Agree with cks_delta and cks_epsilon (their own orders and margins):
    # all are valid bounds, and the round trip ε → ρ → ε then never exceeds
    # ε (a budget (ε, δ) admits the ρ calibrated to it).
    log_target = _log_target(log_inv)
    step = rho * 1e-15
    for _ in range(_NUDGES):
        if rho == 0.0 or (
            _cks_log_delta(rho, epsilon) <= log_target
            and cks_epsilon(rho, delta) <= epsilon
        ):
            break
        rho = max(rho - step, 0.0)
        step *= 2.0
    return rho


def _gaussian_log_delta_upper(mu, w):
    """An upper bound on log δ of μ-GDP at ε = μw + μ²/2, for w ≥ −μ/2 (§7.4).

    δ = Φ̄(w) − e^ε·Φ̄(w + μ) (Balle & Wang 2018), rewritten without a
    difference of large terms (a = w/√2, b = (w + μ)/√2, and
    e^ε·Φ̄(w + μ) = e^(−a²)·erfcx(b)/2 exactly):

    * w ≥ 0: δ = e^(−a²)·(erfcx(a) − erfcx(b))/2, the difference bounded
      directly and by the mean value theorem, (b − a)·|erfcx'(a)| (erfcx is
      convex, so |erfcx'| decreases); in logs, since e^(−a²) underflows
      before δ reaches the smallest float;
    * w < 0, μ ≤ 1: δ = (erf(−a) + e^ε·erf(b) − (e^ε − 1))/2;
    * w < 0, μ > 1: 1 − δ = Φ̄(−w) + e^(−a²)·erfcx(b)/2 (δ ≥ 0.2 there,
      and may lie within an ulp of 1).

    Each part is taken at the end of its rounding interval that makes it
    larger, with a relative 1e−13 for the special functions.
    """
    up, down = 1.0 + 1e-15, 1.0 - 1e-15
    root2 = math.sqrt(2.0)
    if w >= 0.0:
        a_low = w / root2 * down
        b_high = (w + mu) / root2 * up
        gap = mu / root2 * up
        at_a = float(erfcx(a_low))
        at_b = float(erfcx(b_high))
        direct = (at_a * (1.0 + _SPECIAL)) - (at_b * (1.0 - _SPECIAL))
        slope = 2.0 / math.sqrt(math.pi) - 2.0 * a_low * at_a * (1.0 - _SPECIAL)
        slope += 1e-15 * (2.0 / math.sqrt(math.pi) + 2.0 * a_low * at_a)
        difference = min(direct, gap * slope * up) * up
        exponent = -0.5 * w * w * down
        log_delta = math.log(difference) + exponent - math.log(2.0)
        return log_delta + 1e-15 * (abs(math.log(difference)) + abs(exponent) + 1.0)
    epsilon = mu * w + 0.5 * mu * mu
    # ε = μw + μ²/2 computed: its rounding is a few ulps of |μw| + μ²/2.
    error = 1e-15 * (abs(mu * w) + 0.5 * mu * mu)
    if mu <= 1.0:
        left = float(erf(-w / root2 * up)) * (1.0 + _SPECIAL)
        right = float(erf((w + mu) / root2 * up)) * (1.0 + _SPECIAL)
        growth = math.exp(max(epsilon + error, 0.0)) * up
        taken = math.expm1(max(epsilon - error, 0.0)) * down
        # The difference's own rounding: an ulp or two of its larger part.
        larger = left + growth * right
        delta = (larger - taken + 4e-16 * (larger + taken)) * up / 2.0
        return math.log(delta) * down if delta < 1.0 else 0.0
    # 1 − δ = Φ̄(−w) + e^(−a²)·erfcx(b)/2, bounded from below: δ may be
    # within an ulp of 1.
    rest = math.exp(-0.5 * w * w * up) * float(erfcx((w + mu) / root2 * up))
    complement = (float(ndtr(w)) + rest * down / 2.0) * (1.0 - _SPECIAL) * down
    return math.log1p(-complement) * down


def gaussian_epsilon(rho, delta):
    """Exact ε(δ) of a pipeline of Gaussian mechanisms only (docs/algorithms.rst §7.1).

    Such a pipeline with total ρ is μ-GDP with μ = √(2ρ) (Dong, Roth & Su 2019),
    and δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018).
    Valid only for GaussianCovariance, SeparateCovariance (Gaussian version) and
    ProjectionCovariance; **not** for anything containing a pure-DP part (SVT,
    PrivRadius, the exponential mechanism), for which use :func:`cks_epsilon`.

    Found by bisection on w = ε/μ − μ/2 with δ(ε) bounded from above without
    cancellation (§7.4), μ rounded up (δ grows with μ) and ε = μw + μ²/2
    rounded up; never above :func:`cks_epsilon`, which is valid for every
    ρ-zCDP mechanism and so for this one.

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
    _check_delta(delta)
    _check_nonnegative("rho", rho)
    if rho == 0.0:
        return 0.0
    ceiling = cks_epsilon(rho, delta)
    if ceiling == 0.0 or math.isinf(rho):
        return ceiling
    mu = math.nextafter(math.sqrt(2.0 * rho) * (1.0 + 1e-15), math.inf)

    log_target = -_log_inverse_up(delta)

    def holds(w):
        return _gaussian_log_delta_upper(mu, w) <= log_target

    low = -0.5 * mu  # ε = 0
    if holds(low):
        return 0.0
    # Φ̄(w) ≤ δ beyond this w, and δ(ε) ≤ Φ̄(w).
    high = max(0.0, -float(ndtri(delta))) + 1.0
    for _ in range(64):
        if holds(high):
            break
        high = 2.0 * high
    else:
        return ceiling
    for _ in range(2000):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if holds(middle):
            high = middle
        else:
            low = middle
    exact = Fraction(mu) * Fraction(high) + Fraction(mu) ** 2 / 2
    return min(_round_up(max(exact, Fraction(0))), ceiling)
