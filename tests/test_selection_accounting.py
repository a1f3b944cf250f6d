"""How the profile bound of a private selection reaches the costs, the ledger
and PrivateRandomSearch (docs/algorithms.rst §22)."""

import math

import numpy as np
import pytest

from skprivcov import GaussianCovariance, PrivacyAccountant, PrivacyCost
from skprivcov.model_selection import (
    PrivateRandomSearch,
    selection_cost,
    stopping_law,
)
from skprivcov.privacy import (
    RENYI_ORDERS,
    BudgetExceededError,
    SelectionProfile,
    cks_epsilon,
    envelope_epsilon,
    rdp_epsilon,
)

ORDERS = np.asarray(RENYI_ORDERS)
DELTA = 1e-6


@pytest.fixture(scope="module")
def ten_candidates():
    """Ten ρ = 0.01 candidates, geometric stopping at γ = 1/30."""
    return selection_cost([PrivacyCost.zcdp(0.01)] * 10, eta=1.0, gamma=1 / 30)


def test_the_stated_epsilon_is_the_smaller_of_the_two_routes(ten_candidates):
    cost = ten_candidates
    renyi = min(rdp_epsilon(cost.curve, DELTA), envelope_epsilon(cost.envelope, DELTA))
    profile = cost.selection.to_approx_dp(DELTA, renyi)
    assert cost.to_approx_dp(DELTA) == min(renyi, profile)
    # The acceptance of issue 37 at ρ = 0.01: at most 0.8 of the stored-grid
    # Rényi route (1.4392 before the change).
    grid = float(np.min(cost.curve + _conversion(ORDERS, DELTA)))
    assert profile < renyi < grid
    assert cost.to_approx_dp(DELTA) <= 0.8 * grid


def test_the_envelope_is_the_closed_form_selection_curve(ten_candidates):
    rho, gamma = 0.01, 1 / 30
    inner = 2 * math.sqrt(rho * math.log(1 / gamma)) - rho
    a, b, c = ten_candidates.envelope
    assert a == pytest.approx(rho, rel=1e-11)
    assert b == pytest.approx(2 * inner, rel=1e-11)
    assert c == pytest.approx(math.log(30.0), rel=1e-11)
    # The stored curve is the same bound at the stored orders, made
    # non-decreasing (a larger order's value bounds a smaller one's).
    form = a * ORDERS + b + c / (ORDERS - 1)
    monotone = np.minimum.accumulate(form[::-1])[::-1]
    np.testing.assert_allclose(ten_candidates.curve, monotone, rtol=1e-11)


def test_composition_keeps_curves_and_envelopes_and_drops_the_profile(ten_candidates):
    total = ten_candidates + PrivacyCost.zcdp(0.05)
    assert total.selection is None
    a, b, c = ten_candidates.envelope
    assert total.envelope == pytest.approx((a + 0.05, b, c), rel=1e-12)
    assert total.envelope[0] >= a + 0.05
    # Two selections compose by their curves, never below the sum's truth.
    twice = ten_candidates + ten_candidates
    assert twice.selection is None
    assert twice.to_approx_dp(DELTA) > ten_candidates.to_approx_dp(DELTA)
    assert (ten_candidates + PrivacyCost.pure(0.1)).envelope is None


def test_an_envelope_is_validated():
    with pytest.raises(ValueError, match="three finite numbers"):
        PrivacyCost.renyi(0.1 * ORDERS, envelope=(0.1, -1.0, 0.0))
    with pytest.raises(ValueError, match="Only a 'renyi' cost has an envelope"):
        PrivacyCost("zcdp", 0.1, envelope=(0.1, 0.0, 0.0))


def test_zcdp_converts_beyond_the_stored_orders():
    # At ρ = 1e-6 the best order (about 7 000) lies past the grid's 1024.
    rho = 1e-6
    on_grid = rdp_epsilon(rho * ORDERS, DELTA)
    beyond = envelope_epsilon((rho, 0.0, 0.0), DELTA)
    assert beyond == pytest.approx(cks_epsilon(rho, DELTA), rel=1e-9)
    assert on_grid > 1.3 * beyond


def test_one_record_in_the_ledger_keeps_the_profile_and_a_second_drops_it(
    tmp_path, ten_candidates
):
    path = tmp_path / "ledger.sqlite"
    accountant = PrivacyAccountant(epsilon=1.3, delta=DELTA, path=path)
    stated = ten_candidates.to_approx_dp(DELTA)
    # Admitted at 1.3 by the profile bound; the curve alone states 1.438.
    assert rdp_epsilon(ten_candidates.curve, DELTA) > 1.3 > stated
    accountant.spend(ten_candidates, source="search")
    assert accountant.spent_epsilon(DELTA) == pytest.approx(stated, rel=1e-6)
    # Another process reads the same ledger: the profile comes back with it.
    reader = PrivacyAccountant(epsilon=1.3, delta=DELTA, path=path)
    assert reader.spent.selection == ten_candidates.selection
    assert reader.spent_epsilon(DELTA) == pytest.approx(stated, rel=1e-6)
    # Anything more composes by curves: the profile no longer applies.
    roomy = PrivacyAccountant(epsilon=5.0, delta=DELTA, path=tmp_path / "b")
    roomy.spend(ten_candidates)
    roomy.spend(PrivacyCost.zcdp(1e-6))
    assert roomy.spent.selection is None
    composed = (ten_candidates + PrivacyCost.zcdp(1e-6)).to_approx_dp(DELTA)
    assert roomy.spent_epsilon(DELTA) == pytest.approx(composed, rel=1e-9)
    assert roomy.spent_epsilon(DELTA) > 1.4 > stated


def test_a_caller_cannot_write_a_profile_into_the_ledger(ten_candidates):
    accountant = PrivacyAccountant(epsilon=100.0, delta=DELTA)
    law = ["negative_binomial", 1.0, 0.5]
    profile = {"rho": 1e-9, "epsilon": None, "curve": None, "law": law}
    forged = {"selection_profile": profile}
    with pytest.raises(ValueError, match="selection_profile"):
        accountant.spend(PrivacyCost.zcdp(5.0), source="x", details=forged)
    assert accountant.history() == []


def test_the_budget_refuses_what_the_profile_cannot_pay(ten_candidates):
    accountant = PrivacyAccountant(epsilon=1.0, delta=DELTA)
    with pytest.raises(BudgetExceededError):
        accountant.spend(ten_candidates)
    assert accountant.history() == []


def test_the_binomial_law_has_the_same_mean_and_its_own_accounting():
    law = stopping_law(1.0, 1 / 30, "binomial")
    assert (law.kind, law.first, law.second) == ("binomial", 60.0, 0.5)
    assert law.expected() == pytest.approx(30.0, rel=1e-12)
    cost = selection_cost(
        [PrivacyCost.zcdp(0.01)] * 10, eta=1.0, gamma=1 / 30, stopping="binomial"
    )
    assert cost.selection.law == law
    # Its Rényi curve: m runs composed, or the pointwise bound of §22.
    composed = 60 * 0.01 * ORDERS
    pointwise = (
        0.01 * ORDERS + 59 * math.log(2) + math.log(law.expected()) / (ORDERS - 1)
    )
    np.testing.assert_allclose(cost.curve, np.minimum(composed, pointwise), rtol=1e-11)
    assert np.all(np.asarray(cost.curve) >= np.minimum(composed, pointwise))
    with pytest.raises(ValueError, match="stopping must be"):
        stopping_law(1.0, 0.1, "poisson")


def test_a_binomial_search_fits_and_states_its_cost():
    rng = np.random.default_rng(0)
    X = rng.normal(scale=0.1, size=(500, 3))
    accountant = PrivacyAccountant(epsilon=50.0, delta=DELTA)
    search = PrivateRandomSearch(
        GaussianCovariance(rho=0.1),
        {"norm_bound": [0.5, 1.0]},
        gamma=0.2,
        stopping="binomial",
        accountant=accountant,
        random_state=0,
    ).fit(X)
    assert search.expected_runs_ == pytest.approx(
        stopping_law(1.0, 0.2, "binomial").expected()
    )
    (record,) = accountant.history()
    assert record.details["stopping"] == "binomial"
    assert search.privacy_spent_ == search.cost()
    assert search.privacy_spent_.selection.law.kind == "binomial"


def _conversion(lam, delta):
    return (lam * np.log1p(-1 / lam) - np.log(lam - 1) - math.log(delta)) / (lam - 1)


def test_the_ledger_converts_closed_forms_beyond_the_stored_orders(tmp_path):
    # At ρ = 1e-7 the best order lies far past 1024: the ledger keeps each
    # Rényi record's envelope (written from the cost) and converts their sum
    # with the zCDP spends over every real order (§22).
    selection = selection_cost([PrivacyCost.zcdp(1e-7)] * 3, eta=1.0, gamma=0.1)
    extra = PrivacyCost.zcdp(1e-7)
    path = tmp_path / "ledger.sqlite"
    accountant = PrivacyAccountant(epsilon=10.0, delta=DELTA, path=path)
    accountant.spend(selection)
    accountant.spend(extra)
    (record, _) = accountant.history()
    assert record.details["renyi_envelope"] == list(selection.envelope)
    composed = selection + extra
    on_grid = rdp_epsilon(composed.curve, DELTA)
    closed = envelope_epsilon(composed.envelope, DELTA)
    assert closed < 0.7 * on_grid
    reader = PrivacyAccountant(epsilon=10.0, delta=DELTA, path=path)
    assert reader.spent_epsilon(DELTA) == pytest.approx(closed, rel=1e-9)
    assert reader.spent_epsilon(DELTA) >= closed * (1 - 1e-12)
    # A caller may not write the key either.
    with pytest.raises(ValueError, match="renyi_envelope"):
        accountant.spend(extra, details={"renyi_envelope": [0, 0, 0]})


def test_a_profile_must_describe_the_cost_it_rides_on(ten_candidates):
    # A profile of nearly free candidates on the curve of ten ρ = 1 ones
    # would state ε ≈ 0.02 for a cost of 12.6 (review of issue 37).
    expensive = selection_cost([PrivacyCost.zcdp(1.0)] * 10, eta=1.0, gamma=1 / 30)
    cheap = SelectionProfile(1e-9, None, None, expensive.selection.law)
    with pytest.raises(ValueError, match="does not describe it"):
        PrivacyCost("renyi", None, curve=expensive.curve, selection=cheap)
    with pytest.raises(ValueError, match="does not describe it"):
        PrivacyCost("pure", 3.0, selection=ten_candidates.selection)
    with pytest.raises(ValueError, match="rho must be a finite number"):
        SelectionProfile(-1.0, None, None, expensive.selection.law)
    with pytest.raises(ValueError, match="at least one kind"):
        SelectionProfile(None, None, None, expensive.selection.law)


def test_a_key_that_only_compares_equal_cannot_forge_the_ledger(ten_candidates):
    class Sneaky(str):
        def __eq__(self, other):
            return False

        def __hash__(self):
            return 0

    accountant = PrivacyAccountant(epsilon=100.0, delta=DELTA)
    forged = {Sneaky("selection_profile"): {"rho": 1e-9}}
    with pytest.raises(ValueError, match="selection_profile"):
        accountant.spend(PrivacyCost.zcdp(5.0), details=forged)
    assert accountant.history() == []


def test_the_pure_within_term_is_the_largest_over_the_top_events():
    # u − e^c·max(e^−ε u, 1 − e^ε (1 − u)) over u ≤ s, by brute force; below
    # c = −ε it still rises past the kink (review of issue 37).
    from skprivcov.privacy._profiles import _within

    epsilon = 0.1
    orders = np.array([2.0])
    curve = np.array([np.inf])  # no Rényi constraint: the pure one alone
    s = np.array([0.3, 0.6, 0.9, 0.99])
    for c in (-1.0, -0.2, 0.0, 0.05):
        kink = math.exp(epsilon) / (1 + math.exp(epsilon))
        u = np.union1d(np.linspace(0.0, 1.0, 200_001), np.r_[s, kink])
        lower = np.maximum(u * math.exp(-epsilon), 1 - math.exp(epsilon) * (1 - u))
        values = u - math.exp(c) * lower
        brute = [values[u <= top].max() for top in s]
        ours = _within(s, np.full(s.size, c), orders, curve, epsilon)
        assert np.all(ours >= np.asarray(brute) - 1e-12)
        np.testing.assert_allclose(ours, brute, rtol=1e-6, atol=1e-9)


def test_a_large_binomial_law_converts_without_overflow():
    cost = selection_cost(
        [PrivacyCost.zcdp(1e-10)] * 2, eta=1.0, gamma=1e-6, stopping="binomial"
    )
    # Underflows are harmless (a term of 0); an overflow or a NaN is not.
    with np.errstate(over="raise", invalid="raise"):
        epsilon = cost.to_approx_dp(DELTA)
    assert 0.0 < epsilon < math.inf


def test_the_ledger_ignores_a_profile_that_is_not_its_records():
    # Totals are rebuilt from the ledger's rows: a profile whose Rényi route
    # is not the record's own is ignored there too (the curves count).
    from skprivcov.privacy._ledger import Totals

    expensive = selection_cost([PrivacyCost.zcdp(1.0)] * 10, eta=1.0, gamma=1 / 30)
    cheap = SelectionProfile(1e-9, None, None, expensive.selection.law)
    empty = Totals.of([])
    forged = empty.plus("renyi", None, (), expensive.curve, cheap)
    honest = empty.plus("renyi", None, (), expensive.curve, expensive.selection)
    assert forged.selection is None
    assert honest.selection == expensive.selection
