"""AdaSSP's private smallest eigenvalue (docs/algorithms.rst §16; Wang, UAI 2018).

Wang's AdaSSP (arXiv:1803.02596, Algorithm 2) spends a third of its budget on
a private lower bound of λ_min(XᵀX) and sets the ridge penalty to the
noise's spectral bound minus it: a well conditioned design needs less
penalty. Here the statistic is λ_min of the (centred, with an intercept)
second moment of the bounded feature rows z_i of a ridge model (‖z_i‖ ≤ 1,
docs/algorithms.rst §18.5), per row; the penalty is set in
:mod:`._ridge` and :mod:`._boost`.

Sensitivity under replace-one (n public). For a unit vector u, uᵀCu is the
population variance of the n numbers v_i = uᵀz_i ∈ [−1, 1]. Writing m₋ for
the mean of the n − 1 rows that stay, n·Var = Σ_{i<n}(v_i − m₋)² +
((n − 1)/n)(v_n − m₋)², so replacing v_n by w moves Var by
((n − 1)/n²)·|(w − m₋)² − (v_n − m₋)²| ≤ 4(n − 1)/n². The minimum over u
of functions that each move by at most that moves by at most that too:
Δ = 4(n − 1)/n² for the centred moment (the paper's Δ = ‖𝒳‖² is its
uncentred, add/remove case). Without an intercept uᵀSu = (1/n)Σ v_i² with
v_i² ∈ [0, 1], so Δ = 1/n (Weyl). The same Δ bounds the ℓ1 and ℓ2
sensitivity of this scalar.

Noise (the paper's step 1 in zCDP and pure DP): λ̃ = max(0, λ_min + N(0, σ²)
− σ·√(2 ln(1/β))) with σ = Δ/√(2ρ_λ) (ρ_λ-zCDP, the Gaussian mechanism), or
max(0, λ_min + Lap(b) − b·ln(1/(2β))) with b = Δ/ε_λ (ε_λ-DP): a lower bound
of λ_min with probability ≥ 1 − β. The paper's shift √(log(6/δ))·σ is the
(ε, δ) form of the same tail; β is public (:data:`LOWER_BOUND_BETA`).

The statistic is computed from the exact sufficient statistics of the rows
(docs/algorithms.rst §19), so its float error is public: the float moment is
within 2.0001·u of the exact one (``gram_error_bound``), the outer product of
the float mean within 5.001·u·‖m‖² ≤ 5.001·u, the subtraction within u·‖C‖_F
≤ 1.01·u (Frobenius norms, u = 2^−53), and LAPACK's eigenvalue within
64·d^{3/2}·u (the assumption of ``eigenvalue_error_bound``): with hardened
noise (§17) that error is added to Δ on both neighbours.
"""

import math

import numpy as np

from skprivcov._data import unit_ball_statistics
from skprivcov.mechanisms import eigenvalue_error_bound
from skprivcov.mechanisms.noise import noisy_vector

__all__ = [
    "LOWER_BOUND_BETA",
    "SMALLEST_EIGENVALUE_SHARE",
    "private_smallest_eigenvalue",
    "smallest_eigenvalue",
    "smallest_eigenvalue_sensitivity",
]

# The share of a ridge model's budget (after its private bounds) spent on λ̃
# (the part "smallest eigenvalue"); AdaSSP spends 1/3, measured worse on
# diabetes than a small share (docs/ridge.rst) [choice; measured].
SMALLEST_EIGENVALUE_SHARE = 1 / 8
# λ̃ is a lower bound of λ_min with probability ≥ 1 − β.
LOWER_BOUND_BETA = 0.05

_UNIT_ROUNDOFF = 2.0**-53
# The float error of the centred moment beyond ``gram_error_bound`` (the
# outer product of the mean and the subtraction; module docstring).
_CENTRING_ERROR = 6.02 * _UNIT_ROUNDOFF


def smallest_eigenvalue_sensitivity(n_samples, centred):
    """Δ of λ_min of the per-row (centred) second moment of n rows in the
    unit ball under replace-one: 4(n − 1)/n² centred, 1/n uncentred."""
    if centred:
        return 4.0 * (n_samples - 1) / n_samples**2
    return 1.0 / n_samples


def smallest_eigenvalue(rows, centred, *, nonfinite="raise"):
    """(λ_min, its public float error bound) of the (centred) second moment of
    ``rows``, each brought into the unit ball (values read: after the charge).

    Parameters
    ----------
    rows : ndarray of shape (n_samples, n_features)
        The bounded feature rows (‖z‖ ≤ 1 up to rounding; longer rows are
        clipped by the exact pass).
    centred : bool
        λ_min of the covariance (with an intercept) or of the second moment.
    nonfinite : {"raise", "zero"}, default="raise"

    Returns
    -------
    value : float
    error : float
    """
    stats = unit_ball_statistics(rows, 1.0, with_mean=centred, nonfinite=nonfinite)
    moment = np.asarray(stats.second_moment, dtype=np.float64)
    error = eigenvalue_error_bound(rows.shape[0], rows.shape[1])
    if centred:
        mean = np.asarray(stats.mean, dtype=np.float64)
        moment = moment - np.outer(mean, mean)
        error += _CENTRING_ERROR
    value = float(np.linalg.eigvalsh(moment)[0])
    return value, error


def _tail(sensitivity, budget, beta):
    """The shift that makes λ̃ a lower bound with probability ≥ 1 − β."""
    if budget.notion == "zcdp":
        sigma = sensitivity / math.sqrt(2.0 * budget.rho)
        return sigma * math.sqrt(2.0 * math.log(1.0 / beta))
    return sensitivity / budget.parameter * math.log(1.0 / (2.0 * beta))


def private_smallest_eigenvalue(rows, centred, budget, rng, *, nonfinite="raise"):
    """λ̃: a private lower bound of λ_min of the rows' (centred) second moment
    at ``budget`` (zCDP: Gaussian, pure: Laplace; hardened when ``rng`` asks
    for it, §17), floored at 0 (post-processing). Run after the charge."""
    value, error = smallest_eigenvalue(rows, centred, nonfinite=nonfinite)
    sensitivity = smallest_eigenvalue_sensitivity(rows.shape[0], centred)
    noisy = noisy_vector(
        np.array([value]),
        sensitivity,
        budget,
        rng,
        site="smallest eigenvalue",
        statistic_error=error,
    )
    shifted = float(noisy[0]) - _tail(sensitivity, budget, LOWER_BOUND_BETA)
    return max(shifted, 0.0)
