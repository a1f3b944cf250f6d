"""PrivacyCost arithmetic, conversions (docs/algorithms.rst §7) and the budget rule."""

import math

import pytest

from skprivcov import PrivacyCost, UnsupportedPrivacyNotionError
from skprivcov.privacy import (
    bun_steinke_epsilon,
    cks_delta,
    cks_epsilon,
    gaussian_epsilon,
    pure_to_zcdp,
    resolve_budget,
    zcdp_from_approx_dp,
)

# docs/algorithms.rst §7.1: ρ, δ, ε simple, ε CKS, ε Gaussian-exact (3 decimals).
CONVERSION_TABLE = [
    (0.01, 1e-5, 0.689, 0.546, 0.497),
    (0.1, 1e-5, 2.246, 1.914, 1.760),
    (0.1, 1e-9, 2.979, 2.716, 2.583),
    (0.5, 1e-5, 5.299, 4.728, 4.377),
    (1.0, 1e-5, 7.786, 7.077, 6.573),
    (2.0, 1e-9, 14.876, 14.150, 13.535),
]


@pytest.mark.parametrize(("rho", "delta", "simple", "cks", "exact"), CONVERSION_TABLE)
def test_conversions_match_the_table(rho, delta, simple, cks, exact):
    assert bun_steinke_epsilon(rho, delta) == pytest.approx(simple, abs=1e-3)
    assert cks_epsilon(rho, delta) == pytest.approx(cks, abs=1.5e-3)
    assert gaussian_epsilon(rho, delta) == pytest.approx(exact, abs=1e-3)
    assert gaussian_epsilon(rho, delta) <= cks_epsilon(rho, delta)
    assert cks_epsilon(rho, delta) <= bun_steinke_epsilon(rho, delta)


@pytest.mark.parametrize(("rho", "delta"), [(r, d) for r, d, *_ in CONVERSION_TABLE])
def test_cks_epsilon_never_under_reports(rho, delta):
    epsilon = cks_epsilon(rho, delta)
    assert cks_delta(rho, epsilon) <= delta
    assert cks_delta(rho, epsilon * (1 - 1e-6)) > delta


def test_cks_delta_is_the_infimum_over_alpha():
    # Brute force over a fine grid of α: the root-found optimum is no worse.
    rho, epsilon = 0.3, 2.0
    grid = [1 + 10 ** (k / 200) for k in range(-1200, 600)]
    brute = min(
        (a - 1) * (a * rho - epsilon) + a * math.log(1 - 1 / a) - math.log(a - 1)
        for a in grid
    )
    assert math.log(cks_delta(rho, epsilon)) <= brute + 1e-9
    assert math.log(cks_delta(rho, epsilon)) == pytest.approx(brute, abs=1e-4)


@pytest.mark.parametrize(
    ("epsilon", "delta"), [(0.1, 1e-5), (1.0, 1e-6), (3.0, 1e-9), (10.0, 1e-3)]
)
def test_rho_from_approx_dp_is_the_largest_feasible(epsilon, delta):
    rho = zcdp_from_approx_dp(epsilon, delta)
    assert cks_delta(rho, epsilon) <= delta
    assert cks_delta(rho * (1 + 1e-6), epsilon) > delta
    # Round trip through ε(δ).
    assert cks_epsilon(rho, delta) == pytest.approx(epsilon, rel=1e-6)


def test_pure_to_zcdp():
    assert pure_to_zcdp(1.0) == 0.5
    assert PrivacyCost.pure(2.0).rho == 2.0


def test_composition_rules():
    assert PrivacyCost.pure(0.25) + PrivacyCost.pure(0.5) == PrivacyCost.pure(0.75)
    assert PrivacyCost.zcdp(0.1) + PrivacyCost.zcdp(0.2) == PrivacyCost.zcdp(0.1 + 0.2)
    mixed = PrivacyCost.pure(1.0) + PrivacyCost.zcdp(0.25)
    assert mixed == PrivacyCost.zcdp(0.75)  # ε²/2 + ρ
    assert sum([PrivacyCost.zcdp(0.125)] * 8) == PrivacyCost.zcdp(1.0)
    assert PrivacyCost.zero() + PrivacyCost.zcdp(0.3) == PrivacyCost.zcdp(0.3)


def test_budget_parts_add_back_up():
    budget = PrivacyCost.zcdp(0.37, reference_delta=1e-6)
    parts = budget.scaled(0.125) + budget.scaled(0.125) + budget.scaled(0.25)
    total = parts + budget.scaled(0.5)
    assert total.rho == pytest.approx(0.37, rel=1e-15)
    assert total.reference_delta == 1e-6


def test_reporting():
    cost = PrivacyCost.zcdp(0.1, reference_delta=1e-5)
    assert cost.epsilon == pytest.approx(1.914, abs=1e-3)
    assert cost.delta == 1e-5
    assert "0.1-zCDP" in str(cost) and "1e-05" in str(cost)
    assert PrivacyCost.zcdp(0.1).epsilon is None
    pure = PrivacyCost.pure(1.0)
    assert (pure.epsilon, pure.delta) == (1.0, 0.0)
    assert pure.to_approx_dp(1e-5) == 1.0


def test_costs_are_immutable_and_validated():
    cost = PrivacyCost.zcdp(0.1)
    with pytest.raises(AttributeError):
        cost.parameter = 1.0
    for bad in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="finite and >= 0"):
            PrivacyCost.zcdp(bad)
    with pytest.raises(ValueError, match="notion"):
        PrivacyCost("approx", 1.0)
    with pytest.raises(ValueError, match="no parameter"):
        PrivacyCost("renyi", 1.0)
    with pytest.raises(ValueError, match="Only a 'renyi' cost"):
        PrivacyCost("zcdp", 1.0, curve=(1.0,))
    with pytest.raises(ValueError, match="reference_delta"):
        PrivacyCost.zcdp(0.1, reference_delta=1.5)
    with pytest.raises(ValueError, match="delta"):
        cost.to_approx_dp(0.0)


RULE = {"notions": ("zcdp",), "default": PrivacyCost.zcdp(0.1), "owner": "Est"}


def test_budget_rule():
    assert resolve_budget(rho=None, epsilon=None, delta=None, **RULE) == RULE["default"]
    assert resolve_budget(rho=0.2, epsilon=None, delta=None, **RULE) == (
        PrivacyCost.zcdp(0.2)
    )
    calibrated = resolve_budget(rho=None, epsilon=1.0, delta=1e-6, **RULE)
    assert calibrated.rho == zcdp_from_approx_dp(1.0, 1e-6)
    assert calibrated.epsilon == pytest.approx(1.0, rel=1e-6)
    both = {**RULE, "notions": ("zcdp", "pure")}
    for delta in (None, 0.0):
        assert resolve_budget(rho=None, epsilon=0.5, delta=delta, **both) == (
            PrivacyCost.pure(0.5)
        )
    pure_only = {**RULE, "notions": ("pure",)}
    assert resolve_budget(rho=None, epsilon=0.5, delta=1e-6, **pure_only) == (
        PrivacyCost.pure(0.5)
    )


def test_budget_rule_errors():
    with pytest.raises(ValueError, match="not both"):
        resolve_budget(rho=0.1, epsilon=1.0, delta=None, **RULE)
    with pytest.raises(ValueError, match="without epsilon"):
        resolve_budget(rho=0.1, epsilon=None, delta=1e-5, **RULE)
    with pytest.raises(UnsupportedPrivacyNotionError, match="no pure"):
        resolve_budget(rho=None, epsilon=1.0, delta=0.0, **RULE)
    with pytest.raises(UnsupportedPrivacyNotionError, match="pure ε-DP mechanism"):
        resolve_budget(
            rho=0.1, epsilon=None, delta=None, **{**RULE, "notions": ("pure",)}
        )
