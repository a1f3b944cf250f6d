"""Mechanism layer: sensitivities, projections, eigen pairing, trace bound, splits."""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from skprivcov import PrivacyCost, UnsupportedPrivacyNotionError
from skprivcov.mechanisms import (
    _covariance,
    eigh_descending,
    gaussian_covariance,
    laplace_covariance,
    private_trace_upper_bound,
    project_psd,
    project_psd_trace_ball,
    projection_covariance,
    second_moment_l1_sensitivity,
    separate_covariance,
)
from skprivcov.mechanisms._projections import project_capped_simplex, project_l1_ball
from skprivcov.mechanisms.noise import symmetric_noise
from skprivcov.privacy import compose_parts


def _upper_l1(x, y):
    upper = np.triu_indices(x.size)
    return np.abs(np.outer(x, x) - np.outer(y, y))[upper].sum()


@pytest.mark.parametrize(
    "d",
    [
        1,
        2,
        # d = 3: twelve Nelder-Mead searches, about 3 s.
        pytest.param(3, marks=pytest.mark.slow),
        pytest.param(5, marks=pytest.mark.slow),
        pytest.param(12, marks=pytest.mark.slow),
    ],
)
def test_l1_sensitivity_bound_holds_under_adversarial_search(d):
    """No pair of unit rows found by optimisation exceeds the bound (§0.2)."""
    rng = np.random.default_rng(d)
    bound = second_moment_l1_sensitivity(d, 1)

    def negative(v):
        x, y = v[:d], v[d:]
        x = x / max(np.linalg.norm(x), 1.0)
        y = y / max(np.linalg.norm(y), 1.0)
        return -_upper_l1(x, y)

    best = 0.0
    for _ in range(12):
        start = rng.normal(size=2 * d)
        result = optimize.minimize(
            negative,
            start,
            method="Nelder-Mead",
            options={"maxiter": 4000, "xatol": 1e-10},
        )
        best = max(best, -result.fun)
    assert best <= bound + 1e-9
    # The bound is not vacuous: it is within a factor 1.5 of what is attained.
    assert best >= bound / 1.5


def test_l1_sensitivity_uses_the_smaller_valid_bound():
    for d in (1, 2, 10, 100):
        expected = min(math.sqrt(d * (d + 1)), d / math.sqrt(2) + 1)
        assert second_moment_l1_sensitivity(d, 10) == pytest.approx(expected / 10)
    assert second_moment_l1_sensitivity(100, 1) < 0.72 * math.sqrt(100 * 101)


def test_frobenius_sensitivity_is_attained_by_orthogonal_rows():
    x, y = np.eye(4)[0], np.eye(4)[1]
    diff = np.outer(x, x) - np.outer(y, y)
    assert np.linalg.norm(diff) == pytest.approx(math.sqrt(2))


@pytest.mark.parametrize("distribution", ["gaussian", "laplace"])
@pytest.mark.parametrize("d", [1, 6, 257, 600])  # blocks of 256 rows
def test_symmetric_noise_draws_each_free_coordinate_once(distribution, d):
    rng = np.random.default_rng(0)
    noise = symmetric_noise(d, 2.5, rng, distribution=distribution)
    np.testing.assert_array_equal(noise, noise.T)
    # The same generator state reproduces the upper triangle in row-major order.
    replay = np.random.default_rng(0)
    upper = np.triu_indices(d)
    if distribution == "gaussian":
        expected = 2.5 * replay.standard_normal(upper[0].size)
    else:
        expected = 2.5 * replay.laplace(0, 1, upper[0].size)
    np.testing.assert_allclose(noise[upper], expected)


def _brute_l1_projection(v, radius):
    result = optimize.minimize(
        lambda u: 0.5 * np.sum((u - v) ** 2),
        np.zeros_like(v),
        constraints=[{"type": "ineq", "fun": lambda u: radius - np.abs(u).sum()}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return result.x


@pytest.mark.slow  # long (utility, subprocess or optimiser): CI runs it
def test_l1_projection_matches_optimiser_and_certificate():
    rng = np.random.default_rng(1)
    for _ in range(20):
        v = rng.normal(size=7) * 3
        radius = rng.uniform(0.1, 5)
        u = project_l1_ball(v, radius)
        assert np.abs(u).sum() <= radius + 1e-12
        np.testing.assert_allclose(u, _brute_l1_projection(v, radius), atol=2e-3)
        # KKT: v − u = θ·sign(u) on the support, |v − u| ≤ θ elsewhere.
        if np.abs(v).sum() > radius:
            theta = np.max(np.abs(v - u))
            support = u != 0
            np.testing.assert_allclose((v - u)[support], theta * np.sign(u[support]))
    np.testing.assert_array_equal(project_l1_ball([0.1, -0.2], 1.0), [0.1, -0.2])
    np.testing.assert_array_equal(project_l1_ball([1.0, -2.0], 0.0), [0.0, 0.0])


def test_capped_simplex_projection():
    np.testing.assert_allclose(
        project_capped_simplex([0.5, 0.2, -0.3], 1.0), [0.5, 0.2, 0.0]
    )
    projected = project_capped_simplex([0.9, 0.6, 0.1], 1.0)
    np.testing.assert_allclose(projected, [0.65, 0.35, 0.0])
    sorted_input = np.sort(np.random.default_rng(2).normal(size=9))[::-1]
    out = project_capped_simplex(sorted_input, 0.5)
    assert np.all(np.diff(out) <= 0) and out.sum() <= 0.5 + 1e-12


def test_psd_trace_projection_optimality_certificate():
    """§4.2: feasibility and t·max(λ_max(sym G), 0) ≤ ⟨G, Π(A)⟩, G = A − Π(A)."""
    rng = np.random.default_rng(3)
    for _ in range(100):
        d = rng.integers(2, 8)
        A = rng.normal(size=(d, d)) * rng.uniform(0.1, 3)
        t = rng.uniform(0.05, 3)
        P = project_psd_trace_ball(A, t)
        np.testing.assert_array_equal(P, P.T)
        assert np.linalg.eigvalsh(P).min() >= -1e-12
        assert np.trace(P) <= t + 1e-12
        G = A - P
        sym_g = 0.5 * (G + G.T)
        gap = t * max(np.linalg.eigvalsh(sym_g).max(), 0.0) - np.sum(G * P)
        assert gap <= 1e-10


def test_psd_trace_projection_leaves_feasible_points():
    rng = np.random.default_rng(4)
    B = rng.normal(size=(4, 4))
    S = B @ B.T
    S /= 2 * np.trace(S)
    np.testing.assert_allclose(project_psd_trace_ball(S, 1.0), S, atol=1e-14)


def test_psd_projection_clips_negative_eigenvalues():
    values = np.array([2.0, 0.5, -1.0])
    Q = np.linalg.qr(np.random.default_rng(5).normal(size=(3, 3)))[0]
    projected = project_psd(Q @ np.diag(values) @ Q.T)
    np.testing.assert_allclose(
        projected, Q @ np.diag([2.0, 0.5, 0.0]) @ Q.T, atol=1e-12
    )


def test_eigh_descending_pairs_vectors_with_values():
    M = np.diag([-3.0, 1.0, 2.0])  # SVD would order by |λ| and flip signs
    values, vectors = eigh_descending(M)
    np.testing.assert_array_equal(values, [2.0, 1.0, -3.0])
    np.testing.assert_allclose(vectors * values @ vectors.T, M, atol=1e-14)


def test_private_trace_upper_bound_scale_and_shift():
    n, rho, beta = 500, 0.02, 0.05
    sigma = (1 / n) / math.sqrt(2 * rho)  # §3.5 step 4: Δ = 1/n, σ = Δ/√(2ρ)
    shift = sigma * math.sqrt(2 * math.log(1 / beta))
    rng = np.random.default_rng(6)
    draws = np.array(
        [
            private_trace_upper_bound(0.5, n, PrivacyCost.zcdp(rho), beta, rng)[0]
            for _ in range(6000)
        ]
    )
    residual = (draws - 0.5 - shift) / sigma
    assert np.std(residual) == pytest.approx(1.0, abs=4.5 / math.sqrt(2 * 6000))
    assert abs(residual.mean()) < 4.5 / math.sqrt(6000)
    assert stats.kstest(residual, "norm").pvalue > 1e-3
    # An upper bound except with probability Φ(−√(2 log(1/β))) ≤ β.
    miss = stats.norm.cdf(-math.sqrt(2 * math.log(1 / beta)))
    assert miss <= beta
    assert np.mean(draws < 0.5) == pytest.approx(
        miss, abs=4.5 * math.sqrt(miss * (1 - miss) / 6000)
    )
    # Clipped into the public range [0, 1].
    assert (
        private_trace_upper_bound(0.99, 10, PrivacyCost.zcdp(1e-3), beta, rng)[0] <= 1.0
    )


def test_projection_budget_split_reaches_each_part(monkeypatch):
    """With trace_fraction f: trace bound at fρ, GaussCov at (1 − f)ρ (§3.7)."""
    seen = {}
    original_trace = _covariance.private_trace_upper_bound
    original_gauss = _covariance.gaussian_covariance

    def spy_trace(trace, n, budget, beta, rng, **options):
        seen["trace"] = budget
        return original_trace(trace, n, budget, beta, rng, **options)

    def spy_gauss(second_moment, n, budget, rng):
        seen["matrix"] = budget
        return original_gauss(second_moment, n, budget, rng)

    monkeypatch.setattr(_covariance, "private_trace_upper_bound", spy_trace)
    monkeypatch.setattr(_covariance, "gaussian_covariance", spy_gauss)
    budget = PrivacyCost.zcdp(0.8)
    _, parts = projection_covariance(
        np.eye(3) / 4, 100, budget, np.random.default_rng(0), trace_fraction=0.25
    )
    assert seen["trace"].rho == pytest.approx(0.2)
    assert seen["matrix"].rho == pytest.approx(0.6)
    assert compose_parts(parts).rho == pytest.approx(0.8, rel=1e-15)


def test_separate_budget_split(monkeypatch):
    seen = {}
    original = _covariance.gaussian_covariance

    def spy(second_moment, n, budget, rng):
        seen["matrix"] = budget
        return original(second_moment, n, budget, rng)

    monkeypatch.setattr(_covariance, "_NOISY_COVARIANCE", {"zcdp": spy})
    _, parts = separate_covariance(
        np.eye(3) / 4, 100, PrivacyCost.zcdp(0.8), np.random.default_rng(0)
    )
    assert seen["matrix"] == PrivacyCost.zcdp(0.4)
    assert [part.step for part in parts] == ["eigenvalues", "noisy matrix"]
    assert compose_parts(parts) == PrivacyCost.zcdp(0.8)


def test_mechanisms_refuse_the_wrong_notion():
    rng = np.random.default_rng(0)
    with pytest.raises(UnsupportedPrivacyNotionError):
        gaussian_covariance(np.eye(2), 10, PrivacyCost.pure(1.0), rng)
    with pytest.raises(UnsupportedPrivacyNotionError):
        laplace_covariance(np.eye(2), 10, PrivacyCost.zcdp(1.0), rng)
    with pytest.raises(UnsupportedPrivacyNotionError):
        projection_covariance(np.eye(2), 10, PrivacyCost.pure(1.0), rng)
