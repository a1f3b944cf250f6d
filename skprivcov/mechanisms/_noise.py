"""Noise primitives (docs/algorithms.rst §0.1), vectorised."""

import numpy as np

from skprivcov._symmetric import mirror_upper, row_blocks

__all__ = ["symmetric_from_upper", "symmetric_noise"]

_DRAWS = {
    "gaussian": lambda rng, size: rng.standard_normal(size),
    "laplace": lambda rng, size: rng.laplace(0.0, 1.0, size),
}


def symmetric_noise(n_features, scale, rng, *, distribution):
    """A symmetric d×d noise matrix: SGW(d) or SLW(d) times ``scale``.

    One independent draw for each of the d(d+1)/2 coordinates on and above the
    diagonal, mirrored below it (docs/algorithms.rst §0.1).

    Parameters
    ----------
    n_features : int
        d.
    scale : float
        Standard deviation (Gaussian) or Laplace scale b of every free entry.
    rng : numpy.random.Generator
        The only source of randomness.
    distribution : {"gaussian", "laplace"}
        N(0, 1) or Lap(1) entries before scaling.

    Returns
    -------
    noise : ndarray of shape (n_features, n_features)
        Exactly symmetric.
    """
    values = _DRAWS[distribution](rng, n_features * (n_features + 1) // 2)
    values *= scale
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
