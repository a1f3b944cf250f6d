"""The conversion of Rényi curves over real orders (docs/algorithms.rst §14, §22).

``rdp_epsilon`` converts a curve stored at ``RENYI_ORDERS`` over every real
order between them, bounding (λ − 1)·ε(λ) by its chord; ``envelope_epsilon``
converts a closed form a·λ + b + c/(λ − 1) over every λ > 1. Both are checked
here against curves known exactly at every real order, converted by code of
this file only: a dense log grid of 10^6 orders refined by a scalar search.

Tolerances. The library rounds upwards and the reference is computed in
floating point with a handful of roundings per value, so "never below" allows
a relative 1e−12 (the library's own margin, far above the ~1e−15 of the
reference's roundings and far below every planted error, ≥ 1e−8 relative).
"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from skprivcov.privacy import cks_epsilon
from skprivcov.privacy._renyi import (
    RENYI_ORDERS,
    envelope_epsilon,
    pure_curve,
    rdp_epsilon,
    zcdp_curve,
)

ORDERS = np.asarray(RENYI_ORDERS, dtype=np.float64)
DELTAS = (1e-3, 1e-6, 1e-10)
# Where real orders can gain for zCDP. With x = λ − 1, the conversion of a
# bound ε(λ) ≤ (A + B·x)/x (the chord of (λ − 1)ε(λ) on [l, h], of intercept
# A) has derivative (log(λδ) − A)/x² in λ, as (λ log(1 − 1/λ) − log(λ − 1))
# has derivative log(1 − 1/λ) and x·log(x/(x + 1)) − C(x) = log(λδ) for
# C(x) the conversion's numerator. For ρλ, A = −ρ·x_l·x_h: the minimum is
# inside (l, h) only when log(λδ) + ρ·x_l·x_h changes sign there, i.e. at
# ρ = −log(λ*δ)/(x_l·x_h) for a λ* inside. Three such ρ at δ = 1e−6: λ* = 36
# in [32, 40], 900 in [768, 1024], 3.25 in [3, 3.5].
WINDOWS = tuple(
    -math.log(star * 1e-6) / ((low - 1.0) * (high - 1.0))
    for star, low, high in (
        (36.0, 32.0, 40.0),
        (900.0, 768.0, 1024.0),
        (3.25, 3.0, 3.5),
    )
)
FLOAT = 1e-12  # relative allowance for floating point, see the module docstring


def _conversion(lam, delta):
    """CKS20 Prop. 12's price of turning ε(λ) into (ε, δ): written out here,
    not imported, so that a mistake in the library's copy shows."""
    lam = np.asarray(lam, dtype=np.float64)
    return (lam * np.log1p(-1.0 / lam) - np.log(lam - 1.0) - math.log(delta)) / (
        lam - 1.0
    )


def _randomised_response(epsilon, lam):
    """D_λ of randomised response at ε (both directions are equal), the worst
    pure ε-DP pair at every order: log(p^λ q^(1−λ) + q^λ p^(1−λ))/(λ − 1)."""
    lam = np.asarray(lam, dtype=np.float64)
    log_p = -np.logaddexp(0.0, -epsilon)
    log_q = -np.logaddexp(0.0, epsilon)
    return np.logaddexp(
        lam * log_p + (1.0 - lam) * log_q, lam * log_q + (1.0 - lam) * log_p
    ) / (lam - 1.0)


def _refine(exact, delta, t, values, i):
    """The dense minimum at t[i], refined by a bounded scalar search on
    log(λ − 1) between its neighbours."""
    bracket = (t[max(i - 1, 0)], t[min(i + 1, t.size - 1)])
    found = minimize_scalar(
        lambda x: float(
            exact(1.0 + math.exp(x)) + _conversion(1.0 + math.exp(x), delta)
        ),
        bounds=bracket,
        method="bounded",
        options={"xatol": 1e-13},
    )
    return max(min(float(values[i]), float(found.fun)), 0.0)


def _true_optimum(exact, delta):
    """(min over all real λ > 1, min over real λ in [1.25, 1024]) of
    exact(λ) + conversion: 10^6 log-spaced orders, λ − 1 from 1e−6 to 1e8
    (every order that matters), plus the two ends of the stored range, each
    minimum refined by a bounded scalar search on log(λ − 1)."""
    ends = np.log(ORDERS[[0, -1]] - 1.0)
    t = np.sort(np.r_[np.linspace(math.log(1e-6), math.log(1e8), 10**6), ends])
    lam = 1.0 + np.exp(t)
    values = exact(lam) + _conversion(lam, delta)
    everywhere = _refine(exact, delta, t, values, int(np.argmin(values)))
    inside = np.flatnonzero((t >= ends[0]) & (t <= ends[1]))
    sub_t, sub_values = t[inside], values[inside]
    in_range = _refine(exact, delta, sub_t, sub_values, int(np.argmin(sub_values)))
    return everywhere, in_range


def _grid_only(curve, delta):
    """The old conversion: the minimum over the 36 stored orders only."""
    return max(float(np.min(np.asarray(curve) + _conversion(ORDERS, delta))), 0.0)


def _chord_optimum(curve, delta):
    """min over every real λ in [1.25, 1024] of the chord bound + conversion,
    by a bounded search in each interval (the chord of (λ − 1)ε(λ) through
    the stored values): what the library approximates on 64 points each."""
    curve = np.asarray(curve, dtype=np.float64)
    best = _grid_only(curve, delta)
    for j in range(ORDERS.size - 1):
        low, high = ORDERS[j], ORDERS[j + 1]
        y_low, y_high = (low - 1) * curve[j], (high - 1) * curve[j + 1]

        def value(lam, low=low, high=high, y_low=y_low, y_high=y_high):
            weight = (lam - low) / (high - low)
            return (y_low + weight * (y_high - y_low)) / (lam - 1.0) + float(
                _conversion(lam, delta)
            )

        found = minimize_scalar(value, bounds=(low, high), method="bounded")
        best = min(best, float(found.fun))
    return max(best, 0.0)


def _cases():
    """(name, exact curve at every real order, stored curve at the grid)."""
    cases = []
    for rho in (1e-6, 1e-4, 1e-2, 1.0, 10.0, *WINDOWS):
        cases.append((f"zcdp{rho}", lambda lam, r=rho: r * lam, zcdp_curve(rho)))
    for a, b, c in ((1e-4, 0.02, 2.0), (0.01, 0.72, 3.4), (1.0, 5.38, 3.4)):
        exact = lambda lam, a=a, b=b, c=c: a * lam + b + c / (lam - 1.0)  # noqa: E731
        stored = np.nextafter(exact(ORDERS) * (1 + 1e-15), np.inf)
        cases.append((f"sum{a},{b},{c}", exact, stored))
    for epsilon in (0.1, 0.5, 1.0, 3.0, 8.0):
        exact = lambda lam, e=epsilon: _randomised_response(e, lam)  # noqa: E731
        cases.append((f"pure{epsilon}", exact, pure_curve(epsilon)))
    return cases


CASES = _cases()
_TRUTHS = {}


def _truth(index, delta):
    """The (everywhere, in-range) optimum of case ``index``, computed once."""
    if (index, delta) not in _TRUTHS:
        _TRUTHS[index, delta] = _true_optimum(CASES[index][1], delta)
    return _TRUTHS[index, delta]


# The fast subset: the window ρ (where the chord matters) and the pure
# curves (concave in λ at large orders) at two δ; the slow test runs all.
FAST = [
    (index, delta)
    for index, (name, _, _) in enumerate(CASES)
    if name.startswith("pure") or name in {f"zcdp{rho}" for rho in WINDOWS}
    for delta in (1e-3, 1e-6)
]
EVERY = [(index, delta) for index in range(len(CASES)) for delta in DELTAS]


def _violations(converter, cases=FAST):
    """Cases where ``converter(stored, δ)`` is below the truth: the minimum of
    the exact curve's conversion over the stored range [1.25, 1024] (which
    is ≥ the optimum over all λ > 1), beyond the float allowance."""
    found = []
    for index, delta in cases:
        name, _, stored = CASES[index]
        truth = _truth(index, delta)[1]
        value = converter(stored, delta)
        if value < truth * (1.0 - FLOAT):
            found.append((name, delta, value, truth))
    return found


def test_stored_curves_are_above_the_exact_ones():
    """The premise of the checks below: every stored value bounds the exact
    curve (pure_curve is checked against randomised response, computed
    independently)."""
    for name, exact, stored in CASES:
        assert np.all(np.asarray(stored) >= exact(ORDERS) * (1 - FLOAT)), name


@pytest.mark.parametrize(
    "cases", [FAST, pytest.param(EVERY, marks=pytest.mark.slow)], ids=["fast", "all"]
)
def test_real_orders_are_never_below_the_truth_and_beat_the_grid(cases):
    """(i) rdp_epsilon is never below the exact curve's optimum over real
    orders (neither over the stored range nor over all λ > 1); (ii) it is
    never worse than the grid-only minimum and strictly better somewhere;
    (iii) it is within 1e−4 (relative) of the exact minimum of the chord
    bound, the approximation §22 states for 64 points per interval."""
    strictly_better = []
    for index, delta in cases:
        name, _, stored = CASES[index]
        ours = rdp_epsilon(stored, delta)
        everywhere, in_range = _truth(index, delta)
        assert everywhere <= in_range * (1 + FLOAT) + 1e-300
        assert ours >= in_range * (1 - FLOAT), (name, delta, ours, in_range)
        assert ours >= everywhere * (1 - FLOAT), (name, delta)
        grid = _grid_only(stored, delta)
        # Two upward roundings of 1e−12 (the stored curve's, the result's).
        assert ours <= grid * (1 + 2 * FLOAT) + 1e-300, (name, delta, ours, grid)
        chord = _chord_optimum(stored, delta)
        assert chord <= ours * (1 + FLOAT) + 1e-300, (name, delta)
        assert ours <= chord * (1 + 1e-4) + 1e-300, (name, delta, ours, chord)
        if ours < grid * (1 - 1e-4):
            strictly_better.append((name, delta))
    # The windows (see WINDOWS) must gain, by more than roundings.
    for rho in WINDOWS:
        assert (f"zcdp{rho}", 1e-06) in strictly_better


def test_the_chord_gains_nothing_outside_its_window():
    """A finding, derived: zCDP at ρ = 0.01, δ = 1e−6 gains nothing from real
    orders although its best real order (≈ 37) lies between the stored 32
    and 40. By the derivative in WINDOWS' comment, the chord objective
    decreases on [28, 32] (log(32δ) + ρ·27·31 < 0) and increases on [32, 40]
    (log(32δ) + ρ·31·39 > 0): its minimum is the stored order 32."""
    rho, delta = 0.01, 1e-6
    assert (
        math.log(32 * delta) + rho * 27 * 31 < 0 < math.log(32 * delta) + rho * 31 * 39
    )
    stored = zcdp_curve(rho)
    grid = _grid_only(stored, delta)
    assert rdp_epsilon(stored, delta) == pytest.approx(grid, rel=3 * FLOAT)
    assert grid == pytest.approx(rho * 32 + float(_conversion(32.0, delta)), rel=FLOAT)


def _linear_in_epsilon(curve, delta):
    """A planted bug: ε(λ) itself interpolated linearly between stored orders
    (the convexity used is that of (λ − 1)·ε(λ), not of ε)."""
    curve = np.asarray(curve, dtype=np.float64)
    weight = np.linspace(0.0, 1.0, 66)[1:-1, None]
    lam = ORDERS[:-1] + weight * (ORDERS[1:] - ORDERS[:-1])
    between = curve[:-1] + weight * (curve[1:] - curve[:-1])
    return min(
        _grid_only(curve, delta), float(np.min(between + _conversion(lam, delta)))
    )


def _left_endpoint(curve, delta):
    """A planted bug: the chord taken at the wrong endpoint, the value at the
    stored order below λ (the curve is non-decreasing: this is too small)."""
    curve = np.asarray(curve, dtype=np.float64)
    weight = np.linspace(0.0, 1.0, 66)[1:-1, None]
    lam = ORDERS[:-1] + weight * (ORDERS[1:] - ORDERS[:-1])
    flat = curve[:-1] + 0.0 * weight
    return min(_grid_only(curve, delta), float(np.min(flat + _conversion(lam, delta))))


def test_the_soundness_check_catches_planted_bugs():
    """The randomised-response curve is concave in λ at large orders, so a
    linear interpolation of ε lies below it there (while (λ − 1)·ε(λ) is
    convex, so the chord of the library stays above): the check above must
    flag it, and flag a chord at the wrong endpoint; the library passes."""
    assert _violations(rdp_epsilon) == []
    linear = _violations(_linear_in_epsilon)
    assert linear, "linear interpolation of ε must under-report somewhere"
    assert any(name.startswith("pure") for name, *_ in linear)
    # The planted error is large next to the float allowance.
    assert max(1 - value / truth for _, _, value, truth in linear if truth) > 1e-6
    assert _violations(_left_endpoint)


def test_linear_interpolation_is_below_a_convex_scaled_curve():
    """The construction behind the planted bug, shown directly: f(λ) =
    (λ − 1)·ε(λ) convex with ε concave (ε(λ) = 1 − 1/λ, f = λ − 2 + 1/λ,
    f'' = 2/λ³ > 0): between two orders the linear interpolation of ε is
    below ε, the chord of f above it."""
    low, high = 512.0, 768.0
    lam = np.linspace(low, high, 101)[1:-1]
    exact = 1.0 - 1.0 / lam
    linear = (1 - 1 / low) + (lam - low) / (high - low) * ((1 / low) - (1 / high))
    chord = (
        (low - 1) * (1 - 1 / low)
        + (lam - low)
        / (high - low)
        * ((high - 1) * (1 - 1 / high) - (low - 1) * (1 - 1 / low))
    ) / (lam - 1)
    assert np.all(linear < exact)
    assert np.all(chord >= exact * (1 - FLOAT))


@pytest.mark.parametrize("delta", (1e-3, 1e-6, 1e-10))
@pytest.mark.parametrize("rho", (1e-8, 1e-6, 1e-2, 10.0))
def test_the_zcdp_envelope_is_the_cks_conversion(rho, delta):
    """envelope_epsilon((ρ, 0, 0), δ) is CKS20's ε of ρ-zCDP and never below
    the dense-λ truth over all real orders. Tolerance: relative 1e−9 (a
    bounded scalar search), and absolute 2e−12 since cks_epsilon stops its
    root search at 1e−13 and then steps up by 1e−12 until δ(ε) ≤ δ."""
    ours = envelope_epsilon((rho, 0.0, 0.0), delta)
    truth = _true_optimum(lambda lam: rho * lam, delta)[0]
    assert ours >= truth * (1 - FLOAT)
    assert ours == pytest.approx(cks_epsilon(rho, delta), rel=1e-9, abs=2e-12)


@pytest.mark.parametrize("delta", (1e-6, 1e-10))
@pytest.mark.parametrize(
    "envelope", ((1e-4, 0.02, 2.0), (0.01, 0.72, 3.4), (1.0, 5.38, 3.4))
)
def test_the_envelope_is_never_below_the_truth(envelope, delta):
    a, b, c = envelope
    ours = envelope_epsilon(envelope, delta)
    truth = _true_optimum(lambda lam: a * lam + b + c / (lam - 1.0), delta)[0]
    assert truth * (1 - FLOAT) <= ours <= truth * (1 + 1e-7)


def test_a_tiny_rho_gains_several_times_over_the_grid():
    """At ρ = 1e−6, δ = 1e−6 the best order (near √(log(1/δ)/ρ) ≈ 3700) is
    beyond the grid. Derived bound on the gain: h(λ) = ρλ + conversion(λ) is
    convex in λ and still decreasing at λ = 1024 (its derivative there is
    checked < 0), so the grid-only ε is h(1024) (the smallest stored value
    is the last); the envelope is at most h at λ = 1 + √(log(1/δ)/ρ). Their
    ratio bounds the gain from below, and must be ≥ 1.3 (the issue's lower
    end); at ρ = 1e−8 the same bound is over 10."""
    for rho, least in ((1e-6, 1.3), (1e-8, 10.0)):
        delta = 1e-6

        def h(lam, rho=rho, delta=delta):
            return rho * lam + float(_conversion(lam, delta))

        assert h(1024.0) < h(1023.999)  # decreasing at the top stored order
        grid = _grid_only(zcdp_curve(rho), delta)
        assert grid == pytest.approx(h(1024.0), rel=1e-9)
        ours = envelope_epsilon((rho, 0.0, 0.0), delta)
        derived = h(1024.0) / h(1.0 + math.sqrt(math.log(1 / delta) / rho))
        assert derived >= least
        assert grid / ours >= derived * (1 - 1e-9)
