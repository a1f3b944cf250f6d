"""Nuclear-Laplace noise: the exact parts, the chain against exact references,
the projections' optimality certificates, the budget and the estimator.

The chain's moments are compared with importance sampling from proposals that
do not involve the chain (Dirichlet draws on the simplex), and the same test is
run on a deliberately wrong target, which it must reject.
"""

import functools
import math

import numpy as np
import pytest
from scipy import stats

from skprivcov import NuclearLaplaceCovariance, PrivacyAccountant, PrivacyCost
from skprivcov.mechanisms import (
    _covariance,
    _nuclear,
    nuclear_laplace_covariance,
    project_nuclear_ball,
)
from skprivcov.mechanisms._nuclear import (
    equilibrium_start,
    haar_orthogonal,
    nuclear_chain_diagnostics,
    nuclear_laplace_noise,
    sample_normalised_spectrum,
)
from skprivcov.mechanisms.noise._generators import release_generator
from skprivcov.privacy import MCMC_NOISE, BudgetPart, compose_parts

# --- the exact parts --------------------------------------------------------------


@pytest.mark.parametrize("symmetric", [False, True])
def test_radius_is_gamma_and_is_the_nuclear_norm(symmetric):
    """R = ‖Z‖_* ~ Gamma(D, r): mean D·r, variance D·r² (§6.2)."""
    d, r = 3, 0.7
    dimension = d * (d + 1) // 2 if symmetric else d * d
    # 1000 draws: the mean's tolerance is 4.5/√(1000·D) = 5.8% (D = 6) or
    # 4.7% (D = 9) of D·r, so a scale r 10% off (z ≥ 3.3) or halved fails.
    n_draws = 1000
    rng = np.random.default_rng(1)
    radii = []
    for _ in range(n_draws):
        noise, radius = nuclear_laplace_noise(
            d, r, rng, symmetric=symmetric, n_sweeps=1
        )
        assert np.linalg.norm(noise, "nuc") == pytest.approx(radius, rel=1e-12)
        radii.append(radius)
    radii = np.array(radii)
    mean, variance = dimension * r, dimension * r**2
    assert radii.mean() == pytest.approx(mean, abs=4.5 * math.sqrt(variance / n_draws))
    # sd of the sample variance of a Gamma(D) variable: σ²·√((2 + 6/D)/n).
    assert radii.var() == pytest.approx(
        variance, abs=4.5 * variance * math.sqrt((2 + 6 / dimension) / n_draws)
    )
    assert stats.kstest(radii, stats.gamma(dimension, scale=r).cdf).pvalue > 1e-3


def test_haar_factor_is_haar():
    """Haar on O(3): the first row is uniform on the sphere (each coordinate
    squared is Beta(1/2, 1)), and det = ±1 with equal probability (the sign
    fix; plain QR of numpy is not Haar)."""
    rng = np.random.default_rng(2)
    draws = np.array([haar_orthogonal(3, rng) for _ in range(4000)])
    np.testing.assert_allclose(
        np.einsum("nij,nkj->nik", draws, draws),
        np.broadcast_to(np.eye(3), draws.shape),
        atol=1e-12,
    )
    assert stats.kstest(draws[:, 0, 0] ** 2, stats.beta(0.5, 1.0).cdf).pvalue > 1e-3
    assert stats.kstest(draws[:, 2, 1] ** 2, stats.beta(0.5, 1.0).cdf).pvalue > 1e-3
    determinants = np.linalg.det(draws)
    assert abs(np.mean(determinants)) < 4.5 / math.sqrt(len(draws))


def test_equilibrium_start_is_in_the_chamber():
    for symmetric in (False, True):
        start = equilibrium_start(40, symmetric=symmetric)
        assert np.all(np.diff(start) < 0)
        if not symmetric:
            assert start[-1] > 0
            # Mean singular value d (R ≈ d²r at r = 1, §6.4).
            assert start.mean() == pytest.approx(40, rel=0.05)


# --- the chain against exact references -------------------------------------------


@functools.cache  # shared by the test at d = 3 and the wrong-target test
def _reference_moments(d, symmetric, n_proposals=1_000_000, seed=7):
    """E[d·max|w|], E[d·min|w|], E[d·Σw²] under density ∝ Π|w_i² − w_j²| on the
    simplex (∝ Π|w_i − w_j| on the ℓ1 sphere), by importance sampling from the
    uniform law (Dirichlet(1), with random signs for the ℓ1 sphere)."""
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.ones(d), size=n_proposals)
    if symmetric:
        w *= rng.choice([-1.0, 1.0], size=w.shape)
    i, j = np.triu_indices(d, 1)
    gaps = w[:, i] - w[:, j] if symmetric else w[:, i] ** 2 - w[:, j] ** 2
    weights = np.exp(np.log(np.abs(gaps)).sum(axis=1))
    weights /= weights.sum()
    magnitudes = np.abs(w)
    features = d * np.column_stack(
        [magnitudes.max(axis=1), magnitudes.min(axis=1), (w**2).sum(axis=1)]
    )
    mean = weights @ features
    se = np.sqrt(weights**2 @ (features - mean) ** 2)
    return mean, se


def _chain_moments(d, symmetric, n_chains=4000, n_sweeps=30, seed=3):
    w = sample_normalised_spectrum(
        d,
        np.random.default_rng(seed),
        symmetric=symmetric,
        n_sweeps=n_sweeps,
        n_chains=n_chains,
    )
    magnitudes = np.abs(w)
    features = d * np.column_stack(
        [magnitudes.max(axis=1), magnitudes.min(axis=1), (w**2).sum(axis=1)]
    )
    return features.mean(axis=0), features.std(axis=0) / math.sqrt(n_chains)


# d = 3 in the fast loop (d = 2 has its closed form below); d = 2 and 4 to 6
# (about 1 to 1.5 s each) are slow.
@pytest.mark.parametrize("symmetric", [False, True], ids=["general", "symmetric"])
@pytest.mark.parametrize(
    "d", [3, *(pytest.param(d, marks=pytest.mark.slow) for d in (2, 4, 5, 6))]
)
def test_chain_moments_match_importance_sampling(d, symmetric):
    """The §9.2 table: e.g. general d = 3 (2.003, 0.186, 1.630)."""
    reference, reference_se = _reference_moments(d, symmetric)
    moments, se = _chain_moments(d, symmetric)
    z = (moments - reference) / np.sqrt(se**2 + reference_se**2)
    assert np.max(np.abs(z)) < 4.5


def test_chain_at_d2_matches_the_closed_form():
    """General d = 2: w_max = ½ + ½√U exactly (§9.2), so E[2·w_max] = 5/3."""
    w = sample_normalised_spectrum(
        2, np.random.default_rng(4), symmetric=False, n_sweeps=30, n_chains=4000
    )
    u = (2.0 * w[:, 0] - 1.0) ** 2
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_chain_moments_catch_a_wrong_target(monkeypatch):
    """Power: a chain run on Π|s_i − s_j| instead of Π|s_i² − s_j²| for the
    general variant (a plausible slip) fails the same comparison, at the
    fast loop's d = 3 (z ≈ 16; 27 at d = 4)."""
    right = _nuclear._log_target

    def wrong(x, state, k, symmetric):
        return right(x, state, k, True)  # the symmetric variant's factors

    reference, reference_se = _reference_moments(3, False)
    monkeypatch.setattr(_nuclear, "_log_target", wrong)
    moments, se = _chain_moments(3, symmetric=False)
    z = (moments - reference) / np.sqrt(se**2 + reference_se**2)
    assert np.max(np.abs(z)) > 10.0


@pytest.mark.parametrize("symmetric", [False, True])
def test_single_chain_path_is_the_vectorised_one(symmetric):
    """The per-chain float path (used by the mechanism) and the vectorised path
    (used by the tests above) draw the same candidates from the same stream."""
    a = equilibrium_start(7, symmetric=symmetric)[None, :].copy()
    b = a.copy()
    first, second = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(25):
        for k in range(7):
            _nuclear._slice_update(a, k, first, symmetric, vectorised=True)
            _nuclear._slice_update(b, k, second, symmetric, vectorised=False)
    np.testing.assert_array_equal(a, b)
    assert np.all(np.diff(a[0]) < 0)  # stays in the chamber


@pytest.mark.slow  # eight chains at d = 50
def test_large_d_spectral_norm_is_about_pi_r_d():
    """§6.4: ‖Z‖_op ≈ π·r·d for large d (general; 2.97 at d = 50), never the
    1.1·r·d of dON Thm 4.4; the symmetric variant ≈ 1.52·r·d."""
    rng = np.random.default_rng(6)
    general = [
        np.linalg.norm(nuclear_laplace_noise(50, 1.0, rng, symmetric=False)[0], 2) / 50
        for _ in range(4)
    ]
    symmetric = [
        np.linalg.norm(nuclear_laplace_noise(50, 1.0, rng, symmetric=True)[0], 2) / 50
        for _ in range(4)
    ]
    assert min(general) > 2.5 and max(general) < 3.4
    assert min(symmetric) > 1.3 and max(symmetric) < 1.8


def test_diagnostics_flag_a_bad_start_and_pass_the_equilibrium_one():
    d = 50
    good = nuclear_chain_diagnostics(
        d, symmetric=False, n_sweeps=200, n_chains=1, random_state=8
    )
    assert abs(good.geweke_z[0]) < 4.0
    assert 0.5 < good.autocorrelation_time[0] < 20.0
    assert good.statistic.shape == (1, 200)
    # A start with every singular value nearly equal (d·max w ≈ 1, far below the
    # equilibrium ≈ 3): the statistic drifts, and Geweke's z says so.
    bad_start = np.linspace(1.0, 0.99, d)
    bad = nuclear_chain_diagnostics(
        d, symmetric=False, n_sweeps=200, n_chains=1, start=bad_start, random_state=8
    )
    assert abs(bad.geweke_z[0]) > 20.0


def test_diagnostics_never_run_the_chain_of_a_release():
    """docs/algorithms.rst §13.1: a diagnostic seeded like a release draws other
    numbers; the release's chain (its final state is the noise direction)
    never leaves the mechanism."""
    d, seed = 6, 5
    release_chain = sample_normalised_spectrum(
        d, np.random.default_rng(seed), symmetric=True, n_sweeps=20
    )
    diagnostics = nuclear_chain_diagnostics(
        d, n_sweeps=20, n_chains=1, random_state=seed
    )
    final = d * np.abs(release_chain[0]).max()
    assert not np.isclose(diagnostics.statistic[0, -1], final)
    # Deterministic for a seed (for experiments), fresh without one.
    again = nuclear_chain_diagnostics(d, n_sweeps=20, n_chains=1, random_state=seed)
    np.testing.assert_array_equal(diagnostics.statistic, again.statistic)
    fresh = nuclear_chain_diagnostics(d, n_sweeps=20, n_chains=1)
    assert not np.array_equal(fresh.statistic, diagnostics.statistic)


# --- projections (docs/algorithms.rst §4.1) ----------------------------------------


@pytest.mark.parametrize("symmetric", [False, True])
def test_nuclear_ball_projection_certificate(symmetric):
    """With G = A − P(A): ‖P‖_* ≤ t and t·‖G‖_op ≤ ⟨G, P⟩ (optimality)."""
    rng = np.random.default_rng(9)
    for _ in range(100):
        d = rng.integers(2, 8)
        A = rng.normal(size=(d, d)) * rng.uniform(0.1, 3)
        if symmetric:
            A = A + A.T
        t = rng.uniform(0.05, 2.0)
        P = project_nuclear_ball(A, t)
        G = A - P
        assert np.linalg.norm(P, "nuc") <= t + 1e-10
        if np.linalg.norm(A, "nuc") > t:
            assert t * np.linalg.norm(G, 2) <= np.sum(G * P) + 1e-10
        else:
            np.testing.assert_allclose(P, A, atol=1e-12)
        if symmetric:
            np.testing.assert_array_equal(P, P.T)


# --- the mechanism ----------------------------------------------------------------


@pytest.fixture
def spied_noise(monkeypatch):
    calls = []
    noise = _covariance.nuclear_laplace_noise

    def spy(d, scale, rng, *, symmetric, n_sweeps):
        calls.append({"d": d, "scale": scale, "symmetric": symmetric})
        return noise(d, scale, rng, symmetric=symmetric, n_sweeps=n_sweeps)

    monkeypatch.setattr(_covariance, "nuclear_laplace_noise", spy)
    return calls


def _second_moment(d=5, n=800, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= scale / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    return X.T @ X / n, n


@pytest.mark.parametrize("symmetric", [False, True])
def test_public_radius_spends_all_of_epsilon_on_the_noise(spied_noise, symmetric):
    S, n = _second_moment()
    release, parts = nuclear_laplace_covariance(
        S, n, PrivacyCost.pure(0.8), np.random.default_rng(0), symmetric=symmetric
    )
    # §6.1: r = Δ_*/ε with Δ_* = 2/n.
    assert len(spied_noise) == 1
    assert spied_noise[0]["scale"] == pytest.approx(2.0 / (0.8 * n), rel=1e-14)
    assert spied_noise[0]["symmetric"] == symmetric
    assert parts == (
        BudgetPart("noise", PrivacyCost.pure(0.8).with_caveats([MCMC_NOISE])),
    )
    np.testing.assert_array_equal(release, release.T)


def test_private_radius_follows_algorithm_two(spied_noise, monkeypatch):
    S, n = _second_moment()
    laplace_scales = []
    real = _covariance._private_nuclear_radius

    def spy(trace, n_samples, budget, rng, n_columns):
        laplace_scales.append(budget)
        return real(trace, n_samples, budget, rng, n_columns)

    monkeypatch.setattr(_covariance, "_private_nuclear_radius", spy)
    _, parts = nuclear_laplace_covariance(
        S,
        n,
        PrivacyCost.pure(1.0),
        np.random.default_rng(0),
        projection="nuclear",
        trace_bound="private",
    )
    # §6.6: noise at ε/2, radius at ε/5; the other 3ε/10 unspent but charged.
    assert spied_noise[0]["scale"] == pytest.approx(2.0 / (0.5 * n), rel=1e-14)
    assert laplace_scales == [PrivacyCost.pure(0.2)]
    assert [(part.step, part.cost.parameter) for part in parts] == [
        ("noise", 0.5),
        ("nuclear radius", 0.2),
        ("unspent (dON Alg. 2)", 0.3),
    ]
    assert parts[0].cost.caveats == (MCMC_NOISE,)
    assert compose_parts(parts).parameter == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("noise", ["float", "hardened"])
def test_private_radius_noise_scale(noise):
    """t = 2·tr Σ + Lap(10/(εn)) at the radius budget ε/5: E|t − 2tr| = 10/(εn);
    hardened (§17), the discrete Laplace on a grid at the same scale."""
    S, n = _second_moment(scale=0.5)  # 2·tr Σ ≈ 0.5: clipping to [0, 1] is rare
    epsilon = 5.0
    rng = release_generator(10, noise=noise)
    radii = np.array(
        [
            _covariance._private_nuclear_radius(
                np.trace(S), n, PrivacyCost.pure(epsilon / 5), rng, S.shape[0]
            )
            for _ in range(4000)
        ]
    )
    scale = 10.0 / (epsilon * n)
    deviations = np.abs(radii - 2.0 * np.trace(S))
    assert np.mean(deviations) / scale == pytest.approx(1.0, abs=4.5 / math.sqrt(4000))


def test_release_is_symmetric_for_every_variant():
    S, n = _second_moment()
    for symmetric in (False, True):
        for projection in (None, "nuclear", "psd-trace"):
            release, _ = nuclear_laplace_covariance(
                S,
                n,
                PrivacyCost.pure(0.3),
                np.random.default_rng(1),
                symmetric=symmetric,
                projection=projection,
                n_sweeps=20,
            )
            np.testing.assert_array_equal(release, release.T)
            if projection == "psd-trace":
                values = np.linalg.eigvalsh(release)
                assert values.min() >= -1e-12 and values.sum() <= 1.0 + 1e-12
            if projection == "nuclear":
                assert np.linalg.norm(release, "nuc") <= 1.0 + 1e-10


@pytest.mark.slow  # a utility comparison: 24 releases at d = 20
def test_symmetric_variant_is_more_accurate():
    """§6.4: about 29% lower Frobenius error at the same ε."""
    S, n = _second_moment(d=20, n=2000)
    errors = {}
    for symmetric in (False, True):
        rng = np.random.default_rng(11)
        errors[symmetric] = np.mean(
            [
                np.linalg.norm(
                    nuclear_laplace_covariance(
                        S,
                        n,
                        PrivacyCost.pure(1.0),
                        rng,
                        symmetric=symmetric,
                        n_sweeps=50,
                    )[0]
                    - S
                )
                for _ in range(12)
            ]
        )
    assert errors[True] / errors[False] == pytest.approx(0.71, abs=0.06)


# --- the estimator ----------------------------------------------------------------


def test_private_radius_without_projection_is_refused_before_spending():
    accountant = PrivacyAccountant(epsilon=5.0)
    est = NuclearLaplaceCovariance(
        projection=None, trace_bound="private", accountant=accountant
    )
    with pytest.raises(ValueError, match="trace_bound='private' buys the radius"):
        est.fit(np.random.default_rng(1).uniform(size=(50, 3)))
    assert accountant.history() == []
    assert not hasattr(est, "covariance_")


def test_the_sampler_caveat_is_recorded_wherever_the_cost_is():
    """docs/algorithms.rst §13.6: the chain's caveat travels with the cost into
    privacy_spent_, the ledger, compositions and a ridge model's cost."""
    X = np.random.default_rng(3).uniform(-0.5, 0.5, size=(300, 4))
    accountant = PrivacyAccountant(epsilon=5.0)
    est = NuclearLaplaceCovariance(
        epsilon=1.0, n_sweeps=20, random_state=4, accountant=accountant
    ).fit(X)
    assert est.privacy_spent_.caveats == (MCMC_NOISE,)
    assert "mcmc-noise" in str(est.privacy_spent_)
    assert accountant.history()[0].caveats == (MCMC_NOISE,)
    assert accountant.spent.caveats == (MCMC_NOISE,)
    composed = est.privacy_spent_ + PrivacyCost.zcdp(0.1)
    assert composed.caveats == (MCMC_NOISE,)
    reopened = PrivacyCost(**{**vars(composed)})
    assert reopened == composed
