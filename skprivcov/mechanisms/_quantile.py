"""A private quantile on a public grid (docs/algorithms.rst §18.1).

The exponential mechanism over public candidates b_0 < b_1 < … < b_K with
c_k = #{i : s_i ≤ b_k} the number of rows whose scalar s_i (a row norm, a
feature, a target) is at most b_k, t = q·n the target rank (n public), and
the utility of the cell (b_{k−1}, b_k] that holds the t-th value:

    u_k = −max(t − c_k, c_{k−1} − t, 0),  c_{−1} = 0,

0 for the candidate whose cell holds the target rank, and minus the distance
in rows to it otherwise (the grid analogue of Smith 2011's intervals between
order statistics). Replacing one row moves every c_k by at most 1, so each
term, and their maximum, by at most 1: Δu = 1, and P(k) ∝ exp(ε·u_k/2) is ε-DP
(McSherry–Talwar 2007) and, having bounded range ε, ε²/8-zCDP (Cesar–Rogers,
ALT 2021). Unlike −|c_k − t|, the utility of the spec's first draft (§18.1),
it has no tie between the right candidate and those above the largest value
when a grid step jumps over the target rank: those get −(n − t).

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

from skprivcov.mechanisms.noise._discrete import _uniform_below, bernoulli_exp, words_of

__all__ = [
    "norm_grid",
    "private_box",
    "private_norm_bound",
    "private_quantile",
    "quantile_epsilon",
    "quantile_rank_error",
    "signed_grid",
    "target_ranks",
]

# The default public range of a row norm in the data's units, and the steps
# per octave (2^{1/4}: 19% apart), §18.1.
NORM_RANGE = (2.0**-32, 2.0**32)
STEPS_PER_OCTAVE = 4


def norm_grid(low=NORM_RANGE[0], high=NORM_RANGE[1], steps=STEPS_PER_OCTAVE):
    """The public candidates of a non-negative scalar.

    They are 0, then low·2^{k/steps} for k = 0..K, the first at or above ``high`` last.

    Parameters
    ----------
    low, high : float
        0 < low < high, finite.
    steps : int
        Candidates per octave.

    Returns
    -------
    grid : ndarray of float64
        The candidates, ascending.
    """
    if not (0.0 < low < high < math.inf):
        raise ValueError(
            f"The bound range must satisfy 0 < low < high < inf; got ({low!r}, "
            f"{high!r})."
        )
    top = math.ceil(steps * math.log2(high / low) - 1e-9)
    return np.concatenate(([0.0], low * 2.0 ** (np.arange(top + 1) / steps)))


def quantile_epsilon(budget):
    """The exponential mechanism's ε for a budget part.

    ε itself for a pure budget; for ρ-zCDP, ε = √(8ρ), since its bounded range gives
    ε²/8-zCDP (Cesar–Rogers 2021; docs/algorithms.rst §18.1).

    Parameters
    ----------
    budget : PrivacyCost
        A pure or zCDP budget part.

    Returns
    -------
    epsilon : float
        The ε of the exponential mechanism.
    """
    # Rounded down (by 2^−50, more than the few ulps of the float products
    # that made the part): the mechanism then spends at most its part.
    if budget.notion == "pure":
        return float(budget.parameter) * (1.0 - 2.0**-50)
    return math.sqrt(8.0 * budget.parameter) * (1.0 - 2.0**-50)


def quantile_rank_error(n_candidates, epsilon, beta):
    """The rank error r = 2·ln(K/β)/ε of the exponential mechanism.

    With probability at least 1 − β the chosen candidate's utility is at least
    −2·ln(K/β)/ε (K candidates; McSherry–Talwar): its cell is within that many rows of
    the target rank.

    Parameters
    ----------
    n_candidates : int
        The number K of candidates.
    epsilon : float
        The ε of the exponential mechanism.
    beta : float
        The failure probability β.

    Returns
    -------
    error : float
        The rank error 2·ln(K/β)/ε.
    """
    return 2.0 * math.log(n_candidates / beta) / epsilon


def private_quantile(counts, target, epsilon, rng):
    """The index of the chosen candidate, by the exponential mechanism.

    Parameters
    ----------
    counts : array-like of int, shape (K,)
        The counts c_k = #{i : s_i ≤ b_k}, non-decreasing.
    target : Fraction, int or float
        The target rank t = q·n (public).
    epsilon : float
        The ε > 0 of the exponential mechanism (see :func:`quantile_epsilon`).
    rng : numpy.random.Generator
        ``release_generator``'s (its ``secure`` flag picks the OS CSPRNG).

    Returns
    -------
    index : int
        The chosen candidate's index in the counts.
    """
    counts = np.asarray(counts, dtype=np.int64)
    target = Fraction(target)
    # u_k = −max(t − c_k, c_{k−1} − t, 0) exactly (c_{−1} = 0); the gaps
    # u* − u_k ≥ 0 and γ_k = ε·gap_k/2.
    below = [0, *counts[:-1].tolist()]
    distances = [
        max(target - int(c), int(b) - target, Fraction(0))
        for c, b in zip(counts, below, strict=True)
    ]
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


# The failure probability of a private norm bound: the chance that a bound
# above every row norm, up to 2^32, is chosen is at most this. Small, since
# such a bound makes a release useless; it costs 2·ln(1/β)/ε rows of margin
# (about 28/ε rows here against 6/ε at β = 0.05).
_BOUND_BETA = 1e-6


# The rank a fixed-bound mechanism's private bound aims at where the noise
# dominates, as a fraction of n (docs/algorithms.rst §18.2, set by
# measurement): clipping at b trades the mass beyond b against noise ∝ b².
FIXED_BOUND_QUANTILE = 0.6
# ... which is where the public noise level of the release, times d, is at
# least this: the noise's operator norm is then a sizeable part of the mean
# eigenvalue 1/d of a covariance of trace 1 (rows near the bound). Below it
# the bias of clipping 40% of the rows costs more than the noise it saves
# (up to 100× on well-spread synthetic rows at n = 10⁴).
NOISY_AT = 0.25


def private_norm_bound(
    counts,
    grid,
    n_samples,
    budget,
    rng,
    *,
    beta=_BOUND_BETA,
    fallback="low",
    quantile=None,
):
    """Private upper bound on the row norms, on a public grid (§18.2).

    The quantile of :func:`private_quantile` at the target rank t = n − r,
    r = 2·ln(K/β)/ε its rank error at β = 10^−6: with probability at least
    1 − β the chosen cell is within r rows of t, so at most 2r rows lie above
    the bound, and the candidates above the largest norm (utility −r each)
    are chosen together with probability at most β. A rule of public values
    (n, K, the budget) [choice].

    Where the share cannot buy that accuracy (n ≤ 2r: the exponential
    mechanism would be nearly uniform over the grid, up to 2^32), a public
    candidate is returned without looking at the counts: by default the
    smallest positive one, so that a covariance release is near zero, near
    releasing nothing, never a bound far above the data; ``fallback="high"``
    returns the largest, for a consumer that a bound far below the data
    harms more (a ridge model, whose penalty grows with the noise of a large
    bound but whose coefficients blow up when every row is clipped to a tiny
    sphere). A chosen bound of 0 (all rows zero) becomes the smallest
    positive candidate (post-processing).

    Parameters
    ----------
    counts : ndarray of int
        The counts c_k = #{i : ‖x_i‖ ≤ grid[k]}
        (``skprivcov._data._statistics.row_norm_counts``).
    grid : ndarray of float
        The public candidates (:func:`norm_grid`), ascending.
    n_samples : int
        The number of rows n (public).
    budget : PrivacyCost
        The part spent: pure ε, or ρ for ε = √(8ρ) (:func:`quantile_epsilon`).
    rng : numpy.random.Generator
        The only source of noise.
    beta : float, default=1e-6
        The failure probability of the rank rule.
    fallback : {"low", "high"}, default="low"
        The public candidate returned when n ≤ 2r.
    quantile : float in (0, 1) or None, default=None
        Aim at the rank min(n − r, quantile·n) instead of n − r: a lower
        quantile, for a mechanism that uses the bound as its clipping
        threshold (:data:`FIXED_BOUND_QUANTILE`); None for one that runs its
        own threshold search inside a loose bound (AdaptiveCov, §3.5).

    Returns
    -------
    bound : float
        The chosen candidate, positive.
    """
    epsilon = quantile_epsilon(budget)
    margin = quantile_rank_error(grid.size, epsilon, beta)
    if n_samples <= 2.0 * margin:
        return float(grid[1] if fallback == "low" else grid[-1])
    target = n_samples - Fraction(margin)
    if quantile is not None:
        target = min(target, Fraction(quantile) * n_samples)
    index = private_quantile(counts, target, epsilon, rng)
    return float(grid[max(index, 1)])


def signed_grid(bound_range=NORM_RANGE):
    """The public candidates of a signed scalar (§18.1).

    The mirror image of the geometric grid ``norm_grid(*bound_range)``, ∪ {0};
    ascending.

    Parameters
    ----------
    bound_range : tuple (low, high), default=(2^-32, 2^32)
        The range of the magnitudes.

    Returns
    -------
    grid : ndarray of float64
        The candidates, ascending.
    """
    positive = norm_grid(*bound_range)[1:]
    return np.concatenate((-positive[::-1], [0.0], positive))


# The failure probability behind the margin of the target ranks.
_MARGIN_BETA = 0.05


def target_ranks(quantiles, n_samples, n_candidates, epsilon, beta=_MARGIN_BETA):
    """The public target ranks (t_low, t_high) of a box's two quantiles.

    t = q·n, moved inward to at least m = 2·ln(K/β)/ε rows (β = 0.05) from
    either end, and never past n/2 (:func:`quantile_rank_error`). Why: every
    candidate below the smallest value (or above the largest) has the same
    utility −t (or −(n − t)), and there are up to K/2 of them, so with fewer
    than m rows between the target and the end the mechanism's choice spreads
    over the whole (up to 2^32) tail of the grid; at m their total weight is at
    most β times the right candidate's. A function of public values only.
    """
    low, high = quantiles
    margin = quantile_rank_error(n_candidates, epsilon, beta)
    half = n_samples / 2.0
    t_low = min(max(low * n_samples, margin), half)
    t_high = max(min(high * n_samples, n_samples - margin), half)
    return Fraction(t_low), Fraction(t_high)


def private_box(counts, grid, quantiles, n_samples, epsilon, rng, beta=_MARGIN_BETA):
    """Two private quantiles (lower, upper) of one scalar on ``grid`` (§18.1).

    Each by :func:`private_quantile` at ``epsilon``, from its counts c_k = #{i : s_i ≤
    grid[k]}.

    The chosen candidate k names the cell (grid[k − 1], grid[k]] that holds
    the target rank, so the box is taken from the cells' outer edges:
    lower = grid[i − 1], upper = grid[k] (post-processing; a grid step is 19%
    of the magnitude, too coarse to give away for a feature far from 0). The
    pair is put in order, so the box is never empty. ``beta`` bounds the
    chance that an edge lands beyond the data (see :func:`target_ranks`).

    Parameters
    ----------
    counts : ndarray of int
        The counts c_k, non-decreasing.
    grid : ndarray of float
        The public candidates, ascending.
    quantiles : tuple (q_low, q_high)
        The two quantiles of the box.
    n_samples : int
        The number of rows n (public).
    epsilon : float
        The ε of each quantile: the box costs 2ε in all (basic composition).
    rng : numpy.random.Generator
        The only source of noise.
    beta : float, default=0.05
        The chance that an edge lands beyond the data.

    Returns
    -------
    lower : float
        The lower edge.
    upper : float
        The upper edge, at least ``lower``.
    """
    t_low, t_high = target_ranks(quantiles, n_samples, grid.size, epsilon, beta)
    i = private_quantile(counts, t_low, epsilon, rng)
    k = private_quantile(counts, t_high, epsilon, rng)
    i, k = min(i, k), max(i, k)
    if i == 0:
        i, k = 1, max(k, 1)
    return float(grid[i - 1]), float(grid[k])
