"""Sufficient statistics: clipping, chunking, sparse input, extreme values."""

import numpy as np
import pytest
from scipy import sparse

from skprivcov._stats import unit_ball_statistics


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
    np.testing.assert_allclose(stats.second_moment, second_moment, rtol=1e-12)
    np.testing.assert_allclose(stats.mean, mean, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(stats.second_moment, stats.second_moment.T)
    assert stats.n_samples == 103


def test_rows_are_clipped_to_the_bound_and_scaled_into_the_unit_ball():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    stats = unit_ball_statistics(X, 1.0, with_mean=True)
    # Row 1 (norm 5) is clipped to norm 1; row 2 is inside; row 3 is zero.
    expected = (np.outer([0.6, 0.8], [0.6, 0.8]) + np.outer([0.3, 0.4], [0.3, 0.4])) / 3
    np.testing.assert_allclose(stats.second_moment, expected)
    np.testing.assert_allclose(stats.mean, [0.3, 0.4])
    assert np.trace(unit_ball_statistics(X * 1e3, 0.5).second_moment) <= 1.0


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_input_gives_the_dense_statistics(data, fmt):
    data = data.copy()
    data[np.abs(data) < 0.5] = 0.0
    X = sparse.csr_matrix(data).asformat(fmt).tocsr()
    stats = unit_ball_statistics(X, 2.0, with_mean=True, chunk_rows=10)
    second_moment, mean = _reference(data, 2.0)
    np.testing.assert_allclose(stats.second_moment, second_moment, rtol=1e-12)
    np.testing.assert_allclose(stats.mean, mean, rtol=1e-12, atol=1e-15)


def test_float32_input(data):
    stats = unit_ball_statistics(data.astype(np.float32), 2.0)
    second_moment, _ = _reference(data.astype(np.float32).astype(float), 2.0)
    assert stats.second_moment.dtype == np.float64
    np.testing.assert_allclose(stats.second_moment, second_moment, rtol=1e-6)


@pytest.mark.parametrize("make", [np.asarray, sparse.csr_matrix])
def test_huge_entries_do_not_overflow_the_norm(make):
    # ‖x‖² overflows float64 here; the row must still be clipped, not zeroed.
    X = make(np.array([[3e200, 4e200], [0.5, 0.0]]))
    stats = unit_ball_statistics(X, 1.0)
    expected = (np.outer([0.6, 0.8], [0.6, 0.8]) + np.diag([0.25, 0.0])) / 2
    np.testing.assert_allclose(stats.second_moment, expected)
