"""Noise primitives (docs/algorithms.rst §0.1), vectorised."""

import numpy as np

from skprivcov._data import mirror_upper, row_blocks
from skprivcov.mechanisms.noise._record import record_noise

__all__ = ["additive_noise", "symmetric_from_upper", "symmetric_noise"]

_DRAWS = {
    "gaussian": lambda rng, size: rng.standard_normal(size),
    "laplace": lambda rng, size: rng.laplace(0.0, 1.0, size),
}


def _redraw(distribution, scale):
    """More draws of the same law and scale, for a noise record."""
    return lambda count, rng: _DRAWS[distribution](rng, count) * scale


def additive_noise(size, scale, budget, rng, *, site, joint=None):
    """Draw numpy's noise for ``budget`` (the float path).

    N(0, scale²) for a zCDP budget, Lap(scale) for a pure one (docs/algorithms.rst
    §0.1), ``size`` draws (a float for None). The float path of every noised vector or
    scalar; ``site`` and ``joint`` describe the draw for a noise record
    (``_noise_record``).

    Parameters
    ----------
    size : int, tuple of int or None
        The shape of the draws; None for one float.
    scale : float
        The standard deviation (Gaussian) or Laplace scale b.
    budget : PrivacyCost
        A zCDP or pure cost: the law of the noise.
    rng : numpy.random.Generator
        The only source of randomness.
    site : str
        Which statistic this is (``_noise_record.SITES``).
    joint : object, default=None
        A token shared by the records of draws that spend one budget together.

    Returns
    -------
    noise : ndarray or float
        The draws.
    """
    if budget.notion == "zcdp":
        distribution = "gaussian"
        noise = rng.standard_normal(size) * scale
    else:
        distribution = "laplace"
        noise = rng.laplace(0.0, scale, size)
    record_noise(site, budget, False, noise, _redraw(distribution, scale), joint)
    return noise


def symmetric_noise(
    n_features,
    scale,
    rng,
    *,
    distribution,
    site="second moment",
    budget=None,
    joint=None,
):
    """A symmetric d×d noise matrix: SGW(d) or SLW(d) times ``scale``.

    One independent draw for each of the d(d+1)/2 coordinates on and above the
    diagonal, mirrored below it (docs/algorithms.rst §0.1).

    Parameters
    ----------
    n_features : int
        The dimension d.
    scale : float
        Standard deviation (Gaussian) or Laplace scale b of every free entry.
    rng : numpy.random.Generator
        The only source of randomness.
    distribution : {"gaussian", "laplace"}
        N(0, 1) or Lap(1) entries before scaling.
    site : str, default="second moment"
        Which statistic this is, for a noise record (``_noise_record``).
    budget : PrivacyCost, default=None
        What the draw spends, for a noise record.
    joint : object, default=None
        A token shared by the records of draws that spend one budget together.

    Returns
    -------
    noise : ndarray of shape (n_features, n_features)
        Exactly symmetric.
    """
    values = _DRAWS[distribution](rng, n_features * (n_features + 1) // 2)
    values *= scale
    record_noise(site, budget, False, values, _redraw(distribution, scale), joint)
    return symmetric_from_upper(values, n_features)


def symmetric_from_upper(values, d):
    """The symmetric d×d matrix whose upper triangle, row by row, is ``values``
    (d(d+1)/2 of them, of any dtype)."""
    # The values fill the upper triangle row by row (row i gets d − i of them),
    # a block of rows at a time; then the lower triangle mirrors it.
    matrix = np.empty((d, d), dtype=values.dtype)
    used = 0
    for start, stop in row_blocks(d):
        # Row start + i keeps the columns j ≥ start + i.
        upper = ~np.tri(stop - start, d, start - 1, dtype=bool)
        count = (stop - start) * d - (start + stop - 1) * (stop - start) // 2
        matrix[start:stop][upper] = values[used : used + count]
        used += count
    return mirror_upper(matrix)
