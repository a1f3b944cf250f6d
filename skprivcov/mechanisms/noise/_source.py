"""The one place that decides how additive noise is drawn (§0.1, §17).

A mechanism states the statistic, its sensitivity, the budget and what the draw
is (``site``); these functions pick the path: hardened noise when the release
generator asks for it (exact discrete noise, on the statistic's integers when
it is an exact statistic of §19, on a grid otherwise), numpy's float noise
else. A mechanism that noises a second moment or a vector through them cannot
skip the hardened path.
"""

import math
from fractions import Fraction

import numpy as np

from skprivcov.mechanisms._sensitivity import gaussian_scale, laplace_scale
from skprivcov.mechanisms.noise._discrete import discrete_gaussian_variance
from skprivcov.mechanisms.noise._float import additive_noise, symmetric_noise
from skprivcov.mechanisms.noise._hardened import (
    exact_noise_plan,
    hardened_noise,
    hardened_second_moment,
    is_hardened,
)

__all__ = [
    "exact_noise_law",
    "noisy_scalar",
    "noisy_second_moment",
    "noisy_vector",
    "plain_scale",
]


def plain_scale(sensitivity, budget):
    """The scale of the plain mechanism (§0.1).

    σ = Δ₂/√(2ρ) for a zCDP budget, b = Δ₁/ε for a pure one.

    Parameters
    ----------
    sensitivity : float
        The ℓ2 (zCDP) or ℓ1 (pure) sensitivity.
    budget : PrivacyCost
        A zCDP or pure cost.

    Returns
    -------
    scale : float
        The σ or b.
    """
    if budget.notion == "zcdp":
        return gaussian_scale(sensitivity, budget.rho)
    return laplace_scale(sensitivity, budget.parameter)


def noisy_second_moment(
    matrix, n_samples, sensitivity, budget, rng, *, site, n_releases=1, joint=None
):
    """A symmetric statistic plus noise on its upper triangle.

    Gaussian for a zCDP budget (ℓ2 ``sensitivity``), Laplace for a pure one (ℓ1).

    Parameters
    ----------
    matrix : ndarray or ExactStatistic of shape (d, d)
        The symmetric statistic.
    n_samples : int
        The public n (for the float error of a float matrix, §17).
    sensitivity : float
        Its ℓ2 (zCDP) or ℓ1 (pure) sensitivity.
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
        A token shared by the records of draws that spend one budget together.

    Returns
    -------
    release : ndarray of shape (d, d)
        The noisy statistic, exactly symmetric.
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
    sensitivity's norm) for the hardened path; an exact statistic has none.

    Parameters
    ----------
    values : ndarray or Fraction
        The statistic.
    sensitivity : float
        Its ℓ2 (zCDP) or ℓ1 (pure) sensitivity.
    budget : PrivacyCost
        Spent in full by this draw.
    rng : numpy.random.Generator
        ``release_generator``'s: it says hardened or float.
    site : str
        Which statistic this is (``_noise_record.SITES``).
    statistic_error : float, default=0.0
        The public bound on the float error of ``values``.

    Returns
    -------
    release : ndarray or float
        ``values`` plus the noise.
    """
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


def noisy_scalar(value, sensitivity, budget, rng, *, site, statistic_error=0.0):
    """One number plus Gaussian (zCDP, ℓ2) or Laplace (pure, ℓ1) noise.

    The scalar case of :func:`noisy_vector`: a private selection's score, a
    ridge model's private target mean. With hardened noise an exact
    ``Fraction`` is rounded to the grid exactly; a float is noised as a
    vector of one entry, with ``statistic_error`` its public float error.

    Parameters
    ----------
    value : float or Fraction
        The statistic.
    sensitivity : float
        Its ℓ2 (zCDP) or ℓ1 (pure) sensitivity.
    budget : PrivacyCost
        Spent in full by this draw.
    rng : numpy.random.Generator
        ``release_generator``'s: it says hardened or float.
    site : str
        Which statistic this is (``_record.SITES``).
    statistic_error : float, default=0.0
        The public bound on the float error of ``value`` (hardened path).

    Returns
    -------
    release : float
        ``value`` plus the noise.
    """
    if is_hardened(rng):
        if isinstance(value, Fraction):
            return float(
                hardened_noise(
                    value,
                    sensitivity,
                    budget,
                    rng,
                    statistic_error=statistic_error,
                    site=site,
                )
            )
        noisy = hardened_noise(
            np.array([value]),
            sensitivity,
            budget,
            rng,
            statistic_error=statistic_error,
            site=site,
        )
        return float(noisy[0])
    scale = plain_scale(sensitivity, budget)
    return float(value) + float(additive_noise(None, scale, budget, rng, site=site))


def exact_noise_law(sensitivity, budget, *, hardened, denominator=1, coordinates=1):
    """The public law (σ, g) of the noise on an exact integer statistic.

    The noise :func:`noisy_vector` adds to an ``ExactStatistic`` (integers
    over ``denominator``) at a zCDP budget. On the hardened path (§17, §19)
    each integer is rounded down to the grid G (a power of two, 1 unless the
    scale exceeds 2^48 units) and gets G·K with K discrete Gaussian of
    variance parameter σ_Z² = T(T − 1), T = ⌈u⌉ + 1 for the plan's scale u
    in grid units (:func:`~skprivcov.mechanisms.discrete_gaussian`): in the
    statistic's units σ = G·σ_Z/denominator and g = G/denominator. On the
    float path the noise is N(0, σ²) with σ the plain scale, and g = 0 (no
    rounding). Public: a function of the sensitivity, the budget, the
    denominator and the path.

    Parameters
    ----------
    sensitivity : float
        The ℓ2 sensitivity of the integer statistic.
    budget : PrivacyCost
        A zCDP cost.
    hardened : bool
        The path: hardened (``noise="hardened"``) or float.
    denominator : int, default=1
        The statistic's denominator (its integers' unit is 1/denominator).
    coordinates : int, default=1
        The number of coordinates noised together (the grid's rounding
        spread; irrelevant while g = 1).

    Returns
    -------
    deviation : float
        The σ: the deviation parameter of each coordinate's noise.
    grid : float
        The g: the grid the statistic is rounded down to (0 on the float path).
    """
    if budget.notion != "zcdp":
        raise ValueError("exact_noise_law describes Gaussian (zCDP) noise only.")
    if not hardened:
        return plain_scale(sensitivity, budget), 0.0
    plan = exact_noise_plan(sensitivity * denominator, budget, coordinates)
    _, variance = discrete_gaussian_variance(plan.units)
    unit = plan.grid / denominator
    return unit * math.sqrt(variance), unit
