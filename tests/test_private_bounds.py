"""Private bounds inside the budget (docs/algorithms.rst §18; issue 33).

The private quantile on a public grid (the exponential mechanism, sampled
exactly), the row-norm counts it reads, and ``norm_bound="auto"``: its share
of the budget, the bound it publishes, its accuracy, and its refusals.
"""

import math

import numpy as np
import pytest
from scipy import sparse, stats
from sklearn.base import clone

from skprivcov import (
    AutoCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov._data._statistics import row_norm_counts
from skprivcov.mechanisms._quantile import (
    norm_grid,
    private_quantile,
    quantile_epsilon,
    quantile_rank_error,
    signed_grid,
)
from skprivcov.mechanisms.noise._generators import release_generator


def _interval_utility(counts, target):
    """−max(t − c_k, c_{k−1} − t, 0), c_{−1} = 0 (§18.1 as implemented)."""
    counts = np.asarray(counts, float)
    below = np.concatenate(([0.0], counts[:-1]))
    return -np.maximum.reduce([target - counts, below - target, np.zeros_like(counts)])


def _exponential_mechanism_law(counts, target, epsilon):
    utility = _interval_utility(counts, target)
    weights = np.exp(epsilon * (utility - utility.max()) / 2.0)
    return weights / weights.sum()


# The hardened sampler (the default) in the fast loop; the float one is slow.
@pytest.mark.parametrize(
    "noise", ["hardened", pytest.param("float", marks=pytest.mark.slow)]
)
def test_the_private_quantile_has_the_exponential_mechanism_law(noise):
    """χ² of 10 000 exact draws against P(k) ∝ exp(ε·u_k/2); the same draws
    against the law at 1.1·ε or 0.9·ε fail (the test has the power to see a
    10% error in ε: the χ² non-centrality is 64 on 9 degrees of freedom, so
    a 10% error is rejected at 1e-3 with probability 0.997)."""
    counts = np.array([0, 3, 7, 12, 20, 26, 29, 30, 30, 30])
    target, epsilon = 24, 0.6
    rng = release_generator(5, noise=noise)
    draws = np.array(
        [private_quantile(counts, target, epsilon, rng) for _ in range(10000)]
    )
    observed = np.bincount(draws, minlength=counts.size)
    law = _exponential_mechanism_law(counts, target, epsilon)
    assert stats.chisquare(observed, law * draws.size).pvalue > 1e-3
    for error in (0.9, 1.1):
        wrong = _exponential_mechanism_law(counts, target, error * epsilon)
        assert stats.chisquare(observed, wrong * draws.size).pvalue < 1e-3


@pytest.mark.slow  # 2 000 draws: a utility bound, not a privacy claim
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
    # The bound of the rows as given (§18.2), without the normalisation of §23.
    est = estimator(
        **budget,
        norm_bound="auto",
        feature_scaling=None,
        accountant=accountant,
        random_state=0,
    )
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
        GaussianCovariance(
            rho=2.0, norm_bound="auto", feature_scaling=None, random_state=seed
        )
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
        rho=1.0,
        norm_bound="auto",
        feature_scaling=None,
        assume_centered=False,
        random_state=0,
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
    """The defaults X_norm_bound="auto" and y_bound="auto" (§18.5): a box per
    feature at 1/8 of the budget, the target's box at 1/8, the release at the
    rest, one charge for the whole; the fitted bounds published."""
    from skprivcov.linear_model import PrivateRidge

    X, y = _diabetes()
    accountant = PrivacyAccountant(rho=2.0)
    model = PrivateRidge(
        estimator=GaussianCovariance(rho=2.0, accountant=accountant), random_state=0
    ).fit(X, y)
    assert (model.X_norm_bound, model.y_bound) == ("auto", "auto")  # defaults
    steps = [part.step for part in model.privacy_parts_]
    assert steps == ["X box", "y bound", "noisy matrix"]
    shares = [part.cost.parameter / 2.0 for part in model.privacy_parts_]
    assert shares == pytest.approx([1 / 8, 1 / 8, 3 / 4])
    assert model.privacy_spent_ == PrivacyCost.zcdp(2.0)
    assert model.release_.privacy_spent.parameter == pytest.approx(1.5)
    assert len(accountant.history()) == 1
    lower, upper = model.X_norm_bound_
    grid = signed_grid()
    assert lower.shape == upper.shape == (10,)
    assert np.all(lower < upper) and np.isin(lower, grid).all()
    assert np.isin(upper, grid).all()
    # Age, then the total cholesterol: boxes around their medians.
    assert lower[0] < np.median(X[:, 0]) < upper[0]
    assert lower[4] < np.median(X[:, 4]) < upper[4]
    y_lower, y_upper = model.y_bound_
    assert y_lower < np.median(y) < y_upper
    # The model was fit in the box's units; predict clips into the box.
    far = X[:3] + 1e6
    np.testing.assert_allclose(
        model.predict(far), model.predict(np.tile(upper, (3, 1)))
    )


@pytest.mark.parametrize("budget", [{"epsilon": 1.0}, {"rho": 0.01}])
def test_a_ridge_model_without_budget_for_a_box_predicts_a_private_mean(budget):
    """Where the box's share cannot buy it (a public rule of n, d and the
    budget, §18.5), the budget goes to a private mean of y, predicted: the
    parts "y bound" (3/4) and "y mean" (1/4), no value of X read but its
    finiteness."""
    from skprivcov.linear_model import PrivateRidge
    from skprivcov.linear_model._private_bounds import feature_box_affordable

    X, y = _diabetes()
    estimator = (LaplaceCovariance if "epsilon" in budget else GaussianCovariance)(
        **budget
    )
    cost = estimator.fit_cost()
    assert not feature_box_affordable(*X.shape, cost)
    model = PrivateRidge(estimator=estimator, random_state=0).fit(X, y)
    assert [p.step for p in model.privacy_parts_] == ["y bound", "y mean"]
    parameter = next(iter(budget.values()))
    assert [p.cost.parameter for p in model.privacy_parts_] == pytest.approx(
        [0.75 * parameter, 0.25 * parameter]
    )
    assert model.privacy_spent_ == cost
    assert model.X_norm_bound_ is None and model.alpha_ == math.inf
    np.testing.assert_array_equal(model.coef_, np.zeros(10))
    lower, upper = model.y_bound_
    assert lower <= model.intercept_ <= upper
    np.testing.assert_allclose(model.predict(X[:5]), model.intercept_)
    # The nonfinite rule acts on the rows (x, y), after the charge.
    bad = X.copy()
    bad[3, 2] = np.nan
    accountant = (
        PrivacyAccountant(rho=1.0, epsilon=None)
        if "rho" in budget
        else (PrivacyAccountant(epsilon=2.0))
    )
    refused = PrivateRidge(estimator=clone(estimator).set_params(accountant=accountant))
    with pytest.raises(ValueError, match="NaN or infinity"):
        refused.fit(bad, y)
    assert len(accountant.history()) == 1
    zero = clone(estimator).set_params(nonfinite="zero")
    PrivateRidge(estimator=zero, random_state=0).fit(bad, y)


def test_the_fitted_bounds_are_functions_of_the_private_outputs():
    """Threat model (§13.1, §18.5): the fitted boxes read the data only
    through the counts on the public grid, sampled by the exponential
    mechanism. Two neighbouring datasets whose one differing row moves the
    exact maximum of a feature and of the target, but stays in the same grid
    cells, have the same counts: with the same seed, the same bounds (an
    exact or float bound, e.g. the maximum, would differ)."""
    from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
    from skprivcov.model_selection import FoldReleases

    rng = np.random.default_rng(3)
    X = rng.uniform(1.0, 2.5, size=(4000, 3))
    y = X @ [1.0, -1.0, 0.5] + rng.normal(size=4000)
    i = int(np.argmax(X[:, 0]))
    j = int(np.argmax(y))
    X2, y2 = X.copy(), y.copy()
    grid = signed_grid()
    for array, index in ((X2[:, 0], i), (y2, j)):
        # The same cell (grid[k − 1], grid[k]], another value: a new maximum.
        k = np.searchsorted(grid, array[index])
        array[index] = (max(array[index], grid[k - 1]) + grid[k]) / 2
        assert array[index] != [X[i, 0], y[j]][array is y2]
    assert X2[:, 0].max() != X[:, 0].max() and y2.max() != y.max()
    models = [
        PrivateRidge(estimator=GaussianCovariance(rho=1.0), random_state=7),
        PrivateRidgeCV(estimator=GaussianCovariance(rho=1.0), random_state=7),
        FoldReleases(estimator=GaussianCovariance(rho=1.0), random_state=7),
    ]
    for model in models:
        first = clone(model).fit(X, y)
        second = clone(model).fit(X2, y2)
        np.testing.assert_array_equal(first.X_norm_bound_, second.X_norm_bound_)
        assert first.y_bound_ == second.y_bound_
        assert first.y_bound_[1] != y.max()
    # Without a target FoldReleases chooses one row-norm bound, the same way.
    first = FoldReleases(random_state=7).fit(X)
    second = FoldReleases(random_state=7).fit(X2 * [1, 1, 1])
    assert first.X_norm_bound_ == second.X_norm_bound_ in norm_grid()


def test_folds_choose_their_bounds_once_on_all_the_rows():
    """FoldReleases and PrivateRidgeCV (§18.5): the bounds' parts are spent
    once, on all the rows, the fold releases share the rest in parallel; the
    parts compose to the budget; every fold is bounded by the same box."""
    from skprivcov.linear_model import PrivateRidgeCV
    from skprivcov.linear_model._rows import bounded_rows
    from skprivcov.model_selection import FoldReleases

    X, y = _diabetes()
    accountant = PrivacyAccountant(rho=1.0)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=1.0, accountant=accountant), random_state=1
    ).fit(X, y)
    assert [p.step for p in folds.privacy_parts_] == [
        "X box",
        "y bound",
        "noisy matrix",
    ]
    assert [p.cost.parameter for p in folds.privacy_parts_] == pytest.approx(
        [1 / 8, 1 / 8, 3 / 4]
    )
    assert folds.privacy_spent_ == PrivacyCost.zcdp(1.0)
    assert len(accountant.history()) == 1
    # Each fold's release is of the rows bounded by the one box, at the rest.
    for release in folds.fold_releases_:
        assert release.privacy_spent is None or release.privacy_spent.parameter == (
            pytest.approx(0.75)
        )
    rows = bounded_rows(
        X,
        y,
        X_norm_bound=folds.X_norm_bound_,
        y_bound=folds.y_bound_,
        fit_intercept=True,
    )
    assert np.linalg.norm(rows, axis=1).max() <= math.sqrt(2) + 1e-12
    model = PrivateRidgeCV(estimator=GaussianCovariance(rho=1.0), random_state=1)
    model.fit(X, y)
    assert [p.step for p in model.privacy_parts_] == [
        "X box",
        "y bound",
        "noisy matrix",
    ]
    assert model.privacy_spent_ == PrivacyCost.zcdp(1.0)
    np.testing.assert_array_equal(model.X_norm_bound_, folds.X_norm_bound_)
    mse = np.mean((model.predict(X) - y) ** 2)
    assert mse < np.var(y)
    # Without a target: one private row-norm bound at 1/16, once.
    unsupervised = FoldReleases(
        estimator=LaplaceCovariance(epsilon=2.0), random_state=1
    ).fit(X)
    assert [p.step for p in unsupervised.privacy_parts_] == [
        "norm bound",
        "noisy matrix",
    ]
    assert [p.cost.parameter for p in unsupervised.privacy_parts_] == pytest.approx(
        [2.0 / 16, 2.0 * 15 / 16]
    )
    assert unsupervised.X_norm_bound_ in norm_grid()


@pytest.mark.slow  # utility over several fits: CI runs it
def test_a_ridge_model_with_auto_bounds_beats_the_mean_with_budget():
    """Raw diabetes at ρ = 10, no bound given (the defaults, §18.5): the
    median test error over 10 splits is below 0.7 times the mean predictor's
    (measured over 20 splits: 3 301 against 5 710, the hand-bounded route
    3 571; no split blows up; docs/ridge.rst)."""
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
    assert max(errors) < 1.2 * np.median(baseline)
    assert np.median(errors) < 0.7 * np.median(baseline)


@pytest.mark.parametrize(
    "params",
    [
        {"X_norm_bound": "max"},
        {"y_bound": "max"},
        {"X_norm_bound": (0.5, 4.0)},
        {"y_bound": (2.0, 1.0)},
    ],
)
def test_bad_public_bounds_are_refused_before_any_charge(params):
    """Public parameters are checked before the charge (§13.2), for every
    model that takes "auto"."""
    from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
    from skprivcov.model_selection import FoldReleases

    X, y = _diabetes()
    for make in (PrivateRidge, PrivateRidgeCV, FoldReleases):
        accountant = PrivacyAccountant(rho=1.0)
        model = make(estimator=GaussianCovariance(accountant=accountant), **params)
        with pytest.raises(ValueError, match="bound"):
            model.fit(X, y)
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
        classes=[0, 1, 2],
        **budget,
        norm_bound="auto",
        accountant=accountant,
        random_state=0,
    ).fit(X, y)
    total = next(iter(budget.values()))
    assert [p.step for p in model.privacy_parts_] == ["norm bound", "per-class sums"]
    assert model.privacy_parts_[0].cost.parameter == pytest.approx(total / 16)
    assert model.privacy_spent_.parameter == total
    assert len(accountant.history()) == 1
    norms = np.linalg.norm(X, axis=1)
    assert np.quantile(norms, 0.9) <= model.norm_bound_ <= norms.max() * 2**0.25
    assert model.score(X, y) > 0.9


@pytest.mark.parametrize("rho", [1.0, 0.01], ids=["boxes", "private mean"])
def test_every_ridge_quantile_spends_its_stated_share(monkeypatch, rho):
    """Review of issue 33 (F2): the X box's 2d quantiles each at ε of
    1/(2d) of the part "X box", the target's two at half of "y bound"; in the
    fallback, the target's two at half of its part (§18.5). A quantile at twice
    its share would fail here."""
    from skprivcov.linear_model import PrivateRidge
    from skprivcov.mechanisms import _quantile as quantile_module
    from skprivcov.mechanisms import quantile_epsilon

    epsilons = []
    original = quantile_module.private_quantile

    def spy(counts, target, epsilon, rng):
        epsilons.append(epsilon)
        return original(counts, target, epsilon, rng)

    monkeypatch.setattr(quantile_module, "private_quantile", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3)) * [50.0, 5.0, 0.5] + 100.0
    y = X @ [0.1, 1.0, 10.0] + rng.normal(size=400)
    model = PrivateRidge(estimator=GaussianCovariance(rho=rho), random_state=0)
    model.fit(X, y)
    parts = {part.step: part.cost for part in model.privacy_parts_}
    d = X.shape[1]
    expected = []
    if "X box" in parts:
        expected += [quantile_epsilon(parts["X box"].scaled(1 / (2 * d)))] * (2 * d)
    expected += [quantile_epsilon(parts["y bound"].scaled(1 / 2))] * 2
    assert epsilons == pytest.approx(expected, rel=1e-12)
    assert ("X box" in parts) == (rho == 1.0)


def test_the_bounds_and_the_release_draw_from_different_streams():
    """§13.4: with an int seed the bounds' stream and the release's seed
    differ, so no draw of the bounds is reused by the release."""
    from skprivcov.mechanisms.noise._generators import bounds_generator

    rng, seed = bounds_generator(7, "hardened")
    bounds_draws = rng.integers(0, 2**63, size=4)
    release_draws = release_generator(seed, noise="hardened").integers(0, 2**63, size=4)
    assert not np.intersect1d(bounds_draws, release_draws).size
    assert seed != 7
