"""The sparse vector technique: AboveThreshold, with exact comparisons."""

from fractions import Fraction

import numpy as np

from skprivcov.mechanisms.noise._float import additive_noise
from skprivcov.mechanisms.noise._hardened import grid_laplace, is_hardened
from skprivcov.privacy import PrivacyCost

__all__ = ["above_threshold"]

# Query noise is drawn this many at a time, so a long query list is never
# materialised with its noise all at once (docs/algorithms.rst §1).
_CHUNK = 4096
# Float sums q + ν are within a relative 2^−52 of the exact ones: anything the
# float screen puts this far below the threshold is below it exactly.
_SCREEN = 1e-12


def above_threshold(queries, threshold, epsilon, rng):
    """AboveThreshold (DLY22 Algorithm 3; Dwork & Roth Thm 3.23), ε-DP.

    T̃ = T + Lap(2/ε) is drawn once; each query gets its own Lap(4/ε) and the
    first one with q_k + Lap(4/ε) ≥ T̃ is reported. Only that index is
    released, so the cost is ε whatever the number of queries, provided each
    query has sensitivity at most 1 (they may be chosen using earlier private
    outputs).

    The comparison q_k + ν_k ≥ T + ν_T is made **exactly**, in rational
    arithmetic, on the given query values and the drawn noises (floats are
    exact rationals). Rounding q_k + ν_k to a float first could move a
    comparison by an ulp of the larger term, i.e. make a query's difference
    between neighbours exceed its sensitivity (docs/algorithms.rst §13.6). Give
    queries whose data-dependent part is exact (integers, or
    :class:`fractions.Fraction`), and the sensitivity bound holds as proved.
    A float screen skips the queries that are far below the threshold.

    Parameters
    ----------
    queries : sequence of int, float or Fraction, of length n_queries
        Query values on the data, each of sensitivity ≤ 1, exact.
    threshold : float or Fraction
        The public threshold T.
    epsilon : float
        The privacy parameter ε.
    rng : numpy.random.Generator
        The only source of noise.

    Returns
    -------
    index : int or None
        0-based index of the first query above the noisy threshold, or None.
    """
    # The threshold's and the queries' noise spend ε together (one record
    # token for the noise calibration tests).
    budget, joint = PrivacyCost.pure(epsilon), object()
    threshold_noise = _laplace(2.0 / epsilon, 1, rng, "svt threshold", budget, joint)
    noisy_threshold = Fraction(threshold) + threshold_noise[1](0)
    level = float(noisy_threshold)
    for start in range(0, len(queries), _CHUNK):
        block = list(queries[start : start + _CHUNK])
        noise, exact_noise = _laplace(
            4.0 / epsilon, len(block), rng, "svt queries", budget, joint
        )
        approximate = np.array([float(q) for q in block]) + noise
        slack = _SCREEN * (np.abs(approximate) + np.abs(noise) + abs(level) + 1.0)
        for i in np.flatnonzero(approximate >= level - slack):
            if _exact(block[i]) + exact_noise(int(i)) >= noisy_threshold:
                return start + int(i)
    return None


def _laplace(scale, size, rng, site, budget, joint):
    """(noise as floats, noise i as an exact Fraction): Lap(scale) from numpy,
    or with hardened noise (§17) the discrete Laplace on a grid (exact as
    integers times the grid; the floats only screen)."""
    if not is_hardened(rng):
        noise = additive_noise(size, scale, budget, rng, site=site, joint=joint)
        return noise, lambda i: Fraction(float(noise[i]))
    draws, grid = grid_laplace(scale, size, rng, site=site, budget=budget, joint=joint)
    return draws * float(grid), lambda i: int(draws[i]) * grid


def _exact(value):
    """A query value as a Fraction of Python ints (numpy integers would keep
    their fixed width inside the Fraction and overflow)."""
    if isinstance(value, np.integer):
        return Fraction(int(value))
    if isinstance(value, np.floating):
        return Fraction(float(value))
    return Fraction(value)
