"""The default search spaces of PrivateRandomSearch (model_selection/_spaces.py)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid

from skprivcov import GaussianCovariance, PrivacyAccountant
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.linear_model import PrivateRidge
from skprivcov.model_selection import (
    PredictionLossScore,
    PrivateRandomSearch,
    default_search_space,
    planned_charges,
)
from skprivcov.naive_bayes import PrivateGaussianNB


def _costs(estimator):
    return [str(cost) for _, cost in planned_charges(estimator)]


def _regression(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 3))
    y = X @ np.array([0.5, -0.25, 0.0]) + 0.05 * rng.normal(size=n)
    return X, y


def _classes(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, 2)) * 20.0 + 60.0 * y[:, None]
    return X, y


@pytest.mark.parametrize(
    "estimator",
    [
        PrivateRidge(estimator=GaussianCovariance(rho=0.3)),
        PrivateRidge(),
        PrivateLinearDiscriminantAnalysis(classes=[0, 1], rho=0.3),
        PrivateLinearDiscriminantAnalysis(classes=[0, 1], epsilon=2.0, delta=1e-6),
    ],
    ids=["ridge", "ridge-default", "lda-rho", "lda-epsilon-delta"],
)
def test_every_candidate_is_a_valid_setting_of_the_same_budget(estimator):
    grid = default_search_space(estimator)
    settings = list(ParameterGrid(grid))
    assert len(settings) >= 2
    for setting in settings:
        candidate = clone(estimator).set_params(**setting)
        # The space varies how the release is made, never what it spends.
        assert _costs(candidate) == _costs(estimator)
    # The search states a finite cost for it, before any data.
    cost = PrivateRandomSearch(
        estimator, grid, scoring=PredictionLossScore(clip=4.0)
    ).cost()
    assert np.isfinite(cost.to_approx_dp(1e-6))


def test_ridge_space_runs_in_a_search():
    X, y = _regression()
    estimator = PrivateRidge(
        estimator=GaussianCovariance(rho=1.0), X_norm_bound=np.sqrt(3), y_bound=2.0
    )
    grid = default_search_space(estimator)
    accountant = PrivacyAccountant(epsilon=50.0, delta=1e-6)
    search = PrivateRandomSearch(
        estimator,
        grid,
        scoring=PredictionLossScore(loss="squared", clip=4.0),
        gamma=0.25,  # about four runs: a smoke test, not a measurement
        accountant=accountant,
        random_state=0,
    ).fit(X, y)
    assert search.best_params_ in search.candidates_
    assert search.predict(X[:5]).shape == (5,)
    assert accountant.spent_epsilon(1e-6) == pytest.approx(
        search.cost().to_approx_dp(1e-6)
    )


def test_lda_space_runs_in_a_search():
    X, y = _classes()
    estimator = PrivateLinearDiscriminantAnalysis(
        classes=[0, 1], rho=1.0, nonfinite="zero"
    )
    grid = default_search_space(estimator)
    search = PrivateRandomSearch(
        estimator,
        grid,
        scoring=PredictionLossScore(loss="zero_one"),
        gamma=0.1,
        random_state=0,
    ).fit(X, y)
    assert search.best_params_ in search.candidates_
    assert set(search.predict(X[:10])) <= {0, 1}


def test_lda_space_holds_auto_and_public_decades():
    grid = default_search_space(
        PrivateLinearDiscriminantAnalysis(classes=[0, 1], rho=1.0)
    )
    bounds = grid["norm_bound"]
    assert bounds[0] == "auto"
    decades = np.log10(bounds[1:])
    np.testing.assert_allclose(np.diff(decades), 1.0)


@pytest.mark.parametrize(
    "estimator",
    [GaussianCovariance(rho=1.0), PrivateGaussianNB(rho=1.0), object()],
    ids=["covariance", "naive-bayes", "object"],
)
def test_unsupported_estimator_is_refused_by_name(estimator):
    with pytest.raises(ValueError, match=type(estimator).__name__):
        default_search_space(estimator)


def test_ridge_from_a_release_is_refused():
    X, y = _regression()
    release = GaussianCovariance(
        rho=1.0, norm_bound=3.0, assume_centered=False, random_state=0
    ).fit(np.column_stack([X, y]))
    with pytest.raises(ValueError, match="spends nothing"):
        default_search_space(PrivateRidge(covariance=release))


def test_lda_with_a_public_box_is_refused():
    box = (np.zeros(2), np.ones(2))
    with pytest.raises(ValueError, match="feature_bounds"):
        default_search_space(
            PrivateLinearDiscriminantAnalysis(
                classes=[0, 1], rho=1.0, feature_bounds=box
            )
        )


def test_lda_without_public_classes_has_no_default_space():
    """Its private label set is δ₀-approximate (§25): a selection cannot run
    it K times, so the space is refused with the remedy."""
    with pytest.raises(ValueError, match="give classes"):
        default_search_space(PrivateLinearDiscriminantAnalysis(rho=1.0))
