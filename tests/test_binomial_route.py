"""The binomial stopping law's routes against exact instances (docs/algorithms.rst §22).

K ~ Binomial(m, p) conditioned on K ≥ 1; the best of K runs of a pure ε₀-DP
candidate. A stated ε (or curve) is valid only if it is at least the exact
privacy loss of EVERY such selection, so each test builds one (randomised
response, or a few-output ε₀-DP mechanism), computes its exact output law by
enumerating K and every tuple of run outputs (code of this file only, in
mpmath), and checks the library against it. Issue 45: the pure route used
log 2 where the derivation needs log(1/(1 − p)), so Bin(2, 0.9) at ε₀ = 2
stated 2.693 against an exact loss of 3.173.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest

from skprivcov.privacy import PrivacyCost, SelectionProfile, StoppingLaw
from skprivcov.privacy._renyi import RENYI_ORDERS, pure_curve

mpmath.mp.dps = 40


def _best_law(trials, p, masses):
    """The law of the best output of K runs, K ~ Bin(trials, p) | K ≥ 1, by
    enumeration: ``masses`` are one run's probabilities of its outputs,
    ranked worst first; the best of a tuple is its highest-ranked output
    (ties give the same output, so how they are broken does not matter)."""
    p = mpmath.mpf(p)
    norm = 1 - (1 - p) ** trials
    masses = [mpmath.mpf(mass) for mass in masses]
    best = [mpmath.mpf(0)] * len(masses)
    for k in range(1, trials + 1):
        weight = mpmath.binomial(trials, k) * p**k * (1 - p) ** (trials - k) / norm
        for runs in itertools.product(range(len(masses)), repeat=k):
            chance = weight
            for output in runs:
                chance *= masses[output]
            best[max(runs)] += chance
    return best


def _pair(trials, p, mechanism):
    """The best-of-K laws under the two datasets, ``mechanism`` a list of
    (P(y), P'(y)), worst output first."""
    return (
        _best_law(trials, p, [pair[0] for pair in mechanism]),
        _best_law(trials, p, [pair[1] for pair in mechanism]),
    )


def exact_loss(trials, p, mechanism):
    """The exact pure ε of the selection: the largest |log m(y)/m'(y)|
    (an event's ratio is at most its outputs' largest)."""
    best, other = _pair(trials, p, mechanism)
    return float(max(abs(mpmath.log(a / b)) for a, b in zip(best, other, strict=True)))


def exact_renyi(trials, p, mechanism, order):
    """The exact Rényi divergence of order λ, the larger of both directions."""
    best, other = _pair(trials, p, mechanism)
    lam = mpmath.mpf(order)
    forward = sum(a**lam * b ** (1 - lam) for a, b in zip(best, other, strict=True))
    backward = sum(b**lam * a ** (1 - lam) for a, b in zip(best, other, strict=True))
    return float(mpmath.log(max(forward, backward)) / (lam - 1))


def exact_delta(trials, p, mechanism, epsilon):
    """The exact δ(ε) of the selection, the larger of both directions."""
    best, other = _pair(trials, p, mechanism)
    grow = mpmath.exp(epsilon)
    forward = sum(max(a - grow * b, 0) for a, b in zip(best, other, strict=True))
    backward = sum(max(b - grow * a, 0) for a, b in zip(best, other, strict=True))
    return float(max(forward, backward))


def randomised_response(epsilon):
    """Two outputs: the better one e^ε₀ times likelier under D than under D'."""
    high = math.exp(epsilon) / (1.0 + math.exp(epsilon))
    return [(1.0 - high, high), (high, 1.0 - high)]


def three_outputs(epsilon, top, second):
    """Three outputs, best first in the ratio's extremes: the best e^ε₀
    likelier under D', the second e^ε₀ likelier under D, the rest as they
    fall; None when the rest's ratio leaves [e^−ε₀, e^ε₀]."""
    grow = math.exp(epsilon)
    rest = (1.0 - top - grow * second, 1.0 - grow * top - second)
    if min(rest) <= 0.0 or not 1.0 / grow <= rest[0] / rest[1] <= grow:
        return None
    return [rest, (grow * second, second), (top, grow * top)]


def stated(trials, p, epsilon):
    """What the library states for the pure route of a hand-built profile."""
    law = StoppingLaw("binomial", trials, p)
    notion, value = SelectionProfile(
        rho=None, epsilon=epsilon, curve=None, law=law
    ).renyi_route()
    assert notion == "pure"
    return value


def test_the_issue_instance_is_below_the_stated_epsilon():
    """Bin(2, 0.9), ε₀ = 2: randomised response's exact loss is 3.173; the
    stated ε was 2 + log 2 = 2.693 (below it), and is now
    min(2·2, 2 + log 10) = 4."""
    loss = exact_loss(2, 0.9, randomised_response(2.0))
    assert loss == pytest.approx(3.1727, abs=1e-4)
    ours = stated(2, 0.9, 2.0)
    assert ours >= loss
    assert ours == pytest.approx(min(4.0, 2.0 + math.log(10.0)), rel=1e-11)


@pytest.mark.parametrize(
    ("trials", "p", "epsilon"),
    [
        (2, 0.9, 2.0),
        (2, 0.99, 3.0),
        (3, 0.95, 1.0),
        (2, 0.99, 0.5),
        (3, 0.8, 1.0),
        (3, 0.6, 3.0),
        (4, 0.75, 0.25),
        (3, 0.2, 1.0),
        (2, 0.5, 2.0),
    ],
)
def test_no_few_output_instance_exceeds_the_stated_epsilon(trials, p, epsilon):
    """Randomised response and a grid of three-output ε₀-DP mechanisms, for
    p on both sides of 1/2: every exact loss is at most the stated ε."""
    ours = stated(trials, p, epsilon)
    mechanisms = [randomised_response(epsilon)]
    grow = math.exp(epsilon)
    for top in np.geomspace(1e-3, 1.0 / grow, 6):
        for second in np.geomspace(1e-3, 1.0 / grow, 6):
            mechanism = three_outputs(epsilon, top, second)
            if mechanism is not None:
                mechanisms.append(mechanism)
    for mechanism in mechanisms:  # each a pair of laws, ε₀-DP
        assert sum(pair[0] for pair in mechanism) == pytest.approx(1.0, abs=1e-12)
        assert sum(pair[1] for pair in mechanism) == pytest.approx(1.0, abs=1e-12)
        ratios = [math.log(a / b) for a, b in mechanism]
        assert max(map(abs, ratios)) <= epsilon * (1 + 1e-12)
    assert len(mechanisms) > 5
    worst = max(exact_loss(trials, p, mechanism) for mechanism in mechanisms)
    assert worst <= ours
    # The route is the smaller of m runs composed and the slope of φ'.
    assert ours == pytest.approx(
        min(trials * epsilon, epsilon + (trials - 1) * math.log(1.0 / (1.0 - p))),
        rel=1e-11,
    )


def test_the_search_law_keeps_its_value():
    """p = 1/2 (what PrivateRandomSearch uses): log(1/(1 − p)) = log 2, so
    the stated ε is what it was, up to the upward rounding (1e−12)."""
    for trials, epsilon in ((60, 1.0), (2, 2.0), (10, 0.1)):
        before = min(trials * epsilon, epsilon + (trials - 1) * math.log(2))
        ours = stated(trials, 0.5, epsilon)
        assert before <= ours <= before * (1 + 2e-12)
    # Free candidates make a free selection, at any p.
    assert stated(60, 0.5, 0.0) == stated(2, 0.9, 0.0) == 0.0


def test_the_binomial_curve_is_never_below_the_instance():
    """The Rényi route of a pure candidate given as its curve (§7.3):
    the exact Rényi divergences of randomised response's selection under
    Bin(2, 0.9) at every stored order are at most the stated curve."""
    law = StoppingLaw("binomial", 2, 0.9)
    curve = tuple(float(value) for value in pure_curve(2.0))
    notion, ours, _ = SelectionProfile(
        rho=None, epsilon=None, curve=curve, law=law
    ).renyi_route()
    assert notion == "renyi"
    mechanism = randomised_response(2.0)
    for order, value in zip(RENYI_ORDERS, ours, strict=True):
        if order in (1.25, 2.0, 8.0, 64.0, 1024.0):
            assert exact_renyi(2, 0.9, mechanism, order) <= value
    # At a large order the curve is close to the pure loss, which the log 2
    # slope (2 + log 2 = 2.69 at most) would undercut.
    assert exact_renyi(2, 0.9, mechanism, 1024.0) > 2.0 + math.log(2.0) + 0.3


@pytest.mark.slow
@pytest.mark.parametrize(("trials", "p", "epsilon"), [(2, 0.9, 2.0), (3, 0.95, 1.0)])
def test_the_profile_route_is_never_below_the_instance(trials, p, epsilon):
    """The (ε, δ) statement of the same selection (the smaller of the pure
    route and the privacy-profile bound, §22) has the instance's exact
    δ(ε) at most δ. (The profile bound alone states 3.4604 and 2.7848 here,
    against the instance's 3.1727 and 2.6765.)"""
    law = StoppingLaw("binomial", trials, p)
    profile = SelectionProfile(rho=None, epsilon=epsilon, curve=None, law=law)
    cost = PrivacyCost("pure", stated(trials, p, epsilon), selection=profile)
    delta = 1e-6
    ours = cost.to_approx_dp(delta)
    assert exact_delta(trials, p, randomised_response(epsilon), ours) <= delta
    assert profile.to_approx_dp(delta, ceiling=ours) <= ours
