"""Bad input gets a clear error before any noise is drawn or budget spent."""

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError

from skprivcov import (
    GaussianCovariance,
    LaplaceCovariance,
    PrivacyAccountant,
    UnsupportedPrivacyNotionError,
)
from skprivcov.covariance import BasePrivateCovariance
from skprivcov.utils import all_estimators

PRIVATE = [
    cls() for _, cls in all_estimators() if issubclass(cls, BasePrivateCovariance)
]
GOOD = np.random.default_rng(0).uniform(-0.3, 0.3, size=(20, 3))

BAD_DATA = {
    "nan": (np.where(np.eye(20, 3) == 1, np.nan, GOOD), "NaN"),
    "inf": (np.where(np.eye(20, 3) == 1, np.inf, GOOD), "infinity"),
    "empty": (np.empty((0, 3)), "0 sample"),
    "one row": (GOOD[:1], "1 sample"),
    "one feature": (GOOD[:, :1], "1 feature"),
    "3-d": (GOOD.reshape(20, 3, 1), "dim 3"),
    "1-d": (GOOD[:, 0], "Expected 2D array"),
    "strings": (np.array([["a", "b"], ["c", "d"]]), "could not convert"),
}


def _untouched(estimator, X, error, match):
    """Fit raises and the estimator's generator has drawn nothing."""
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(error, match=match):
        clone(estimator).set_params(random_state=rng).fit(X)
    assert rng.bit_generator.state == state


@pytest.mark.parametrize("estimator", PRIVATE, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("case", BAD_DATA, ids=str)
def test_bad_data(estimator, case):
    X, match = BAD_DATA[case]
    _untouched(estimator, X, ValueError, match)


BAD_PARAMETERS = [
    ({"rho": 0.0}, InvalidParameterError, "'rho' parameter"),
    ({"rho": -1.0}, InvalidParameterError, "'rho' parameter"),
    ({"epsilon": 0.0}, InvalidParameterError, "'epsilon' parameter"),
    ({"epsilon": 1.0, "delta": 1.0}, InvalidParameterError, "'delta' parameter"),
    ({"epsilon": 1.0, "delta": -0.1}, InvalidParameterError, "'delta' parameter"),
    ({"norm_bound": 0.0}, InvalidParameterError, "'norm_bound' parameter"),
    ({"norm_bound": -2.0}, InvalidParameterError, "'norm_bound' parameter"),
    ({"rho": 0.1, "epsilon": 1.0}, ValueError, "not both"),
    ({"delta": 1e-6}, ValueError, "without epsilon"),
]


@pytest.mark.parametrize("estimator", PRIVATE, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(("params", "error", "match"), BAD_PARAMETERS)
def test_bad_parameters(estimator, params, error, match):
    _untouched(clone(estimator).set_params(**params), GOOD, error, match)


def test_pure_dp_asked_of_a_zcdp_only_mechanism():
    for delta in (None, 0.0):
        _untouched(
            GaussianCovariance(epsilon=1.0, delta=delta),
            GOOD,
            UnsupportedPrivacyNotionError,
            "GaussianCovariance has no pure ε-DP version",
        )


def test_zcdp_asked_of_a_pure_only_mechanism():
    _untouched(
        LaplaceCovariance(rho=0.5),
        GOOD,
        UnsupportedPrivacyNotionError,
        "LaplaceCovariance is a pure ε-DP mechanism",
    )


def test_feature_count_mismatch_at_score():
    est = GaussianCovariance(random_state=0).fit(GOOD)
    with pytest.raises(ValueError, match="3 features"):
        est.score(GOOD[:, :2])


def test_a_failed_refit_keeps_the_previous_release():
    est = GaussianCovariance(random_state=0).fit(GOOD)
    release, spent = est.covariance_.copy(), est.privacy_spent_
    with pytest.raises(ValueError):
        est.fit(BAD_DATA["nan"][0])
    np.testing.assert_array_equal(est.covariance_, release)
    assert est.privacy_spent_ == spent


def _dask_cases():
    da = pytest.importorskip("dask.array")
    unknown = da.from_array(GOOD, chunks=(5, 3))
    unknown = unknown[unknown[:, 0] > -1.0]  # boolean indexing: unknown row count
    return {
        "nan": (da.from_array(BAD_DATA["nan"][0], chunks=(7, 3)), "NaN or infinity"),
        "inf": (da.from_array(BAD_DATA["inf"][0], chunks=(7, 3)), "NaN or infinity"),
        "nan in a CSR block": (
            da.from_array(BAD_DATA["nan"][0], chunks=(7, 3)).map_blocks(
                sparse.csr_matrix
            ),
            "NaN or infinity",
        ),
        "one row": (da.from_array(GOOD[:1]), "1 sample"),
        "one feature": (da.from_array(GOOD[:, :1]), "1 feature"),
        "1-d": (da.from_array(GOOD[:, 0]), "Expected 2D array"),
        "3-d": (da.from_array(GOOD.reshape(20, 3, 1)), "3 dimension"),
        "unknown chunks": (unknown, "compute_chunk_sizes"),
        "strings": (da.from_array(np.array([["a", "b"], ["c", "d"]])), "numeric"),
        "complex": (da.from_array(GOOD + 1j), "numeric"),
    }


@pytest.mark.parametrize("estimator", PRIVATE, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(
    "case",
    [
        "nan",
        "inf",
        "nan in a CSR block",
        "one row",
        "one feature",
        "1-d",
        "3-d",
        "unknown chunks",
        "strings",
        "complex",
    ],
)
def test_bad_dask_data_is_refused_before_spending(estimator, case):
    X, match = _dask_cases()[case]
    accountant = PrivacyAccountant(rho=10.0)
    with_accountant = clone(estimator).set_params(accountant=accountant)
    _untouched(with_accountant, X, ValueError, match)
    assert accountant.history() == []
