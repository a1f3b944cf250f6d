"""PrivatePCA: principal components of a release (docs/algorithms.rst §15)."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from skprivcov import (
    BudgetExceededError,
    GaussianCovariance,
    IterativeEigenCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov.covariance import CovarianceRelease
from skprivcov.decomposition import PrivatePCA


@pytest.fixture(scope="module")
def digits():
    data = load_digits()
    return data.data / (16 * 8), data.target  # rows in the unit ball


@pytest.fixture(scope="module")
def release(digits):
    X, _ = digits
    return GaussianCovariance(rho=1.0, assume_centered=False, random_state=0).fit(X)


def test_components_are_the_eigenvectors_of_the_release(digits, release):
    X, _ = digits
    pca = PrivatePCA(n_components=5, covariance=release).fit(X)
    covariance = CovarianceRelease.from_estimator(release).covariance
    values, vectors = np.linalg.eigh(covariance)
    order = np.argsort(values)[::-1][:5]
    np.testing.assert_allclose(pca.explained_variance_, values[order], rtol=1e-10)
    for component, vector in zip(pca.components_, vectors[:, order].T, strict=True):
        assert abs(component @ vector) == pytest.approx(1.0, abs=1e-10)
        assert component[np.argmax(np.abs(component))] > 0  # deterministic sign
    np.testing.assert_allclose(pca.mean_, release.location_)
    np.testing.assert_allclose(
        pca.explained_variance_ratio_,
        values[order] / np.clip(values, 0, None).sum(),
        rtol=1e-10,
    )
    assert pca.privacy_spent_ == PrivacyCost.zero() and pca.privacy_parts_ == ()


def test_a_release_is_decomposed_without_reading_x(release):
    """Only X's shape is read: NaN values are no problem, a wrong width is."""
    X = np.full((5, 64), np.nan)
    PrivatePCA(n_components=3, covariance=release).fit(X)
    with pytest.raises(ValueError, match="features"):
        PrivatePCA(n_components=3, covariance=release).fit(X[:, :10])


def test_a_fraction_keeps_the_fewest_components_reaching_it(release):
    pca = PrivatePCA(n_components=0.6, covariance=release).fit()
    full = PrivatePCA(covariance=release).fit()
    shares = np.cumsum(full.explained_variance_ratio_)
    expected = int(np.argmax(shares >= 0.6)) + 1
    assert pca.n_components_ == expected
    assert shares[expected - 2] < 0.6 <= shares[expected - 1]


def test_transform_and_its_inverse(digits, release):
    X, _ = digits
    full = PrivatePCA(covariance=release).fit()
    np.testing.assert_allclose(full.inverse_transform(full.transform(X)), X, atol=1e-10)
    pca = PrivatePCA(n_components=4, covariance=release).fit()
    projected = pca.transform(X)
    np.testing.assert_allclose(projected, (X - pca.mean_) @ pca.components_.T)
    white = PrivatePCA(n_components=4, covariance=release, whiten=True).fit()
    np.testing.assert_allclose(
        white.transform(X), projected / np.sqrt(pca.explained_variance_)
    )
    np.testing.assert_allclose(
        white.inverse_transform(white.transform(X)), pca.inverse_transform(projected)
    )


def test_whitening_never_divides_by_less_than_the_noise_level(digits):
    """A direction the release cannot resolve (variance below its public noise
    level) is divided by the noise level, not blown up."""
    X, _ = digits
    noisy = GaussianCovariance(rho=0.01, assume_centered=False, random_state=0).fit(X)
    white = PrivatePCA(covariance=noisy, whiten=True).fit()
    floor = noisy.eigenvalue_floor_
    assert white.explained_variance_.min() < floor
    np.testing.assert_allclose(
        white._whitening, np.sqrt(np.maximum(white.explained_variance_, floor))
    )


def test_its_own_release_spends_once_and_refuses_before_spending(digits):
    X, _ = digits
    accountant = PrivacyAccountant(rho=0.3)
    estimator = GaussianCovariance(rho=0.2, accountant=accountant)
    pca = PrivatePCA(n_components=5, estimator=estimator, random_state=0).fit(X)
    assert pca.privacy_spent_ == PrivacyCost.zcdp(0.2)
    assert accountant.spent.rho == pytest.approx(0.2)
    assert pca.estimator_.assume_centered is False
    # Too many components: refused from the shape, before anything is spent.
    with pytest.raises(ValueError, match="n_components"):
        PrivatePCA(n_components=65, estimator=estimator).fit(X)
    assert accountant.spent.rho == pytest.approx(0.2)
    with pytest.raises(BudgetExceededError):
        PrivatePCA(n_components=5, estimator=estimator).fit(X)


def test_the_pure_rank_k_path_spends_on_k_directions(digits):
    X, _ = digits
    pca = PrivatePCA(
        n_components=3, estimator=IterativeEigenCovariance(epsilon=1.0), random_state=0
    ).fit(X)
    assert pca.estimator_.n_components == 3
    assert pca.privacy_spent_ == PrivacyCost.pure(1.0)


def test_a_search_over_n_components_on_a_release_is_free(digits, release):
    X, y = digits
    accountant = PrivacyAccountant(rho=1.0)
    before = len(accountant.history())
    search = GridSearchCV(
        make_pipeline(PrivatePCA(covariance=release), LogisticRegression(max_iter=300)),
        {"privatepca__n_components": [5, 20]},
        cv=3,
    ).fit(X, y)
    assert len(accountant.history()) == before
    assert search.best_params_["privatepca__n_components"] == 20
    assert search.best_score_ > 0.75  # 10 classes: chance is 0.1


def test_the_private_subspace_captures_the_variance(digits, release):
    """Digits (n = 1797, d = 64, bound 1): the top-10 subspace of a release
    captures 0.43 of what the non-private top-10 subspace captures at ρ = 1
    (a random subspace: 0.21) and 0.78 at ρ = 10 (measured, 3 seeds)."""
    X, _ = digits
    covariance = np.cov(X, rowvar=False, bias=True)
    best = PCA(n_components=10).fit(X).components_

    def captured(components):
        return np.trace(components @ covariance @ components.T)

    random = np.trace(covariance) * 10 / 64
    private = PrivatePCA(n_components=10, covariance=release).fit().components_
    assert captured(private) >= 1.7 * random
    richer = GaussianCovariance(rho=10.0, assume_centered=False, random_state=0)
    private = PrivatePCA(n_components=10, covariance=richer.fit(X)).fit().components_
    assert captured(private) >= 0.7 * captured(best)


def test_feature_names_and_pandas_output(release, digits):
    X, _ = digits
    pca = PrivatePCA(n_components=2, covariance=release).set_output(transform="pandas")
    frame = pca.fit(X).transform(X[:3])
    assert list(frame.columns) == ["privatepca0", "privatepca1"]


def test_the_default_release_never_chooses_nothing():
    """A zero release has no directions: PrivatePCA's default is the automatic
    choice without that candidate (docs/pca.rst)."""
    from skprivcov import AutoCovariance

    X = np.random.default_rng(0).uniform(-0.3, 0.3, size=(50, 4))
    auto = AutoCovariance(assume_centered=False, noise="float", random_state=0).fit(X)
    assert auto.mechanism_ == "zero"
    pca = PrivatePCA(n_components=2, random_state=0).fit(X)
    assert pca.estimator_.get_params()["allow_zero"] is False
    assert pca.estimator_.mechanism_ != "zero"
