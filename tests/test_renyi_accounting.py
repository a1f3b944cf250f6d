"""Rényi-DP curves in PrivacyCost and in the ledger (docs/algorithms.rst §14)."""

import math
import multiprocessing
import sqlite3
from fractions import Fraction

import _accounting_workers as workers
import numpy as np
import pytest

from skprivcov import PrivacyAccountant, PrivacyCost
from skprivcov.privacy import RENYI_ORDERS, UnsupportedPrivacyNotionError, cks_epsilon
from skprivcov.privacy._renyi import pure_curve, rdp_epsilon, zcdp_curve

ORDERS = np.array(RENYI_ORDERS)


@pytest.fixture
def ledger(tmp_path):
    return tmp_path / "ledger.sqlite"


def test_the_grid_is_exact_and_increasing():
    assert all(Fraction(order) == Fraction(str(order)) for order in RENYI_ORDERS)
    assert np.all(np.diff(ORDERS) > 0) and ORDERS[0] > 1


def test_zcdp_and_pure_costs_are_unchanged_special_cases():
    assert repr(PrivacyCost.zcdp(0.5)) == (
        "PrivacyCost(notion='zcdp', parameter=0.5, reference_delta=None)"
    )
    assert PrivacyCost.zcdp(0.1) + PrivacyCost.zcdp(0.2) == PrivacyCost.zcdp(0.1 + 0.2)
    # Their curves: ρλ, and the sharp curve of pure ε (never above ε, and
    # its sup of ε(λ)/λ is ε·tanh(ε/2), §7.3).
    rho_curve = PrivacyCost.zcdp(0.3).rdp()
    assert np.all(rho_curve >= 0.3 * ORDERS)
    np.testing.assert_allclose(rho_curve, 0.3 * ORDERS, rtol=1e-11)
    for epsilon in (0.1, 1.0, 3.0):
        curve = PrivacyCost.pure(epsilon).rdp()
        assert np.all(curve <= epsilon) and np.all(np.diff(curve) >= 0)
        fine = np.linspace(1.0001, 60, 200001)
        assert np.max(pure_curve(epsilon, fine) / fine) == pytest.approx(
            epsilon * math.tanh(epsilon / 2), rel=1e-4
        )


def test_the_sharp_pure_curve_is_randomised_response():
    # The Rényi divergence of randomised response at ε, computed directly.
    epsilon = 0.8
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    for order in (1.5, 2.0, 8.0, 64.0):
        exact = math.log(
            p**order * (1 - p) ** (1 - order) + (1 - p) ** order * p ** (1 - order)
        ) / (order - 1)
        assert pure_curve(epsilon, [order])[0] == pytest.approx(exact, rel=1e-8)
        assert pure_curve(epsilon, [order])[0] >= exact


def test_curves_compose_by_adding_and_never_round_down():
    a = PrivacyCost.renyi(np.linspace(0.1, 3.0, ORDERS.size))
    b = PrivacyCost.zcdp(0.01)
    total = a + b + PrivacyCost.pure(0.5)
    assert total.notion == "renyi"
    exact = [
        Fraction(x) + Fraction(y) + Fraction(z)
        for x, y, z in zip(a.curve, b.rdp(), PrivacyCost.pure(0.5).rdp(), strict=True)
    ]
    assert all(Fraction(v) >= e for v, e in zip(total.curve, exact, strict=True))
    np.testing.assert_allclose(total.curve, [float(e) for e in exact], rtol=1e-14)
    assert sum([a, b]) == a + b
    assert total.rho is None and total.epsilon is None


def test_a_curve_converts_like_its_zcdp_special_case():
    # On the grid, the conversion of ρλ is CKS20's (§7.1) minimised over the
    # grid's orders: never below it, and within 0.5% of it.
    for rho in (0.001, 0.05, 1.0, 10.0):
        for delta in (1e-5, 1e-9):
            exact = cks_epsilon(rho, delta)
            on_grid = PrivacyCost.renyi(zcdp_curve(rho)).to_approx_dp(delta)
            assert exact <= on_grid <= exact * 1.005


def test_rdp_conversion_matches_the_formula_at_its_best_order():
    curve = np.sqrt(ORDERS)  # any non-decreasing curve
    delta = 1e-6
    candidates = curve + (
        ORDERS * np.log1p(-1 / ORDERS) - np.log(ORDERS - 1) - math.log(delta)
    ) / (ORDERS - 1)
    assert rdp_epsilon(curve, delta) == pytest.approx(candidates.min(), rel=1e-11)


def test_a_curve_is_checked_for_its_shape_and_values():
    with pytest.raises(ValueError, match="finite values"):
        PrivacyCost.renyi([1.0, 2.0])
    with pytest.raises(ValueError, match="finite values"):
        PrivacyCost.renyi([-1.0] * ORDERS.size)
    with pytest.raises(ValueError, match="cannot be split"):
        PrivacyCost.renyi([1.0] * ORDERS.size).scaled(0.5)


def test_a_rho_budget_refuses_a_curve():
    # A curve known at the grid's orders is not a zCDP guarantee (§14).
    accountant = PrivacyAccountant(rho=1e6)
    curve = PrivacyCost.renyi(0.001 * ORDERS)
    assert not accountant.can_spend(curve)
    with pytest.raises(UnsupportedPrivacyNotionError, match=r"\(epsilon, delta\)"):
        accountant.spend(curve)
    assert accountant.history() == []


def test_small_pure_curves_are_never_below_the_exact_one():
    # Exact randomised response divergence in high precision, against the
    # float curve, down to ε where the sharp formula would cancel.
    import mpmath  # a dependency of dp-accounting, a test extra

    mpmath.mp.dps = 60
    for epsilon in (1e-12, 1e-6, 1e-3, 0.049, 0.05, 0.3, 2.0):
        p = mpmath.e**epsilon / (1 + mpmath.e**epsilon)
        for order in (1.25, 2.0, 64.0, 1024.0):
            exact = mpmath.log(
                p**order * (1 - p) ** (1 - order) + (1 - p) ** order * p ** (1 - order)
            ) / (order - 1)
            assert pure_curve(epsilon, [order])[0] >= exact


def test_a_pure_budget_refuses_a_curve():
    accountant = PrivacyAccountant(epsilon=100.0)
    with pytest.raises(UnsupportedPrivacyNotionError):
        accountant.spend(PrivacyCost.renyi([0.01] * ORDERS.size))
    assert not accountant.can_spend(PrivacyCost.renyi([0.01] * ORDERS.size))
    assert accountant.history() == []


def test_an_approx_budget_converts_the_curve_of_every_spend():
    accountant = PrivacyAccountant(epsilon=3.0, delta=1e-6)
    selection = PrivacyCost.renyi(0.01 * ORDERS + 0.3)
    accountant.spend(selection)
    accountant.spend(PrivacyCost.zcdp(0.02))
    accountant.spend(PrivacyCost.pure(0.1))
    whole = rdp_epsilon(0.01 * ORDERS + 0.3 + (0.02 + 0.005) * ORDERS, 1e-6)
    split = 0.1 + rdp_epsilon(0.01 * ORDERS + 0.3 + 0.02 * ORDERS, 1e-6)
    assert accountant.spent_epsilon(1e-6) == pytest.approx(min(whole, split), rel=1e-9)
    assert accountant.spent.notion == "renyi"
    # The largest zCDP spend still admitted leaves (ε, δ) at the budget.
    left = accountant.remaining_rho()
    assert accountant.can_spend(PrivacyCost.zcdp(left))
    assert not accountant.can_spend(PrivacyCost.zcdp(left * (1 + 1e-6)))


def test_the_ledger_stores_the_curve_exactly(ledger):
    accountant = PrivacyAccountant(epsilon=1e3, delta=1e-6, path=ledger)
    curve = np.linspace(0.1, 7.0, ORDERS.size) / 3
    accountant.spend(PrivacyCost.renyi(curve), source="search", details={"a": 1})
    accountant.spend(PrivacyCost.zcdp(0.25))
    record = PrivacyAccountant(path=ledger).history()[0]
    assert record.notion == "renyi" and record.parameter is None
    assert record.curve == tuple(curve)
    spent = PrivacyAccountant(path=ledger).spent
    assert spent.notion == "renyi"
    exact = [
        Fraction(repr(float(c))) + Fraction(1, 4) * Fraction(o)
        for c, o in zip(curve, RENYI_ORDERS, strict=True)
    ]
    assert all(Fraction(repr(v)) >= e for v, e in zip(spent.curve, exact, strict=True))


def test_an_old_ledger_is_upgraded_to_hold_curves(ledger):
    workers.write_old_ledger(
        ledger,
        "CREATE TABLE spends (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT "
        "NOT NULL, notion TEXT NOT NULL CHECK (notion IN ('pure', 'zcdp')), "
        "parameter REAL NOT NULL CHECK (parameter >= 0), source TEXT NOT NULL, "
        "details TEXT NOT NULL, process INTEGER NOT NULL, caveats TEXT NOT NULL "
        "DEFAULT '[]')",
        '{"kind": "approx", "rho": null, "epsilon": 100.0, "delta": 1e-06}',
    )
    accountant = PrivacyAccountant(path=ledger)
    accountant.spend(PrivacyCost.renyi([1.0] * ORDERS.size), source="new")
    history = accountant.history()
    assert [(r.id, r.source, r.notion) for r in history] == [
        (1, "old", "zcdp"),
        (2, "new", "renyi"),
    ]
    assert history[0].parameter == 0.5
    # An earlier version reads every record that is not pure as zCDP with
    # its stored parameter: the sentinel makes it count the budget spent.
    rows = sqlite3.connect(ledger).execute("SELECT notion, parameter FROM spends")
    assert sum(p for notion, p in rows if notion != "pure") >= 1e300


@pytest.mark.slow
def test_eight_processes_spending_curves_never_overspend(ledger):
    # Each spend is the curve λ/64; the (ε, δ) budget is the conversion of
    # ten of them, exactly: whoever spends, ten fit and the eleventh does not.
    curve = ORDERS / 64
    budget = rdp_epsilon(10 * curve, 1e-6)
    PrivacyAccountant(epsilon=budget, delta=1e-6, path=ledger)
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(8), context.Queue()
    processes = [
        context.Process(
            target=workers.spend_cost_repeatedly,
            args=(str(ledger), PrivacyCost.renyi(curve), 5, barrier, results),
        )
        for _ in range(8)
    ]
    for process in processes:
        process.start()
    successes = sum(results.get(timeout=120) for _ in processes)
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    accountant = PrivacyAccountant(path=ledger)
    assert successes == 10 == len(accountant.history())
    assert all(record.notion == "renyi" for record in accountant.history())
    assert not accountant.can_spend(PrivacyCost.renyi(curve))
