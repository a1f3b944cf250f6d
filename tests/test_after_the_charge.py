"""Nothing data-independent fails after the charge (docs/algorithms.rst §13.2),
at the ends of the documented ranges.

Review of main at 1be91c3 (issue 45): F2, a ridge fit charged, then handed a
share below the 1e-30 floor to its covariance release, which refused it after
the charge (12 of 20 tiny-budget configurations; boosting up to ~4e-30); F3,
LDA at ε near the top of its range failed in a generalised ``eigh`` after the
charge on degenerate rows only (8–9 of 10 fits on all-zero rows)."""

import itertools

import numpy as np
import pytest
from scipy import linalg

from skprivcov import GaussianCovariance, PrivacyAccountant
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.discriminant_analysis._lda import _discriminant_directions
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.model_selection import FoldReleases

TINY = (1e-30, 1.3e-30, 2e-30, 4e-30, 6e-30, 1e-29)
RIDGE_OPTIONS = (
    {},
    {"boosting_rounds": "auto"},
    {"alpha": "adassp"},
    {"boosting_rounds": 3, "alpha": "adassp"},
    {"X_norm_bound": 1.0},
    {"y_bound": 3.0},
    {"fit_intercept": False},
)


def _regression(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X @ [1.0, 2.0, -1.0] + rng.normal(size=n)


def _fits_or_refuses_for_free(fit, accountant):
    """A fit either succeeds, or raises with nothing charged."""
    try:
        fit()
    except (ValueError, RuntimeError):
        assert accountant.history() == [], "refused after the charge"
        return False
    return True


@pytest.mark.parametrize(
    ("rho", "options"),
    [
        pytest.param(
            rho, options, marks=() if rho in (1e-30, 4e-30) else pytest.mark.slow
        )
        for rho, options in itertools.product(TINY, RIDGE_OPTIONS)
    ],
)
def test_a_ridge_fit_refuses_a_share_below_the_floor_before_the_charge(rho, options):
    X, y = _regression()
    accountant = PrivacyAccountant(rho=1.0)
    estimator = GaussianCovariance(rho=rho, accountant=accountant)
    _fits_or_refuses_for_free(
        lambda: PrivateRidge(estimator=estimator, **options).fit(X, y), accountant
    )


@pytest.mark.parametrize("model", [PrivateRidgeCV, FoldReleases])
@pytest.mark.parametrize("rho", (1e-30, 1.3e-30))
def test_fold_releases_refuse_a_share_below_the_floor_before_the_charge(model, rho):
    X, y = _regression()
    accountant = PrivacyAccountant(rho=1.0)
    estimator = GaussianCovariance(rho=rho, accountant=accountant)
    _fits_or_refuses_for_free(lambda: model(estimator=estimator).fit(X, y), accountant)


def test_the_refusal_names_the_budget_not_the_data():
    X, y = _regression()
    with pytest.raises(ValueError, match="too small to split") as refused:
        PrivateRidge(estimator=GaussianCovariance(rho=1e-30), X_norm_bound=1.0).fit(
            X, y
        )
    assert "e-31" in str(refused.value)  # the share: public


@pytest.mark.parametrize("covariance", ["full", "shrunk", "diagonal", "auto"])
@pytest.mark.parametrize(
    "budget", [{"epsilon": 1e30}, {"epsilon": 1e29}, {"rho": 1e30}, {"rho": 1e-30}]
)
def test_lda_fits_degenerate_rows_at_both_ends_of_the_budget_range(covariance, budget):
    """All-zero rows at the top of the range: the within-class covariance is
    numerically singular; its directions are still finite, for every seed."""
    X = np.zeros((200, 3))
    y = np.repeat([0, 1], 100)
    for seed in range(10):
        clf = PrivateLinearDiscriminantAnalysis(
            classes=[0, 1], covariance=covariance, random_state=seed, **budget
        ).fit(X, y)
        assert np.all(np.isfinite(clf.scalings_))
        assert np.all(np.isfinite(clf.transform(X)))
        assert np.all(np.isfinite(clf.predict_proba(X)))


def test_the_directions_are_the_generalised_eigenpairs():
    """Whitening gives scipy's eigh(B, W + f·I) where W is well conditioned:
    the same eigenvalues, the same directions up to sign, the same
    normalisation VᵀWV = I."""
    rng = np.random.default_rng(0)
    for d in (2, 5, 9):
        A = rng.normal(size=(d, d))
        within = A @ A.T / d + 0.1 * np.eye(d)
        means = rng.normal(size=(3, d))
        between = means.T @ means / 3
        floor = 1e-3
        values, vectors = _discriminant_directions(between, within, floor)
        expected_values, expected = linalg.eigh(between, within + floor * np.eye(d))
        np.testing.assert_allclose(values, expected_values, rtol=1e-9, atol=1e-12)
        top = slice(d - 2, d)  # the informative directions (rank 2)
        signs = np.sign(np.sum(vectors[:, top] * expected[:, top], axis=0))
        np.testing.assert_allclose(vectors[:, top] * signs, expected[:, top], atol=1e-9)
        gram = vectors.T @ (within + floor * np.eye(d)) @ vectors
        np.testing.assert_allclose(gram, np.eye(d), atol=1e-9)
