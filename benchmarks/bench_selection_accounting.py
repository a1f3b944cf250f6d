"""What a private selection states, route by route (docs/algorithms.rst §22).

For ten candidates of ρ-zCDP (or pure ε), stopping law TNB(η, γ) or the
binomial of the same mean, at δ = 1e-6:

* one release alone (the exact conversion of §7.1);
* the Rényi route on the 36 stored orders (what skprivcov stated before
  issue 37), over real orders (the chord and the envelope, §22);
* the privacy-profile bound (what is stated now: the smaller of the routes);
* a lower bound on the truth: the exact ε of one ρ-zCDP instance, the
  Gaussian mechanism ranked adversarially (§22), by numerical integration,
  maximised over its two thresholds (geometric law only).

    python benchmarks/bench_selection_accounting.py [--no-instance]
"""

import argparse
import math
import time

import numpy as np
from scipy.integrate import trapezoid
from scipy.optimize import brentq
from scipy.stats import norm

from skprivcov.model_selection import selection_cost
from skprivcov.privacy import RENYI_ORDERS, PrivacyCost, cks_epsilon, rdp_epsilon

DELTA = 1e-6
ORDERS = np.asarray(RENYI_ORDERS)


def grid_only(curve, delta):
    """The conversion over the stored orders alone (before issue 37)."""
    extra = (ORDERS * np.log1p(-1 / ORDERS) - np.log(ORDERS - 1) - math.log(delta)) / (
        ORDERS - 1
    )
    return float(np.min(np.asarray(curve) + extra))


def instance_delta(epsilon, mu, gamma, a, b, points=20001):
    """δ(ε) of the best of K ~ geometric(γ) runs of N(0,1) vs N(μ,1) ranked
    {z > a} first, then {z < −b} (most extreme first), then the rest."""

    def log_slope(tail):
        return math.log(gamma) - 2 * np.log(gamma + (1 - gamma) * tail)

    total = 0.0
    regions = []
    above, above_prime = norm.sf(a), norm.sf(a - mu)
    z = np.linspace(a, a + 40, points)
    regions.append((z, norm.sf(z), norm.sf(z - mu)))
    z = np.linspace(-b - 40, -b, points)
    regions.append((z, above + norm.cdf(z), above_prime + norm.cdf(z - mu)))
    top, top_prime = above + norm.cdf(-b), above_prime + norm.cdf(-b - mu)
    z = np.linspace(-b, a, points)
    regions.append(
        (
            z,
            top + norm.cdf(a) - norm.cdf(z),
            top_prime + norm.cdf(a - mu) - norm.cdf(z - mu),
        )
    )
    for z, tail, tail_prime in regions:
        log_a = norm.logpdf(z) + log_slope(tail)
        log_b = norm.logpdf(z - mu) + log_slope(tail_prime)
        gap = np.clip(np.exp(log_a) - np.exp(epsilon + log_b), 0.0, None)
        total += trapezoid(gap, z)
    return total


def instance_epsilon(rho, gamma, high):
    """The instance's ε at δ, over a grid of thresholds."""
    mu = math.sqrt(2 * rho)
    thresholds = [
        (a, b) for a in np.linspace(0.5, 3.0, 11) for b in (0.0, 1.0, 2.0, 3.0)
    ]

    def worst(epsilon):
        return max(
            instance_delta(epsilon, mu, gamma, a, b, 4001) for a, b in thresholds
        )

    return brentq(
        lambda e: math.log(worst(e)) - math.log(DELTA), 0.1 * high, high, xtol=1e-3
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-instance", action="store_true")
    args = parser.parse_args()
    gamma = 1 / 30
    print(f"10 candidates, γ = {gamma:.4g}, δ = {DELTA:g}")
    header = (
        f"{'candidates':<16}{'law':<10}{'one':>8}{'grid':>9}{'real λ':>9}"
        f"{'stated':>9}{'ratio':>8}{'instance':>10}{'time s':>8}"
    )
    print(header)
    for rho in (1e-6, 0.01, 0.1, 1.0):
        for law in ("negative_binomial", "binomial"):
            cost = selection_cost(
                [PrivacyCost.zcdp(rho)] * 10, eta=1.0, gamma=gamma, stopping=law
            )
            start = time.perf_counter()
            stated = cost.to_approx_dp(DELTA)
            seconds = time.perf_counter() - start
            grid = grid_only(cost.curve, DELTA)
            real = rdp_epsilon(cost.curve, DELTA)
            instance = ""
            if law == "negative_binomial" and rho >= 0.01 and not args.no_instance:
                instance = f"{instance_epsilon(rho, gamma, stated):.3f}"
            print(
                f"{'ρ = ' + format(rho, 'g'):<16}{law[:8]:<10}"
                f"{cks_epsilon(rho, DELTA):>8.4f}{grid:>9.4f}{real:>9.4f}"
                f"{stated:>9.4f}{stated / grid:>8.3f}{instance:>10}{seconds:>8.2f}"
            )
    for epsilon in (0.1, 1.0):
        for eta in (1.0, 0.0):
            cost = selection_cost(
                [PrivacyCost.pure(epsilon)] * 10, eta=eta, gamma=gamma
            )
            stated = cost.to_approx_dp(DELTA)
            label, law = f"ε = {epsilon:g} pure", f"η = {eta:g}"
            print(
                f"{label:<16}{law:<10}"
                f"{epsilon:>8.4f}{cost.parameter:>9.4f}{cost.parameter:>9.4f}"
                f"{stated:>9.4f}{stated / cost.parameter:>8.3f}"
            )


if __name__ == "__main__":
    main()
