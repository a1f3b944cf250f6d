"""AdaptiveCov (DLY22 Algorithm 2): the tail-sensitive covariance mechanism.

It runs in two data passes. :func:`adaptive_plan` reads only the histogram of
the row-norm exponents and spends the budget of the private radius (PrivRadius),
the private trace and the sparse vector search over clipping thresholds
τ_k = r̃·2^{−k}; it returns the threshold τ̃ and the choice between the clipped
Gaussian (or Laplace) and the clipped separate mechanism. The second pass
computes the second moment of the rows clipped at τ̃, and
:func:`adaptive_release` spends the rest on it. :func:`adaptive_covariance`
runs the whole, given the two passes as functions. docs/algorithms.rst §2,
§3.3–3.6, §3.8.
"""

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from skprivcov._data import CONSTANT_WEIGHT, FEATURE_WEIGHT, UNIT_BITS
from skprivcov.mechanisms._concentration import (
    eta,
    eta_laplace,
    nu,
    nu_laplace,
    omega,
    omega_laplace,
)
from skprivcov.mechanisms._covariance import noisy_covariance, separate_covariance
from skprivcov.mechanisms._projections import project_psd_trace_ball
from skprivcov.mechanisms._radius import private_radius_exponent
from skprivcov.mechanisms._sensitivity import second_moment_l1_sensitivity
from skprivcov.mechanisms._splits import split_budget
from skprivcov.mechanisms._svt import above_threshold
from skprivcov.mechanisms._trace import private_trace_upper_bound
from skprivcov.privacy import BudgetPart, PrivacyCost, pure_to_zcdp

__all__ = [
    "AdaptivePlan",
    "adaptive_covariance",
    "adaptive_plan",
    "adaptive_release",
    "radius_step_runs",
    "relative_trace",
    "threshold_bias",
]

# Data-independent caps (§2.3, §3.4): the smallest candidate radius is
# 2^{−min(2dn, 256)} and at most 64 thresholds are searched.
RADIUS_LEVELS_CAP = 256
MAX_THRESHOLDS = 64
# A noise proxy this large already puts its query far below any threshold.
_LARGEST_PROXY = 1e300
# §3.6a: PrivRadius leaves up to 3α rows above r̃; it runs only when that is at
# most this share of n (a rule on public values, measured in
# benchmarks/bench_adaptive.py).
RADIUS_CLIPPED_SHARE = 0.01
# §3.6a: the eigenvalue shares among which the separate step's is chosen.
EIGENVALUE_SHARES = np.round(np.arange(0.05, 0.951, 0.01), 2)


def _pure_part(part):
    """The ε-DP step that a part of a budget pays for.

    For a zCDP part ρ', ε-DP costs ε²/2 (BS16 Prop. 1.4): ε = √(2ρ'), rounded
    down until ε²/2 ≤ ρ' holds in floating point.
    """
    if part.notion == "pure":
        return part
    rho = part.rho
    epsilon = math.sqrt(2.0 * rho)
    # Checked with pure_to_zcdp, the conversion that composition applies to a
    # pure part, so the ε-DP step never costs more than its part once composed.
    while pure_to_zcdp(epsilon) > rho:
        epsilon = math.nextafter(epsilon, 0.0)
    return PrivacyCost.pure(epsilon)


def radius_step_runs(n_samples, n_features, budget, beta):
    """Whether AdaptiveCov's radius step can help: a public rule (§3.6a).

    PrivRadius at ε_r (its part of ``budget``) may leave up to 3α rows above
    the radius it returns, α = (6/ε_r)·log(2(L+1)/(β/8)) (§2.2). When that is
    more than ``RADIUS_CLIPPED_SHARE`` of n (small n or budget), the radius
    collapses towards 2^{−L} and the release towards zero; the step is then
    skipped and its part goes to the final mechanism. A function of n, d, the
    budget and β only, so the decision costs nothing.

    Parameters
    ----------
    n_samples : int
        The number of rows n.
    n_features : int
        The dimension d.
    budget : PrivacyCost
        The estimator's whole budget.
    beta : float
        The failure probability of the utility guarantees.

    Returns
    -------
    runs : bool
        Whether the radius step runs.
    """
    parts = dict(
        split_budget("adaptive", budget, notion=budget.notion, private_radius=True)
    )
    epsilon = _pure_part(parts["radius"]).parameter
    if epsilon == 0:
        return False
    levels = min(2 * n_features * n_samples, RADIUS_LEVELS_CAP)
    alpha = (6.0 / epsilon) * math.log(2.0 * (levels + 1) / (beta / 8))
    return 3.0 * alpha <= RADIUS_CLIPPED_SHARE * n_samples


@dataclass(frozen=True)
class _NoiseProxies:
    """Worst-case error bounds of the two final mechanisms (§3.4, §3.8).

    Utility only: they depend on public n, d, the budget and the private t̂r.
    """

    n_samples: int
    n_features: int
    budget: PrivacyCost
    beta: float
    separate_factor: float
    eigenvalue_share: float | None

    def simple(self, tau):
        """GaussNoise (zCDP) or LapNoise (pure) at threshold τ."""
        n, d, b = self.n_samples, self.n_features, self.beta
        if self.budget.notion == "zcdp":
            return tau**2 * omega(d, b) / (math.sqrt(self.budget.rho) * n)
        # §3.8 with √2·d replaced by our tighter ℓ1 sensitivity Δ₁·n.
        l1 = second_moment_l1_sensitivity(d, 1)
        return tau**2 * l1 * omega_laplace(d, b) / (self.budget.parameter * n)

    def separate(self, trace, tau):
        """SeparateNoise (zCDP) or SepLapNoise (pure) at threshold τ.

        The bounds of §3.4 and §3.8 are for the paper's split, v = 1/2. With
        eigenvalue share v, the eigenvector term grows with the square root of
        the noisy matrix's noise scale, which is multiplied by
        (½/(1 − v))^{1/2} (Gaussian) or ½/(1 − v) (Laplace); the eigenvalue term
        grows with the eigenvalue noise scale, multiplied by (½/v)^{1/2} or ½/v.
        With ``eigenvalue_share`` None, each τ gets the v that minimises the
        bound (:meth:`share`).
        """
        return self._separate(trace, tau, self.share(trace, tau))

    def share(self, trace, tau):
        """The eigenvalue share v: the fixed one, or else the v of
        ``EIGENVALUE_SHARES`` that minimises the separate bound at (t̂r, τ)
        (§3.6a; post-processing of t̂r and public values)."""
        if self.eigenvalue_share is not None:
            return np.full(np.shape(tau), self.eigenvalue_share)
        shares = EIGENVALUE_SHARES.reshape((-1,) + (1,) * np.ndim(tau))
        bounds = self._separate(trace, np.asarray(tau, dtype=float), shares)
        return EIGENVALUE_SHARES[np.argmin(bounds, axis=0)]

    def _separate(self, trace, tau, share):
        n, d, b, s = self.n_samples, self.n_features, self.beta, self.separate_factor
        vectors = 0.5 / (1.0 - share)
        values = 0.5 / share
        if self.budget.notion == "zcdp":
            rho = self.budget.rho
            first = (
                2**1.25 * math.sqrt(trace * nu(d, b / 2)) / (rho**0.25 * math.sqrt(n))
            ) * vectors**0.25
            second = np.sqrt(2.0 * values) * eta(d, b / 2) / (math.sqrt(rho) * n)
        else:
            epsilon = self.budget.parameter
            l1 = second_moment_l1_sensitivity(d, 1)
            first = np.sqrt(
                8.0 * vectors * l1 * trace * nu_laplace(d, b / 2) / (epsilon * n)
            )
            second = 4.0 * values * eta_laplace(d, b / 2) / (epsilon * n)
        return s * tau * first + tau**2 * second


def threshold_bias(exponents, counts, radius_exponent, n_thresholds):
    """n·Bias^(τ_k)/r̃² for τ_k = r̃·2^{−k}, k = 0..K−1 (§3.4, DLY22 (7)), exactly.

    Rows are clipped at r̃ = 2^{e_r} and bucketed relative to it: bucket m ≥ 1
    holds the norms in (r̃2^{−m}, r̃2^{−m+1}], i.e. m = 1 + e_r − ⌈log₂‖z‖⌉ (rows
    above r̃ are clipped into bucket 1). With c_m the bucket counts and
    u_m = r̃²·4^{1−m} the squared upper edges,
    n·Bias_k/r̃² = Σ_{m≤k} c_m (4^{1−m} − 4^{−k}). One row adds a term in
    [0, 1), so replacing a row moves every query by less than 1: dividing by r̃²
    is what makes the sensitivity 1 (§3.4).

    The values are exact fractions (integer counts times powers of 4): summed
    in floating point they moved by up to 1 + 4e−15 between neighbours, above
    the sensitivity the threshold search is calibrated for (§13.6).

    Parameters
    ----------
    exponents : ndarray of int
        Distinct ⌈log₂‖z_i‖⌉ of the non-zero rows.
    counts : ndarray of int
        Rows with each exponent.
    radius_exponent : int
        e_r, with r̃ = 2^{e_r}.
    n_thresholds : int
        K, the number of thresholds searched.

    Returns
    -------
    bias : list of Fraction, of length n_thresholds
    """
    inside = exponents <= radius_exponent
    bucket = np.where(inside, 1 + radius_exponent - exponents, 1)
    bucket_counts = np.zeros(n_thresholds + 1, dtype=np.int64)
    in_range = bucket <= n_thresholds
    np.add.at(bucket_counts, bucket[in_range], np.asarray(counts)[in_range])
    # Bias_0 = 0 (nothing clipped); Bias_k = S_k − T_k·4^{−k} with
    # S_k = Σ_{m≤k} c_m 4^{1−m} and T_k = Σ_{m≤k} c_m.
    bias, upper_edges, total = [Fraction(0)], Fraction(0), 0
    for k in range(1, n_thresholds):
        count = int(bucket_counts[k])
        upper_edges += Fraction(count, 4 ** (k - 1))
        total += count
        bias.append(upper_edges - Fraction(total, 4**k))
    return bias


def relative_trace(exponents, counts, squared_units, radius_exponent, n_samples):
    """tr Σ of the rows clipped at r̃ = 2^{e_r}, divided by r̃², exactly.

    A row inside (⌈log₂‖z‖⌉ = e ≤ e_r) adds ‖z‖²/r̃² = (‖z‖·2^{−e})²·4^{e−e_r},
    its square floored to a multiple of 2^−52 in the profile (``_stats``); a
    row above adds 1. Each row adds a value in [0, 1] that depends on it alone,
    so the sensitivity is 1/n, in exact arithmetic and here (§13.6).
    """
    inside = exponents <= radius_exponent
    total = Fraction(int(np.asarray(counts)[~inside].sum()))
    for exponent, units in zip(
        exponents[inside].tolist(), np.asarray(squared_units)[inside], strict=True
    ):
        total += Fraction(int(units), 4 ** (radius_exponent - exponent) << UNIT_BITS)
    return total / n_samples


@dataclass(frozen=True)
class AdaptivePlan:
    """What the first pass decided (all of it differentially private).

    Made by :func:`adaptive_plan` from the norm profile and read by the second pass
    (:func:`adaptive_release`); every field is an output of a stated private step, or a
    public rule of them.

    Parameters
    ----------
    threshold_exponent : int
        The exponent e of τ̃ = 2^e, the clipping threshold at unit scale.
    radius_exponent : int
        The exponent e of r̃ = 2^e, the private radius (0 when skipped).
    trace_bound : float
        The private upper bound t̂r on tr Σ of the rows clipped at r̃.
    separate : bool
        Whether the clipped separate mechanism is used.
    final_budget : PrivacyCost
        The budget left for the final mechanism.
    eigenvalue_share : float
        The separate mechanism's eigenvalue share of it.

    See Also
    --------
    adaptive_plan : Makes the plan.
    adaptive_release : Releases by the plan.

    Examples
    --------
    >>> from skprivcov.mechanisms import AdaptivePlan
    >>> from skprivcov.privacy import PrivacyCost
    >>> plan = AdaptivePlan(-2, 0, 0.3, False, PrivacyCost.zcdp(0.8), 0.5)
    >>> 2.0**plan.threshold_exponent
    0.25
    """

    threshold_exponent: int
    radius_exponent: int
    trace_bound: float
    separate: bool
    final_budget: PrivacyCost
    eigenvalue_share: float


def adaptive_plan(
    profile,
    n_features,
    budget,
    rng,
    *,
    beta,
    separate_factor,
    private_radius,
    eigenvalue_share=0.5,
):
    """Take steps 1–7 (the decisions) of AdaptiveCov on the norm profile.

    Parameters
    ----------
    profile : NormProfile
        Exponent histogram of the unit-ball row norms (see ``_stats``).
    n_features : int
        Dimension d of the matrix to release.
    budget : PrivacyCost
        The whole budget of the estimator, zCDP or pure.
    rng : numpy.random.Generator
        The only source of noise.
    beta : float
        Failure probability of the utility guarantees.
    separate_factor : float
        The factor s_h of §3.4, a utility-only factor on the separate-noise bound.
    private_radius : bool
        Run PrivRadius. Else r̃ = 1, the public bound, and the budget is split
        ρ/16 trace, ρ/16 search, 7ρ/8 final under zCDP (§3.6a; the authors'
        code: ρ/8, ρ/8, 3ρ/4) and ε/8, ε/8, 3ε/4 under pure DP (§3.8).
    eigenvalue_share : float in (0, 1) or None, default=0.5
        The separate mechanism's split (see ``separate_covariance``), used in
        its error bound and in the release. None: chosen from the private
        trace bound, public values and the threshold, to minimise the bound
        (§3.6a).

    Returns
    -------
    plan : AdaptivePlan
        The private decisions (threshold, radius, mechanism).
    parts : tuple of BudgetPart
        The parts spent here: radius (if run), trace bound, threshold search.
    """
    n = profile.n_samples
    parts = dict(
        split_budget(
            "adaptive", budget, notion=budget.notion, private_radius=private_radius
        )
    )
    present = profile.counts > 0
    exponents = profile.exponents[present]
    counts = profile.counts[present]

    # Step 1: r̃ = 2^{e_r} by PrivRadius at ε = √ρ/2 (ρ/8) or ε/8, β/8 (§2.2).
    radius_exponent = 0
    if private_radius:
        levels = min(2 * n_features * n, RADIUS_LEVELS_CAP)
        radius_exponent, _ = private_radius_exponent(
            exponents,
            counts,
            _pure_part(parts["radius"]).parameter,
            beta / 8,
            levels,
            rng,
        )
    radius_sq = 4.0**radius_exponent

    # Steps 2–4: trace of Clip(z, r̃)/r̃², exactly; then its private bound.
    trace = relative_trace(
        exponents, counts, profile.squared_units[present], radius_exponent, n
    )
    relative_bound, _ = private_trace_upper_bound(
        trace, n, parts["trace bound"], beta / 8, rng
    )
    trace_bound = relative_bound * radius_sq

    # Step 5: AboveThreshold over τ_k = r̃·2^{−k}, k < K, queries divided by r̃².
    final_budget = parts["final"]
    proxies = _NoiseProxies(
        n, n_features, final_budget, beta / 2, separate_factor, eigenvalue_share
    )
    n_thresholds = int(np.clip(radius_exponent + n_features * n + 1, 1, MAX_THRESHOLDS))
    bias = threshold_bias(exponents, counts, radius_exponent, n_thresholds)
    taus = 2.0 ** (radius_exponent - np.arange(n_thresholds))
    noise = np.minimum(proxies.simple(taus), proxies.separate(trace_bound, taus))
    search_budget = _pure_part(parts["threshold search"])
    # q_k = bias_k − n·Noise_k/r̃²: the data enter only the exact bias; the
    # noise proxies depend on public values and the private t̂r.
    proxies_term = np.minimum(n * noise / radius_sq, _LARGEST_PROXY)
    queries = [b - Fraction(float(p)) for b, p in zip(bias, proxies_term, strict=True)]
    hit = above_threshold(queries, 0.0, search_budget.parameter, rng)

    # Step 6: τ̃ = min(2τ_stop, r̃), or the last threshold if none was hit.
    if hit is None:
        threshold_exponent = radius_exponent - (n_thresholds - 1)
    else:
        threshold_exponent = radius_exponent - max(hit - 1, 0)
    # Step 7's choice, at τ̃.
    tau = 2.0**threshold_exponent
    separate = proxies.separate(trace_bound, tau) < proxies.simple(tau)
    plan = AdaptivePlan(
        threshold_exponent,
        radius_exponent,
        trace_bound,
        bool(separate),
        final_budget,
        float(proxies.share(trace_bound, tau)),
    )
    # The final part is spent by :func:`adaptive_release`.
    spent = tuple(
        BudgetPart(step, cost) for step, cost in parts.items() if step != "final"
    )
    return plan, spent


def adaptive_release(second_moment, n_samples, plan, rng, *, trace_bound):
    """Run steps 7–8: the clipped mechanism on the rows clipped at τ̃, then projected.

    ``second_moment`` is that of Clip(z, τ̃)/τ̃ (unit ball), so GaussCov,
    LapCov and SeparateCov apply unchanged (ClipGaussCov = τ̃²·GaussCov(·/τ̃),
    §3.3); the caller multiplies by τ̃². Post-processing projects onto
    {PSD, tr ≤ ``trace_bound``}, which contains the target when the private
    trace bound holds. Returns ``(release, parts)`` with the one part
    ``"final"``: how the separate mechanism divides it is not published, since
    which mechanism runs is a private choice.

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        The second moment of Clip(z, τ̃)/τ̃.
    n_samples : int
        The number of rows n.
    plan : AdaptivePlan
        The decisions of :func:`adaptive_plan`.
    rng : numpy.random.Generator
        The only source of noise.
    trace_bound : float
        The bound of the projection, at the scale of τ̃.

    Returns
    -------
    release : ndarray of shape (d, d)
        The release at the scale of τ̃.
    parts : tuple of BudgetPart
        The one part ``"final"``.
    """
    parts = (BudgetPart("final", plan.final_budget),)
    if plan.separate:
        release, _ = separate_covariance(
            second_moment,
            n_samples,
            plan.final_budget,
            rng,
            trace_bound=trace_bound,
            eigenvalue_share=plan.eigenvalue_share,
        )
        return release, parts
    noisy, _ = noisy_covariance(second_moment, n_samples, plan.final_budget, rng)
    return project_psd_trace_ball(noisy, trace_bound), parts


def adaptive_covariance(
    profile,
    second_moment_at,
    n_features,
    budget,
    rng,
    *,
    augmented,
    beta,
    separate_factor,
    private_radius,
    eigenvalue_share=0.5,
):
    """AdaptiveCov from its two data passes (docs/algorithms.rst §3.5).

    Parameters
    ----------
    profile : NormProfile
        The first pass: the exponent histogram of the unit-ball row norms.
    second_moment_at : callable
        The second pass: ``second_moment_at(e)`` is the second moment (of the
        augmented rows if ``augmented``) of the rows clipped at 2^e and scaled
        into the unit ball, i.e. x / max(‖x‖, 2^e) at unit scale (§3.3).
    n_features : int
        Dimension of the released matrix.
    budget : PrivacyCost
        The whole budget of the estimator, zCDP or pure.
    rng : numpy.random.Generator
        The only source of noise.
    augmented : bool
        Whether the rows carry the constant column of §8.2.
    beta : float
        As in :func:`adaptive_plan`.
    separate_factor : float
        As in :func:`adaptive_plan`.
    private_radius : bool
        As in :func:`adaptive_plan`.
    eigenvalue_share : float in (0, 1) or None, default=0.5
        As in :func:`adaptive_plan`.

    Returns
    -------
    release : ndarray of shape (n_features, n_features)
        At the scale of τ̃: multiply by (2^e)² for the unit scale, e the plan's
        ``threshold_exponent``.
    parts : tuple of BudgetPart
        The parts of the budget spent.
    plan : AdaptivePlan
        The private decisions (threshold, radius, mechanism).
    """
    plan, plan_parts = adaptive_plan(
        profile,
        n_features,
        budget,
        rng,
        beta=beta,
        separate_factor=separate_factor,
        private_radius=private_radius,
        eigenvalue_share=eigenvalue_share,
    )
    second_moment = second_moment_at(plan.threshold_exponent)
    # t̂r bounds tr Σ of the rows clipped at r̃ ≥ τ̃, at unit scale; at the
    # scale of τ̃ the trace bound is t̂r/τ̃², and never above 1. The augmented
    # rows add the constant's c_0² to c_x² times it (§8.2).
    trace_bound = min(1.0, plan.trace_bound * 4.0**-plan.threshold_exponent)
    if augmented:
        trace_bound = FEATURE_WEIGHT**2 * trace_bound + CONSTANT_WEIGHT**2
    release, final_parts = adaptive_release(
        second_moment, profile.n_samples, plan, rng, trace_bound=trace_bound
    )
    return release, plan_parts + final_parts, plan
