"""Synthetic data of the papers' experiments."""

import numpy as np

from skprivcov._random import check_generator

__all__ = ["make_zipf_norms"]


def make_zipf_norms(n_samples, n_features, *, n_bins=1, skew=3.0, random_state=None):
    """The synthetic data of DLY22 §6.1: mixed Gaussians with Zipf row norms.

    X = Z·U with Z ~ N(0, 1)^{n×d} and U ~ U(0, 1)^{d×d} (the construction of
    ADK19), centred, then every row rescaled to a prescribed norm: the rows are
    split into ``n_bins`` bins, bin k (k = 1..N) holding a share ∝ 1/k^s of
    them, all of norm 2^{k−N}. ``n_bins=1`` gives unit rows (trace 1); more
    bins give a skewed distribution of norms with most rows small.

    Parameters
    ----------
    n_samples, n_features : int
        n and d.
    n_bins : int, default=1
        N, the number of norm bins.
    skew : float, default=3.0
        s, the Zipf exponent (DLY22 fix s = 3).
    random_state : int, Generator or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Rows of norm at most 1; the largest norm is 1 (if bin N is not empty).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.datasets import make_zipf_norms
    >>> X = make_zipf_norms(1000, 5, n_bins=4, random_state=0)
    >>> np.unique(np.linalg.norm(X, axis=1).round(3))
    array([0.125, 0.25 , 0.5  , 1.   ])
    """
    if n_bins < 1 or n_samples < 1 or n_features < 1:
        raise ValueError("n_samples, n_features and n_bins must be at least 1.")
    rng = check_generator(random_state)
    mixed = rng.standard_normal((n_samples, n_features)) @ rng.uniform(
        size=(n_features, n_features)
    )
    mixed -= mixed.mean(axis=0)
    weights = np.arange(1, n_bins + 1, dtype=float) ** -skew
    shares = n_samples * weights / weights.sum()
    counts = np.floor(shares).astype(int)
    # Hand the rows lost to rounding to the bins with the largest remainders.
    counts[np.argsort(counts - shares)[: n_samples - counts.sum()]] += 1
    norms = np.repeat(2.0 ** (np.arange(1, n_bins + 1) - n_bins), counts)
    return mixed * (norms / np.linalg.norm(mixed, axis=1))[:, None]
