"""Synthetic data of the papers' experiments."""

import numbers

import numpy as np

__all__ = ["make_adk19", "make_zipf_norms"]


def check_generator(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    For what releases nothing (synthetic data). ``None`` seeds a new generator
    from OS entropy; an int seeds ``default_rng``; a Generator is used as is
    (and so is advanced); a legacy ``RandomState`` is consumed for a 128-bit
    seed.
    """
    if random_state is None or isinstance(random_state, numbers.Integral):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int.from_bytes(random_state.bytes(16), "little"))
    raise TypeError(
        "random_state must be None, an int, a numpy Generator or RandomState; "
        f"got {type(random_state).__name__}."
    )


def _check_sizes(**sizes):
    """Refuse non-integer or non-positive sizes, naming the offending argument."""
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise TypeError(f"{name} must be an int, got {value!r}.")
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}.")


def _mixed_gaussians(n_samples, n_features, rng):
    """Z·U, Z ~ N(0, 1)^{n×d}, U ~ U(0, 1)^{d×d}: ADK19 Alg. 3 step 1 (rows are
    points; the paper writes U·X with points as columns). U correlates the
    features."""
    return rng.standard_normal((n_samples, n_features)) @ rng.uniform(
        size=(n_features, n_features)
    )


def _unit_rows(X):
    """Every row scaled to norm 1 (a zero row, probability 0, is left at 0)."""
    norms = np.linalg.norm(X, axis=1)
    return X / np.where(norms > 0, norms, 1.0)[:, None]


def adk19_normalize(X):
    """Normalize() of ADK19 Alg. 3: standardised features, then unit rows.

    The paper asks every point to have "mean 0, variance 1 and L2-norm 1",
    which no vector of dimension d > 1 satisfies at once (mean 0 and variance 1
    give norm √d). We read the first two conditions over the points, per
    feature (centre, then unit variance), and the third per point, which is
    what the sensitivity analysis needs (‖x‖ ≤ 1); DLY22 §7.1 reads the
    generator the same way. This looks at the data: it prepares benchmark
    data, it is not a private preprocessing step.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.

    Returns
    -------
    X_normalized : ndarray of shape (n_samples, n_features)
        Standardised features, then rows of norm 1.
    """
    X = np.asarray(X, dtype=float)
    X = X - X.mean(axis=0)
    scale = X.std(axis=0)
    return _unit_rows(X / np.where(scale > 0, scale, 1.0))


def make_adk19(n_samples, n_features, *, random_state=None):
    """The synthetic data of ADK19 (App. C.1, Algorithm 3): unit-norm rows.

    X = Z·U with Z ~ N(0, 1)^{n×d} and U ~ U(0, 1)^{d×d}, then Normalize():
    each feature centred and scaled to unit variance, then each row scaled to
    norm 1, so the trace of XᵀX/n is exactly 1. See :func:`adk19_normalize`
    for how the paper's Normalize() is read.

    Parameters
    ----------
    n_samples : int
        The number of rows n (ADK19 use 1000, 10000 and 50000).
    n_features : int
        The number of features d (ADK19 use 10 and 100).
    random_state : int, Generator or None, default=None
        Seed of the draws of Z and U.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Rows of norm 1.

    See Also
    --------
    make_zipf_norms : The DLY22 variant, with rows of Zipf-distributed norms.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.datasets import make_adk19
    >>> X = make_adk19(500, 10, random_state=0)
    >>> bool(np.allclose(np.linalg.norm(X, axis=1), 1.0))
    True
    >>> float(np.trace(X.T @ X / len(X))).__round__(12)
    1.0
    """
    _check_sizes(n_samples=n_samples, n_features=n_features)
    rng = check_generator(random_state)
    return adk19_normalize(_mixed_gaussians(n_samples, n_features, rng))


def make_zipf_norms(n_samples, n_features, *, n_bins=1, skew=3.0, random_state=None):
    """The synthetic data of DLY22 §6.1: mixed Gaussians with Zipf row norms.

    X = Z·U with Z ~ N(0, 1)^{n×d} and U ~ U(0, 1)^{d×d} (the construction of
    ADK19), centred, then every row rescaled to a prescribed norm: the rows are
    split into ``n_bins`` bins, bin k (k = 1..N) holding a share ∝ 1/k^s of
    them, all of norm 2^{k−N}. ``n_bins=1`` gives unit rows (trace 1); more
    bins give a skewed distribution of norms with most rows small.

    Parameters
    ----------
    n_samples : int
        The number of rows n.
    n_features : int
        The number of features d.
    n_bins : int, default=1
        N, the number of norm bins.
    skew : float, default=3.0
        The Zipf exponent s (DLY22 fix s = 3).
    random_state : int, Generator or None, default=None
        Seed of the draws of Z and U.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Rows of norm at most 1; the largest norm is 1 (if bin N is not empty).

    See Also
    --------
    make_adk19 : The ADK19 generator, unit rows of standardised features.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.datasets import make_zipf_norms
    >>> X = make_zipf_norms(1000, 5, n_bins=4, random_state=0)
    >>> np.unique(np.linalg.norm(X, axis=1).round(3))
    array([0.125, 0.25 , 0.5  , 1.   ])
    """
    _check_sizes(n_samples=n_samples, n_features=n_features, n_bins=n_bins)
    if not skew >= 0:
        raise ValueError(f"skew must be a number >= 0, got {skew!r}.")
    rng = check_generator(random_state)
    mixed = _mixed_gaussians(n_samples, n_features, rng)
    mixed -= mixed.mean(axis=0)
    weights = np.arange(1, n_bins + 1, dtype=float) ** -skew
    shares = n_samples * weights / weights.sum()
    counts = np.floor(shares).astype(int)
    # Hand the rows lost to rounding to the bins with the largest remainders.
    counts[np.argsort(counts - shares)[: n_samples - counts.sum()]] += 1
    norms = np.repeat(2.0 ** (np.arange(1, n_bins + 1) - n_bins), counts)
    return _unit_rows(mixed) * norms[:, None]
