"""The per-feature normalisation step of a fit (docs/algorithms.rst §23).

``feature_scaling="private"`` spends the steps of ``SPLITS["feature
scaling"]`` on a private centre and scale of every feature
(:func:`~skprivcov.mechanisms.private_feature_scaling`); a public pair
(centre, scale) costs nothing; None leaves the rows as given. The release
then reads z = (x − c)/s (:meth:`ClippedData.normalised`), its norm bound
chosen in z's space, and maps back (:func:`to_raw_units`).
"""

import numpy as np

from skprivcov._compat import StrOptions
from skprivcov._data import Z_LIMIT
from skprivcov._fit._bounds import is_private_bound
from skprivcov._fit._constraints import NORM_BOUND_RANGE
from skprivcov.mechanisms import (
    NOISY_AT,
    noise_level,
    private_feature_scaling,
    split_budget,
)

__all__ = [
    "FEATURE_SCALING",
    "check_feature_scaling",
    "choose_feature_scaling",
    "scaling_mode",
    "to_raw_units",
    "z_limit",
]

FEATURE_SCALING = [StrOptions({"auto", "private"}), tuple, None]


def scaling_mode(feature_scaling, norm_bound):
    """ "private", "public" or None for the parameters (public values only).

    "auto" is "private" when the norm bound is private too (the rows' scale
    is unknown), else None: a public ``norm_bound`` bounds the rows as given.
    """
    if isinstance(feature_scaling, tuple):
        return "public"
    if feature_scaling == "auto":
        return "private" if is_private_bound(norm_bound) else None
    return feature_scaling


def _as_vector(value, n_features, name):
    try:
        vector = np.broadcast_to(np.asarray(value, dtype=np.float64), (n_features,))
    except (TypeError, ValueError):
        raise ValueError(
            f"feature_scaling's {name} must be a number or an array of "
            f"{n_features} numbers (one per feature)."
        ) from None
    return np.array(vector)


def check_feature_scaling(feature_scaling, n_features, assume_centered):
    """A public (centre, scale) pair as two float arrays of shape
    (n_features,), checked before the charge; None for the other modes."""
    if not isinstance(feature_scaling, tuple):
        return None
    if len(feature_scaling) != 2:
        raise ValueError("feature_scaling must be a pair (centre, scale).")
    centre = _as_vector(feature_scaling[0], n_features, "centre")
    scale = _as_vector(feature_scaling[1], n_features, "scale")
    low, high = NORM_BOUND_RANGE
    if not (np.isfinite(centre).all() and np.all(np.abs(centre) <= high)):
        raise ValueError(f"feature_scaling's centre must be finite, within ±{high:g}.")
    if not np.all((scale >= low) & (scale <= high)):
        raise ValueError(
            f"feature_scaling's scale must lie in [{low:g}, {high:g}] for every "
            "feature."
        )
    if assume_centered and np.any(centre != 0.0):
        raise ValueError(
            "With assume_centered=True the rows are not centred: "
            "feature_scaling's centre must be 0."
        )
    return centre, scale


def z_limit(n_samples, n_features, budget):
    """Where z = (x − c)/s is clipped (§23, step 2): ±Z_LIMIT (4) where the
    release is noisy, and further where it is not, by the public rule of the
    norm bound's quantile (§18.2): the clip trades a bias (a heavy tail's
    values winsorised) against noise, and a release of little noise has
    room for the values it would otherwise cut. With ℓ the noise level of
    the release's budget, 4·max(1, √(NOISY_AT/(ℓ·d))).

    Parameters
    ----------
    n_samples, n_features : int
        Public.
    budget : PrivacyCost
        What the release spends.

    Returns
    -------
    limit : float
        The clip of every normalised feature.
    """
    noisy = noise_level(n_samples, n_features, budget) * n_features
    return Z_LIMIT * max(1.0, (NOISY_AT / noisy) ** 0.5)


def choose_feature_scaling(mode, public, data, budget, rng, *, centred):
    """The normalisation step of a fit.

    Parameters
    ----------
    mode : {"private", "public", None}
        From :func:`scaling_mode`.
    public : tuple (centre, scale) or None
        From :func:`check_feature_scaling`.
    data : ClippedData
        The rows as given.
    budget : PrivacyCost
        The fit's budget.
    rng : numpy.random.Generator
        The only source of noise.
    centred : bool
        Whether a centre is released (the estimator centres).

    Returns
    -------
    data : ClippedData
        The rows the release reads: mapped, or as given.
    parts : tuple of BudgetPart
        The parts spent (none unless private).
    rest : PrivacyCost
        What is left for the release.
    centre, scale : ndarray or None
        The centre and scale (None when the rows are left as given).
    """
    if mode is None:
        return data, (), budget, None, None
    if mode == "public":
        centre, scale = public
        parts, rest = (), budget
        limit = np.full(data.n_features, Z_LIMIT)
    else:
        *parts, release = split_budget("feature scaling", budget, centred=centred)
        parts, rest = tuple(parts), release.cost
        centre, scale, limit = private_feature_scaling(
            data, parts, rng, n_features=data.n_features, centred=centred
        )
    # The release's own budget sets how far z may reach (a feature left as
    # given has limit inf, and keeps it).
    widest = z_limit(data.n_samples, data.n_features, rest)
    mapped = data.normalised(centre, scale, limit=limit * (widest / Z_LIMIT))
    return mapped, parts, rest, centre, scale


def to_raw_units(covariance, location, centre, scale):
    """Σ = diag(s) Σ_z diag(s) and μ = c + s∘μ_z (§23, step 3): the release
    of z mapped back to the units of the rows (post-processing)."""
    if scale is None:
        return covariance, location
    # One product per entry, by s_i·s_j (the same for (i, j) and (j, i)):
    # the release stays exactly symmetric.
    return covariance * np.outer(scale, scale), centre + scale * location
