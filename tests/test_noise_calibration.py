"""The noise of every estimator has the law and the scale of its specification.

Each test draws many seeded releases from fixed data and compares an estimate of
the noise scale with the formula of docs/algorithms.rst. Tolerances are derived from
the sampling error of the estimate (a few standard errors) and are well below
10%, so a noise scale 10% off fails.
"""

import math

import numpy as np
import pytest
from _papers import (  # the papers' setting
    GaussianCovariance,
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    ProjectionCovariance,
    SeparateCovariance,
)
from scipy import stats

from skprivcov.mechanisms import eigh_descending

N_RELEASES = 400
# Seeds of the releases; fixed, and away from 0 so that each test draws its own.
SEEDS = range(1000, 3000)
UPPER = np.triu_indices(5)


def _axis_aligned_data(eigenvalues, n_samples=2000):
    """Unit rows along the axes (and zero rows): XᵀX/n is exactly diag(eigenvalues)."""
    counts = np.rint(np.asarray(eigenvalues) * n_samples).astype(int)
    assert np.allclose(counts / n_samples, eigenvalues) and counts.sum() <= n_samples
    d = counts.size
    X = np.zeros((n_samples, d))
    X[np.arange(counts.sum()), np.repeat(np.arange(d), counts)] = 1.0
    X[::2] *= -1.0
    return X


def _relative_tolerance(n_values, kurtosis=3.0, n_se=4.5):
    """n_se standard errors of a standard-deviation estimate from n_values draws."""
    return n_se * math.sqrt((kurtosis - 1.0) / (4.0 * n_values))


def _noise_samples(estimator_factory, X, target, n_releases=N_RELEASES):
    draws = []
    for seed in SEEDS[:n_releases]:
        release = estimator_factory(seed).fit(X).covariance_
        draws.append((release - target)[UPPER])
    return np.array(draws)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 5))
    X *= 2.0 / np.maximum(np.linalg.norm(X, axis=1), 2.0)[:, None]
    return X  # rows within the public bound 2


@pytest.mark.parametrize("noise", ["hardened", "float"])
def test_gaussian_noise_law_and_scale(data, noise):
    """Both ways of drawing (docs/algorithms.rst §17): the hardened discrete
    Gaussian on a grid has the continuous law's scale and shape."""
    rho, bound = 0.5, 2.0
    n = len(data)
    sigma = bound**2 / (math.sqrt(rho) * n)  # §3.1: 1/(√ρ n) at unit scale
    noise = _noise_samples(
        lambda s: GaussianCovariance(
            rho=rho, norm_bound=bound, noise=noise, random_state=s
        ),
        data,
        data.T @ data / n,
    )
    tolerance = _relative_tolerance(noise.size)
    assert tolerance < 0.05
    assert np.std(noise) / sigma == pytest.approx(1.0, abs=tolerance)
    # Diagonal and off-diagonal entries have the same scale (SGW, §0.1).
    diagonal = noise[:, UPPER[0] == UPPER[1]]
    assert np.std(diagonal) / sigma == pytest.approx(
        1.0, abs=_relative_tolerance(diagonal.size)
    )
    assert abs(noise.mean()) < 4.5 * sigma / math.sqrt(noise.size)
    assert stats.kstest(noise.ravel() / sigma, "norm").pvalue > 1e-3


def test_gaussian_noise_of_the_private_mean(data):
    rho, bound = 0.5, 2.0
    n = len(data)
    # The mean is M̂_x0/(c_x c_0) with c_x c_0 = 1/2 (§8.2): twice the entry noise.
    sigma = 2.0 * bound / (math.sqrt(rho) * n)
    mean = data.mean(axis=0)
    noise = np.array(
        [
            GaussianCovariance(
                rho=rho, norm_bound=bound, assume_centered=False, random_state=s
            )
            .fit(data)
            .location_
            - mean
            for s in SEEDS[:N_RELEASES]
        ]
    )
    assert np.std(noise) / sigma == pytest.approx(
        1.0, abs=_relative_tolerance(noise.size)
    )


@pytest.mark.parametrize("noise", ["hardened", "float"])
def test_laplace_noise_law_and_scale(data, noise):
    epsilon, bound = 2.0, 2.0
    n, d = data.shape
    # §3.8 with the tight ℓ1 sensitivity min(√(d(d+1)), d/√2 + 1)/n.
    l1 = min(math.sqrt(d * (d + 1)), d / math.sqrt(2) + 1) / n
    scale = bound**2 * l1 / epsilon
    noise = _noise_samples(
        lambda s: LaplaceCovariance(
            epsilon=epsilon, norm_bound=bound, noise=noise, random_state=s
        ),
        data,
        data.T @ data / n,
    )
    # E|Lap(b)| = b and Var|Lap(b)| = b²: mean absolute value estimates b.
    tolerance = 4.5 / math.sqrt(noise.size)
    assert tolerance < 0.06
    assert np.mean(np.abs(noise)) / scale == pytest.approx(1.0, abs=tolerance)
    assert stats.kstest(noise.ravel() / scale, "laplace").pvalue > 1e-3


def _separate_noise(estimator_factory, eigenvalues, n_releases=1200):
    """Eigenvalue noise and first-order eigenvector noise of separate releases.

    With Σ = diag(λ) (distinct λ) and a small symmetric noise σW, the eigenvector
    matrix of Σ + σW is I + A + O(σ²) with A_jk = σW_jk/(λ_k − λ_j). So
    P_jk (λ_k − λ_j) for j < k recovers σW_jk, the noise of the eigenvector part.
    """
    X = _axis_aligned_data(eigenvalues)
    lam = np.asarray(eigenvalues)
    value_noise, vector_noise = [], []
    j, k = np.triu_indices(lam.size, 1)
    for seed in SEEDS[:n_releases]:
        values, vectors = eigh_descending(estimator_factory(seed).fit(X).covariance_)
        vectors = vectors * np.sign(np.diag(vectors))
        value_noise.append(values - lam)
        vector_noise.append(vectors[j, k] * (lam[k] - lam[j]))
    return np.array(value_noise), np.array(vector_noise)


EIGENVALUES = [0.4, 0.25, 0.15, 0.08, 0.02]  # sum < 1: the projection is inactive


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.5, 0.25])
def test_separate_gaussian_scales(share):
    rho, n = 8.0, 2000
    values, vectors = _separate_noise(
        lambda s: SeparateCovariance(rho=rho, eigenvalue_share=share, random_state=s),
        EIGENVALUES,
    )
    # §3.2: eigenvalues (ℓ2 sensitivity √2/n) at vρ: σ = 1/(√(vρ) n); GaussCov at
    # (1 − v)ρ: σ = 1/(√((1 − v)ρ) n). Both √2/(√ρ n) at the paper's v = 1/2.
    value_sigma = 1.0 / (math.sqrt(share * rho) * n)
    vector_sigma = 1.0 / (math.sqrt((1.0 - share) * rho) * n)
    assert np.std(values) / value_sigma == pytest.approx(
        1.0, abs=_relative_tolerance(values.size)
    )
    assert np.std(vectors) / vector_sigma == pytest.approx(
        1.0, abs=_relative_tolerance(vectors.size)
    )
    assert stats.kstest(values.ravel() / value_sigma, "norm").pvalue > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.5, 0.25])
def test_separate_laplace_scales(share):
    epsilon, n, d = 200.0, 2000, 5
    values, vectors = _separate_noise(
        lambda s: SeparateCovariance(
            epsilon=epsilon, eigenvalue_share=share, random_state=s
        ),
        EIGENVALUES,
    )
    # §3.8: eigenvalues + Lap((2/n)/(vε)); eigenvectors of LapCov((1 − v)ε).
    value_scale = (2.0 / n) / (share * epsilon)
    vector_scale = (min(math.sqrt(d * (d + 1)), d / math.sqrt(2) + 1) / n) / (
        (1.0 - share) * epsilon
    )
    assert np.mean(np.abs(values)) / value_scale == pytest.approx(
        1.0, abs=4.5 / math.sqrt(values.size)
    )
    assert np.mean(np.abs(vectors)) / vector_scale == pytest.approx(
        1.0, abs=4.5 / math.sqrt(vectors.size)
    )
    assert stats.kstest(values.ravel() / value_scale, "laplace").pvalue > 1e-3


def test_projection_noise_scale_when_the_projection_is_inactive():
    # Σ well inside {PSD, tr ≤ 1}: the default projection of every release
    # (onto the public bound) returns GaussCov unchanged.
    rho, n = 50.0, 2000
    lam = [0.2, 0.18, 0.16, 0.14, 0.12]
    X = _axis_aligned_data(lam)
    sigma = 1.0 / (math.sqrt(rho) * n)
    noise = _noise_samples(
        lambda s: GaussianCovariance(rho=rho, random_state=s), X, np.diag(lam)
    )
    assert np.std(noise) / sigma == pytest.approx(
        1.0, abs=_relative_tolerance(noise.size)
    )


def _iterative_noise(estimator_factory, eigenvalues, n_releases):
    """Eigenvalue noise and the first draw's spread of IterativeEigen releases.

    With Σ = diag(λ) the first draw has density ∝ exp(−Σ_j a_j y_j²) with
    a_j = κ(λ_1 − λ_j), κ = c·ε_1·n (docs/algorithms.rst §5.3); for large a_j its
    coordinates j ≥ 2 are N(0, 1/(2a_j)) up to O(1/a_j). The release's top
    eigenvector is that draw, and its eigenvalues are the noisy ones.
    """
    X = _axis_aligned_data(eigenvalues)
    lam = np.asarray(eigenvalues)
    value_noise, first_draw = [], []
    for seed in SEEDS[:n_releases]:
        values, vectors = eigh_descending(estimator_factory(seed).fit(X).covariance_)
        value_noise.append(values - lam)
        first_draw.append(vectors[1:, 0])
    return np.array(value_noise), np.array(first_draw)


def _standardised(first_draw, kappa):
    """The first draw's coordinates j ≥ 2 times √(2a_j): N(0, 1) if κ is right."""
    return first_draw * np.sqrt(
        2.0 * kappa * (EIGENVALUES[0] - np.array(EIGENVALUES[1:]))
    )


@pytest.mark.slow
def test_iterative_eigen_laplace_scales():
    epsilon, n, d = 200.0, 2000, 5
    values, draw = _iterative_noise(
        lambda s: IterativeEigenCovariance(
            epsilon=epsilon, budget_split="uniform", random_state=s
        ),
        EIGENVALUES,
        n_releases=2000,
    )
    # §5.2: eigenvalues + Lap((2/n)/ε_0), ε_0 = ε/2; the d − 1 paid draws share
    # ε/2 equally (the last, on {±1}, is free), so κ = c·(ε/2)/(d − 1)·n.
    value_scale = (2.0 / n) / (epsilon / 2)
    assert np.mean(np.abs(values)) / value_scale == pytest.approx(
        1.0, abs=4.5 / math.sqrt(values.size)
    )
    assert stats.kstest(values.ravel() / value_scale, "laplace").pvalue > 1e-3
    kappa = 0.25 * (epsilon / 2) / (d - 1) * n
    standardised = _standardised(draw, kappa)
    assert np.std(standardised) == pytest.approx(
        1.0, abs=_relative_tolerance(standardised.size)
    )
    assert stats.kstest(standardised.ravel(), "norm").pvalue > 1e-3


@pytest.mark.slow
def test_iterative_eigen_gaussian_scales():
    rho, n, d = 4000.0, 2000, 5
    values, draw = _iterative_noise(
        lambda s: IterativeEigenCovariance(
            rho=rho, budget_split="uniform", random_state=s
        ),
        EIGENVALUES,
        n_releases=2000,
    )
    # §5.2 zCDP path: eigenvalues by the Gaussian mechanism at ρ/2 (ℓ2 sensitivity
    # √2/n): σ = 1/(n√(ρ/2)); draws at ε_i = √(2(ρ/2)/(d − 1)) (the free last
    # draw's share spread over the others).
    value_sigma = 1.0 / (n * math.sqrt(rho / 2))
    assert np.std(values) / value_sigma == pytest.approx(
        1.0, abs=_relative_tolerance(values.size)
    )
    kappa = 0.25 * math.sqrt(rho / (d - 1)) * n
    standardised = _standardised(draw, kappa)
    assert np.std(standardised) == pytest.approx(
        1.0, abs=_relative_tolerance(standardised.size)
    )


def test_nuclear_laplace_radius_law_and_scale(data):
    """Symmetric variant, no projection: the release minus Σ is Z on Sym(d), and
    ‖Z‖_* = Σ|λ(Z)| ~ Gamma(d(d+1)/2, r), r = 2B²/(εn)
    (docs/algorithms.rst §6.1-6.2)."""
    epsilon, bound = 2.0, 2.0
    n, d = data.shape
    scale = bound**2 * 2.0 / (epsilon * n)
    dimension = d * (d + 1) // 2
    target = data.T @ data / n
    radii = np.array(
        [
            np.abs(
                np.linalg.eigvalsh(
                    NuclearLaplaceCovariance(
                        epsilon=epsilon,
                        norm_bound=bound,
                        projection=None,
                        n_sweeps=5,
                        random_state=s,
                    )
                    .fit(data)
                    .covariance_
                    - target
                )
            ).sum()
            for s in SEEDS[:N_RELEASES]
        ]
    )
    # The mean of Gamma(D, r) is Dr with relative sd 1/√D per draw.
    assert radii.mean() / (dimension * scale) == pytest.approx(
        1.0, abs=4.5 / math.sqrt(dimension * N_RELEASES)
    )
    assert stats.kstest(radii, stats.gamma(dimension, scale=scale).cdf).pvalue > 1e-3


def test_projection_covariance_noise_scale_after_its_trace_share():
    # ProjectionCovariance's default spends 1/8 of ρ on the private trace
    # (§3.7), so GaussCov runs at 7ρ/8: σ = 1/(√(7ρ/8)·n). Σ is well inside
    # the ball, so the projection onto {PSD, tr ≤ t̂r} rarely moves it.
    rho, n = 50.0, 2000
    lam = [0.2, 0.18, 0.16, 0.14, 0.12]
    X = _axis_aligned_data(lam)
    sigma = 1.0 / (math.sqrt(7 * rho / 8) * n)
    noise = _noise_samples(
        lambda s: ProjectionCovariance(rho=rho, random_state=s), X, np.diag(lam)
    )
    assert np.std(noise) / sigma == pytest.approx(
        1.0, abs=_relative_tolerance(noise.size)
    )
