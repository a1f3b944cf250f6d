"""Hardened noise (docs/algorithms.rst §17): exact discrete samplers, releases on
a grid, sensitivities that cover the float error, and the CSPRNG.

Sampler laws are checked by χ² on 2·10⁵ draws against the exact pmf (bin masses
from closed forms, tails pooled into two bins), at the 10⁻⁴ level; the same
draws against the law of a 10% larger scale must fail, so the test has the
power to see a scale error of that size (at 2·10⁵ draws the χ² non-centrality
of a 10% scale error is at least 1 500 on about 60 bins, against a critical
value near 110).
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from skprivcov import GaussianCovariance
from skprivcov._data._statistics import unit_ball_statistics
from skprivcov.base import ReleasedCovarianceMixin
from skprivcov.mechanisms import (
    gaussian_covariance,
    gaussian_scale,
    laplace_covariance,
    laplace_scale,
    noisy_eigenvalues,
    private_trace_upper_bound,
    second_moment_l1_sensitivity,
    second_moment_l2_sensitivity,
)
from skprivcov.mechanisms.noise import _discrete as _discrete
from skprivcov.mechanisms.noise._discrete import (
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
    words_of,
)
from skprivcov.mechanisms.noise._generators import release_generator
from skprivcov.mechanisms.noise._hardened import (
    gram_error_bound,
    grid_laplace,
    noise_plan,
)
from skprivcov.privacy import PrivacyCost
from skprivcov.utils import instances

LEVEL = 1e-4
N_DRAWS = 200_000


def _words(seed):
    return words_of(np.random.default_rng(seed))


# --- The samplers' laws --------------------------------------------------------------


def _laplace_masses(t, edges):
    """Masses of [edges[i], edges[i+1]) for integer edges, plus the two tails,
    under the discrete Laplace of scale t: P(X ≥ m) = q^m/(1 + q) for m ≥ 1,
    q = e^{−1/t}, and the law is symmetric."""
    t = float(t)

    def tail(m):
        return math.exp(-m / t) / (1.0 + math.exp(-1.0 / t))

    cdf = [tail(1 - k) if k <= 0 else 1.0 - tail(k) for k in edges]  # P(X < k)
    return np.concatenate([[cdf[0]], np.diff(cdf), [1.0 - cdf[-1]]])


def _gaussian_masses(variance, edges):
    """Masses of [edges[i], edges[i+1]) under N_ℤ(0, σ²), plus the tails: the
    pmf summed over the integers for σ ≤ 1000; beyond, the normal mass of
    [a − ½, b − ½) (the midpoint rule per integer, relative error below
    1/(24σ²) < 1e−7 per bin)."""
    sigma = math.sqrt(variance)
    edges = np.asarray(edges)
    if sigma <= 1000:
        reach = math.ceil(40 * sigma) + 1
        support = np.arange(-reach, reach + 1)
        pmf = np.exp(-(support.astype(float) ** 2) / (2.0 * variance))
        pmf /= pmf.sum()
        below = np.concatenate([[0.0], np.cumsum(pmf)])
        cdf = below[np.searchsorted(support, edges)]  # P(X < k)
    else:
        cdf = stats.norm.cdf((edges.astype(float) - 0.5) / sigma)
    return np.concatenate([[cdf[0]], np.diff(cdf), [1.0 - cdf[-1]]])


def _binned(draws, edges):
    """Counts of x < edges[0], of each [edges[i], edges[i+1]), and of
    x ≥ edges[-1]."""
    return np.bincount(
        np.searchsorted(edges, draws, side="right"), minlength=len(edges) + 1
    )


def _chi_square_p(counts, masses):
    """The χ² p-value, adjacent bins merged until each expects at least 5."""
    expected = masses * counts.sum()
    merged_counts, merged_expected = [0.0], [0.0]
    for count, mass in zip(counts, expected, strict=True):
        if merged_expected[-1] >= 5.0:
            merged_counts.append(0.0)
            merged_expected.append(0.0)
        merged_counts[-1] += count
        merged_expected[-1] += mass
    if merged_expected[-1] < 5.0 and len(merged_expected) > 1:
        merged_counts[-2] += merged_counts.pop()
        merged_expected[-2] += merged_expected.pop()
    merged_counts, merged_expected = np.array(merged_counts), np.array(merged_expected)
    statistic = np.sum((merged_counts - merged_expected) ** 2 / merged_expected)
    return stats.chi2.sf(statistic, len(merged_counts) - 1)


def _edges(scale, spread):
    """Integer bin edges over ±spread·scale (at least ±12), about 60 bins."""
    top = max(12, math.ceil(scale * spread))
    step = max(1, top // 30)
    top = step * math.ceil(top / step)
    return np.arange(-top, top + step, step)


LAPLACE_SCALES = [1, 3, Fraction(7, 2), Fraction(1, 3), 1000, 2**40]


@pytest.mark.parametrize("scale", LAPLACE_SCALES, ids=str)
def test_discrete_laplace_has_its_exact_law(scale):
    draws = discrete_laplace(scale, N_DRAWS, _words(1))
    t = float(scale)
    edges = _edges(t, 6.0)
    counts = _binned(draws, edges)
    assert _chi_square_p(counts, _laplace_masses(t, edges)) > LEVEL
    assert _chi_square_p(counts, _laplace_masses(1.1 * t, edges)) < LEVEL


GAUSSIAN_SIGMAS = [0.5, 1.0, 2.7, 100.0, 2.0**20, 2.0**45]


@pytest.mark.parametrize("sigma", GAUSSIAN_SIGMAS, ids=str)
def test_discrete_gaussian_has_its_exact_law(sigma):
    draws, variance = discrete_gaussian(sigma, N_DRAWS, _words(2))
    top = math.ceil(sigma) + 1
    assert variance == top * (top - 1) and variance >= sigma**2
    edges = _edges(math.sqrt(variance), 4.5)
    counts = _binned(draws, edges)
    assert _chi_square_p(counts, _gaussian_masses(variance, edges)) > LEVEL
    assert _chi_square_p(counts, _gaussian_masses(1.21 * variance, edges)) < LEVEL


def test_scales_beyond_int64_draw_python_ints_of_the_right_law():
    """Extreme budgets need scales beyond 2^50 (the rounding alone is √m or m
    grid units): the draws are then Python ints, still exact. At these scales
    the discrete laws are the continuous ones to 1e−20: KS on the scaled draws,
    and a 10% larger scale fails."""
    t = 3 * 2**70 + 1
    laplace = discrete_laplace(t, 100_000, _words(10)).astype(float) / float(t)
    assert stats.kstest(laplace, "laplace").pvalue > LEVEL
    assert stats.kstest(laplace / 1.1, "laplace").pvalue < LEVEL
    draws, variance = discrete_gaussian(1e30, 100_000, _words(11))
    gaussian = draws.astype(float) / math.sqrt(variance)
    assert draws.dtype == object and variance >= 1e60
    assert stats.kstest(gaussian, "norm").pvalue > LEVEL
    assert stats.kstest(gaussian / 1.1, "norm").pvalue < LEVEL


def test_small_discrete_gaussian_matches_its_pmf_point_by_point():
    """σ² = 2 (T = 2): the pmf summed directly, every integer its own bin."""
    draws, variance = discrete_gaussian(1.0, 10**6, _words(3))
    assert variance == 2
    support = np.arange(-9, 10)
    weights = np.exp(-(np.arange(-60, 61) ** 2) / (2.0 * variance))
    pmf = np.exp(-(support**2) / (2.0 * variance)) / weights.sum()
    counts = np.array([np.sum(draws == k) for k in support])
    masses = np.concatenate([pmf, [1.0 - pmf.sum()]])
    counts = np.concatenate([counts, [draws.size - counts.sum()]])
    assert _chi_square_p(counts[:-1], masses[:-1] / masses[:-1].sum()) > LEVEL


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["laplace", "gaussian"])
def test_the_exact_fallback_draws_the_same_law(monkeypatch, sampler):
    """With the float filter's band widened to 0.05, about a tenth of all
    coins (and of the geometric draws) are decided by the exact rational path:
    the law is still exact."""
    monkeypatch.setattr(_discrete, "FILTER_BAND", 0.05)
    if sampler == "laplace":
        draws = discrete_laplace(Fraction(5, 2), 60_000, _words(4))
        edges = _edges(2.5, 6.0)
        masses = _laplace_masses(2.5, edges)
    else:
        draws, variance = discrete_gaussian(3.0, 60_000, _words(5))
        edges = _edges(math.sqrt(variance), 4.5)
        masses = _gaussian_masses(variance, edges)
    assert _chi_square_p(_binned(draws, edges), masses) > LEVEL


# Band 0.2 sends most coins to the exact path (about 3 s), as the slow
# test_the_exact_fallback_draws_the_same_law does.
@pytest.mark.parametrize("band", [2.0**-30, pytest.param(0.2, marks=pytest.mark.slow)])
def test_exp_coins_have_probability_exp_minus_gamma(monkeypatch, band):
    """Bernoulli(exp(−γ)) for γ from 0 to 40, by the filter and (band 0.2) mostly
    by the exact path; each frequency within 5 binomial deviations."""
    monkeypatch.setattr(_discrete, "FILTER_BAND", band)
    gammas = [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2), Fraction(7)]
    n = 200_000 if band < 0.1 else 3_000
    for gamma in gammas:
        coins = bernoulli_exp(
            np.full(n, float(gamma)), lambda i, g=gamma: g, _words(int(gamma * 6))
        )
        p = math.exp(-gamma)
        assert abs(coins.mean() - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12


def test_rational_bounds_enclose_exp():
    mpmath.mp.prec = 400
    for gamma in [
        Fraction(0),
        Fraction(1, 3),
        Fraction(7, 2),
        Fraction(25),
        Fraction(10**5 + 1, 3),
    ]:
        low, high = _discrete._exp_bounds(gamma, 120)
        exact = mpmath.exp(-mpmath.mpf(gamma.numerator) / gamma.denominator)
        assert mpmath.mpf(low.numerator) / low.denominator <= exact
        assert exact <= mpmath.mpf(high.numerator) / high.denominator
        assert high - low <= Fraction(1, 2**118)


def test_numpy_exp_is_well_inside_the_filter_band():
    """The filter assumes |np.exp(−x) − e^{−x}| ≤ 2⁻⁴⁰ (the band is 2⁻³⁰): checked
    on 20 000 points of [0, 50] and near 0."""
    mpmath.mp.prec = 80
    x = np.concatenate(
        [np.random.default_rng(6).uniform(0, 50, 20_000), np.geomspace(1e-300, 1, 200)]
    )
    approximate = np.exp(-x)
    worst = max(
        abs(float(mpmath.exp(-mpmath.mpf(v))) - a)
        for v, a in zip(x, approximate, strict=True)
    )
    assert worst <= 2.0**-40


def test_seeded_draws_are_reproducible_and_urandom_is_used_without_a_seed(monkeypatch):
    calls = []
    real = _discrete.os.urandom

    def counting(size):
        calls.append(size)
        return real(size)

    monkeypatch.setattr(_discrete.os, "urandom", counting)
    X = np.random.default_rng(7).normal(size=(300, 4)) * 0.3
    first = GaussianCovariance(rho=1.0, random_state=5).fit(X).covariance_
    second = GaussianCovariance(rho=1.0, random_state=5).fit(X).covariance_
    np.testing.assert_array_equal(first, second)
    assert calls == []
    GaussianCovariance(rho=1.0).fit(X)
    assert sum(calls) >= 8 * 10  # at least one word per noised coordinate


# --- Releases on a grid, with the calibrated noise ------------------------------------


def _stat(d=12, n=500, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    return unit_ball_statistics(X, 1.0)


def test_hardened_releases_are_exact_multiples_of_the_grid():
    """The output minus the rounded statistic is g times an integer in every
    entry: the low bits carry nothing of the statistic (Mironov 2012)."""
    stats_ = _stat()
    n, d = stats_.n_samples, stats_.second_moment.shape[0]
    for budget, function, sensitivity in [
        (PrivacyCost.zcdp(0.5), gaussian_covariance, second_moment_l2_sensitivity(n)),
        (PrivacyCost.pure(1.0), laplace_covariance, second_moment_l1_sensitivity(d, n)),
    ]:
        # A float statistic (no integers attached: the exact ones are
        # tested in test_fixed_point.py) is rounded to its grid.
        release, _ = function(
            np.asarray(stats_.second_moment),
            n,
            budget,
            release_generator(0, noise="hardened"),
        )
        plan = noise_plan(sensitivity, budget, d * (d + 1) // 2, statistic_error=0.0)
        units = release / plan.grid
        assert np.all(units == np.rint(units))
        np.testing.assert_array_equal(release, release.T)


def _deviation_tolerance(draws, laplace):
    """Five standard errors of the scale estimate: of the standard deviation
    (relative 1/√(2N)) or of the mean absolute value (relative 1/√N)."""
    tolerance = 5.0 / math.sqrt(draws if laplace else 2 * draws)
    assert tolerance < 0.1  # a 10% scale error fails
    return tolerance


def _upper(matrix):
    return matrix[np.triu_indices(matrix.shape[0])]


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
def test_hardened_matrix_noise_has_the_continuous_scale(notion):
    stats_ = _stat(d=10)
    n, d = stats_.n_samples, 10
    if notion == "zcdp":
        budget, function = PrivacyCost.zcdp(0.5), gaussian_covariance
        scale = gaussian_scale(second_moment_l2_sensitivity(n), 0.5)
    else:
        budget, function = PrivacyCost.pure(1.0), laplace_covariance
        scale = laplace_scale(second_moment_l1_sensitivity(d, n), 1.0)
    noise = np.concatenate(
        [
            _upper(
                function(
                    stats_.second_moment,
                    n,
                    budget,
                    release_generator(s, noise="hardened"),
                )[0]
                - stats_.second_moment
            )
            for s in range(60)
        ]
    )
    estimate = np.mean(np.abs(noise)) if notion == "pure" else np.std(noise)
    tolerance = _deviation_tolerance(noise.size, notion == "pure")
    assert estimate == pytest.approx(scale, rel=tolerance)


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
def test_hardened_eigenvalue_and_trace_noise_have_the_continuous_scale(notion):
    n = 1000
    budget = PrivacyCost.zcdp(0.5) if notion == "zcdp" else PrivacyCost.pure(1.0)
    values = np.linspace(0.3, 0.01, 20)
    eigen = np.concatenate(
        [
            noisy_eigenvalues(values, n, budget, release_generator(s, noise="hardened"))
            - values
            for s in range(150)
        ]
    )
    traces = np.array(
        [
            private_trace_upper_bound(
                Fraction(1, 3),
                n,
                budget,
                None,
                release_generator(s, noise="hardened"),
                ceiling=10.0,
            )[0]
            - 1 / 3
            for s in range(3000)
        ]
    )
    if notion == "zcdp":
        eigen_scale = gaussian_scale(math.sqrt(2) / n, 0.5)
        trace_scale = gaussian_scale(1 / n, 0.5)
    else:
        eigen_scale = laplace_scale(2 / n, 1.0)
        trace_scale = laplace_scale(1 / n, 1.0)
    for noise, scale in [(eigen, eigen_scale), (traces, trace_scale)]:
        laplace = notion == "pure"
        estimate = np.mean(np.abs(noise)) if laplace else np.std(noise)
        assert estimate == pytest.approx(
            scale, rel=_deviation_tolerance(noise.size, laplace)
        )


def test_hardened_sparse_vector_noise_has_its_laplace_scale():
    draws, grid = grid_laplace(0.25, 20_000, release_generator(0, noise="hardened"))
    noise = draws * float(grid)
    assert np.mean(np.abs(noise)) == pytest.approx(
        0.25, rel=_deviation_tolerance(noise.size, True)
    )
    assert float(grid) <= 0.25 * 2.0**-48 and float(grid).hex().startswith("0x1.0")


# Every registered covariance estimator whose default draws hardened noise.
HARDENED = [
    pytest.param(estimator, id=name)
    for name, estimator in instances(variants=False, kind=ReleasedCovarianceMixin)
    if estimator.get_params().get("noise") == "hardened"
]


@pytest.mark.parametrize("estimator", HARDENED)
def test_hardened_fits_spend_their_budget_exactly(estimator):
    X = np.random.default_rng(8).normal(size=(400, 5)) * 0.3
    fitted = estimator.set_params(random_state=0).fit(X)
    assert fitted.get_params()["noise"] == "hardened"
    assert fitted.privacy_spent_ == estimator.fit_cost()


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
def test_the_discrete_guarantee_is_within_the_budget(notion):
    """The discrete mechanism's own cost, computed exactly, is at most the
    budget and within a relative 1e−6 of it, from tiny to huge budgets."""
    for parameter in [1e-30, 1e-12, 1e-3, 0.5, 3.0, 1e4, 1e30]:
        for n, d in [(1, 1), (100, 3), (10**5, 1000), (10**9, 4000)]:
            budget = (
                PrivacyCost.zcdp(parameter)
                if notion == "zcdp"
                else PrivacyCost.pure(parameter)
            )
            sensitivity = (
                second_moment_l2_sensitivity(n)
                if notion == "zcdp"
                else second_moment_l1_sensitivity(d, n)
            )
            plan = noise_plan(
                sensitivity,
                budget,
                d * (d + 1) // 2,
                statistic_error=gram_error_bound(n, d),
            )
            cost = plan.discrete_cost()
            assert cost <= Fraction(parameter)
            if notion == "zcdp":
                assert plan.units > 0
            else:
                assert isinstance(plan.units, int)
            assert cost >= Fraction(parameter) * Fraction(999_999, 10**6) or n >= 10**9


# --- The float error of the statistic: tests/test_fixed_point.py (§19) ------------


# --- Review findings (helper-15) ------------------------------------------------------


def test_a_copied_or_pickled_release_generator_stays_hardened():
    import copy
    import pickle

    rng = release_generator(3, noise="hardened")
    for other in (copy.copy(rng), copy.deepcopy(rng), pickle.loads(pickle.dumps(rng))):
        assert (other.noise, other.secure) == ("hardened", False)
        assert other.standard_normal() == copy.deepcopy(rng).standard_normal()


def test_the_sparse_vector_grid_never_exceeds_one():
    """AboveThreshold's proof shifts the noise by 1 and 2: the lattice must hold
    them, even at ε = 1e−20 where the scale-based grid would be 2^19."""
    draws, grid = grid_laplace(2.0 / 1e-20, 50, release_generator(0, noise="hardened"))
    assert grid == 1 and draws.dtype == object  # a scale beyond 2^50: Python ints


def test_only_the_upper_triangle_is_released():
    """A statistic that is not exactly symmetric publishes nothing of its lower
    triangle: the release is the mirrored upper one."""
    from skprivcov.mechanisms.noise import hardened_noise

    upper = np.triu(np.random.default_rng(12).uniform(size=(4, 4)))
    skewed = upper + np.tril(upper.T, -1) * (1 + 1e-9)
    releases = [
        hardened_noise(
            matrix, 0.01, PrivacyCost.zcdp(1.0), release_generator(0, noise="hardened"),
            symmetric=True,
        )
        for matrix in (upper + np.triu(upper, 1).T, skewed)
    ]  # fmt: skip
    np.testing.assert_array_equal(releases[0], releases[1])


def test_the_prediction_loss_score_is_an_exact_sum():
    """Each loss over c floored to a multiple of 2⁻⁵², the integers added: two
    neighbouring held-out sets move the score by at most c/n exactly."""
    from skprivcov.linear_model import PrivateRidge
    from skprivcov.model_selection import PredictionLossScore

    rng = np.random.default_rng(13)
    X = rng.uniform(-1, 1, (20_000, 2))
    y = np.full(20_000, 1 / 3)
    model = PrivateRidge(estimator=GaussianCovariance(rho=1.0, random_state=0))
    model.fit(X, X @ [0.3, -0.2])
    score = PredictionLossScore(loss="absolute", clip=0.7)
    first = score.statistic(model, X, y)
    y[5] = 1e9  # its loss moves to the cap
    second = score.statistic(model, X, y)
    assert isinstance(first, Fraction)
    assert abs(first - second) <= Fraction(0.7) / 20_000


def test_more_rows_than_the_error_bound_allows_are_refused_before_spending():
    import dask.array as da  # in the test extra

    from skprivcov import PrivacyAccountant

    accountant = PrivacyAccountant(rho=1.0)
    X = da.zeros((2**50 + 1, 2), chunks=(2**40, 2))
    with pytest.raises(ValueError, match="at most 2\\*\\*50 rows"):
        GaussianCovariance(accountant=accountant).fit(X)
    assert accountant.history() == []
