"""PrivateFeatureScaler (docs/algorithms.rst §18.3) and pipeline_spent."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import sparse
from sklearn.pipeline import Pipeline, make_pipeline

from skprivcov._data._statistics import feature_counts
from skprivcov.covariance import GaussianCovariance
from skprivcov.decomposition import PrivatePCA
from skprivcov.linear_model import PrivateRidge
from skprivcov.mechanisms import _quantile as quantile_module
from skprivcov.mechanisms._quantile import (
    norm_grid,
    quantile_epsilon,
    quantile_rank_error,
    signed_grid,
    target_ranks,
)
from skprivcov.model_selection import pipeline_spent
from skprivcov.preprocessing import PrivateFeatureScaler, RowNormClipper
from skprivcov.privacy import PrivacyAccountant, PrivacyCost, compose_parts

SECRET = 123456.789  # a value that must never appear in a message


def _data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack(
        [rng.normal(100.0, 10.0, n), rng.exponential(0.01, n), -rng.uniform(5, 6, n)]
    )


def test_the_grid_is_the_mirror_of_the_norm_grid_with_zero():
    grid = signed_grid((0.5, 8.0))
    positive = norm_grid(0.5, 8.0)[1:]
    assert np.all(np.diff(grid) > 0)
    np.testing.assert_array_equal(grid[grid > 0], positive)
    np.testing.assert_array_equal(grid[grid < 0], -positive[::-1])
    assert 0.0 in grid and grid.size == 2 * positive.size + 1


def test_the_counts_are_exact_per_feature():
    X = _data(300)
    grid = signed_grid((0.01, 1000.0))
    counts = feature_counts(X, grid)
    expected = (X[:, :, None] <= grid[None, None, :]).sum(axis=0)
    np.testing.assert_array_equal(counts, expected)


def test_the_quantile_choice_is_the_library_mechanism(monkeypatch):
    """Each of the 2d quantiles is private_quantile on the exact counts, at
    the target ranks of the public rule and ε of 1/(2d) of the budget."""
    X = _data(500)
    calls = []
    original = quantile_module.private_quantile

    def spy(counts, target, epsilon, rng):
        index = original(counts, target, epsilon, rng)
        calls.append((np.array(counts), target, epsilon, index))
        return index

    monkeypatch.setattr(quantile_module, "private_quantile", spy)
    scaler = PrivateFeatureScaler(rho=0.6, random_state=0).fit(X)
    d = X.shape[1]
    grid = signed_grid()
    epsilon = quantile_epsilon(PrivacyCost.zcdp(0.6).scaled(1 / (2 * d)))
    assert len(calls) == 2 * d
    ranks = target_ranks((0.02, 0.98), 500, grid.size, epsilon)
    counts = feature_counts(X, grid)
    for j in range(d):
        (c_low, t_low, e_low, i), (c_high, t_high, e_high, k) = calls[2 * j : 2 * j + 2]
        np.testing.assert_array_equal(c_low, counts[j])
        np.testing.assert_array_equal(c_high, counts[j])
        assert (t_low, t_high) == ranks
        assert e_low == e_high == epsilon
        low, high = min(i, k), max(i, k)
        assert (scaler.lower_[j], scaler.upper_[j]) == (grid[low - 1], grid[high])


def test_the_target_ranks_move_inward_by_the_rank_error():
    epsilon, K = 0.5, 515
    margin = quantile_rank_error(K, epsilon, 0.05)
    assert target_ranks((0.02, 0.98), 10**6, K, epsilon) == (
        Fraction(0.02 * 10**6),
        Fraction(0.98 * 10**6),
    )
    low, high = target_ranks((0.02, 0.98), 1000, K, epsilon)
    assert low == Fraction(margin) and high == Fraction(1000 - margin)
    assert target_ranks((0.02, 0.98), 10, K, epsilon) == (5, 5)


def test_the_box_brackets_the_data_with_budget_to_spare():
    X = _data(5000)
    scaler = PrivateFeatureScaler(rho=2.0, random_state=1).fit(X)
    low = np.quantile(X, 0.02, axis=0)
    high = np.quantile(X, 0.98, axis=0)
    step = 2.0 ** (1 / 4)
    # Within a few grid steps of the true quantiles (rank error ≈ 25 rows).
    for j in range(X.shape[1]):
        lo, hi = scaler.lower_[j], scaler.upper_[j]
        assert lo < hi
        assert np.mean(X[:, j] < lo) < 0.05 and np.mean(X[:, j] > hi) < 0.05
        assert abs(hi - lo) < 4 * step**2 * (high[j] - low[j]) + 1e-12


@pytest.mark.parametrize(
    ("budget", "notion"), [({"rho": 0.3}, "zcdp"), ({"epsilon": 1.5}, "pure")]
)
def test_one_charge_and_parts_that_compose_to_the_budget(budget, notion):
    accountant = PrivacyAccountant(**budget)
    scaler = PrivateFeatureScaler(**budget, accountant=accountant, random_state=0)
    scaler.fit(_data(400))
    total = next(iter(budget.values()))
    assert len(accountant.history()) == 1
    assert accountant.spent.notion == notion
    assert scaler.privacy_spent_.parameter == pytest.approx(total)
    assert [part.step for part in scaler.privacy_parts_] == ["feature quantiles"]
    assert compose_parts(scaler.privacy_parts_) == scaler.privacy_spent_
    assert scaler.fit_cost() == scaler.privacy_spent_


def test_the_pure_quantiles_compose_to_epsilon():
    """2d quantiles at ε/(2d) each: pure Σε_j = ε; zCDP Σ ε_j²/8 = ρ."""
    d = 3
    pure = quantile_epsilon(PrivacyCost.pure(1.5).scaled(1 / (2 * d)))
    assert 2 * d * pure == pytest.approx(1.5)
    zcdp = quantile_epsilon(PrivacyCost.zcdp(0.3).scaled(1 / (2 * d)))
    assert 2 * d * zcdp**2 / 8 <= 0.3
    assert 2 * d * zcdp**2 / 8 == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("params", "X", "error"),
    [
        ({"quantiles": (0.9, 0.1)}, np.ones((5, 2)), ValueError),
        ({"quantiles": (0.0, 0.5)}, np.ones((5, 2)), ValueError),
        ({"quantiles": (0.1,)}, np.ones((5, 2)), ValueError),
        ({"bound_range": (0.0, 1.0)}, np.ones((5, 2)), ValueError),
        ({"bound_range": (2.0, 1.0)}, np.ones((5, 2)), ValueError),
        ({"bound_range": (1e-40, 1.0)}, np.ones((5, 2)), ValueError),
        ({"rho": -1.0}, np.ones((5, 2)), ValueError),
        ({"rho": 1.0, "epsilon": 1.0}, np.ones((5, 2)), ValueError),
        ({"random_state": np.random.default_rng(0)}, np.ones((5, 2)), ValueError),
        ({}, sparse.eye(5, format="csr"), TypeError),
        ({}, np.ones(5), ValueError),
        ({}, np.ones((1, 3)), ValueError),
    ],
)
def test_bad_parameters_and_containers_are_refused_before_the_charge(params, X, error):
    accountant = PrivacyAccountant(rho=10.0)
    scaler = PrivateFeatureScaler(accountant=accountant, **params)
    with pytest.raises(error):
        scaler.fit(X)
    assert accountant.history() == []


def test_a_nonfinite_row_is_refused_after_the_charge_or_counted_as_zero():
    X = _data(300)
    X[7, 1] = np.nan
    X[8, 0] = SECRET
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError, match="NaN or infinity") as info:
        PrivateFeatureScaler(rho=0.5, accountant=accountant).fit(X)
    assert len(accountant.history()) == 1  # paid for
    assert "123456" not in str(info.value) and "nan" not in str(info.value)
    scaler = PrivateFeatureScaler(rho=0.5, nonfinite="zero", random_state=0).fit(X)
    assert np.all(scaler.lower_ < scaler.upper_)
    counts = feature_counts(X, signed_grid(), nonfinite="zero")
    Z = X.copy()
    Z[7] = 0.0
    np.testing.assert_array_equal(counts, feature_counts(Z, signed_grid()))


def test_no_value_of_x_in_any_message():
    X = np.full((4, 2), SECRET, dtype=object)
    X[1, 1] = "not a number 123456.789"
    for params in ({"quantiles": (0.5, SECRET)}, {}):
        with pytest.raises(ValueError) as info:
            PrivateFeatureScaler(rho=1.0, **params).fit(X)
        message = str(info.value)
        assert "123456.789" not in message.replace(repr((0.5, SECRET)), "")


def test_a_constant_feature_gets_a_widened_box():
    X = np.column_stack([np.full(200, 3.0), np.linspace(-1, 1, 200)])
    scaler = PrivateFeatureScaler(rho=5.0, random_state=0).fit(X)
    assert np.all(scaler.lower_ < scaler.upper_)
    out = scaler.transform(X)
    assert np.all(np.isfinite(out)) and np.all(np.abs(out) <= 1.0)


def test_transform_maps_the_box_clips_and_keeps_nan_for_the_estimator():
    # nonfinite="zero": a row that is not finite comes out as NaN (the
    # default refuses it: tests/test_edges_users_hit.py).
    scaler = PrivateFeatureScaler(rho=1.0, nonfinite="zero", random_state=0)
    scaler = scaler.fit(_data(1000))
    lo, hi = scaler.lower_, scaler.upper_
    rows = np.vstack([lo, hi, (lo + hi) / 2, hi + 10 * (hi - lo), lo])
    rows[4, 2] = np.nan
    out = scaler.transform(rows)
    np.testing.assert_allclose(out[0], -1.0)
    np.testing.assert_allclose(out[1], 1.0)
    np.testing.assert_allclose(out[2], 0.0, atol=1e-12)
    np.testing.assert_allclose(out[3], 1.0)
    assert np.all(np.isnan(out[4]))  # the whole row, for nonfinite
    back = scaler.inverse_transform(out[:3])
    np.testing.assert_allclose(back, rows[:3], rtol=1e-12)
    assert scaler.transform(rows.astype(np.float32)).dtype == np.float32


def test_fresh_noise_unless_a_seed_is_given():
    X = _data(300)
    fits = [PrivateFeatureScaler(rho=0.05).fit(X) for _ in range(6)]
    assert len({tuple(f.lower_) + tuple(f.upper_) for f in fits}) > 1
    a, b = (PrivateFeatureScaler(rho=0.05, random_state=3).fit(X) for _ in range(2))
    np.testing.assert_array_equal(a.lower_, b.lower_)


def test_feature_names_out_and_pandas_output():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(_data(300), columns=["a", "b", "c"])
    scaler = PrivateFeatureScaler(rho=1.0, random_state=0).set_output(
        transform="pandas"
    )
    out = scaler.fit_transform(X)
    assert list(out.columns) == ["a", "b", "c"]
    assert list(scaler.get_feature_names_out()) == ["a", "b", "c"]


# --- A pipeline's total spend ------------------------------------------------------


@pytest.mark.parametrize(
    "estimator",
    [
        GaussianCovariance(rho=0.5, norm_bound=3**0.5),
        PrivatePCA(n_components=2, estimator=GaussianCovariance(rho=0.5)),
        PrivateRidge(estimator=GaussianCovariance(rho=0.5), X_norm_bound=3**0.5),
    ],
    ids=type,
)
def test_a_pipeline_spends_the_sum_of_its_steps(estimator):
    X = _data(400)
    y = X[:, 0] / 100.0
    accountant = PrivacyAccountant(rho=2.0)
    pipe = Pipeline(
        [
            ("scale", PrivateFeatureScaler(rho=0.25, accountant=accountant)),
            ("clip", RowNormClipper(norm_bound=3**0.5)),
            ("model", estimator),
        ]
    )
    pipe.fit(X, y)
    total = pipeline_spent(pipe)
    assert total.notion == "zcdp"
    assert total.parameter == pytest.approx(0.75)
    # The scaler's charge is on the ledger; the total is what every step charged.
    assert accountant.spent == PrivacyCost.zcdp(0.25)


def test_a_pure_and_a_zcdp_step_compose_by_the_library_rule():
    X = _data(300)
    pipe = make_pipeline(
        PrivateFeatureScaler(epsilon=0.5, random_state=0),
        GaussianCovariance(rho=0.1, norm_bound=3**0.5, random_state=0),
    ).fit(X)
    assert pipeline_spent(pipe) == PrivacyCost.pure(0.5) + PrivacyCost.zcdp(0.1)
    assert pipeline_spent(pipe).parameter == pytest.approx(0.5**2 / 2 + 0.1)


def test_an_unfitted_private_step_is_refused():
    from sklearn.exceptions import NotFittedError

    pipe = make_pipeline(PrivateFeatureScaler(), GaussianCovariance())
    with pytest.raises(NotFittedError):
        pipeline_spent(pipe)
    assert pipeline_spent(make_pipeline(RowNormClipper())) == PrivacyCost.zero()


def test_the_zcdp_quantile_epsilon_is_the_bounded_range_conversion():
    assert quantile_epsilon(PrivacyCost.zcdp(0.125)) == pytest.approx(math.sqrt(1.0))
