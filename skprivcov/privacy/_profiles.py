"""Private selection priced by privacy profiles (docs/algorithms.rst §22).

The privacy profile of a mechanism is δ(ε), the largest hockey-stick
divergence sup_S P(S) − e^ε·P'(S) over neighbouring datasets. This module
bounds the profile of the best of K runs of a randomised candidate
(:class:`~skprivcov.model_selection.PrivateRandomSearch`) from the profile of
one run and the law of K (Koskela, Redberg & Wang, ICML 2024, show that such
bounds beat the Rényi route of §14; the bound here is derived in §22 and is
ours). Every number is an upper bound computed upwards: grids are summed as
upper Riemann–Stieltjes sums, and floating-point results carry a margin.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from skprivcov.privacy._renyi import RENYI_ORDERS

__all__ = [
    "SelectionProfile",
    "StoppingLaw",
    "event_limits",
    "run_curve",
    "selection_delta",
]

_MARGIN = 1e-9  # relative, on every floating-point bound (a few roundings each)
# The grids of the bound: s for the quantile of the outputs under one
# dataset, θ for how ε is split (§22). Any grid gives a valid bound; these
# sizes keep a conversion near a second.
_QUANTILE_POINTS = 900
_SPLITS = np.linspace(0.0, 1.0, 6)


def _up(values):
    values = np.asarray(values, dtype=np.float64)
    return np.nextafter(values * (1.0 + _MARGIN), np.inf)


@dataclass(frozen=True)
class StoppingLaw:
    """The law of the number of runs K ≥ 1 of a private selection (§14, §22).

    ``kind="negative_binomial"``: the truncated negative binomial TNB(η, γ) of
    Papernot & Steinke (``first`` = η ≥ 0, ``second`` = γ); η = 1 is the
    geometric law. ``kind="binomial"``: Binomial(m, p) conditioned on K ≥ 1
    (``first`` = m, a whole number ≥ 1, ``second`` = p), more concentrated
    around its mean (Koskela, Redberg & Wang 2024).

    Parameters
    ----------
    kind : {"negative_binomial", "binomial"}
        The family.
    first : float
        The η of the negative binomial, the m of the binomial.
    second : float
        The γ of the negative binomial, the p of the binomial; in (0, 1).

    See Also
    --------
    skprivcov.model_selection.stopping_law : The law a search uses.

    Examples
    --------
    >>> from skprivcov.privacy import StoppingLaw
    >>> law = StoppingLaw("negative_binomial", 1.0, 0.1)
    >>> round(law.expected(), 6)
    10.0
    >>> round(float(law.pmf(1)), 12)
    0.1
    """

    kind: str
    first: float
    second: float

    def __post_init__(self):
        if self.kind not in ("negative_binomial", "binomial"):
            raise ValueError(
                f"kind must be 'negative_binomial' or 'binomial', got {self.kind!r}."
            )
        if not 0.0 < self.second < 1.0:
            raise ValueError(
                f"The law's probability must lie in (0, 1), got {self.second!r}."
            )
        if self.kind == "binomial":
            if not (float(self.first).is_integer() and self.first >= 1):
                raise ValueError(
                    f"n_trials must be a whole number >= 1, got {self.first!r}."
                )
        elif not (math.isfinite(self.first) and self.first >= 0.0):
            raise ValueError(f"eta must be a finite number >= 0, got {self.first!r}.")
        object.__setattr__(self, "first", float(self.first))
        object.__setattr__(self, "second", float(self.second))

    def expected(self):
        """E[K].

        Returns
        -------
        mean : float
            The expected number of runs.
        """
        a, b = self.first, self.second
        if self.kind == "binomial":
            return a * b / -math.expm1(a * math.log1p(-b))
        if a == 0.0:
            return (1.0 / b - 1.0) / math.log(1.0 / b)
        return a * (1.0 - b) / (b * -math.expm1(a * math.log(b)))

    def log_slope(self, tail):
        """The logarithm of φ'(1 − t), φ the generating function of K.

        The best of K runs has density φ'(F(y)) at an output y of one run's
        density, F its distribution function (§22); t = 1 − F is the tail.
        φ' is increasing, so this is decreasing in t, and φ'(1) = E[K].

        Parameters
        ----------
        tail : array-like of float in [0, 1]
            The tails t.

        Returns
        -------
        log_slope : ndarray
            The values log φ'(1 − t).
        """
        t = np.clip(np.asarray(tail, dtype=np.float64), 0.0, 1.0)
        a, b = self.first, self.second
        if self.kind == "binomial":
            # φ(z) = ((1 − p + pz)^m − (1 − p)^m)/(1 − (1 − p)^m).
            return (
                math.log(a * b)
                + (a - 1.0) * np.log1p(-b * t)
                - math.log(-math.expm1(a * math.log1p(-b)))
            )
        base = np.log(b + (1.0 - b) * t)
        if a == 0.0:
            # φ(z) = log(1 − (1 − γ)z)/log γ.
            return math.log1p(-b) - math.log(math.log(1.0 / b)) - base
        # φ(z) = γ^η((1 − (1 − γ)z)^−η − 1)/(1 − γ^η).
        return (
            math.log(a)
            + math.log1p(-b)
            + a * math.log(b)
            - math.log(-math.expm1(a * math.log(b)))
            - (a + 1.0) * base
        )

    def pmf(self, k):
        """P(K = k).

        Parameters
        ----------
        k : int or ndarray of int
            Numbers of runs.

        Returns
        -------
        pmf : ndarray
            P(K = k), 0 outside the support.
        """
        from scipy.special import gammaln

        k = np.asarray(k, dtype=np.float64)
        a, b = self.first, self.second
        if self.kind == "binomial":
            log_pmf = (
                gammaln(a + 1.0)
                - gammaln(k + 1.0)
                - gammaln(np.maximum(a - k, 0.0) + 1.0)
                + k * math.log(b)
                + (a - k) * math.log1p(-b)
                - math.log(-math.expm1(a * math.log1p(-b)))
            )
            inside = (k >= 1) & (k <= a)
            return np.where(inside, np.exp(np.where(inside, log_pmf, 0.0)), 0.0)
        if a == 0.0:
            safe = np.maximum(k, 1.0)
            return np.where(
                k >= 1, np.exp(safe * math.log1p(-b)) / (safe * math.log(1.0 / b)), 0.0
            )
        log_pmf = (
            k * math.log1p(-b)
            + gammaln(k + a)
            - gammaln(a)
            - gammaln(k + 1.0)
            + a * math.log(b)
            - math.log(-math.expm1(a * math.log(b)))
        )
        return np.where(k >= 1, np.exp(log_pmf), 0.0)

    def draw(self, rng):
        """One draw of K, from ``rng`` only.

        Parameters
        ----------
        rng : numpy.random.Generator
            The source of randomness.

        Returns
        -------
        k : int
            K ≥ 1.
        """
        a, b = self.first, self.second
        if self.kind == "negative_binomial" and a == 0.0:
            return int(rng.logseries(1.0 - b))
        while True:
            if self.kind == "binomial":
                draws = rng.binomial(int(a), b, size=64)
            else:
                draws = rng.negative_binomial(a, b, size=64)
            positive = draws[draws >= 1]
            if positive.size:
                return int(positive[0])


# The orders at which a run's Rényi bounds constrain an event's probability
# under the neighbour. Fewer orders mean fewer constraints, so any grid gives
# valid limits; this one decides how tight they are.
_ORDERS = np.unique(
    np.concatenate(
        [1.0 + np.logspace(-3.0, 4.0, 60), np.asarray(RENYI_ORDERS, dtype=float)]
    )
)
_BISECTION_STEPS = 44


def run_curve(rho, epsilon, curve, orders):
    """An upper bound on one run's Rényi curve at ``orders`` (§14, §22).

    One run draws a candidate at random, so by the joint quasi-convexity of
    Rényi divergence its curve is at most the largest of the candidates'. The
    candidates are summarised by the largest ρ of the zCDP ones (ρλ), the
    largest ε of the pure ones (their sharp curve, §7.3) and the
    order-by-order largest stored curve of the Rényi ones (at an order off
    the grid, its value at the next stored order up, +inf above the grid).

    Parameters
    ----------
    rho : float or None
        The largest ρ-zCDP candidate's ρ.
    epsilon : float or None
        The largest pure candidate's ε.
    curve : tuple of float or None
        The largest Rényi curve, at ``RENYI_ORDERS``.
    orders : ndarray
        The orders λ > 1.

    Returns
    -------
    curve : ndarray
        The bounds on ε(λ).
    """
    from skprivcov.privacy._renyi import curve_at, pure_curve, zcdp_curve

    orders = np.asarray(orders, dtype=np.float64)
    bound = np.zeros_like(orders)
    if rho is not None:
        bound = np.maximum(bound, zcdp_curve(rho, orders))
    if epsilon is not None:
        bound = np.maximum(bound, pure_curve(epsilon, orders))
    if curve is not None:
        bound = np.maximum(bound, curve_at(RENYI_ORDERS, curve, orders))
    return bound


def _fits(log_a, log_b, orders, limit):
    """Whether (Bern(a), Bern(b)), a, b in (0, 1), meets every Rényi bound in
    both directions (neighbouring datasets are symmetric):
    log(a^λ b^(1−λ) + (1−a)^λ (1−b)^(1−λ)) ≤ (λ − 1)·ε(λ) = ``limit``, and the
    same with a and b swapped; decided generously (a rounding never makes a
    pair that fits fail). ``log_a``, ``log_b``: pairs (log p, log(1 − p))."""
    lam = orders[None, :]
    (in_a, out_a), (in_b, out_b) = log_a, log_b
    ins, outs = (in_a - in_b)[:, None], (out_a - out_b)[:, None]
    forward = np.logaddexp(in_b[:, None] + lam * ins, out_b[:, None] + lam * outs)
    backward = np.logaddexp(in_a[:, None] - lam * ins, out_a[:, None] - lam * outs)
    slack = 1e-12 * (np.abs(limit) + np.abs(forward) + np.abs(backward) + 1.0)
    return np.all((forward <= limit + slack) & (backward <= limit + slack), axis=1)


def _logs(p):
    return np.log(p), np.log1p(-p)


def event_limits(s, orders, curve, pure=None):
    """The largest probability the neighbour gives an event of probability s,
    over pairs meeting a Rényi curve (§22).

    Processing a run's output into "in the event or not" keeps every Rényi
    bound, in both directions, so (s, w) must satisfy them as two Bernoulli
    laws; the pairs that do form a convex set (each bound is jointly convex
    in the pair), symmetric in the two datasets. Bisection on log w gives
    the limit, rounded up.

    Parameters
    ----------
    s : ndarray of float in [0, 1]
        The probabilities under one dataset.
    orders : ndarray
        Orders λ > 1 at which the curve is known.
    curve : ndarray
        Upper bounds on ε(λ) at them.
    pure : float or None, default=None
        When the run is also pure ε-DP, that ε (its order ∞).

    Returns
    -------
    upper : ndarray
        The largest probability under the neighbour, Ψ(s).
    """
    s = np.asarray(s, dtype=np.float64)
    orders = np.asarray(orders, dtype=np.float64)
    curve = np.asarray(curve, dtype=np.float64)
    keep = np.isfinite(curve)
    orders, curve = orders[keep], curve[keep]
    inside = (s > 0.0) & (s < 1.0)
    # log w in [log s, 0]: the last w that fits, and the first that does not.
    high_ok = np.log(np.where(inside, s, 0.5))
    high_bad = np.zeros_like(s)
    probability = _logs(np.where(inside, s, 0.5))
    limit = ((orders - 1.0) * curve)[None, :]
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * (high_ok + high_bad)
        fits = _fits(_logs(np.exp(middle)), probability, orders, limit)
        high_ok = np.where(fits, middle, high_ok)
        high_bad = np.where(fits, high_bad, middle)
    upper = np.where(inside, np.exp(high_bad), s)
    if pure is not None:
        grow = math.exp(pure)
        upper = np.minimum(upper, np.minimum(grow * s, 1.0 - (1.0 - s) / grow))
    return np.where(inside, np.minimum(_up(upper), 1.0), s)


def selection_delta(law, s, upper, orders, curve, epsilon, *, pure=None):
    """An upper bound on δ(ε) of the best of K runs, K ~ ``law`` (§22).

    In the quantile s of an output under one dataset (the probability that a
    run beats it there), with g(s) = φ'(1 − s), φ the generating function of
    K, and Ψ(s) = ``upper`` the largest probability of the same event under
    the neighbour, for any non-increasing split c(s):

        δ(ε) ≤ ∫ g(s) dD_c(s) + ∫ κ_c↑(s) dΨ(s),

    D_c(s) the largest P(S) − e^c(s)·P'(S) over events S among the top s of
    the outputs (bounded order by order: P'(S) ≥ P(S)^(λ/(λ−1))·e^−ε(λ), so
    D ≤ h_λ(min(s, u*_λ)) with h_λ(u) = u − e^(c−ε(λ))·u^(λ/(λ−1)), whose
    maximum at u*_λ is CKS20 Prop. 12's δ), and κ_c↑ the running maximum
    from the right of (e^c(s)·g(s) − e^ε·g(Ψ(s)))⁺. The split
    c(s) = ε − θ·r̄(s), r̄ the running maximum of log g(s)/g(Ψ(s)), is tried
    for θ in a grid; both integrals are upper Stieltjes sums on the grid s.

    Parameters
    ----------
    law : StoppingLaw
        The law of K.
    s : ndarray
        The grid of quantiles, from 0 to 1, increasing.
    upper : ndarray
        The largest probability under the neighbour at s
        (:func:`event_limits`).
    orders, curve : ndarray
        One run's Rényi bounds ε(λ) at orders λ.
    epsilon : float
        The ε.
    pure : float or None, default=None
        When one run is also pure ε-DP, that ε.

    Returns
    -------
    delta : float
        The bound on δ(ε).
    """
    log_g = law.log_slope(s)
    log_g_tail = law.log_slope(upper)
    # Interval i = (s_{i−1}, s_i]: g(s) ≤ g(s_{i−1}), g(Ψ(s)) ≥ g(Ψ(s_i)).
    left, right_tail = log_g[:-1], log_g_tail[1:]
    # The rounding of the logs and of the differences below, bounded; the
    # ratio carries twice of it, so that at θ = 1 the gap of part 2 is ≤ 0
    # in exact arithmetic too.
    rounding = 4e-15 * (np.abs(left) + np.abs(right_tail) + abs(epsilon) + 1.0)
    ratio = np.maximum.accumulate(np.maximum(left - right_tail, 0.0) + 2.0 * rounding)
    best = math.inf
    for theta in _SPLITS:
        split = epsilon - theta * ratio
        within = _within(s[1:], split, orders, curve, pure)
        best = min(
            best,
            _bound(left, right_tail, upper, split, epsilon, within, rounding),
        )
    return float(_up(best))


def _within(s, split, orders, curve, pure):
    """D_c(s): the largest P(S) − e^c·P'(S) over events S of P(S) ≤ s."""
    finite = np.isfinite(curve)
    lam, values = orders[finite][None, :], curve[finite][None, :]
    c = split[:, None]
    # u*_λ = ((λ − 1)/λ · e^(ε(λ) − c))^(λ − 1), in logs.
    log_peak = (lam - 1.0) * (np.log1p(-1.0 / lam) + values - c)
    log_u = np.minimum(np.log(s)[:, None], log_peak)
    u = np.exp(log_u)
    value = u - np.exp(c - values + lam / (lam - 1.0) * log_u)
    bound = np.min(value, axis=1, initial=np.inf)
    if pure is not None:
        # P'(S) ≥ max(e^−ε·u, 1 − e^ε·(1 − u)): u − e^c·that is concave and
        # piecewise linear, so its largest value over u ≤ s is at the kink or
        # at s (beyond the kink it still rises when c < −ε).
        kink = math.exp(pure) / (1.0 + math.exp(pure))

        def concave(u):
            lower = np.maximum(u * math.exp(-pure), 1.0 - math.exp(pure) * (1.0 - u))
            return u - np.exp(split) * lower

        largest = np.maximum(concave(np.minimum(s, kink)), concave(s))
        bound = np.minimum(bound, largest)
    # A few roundings per value (the difference loses up to a few ulps of u
    # ≤ s): a relative margin and an absolute 1e−15·s.
    bound = np.maximum(bound, 0.0)
    return np.minimum(_up(bound) + 1e-15 * s, s)


def _quantiles(law, orders, curve, pure, floor):
    """The grid of s: 0, a log grid down to ``floor``, and points at which
    log g(s) and log g(Ψ(s)) step evenly, so that neither moves much within
    an interval (the bound takes each at the worse end of its interval)."""
    base = np.logspace(math.log10(floor), 0.0, _QUANTILE_POINTS // 3)
    fine = np.logspace(math.log10(floor), 0.0, _QUANTILE_POINTS)
    fine[-1] = base[-1] = 1.0
    levels = law.log_slope(fine)  # non-increasing
    targets = np.linspace(levels[-1], levels[0], _QUANTILE_POINTS // 3)
    even = np.interp(targets, levels[::-1], fine[::-1])
    # Where Ψ(s) lies only decides where points go: the closed-form bound of
    # each order (the complement's term dropped) is enough for that.
    finite = np.isfinite(curve)
    lam, values = orders[finite][None, :], curve[finite][None, :]
    with np.errstate(over="ignore"):
        tails = np.min(
            np.exp((lam - 1.0) / lam * (np.log(fine)[:, None] + values)), axis=1
        )
    tails = np.maximum.accumulate(np.minimum(tails, 1.0))
    even_tail = np.interp(law.log_slope(even), levels[::-1], fine[::-1])
    before = np.interp(even_tail, tails, fine)
    grid = np.unique(np.concatenate([[0.0], base, even, before]))
    return grid[(grid == 0.0) | (grid >= floor)]


def _bound(log_g_left, log_g_tail, upper, split, epsilon, within, rounding):
    """The two sums of :func:`selection_delta` for one split c_i, rounded up."""
    # Part 1: ∫ g dH, H(s_i) ≤ D(s_i, c_i), H non-decreasing: by Abel's
    # summation the sum with the right-to-left running minimum of D is larger.
    within = np.minimum.accumulate(within[::-1])[::-1]
    steps = np.diff(np.concatenate([[0.0], within]))
    first = float(np.sum(_up(np.exp(log_g_left)) * steps))
    # Part 2: ∫ κ↑ dG with G ≤ Ψ: κ↑ non-increasing, so by Abel's summation
    # Σ Ψ(s_i)·(κ↑_i − κ↑_{i+1}) is larger. The gap e^c·g(s) − e^ε·g(Ψ) is
    # computed as e^(ε + log g(Ψ))·expm1(x) with its exponent x rounded up
    # by its rounding error: e^ε may be large, and x near 0.
    exponent = (log_g_left - log_g_tail) + (split - epsilon) + rounding
    # In logs: e^(ε + log g(Ψ)) may underflow while expm1(x) overflows.
    positive = exponent > 0.0
    safe = np.where(positive, exponent, 1.0)
    log_gap = epsilon + log_g_tail + safe + np.log(-np.expm1(-safe))
    with np.errstate(over="ignore"):
        gap = np.where(positive, _up(np.exp(log_gap)), 0.0)
    envelope = np.maximum.accumulate(gap[::-1])[::-1]
    drops = envelope - np.append(envelope[1:], 0.0)
    second = float(np.sum(upper[1:] * drops))
    # The sums themselves: a relative margin on their absolute terms.
    return (first + second) * (1.0 + 1e-12)


@dataclass(frozen=True)
class SelectionProfile:
    """The candidates of a selection and its law of runs (§22).

    What the privacy-profile bound needs: one run's candidates, summarised,
    and the law of K. :func:`~skprivcov.model_selection.selection_cost`
    builds it; :meth:`PrivacyCost.to_approx_dp
    <skprivcov.PrivacyCost.to_approx_dp>` uses it.

    Parameters
    ----------
    rho : float or None
        The largest ρ of the zCDP candidates.
    epsilon : float or None
        The largest ε of the pure candidates.
    curve : tuple of float or None
        The order-by-order largest Rényi curve of the other candidates.
    law : StoppingLaw
        The law of the number of runs.

    See Also
    --------
    selection_delta : The bound on δ(ε).

    Examples
    --------
    >>> from skprivcov.privacy import SelectionProfile, StoppingLaw
    >>> law = StoppingLaw("negative_binomial", 1.0, 1 / 30)
    >>> profile = SelectionProfile(rho=0.01, epsilon=None, curve=None, law=law)
    >>> round(profile.to_approx_dp(1e-6, ceiling=1.44), 2)
    1.13
    """

    rho: float | None
    epsilon: float | None
    curve: tuple | None
    law: StoppingLaw

    def __post_init__(self):
        if not isinstance(self.law, StoppingLaw):
            raise ValueError("law must be a StoppingLaw.")
        for name in ("rho", "epsilon"):
            value = getattr(self, name)
            if value is not None:
                value = float(value)
                if not (math.isfinite(value) and value >= 0.0):
                    raise ValueError(f"{name} must be a finite number >= 0 or None.")
                object.__setattr__(self, name, value)
        if self.curve is not None:
            curve = tuple(float(value) for value in self.curve)
            if len(curve) != len(RENYI_ORDERS) or not all(
                math.isfinite(value) and value >= 0.0 for value in curve
            ):
                raise ValueError(
                    f"curve must hold {len(RENYI_ORDERS)} finite values >= 0."
                )
            object.__setattr__(self, "curve", curve)
        if self.rho is None and self.epsilon is None and self.curve is None:
            raise ValueError("A selection has at least one kind of candidate.")

    def describes(self, notion, parameter, curve):
        """Whether a cost is this selection's Rényi route (§22).

        To a relative 1e−9: only then may the profile bound be reported for
        the cost.

        Parameters
        ----------
        notion : {"pure", "renyi", "zcdp"}
            The cost's notion.
        parameter : float or None
            Its ε for a pure cost.
        curve : sequence of float or None
            Its curve for a Rényi cost.

        Returns
        -------
        describes : bool
            True if the cost is what these candidates and law cost.
        """
        route = self.renyi_route()
        if route[0] != notion:
            return False
        own = [parameter] if notion == "pure" else curve
        expected = [route[1]] if notion == "pure" else route[1]
        return bool(np.allclose(own, expected, rtol=1e-9, atol=0.0))

    def renyi_route(self):
        """What the selection costs by the Rényi route (§14; §22 for binomial).

        Computed from the candidates and the law alone.

        Returns
        -------
        route : tuple
            ``("pure", ε)`` when every candidate is pure (or free), else
            ``("renyi", curve, envelope)``: the curve at ``RENYI_ORDERS`` and
            the closed form (a, b, c) when there is one (zCDP candidates and
            the negative binomial), else None.
        """
        return _renyi_route(self)

    def to_approx_dp(self, delta, ceiling):
        """The smallest ε ≤ ``ceiling`` at which the bound on δ(ε) is ≤ δ.

        Found to a relative 1e−6, from above.

        Parameters
        ----------
        delta : float in (0, 1)
            The δ.
        ceiling : float > 0
            The ε of another valid route (the Rényi one): the profile is
            only worth reporting below it, and its tangents are laid out up
            to it.

        Returns
        -------
        epsilon : float
            The ε; +inf when the bound does not reach δ by ``ceiling``.
        """
        return _selection_epsilon(self, float(delta), float(ceiling))


@lru_cache(maxsize=256)
def _selection_epsilon(profile, delta, ceiling):
    """Bisection on ε of :func:`selection_delta`: the bound is non-increasing
    in ε (a larger ε keeps every split valid and lowers both sums), and the
    returned ε is one at which the computed bound is ≤ δ."""
    if not (math.isfinite(ceiling) and ceiling > 0.0):
        return math.inf
    curve = run_curve(profile.rho, profile.epsilon, profile.curve, _ORDERS)
    pure = profile.epsilon if profile.rho is None and profile.curve is None else None
    # Below the floor, the first interval [0, s_1] enters whole: at most
    # g(0)·s_1 in part 1 and Ψ(s_1)·e^ε·g(0) in part 2, negligible next to δ.
    floor = min(1e-30, 1e-20 * delta)
    s = _quantiles(profile.law, _ORDERS, curve, pure, floor)
    upper = event_limits(s, _ORDERS, curve, pure)

    def holds(epsilon):
        bound = selection_delta(
            profile.law, s, upper, _ORDERS, curve, epsilon, pure=pure
        )
        return bound <= delta

    # Bisection keeps an ε at which the bound was computed ≤ δ: only such an
    # ε is returned.
    if not holds(ceiling):
        return math.inf
    low, high = 0.0, ceiling
    while high - low > 1e-6 * high:
        middle = 0.5 * (low + high)
        if holds(middle):
            high = middle
        else:
            low = middle
    return high


def _renyi_route(profile):
    """The Rényi route of a selection (§14; the binomial's, §22)."""
    from skprivcov.privacy._renyi import (
        pure_curve,
        repeat_and_select_curve,
        selection_inner_minimum,
        zcdp_curve,
    )

    law, orders = profile.law, np.asarray(RENYI_ORDERS)
    rho, epsilon = profile.rho or 0.0, profile.epsilon or 0.0
    binomial = law.kind == "binomial"
    if profile.curve is None and rho == 0.0:
        # Pure (2 + η)ε (Liu–Talwar for η = 1); binomial: m runs composed, or
        # one run and the slope of φ' (§22).
        if binomial:
            return "pure", _binomial_pure(epsilon, law)
        return "pure", (2.0 + law.first) * epsilon
    envelope = None
    if profile.curve is None and epsilon == 0.0:
        largest = rho * orders
        if not binomial:
            inner = selection_inner_minimum(None, None, law.second, rho=rho)
            envelope = _rounded_up(
                (rho, (1.0 + law.first) * inner, math.log(law.expected()))
            )
    else:
        rho = None
        parts = [zcdp_curve(profile.rho)] if profile.rho is not None else []
        if profile.epsilon is not None:
            parts.append(pure_curve(profile.epsilon))
        if profile.curve is not None:
            parts.append(np.asarray(profile.curve))
        largest = np.max(parts, axis=0)
    if binomial:
        curve = _binomial_curve(largest, law)
    else:
        curve = repeat_and_select_curve(
            orders, largest, eta=law.first, gamma=law.second, rho=rho
        )
    return "renyi", tuple(float(value) for value in curve), envelope


def _binomial_pure(epsilon, law):
    """The pure ε of the best of K ~ Binomial(m, p) | K ≥ 1 runs of pure
    ε-DP candidates (§22): the smaller of m runs composed, mε (the best of
    the first K of m runs is their post-processing), and
    ε + (m − 1)·log(1/(1 − p)).

    The second: with ties broken by an independent uniform, the best output
    has density p(y)·φ'(F(y)) at an output y, and
    φ'(z) = mp(1 − p + pz)^(m−1)/(1 − (1 − p)^m) varies over z in [0, 1]
    by the factor φ'(1)/φ'(0) = (1 − p)^−(m−1) at most, so the loss at any
    output is at most ε + (m − 1)·log(1/(1 − p)). (log 2 only for p = 1/2:
    a p above 1/2 makes φ' steeper.) Both rounded up.
    """
    if epsilon == 0.0:
        return 0.0  # free candidates: a free selection
    trials, success = law.first, law.second
    composed = trials * epsilon
    sloped = epsilon + (trials - 1.0) * -math.log1p(-success)
    return _rounded_up((min(composed, sloped),))[0]


def _binomial_curve(largest, law):
    """The Rényi curve of the best of K ~ Binomial(m, p) | K ≥ 1 runs (§22):
    the smaller of m runs composed (the best of the first K of m runs is their
    post-processing) and ε(λ) + (m − 1)·log(1/(1 − p)) + log E[K]/(λ − 1)
    (the density of the best is φ'(F) times one run's, and φ' varies by at
    most (1 − p)^−(m − 1))."""
    orders = np.asarray(RENYI_ORDERS)
    trials, success = law.first, law.second
    composed = trials * largest
    pointwise = (
        largest
        + (trials - 1.0) * -math.log1p(-success)
        + math.log(law.expected()) / (orders - 1.0)
    )
    curve = np.minimum(composed, pointwise)
    return np.nextafter(curve * (1.0 + 1e-12), np.inf)


def _rounded_up(values):
    return tuple(math.nextafter(float(v) * (1.0 + 1e-12), math.inf) for v in values)
