"""The label set of a classifier (docs/algorithms.rst §25): public, or released
privately by a thresholded noisy histogram whose δ₀ is in the accounting.

Review of main at 1be91c3 (issue 45, F1): with ``classes=None`` the
classifiers published the labels present in y as ``classes_``, so a single row
with a label of its own told neighbouring datasets apart every time."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import ndtr

from skprivcov import PrivacyAccountant, PrivacyCost
from skprivcov._data._class_statistics import class_grams, class_sums_squares
from skprivcov._models._class_labels import (
    LABEL_DELTA,
    LABEL_SHARE,
    label_budget,
    label_threshold,
    release_label_set,
)
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.mechanisms.noise._generators import release_generator
from skprivcov.mechanisms.noise._record import recorded_noise
from skprivcov.naive_bayes import PrivateGaussianNB
from skprivcov.privacy import UnsupportedPrivacyNotionError

CLASSIFIERS = [PrivateLinearDiscriminantAnalysis, PrivateGaussianNB]


def _neighbours(n=1200, seed=0):
    """Two labels of many rows; the neighbour replaces one row by one of a
    label of its own (the attack of F1)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3)) * 0.2 + 0.3 * y[:, None]
    y_neighbour = y.copy()
    y_neighbour[0] = 7
    return X, y, y_neighbour


@pytest.mark.parametrize("model", CLASSIFIERS)
def test_a_label_of_one_row_is_not_published(model):
    """The attack: fit on each neighbour and look for the lone label in
    ``classes_``. It told them apart 20 times out of 20 before; now a label
    of one row is released with probability at most δ₀ = 1e-9, so in 60 fits
    it never is (and the other labels always are)."""
    X, y, y_neighbour = _neighbours()
    seen = 0
    for seed in range(60):
        clf = model(rho=1.0, random_state=seed).fit(X, y_neighbour)
        seen += 7 in clf.classes_
        np.testing.assert_array_equal(clf.classes_, [0, 1])
    assert seen == 0
    assert model(rho=1.0, random_state=0).fit(X, y).classes_.tolist() == [0, 1]


@pytest.mark.parametrize("hardened", [True, False], ids=["hardened", "float"])
def test_a_label_is_released_with_the_exact_probability_of_its_noisy_count(hardened):
    """The law of the release: a label of c rows is released with probability
    P(c + Z ≥ τ), Z the counts' noise (Gaussian of deviation σ, at the share
    1/10 of ρ, sensitivity √2). A count at τ − σ/2 is released about 31% of
    the time; the binomial test at the 1e-4 level fails if σ were 10% off
    (the probability would move by 2.5 points, over 6 standard errors in
    2 000 draws)."""
    cost = label_budget(PrivacyCost.zcdp(1.0), epsilon=None, delta=None, owner="t")
    sigma = 1.0 / math.sqrt(LABEL_SHARE * 1.0)  # √2/√(2ρ_L)
    threshold = label_threshold(cost, hardened)
    count = math.ceil(threshold - sigma / 2)
    expected = 1.0 - ndtr((threshold - count) / sigma)
    y = np.repeat([0, 1, 2], [5000, 5000, count])
    released = 0
    draws = 2000
    for seed in range(draws):
        rng = release_generator(seed, noise="hardened" if hardened else "float")
        classes, _, _ = release_label_set(y, cost, rng)
        released += 2 in classes
    test = stats.binomtest(released, draws, expected)
    assert test.pvalue > 1e-4, (released / draws, expected)


def test_the_threshold_bounds_a_single_rows_release_by_delta0():
    """τ puts a label of one row beyond Φ̄⁻¹(δ₀) noise deviations: exactly for
    continuous noise; for the discrete noise, whose normaliser is at least
    √(2π)σ_Z (Poisson summation), one grid step further."""
    for rho in (0.01, 0.1, 1.0, 10.0, 1e4):
        cost = label_budget(PrivacyCost.zcdp(rho), epsilon=None, delta=None, owner="t")
        sigma = 1.0 / math.sqrt(LABEL_SHARE * rho)
        float_tau = label_threshold(cost, False)
        assert 1.0 - ndtr((float_tau - 1.0) / sigma) <= LABEL_DELTA
        assert 1.0 - ndtr((float_tau - 1.0) / sigma) >= 0.999 * LABEL_DELTA
        # Hardened: σ_Z ≥ σ, and the threshold one grid step (2^-44) higher.
        assert label_threshold(cost, True) >= float_tau


def test_the_cost_carries_delta0_and_the_parts_compose_to_it():
    X, y, _ = _neighbours()
    clf = PrivateGaussianNB(rho=0.5, random_state=0).fit(X, y)
    spent = clf.privacy_spent_
    assert spent == PrivacyCost.zcdp(0.5, approximate_delta=LABEL_DELTA)
    assert clf.fit_cost() == spent
    first = clf.privacy_parts_[0]
    assert first.step == "label set"
    assert first.cost == PrivacyCost.zcdp(0.05, approximate_delta=LABEL_DELTA)
    assert all(part.cost.approximate_delta == 0 for part in clf.privacy_parts_[1:])
    # (ε, δ): δ/100 pays the labels, ρ meets (ε, δ − δ₀).
    lda = PrivateLinearDiscriminantAnalysis(epsilon=2.0, delta=1e-6, random_state=0)
    cost = lda.fit(X, y).privacy_spent_
    assert cost.approximate_delta == pytest.approx(1e-8)
    assert cost.to_approx_dp(1e-6) <= 2.0
    assert cost.to_approx_dp(1e-6) == pytest.approx(2.0, rel=1e-6)


def test_a_budget_that_cannot_pay_delta0_is_refused_before_anything_is_read():
    X, y, _ = _neighbours()
    for accountant in (PrivacyAccountant(rho=5.0), PrivacyAccountant(epsilon=5.0)):
        with pytest.raises(UnsupportedPrivacyNotionError, match="δ₀"):
            PrivateLinearDiscriminantAnalysis(rho=0.5, accountant=accountant).fit(X, y)
        assert accountant.history() == []
    # A pure budget has no δ: refused with no accountant too.
    with pytest.raises(UnsupportedPrivacyNotionError, match="classes"):
        PrivateGaussianNB(epsilon=1.0).fit(X, y)
    # An (ε, δ) accountant pays it, and counts it.
    accountant = PrivacyAccountant(epsilon=10.0, delta=1e-6)
    PrivateGaussianNB(rho=0.5, accountant=accountant, random_state=0).fit(X, y)
    assert accountant.spent.approximate_delta == pytest.approx(LABEL_DELTA)
    assert accountant.spent_epsilon(1e-6) == pytest.approx(
        PrivacyCost.zcdp(0.5).to_approx_dp(1e-6 - LABEL_DELTA) + LABEL_DELTA,
        rel=1e-12,
    )


def test_a_table_below_the_threshold_is_refused_before_the_charge():
    """With fewer rows than the threshold no label could be released on any
    dataset: a public rule, refused before the charge (§13.2)."""
    X, y, _ = _neighbours(n=50)
    accountant = PrivacyAccountant(epsilon=10.0, delta=1e-6)
    with pytest.raises(ValueError, match="too small to release the label set"):
        PrivateLinearDiscriminantAnalysis(accountant=accountant).fit(X, y)
    assert accountant.history() == []


def test_fewer_than_two_released_labels_is_a_paid_refusal_without_labels():
    X, y, _ = _neighbours(n=400)
    y = np.where(np.arange(400) < 395, 4, 9)  # one large class, one of 5 rows
    accountant = PrivacyAccountant(epsilon=10.0, delta=1e-6)
    with pytest.raises(ValueError, match="fewer than 2") as refused:
        PrivateLinearDiscriminantAnalysis(
            rho=1.0, accountant=accountant, random_state=0
        ).fit(X, y)
    assert "4" not in str(refused.value) and "9" not in str(refused.value)
    assert len(accountant.history()) == 1


@pytest.mark.parametrize("model", CLASSIFIERS)
def test_public_labels_cost_nothing_and_a_categorical_y_is_public(model):
    X, _, y_neighbour = _neighbours()
    given = model(classes=[0, 1, 7], rho=0.5, random_state=0).fit(X, y_neighbour)
    assert given.classes_.tolist() == [0, 1, 7]
    assert given.privacy_spent_ == PrivacyCost.zcdp(0.5)
    assert "label set" not in [part.step for part in given.privacy_parts_]
    categories = pd.Series(y_neighbour).astype(pd.CategoricalDtype([0, 1, 7, 8]))
    schema = model(rho=0.5, random_state=0).fit(X, categories)
    assert schema.classes_.tolist() == [0, 1, 7, 8]
    assert schema.privacy_spent_ == PrivacyCost.zcdp(0.5)
    # A pure budget works with a public label set.
    model(rho=None, epsilon=1.0, random_state=0).fit(X, categories)


def test_rows_of_a_label_not_released_count_in_no_class():
    """The statistics of the released classes are those of their rows alone:
    the other rows go to one more class that is never returned, so the work
    is the same whatever their number."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(700, 4)) * 0.3
    y = rng.integers(0, 4, 700)
    kept = np.array([0, 2])
    counts, sums, squares = class_sums_squares(X, y, kept, 1.0, "raise")
    mask = np.isin(y, kept)
    counts_only, sums_only, squares_only = class_sums_squares(
        X[mask], y[mask], kept, 1.0, "raise"
    )
    np.testing.assert_array_equal(counts, counts_only)
    for total, only in ((sums, sums_only), (squares, squares_only)):
        np.testing.assert_array_equal(total.integers(), only.integers())
    grams = class_grams(X, y, kept, 1.0, "raise")
    grams_only = class_grams(X[mask], y[mask], kept, 1.0, "raise")
    assert len(grams) == 2
    for total, only in zip(grams, grams_only, strict=True):
        np.testing.assert_array_equal(total.integers(), only.integers())


def test_the_label_counts_are_noised_at_their_stated_scale():
    """The label step's draws: sensitivity √2 in counts at its part of ρ,
    both paths (a scale 10% off fails: 4.5 standard errors of 8 193 draws
    are 3.5%)."""
    X, y, _ = _neighbours()
    for noise in ("hardened", "float"):
        with recorded_noise() as records:
            PrivateGaussianNB(rho=0.4, noise=noise, random_state=1).fit(X, y)
        (record,) = [r for r in records if r.site == "label set"]
        assert record.budget.parameter == pytest.approx(LABEL_SHARE * 0.4)
        sigma = math.sqrt(2.0) / math.sqrt(2.0 * record.budget.parameter)
        draws = np.concatenate(
            [record.noise, record.redraw(8192, np.random.default_rng(0))]
        )
        measured = math.sqrt(np.mean(draws**2)) / sigma
        assert measured == pytest.approx(1.0, abs=4.5 / math.sqrt(2 * draws.size))
