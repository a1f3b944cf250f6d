"""Noise primitives (ALGORITHMS.md §0.1), vectorised."""

import numpy as np

__all__ = ["symmetric_noise"]

_DRAWS = {
    "gaussian": lambda rng, size: rng.standard_normal(size),
    "laplace": lambda rng, size: rng.laplace(0.0, 1.0, size),
}


def symmetric_noise(n_features, scale, rng, *, distribution):
    """A symmetric d×d noise matrix: SGW(d) or SLW(d) times ``scale``.

    One independent draw for each of the d(d+1)/2 coordinates on and above the
    diagonal, mirrored below it (ALGORITHMS.md §0.1).

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
    upper = np.triu_indices(n_features)
    values = _DRAWS[distribution](rng, upper[0].size)
    values *= scale
    noise = np.empty((n_features, n_features))
    noise[upper] = values
    noise.T[upper] = values
    return noise
