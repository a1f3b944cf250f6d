"""PrivateEllipticEnvelope: Mahalanobis outliers on a release (§15)."""

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score

from skprivcov import AutoCovariance, GaussianCovariance, PrivacyCost
from skprivcov.covariance import PrivateEllipticEnvelope


def _gaussian_rows(n=20000, d=3, seed=0):
    return 0.1 * np.random.default_rng(seed).normal(size=(n, d))


def test_the_threshold_is_the_public_chi2_quantile():
    for significance in (0.01, 0.2):
        detector = PrivateEllipticEnvelope(significance=significance, random_state=0)
        offsets = {detector.fit(_gaussian_rows(seed=s)).offset_ for s in range(2)}
        assert offsets == {-stats.chi2.ppf(1 - significance, df=3)}


def test_distances_use_the_floored_precision_of_the_release():
    X = _gaussian_rows()
    release = GaussianCovariance(rho=0.05, assume_centered=False, random_state=0).fit(X)
    detector = PrivateEllipticEnvelope(covariance=release).fit()
    # The estimator's own mahalanobis floors at the same public level.
    np.testing.assert_allclose(
        detector.mahalanobis(X[:50]), release.mahalanobis(X[:50])
    )
    values, vectors = np.linalg.eigh(release.covariance_)
    precision = (
        vectors @ np.diag(1 / np.maximum(values, release.eigenvalue_floor_)) @ vectors.T
    )
    centred = X[:5] - release.location_
    np.testing.assert_allclose(
        detector.score_samples(X[:5]),
        -np.einsum("ij,jk,ik->i", centred, precision, centred),
    )
    decision = detector.decision_function(X[:200])
    np.testing.assert_array_equal(
        detector.predict(X[:200]), np.where(decision >= 0, 1, -1)
    )
    assert detector.privacy_spent_ == PrivacyCost.zero()


def test_gaussian_inliers_are_flagged_at_the_significance():
    """With an accurate release, the share of Gaussian rows flagged is the
    significance (binomial: 4.5 standard errors)."""
    X = _gaussian_rows(n=40000, seed=1)
    detector = PrivateEllipticEnvelope(
        estimator=GaussianCovariance(rho=100.0), significance=0.05, random_state=0
    ).fit(X[:20000])
    flagged = np.mean(detector.predict(X[20000:]) == -1)
    assert flagged == pytest.approx(0.05, abs=4.5 * math.sqrt(0.05 * 0.95 / 20000))
    assert detector.privacy_spent_ == PrivacyCost.zcdp(100.0)


def test_breast_cancer_outliers_are_found_privately():
    """Issue 20/21: a release of the benign rows at ρ = 1 (AutoCovariance);
    the malignant ones score as outliers with AUC ≥ 0.9 (non-private 0.977)."""
    data = load_breast_cancer()
    X = data.data
    X = (X - X.min(0)) / (X.max(0) - X.min(0)) / np.sqrt(X.shape[1])
    malignant = data.target == 0
    aucs = []
    for seed in range(5):
        detector = PrivateEllipticEnvelope(
            estimator=AutoCovariance(rho=1.0), random_state=seed
        ).fit(X[~malignant])
        aucs.append(roc_auc_score(malignant, -detector.decision_function(X)))
    assert min(aucs) >= 0.9


def test_a_release_without_a_mean_is_refused():
    release = GaussianCovariance(rho=1.0, assume_centered=True, random_state=0).fit(
        _gaussian_rows()
    )
    with pytest.raises(ValueError, match="assume_centered=False"):
        PrivateEllipticEnvelope(covariance=release).fit()
    with pytest.raises(ValueError, match="not fitted"):
        PrivateEllipticEnvelope(covariance=GaussianCovariance()).fit()
