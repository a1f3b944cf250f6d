"""A private quantile on a public grid (docs/algorithms.rst §18.1).

The exponential mechanism over public candidates b_0 < b_1 < … < b_K with
utility u_k = −|c_k − t|, c_k = #{i : s_i ≤ b_k} the number of rows whose
scalar s_i (a row norm, a feature, a target) is at most b_k and t = q·n the
target rank (n public). Replacing one row moves every c_k by at most 1, so
Δu = 1, and P(k) ∝ exp(ε·u_k/2) is ε-DP (McSherry–Talwar 2007) and, having
bounded range ε, ε²/8-zCDP (Cesar–Rogers, ALT 2021, Lemma 3.2).

It is sampled **exactly**, on both noise paths: proposals k uniform on
{0, …, K} (exact integers from 64-bit words) are accepted with probability
exp(−ε·(u* − u_k)/2), u* = max u, by the exact Bernoulli(exp(−γ)) coins of
§17; the first accepted proposal has exactly the exponential mechanism's law
(rejection sampling with a uniform proposal). No float weight, Gumbel draw or
logarithm touches the choice. The number of proposals depends on the counts
(a timing channel, as every rejection sampler's; docs/threat_model.rst).
"""

import math
from fractions import Fraction

import numpy as np

from skprivcov.mechanisms._discrete import _uniform_below, bernoulli_exp, words_of

__all__ = [
    "norm_grid",
    "private_norm_bound",
    "private_quantile",
    "quantile_epsilon",
    "quantile_rank_error",
]

# The default public range of a row norm in the data's units, and the steps
# per octave (2^{1/4}: 19% apart), §18.1.
NORM_RANGE = (2.0**-32, 2.0**32)
STEPS_PER_OCTAVE = 4


def norm_grid(low=NORM_RANGE[0], high=NORM_RANGE[1], steps=STEPS_PER_OCTAVE):
    """The public candidates of a non-negative scalar: 0, then
    low·2^{k/steps} for k = 0..K, the first at or above ``high`` last.

    Parameters
    ----------
    low, high : float
        0 < low < high, finite.
    steps : int
        Candidates per octave.

    Returns
    -------
    grid : ndarray of float64, ascending
    """
    if not (0.0 < low < high < math.inf):
        raise ValueError(
            f"The bound range must satisfy 0 < low < high < inf; got ({low!r}, "
            f"{high!r})."
        )
    top = math.ceil(steps * math.log2(high / low) - 1e-9)
    return np.concatenate(([0.0], low * 2.0 ** (np.arange(top + 1) / steps)))


def quantile_epsilon(budget):
    """The exponential mechanism's ε for a budget part: ε itself for a pure
    budget; for ρ-zCDP, ε = √(8ρ), since its bounded range gives ε²/8-zCDP
    (Cesar–Rogers 2021; docs/algorithms.rst §18.1)."""
    if budget.notion == "pure":
        return float(budget.parameter)
    # Rounded down: the mechanism then spends at most ρ.
    return math.sqrt(8.0 * budget.parameter) * (1.0 - 2.0**-50)


def quantile_rank_error(n_candidates, epsilon, beta):
    """With probability at least 1 − β the chosen candidate's count is within
    2·ln(K/β)/ε of the target rank (K candidates; McSherry–Talwar)."""
    return 2.0 * math.log(n_candidates / beta) / epsilon


def private_quantile(counts, target, epsilon, rng):
    """The index of the chosen candidate, by the exponential mechanism.

    Parameters
    ----------
    counts : array-like of int, shape (K,)
        c_k = #{i : s_i ≤ b_k}, non-decreasing.
    target : Fraction, int or float
        The target rank t = q·n (public).
    epsilon : float
        ε > 0 of the exponential mechanism (see :func:`quantile_epsilon`).
    rng : numpy.random.Generator
        ``release_generator``'s (its ``secure`` flag picks the OS CSPRNG).

    Returns
    -------
    index : int
    """
    counts = np.asarray(counts, dtype=np.int64)
    target = Fraction(target)
    # u_k = −|c_k − t| exactly; the gaps u* − u_k ≥ 0 and γ_k = ε·gap_k/2.
    distances = [abs(Fraction(int(c)) - target) for c in counts]
    best = min(distances)
    half_epsilon = Fraction(epsilon) / 2
    gammas = [half_epsilon * (distance - best) for distance in distances]
    approximate = np.array([float(gamma) for gamma in gammas])
    words = words_of(rng, secure=getattr(rng, "secure", False))
    size = len(gammas)
    while True:
        proposals = _uniform_below(size, size, words)
        coins = bernoulli_exp(
            approximate[proposals],
            lambda i, proposals=proposals: gammas[int(proposals[i])],
            words,
        )
        accepted = np.flatnonzero(coins)
        if accepted.size:
            return int(proposals[accepted[0]])


# The failure probability of a private norm bound's accuracy statement.
_BOUND_BETA = 0.05


def private_norm_bound(counts, grid, n_samples, budget, rng):
    """A private upper bound on the row norms, on a public grid
    (docs/algorithms.rst §18.2).

    The sparse vector technique over the ascending candidates (AboveThreshold,
    §1, exact and hardened): query k is −A_k, A_k = n − c_k the number of rows
    with a norm above b_k (sensitivity 1), against the threshold −2α with
    α = (6/ε)·ln(2K/β), β = 0.05, as PrivRadius does (§2.2). With probability
    at least 1 − β the chosen b_k has at most 3α rows above it and is the
    first candidate with at most α rows above it or a smaller one.

    Why not the exponential mechanism of :func:`private_quantile` for this
    step: every candidate above the largest norm has the same utility, so
    when the target rank falls in a step where the count jumps to n (narrow
    norm distributions, e.g. digits), those tied candidates, up to the top of
    the grid, are as likely as the right one, and a bound 10^5 times too large
    is chosen half the time (measured: ``benchmarks/bench_norm_bound_auto.py``).
    The first crossing of the sparse vector technique fails low instead: with
    too little budget for its α, it picks the smallest candidates, whose
    release is near zero, i.e. near releasing nothing. A bound of 0 becomes the
    smallest positive candidate (post-processing).

    Parameters
    ----------
    counts : ndarray of int
        c_k = #{i : ‖x_i‖ ≤ grid[k]} (``skprivcov._stats.row_norm_counts``).
    grid : ndarray of float
        The public candidates (:func:`norm_grid`), ascending.
    n_samples : int
    budget : PrivacyCost
        The part spent: pure ε, or ρ-zCDP spent as ε = √(2ρ) (ε²/2, BS16
        Prop. 1.4).
    rng : numpy.random.Generator

    Returns
    -------
    bound : float
    """
    from skprivcov.mechanisms._svt import above_threshold

    if budget.notion == "pure":
        epsilon = float(budget.parameter)
    else:
        epsilon = math.sqrt(2.0 * budget.parameter) * (1.0 - 2.0**-50)
    alpha = 6.0 / epsilon * math.log(2.0 * grid.size / _BOUND_BETA)
    above = [int(n_samples - c) for c in counts]
    first = above_threshold([-a for a in above], -2.0 * alpha, epsilon, rng)
    index = grid.size - 1 if first is None else first
    return float(grid[max(index, 1)])
