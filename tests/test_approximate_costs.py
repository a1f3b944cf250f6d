"""δ₀-approximate costs (docs/algorithms.rst §25): a guarantee that holds except
on a mixture part of public weight at most δ₀ (a private label set). Composition
adds δ₀, conversions subtract it, and only an (ε, δ) budget can pay it."""

import math

import pytest

from skprivcov import PrivacyAccountant, PrivacyCost
from skprivcov.model_selection import selection_cost
from skprivcov.privacy import (
    BudgetPart,
    UnsupportedPrivacyNotionError,
    check_within,
    compose_parts,
)


def test_composition_adds_delta0_and_keeps_the_rest_of_the_guarantee():
    first = PrivacyCost.zcdp(0.1, approximate_delta=1e-9)
    second = PrivacyCost.zcdp(0.2, approximate_delta=2e-9)
    total = first + second + PrivacyCost.pure(1.0)
    assert total.notion == "zcdp"
    assert total.parameter == pytest.approx(0.8)
    assert total.approximate_delta >= 3e-9  # rounded up, never down
    assert total.approximate_delta == pytest.approx(3e-9, rel=1e-15)
    renyi = first + PrivacyCost.renyi(PrivacyCost.zcdp(0.3).rdp())
    assert renyi.notion == "renyi" and renyi.approximate_delta == 1e-9
    assert (PrivacyCost.zcdp(0.1) + PrivacyCost.zcdp(0.1)).approximate_delta == 0.0


def test_a_conversion_spends_delta0_first():
    cost = PrivacyCost.zcdp(0.5, approximate_delta=1e-7)
    # The rest at δ − δ₀, plus log(1/(1 − δ₀)) for conditioning on it.
    rest = PrivacyCost.zcdp(0.5).to_approx_dp(9e-7)
    assert cost.to_approx_dp(1e-6) >= rest - math.log1p(-1e-7)
    assert cost.to_approx_dp(1e-6) == pytest.approx(rest + 1e-7, rel=1e-14)
    assert cost.to_approx_dp(1e-6) > PrivacyCost.zcdp(0.5).to_approx_dp(1e-6)
    assert cost.to_approx_dp(1e-7) == math.inf  # nothing left of δ
    assert cost.to_approx_dp(5e-8) == math.inf
    pure = PrivacyCost.pure(2.0, approximate_delta=1e-7)
    # (ε + log(1/(1 − δ₀)), δ₀)-DP.
    assert pure.to_approx_dp(1e-7) >= 2.0 - math.log1p(-1e-7)
    assert pure.to_approx_dp(1e-7) == pytest.approx(2.0 + 1e-7, rel=1e-15)
    assert pure.to_approx_dp(5e-8) == math.inf
    assert pure.delta == 1e-7 and pure.epsilon == 2.0


def test_an_approximate_cost_has_no_curve_nor_parts():
    cost = PrivacyCost.zcdp(0.5, approximate_delta=1e-9)
    with pytest.raises(ValueError, match="approximate"):
        cost.rdp()
    with pytest.raises(ValueError, match="split"):
        cost.scaled(0.5)
    # A private selection needs candidates with Rényi curves.
    with pytest.raises(ValueError, match="approximate"):
        selection_cost([cost] * 3, eta=1.0, gamma=0.1)
    for bad in (-1e-9, 1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="approximate_delta"):
            PrivacyCost.zcdp(0.1, approximate_delta=bad)


def test_prints_and_compares_with_its_delta0():
    cost = PrivacyCost.zcdp(0.1, approximate_delta=1e-9)
    assert str(cost) == "0.1-zCDP up to δ₀ = 1e-09"
    assert "approximate_delta=1e-09" in repr(cost)
    assert cost != PrivacyCost.zcdp(0.1)
    assert str(PrivacyCost.pure(1.0, approximate_delta=1e-7)) == (
        "(1, 1e-07)-DP (approximate)"
    )
    assert repr(PrivacyCost.zcdp(0.1)) == (
        "PrivacyCost(notion='zcdp', parameter=0.1, reference_delta=None)"
    )


def test_parts_within_a_budget_count_delta0():
    budget = PrivacyCost.zcdp(1.0, approximate_delta=1e-9)
    parts = [
        BudgetPart("label set", PrivacyCost.zcdp(0.1, approximate_delta=1e-9)),
        BudgetPart("release", PrivacyCost.zcdp(0.9)),
    ]
    check_within(compose_parts(parts), budget)
    with pytest.raises(RuntimeError, match="more than the budget"):
        check_within(compose_parts(parts), PrivacyCost.zcdp(1.0))
    doubled = [
        *parts,
        BudgetPart("again", PrivacyCost.zcdp(0.0, approximate_delta=1e-9)),
    ]
    with pytest.raises(RuntimeError, match="more than the budget"):
        check_within(compose_parts(doubled), budget)


def test_only_an_epsilon_delta_budget_pays_delta0(tmp_path):
    cost = PrivacyCost.zcdp(0.01, approximate_delta=1e-9)
    for budget in ({"rho": 1.0}, {"epsilon": 1.0}):
        accountant = PrivacyAccountant(**budget)
        assert not accountant.can_spend(cost)
        with pytest.raises(UnsupportedPrivacyNotionError, match="δ₀"):
            accountant.spend(cost)
        assert accountant.history() == []
    accountant = PrivacyAccountant(epsilon=5.0, delta=3e-9, path=tmp_path / "l.sqlite")
    accountant.spend(cost)
    accountant.spend(cost)
    # The third δ₀ would leave nothing of δ: refused, nothing recorded.
    assert not accountant.can_spend(cost)
    with pytest.raises(Exception, match="would spend"):
        accountant.spend(cost)
    assert len(accountant.history()) == 2
    reopened = PrivacyAccountant(path=tmp_path / "l.sqlite")
    assert reopened.spent.approximate_delta == pytest.approx(2e-9)
    assert reopened.spent_epsilon(3e-9) == pytest.approx(
        PrivacyCost.zcdp(0.02).to_approx_dp(1e-9) + 2e-9, rel=1e-12
    )
    assert reopened.spent_epsilon(2e-9) == math.inf


def test_a_caller_cannot_write_delta0_into_the_ledger():
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="approximate_delta"):
        accountant.spend(PrivacyCost.zcdp(0.01), details={"approximate_delta": 0.0})
    assert accountant.history() == []
