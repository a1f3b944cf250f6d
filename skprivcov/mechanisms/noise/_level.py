"""The public noise level of a release: one number from public values only.

Post-processing that must know how noisy a release is (the eigenvalue floor of
``precision_``, the ridge penalty chosen from the privacy level, the automatic
choice of mechanism) reads it from here. It depends on (n, d, budget) alone,
never on the data (docs/algorithms.rst §15, §16).
"""

import math

from skprivcov.mechanisms._sensitivity import (
    gaussian_scale,
    laplace_scale,
    second_moment_l1_sensitivity,
    second_moment_l2_sensitivity,
)

__all__ = ["noise_level"]


def noise_level(n_samples, n_features, budget):
    """Typical spectral norm of the one-shot noise at unit scale, 2√d·s.

    s is the standard deviation of one free entry of the noise that the
    Gaussian mechanism (zCDP budget: s = Δ₂/√(2ρ), Δ₂ = √2/n, §3.1) or the
    Laplace mechanism (pure budget: s = √2·Δ₁/ε, §3.8) adds to the whole
    second moment of n unit-ball rows in d dimensions at ``budget``; a
    symmetric Wigner matrix of entry deviation s has spectral norm ≈ 2√d·s.
    Any mechanism's release at that budget is at least about this noisy in
    the directions it cannot resolve, so eigenvalues below it carry no
    information about the data.

    Parameters
    ----------
    n_samples : int
        The number of rows n.
    n_features : int
        The dimension d.
    budget : PrivacyCost
        A zCDP or pure budget.

    Returns
    -------
    level : float
        In the units of the second moment of unit-ball rows (multiply by the
        squared clipping bound for the units of the data).
    """
    if budget.notion == "zcdp":
        if budget.rho == 0:
            return math.inf
        deviation = gaussian_scale(second_moment_l2_sensitivity(n_samples), budget.rho)
    else:
        if budget.parameter == 0:
            return math.inf
        sensitivity = second_moment_l1_sensitivity(n_features, n_samples)
        deviation = math.sqrt(2.0) * laplace_scale(sensitivity, budget.parameter)
    return 2.0 * math.sqrt(n_features) * deviation
