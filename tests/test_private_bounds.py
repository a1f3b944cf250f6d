"""Private bounds inside the budget (docs/algorithms.rst §18; issue 33).

The private quantile on a public grid (the exponential mechanism, sampled
exactly), the row-norm counts it reads, and ``norm_bound="auto"``: its share
of the budget, the bound it publishes, its accuracy, and its refusals.
"""

import math

import numpy as np
import pytest
from scipy import sparse, stats

from skprivcov import (
    AutoCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov._random import release_generator
from skprivcov._stats import row_norm_counts
from skprivcov.mechanisms._quantile import (
    norm_grid,
    private_quantile,
    quantile_epsilon,
    quantile_rank_error,
)


def _interval_utility(counts, target):
    """−max(t − c_k, c_{k−1} − t, 0), c_{−1} = 0 (§18.1 as implemented)."""
    counts = np.asarray(counts, float)
    below = np.concatenate(([0.0], counts[:-1]))
    return -np.maximum.reduce([target - counts, below - target, np.zeros_like(counts)])


def _exponential_mechanism_law(counts, target, epsilon):
    utility = _interval_utility(counts, target)
    weights = np.exp(epsilon * (utility - utility.max()) / 2.0)
    return weights / weights.sum()


@pytest.mark.parametrize("noise", ["hardened", "float"])
def test_the_private_quantile_has_the_exponential_mechanism_law(noise):
    """χ² of 20 000 exact draws against P(k) ∝ exp(ε·u_k/2); the same draws
    against the law at 1.1·ε fail (the test has the power to see a 10% error
    in ε)."""
    counts = np.array([0, 3, 7, 12, 20, 26, 29, 30, 30, 30])
    target, epsilon = 24, 0.6
    rng = release_generator(5, noise=noise)
    draws = np.array(
        [private_quantile(counts, target, epsilon, rng) for _ in range(20000)]
    )
    observed = np.bincount(draws, minlength=counts.size)
    law = _exponential_mechanism_law(counts, target, epsilon)
    assert stats.chisquare(observed, law * draws.size).pvalue > 1e-3
    wrong = _exponential_mechanism_law(counts, target, 1.1 * epsilon)
    assert stats.chisquare(observed, wrong * draws.size).pvalue < 1e-6


def test_the_quantile_rank_error_bound_holds():
    """With probability ≥ 1 − β the chosen candidate's cell is within
    2·ln(K/β)/ε rows of the target (McSherry–Talwar): checked on 2 000 draws
    at β = 0.05."""
    rng = np.random.default_rng(0)
    norms = np.sort(rng.lognormal(size=3000))
    grid = norm_grid(2.0**-8, 2.0**8)
    counts = np.searchsorted(norms, grid, side="right")
    epsilon, beta, target = 0.05, 0.05, 2400
    bound = quantile_rank_error(grid.size, epsilon, beta)
    generator = release_generator(1, noise="hardened")
    utility = _interval_utility(counts, target)
    errors = -np.array(
        [
            utility[private_quantile(counts, target, epsilon, generator)]
            for _ in range(2000)
        ]
    )
    # Misses are Binomial(2000, ≤ β): 4.5 standard deviations above 2000·β.
    assert np.sum(errors > bound) <= 2000 * beta + 4.5 * math.sqrt(2000 * beta)


def test_a_zcdp_share_buys_the_bounded_range_epsilon():
    """ε = √(8ρ) (ε²/8-zCDP for the exponential mechanism, Cesar–Rogers),
    never above; a pure share is its ε."""
    assert quantile_epsilon(PrivacyCost.zcdp(0.02)) ** 2 / 8 <= 0.02
    assert quantile_epsilon(PrivacyCost.zcdp(0.02)) == pytest.approx(0.4)
    assert 0.3 * (1 - 1e-14) < quantile_epsilon(PrivacyCost.pure(0.3)) < 0.3
    # Parts made by float products (ε/(2d)) still compose to at most ε.
    from fractions import Fraction

    for epsilon in (6.373247256341329, 0.1, 1e-9, 12345.0):
        for d in (3, 5, 7):
            part = quantile_epsilon(PrivacyCost.pure(epsilon).scaled(1 / (2 * d)))
            assert 2 * d * Fraction(part) <= Fraction(epsilon)


def test_the_grid_is_public_and_spans_its_range():
    grid = norm_grid()
    assert grid[0] == 0.0 and grid[1] == 2.0**-32 and grid[-1] >= 2.0**32
    np.testing.assert_allclose(grid[2:] / grid[1:-1], 2.0**0.25)
    with pytest.raises(ValueError, match="0 < low < high"):
        norm_grid(1.0, 0.5)


def _formats(X):
    yield "dense", X
    yield "float32", X.astype(np.float32)
    yield "csr", sparse.csr_matrix(X)
    yield "csc", sparse.csc_matrix(X)
    da = pytest.importorskip("dask.array")
    yield "dask", da.from_array(X, chunks=(37, 3))


def test_the_norm_counts_are_exact_in_every_format():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3)) * rng.lognormal(size=(200, 1))
    X[:5] = 0.0
    grid = norm_grid(2.0**-4, 2.0**6)
    norms = np.linalg.norm(X, axis=1)
    expected = (norms[:, None] <= grid[None, :]).sum(axis=0)
    for name, data in _formats(X):
        counts = row_norm_counts(data, grid)
        if name == "float32":
            norms32 = np.linalg.norm(X.astype(np.float32).astype(float), axis=1)
            expected32 = (norms32[:, None] <= grid[None, :]).sum(axis=0)
            np.testing.assert_array_equal(counts, expected32)
        else:
            np.testing.assert_array_equal(counts, expected, err_msg=name)


def test_a_nonfinite_row_is_refused_after_the_charge_or_counted_as_zero():
    X = np.ones((10, 2))
    X[3, 1] = np.nan
    grid = norm_grid(0.5, 4.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        row_norm_counts(X, grid)
    counts = row_norm_counts(X, grid, nonfinite="zero")
    assert counts[0] == 1 and counts[-1] == 10


@pytest.mark.parametrize(
    ("estimator", "budget"),
    [(GaussianCovariance, {"rho": 0.8}), (LaplaceCovariance, {"epsilon": 2.0})],
)
def test_an_auto_bound_spends_its_declared_share(estimator, budget):
    X = np.random.default_rng(0).normal(size=(5000, 3)) * 7.0
    accountant = PrivacyAccountant(**budget)
    est = estimator(**budget, norm_bound="auto", accountant=accountant, random_state=0)
    est.fit(X)
    total = next(iter(budget.values()))
    assert est.privacy_parts_[0].step == "norm bound"
    assert est.privacy_parts_[0].cost.parameter == pytest.approx(total / 16)
    assert sum(p.cost.parameter for p in est.privacy_parts_) == pytest.approx(total)
    assert est.privacy_spent_.parameter == total
    assert len(accountant.history()) == 1  # one charge for the whole fit
    assert est.norm_bound_ in norm_grid()


def test_an_auto_bound_is_near_the_largest_norm_with_budget_to_spare():
    """Norms spread over [1, 10], n = 20 000, ρ = 2: the bound's share buys
    ε = √(8ρ/16) = 1, so r = 2·ln(K/β)/ε ≈ 39 rows at β = 10^−6: the bound's
    cell is within r rows of rank n − r, i.e. at most about 2r = 78 rows lie
    above it (the top 0.4% of the norms), and it is at most one grid step
    (2^{1/4}) above the largest norm."""
    rng = np.random.default_rng(1)
    directions = rng.normal(size=(20000, 4))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    norms = rng.uniform(1.0, 10.0, size=20000)
    X = directions * norms[:, None]
    bounds = [
        GaussianCovariance(rho=2.0, norm_bound="auto", random_state=seed)
        .fit(X)
        .norm_bound_
        for seed in range(20)
    ]
    lowest = np.sort(norms)[-80] * 2**-0.25
    assert all(lowest <= b <= 10.0 * 2**0.25 for b in bounds)


def test_an_auto_bound_without_enough_budget_errs_low():
    """On 60 rows at ρ = 0.01 the search has far too little budget: the bound
    falls to the bottom of the grid (a release near zero, like releasing
    nothing), never to the top."""
    X = np.random.default_rng(2).normal(size=(60, 3)) * 100.0
    est = GaussianCovariance(rho=0.01, norm_bound="auto", random_state=0).fit(X)
    assert est.norm_bound_ < 1.0
    assert np.linalg.norm(est.covariance_) < 1e-3


def test_auto_passes_its_bound_to_the_mechanism_it_chooses():
    X = np.random.default_rng(4).normal(size=(20000, 3)) * 5.0
    est = AutoCovariance(
        rho=1.0, norm_bound="auto", assume_centered=False, random_state=0
    ).fit(X)
    assert [p.step for p in est.privacy_parts_][:2] == ["norm bound", "trace estimate"]
    assert est.norm_bound_ > 5.0
    truth = np.cov(X.T, bias=True)
    assert np.linalg.norm(est.covariance_ - truth) < 0.5 * np.linalg.norm(truth)


def test_an_unknown_bound_is_refused_before_the_charge():
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError, match="norm_bound"):
        GaussianCovariance(norm_bound="max", accountant=accountant).fit(np.eye(3))
    assert accountant.history() == []


def _diabetes():
    from sklearn.datasets import load_diabetes

    return load_diabetes(return_X_y=True, scaled=False)


def test_a_ridge_model_with_auto_bounds_spends_its_declared_parts():
    """X_norm_bound="auto" and y_bound="auto" (§18.2–18.3): 1/32 of the
    release's budget each, the release at the rest, one charge for the whole."""
    from skprivcov.linear_model import PrivateRidge

    X, y = _diabetes()
    accountant = PrivacyAccountant(rho=2.0)
    model = PrivateRidge(
        estimator=GaussianCovariance(rho=2.0, accountant=accountant),
        X_norm_bound="auto",
        y_bound="auto",
        random_state=0,
    ).fit(X, y)
    steps = [part.step for part in model.privacy_parts_]
    assert steps[:2] == ["X norm bound", "y bound"]
    assert model.privacy_parts_[0].cost.parameter == pytest.approx(2.0 / 32)
    assert sum(p.cost.parameter for p in model.privacy_parts_) == pytest.approx(2.0)
    assert model.privacy_spent_ == PrivacyCost.zcdp(2.0)
    assert len(accountant.history()) == 1
    assert model.X_norm_bound_ in norm_grid()
    lower, upper = model.y_bound_
    assert lower < np.median(y) < upper
    # A refit from the published release chooses the same penalty (§16).
    refit = PrivateRidge(covariance=model.release_).fit()
    np.testing.assert_allclose(refit.coef_, model.coef_)


def test_a_ridge_model_with_auto_bounds_beats_the_mean_with_budget():
    """Raw diabetes at ρ = 10, no bound given: the median test error over 10
    splits is below 0.95 times the mean predictor's (measured: about 5 080
    against 5 710; no split blows up, the target's box having β = 10^−6;
    docs/choosing_bounds.rst)."""
    from sklearn.model_selection import train_test_split

    from skprivcov.linear_model import PrivateRidge

    X, y = _diabetes()
    errors, baseline = [], []
    for seed in range(10):
        X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.3, random_state=seed)
        model = PrivateRidge(
            estimator=GaussianCovariance(rho=10.0),
            X_norm_bound="auto",
            y_bound="auto",
            random_state=seed,
        ).fit(X_a, y_a)
        errors.append(np.mean((model.predict(X_b) - y_b) ** 2))
        baseline.append(np.mean((y_a.mean() - y_b) ** 2))
    assert max(errors) < 2.0 * np.median(baseline)
    assert np.median(errors) < 0.95 * np.median(baseline)


def test_auto_bounds_of_models_that_do_not_take_them_are_refused():
    from skprivcov.linear_model import PrivateRidgeCV

    accountant = PrivacyAccountant(rho=1.0)
    X, y = _diabetes()
    with pytest.raises(ValueError, match="X_norm_bound"):
        PrivateRidgeCV(
            estimator=GaussianCovariance(accountant=accountant), X_norm_bound="auto"
        ).fit(X, y)
    assert accountant.history() == []


def test_a_finite_row_whose_norm_overflows_lies_above_every_candidate():
    """A finite row with entries near the float64 maximum has an infinite
    computed norm: it is above every candidate, not a non-finite row."""
    X = np.ones((3, 4))
    X[0] = 1.5e308
    grid = norm_grid(0.5, 4.0)
    counts = row_norm_counts(X, grid)
    assert counts[-1] == 2


def test_float32_csc_with_duplicates_has_the_norms_of_csr():
    """Duplicate entries are summed in float64 in every sparse format
    (docs/algorithms.rst §13.3)."""
    rows = np.repeat(np.arange(50), 2)
    cols = np.zeros(100, dtype=int)
    values = np.tile(np.array([1.0, 1e-8], dtype=np.float32), 50)
    csr = sparse.csr_matrix((values, (rows, cols)), shape=(50, 2), dtype=np.float32)
    csc = sparse.csc_matrix((values, (rows, cols)), shape=(50, 2), dtype=np.float32)
    grid = np.array([0.0, 1.0, 1.0 + 2e-8])
    np.testing.assert_array_equal(
        row_norm_counts(csr, grid), row_norm_counts(csc, grid)
    )


def test_pipeline_spent_refuses_a_meta_estimator_it_does_not_know():
    from sklearn.multioutput import MultiOutputRegressor

    from skprivcov.linear_model import PrivateRidge
    from skprivcov.model_selection import pipeline_spent

    X = np.random.default_rng(0).normal(size=(200, 3))
    Y = np.column_stack([X[:, 0], X[:, 1]])
    model = MultiOutputRegressor(
        PrivateRidge(estimator=GaussianCovariance(rho=0.5), random_state=0)
    ).fit(X, Y)
    with pytest.raises(TypeError, match="does not know"):
        pipeline_spent(model)


@pytest.mark.parametrize("budget", [{"rho": 1.0}, {"epsilon": 2.0}])
def test_lda_with_an_auto_bound_spends_its_declared_share(budget):
    from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis

    rng = np.random.default_rng(5)
    y = rng.integers(3, size=3000)
    X = rng.normal(size=(3000, 4)) * 20.0 + 60.0 * y[:, None]
    accountant = PrivacyAccountant(**budget)
    model = PrivateLinearDiscriminantAnalysis(
        **budget, norm_bound="auto", accountant=accountant, random_state=0
    ).fit(X, y)
    total = next(iter(budget.values()))
    assert [p.step for p in model.privacy_parts_] == ["norm bound", "per-class sums"]
    assert model.privacy_parts_[0].cost.parameter == pytest.approx(total / 16)
    assert model.privacy_spent_.parameter == total
    assert len(accountant.history()) == 1
    norms = np.linalg.norm(X, axis=1)
    assert np.quantile(norms, 0.9) <= model.norm_bound_ <= norms.max() * 2**0.25
    assert model.score(X, y) > 0.9
