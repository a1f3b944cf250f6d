"""``alpha="auto"`` works on every release a fitted model publishes.

The penalty is set from the release's public noise level (docs/algorithms.rst
§16), so every release that a fitted ridge model or fold search publishes
must state it, in the units of the features: a model refit from its own
``release_`` then chooses the same alpha, and a search over a model holding
that release scores finite values (a refusal would only show as NaN scores).
"""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from skprivcov import GaussianCovariance
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.model_selection import FoldReleases, ReleaseModel

X_NORM_BOUND = 2.0
Y_BOUND = (-1.0, 2.0)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, size=(3000, 3))
    y = X @ np.array([0.5, -0.25, 0.0]) + 0.3 + 0.1 * rng.normal(size=3000)
    return X, y


def _settings(rho=1.0):
    return {
        "estimator": GaussianCovariance(rho=rho),
        "X_norm_bound": X_NORM_BOUND,
        "y_bound": Y_BOUND,
        "random_state": 0,
    }


@pytest.fixture(scope="module")
def fitted(data):
    return PrivateRidge(**_settings()).fit(*data)


def test_own_release_states_the_feature_noise_level(fitted):
    # In the units of X²: the bounded rows carry x / B_x.
    expected = fitted.estimator_.eigenvalue_floor_ * X_NORM_BOUND**2
    assert fitted.release_.noise_level == pytest.approx(expected)


def test_refit_from_own_release_chooses_the_same_alpha(data, fitted):
    X, _ = data
    refit = PrivateRidge(covariance=fitted.release_).fit()
    assert refit.alpha_ == pytest.approx(fitted.alpha_)
    np.testing.assert_allclose(refit.coef_, fitted.coef_)
    assert refit.intercept_ == pytest.approx(fitted.intercept_)
    assert np.all(np.isfinite(refit.predict(X)))
    assert refit.privacy_spent_.epsilon == 0.0  # post-processing


def _releases(data):
    """Every kind of release a fitted model publishes, by name."""
    X, y = data
    ridge = PrivateRidge(**_settings()).fit(X, y)
    ridge_cv = PrivateRidgeCV(**_settings()).fit(X, y)
    folds = FoldReleases(**_settings()).fit(X, y)
    rows = np.column_stack([X, y])
    unsupervised = FoldReleases(
        estimator=GaussianCovariance(rho=1.0), X_norm_bound=3.0, random_state=0
    ).fit(rows)
    return {
        "PrivateRidge.release_": ridge.release_,
        "PrivateRidgeCV.release_": ridge_cv.release_,
        "PrivateRidgeCV.fold_releases_": ridge_cv.fold_releases_[0],
        "FoldReleases.release_": folds.release_,
        "FoldReleases.tokens_": folds.tokens_[1],
        "FoldReleases(X only).release_": unsupervised.release_,
        "FoldReleases(X only).tokens_": unsupervised.tokens_[2],
    }


@pytest.fixture(scope="module")
def releases(data):
    return _releases(data)


@pytest.mark.parametrize(
    "name",
    [
        "PrivateRidge.release_",
        "PrivateRidgeCV.release_",
        "PrivateRidgeCV.fold_releases_",
        "FoldReleases.release_",
        "FoldReleases.tokens_",
        "FoldReleases(X only).release_",
        "FoldReleases(X only).tokens_",
    ],
)
def test_auto_alpha_on_every_published_release(data, releases, name):
    X, _ = data
    release = releases[name]
    assert release.noise_level is not None and release.noise_level > 0
    model = PrivateRidge(covariance=release).fit()
    assert np.isfinite(model.alpha_) and model.alpha_ > 0
    assert np.all(np.isfinite(model.predict(X)))
    # A feature subset of the same release: the same public level.
    subset = PrivateRidge(covariance=release, features=[0, 2]).fit()
    assert subset.alpha_ == pytest.approx(model.alpha_)
    assert np.all(np.isfinite(subset.predict(X[:, [0, 2]])))


def test_grid_search_over_a_fitted_models_release_scores_finite(data, fitted):
    X, y = data
    # scikit-learn's GridSearchCV turns a failing fit into a NaN score.
    search = GridSearchCV(
        PrivateRidge(covariance=fitted.release_),
        {"alpha": ["auto", 1e-2]},
        cv=3,
    ).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)), scores
    assert np.all(np.isfinite(search.predict(X)))


def test_grid_search_on_fold_tokens_with_auto_alpha_scores_finite(data):
    X, y = data
    folds = FoldReleases(**_settings()).fit(X, y)
    search = GridSearchCV(
        ReleaseModel(PrivateRidge()),
        {"estimator__alpha": ["auto", 1e-3], "estimator__features": [[0, 1], None]},
        cv=folds,
    ).fit(folds.tokens_)
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)), scores


def test_release_without_a_noise_level_still_needs_a_number(fitted):
    # A plain array states nothing: "auto" is refused with a clear message.
    moment = np.array(fitted.release_.second_moment)
    with pytest.raises(ValueError, match="noise level"):
        PrivateRidge(covariance=moment, fit_intercept=False).fit()
    model = PrivateRidge(covariance=moment, fit_intercept=False, alpha=1e-2).fit()
    assert np.all(np.isfinite(model.coef_))
