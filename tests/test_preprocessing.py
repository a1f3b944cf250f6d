"""The public-bounds transformers: exact maps, bounds that hold, no learning."""

import numpy as np
import pytest
from scipy import sparse

from skprivcov.preprocessing import FeatureBoundsScaler, RowNormClipper


def _sparse_rows(fmt):
    """50 × 6 with about 30% of entries stored, uniform in [0, 1)."""
    rng = np.random.default_rng(1)
    dense = rng.random((50, 6)) * (rng.random((50, 6)) < 0.3)
    return sparse.csr_matrix(dense).asformat(fmt)


@pytest.fixture
def rows():
    rng = np.random.default_rng(0)
    return rng.normal(size=(200, 4)) * rng.uniform(0.1, 3.0, size=(200, 1))


def test_row_clipper_leaves_in_bound_rows_unchanged_and_clips_the_others(rows):
    bound = 2.0
    out = RowNormClipper(norm_bound=bound).transform(rows)
    norms = np.linalg.norm(rows, axis=1)
    inside = norms <= bound
    assert 0 < inside.sum() < len(rows)
    np.testing.assert_array_equal(out[inside], rows[inside])
    np.testing.assert_allclose(np.linalg.norm(out[~inside], axis=1), bound, rtol=1e-14)
    # Same direction: a positive multiple of the row.
    np.testing.assert_allclose(
        out[~inside], rows[~inside] * (bound / norms[~inside])[:, None], rtol=1e-14
    )


def test_row_clipper_scale_puts_rows_in_the_unit_ball(rows):
    out = RowNormClipper(norm_bound=2.0, scale=True).transform(rows)
    np.testing.assert_allclose(
        out, RowNormClipper(norm_bound=2.0).transform(rows) / 2.0, rtol=1e-15
    )
    assert np.linalg.norm(out, axis=1).max() <= 1.0 + 1e-15


def test_row_clipper_keeps_zero_rows_dtype_and_sparsity(rows):
    rows = rows.copy()
    rows[3] = 0.0
    clipper = RowNormClipper(norm_bound=1.5, scale=True)
    dense = clipper.transform(rows)
    np.testing.assert_array_equal(dense[3], 0.0)
    assert clipper.transform(rows.astype(np.float32)).dtype == np.float32
    for fmt in ("csr", "csc"):
        out = clipper.transform(_sparse_rows(fmt))
        assert out.format == fmt
    X = _sparse_rows("csr") * 4
    np.testing.assert_allclose(
        clipper.transform(X).toarray(), clipper.transform(X.toarray())
    )


def test_transformers_learn_nothing_in_fit(rows):
    other = rows[:20] * 100 + 7
    for transformer in (
        RowNormClipper(norm_bound=1.0),
        FeatureBoundsScaler(lower=-1.0, upper=2.0),
    ):
        fitted = transformer.fit(other).transform(rows)
        np.testing.assert_array_equal(
            fitted, type(transformer)(**transformer.get_params()).transform(rows)
        )


def test_feature_bounds_map_is_the_affine_map_inside_and_clips_outside():
    lower, upper = np.array([0.0, 10.0, -5.0]), np.array([1.0, 30.0, 5.0])
    scaler = FeatureBoundsScaler(lower=lower, upper=upper, feature_range=(-2.0, 1.0))
    rng = np.random.default_rng(1)
    inside = rng.uniform(lower, upper, size=(100, 3))
    out = scaler.transform(inside)
    np.testing.assert_allclose(out, (inside - lower) / (upper - lower) * 3.0 - 2.0)
    outside = np.array([[-1.0, 40.0, 5.0], [2.0, 0.0, -6.0]])
    np.testing.assert_allclose(
        scaler.transform(outside), [[-2.0, 1.0, 1.0], [1.0, -2.0, -2.0]]
    )


def test_feature_bounds_give_the_stated_row_norm_bound():
    scaler = FeatureBoundsScaler(lower=[0, 0, 0, 0], upper=[1, 2, 3, 4])
    X = np.random.default_rng(2).uniform(-3, 8, size=(500, 4))
    bound = scaler.row_norm_bound()
    assert bound == pytest.approx(2.0)
    assert np.linalg.norm(scaler.transform(X), axis=1).max() <= bound
    # Corners reach it: the bound is tight.
    assert np.linalg.norm(scaler.transform(np.full((1, 4), 9.0))) == pytest.approx(
        bound
    )
    scalar = FeatureBoundsScaler(lower=0.0, upper=1.0, feature_range=(0.0, 1.0))
    with pytest.raises(ValueError, match="n_features"):
        scalar.row_norm_bound()
    assert scalar.row_norm_bound(9) == pytest.approx(3.0)
    assert scalar.fit(X).row_norm_bound() == pytest.approx(2.0)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"lower": 1.0, "upper": 1.0}, "smaller than its upper"),
        ({"lower": [0, 0], "upper": 1.0}, "one entry per feature"),
        ({"lower": [0, np.nan, 0], "upper": 1.0}, "finite"),
        ({"feature_range": (1.0, 0.0)}, "min < max"),
        ({"feature_range": (0.0, 1.0, 2.0)}, r"\(min, max\)"),
    ],
)
def test_feature_bounds_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        FeatureBoundsScaler(**params).transform(np.zeros((3, 3)))


def test_feature_bounds_refuse_sparse_and_keep_float32():
    with pytest.raises(TypeError, match="dense data is required"):
        FeatureBoundsScaler().transform(sparse.eye(3, format="csr"))
    X = np.ones((2, 3), dtype=np.float32)
    assert FeatureBoundsScaler().transform(X).dtype == np.float32


def test_pandas_output_and_feature_names(rows):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(rows, columns=["a", "b", "c", "d"])
    for transformer in (RowNormClipper(), FeatureBoundsScaler()):
        transformer.set_output(transform="pandas")
        out = transformer.fit(frame).transform(frame)
        assert isinstance(out, pd.DataFrame)
        assert list(out.columns) == ["a", "b", "c", "d"]
        assert list(transformer.get_feature_names_out()) == ["a", "b", "c", "d"]
