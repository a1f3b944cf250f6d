"""A release's precision: eigenvalues floored at the public noise level (§15)."""

import numpy as np
from scipy import linalg

from skprivcov.mechanisms import noise_level

__all__ = ["eigenvalue_floor", "floored_inverse"]


def eigenvalue_floor(n_samples, n_features, budget):
    """The public floor of the eigenvalues behind ``precision_``, at unit scale.

    min(noise_level, 1/d) (docs/algorithms.rst §15): eigenvalues of a release
    below the noise level of its budget (:func:`skprivcov.mechanisms.noise_level`)
    carry no information, and 1/d, the mean eigenvalue of a covariance of trace
    1, is the largest an uninformed guess needs (a release of nothing gets the
    isotropic precision d·I). From public values only (n, d, budget).

    Parameters
    ----------
    n_samples : int
        The public number of rows.
    n_features : int
        The public number of features d.
    budget : PrivacyCost
        The budget of the release.

    Returns
    -------
    floor : float
        The floor at unit scale.
    """
    return min(noise_level(n_samples, n_features, budget), 1.0 / n_features)


def floored_inverse(covariance, floor):
    """Inverse of a release with its eigenvalues floored (post-processing).

    V diag(1/max(λ, floor)) Vᵀ for covariance = V diag(λ) Vᵀ; finite.

    Parameters
    ----------
    covariance : ndarray of shape (n_features, n_features)
        The symmetric release.
    floor : float
        The floor of the eigenvalues, > 0.

    Returns
    -------
    precision : ndarray of shape (n_features, n_features)
        The floored inverse.
    """
    values, vectors = linalg.eigh(covariance, check_finite=False)
    values = np.maximum(values, floor)
    return (vectors / values) @ vectors.T
