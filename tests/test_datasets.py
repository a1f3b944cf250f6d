"""The papers' synthetic generators: construction, norms, seeds, bad sizes."""

import numpy as np
import pytest

from skprivcov.datasets import adk19_normalize, make_adk19, make_zipf_norms


def _mixed_by_hand(n, d, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    U = rng.uniform(size=(d, d))
    return Z @ U


def test_adk19_is_algorithm_3_normalised():
    X = make_adk19(400, 7, random_state=3)
    mixed = _mixed_by_hand(400, 7, 3)
    standardised = (mixed - mixed.mean(axis=0)) / mixed.std(axis=0)
    expected = standardised / np.linalg.norm(standardised, axis=1)[:, None]
    np.testing.assert_allclose(X, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-14)
    assert np.trace(X.T @ X / len(X)) == pytest.approx(1.0, rel=1e-13)


def test_adk19_normalize_standardises_features_then_rows():
    rng = np.random.default_rng(0)
    raw = rng.normal(loc=[5.0, -3.0, 0.0], scale=[10.0, 0.1, 1.0], size=(300, 3))
    X = adk19_normalize(raw)
    standardised = (raw - raw.mean(axis=0)) / raw.std(axis=0)
    # Each row is the standardised row, rescaled to norm 1: same direction.
    cosines = np.sum(X * standardised, axis=1) / np.linalg.norm(standardised, axis=1)
    np.testing.assert_allclose(cosines, 1.0, rtol=1e-12)
    # A constant feature stays 0 rather than dividing by zero.
    assert np.all(adk19_normalize(np.column_stack([raw, np.ones(300)]))[:, 3] == 0)


def test_zipf_norms_construction_and_bins():
    n, d, bins, skew = 1000, 6, 4, 3.0
    X = make_zipf_norms(n, d, n_bins=bins, skew=skew, random_state=5)
    mixed = _mixed_by_hand(n, d, 5)
    mixed -= mixed.mean(axis=0)
    directions = mixed / np.linalg.norm(mixed, axis=1)[:, None]
    norms = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(X, directions * norms[:, None], rtol=1e-12)
    # Bin k holds a share ∝ 1/k^s of the rows (rounded to whole rows), norm 2^(k−N).
    shares = np.arange(1, bins + 1) ** -skew
    expected_counts = n * shares / shares.sum()
    levels, counts = np.unique(np.round(np.log2(norms)).astype(int), return_counts=True)
    np.testing.assert_array_equal(levels, np.arange(1, bins + 1) - bins)
    np.testing.assert_allclose(counts[::-1], expected_counts[::-1], atol=1.0)
    assert counts.sum() == n
    np.testing.assert_allclose(norms, 2.0 ** np.round(np.log2(norms)), rtol=1e-13)


def test_one_bin_is_unit_rows():
    X = make_zipf_norms(200, 3, random_state=0)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-14)


@pytest.mark.parametrize("make", [make_adk19, make_zipf_norms])
def test_seeded(make):
    np.testing.assert_array_equal(
        make(50, 4, random_state=1), make(50, 4, random_state=1)
    )
    assert not np.array_equal(make(50, 4, random_state=1), make(50, 4, random_state=2))
    generator = np.random.default_rng(9)
    first, second = (
        make(50, 4, random_state=generator),
        make(50, 4, random_state=generator),
    )
    assert not np.array_equal(first, second)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_samples": 0, "n_features": 3}, ValueError, "n_samples must be at least 1"),
        (
            {"n_samples": 5, "n_features": 0},
            ValueError,
            "n_features must be at least 1",
        ),
        ({"n_samples": 5.0, "n_features": 3}, TypeError, "n_samples must be an int"),
        ({"n_samples": 5, "n_features": True}, TypeError, "n_features must be an int"),
    ],
)
@pytest.mark.parametrize("make", [make_adk19, make_zipf_norms])
def test_bad_sizes(make, kwargs, error, match):
    with pytest.raises(error, match=match):
        make(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_bins": 0}, "n_bins must be at least 1"), ({"skew": -1.0}, "skew must be")],
)
def test_zipf_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_zipf_norms(10, 3, **kwargs)
