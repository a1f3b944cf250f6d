"""The conversions at both ends of every documented range (docs/algorithms.rst §7.4).

Budgets ρ, ε in [1e−30, 1e30] (skprivcov/_fit/_constraints.py BUDGET_RANGE) and
their composed totals (a pure 1e−30 counts as ρ = 5e−61, a pure 1e30 as
5e59), ρ = 0, and δ anywhere in (0, 1), from the smallest float 5e−324 to
1 − 2^−53. Every call runs under a deadline, so a hang fails instead of
blocking (issue 45, F4: zcdp_from_approx_dp never returned below ε ≈ 1.5e−15
at δ = 1e−6). Every value is checked against code of this file only:

* the CKS20 bound written as in §7.1, δ(ε) = inf over α > 1 of
  exp((α−1)(αρ−ε))·(1−1/α)^α/(α−1), in mpmath at 80 digits, minimised at the
  root of its increasing derivative (2α−1)ρ − ε + log(1 − 1/α);
* the Gaussian mechanism's exact δ(ε) (Balle & Wang), a lower bound on every
  ρ-zCDP conversion, and the simple bound ρ + 2√(ρ log(1/δ)) (BS16), an
  upper bound on CKS20's;
* round trips and monotonicity.

A returned ε must have δ(ε) ≤ δ (never optimistic) and be within a relative
1e−12 of the least such ε (the ε 1e−12 below must fail); a returned ρ must
meet (ε, δ) and be within 1e−9 of the largest.
"""

import math
import threading
from fractions import Fraction

import mpmath
import pytest

from skprivcov import PrivacyCost
from skprivcov.privacy import (
    PrivacyAccountant,
    bun_steinke_epsilon,
    cks_delta,
    cks_epsilon,
    gaussian_epsilon,
    pure_to_zcdp,
    zcdp_from_approx_dp,
)
from skprivcov.privacy._renyi import (
    RENYI_ORDERS,
    envelope_epsilon,
    rdp_epsilon,
    zcdp_curve,
)

MP = mpmath.mp.clone()
MP.dps = 80
mpf = MP.mpf

TINY_DELTAS = (5e-324, 1e-300)
HUGE_DELTAS = (1.0 - 1e-9, 1.0 - 2.0**-53)
DELTAS = (*TINY_DELTAS, 1e-6, 0.5, *HUGE_DELTAS)
# ρ: zero, a pure 1e−30 spend, the smallest budget, ordinary, the largest
# budget, a pure 1e30 spend, a composed total of many.
RHOS = (0.0, 5e-61, 1e-30, 1e-6, 1.0, 1e30, 5e59, 1e61)
EPSILONS = (1e-30, 1e-20, 1e-15, 1.0, 1e30, 1e33)
DEADLINE = 30.0  # seconds; every call takes milliseconds
# The fast loop takes both ends and one ordinary value of each range; the
# other combinations run with the slow tests.
FAST_DELTAS = (5e-324, 1e-6, 1.0 - 2.0**-53)
FAST_RHOS = (0.0, 5e-61, 1.0, 1e61)
FAST_EPSILONS = (1e-30, 1.0, 1e33)


def _grid(first, second, fast_first, fast_second):
    """(a, b) for every a of ``first`` and b of ``second``, the pairs outside
    the fast values marked slow."""
    return [
        pytest.param(
            a,
            b,
            marks=() if a in fast_first and b in fast_second else pytest.mark.slow,
        )
        for a in first
        for b in second
    ]


def within_deadline(function, *args):
    """``function(*args)``, or a failure if it has not returned within the
    deadline (a daemon thread: a hang does not block the run)."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function(*args)
        except BaseException as error:  # reported in the test's thread
            outcome["error"] = error

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    if worker.is_alive():
        pytest.fail(f"{function.__name__}{args} did not return in {DEADLINE} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# --------------------------------------------------------------------------
# Independent oracles (mpmath, 80 digits).


def _root(increasing, low, high, steps=240):
    """Bisection of an increasing function on [low, high]."""
    if increasing(low) >= 0:
        return low
    if increasing(high) <= 0:
        return high
    for _ in range(steps):
        middle = (low + high) / 2
        if increasing(middle) > 0:
            high = middle
        else:
            low = middle
    return (low + high) / 2


def cks_log_delta(rho, epsilon):
    """log δ(ε) of §7.1, with α = 1 + e^t (t from −3000 to 3000)."""
    rho, epsilon = mpf(rho), mpf(epsilon)
    if rho == 0:
        return -MP.inf

    def slope(t):
        alpha = 1 + MP.exp(t)
        return (2 * alpha - 1) * rho - epsilon + MP.log(1 - 1 / alpha)

    alpha = 1 + MP.exp(_root(slope, mpf(-3000), mpf(3000)))
    value = (
        (alpha - 1) * (alpha * rho - epsilon)
        + alpha * MP.log(1 - 1 / alpha)
        - MP.log(alpha - 1)
    )
    return min(value, mpf(0))


def gaussian_delta(rho, epsilon):
    """Exact δ(ε) of the Gaussian mechanism of ρ (μ = √(2ρ))."""
    mu, epsilon = MP.sqrt(2 * mpf(rho)), mpf(epsilon)
    return MP.ncdf(-epsilon / mu + mu / 2) - MP.exp(epsilon) * MP.ncdf(
        -epsilon / mu - mu / 2
    )


def simple_epsilon(rho, delta):
    """BS16 Prop. 1.3."""
    rho = mpf(rho)
    return rho + 2 * MP.sqrt(rho * MP.log(1 / mpf(delta)))


def meets(rho, epsilon, delta):
    return cks_log_delta(rho, epsilon) <= MP.log(mpf(delta))


def just_below(epsilon, relative):
    return mpf(epsilon) * (1 - mpf(relative))


# --------------------------------------------------------------------------
# ρ → ε.


def check_cks_epsilon(rho, delta):
    epsilon = within_deadline(cks_epsilon, rho, delta)
    assert epsilon >= 0.0 and math.isfinite(epsilon)
    # Never optimistic: CKS20's δ at the returned ε is at most δ.
    assert meets(rho, epsilon, delta)
    if epsilon > 0.0:
        # Exact: 1e−12 lower fails.
        assert not meets(rho, just_below(epsilon, 1e-12), delta)
    # Between the Gaussian mechanism's exact conversion and the simple bound.
    if rho > 0.0:
        assert gaussian_delta(rho, epsilon) <= delta
        # (within an ulp: at ρ = 1e42 no float lies between ρ and it)
        below = mpf(math.nextafter(epsilon, 0.0))
        assert below <= simple_epsilon(rho, delta) * (1 + mpf(1e-15))
    return epsilon


@pytest.mark.parametrize(("rho", "delta"), _grid(RHOS, DELTAS, FAST_RHOS, FAST_DELTAS))
def test_cks_epsilon_is_exact_at_the_ends(rho, delta):
    check_cks_epsilon(rho, delta)


@pytest.mark.parametrize("delta", (1e-300, 1e-6, 0.5, 1.0 - 1e-9))
def test_cks_epsilon_is_zero_where_delta_of_zero_is_below_delta(delta):
    """Just below the ρ whose δ(0) is δ, the conversion is exactly 0 (§7.4:
    ε = 0 is checked first; the closed form there is a difference of terms
    some 1e5 times larger than the answer)."""
    rho = within_deadline(zcdp_from_approx_dp, 0.0, delta) * (1 - 1e-9)
    if rho == 0.0:  # δ² underflows
        return
    assert meets(rho, 0.0, delta)
    assert within_deadline(cks_epsilon, rho, delta) == 0.0


@pytest.mark.parametrize("delta", (1e-300, 1e-6, 1.0 - 1e-9))
def test_cks_epsilon_is_monotone(delta):
    """More ρ never converts to less ε; more δ never to more."""
    values = [within_deadline(cks_epsilon, rho, delta) for rho in RHOS]
    assert values == sorted(values)
    for rho in (5e-61, 1.0, 5e59):
        by_delta = [within_deadline(cks_epsilon, rho, d) for d in DELTAS]
        assert by_delta == sorted(by_delta, reverse=True)


@pytest.mark.parametrize("delta", (1e-300, 1e-6, 0.5, 1.0 - 2.0**-53))
@pytest.mark.parametrize("rho", (5e-61, 1e-30, 1.0, 1e30, 5e59))
def test_cks_delta_is_an_upper_bound(rho, delta):
    epsilon = within_deadline(cks_epsilon, rho, delta)
    for at in (0.0, epsilon, 2.0 * epsilon + 1.0):
        ours = within_deadline(cks_delta, rho, at)
        assert 0.0 <= ours <= 1.0
        if ours > 0.0:
            assert MP.log(mpf(ours)) >= cks_log_delta(rho, at)
        else:
            assert cks_log_delta(rho, at) < MP.log(mpf(5e-324))


# --------------------------------------------------------------------------
# (ε, δ) → ρ.


def check_rho(epsilon, delta):
    rho = within_deadline(zcdp_from_approx_dp, epsilon, delta)
    assert rho > 0.0 and math.isfinite(rho)
    # Provably meets (ε, δ), so also for the Gaussian mechanism of ρ.
    assert meets(rho, epsilon, delta)
    assert gaussian_delta(rho, epsilon) <= delta
    # Never below the simple bound (√(L + ε) − √L)², and the largest to 1e−9.
    log_inv = MP.log(1 / mpf(delta))
    simple = (MP.sqrt(log_inv + epsilon) - MP.sqrt(log_inv)) ** 2
    assert rho >= simple * (1 - mpf(1e-13))
    assert not meets(mpf(rho) * (1 + mpf(1e-9)), epsilon, delta)
    return rho


@pytest.mark.parametrize(
    ("epsilon", "delta"), _grid(EPSILONS, DELTAS, FAST_EPSILONS, FAST_DELTAS)
)
def test_rho_from_epsilon_delta_is_exact_at_the_ends(epsilon, delta):
    check_rho(epsilon, delta)


def test_the_issue_budget_converts():
    """Issue 45, F4: AutoCovariance(epsilon=1e−20, delta=1e−6).fit_cost()
    hung in zcdp_from_approx_dp. The answer is about (e/2)·δ² (§7.2)."""
    from skprivcov import AutoCovariance

    rho = check_rho(1e-20, 1e-6)
    assert rho == pytest.approx(math.e / 2 * 1e-12, rel=1e-5)
    cost = within_deadline(lambda: AutoCovariance(epsilon=1e-20, delta=1e-6).fit_cost())
    assert cost.rho == rho
    # The budget it was calibrated to admits it (the round trip).
    accountant = PrivacyAccountant(epsilon=1e-20, delta=1e-6)
    assert within_deadline(accountant.can_spend, cost)


@pytest.mark.parametrize(
    ("epsilon", "delta"),
    _grid(EPSILONS, (5e-324, 1e-6, 0.5, 1.0 - 2.0**-53), FAST_EPSILONS, FAST_DELTAS),
)
def test_epsilon_to_rho_to_epsilon_never_exceeds(epsilon, delta):
    """A budget (ε, δ) admits the ρ calibrated to it."""
    rho = within_deadline(zcdp_from_approx_dp, epsilon, delta)
    assert within_deadline(cks_epsilon, rho, delta) <= epsilon


@pytest.mark.parametrize("delta", (1e-300, 1e-6, 0.5, 1.0 - 1e-9))
@pytest.mark.parametrize("rho", (5e-61, 1e-30, 1.0, 1e30, 5e59))
def test_rho_to_epsilon_to_rho_is_never_optimistic(rho, delta):
    """ρ → ε → ρ': ρ' meets (ε, δ) (so is never optimistic) and is not
    below ρ by more than the roundings."""
    epsilon = within_deadline(cks_epsilon, rho, delta)
    back = within_deadline(zcdp_from_approx_dp, epsilon, delta)
    assert meets(back, epsilon, delta)
    assert back >= rho * (1 - 1e-9)


# --------------------------------------------------------------------------
# The Gaussian-exact conversion and the simple bound.


@pytest.mark.parametrize(
    ("rho", "delta"), _grid(RHOS[:-1], DELTAS, (*FAST_RHOS, 5e59), FAST_DELTAS)
)
def test_gaussian_epsilon_is_exact_at_the_ends(rho, delta):
    epsilon = within_deadline(gaussian_epsilon, rho, delta)
    assert 0.0 <= epsilon <= within_deadline(cks_epsilon, rho, delta)
    if rho == 0.0:
        assert epsilon == 0.0
        return
    assert gaussian_delta(rho, epsilon) <= delta
    if epsilon > 0.0:
        assert gaussian_delta(rho, just_below(epsilon, 1e-6)) > delta


@pytest.mark.parametrize(("rho", "delta"), _grid(RHOS, DELTAS, FAST_RHOS, FAST_DELTAS))
def test_the_simple_bound_is_rounded_up(rho, delta):
    ours = within_deadline(bun_steinke_epsilon, rho, delta)
    assert ours >= simple_epsilon(rho, delta)
    assert ours <= simple_epsilon(rho, delta) * (1 + mpf(1e-14))


@pytest.mark.parametrize("epsilon", (1e-30, 0.1, 3.7, 1e30, 1.0 / 3.0))
def test_pure_to_zcdp_is_rounded_up(epsilon):
    rho = pure_to_zcdp(epsilon)
    assert Fraction(rho) >= Fraction(epsilon) ** 2 / 2
    assert rho <= math.nextafter(0.5 * epsilon * epsilon, math.inf)


# --------------------------------------------------------------------------
# Rényi curves (§14, §22) at the ends.


@pytest.mark.parametrize("delta", (5e-324, 1e-6, 1.0 - 1e-6, 1.0 - 2.0**-53))
@pytest.mark.parametrize("rho", (5e-61, 1e-30, 100.0, 1e10, 1e30, 5e59))
def test_an_envelope_converts_like_cks_over_every_order(rho, delta):
    """(ρ, 0, 0) is ρ-zCDP: its conversion over all orders is CKS20's. Before
    issue 45 it searched λ − 1 in [e^−30, e^30] only (1e18 times too large
    at ρ = 5e−61) and lost log(1 − 1/λ) near λ = 1 (optimistic at
    ρ = 100, δ = 1 − 1e−6)."""
    ours = within_deadline(envelope_epsilon, (rho, 0.0, 0.0), delta)
    assert meets(rho, ours, delta)
    if ours > 0.0:
        assert not meets(rho, just_below(ours, 1e-12), delta)


@pytest.mark.parametrize("delta", (1e-300, 1e-6, 1.0 - 1e-9))
@pytest.mark.parametrize(("a", "b", "c"), [(5e-61, 0.0, 3.0), (1.0, 2.0, 1.5)])
def test_an_envelope_with_a_selection_term(a, b, c, delta):
    """ε(λ) ≤ aλ + b + c/(λ − 1): at every order λ the conversion is
    aλ + b + c/(λ−1) + (λ log(1 − 1/λ) − log(λ − 1) − log δ)/(λ − 1); the
    result is at least its minimum over a fine grid of λ − 1 (up to the
    grid's coarseness) and never below it at the best order."""
    ours = within_deadline(envelope_epsilon, (a, b, c), delta)
    log_delta = MP.log(mpf(delta))

    def converted(h):
        lam = 1 + h
        return (
            a * lam
            + b
            + c / h
            + (lam * MP.log(1 - 1 / lam) - MP.log(h) - log_delta) / h
        )

    # The exact minimum: b + CKS20 at ρ = a and log(1/δ) + c (§22), found by
    # bisection of the derivative a + (log(1 + h) − log(1/δ) − c)/h².
    def slope(t):
        h = MP.exp(t)
        return a * h * h + MP.log(1 + h) + log_delta - c

    best = converted(MP.exp(_root(slope, mpf(-3000), mpf(3000))))
    grid = min(converted(MP.exp(mpf(k) / 8)) for k in range(-800, 801))
    assert best <= grid * (1 + mpf(1e-20)) + mpf(1e-300)
    assert ours >= max(best, 0)
    assert ours <= max(best, 0) * (1 + mpf(1e-12)) + mpf(1e-300)


@pytest.mark.parametrize("delta", (1e-300, 1e-6, 0.53, 1.0 - 1e-9))
@pytest.mark.parametrize("rho", (5e-61, 1e-30, 0.3, 1e30, 5e59))
def test_a_stored_curve_converts_upwards(rho, delta):
    """rdp_epsilon on a zCDP curve: never below CKS20 over every order (the
    true conversion of ρλ), and no worse than the best stored order."""
    curve = zcdp_curve(rho)
    ours = within_deadline(rdp_epsilon, curve, delta)
    assert meets(rho, ours, delta)
    log_delta = MP.log(mpf(delta))
    stored = min(
        mpf(value)
        + (mpf(lam) * MP.log(1 - 1 / mpf(lam)) - MP.log(mpf(lam) - 1) - log_delta)
        / (mpf(lam) - 1)
        for lam, value in zip(RENYI_ORDERS, curve, strict=True)
    )
    assert ours <= max(stored, 0) * (1 + mpf(1e-11)) + mpf(1e-13)


# --------------------------------------------------------------------------
# The accountant's routes (skprivcov/privacy/_accountant.py), which convert
# composed totals with cks_epsilon.


@pytest.mark.parametrize("delta", (1e-300, 1e-6, 1.0 - 1e-9))
@pytest.mark.parametrize("budget", (1e-30, 1.0, 1e30))
def test_the_accountant_converts_spends_at_the_ends(budget, delta):
    """Issue 45, F4: a pure 1e−30 spend checked against an (ε, δ) accountant
    raised in cks_epsilon (ρ = 5e−61). Each spend at either end is decided
    (and a pure spend within the budget admitted), and the stated ε of what
    was spent is never below CKS20's conversion of the zCDP total."""
    for cost in (
        PrivacyCost.pure(1e-30),
        PrivacyCost.zcdp(1e-30),
        PrivacyCost.pure(1e30),
        PrivacyCost.zcdp(1e30),
    ):
        accountant = PrivacyAccountant(epsilon=budget, delta=delta)
        admitted = within_deadline(accountant.can_spend, cost)
        if cost.notion == "pure":
            assert admitted == (cost.parameter <= budget)
        if admitted:
            accountant.spend(cost, source="test")
            stated = within_deadline(accountant.spent_epsilon, delta)
            assert 0.0 <= stated <= budget
            # Valid: the pure spend's own ε, or CKS20 of its ρ (ε²/2).
            rho = pure_to_zcdp(cost.parameter) if cost.notion == "pure" else None
            if cost.notion == "pure" and stated < cost.parameter:
                assert meets(rho, stated, delta)
            if cost.notion == "zcdp":
                assert meets(cost.parameter, stated, delta)


@pytest.mark.slow
def test_a_dense_sweep_of_the_conversions():
    """ρ, ε and δ on dense logarithmic grids over both ends."""
    rhos = [0.0] + [10.0**k for k in range(-60, 62, 6)] + [5e-61, 5e59]
    deltas = [5e-324] + [10.0**-k for k in (300, 100, 30, 12, 6, 3, 1)]
    deltas += [0.5, 0.9, 1 - 1e-3, 1 - 1e-6, 1 - 1e-12, 1 - 2.0**-53]
    for delta in deltas:
        for rho in rhos:
            check_cks_epsilon(rho, delta)
        for epsilon in [10.0**k for k in range(-30, 34, 4)]:
            check_rho(epsilon, delta)
