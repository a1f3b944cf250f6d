"""The one place that decides how additive noise is drawn (§0.1, §17).

A mechanism states the statistic, its sensitivity, the budget and what the draw
is (``site``); these functions pick the path: hardened noise when the release
generator asks for it (exact discrete noise, on the statistic's integers when
it is an exact statistic of §19, on a grid otherwise), numpy's float noise
else. A mechanism that noises a second moment or a vector through them cannot
skip the hardened path.
"""

import numpy as np

from skprivcov.mechanisms._hardened import (
    hardened_noise,
    hardened_second_moment,
    is_hardened,
)
from skprivcov.mechanisms._noise import additive_noise, symmetric_noise
from skprivcov.mechanisms._sensitivity import gaussian_scale, laplace_scale

__all__ = ["noisy_second_moment", "noisy_vector", "plain_scale"]


def plain_scale(sensitivity, budget):
    """σ = Δ₂/√(2ρ) for a zCDP budget, b = Δ₁/ε for a pure one (§0.1)."""
    if budget.notion == "zcdp":
        return gaussian_scale(sensitivity, budget.rho)
    return laplace_scale(sensitivity, budget.parameter)


def noisy_second_moment(
    matrix, n_samples, sensitivity, budget, rng, *, site, n_releases=1, joint=None
):
    """A symmetric statistic plus noise on its upper triangle: Gaussian for a
    zCDP budget (ℓ2 ``sensitivity``), Laplace for a pure one (ℓ1).

    Parameters
    ----------
    matrix : ndarray or ExactStatistic of shape (d, d)
    n_samples : int
        The public n (for the float error of a float matrix, §17).
    sensitivity : float
    budget : PrivacyCost
        Spent in full by this draw (or, with ``joint``, together with the
        other draws of the joint release).
    rng : numpy.random.Generator
        ``release_generator``'s: it says hardened or float.
    site : str
        Which statistic this is (``_noise_record.SITES``).
    n_releases : int, default=1
        Statistics that share the sensitivity on one grid (LDA's class sums).
    joint : object, default=None

    Returns
    -------
    release : ndarray of shape (d, d), exactly symmetric
    """
    if is_hardened(rng):
        return hardened_second_moment(
            matrix,
            n_samples,
            sensitivity,
            budget,
            rng,
            n_releases,
            site=site,
            joint=joint,
        )
    distribution = "gaussian" if budget.notion == "zcdp" else "laplace"
    noise = symmetric_noise(
        matrix.shape[0],
        plain_scale(sensitivity, budget),
        rng,
        distribution=distribution,
        site=site,
        budget=budget,
        joint=joint,
    )
    return np.asarray(matrix) + noise


def noisy_vector(values, sensitivity, budget, rng, *, site, statistic_error=0.0):
    """A vector statistic plus Gaussian (zCDP, ℓ2) or Laplace (pure, ℓ1) noise.
    ``statistic_error`` bounds the float error of a float ``values`` (in the
    sensitivity's norm) for the hardened path; an exact statistic has none."""
    if is_hardened(rng):
        return hardened_noise(
            values,
            sensitivity,
            budget,
            rng,
            statistic_error=statistic_error,
            site=site,
        )
    scale = plain_scale(sensitivity, budget)
    return np.asarray(values) + additive_noise(
        values.size, scale, budget, rng, site=site
    )
