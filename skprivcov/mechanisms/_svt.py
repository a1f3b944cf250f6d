"""The sparse vector technique: AboveThreshold."""

import numpy as np

__all__ = ["above_threshold"]

# Query noise is drawn this many at a time, so a long query list is never
# materialised with its noise all at once (ALGORITHMS.md §1).
_CHUNK = 4096


def above_threshold(queries, threshold, epsilon, rng):
    """AboveThreshold (DLY22 Algorithm 3; Dwork & Roth Thm 3.23), ε-DP.

    T̃ = T + Lap(2/ε) is drawn once; each query gets its own Lap(4/ε) and the
    first one with q_k + Lap(4/ε) ≥ T̃ is reported. Only that index is
    released, so the cost is ε whatever the number of queries, provided each
    query has sensitivity at most 1 (they may be chosen using earlier private
    outputs).

    Parameters
    ----------
    queries : array-like of shape (n_queries,)
        Query values on the data, each of sensitivity ≤ 1.
    threshold : float
        The public threshold T.
    epsilon : float
        The privacy parameter ε.
    rng : numpy.random.Generator

    Returns
    -------
    index : int or None
        0-based index of the first query above the noisy threshold, or None.
    """
    queries = np.asarray(queries, dtype=float)
    noisy_threshold = threshold + rng.laplace(0.0, 2.0 / epsilon)
    for start in range(0, queries.size, _CHUNK):
        block = queries[start : start + _CHUNK]
        noisy = block + rng.laplace(0.0, 4.0 / epsilon, block.size)
        hits = np.flatnonzero(noisy >= noisy_threshold)
        if hits.size:
            return start + int(hits[0])
    return None
