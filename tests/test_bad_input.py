"""Bad input gets a clear error: public problems before anything is spent,
problems of the values after the charge (docs/algorithms.rst §13.2)."""

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
from skprivcov.utils import instances

PRIVATE = [est for _, est in instances(variants=False, kind=BasePrivateCovariance)]
GOOD = np.random.default_rng(0).uniform(-0.3, 0.3, size=(20, 3))

# Problems visible from public facts (shape, dtype kind): refused for free.
BAD_DATA = {
    "empty": (np.empty((0, 3)), "0 sample"),
    "one row": (GOOD[:1], "1 sample"),
    "one feature": (GOOD[:, :1], "1 feature"),
    "3-d": (GOOD.reshape(20, 3, 1), "got 3D array"),
    "1-d": (GOOD[:, 0], "Expected 2D array"),
    "scalar": (np.float64(3.0), "got scalar array"),
    "strings": (np.array([["a", "b"], ["c", "d"]]), "needs numbers"),
    "complex": (GOOD + 1j, "Complex data not supported"),
    "dates": (np.zeros((4, 2), dtype="datetime64[s]"), "needs numbers"),
}
# Problems of the values: found after the charge, so they are paid for.
# With the bad row, four rows: every estimator's public minimum (CoinPress's
# two pairs of the centred default).
_FOUR_ROWS = [[0.2, 0.3], [0.1, 0.1], [0.3, 0.2]]
BAD_VALUES = {
    "nan": (np.where(np.eye(20, 3) == 1, np.nan, GOOD), ValueError, "NaN"),
    "inf": (np.where(np.eye(20, 3) == 1, np.inf, GOOD), ValueError, "infinity"),
    # Every entry that is not a number is refused alike, with NaN and infinity
    # (one paid bit, whatever the kind of entry).
    "a string in an object array": (
        np.array([[0.1, "x"], *_FOUR_ROWS], dtype=object),
        ValueError,
        "not a number",
    ),
    "a dict in an object array": (
        np.array([[0.1, {}], *_FOUR_ROWS], dtype=object),
        ValueError,
        "not a number",
    ),
    "None in an object array": (
        np.array([[0.1, None], *_FOUR_ROWS], dtype=object),
        ValueError,
        "not a number",
    ),
    "an int beyond float64": (
        np.array([[0.1, 10**400], *_FOUR_ROWS], dtype=object),
        ValueError,
        "not a number",
    ),
    "a ragged list": ([[0.1, 0.2], [0.3]], ValueError, "Expected 2D array"),
}


def _untouched(estimator, X, error, match):
    """Fit raises before anything is spent, and fits nothing."""
    accountant = PrivacyAccountant(rho=10.0)
    est = clone(estimator).set_params(accountant=accountant)
    with pytest.raises(error, match=match):
        est.fit(X)
    assert accountant.history() == []
    assert not hasattr(est, "covariance_")


@pytest.mark.parametrize("estimator", PRIVATE, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("case", BAD_DATA, ids=str)
def test_bad_data(estimator, case):
    X, match = BAD_DATA[case]
    _untouched(estimator, X, ValueError, match)


@pytest.mark.parametrize("estimator", PRIVATE, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("case", BAD_VALUES, ids=str)
def test_bad_values_are_refused_after_the_charge(estimator, case):
    X, error, match = BAD_VALUES[case]
    budget = {"rho": 0.5} if "zcdp" in estimator._notions else {"epsilon": 0.5}
    accountant = PrivacyAccountant(rho=10.0)
    est = clone(estimator).set_params(accountant=accountant, **budget)
    with pytest.raises(error, match=match):
        est.fit(X)
    charged = [record.parameter for record in accountant.history()]
    # A ragged list is a public fact (its shape): refused before the charge.
    assert charged == ([] if case == "a ragged list" else [0.5])
    assert not hasattr(est, "covariance_")


BAD_PARAMETERS = [
    ({"rho": 0.0}, InvalidParameterError, "'rho' parameter"),
    ({"rho": -1.0}, InvalidParameterError, "'rho' parameter"),
    ({"rho": 1e-31}, InvalidParameterError, "'rho' parameter"),
    ({"rho": np.inf}, InvalidParameterError, "'rho' parameter"),
    ({"epsilon": 0.0}, InvalidParameterError, "'epsilon' parameter"),
    ({"epsilon": 2e30}, InvalidParameterError, "'epsilon' parameter"),
    ({"norm_bound": 1e-31}, InvalidParameterError, "'norm_bound' parameter"),
    ({"norm_bound": 1.3e154}, InvalidParameterError, "'norm_bound' parameter"),
    ({"norm_bound": np.inf}, InvalidParameterError, "'norm_bound' parameter"),
    ({"nonfinite": "ignore"}, InvalidParameterError, "'nonfinite' parameter"),
    (
        {"random_state": np.random.default_rng(0)},
        InvalidParameterError,
        "'random_state' parameter",
    ),
    (
        {"random_state": np.random.RandomState(0)},
        InvalidParameterError,
        "'random_state' parameter",
    ),
    ({"random_state": -1}, InvalidParameterError, "'random_state' parameter"),
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
        est.fit(BAD_VALUES["nan"][0])
    np.testing.assert_array_equal(est.covariance_, release)
    assert est.privacy_spent_ == spent


def _dask_cases():
    da = pytest.importorskip("dask.array")
    unknown = da.from_array(GOOD, chunks=(5, 3))
    unknown = unknown[unknown[:, 0] > -1.0]  # boolean indexing: unknown row count
    return {
        "nan": (da.from_array(BAD_VALUES["nan"][0], chunks=(7, 3)), "NaN or infinity"),
        "inf": (da.from_array(BAD_VALUES["inf"][0], chunks=(7, 3)), "NaN or infinity"),
        "nan in a CSR block": (
            da.from_array(BAD_VALUES["nan"][0], chunks=(7, 3)).map_blocks(
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
    ["one row", "one feature", "1-d", "3-d", "unknown chunks", "strings", "complex"],
)
def test_bad_dask_data_is_refused_before_spending(estimator, case):
    X, match = _dask_cases()[case]
    _untouched(estimator, X, ValueError, match)


@pytest.mark.parametrize("estimator", PRIVATE, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("case", ["nan", "inf", "nan in a CSR block"])
def test_bad_dask_values_are_refused_after_the_charge(estimator, case):
    X, match = _dask_cases()[case]
    accountant = PrivacyAccountant(rho=10.0)
    est = clone(estimator).set_params(accountant=accountant)
    with pytest.raises(ValueError, match=match):
        est.fit(X)
    assert len(accountant.history()) == 1
