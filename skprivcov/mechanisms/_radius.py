"""PrivRadius: a private, dyadic upper bound on the largest row norm."""

import math

import numpy as np

from skprivcov.mechanisms._svt import above_threshold
from skprivcov.privacy import PrivacyCost

__all__ = ["private_radius_exponent"]


def private_radius_exponent(exponents, counts, epsilon, beta, levels, rng):
    """Run PrivRadius (docs/algorithms.rst §2.2, a reconstruction of Dong & Yi), ε-DP.

    Candidate radii r_k = 2^{k−L}, k = 0..L, are searched with AboveThreshold
    on the queries q_k = −A_k, A_k = #{i : ‖z_i‖ > r_k} (counts, sensitivity 1),
    against T = −2α with α = (6/ε)·log(2(L+1)/β). Everything stays in integer
    exponents, so nothing underflows. With probability ≥ 1 − β the result r̃
    satisfies rad ≤ r̃ ≤ max(2·rad, 2^{−L}) and at most 3α rows lie above it.

    Parameters
    ----------
    exponents : ndarray of int
        Distinct values of e_i = ⌈log₂‖z_i‖⌉ for the non-zero rows (‖z_i‖ ≤ 1).
    counts : ndarray of int
        Number of rows with each exponent.
    epsilon : float
        The privacy parameter ε.
    beta : float
        Failure probability.
    levels : int
        L ≥ 1: the smallest candidate is 2^{−L}.
    rng : numpy.random.Generator
        The only source of noise.

    Returns
    -------
    exponent : int
        The exponent e ≤ 0 with r̃ = 2^e.
    spent : PrivacyCost
        Pure ε.
    """
    candidates = np.arange(-levels, 1)  # k − L for k = 0..L
    # ‖z‖ > 2^t ⇔ ⌈log₂‖z‖⌉ > t for an integer t: exact, no logarithms.
    above = (exponents[None, :] > candidates[:, None]).astype(np.int64) @ counts
    alpha = (6.0 / epsilon) * math.log(2.0 * (levels + 1) / beta)
    first = above_threshold(-above, -2.0 * alpha, epsilon, rng)
    k = levels if first is None else first
    return int(k - levels), PrivacyCost.pure(epsilon)
