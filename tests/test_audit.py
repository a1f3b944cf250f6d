"""Empirical privacy audit of every estimator, with a power check.

For each estimator (``skprivcov.utils._audit.AUDIT_CASES``), releases on two
neighbouring datasets give a high-confidence lower bound on ε, which must stay
at or below the claimed ε (for zCDP, its ε at δ = 0.01). The same audit on the
case's planted bug (noise scale reduced) must report a violation: an audit that
cannot catch a planted bug is not a test.

Gaussian and Laplace run in the default suite; the others are marked ``audit``
(about 7 minutes on 2 cores): ``python -m pytest -m audit``. The report
with every number is ``python benchmarks/privacy_audit.py``.

The samplers' goodness-of-fit tests live with their mechanisms:
symmetric Gaussian/Laplace noise matrices and the Laplace and Gaussian
eigenvalue vectors in ``test_noise_calibration.py``; the Bingham sampler in
``test_iterative_eigen.py``; the nuclear-Laplace radius and spectrum chain in
``test_nuclear.py``; AboveThreshold's decision frequencies against their exact
probabilities in ``test_adaptive.py``.
"""

import math

import numpy as np
import pytest
from scipy import stats

from skprivcov import PrivacyCost
from skprivcov.utils._audit import (
    AUDIT_CASES,
    audit,
    clopper_pearson,
    epsilon_lower_bound,
)

FAST = ["GaussianCovariance", "LaplaceCovariance"]
SLOW = [name for name in AUDIT_CASES if name not in FAST]
# Releases per side; the nuclear chain costs about 50 ms a fit at d = 2.
N_RELEASES = {"NuclearLaplaceCovariance": 2000}


def test_clopper_pearson_is_the_exact_interval():
    for successes, trials in [(0, 50), (3, 50), (25, 50), (50, 50), (700, 10_000)]:
        low, high = clopper_pearson(successes, trials, 0.05)
        reference = stats.binomtest(successes, trials).proportion_ci(0.95, "exact")
        assert float(low) == pytest.approx(reference.low, abs=1e-12)
        assert float(high) == pytest.approx(reference.high, abs=1e-12)


def test_lower_bound_is_sound_and_sharp_on_a_known_mechanism():
    """Lap(1/ε) on a scalar of sensitivity 1 is exactly ε-DP, and its tail
    events attain e^ε: the bound must be at most ε, and not far below it."""
    rng = np.random.default_rng(0)
    for epsilon in (0.5, 1.0, 2.0):
        bounds = [
            epsilon_lower_bound(
                rng.laplace(0.0, 1.0 / epsilon, 20_000),
                rng.laplace(1.0, 1.0 / epsilon, 20_000),
            )
            for _ in range(5)
        ]
        assert max(bounds) <= epsilon
        assert min(bounds) >= 0.6 * epsilon


def test_lower_bound_respects_delta():
    """N(0, 1) against N(μ, 1) is (ε(δ), δ)-DP for the exact Gaussian curve
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018)."""
    mu, delta = 2.0, 0.01
    exact = _gaussian_epsilon(mu, delta)
    rng = np.random.default_rng(1)
    bound = epsilon_lower_bound(
        rng.normal(0.0, 1.0, 20_000), rng.normal(mu, 1.0, 20_000), delta=delta
    )
    assert 0.5 * exact < bound <= exact


def _gaussian_epsilon(mu, delta):
    def curve(epsilon):
        return (
            stats.norm.cdf(-epsilon / mu + mu / 2)
            - math.exp(epsilon) * stats.norm.cdf(-epsilon / mu - mu / 2)
            - delta
        )

    low, high = 0.0, 50.0
    for _ in range(100):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if curve(middle) > 0 else (low, middle)
    return high


def test_claimed_epsilon_of_a_zcdp_case_is_its_cks_conversion():
    case = AUDIT_CASES["GaussianCovariance"]
    result = audit(case, n_releases=200, seed=3)
    assert result.claimed_epsilon == pytest.approx(
        PrivacyCost.zcdp(0.5).to_approx_dp(0.01)
    )
    assert result.delta == 0.01


def _check(name, n_releases):
    case = AUDIT_CASES[name]
    honest = audit(case, n_releases=n_releases, seed=11, n_jobs=2)
    planted = audit(case, n_releases=n_releases, seed=12, bug=True, n_jobs=2)
    assert not honest.violation, (name, honest)
    assert planted.violation, (name, case.bug_label, planted)


@pytest.mark.slow
@pytest.mark.parametrize("name", FAST)
def test_audit_bounds_stay_below_the_claim_and_catch_the_planted_bug(name):
    _check(name, 10_000)


@pytest.mark.audit
@pytest.mark.parametrize("name", SLOW)
def test_full_audit(name):
    _check(name, N_RELEASES.get(name, 20_000))
