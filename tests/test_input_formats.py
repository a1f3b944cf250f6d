"""Every input format clips by the same norm and gives the same release
(docs/algorithms.rst §13.3); nothing data-independent fails after the charge (§13.2);
the private traces are exact (§13.6)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    PrivacyAccountant,
    ZeroCovariance,
)
from skprivcov._data._exact import FRACTION_BITS
from skprivcov._data._statistics import norm_profile, unit_ball_statistics
from skprivcov._fit._constraints import BUDGET_RANGE, NORM_BOUND_RANGE
from skprivcov.covariance import BasePrivateCovariance
from skprivcov.linear_model import PrivateRidge
from skprivcov.mechanisms._adaptive import relative_trace
from skprivcov.preprocessing import RowNormClipper
from skprivcov.utils import instances

PRIVATE = [est for _, est in instances(variants=False, kind=BasePrivateCovariance)]


def _name(estimator):
    return type(estimator).__name__


def _with_duplicates(matrix):
    """The same matrix (CSR or CSC) with every stored value split into two
    stored halves at the same position (exact in binary), in reversed order
    within each line: duplicates and unsorted indices at once."""
    lengths = np.diff(matrix.indptr)
    data = np.repeat(matrix.data / 2.0, 2)
    indices = np.repeat(matrix.indices, 2)
    indptr = np.concatenate([[0], np.cumsum(2 * lengths)])
    for start, stop in itertools.pairwise(indptr):
        indices[start:stop] = indices[start:stop][::-1]
        data[start:stop] = data[start:stop][::-1]
    return type(matrix)((data, indices, indptr), shape=matrix.shape)


def _unsorted(matrix):
    indices, data = matrix.indices.copy(), matrix.data.copy()
    for start, stop in itertools.pairwise(matrix.indptr):
        indices[start:stop] = indices[start:stop][::-1]
        data[start:stop] = data[start:stop][::-1]
    return type(matrix)((data, indices, matrix.indptr.copy()), shape=matrix.shape)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4)) * np.array([2.0, 1.0, 0.5, 0.1])
    X[np.abs(X) < 0.3] = 0.0
    X[7] = 0.0  # a row of zeros
    # Exactly representable in float32, so the float32 copy holds the same values.
    return X.astype(np.float32).astype(np.float64)


def _families(X, tmp_path):
    """Formats grouped by the arithmetic they share: bitwise-equal releases
    within a family."""
    pd = pytest.importorskip("pandas")
    da = pytest.importorskip("dask.array")
    np.save(tmp_path / "X.npy", X)
    csr, csc = sparse.csr_matrix(X), sparse.csc_matrix(X)
    return {
        "dense": {
            "float64": X,
            "fortran": np.asfortranarray(X),
            "float32": X.astype(np.float32),
            "memmap": np.load(tmp_path / "X.npy", mmap_mode="r"),
            "dataframe": pd.DataFrame(X, columns=list("abcd")),
        },
        "csr": {
            "canonical": csr,
            "duplicates": _with_duplicates(csr),
            "unsorted": _unsorted(csr),
            "float32": csr.astype(np.float32),
            "coo": csr.tocoo(),
        },
        "csc": {
            "canonical": csc,
            "duplicates": _with_duplicates(csc),
            "unsorted": _unsorted(csc),
            "float32": csc.astype(np.float32),
        },
        "dask": {
            "dense blocks": da.from_array(X, chunks=(50, 4)),
            "csr blocks": da.from_array(X, chunks=(50, 4)).map_blocks(
                sparse.csr_matrix
            ),
            "csc blocks with duplicates": da.from_array(X, chunks=(50, 4)).map_blocks(
                lambda block: _with_duplicates(sparse.csc_matrix(block))
            ),
        },
    }


@pytest.mark.parametrize("estimator", PRIVATE, ids=_name)
@pytest.mark.parametrize("assume_centered", [True, False])
def test_every_format_gives_the_same_release(
    estimator, assume_centered, data, tmp_path
):
    """Same seed: bitwise-equal releases within a family of formats, equal up
    to summation order (1e-12) across families."""
    est = clone(estimator).set_params(
        random_state=3, norm_bound=2.0, assume_centered=assume_centered
    )
    if "n_sweeps" in est.get_params():
        # The nuclear chain runs after the statistics the formats share: a
        # short chain (5 sweeps, not 200) compares the same statistics.
        est.set_params(n_sweeps=5)
    reference = None
    for family, formats in _families(data, tmp_path).items():
        releases = {name: clone(est).fit(X).covariance_ for name, X in formats.items()}
        first = next(iter(releases.values()))
        for name, release in releases.items():
            if family == "dask":  # blocks are added in a tree: another order
                np.testing.assert_allclose(release, first, rtol=1e-12, atol=1e-14)
            else:
                np.testing.assert_array_equal(release, first, err_msg=name)
        if reference is None:
            reference = first
        np.testing.assert_allclose(first, reference, rtol=1e-12, atol=1e-14)


def _clipped_row_of_duplicates(fmt):
    """A row that is 10⁴ stored duplicates of 1.0 in column 0: the summed row
    is (10⁴, 0, 0), norm 10⁴, to be clipped to the bound 1."""
    rng = np.random.default_rng(1)
    dense = 0.3 * rng.uniform(-1, 1, size=(20, 3))
    dense[0] = [1e4, 0.0, 0.0]
    rows = np.concatenate([np.zeros(10_000, int), np.repeat(np.arange(1, 20), 3)])
    cols = np.concatenate([np.zeros(10_000, int), np.tile(np.arange(3), 19)])
    values = np.concatenate([np.ones(10_000), dense[1:].ravel()])
    coo = (values, (rows, cols))
    X = sparse.csc_matrix(coo, shape=(20, 3))
    if fmt == "csc":  # scipy's constructor summed them; put them back
        X = sparse.csc_matrix(
            (values[np.argsort(cols, kind="stable")],
             rows[np.argsort(cols, kind="stable")],
             np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=3))])),
            shape=(20, 3),
        )  # fmt: skip
    else:
        order = np.argsort(rows, kind="stable")
        X = sparse.csr_matrix(
            (values[order], cols[order],
             np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=20))])),
            shape=(20, 3),
        )  # fmt: skip
    assert X.nnz > 10_000  # the duplicates are stored, not summed
    return X, dense


@pytest.mark.parametrize("fmt", ["csc", "csr", "dask of csc blocks"])
def test_duplicate_entries_are_clipped_by_the_summed_norm(fmt):
    """Finding 2: cdb4175 took the norm of a CSC row of 10⁴ duplicates of 1.0
    as √(10⁴) = 100 while every product summed them to 10⁴: the row entered
    Σ₀₀ = 10.09 instead of the clipped 0.089 (unbounded sensitivity)."""
    X, dense = _clipped_row_of_duplicates("csr" if fmt == "csr" else "csc")
    if fmt.startswith("dask"):
        da = pytest.importorskip("dask.array")
        X = da.from_array(X, chunks=(10, 3), asarray=False)
    stats = unit_ball_statistics(X, 1.0, with_mean=True)
    reference = unit_ball_statistics(dense, 1.0, with_mean=True)
    np.testing.assert_allclose(stats.second_moment, reference.second_moment, 1e-12)
    np.testing.assert_allclose(stats.mean, reference.mean, 1e-12)
    assert np.trace(stats.second_moment) <= 1.0
    assert stats.squared_units == reference.squared_units
    np.testing.assert_array_equal(
        norm_profile(X, 1.0).counts, norm_profile(dense, 1.0).counts
    )
    for est in (GaussianCovariance(rho=1e12), AdaptiveCovariance(rho=1e12)):
        # The defaults (a private bound from the summed norms too) and the
        # papers' setting, where the clipped row's entry is known.
        for params in ({}, {"norm_bound": 1.0, "assume_centered": True}):
            release = clone(est).set_params(random_state=0, **params).fit(X)
            expected = clone(est).set_params(random_state=0, **params).fit(dense)
            np.testing.assert_allclose(
                release.covariance_, expected.covariance_, rtol=1e-9, atol=1e-9
            )
        assert release.covariance_[0, 0] < 0.1


def test_transformers_and_ridge_clip_duplicates_by_the_summed_norm():
    X, dense = _clipped_row_of_duplicates("csr")
    clipped = RowNormClipper(norm_bound=1.0).transform(X)
    assert np.linalg.norm(clipped.toarray(), axis=1).max() <= 1.0 + 1e-12
    for sparse_X in (X, sparse.csc_matrix(X)):
        model = PrivateRidge(
            estimator=GaussianCovariance(rho=1e12), random_state=0, y_bound=1.0
        ).fit(sparse_X, np.zeros(20))
        again = PrivateRidge(
            estimator=GaussianCovariance(rho=1e12), random_state=0, y_bound=1.0
        ).fit(dense, np.zeros(20))
        np.testing.assert_allclose(model.coef_, again.coef_, atol=1e-9)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_float32_sparse_norms_are_taken_in_float64(fmt):
    """Finding 8: cdb4175 summed squares of float32 CSR rows in float32, where
    (3e−23)² underflows; with a bound of 1e−24 the row escaped clipping."""
    dense = np.array([[3e-23, 4e-23, 0.0], [0.0, 1e-25, 1e-25], [1e-24, 0.0, 0.0]])
    single = sparse.csr_matrix(dense.astype(np.float32)).asformat(fmt)
    stats = unit_ball_statistics(single, 1e-24)
    reference = unit_ball_statistics(dense.astype(np.float32).astype(float), 1e-24)
    np.testing.assert_allclose(stats.second_moment, reference.second_moment, 1e-6)
    assert np.trace(stats.second_moment) <= 1.0 + 1e-12


# --------------------------------------------------------------------------------
# Finding 9: nothing data-independent fails after the charge.


def _extreme_data():
    rng = np.random.default_rng(2)
    return {
        "zeros": np.zeros((6, 3)),
        "huge": rng.uniform(-1, 1, (6, 3)) * 1e300,
        "tiny": rng.uniform(-1, 1, (6, 3)) * 1e-300,
        "overflowing norms": np.full((6, 3), 1.5e308),
        # Four rows: CoinPress's centred fit needs two pairs (a public refusal).
        "mixed": np.array(
            [
                [1e300, 1e-300, 0.0],
                [0.0, 0.0, 0.0],
                [1.0, -1.0, 0.5],
                [-1e-300, 1e300, 2.0],
            ]
        ),
    }


@pytest.mark.slow
@pytest.mark.parametrize("estimator", PRIVATE, ids=_name)
@pytest.mark.parametrize("norm_bound", NORM_BOUND_RANGE)
@pytest.mark.parametrize("budget", BUDGET_RANGE)
def test_fits_at_the_ends_of_the_public_ranges_never_fail(
    estimator, norm_bound, budget
):
    """cdb4175 spent the budget and then produced NaN or an error for
    norm_bound below ~1e−308 (1e−247 for Adaptive) or above ~1.3e154. Every
    estimator at every corner of the documented ranges, on adversarial data,
    now releases a finite, symmetric matrix."""
    notion = "rho" if "zcdp" in estimator._notions else "epsilon"
    for centred in (True, False):
        est = clone(estimator).set_params(
            norm_bound=norm_bound,
            assume_centered=centred,
            random_state=0,
            **{notion: budget},
        )
        if _name(est) == "NuclearLaplaceCovariance":
            est.set_params(n_sweeps=5)
        for name, X in _extreme_data().items():
            release = clone(est).fit(X).covariance_
            assert np.all(np.isfinite(release)), (name, centred)
            np.testing.assert_array_equal(release, release.T)


def test_out_of_range_public_numbers_are_refused_before_spending():
    accountant = PrivacyAccountant(rho=1.0)
    for params in (
        {"norm_bound": 1e-308},
        {"norm_bound": 1.3e154},
        {"rho": 1e-300},
        {"rho": 1e300},
    ):
        with pytest.raises(ValueError, match="parameter"):
            GaussianCovariance(accountant=accountant, **params).fit(np.ones((5, 2)))
    with pytest.raises(ValueError, match="lower < upper"):
        PrivateRidge(
            y_bound=(-1e300, 1e300), estimator=GaussianCovariance(accountant=accountant)
        ).fit(np.ones((5, 2)), np.ones(5))
    assert accountant.history() == []
    assert ZeroCovariance().fit(np.full((3, 2), np.nan)).covariance_.sum() == 0.0


# --------------------------------------------------------------------------------
# Finding 10: the private traces move by at most their sensitivity, exactly.


def _float_trace(norms):
    """The trace as cdb4175 computed it: float sums of the squared norms."""
    return np.bincount(np.zeros(len(norms), int), weights=norms * norms).sum() / len(
        norms
    )


def test_the_private_traces_are_exact():
    """Replacing a row of norm 1 by a zero row moves the trace by exactly 1/n.
    The float sums of cdb4175 moved it by 1/n·(1 + 5.6e−14) here, above the
    sensitivity the noise is calibrated for; the exact sums never do."""
    n = 1000
    norms = np.random.default_rng(1).uniform(0, 1, n)
    norms[0] = 1.0
    neighbour = norms.copy()
    neighbour[0] = 0.0
    float_move = abs(Fraction(_float_trace(norms)) - Fraction(_float_trace(neighbour)))
    assert float_move * n > 1  # the broken variant: the test has power

    def exact_traces(values):
        X = np.column_stack([values, np.zeros(n)])  # rows of norm exactly `values`
        profile = norm_profile(X, 1.0)
        present = profile.counts > 0
        adaptive = relative_trace(
            profile.exponents[present],
            profile.counts[present],
            profile.squared_units[present],
            0,
            n,
        )
        return adaptive, unit_ball_statistics(X, 1.0).trace

    # The second trace is of the rows on the grid 2^−k (§19): each squared
    # norm within 2·2^−k + 2^−31 of the row's own.
    on_grid = 2.0 ** (1 - FRACTION_BITS) + 2.0**-31
    for first, second in zip(exact_traces(norms), exact_traces(neighbour), strict=True):
        assert abs(first - second) == Fraction(1, n)
    truth = float(np.mean(norms**2))
    adaptive, gram = exact_traces(norms)
    assert math.isclose(float(adaptive), truth, rel_tol=1e-12)
    assert abs(float(gram) - truth) <= on_grid


@pytest.mark.parametrize("nonfinite", ["zero", "raise"])
def test_the_ridge_reads_a_sparse_row_of_overflowing_duplicates_as_dense(nonfinite):
    """Review of issue 33 (F1): two stored 1.7e308 in one cell sum to inf in the
    dense row; the ridge's finiteness rule (and its private-mean fallback)
    must see the same row from the sparse input (§13.3)."""
    from skprivcov.linear_model import PrivateRidge

    rng = np.random.default_rng(0)
    dense_rows = rng.normal(size=(300, 3))
    y = rng.normal(size=300) + 100.0
    data, rows, cols = [], [], []
    for i, j in zip(*np.nonzero(dense_rows), strict=True):
        data.append(dense_rows[i, j])
        rows.append(i)
        cols.append(j)
    data += [1.7e308, 1.7e308]
    rows += [5, 5]
    cols += [0, 0]
    X = sparse.csr_matrix((data, (rows, cols)), shape=(300, 3))
    dense = X.toarray()  # row 5 holds inf
    assert not np.isfinite(dense[5]).all()
    model = PrivateRidge(
        estimator=GaussianCovariance(rho=0.01, nonfinite=nonfinite), random_state=0
    )
    if nonfinite == "raise":
        for data_in in (X, dense):
            with pytest.raises(ValueError):
                clone(model).fit(data_in, y)
        return
    from_sparse = clone(model).fit(X, y)
    from_dense = clone(model).fit(dense, y)
    assert from_sparse.intercept_ == from_dense.intercept_
    np.testing.assert_array_equal(from_sparse.coef_, from_dense.coef_)
