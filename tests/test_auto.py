"""AutoCovariance: the choice of mechanism (docs/algorithms.rst §3.9)."""

import math

import numpy as np
import pytest
from _papers import PAPERS as _PAPERS  # a public bound 1, the second moment

from skprivcov import AdaptiveCovariance, AutoCovariance
from skprivcov.covariance._auto import (
    ADAPTIVE_BELOW,
    NOTHING_ABOVE,
    choose_mechanism,
)
from skprivcov.mechanisms import private_trace_upper_bound
from skprivcov.privacy import MCMC_NOISE, PrivacyCost, compose_parts


def _gaussian_noise_level(n, d, rho):
    return 2 * math.sqrt(d) / (math.sqrt(rho) * n)  # 2√d·σ, σ = 1/(√ρ n) (§3.1)


@pytest.mark.parametrize("trace", [0.01, 0.1, 0.3, 1.0])
@pytest.mark.parametrize("n", [178, 4000, 50000])
def test_the_rule_under_zcdp(trace, n):
    d, rho = 20, 0.1
    expected = (
        "zero"
        if _gaussian_noise_level(n, d, rho) > NOTHING_ABOVE["zcdp"] * trace
        else "adaptive"
    )
    assert choose_mechanism(n, d, PrivacyCost.zcdp(rho), trace) == expected


def test_the_rule_under_pure_dp():
    """Nothing when (π/2)·(2/(nε))·d, the nuclear noise level of §6.4, is
    above 0.66 × the trace; else AdaptiveCov below trace 0.15, the nuclear
    mechanism above."""
    budget = PrivacyCost.pure(4.0)
    assert choose_mechanism(100_000, 10, budget, 0.5) == "nuclear-laplace"
    assert choose_mechanism(100_000, 10, budget, ADAPTIVE_BELOW / 2) == "adaptive"
    n, d, epsilon = 4000, 200, 0.5
    level = math.pi / 2 * (2 / (n * epsilon)) * d  # 0.314
    pure = PrivacyCost.pure(epsilon)
    assert choose_mechanism(n, d, pure, 1.01 * level / 0.66) != "zero"
    assert choose_mechanism(n, d, pure, 0.99 * level / 0.66) == "zero"


def test_nothing_is_released_when_the_noise_would_dominate():
    """Few rows, tiny budget: zeros, and the unspent rest is still charged."""
    X = np.random.default_rng(0).uniform(-0.3, 0.3, size=(50, 4))
    est = AutoCovariance(rho=1e-4, **_PAPERS, random_state=0).fit(X)
    assert est.mechanism_ == "zero"
    np.testing.assert_array_equal(est.covariance_, np.zeros((4, 4)))
    assert [p.step for p in est.privacy_parts_] == [
        "trace estimate",
        "unspent (zero released)",
    ]
    assert compose_parts(est.privacy_parts_).rho == pytest.approx(1e-4)


def test_the_chosen_mechanism_runs_with_the_rest_of_the_budget():
    """Under zCDP on data well above the noise, AdaptiveCov at 7/8 of ρ and
    the shrinkage at 1/16 (§3.9a): its parts are AdaptiveCov's own at that
    budget, between the trace estimate and the shrinkage."""
    X = np.random.default_rng(1).uniform(-0.5, 0.5, size=(3000, 4))
    common = {"norm_bound": 1.0, "assume_centered": True, "random_state": 3}
    auto = AutoCovariance(rho=1.0, **common).fit(X)
    assert auto.mechanism_ == "adaptive"
    parts = auto.privacy_parts_
    assert parts[0].step == "trace estimate"
    assert parts[0].cost.rho == pytest.approx(1 / 16)
    assert parts[-1].step == "shrinkage"
    assert parts[-1].cost.rho == pytest.approx(1 / 16)
    assert compose_parts(parts).rho == pytest.approx(1.0)
    adaptive = AdaptiveCovariance(rho=7 / 8, **common).fit(X)
    # Different generator positions: compare in law, via the parts and error.
    assert [(p.step, p.cost) for p in parts[1:-1]] == [
        (p.step, p.cost) for p in adaptive.privacy_parts_
    ]
    truth = X.T @ X / len(X)
    assert np.linalg.norm(auto.covariance_ - truth) < 0.5 * np.linalg.norm(truth)


def test_the_trace_estimate_is_in_units_of_the_data():
    X = 3.0 * np.random.default_rng(2).uniform(-0.5, 0.5, size=(20000, 3))
    est = AutoCovariance(rho=10.0, norm_bound=3.0, random_state=0).fit(X)
    assert est.trace_estimate_ == pytest.approx(np.mean(np.sum(X**2, axis=1)), rel=0.05)


def test_a_pure_budget_carries_the_nuclear_caveat():
    assert MCMC_NOISE in AutoCovariance(epsilon=1.0).fit_cost().caveats
    assert MCMC_NOISE not in AutoCovariance(rho=1.0).fit_cost().caveats


def test_a_noisy_trace_estimate_leans_towards_releasing_nothing():
    """The choice of nothing compares the noise level with the estimate minus
    its public deviation (§3.9): the same estimate, made noisier, tips it."""
    n, d, budget = 1000, 10, PrivacyCost.zcdp(0.5)
    level = _gaussian_noise_level(n, d, 0.5)
    trace = 0.6 * level  # κ·0.6ℓ = 1.2ℓ > ℓ: a mechanism if the estimate is exact
    assert choose_mechanism(n, d, budget, trace) == "adaptive"
    assert choose_mechanism(n, d, budget, trace, trace_deviation=0.2 * level) == "zero"


def test_the_deviation_of_the_trace_estimate_is_the_mechanisms():
    from skprivcov.covariance._auto import estimate_deviation

    # Gaussian: σ = (1/n)/√(2ρ); Laplace: √2·(1/n)/ε (§3.5, §3.8).
    assert estimate_deviation(200, PrivacyCost.zcdp(0.02)) == pytest.approx(
        1 / 200 / math.sqrt(0.04)
    )
    assert estimate_deviation(200, PrivacyCost.pure(0.5)) == pytest.approx(
        math.sqrt(2) / 200 / 0.5
    )
    # The unbiased estimate (β = None) has that spread and no shift; 20000
    # draws: 4.5 standard errors are 2.3% (Gaussian) and 3.2% (Laplace,
    # kurtosis 6), so a 10% error of the scale fails.
    rng = np.random.default_rng(0)
    for budget, kurtosis in ((PrivacyCost.zcdp(0.02), 3), (PrivacyCost.pure(0.5), 6)):
        draws = np.array(
            [
                private_trace_upper_bound(0.5, 200, budget, None, rng)[0]
                for _ in range(20000)
            ]
        )
        deviation = estimate_deviation(200, budget)
        tolerance = 4.5 * math.sqrt((kurtosis - 1) / (4 * draws.size))
        assert np.std(draws) == pytest.approx(deviation, rel=tolerance)
        assert abs(np.mean(draws) - 0.5) < 4.5 * deviation / math.sqrt(draws.size)


@pytest.mark.parametrize("assume_centered", [True, False])
def test_releasing_nothing_publishes_no_sign_of_the_data(assume_centered):
    """The zero release is built from the public shape: neighbouring datasets
    whose second moments differ in sign give the same bytes (a product of the
    target with 0.0 kept -0.0 where an entry was negative, §13)."""
    from skprivcov.decomposition import PrivatePCA

    X = np.zeros((40, 3))
    X[0] = [0.5, 0.5, 0.0]
    neighbour = X.copy()
    neighbour[0] = [0.5, -0.5, 0.0]
    fits = [
        AutoCovariance(rho=1e-4, assume_centered=assume_centered, random_state=0).fit(A)
        for A in (X, neighbour)
    ]
    assert [f.mechanism_ for f in fits] == ["zero", "zero"]
    for attribute in ("covariance_", "location_", "precision_"):
        first, second = (getattr(f, attribute) for f in fits)
        assert first.tobytes() == second.tobytes(), attribute
    assert not np.signbit(fits[0].covariance_).any()
    pcas = [
        PrivatePCA(covariance=f).fit(A)
        for f, A in zip(fits, (X, neighbour), strict=True)
    ]
    assert pcas[0].components_.tobytes() == pcas[1].components_.tobytes()


@pytest.mark.slow
def test_the_centred_trace_estimate_is_of_the_covariance():
    """A centring fit chooses from a private estimate of tr C, C = S − μμᵀ
    the covariance it releases (§3.9, centred; issue 33): sensitivity
    (5 + 4/n)/n, so its spread is (5 + 4/n) times the Gaussian σ of a trace at
    1/n, and its mean is tr C (not tr S, which on data far from the origin is
    mostly ‖μ‖²). 2000 fits: 4.5 standard errors of a Gaussian standard
    deviation are 7.1%."""
    from skprivcov.covariance._auto import estimate_deviation

    n = 200
    X = np.random.default_rng(0).normal(size=(n, 2))
    X *= math.sqrt(0.5) / np.linalg.norm(X, axis=1, keepdims=True)  # tr S = 0.5
    X += 0.4  # far from the origin for its spread: ‖μ‖² ≈ 0.32
    X *= 0.99 / np.linalg.norm(X, axis=1).max()  # inside the bound 1
    covariance_trace = np.trace(np.cov(X.T, bias=True))
    estimates = np.array(
        [
            AutoCovariance(
                rho=0.32, norm_bound=1.0, assume_centered=False, random_state=seed
            )
            .fit(X)
            .trace_estimate_
            for seed in range(2000)
        ]
    )
    deviation = (5 + 4 / n) * estimate_deviation(n, PrivacyCost.zcdp(0.32 / 16))
    assert np.std(estimates) == pytest.approx(deviation, rel=4.5 * math.sqrt(2 / 8000))
    assert abs(np.mean(estimates) - covariance_trace) < 4.5 * deviation / math.sqrt(
        2000
    )


def test_without_the_zero_candidate_a_mechanism_always_runs():
    """allow_zero=False: where the rule would release nothing, the mechanism
    it would otherwise pick runs on 15/16 of the budget (§3.9)."""
    X = np.random.default_rng(0).uniform(-0.3, 0.3, size=(50, 4))
    assert (
        AutoCovariance(rho=1e-4, **_PAPERS, random_state=0).fit(X).mechanism_ == "zero"
    )
    est = AutoCovariance(rho=1e-4, allow_zero=False, **_PAPERS, random_state=0).fit(X)
    assert est.mechanism_ == "adaptive"
    # Under zCDP nothing is left to choose: no trace estimate, AdaptiveCov at
    # the whole budget (the same release as its own with the same seed).
    assert est.trace_estimate_ is None
    adaptive = AdaptiveCovariance(rho=1e-4, **_PAPERS, random_state=0).fit(X)
    assert est.privacy_parts_ == adaptive.privacy_parts_
    np.testing.assert_array_equal(est.covariance_, adaptive.covariance_)
    pure = AutoCovariance(
        epsilon=0.05, allow_zero=False, **_PAPERS, random_state=0
    ).fit(X)
    assert pure.mechanism_ != "zero"
    assert pure.privacy_parts_[0].step == "trace estimate"
    assert compose_parts(pure.privacy_parts_).epsilon == pytest.approx(0.05)
    pure = PrivacyCost.pure(0.01)
    assert choose_mechanism(50, 4, pure, 0.5) == "zero"
    assert choose_mechanism(50, 4, pure, 0.5, allow_zero=False) == "nuclear-laplace"
    assert choose_mechanism(50, 4, pure, 0.1, allow_zero=False) == "adaptive"


# --------------------------------------------------------------------------------
# The shrinkage step (docs/algorithms.rst §3.9a; issue 33).


def _unit_ball(points):
    """Rows mapped into the unit ball: x / max(‖x‖, 1)."""
    norms = np.maximum(np.linalg.norm(points, axis=1, keepdims=True), 1.0)
    return points / norms


def _statistic(rows, centred):
    """C of unit-ball rows: the second moment, or the covariance S − μμᵀ."""
    second = rows.T @ rows / len(rows)
    if not centred:
        return second
    mean = rows.mean(axis=0)
    return second - np.outer(mean, mean)


# A PSD R (definite) is the slow variant: the indefinite R, with both λ₊ and
# λ₋, searches the same bound in the fast loop.
@pytest.mark.parametrize("centred", [False, True])
@pytest.mark.parametrize(
    "definite", [pytest.param(True, marks=pytest.mark.slow), False]
)
def test_the_shrinkage_sensitivity_holds_under_adversarial_search(centred, definite):
    """|⟨R, C(X) − C(X')⟩| ≤ λ·ν/n for every neighbour X' (one row replaced,
    rows in the unit ball), λ = λ₊ + λ₋ of R and ν = 1 for the second moment,
    4 for the covariance (§3.9a); searched over the whole dataset and the
    replacement, for PSD and indefinite R. The bound is not vacuous: the
    search reaches its supremum, 1 or 4 − 4/n = 3 at n = 4 (the next test)."""
    from scipy.optimize import minimize

    from skprivcov.mechanisms._shrinkage import shrinkage_factor, spectral_spread

    rng = np.random.default_rng(3 if centred else 4)
    d, n = 2, 4
    factor = float(shrinkage_factor(centred))
    best = 0.0
    for trial in range(4):
        basis = np.linalg.qr(rng.normal(size=(d, d)))[0]
        values = rng.uniform(0.1, 1.0, size=d) if definite else rng.normal(size=d)
        release = (basis * values) @ basis.T
        spread = spectral_spread(release)
        assert spread == pytest.approx(
            max(values.max(), 0.0) + max(-values.min(), 0.0), rel=1e-9
        )

        def gap(v, release=release, spread=spread):
            rows = _unit_ball(v[: n * d].reshape(n, d))
            other = rows.copy()
            other[0] = _unit_ball(v[n * d :].reshape(1, d))[0]
            change = _statistic(rows, centred) - _statistic(other, centred)
            return -abs(np.sum(release * change)) * n / spread

        for _ in range(5):
            start = rng.normal(size=(n + 1) * d) * 2.0
            result = minimize(
                gap, start, method="Nelder-Mead", options={"maxiter": 600}
            )
            best = max(best, -result.fun)
            assert -result.fun <= factor * (1 + 1e-9), (trial, -result.fun)
    # The search reaches the supremum (1, or 4 − 4/n; see the next test).
    assert best >= 0.95 * (factor - 4 / n if centred else factor)


def test_the_shrinkage_factors_are_attained():
    """The bounds are tight: a row at u replaced by −u among rows at u (R =
    uuᵀ) moves n⟨R, C⟩ by 4 − 4/n; a row 0 replaced by u moves n⟨R, S⟩ by 1."""
    n, u = 10, np.array([1.0, 0.0])
    release = np.outer(u, u)
    rows = np.tile(u, (n, 1))
    other = rows.copy()
    other[0] = -u
    change = _statistic(rows, True) - _statistic(other, True)
    assert abs(np.sum(release * change)) * n == pytest.approx(4 - 4 / n)
    rows[0] = 0.0
    change = _statistic(rows, False) - _statistic(np.tile(u, (n, 1)), False)
    assert abs(np.sum(release * change)) * n == pytest.approx(1.0)


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
@pytest.mark.parametrize("centred", [False, True])
def test_the_shrinkage_noise_has_the_stated_scale(notion, centred):
    """⟨R, C⟩^ − ⟨R, C⟩ is N(0, σ²), σ = Δ/√(2ρ), or Lap(b), b = Δ/ε, with
    Δ = λ·ν/n the sensitivity of §3.9a (λ = λ₊ + λ₋ computed here from the
    eigenvalues, not by the library). 20000 draws on the float path: 4.5
    standard errors are 3.2% for the Gaussian deviation and 3.2% for the
    Laplace mean absolute value, so a scale 10% off fails."""
    from skprivcov.mechanisms._shrinkage import noisy_inner_product

    rng = np.random.default_rng(5)
    n, d = 300, 4
    rows = _unit_ball(rng.normal(size=(n, d)) * 0.6)
    second = rows.T @ rows / n
    mean = rows.mean(axis=0) if centred else None
    exact = np.sum(second * second) - (mean @ second @ mean if centred else 0.0)
    values = np.linalg.eigvalsh(second)
    spread = values.max() + max(-values.min(), 0.0)
    sensitivity = spread * (4.0 if centred else 1.0) / n
    budget = PrivacyCost.zcdp(0.05) if notion == "zcdp" else PrivacyCost.pure(0.3)
    if notion == "zcdp":
        expected = sensitivity / math.sqrt(2 * 0.05)
    else:
        expected = sensitivity / 0.3
    draws, deviations = [], set()
    for _ in range(20000):
        value, deviation = noisy_inner_product(
            second, second, n, budget, rng, mean=mean
        )
        draws.append(value - exact)
        deviations.add(deviation)
    draws = np.array(draws) / expected
    tolerance = (
        4.5 / math.sqrt(2 * draws.size)
        if notion == "zcdp"
        else 4.5 / math.sqrt(draws.size)
    )
    measured = np.std(draws) if notion == "zcdp" else np.mean(np.abs(draws))
    assert measured == pytest.approx(1.0, abs=tolerance)
    assert abs(np.mean(draws)) < 4.5 * math.sqrt(2.0) / math.sqrt(draws.size)
    # The public deviation handed to the positive-part rule is the law's.
    (deviation,) = deviations
    law = expected if notion == "zcdp" else math.sqrt(2.0) * expected
    assert deviation == pytest.approx(law, rel=1e-9)


def test_the_shrink_factor_is_private_not_the_exact_best():
    """Leak check (§13.1): ``shrinkage_`` goes through the noise. With the
    noise of the shrinkage step recorded (float path), the published factor
    is the positive-part rule applied to the exact statistic plus the
    recorded draw, and not the noiseless c* = ⟨R, C⟩/‖R‖_F²; across seeds on
    the same data it varies as that noise does."""
    from skprivcov.covariance._auto import AutoCovariance as Auto
    from skprivcov.mechanisms._shrinkage import (
        shrinkage_factor,
        shrinkage_from,
        spectral_spread,
    )
    from skprivcov.mechanisms.noise._record import recorded_noise

    rng = np.random.default_rng(6)
    n, d = 400, 3
    X = _unit_ball(rng.normal(size=(n, d)) * np.array([0.7, 0.3, 0.1]))
    second = X.T @ X / n
    factors = []
    for seed in range(12):
        est = Auto(
            epsilon=2.0,
            norm_bound=1.0,
            assume_centered=True,
            noise="float",
            random_state=seed,
        )
        with recorded_noise() as records:
            est.fit(X)
        assert est.mechanism_ == "nuclear-laplace"  # scale = the bound, 1
        (record,) = [r for r in records if r.site == "shrinkage"]
        c = est.shrinkage_
        factors.append(c)
        if not 0.0 < c < 1.0:
            continue
        release = est.covariance_ / c  # R, the mechanism's (projected) release
        spread = spectral_spread(release)
        units = spread * float(shrinkage_factor(False))
        exact = np.sum(release * second)
        noisy = exact + float(record.noise[0]) * units
        deviation = math.sqrt(2.0) * units / (n * record.budget.parameter)
        squared = np.sum(release * release)
        assert c == pytest.approx(shrinkage_from(noisy, deviation, squared), rel=1e-6)
        assert c != pytest.approx(min(exact / squared, 1.0), rel=1e-3)
    assert len(set(factors)) > 6


def test_the_shrinkage_never_publishes_more_than_the_mechanism_and_its_draw():
    """The published extras of a shrunk fit are the choice, the trace
    estimate and c; the parts are the trace estimate, the mechanism's and
    the shrinkage at 1/16, composing to the budget exactly (§3.9a)."""
    X = np.random.default_rng(7).uniform(-0.5, 0.5, size=(3000, 4))
    est = AutoCovariance(rho=1.0, norm_bound=1.0, random_state=0).fit(X)
    steps = [p.step for p in est.privacy_parts_]
    assert steps[0] == "trace estimate" and steps[-1] == "shrinkage"
    assert est.privacy_parts_[-1].cost.rho == pytest.approx(1 / 16, rel=1e-12)
    assert compose_parts(est.privacy_parts_).rho == pytest.approx(1.0, rel=1e-12)
    assert 0.0 <= est.shrinkage_ <= 1.0
    zero = AutoCovariance(rho=1e-4, norm_bound=1.0, random_state=0).fit(X[:50])
    assert zero.mechanism_ == "zero" and zero.shrinkage_ is None
    assert compose_parts(zero.privacy_parts_).rho == pytest.approx(1e-4, rel=1e-12)


@pytest.mark.parametrize("assume_centered", [True, False])
def test_the_shrunk_release_is_c_times_the_mechanisms(assume_centered):
    """c·R: the covariance is c times a PSD matrix of trace ≤ 1 (at unit
    scale), and its median error is not above releasing nothing's."""
    rng = np.random.default_rng(8)
    X = _unit_ball(rng.normal(size=(500, 5)) * 0.2)
    errors = []
    for seed in range(10):
        est = AutoCovariance(
            rho=0.2, norm_bound=1.0, assume_centered=assume_centered, random_state=seed
        ).fit(X)
        if est.mechanism_ == "zero":
            continue
        values = np.linalg.eigvalsh(est.covariance_)
        assert values.min() >= -1e-12 and values.sum() <= est.shrinkage_ + 1e-12
        truth = _statistic(X, not assume_centered)
        errors.append(np.linalg.norm(est.covariance_ - truth) / np.linalg.norm(truth))
    assert errors and np.median(errors) <= 1.05
