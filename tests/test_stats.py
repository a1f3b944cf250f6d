"""Sufficient statistics: clipping, chunking, sparse input, extreme values."""

import itertools
import tracemalloc

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone

from skprivcov import AdaptiveCovariance, GaussianCovariance, SeparateCovariance
from skprivcov._data import _statistics as _stats
from skprivcov._data._statistics import norm_profile, unit_ball_statistics
from skprivcov._data._symmetric import mirror_upper, symmetrize

# The rows are on the grid 2^−k (docs/algorithms.rst §19): each coordinate of a
# unit-ball row moves by at most 2^−k (and by the factor 1 − 2^−32), so an entry
# of the second moment by at most 2·2^−k + 2^−31, of the mean by 2^−k + 2^−32.
GRID_MOMENT = 2.0 ** (1 - _stats.FRACTION_BITS) + 2.0**-31
GRID_MEAN = 2.0**-_stats.FRACTION_BITS + 2.0**-32


def _reference(X, bound):
    norms = np.linalg.norm(X, axis=1)
    Z = X / np.maximum(norms, bound)[:, None]
    return Z.T @ Z / len(X), Z.mean(axis=0)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(103, 4)) * np.array([3.0, 1.0, 0.5, 0.1])


@pytest.mark.parametrize("chunk_rows", [None, 1, 7, 103, 500])
def test_chunked_statistics_equal_the_direct_computation(data, chunk_rows):
    stats = unit_ball_statistics(data, 2.0, with_mean=True, chunk_rows=chunk_rows)
    second_moment, mean = _reference(data, 2.0)
    np.testing.assert_allclose(stats.second_moment, second_moment, atol=GRID_MOMENT)
    np.testing.assert_allclose(stats.mean, mean, atol=GRID_MEAN)
    np.testing.assert_array_equal(stats.second_moment, stats.second_moment.T)
    assert stats.n_samples == 103


def test_rows_are_clipped_to_the_bound_and_scaled_into_the_unit_ball():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    stats = unit_ball_statistics(X, 1.0, with_mean=True)
    # Row 1 (norm 5) is clipped to norm 1; row 2 is inside; row 3 is zero.
    expected = (np.outer([0.6, 0.8], [0.6, 0.8]) + np.outer([0.3, 0.4], [0.3, 0.4])) / 3
    np.testing.assert_allclose(stats.second_moment, expected, atol=GRID_MOMENT)
    np.testing.assert_allclose(stats.mean, [0.3, 0.4], atol=GRID_MEAN)
    assert np.trace(unit_ball_statistics(X * 1e3, 0.5).second_moment) <= 1.0


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_gives_the_dense_statistics(data, fmt):
    data = data.copy()
    data[np.abs(data) < 0.5] = 0.0
    X = sparse.csr_matrix(data).asformat(fmt).tocsr()
    stats = unit_ball_statistics(X, 2.0, with_mean=True, chunk_rows=10)
    second_moment, mean = _reference(data, 2.0)
    np.testing.assert_allclose(stats.second_moment, second_moment, atol=GRID_MOMENT)
    np.testing.assert_allclose(stats.mean, mean, atol=GRID_MEAN)


@pytest.mark.parametrize("make", [np.asarray, sparse.csr_matrix, sparse.csc_matrix])
@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_tiny_or_huge_rows_are_clipped_by_their_true_norm(make, scale):
    # ‖x‖² underflows to 0 at 1e-200: the row would escape the bound's clipping.
    X = np.array([[3.0, 4.0], [0.5, 0.0], [0.0, 0.0]]) * scale
    stats = unit_ball_statistics(make(X), scale, with_mean=True)
    expected = np.outer([0.6, 0.8], [0.6, 0.8]) + np.diag([0.25, 0.0])
    np.testing.assert_allclose(stats.second_moment, expected / 3, atol=GRID_MOMENT)
    np.testing.assert_allclose(stats.mean, [1.1 / 3, 0.8 / 3], atol=GRID_MEAN)
    profile = norm_profile(make(X), scale)
    assert profile.counts.sum() == 2 and profile.counts[-1] == 1


@pytest.mark.parametrize("make", [np.asarray, sparse.csr_matrix])
def test_huge_entries_do_not_overflow_the_norm(make):
    # ‖x‖² overflows float64 here; the row must still be clipped, not zeroed.
    X = make(np.array([[3e200, 4e200], [0.5, 0.0]]))
    stats = unit_ball_statistics(X, 1.0)
    expected = (np.outer([0.6, 0.8], [0.6, 0.8]) + np.diag([0.25, 0.0])) / 2
    np.testing.assert_allclose(stats.second_moment, expected, atol=GRID_MOMENT)


def _sparse_data(data):
    data = data.copy()
    data[np.abs(data) < 0.5] = 0.0
    data[5] = 0.0  # an empty row
    return data


@pytest.mark.parametrize("chunk_rows", [None, 1, 3])
def test_csc_input_is_reduced_by_column_blocks(data, chunk_rows):
    data = _sparse_data(data)
    X = sparse.csc_matrix(data)
    stats = unit_ball_statistics(X, 2.0, with_mean=True, chunk_rows=chunk_rows)
    second_moment, mean = _reference(data, 2.0)
    np.testing.assert_allclose(stats.second_moment, second_moment, atol=GRID_MOMENT)
    np.testing.assert_allclose(stats.mean, mean, atol=GRID_MEAN)
    np.testing.assert_array_equal(stats.second_moment, stats.second_moment.T)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_blocks_hold_a_bounded_number_of_non_zeros(data, fmt, monkeypatch):
    data = _sparse_data(data)
    X = sparse.csr_matrix(data).asformat(fmt)
    monkeypatch.setattr(_stats, "_CHUNK_VALUES", 5)
    blocks = list(_stats._sparse_blocks(X.indptr, X.shape[0]))
    # Contiguous, covering, each within the budget unless a single line.
    assert blocks[0][0] == 0 and blocks[-1][1] == len(X.indptr) - 1
    assert all(stop == start for (_, stop), (start, _) in itertools.pairwise(blocks))
    for start, stop in blocks:
        assert X.indptr[stop] - X.indptr[start] <= 5 or stop == start + 1
    stats = unit_ball_statistics(X, 2.0, with_mean=True)
    second_moment, mean = _reference(data, 2.0)
    np.testing.assert_allclose(stats.second_moment, second_moment, atol=GRID_MOMENT)
    np.testing.assert_allclose(stats.mean, mean, atol=GRID_MEAN)


def _formats(data):
    da = pytest.importorskip("dask.array")
    return {
        "fortran": np.asfortranarray(data),
        "csr": sparse.csr_matrix(data),
        "csc": sparse.csc_matrix(data),
        "dask": da.from_array(data, chunks=(20, 2)),
        "dask of csr blocks": da.from_array(data, chunks=(30, 4)).map_blocks(
            sparse.csr_matrix
        ),
    }


@pytest.mark.parametrize("fmt", ["fortran", "csr", "csc", "dask", "dask of csr blocks"])
def test_every_format_gives_the_same_statistics(data, fmt):
    data = _sparse_data(data)
    X = _formats(data)[fmt]
    stats = unit_ball_statistics(X, 2.0, with_mean=True, chunk_rows=7)
    second_moment, mean = _reference(data, 2.0)
    np.testing.assert_allclose(stats.second_moment, second_moment, atol=GRID_MOMENT)
    np.testing.assert_allclose(stats.mean, mean, atol=GRID_MEAN)
    np.testing.assert_array_equal(stats.second_moment, stats.second_moment.T)
    # The norm profile (integers, and exact sums of squares) agrees too.
    profile, reference = norm_profile(X, 2.0, chunk_rows=7), norm_profile(data, 2.0)
    np.testing.assert_array_equal(profile.counts, reference.counts)
    np.testing.assert_array_equal(profile.squared_units, reference.squared_units)
    assert profile.n_samples == reference.n_samples == 103


def test_float32_input_is_read_without_loss(data):
    single = data.astype(np.float32)
    from_single = norm_profile(single, 2.0, chunk_rows=10)
    from_double = norm_profile(single.astype(np.float64), 2.0, chunk_rows=10)
    for a, b in zip(from_single, from_double, strict=True):
        np.testing.assert_array_equal(a, b)
    from_single = unit_ball_statistics(single, 2.0, chunk_rows=10, with_mean=True)
    from_double = unit_ball_statistics(
        single.astype(np.float64), 2.0, chunk_rows=10, with_mean=True
    )
    for a, b in (
        (from_single.gram, from_double.gram),
        (from_single.sums, from_double.sums),
    ):
        np.testing.assert_array_equal(a.integers(), b.integers())
    assert unit_ball_statistics(single, 2.0).second_moment.dtype == np.float64


def _peak_allocation(function):
    """Peak bytes allocated (numpy reports to tracemalloc) while ``function`` runs."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "estimator",
    [GaussianCovariance(), AdaptiveCovariance(), SeparateCovariance(epsilon=1.0)],
    ids=lambda e: type(e).__name__,
)
# Dask on a memmap (about 1 s each, the first dask compute of a process
# allocating more) runs with the slow tests.
@pytest.mark.parametrize(
    "fmt",
    ["memmap", "csr", "csc", pytest.param("dask on a memmap", marks=pytest.mark.slow)],
)
def test_fit_streams_x_and_never_copies_it(estimator, fmt, tmp_path, monkeypatch):
    """With 64 KiB chunks, a fit allocates far less than X itself: validation
    does not copy it, and the statistics read one chunk at a time."""
    monkeypatch.setattr(_stats, "_CHUNK_VALUES", 1 << 13)
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(100_000, 8))
    dense[rng.random(dense.shape) < 0.5] = 0.0
    np.save(tmp_path / "X.npy", dense)
    X = np.load(tmp_path / "X.npy", mmap_mode="r")
    if fmt in ("csr", "csc"):
        X = sparse.csr_matrix(dense).asformat(fmt)
    if fmt == "dask on a memmap":
        da = pytest.importorskip("dask.array")
        # Dask's first compute in a process loads its scheduler (megabytes that
        # are not the fit's): done before the measurement.
        da.ones((2, 2), chunks=1).sum().compute()
        X = da.from_array(X, chunks=(5_000, 8))
    size = X.data.nbytes if sparse.issparse(X) else dense.nbytes
    del dense
    peak = _peak_allocation(lambda: clone(estimator).set_params(random_state=0).fit(X))
    # CSC input needs its row norms at once: a few vectors of n floats.
    allowance = 4 * 8 * X.shape[0] if fmt == "csc" else 0
    assert peak < size / 5 + allowance, (peak, size)


@pytest.mark.parametrize("d", [1, 5, 256, 257, 600])
@pytest.mark.parametrize("order", ["C", "F"])
def test_blocked_symmetrisation(d, order):
    matrix = np.random.default_rng(d).normal(size=(d, d))
    mirrored = mirror_upper(np.array(matrix, order=order))
    np.testing.assert_array_equal(mirrored, np.triu(matrix) + np.triu(matrix, 1).T)
    averaged = symmetrize(np.array(matrix, order=order))
    np.testing.assert_array_equal(averaged, averaged.T)
    np.testing.assert_allclose(averaged, 0.5 * (matrix + matrix.T), rtol=0, atol=0)
