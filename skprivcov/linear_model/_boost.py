"""Boosted private ridge: rounds of AdaSSP on clipped residuals (§16).

Tang, Aydore, Kearns, Rho, Roth, Wang, Wang, Wu, "Improved differentially
private regression via gradient boosting" (arXiv:2303.03451, Algorithm 1,
"BoostedAdaSSP"): release XᵀX once (with AdaSSP's penalty), then in each of T
rounds release Xᵀr_t for the residuals r_t = clip(y − Xθ_t) of the current
ensemble, solve the penalised normal equations on that noisy gradient and add
the solution, times a shrinkage η, to the ensemble. The released XᵀX only
preconditions the rounds: their fixed point solves the normal equations of the
*exact* XᵀX (the gradient is zero there), so its noise no longer biases the
model as it does one-shot sufficient-statistics perturbation, and the clipped
residuals make each round's gradient cheap to release (the fit is a Huber-type
regression with threshold R; docs/algorithms.rst §16).

As implemented, in the units of the bounded rows (z, y') of docs/algorithms.rst
§18.5 (‖z‖ ≤ 1, |y'| ≤ 1), after the private bounds:

1. the feature release: the model's covariance estimator on the rows z (norm
   bound 1, centred with an intercept) at :data:`FEATURE_SHARE` of the rest,
   giving Ĉ (PSD-projected) and the mean m̂;
2. the penalty λ: c_b·ℓ with ℓ the public noise level of that release's
   budget (``mechanisms.noise_level``, uncapped) and c_b =
   :data:`SPECTRAL_FACTOR`; with
   ``alpha="adassp"`` max(0, c·ℓ − λ̃_min), λ̃_min from :mod:`._adassp` at its
   share; or the given alpha in these units;
3. T rounds, each at an equal share of what is left: with a = (z, 1)/√2
   (z without an intercept), w_i = (r_i/R)·a_i with r_i = clip(y'_i − θᵀz_i −
   b, −R, R) and R = ``residual_bound`` (a fraction of the target's
   half-width) lies in the unit ball, so its mean g has ℓ2 sensitivity 2/n
   (ℓ1 2√D/n in D dimensions) under replace-one; ĝ = g + noise (Gaussian at
   σ = Δ/√(2ρ_t), Laplace at b = Δ/ε_t; hardened by default, on the exact
   statistic, §19). Then, undoing the scaling, s = cov(z, r) = ĝ_z − m̂·ĝ_1,
   δθ = (Ĉ + λI)⁻¹s, δb = ĝ_1 − m̂ᵀδθ, and θ += η·δθ, b += η·δb.

Each round's rows depend on the data and on the earlier releases only, so the
rounds compose adaptively: the total is the sum of the parts (zCDP: ρ's add;
pure: ε's add), all charged before any value is read.
"""

import math

import numpy as np

from skprivcov._data import exact_mean
from skprivcov.linear_model._adassp import (
    SMALLEST_EIGENVALUE_SHARE,
    private_smallest_eigenvalue,
)
from skprivcov.mechanisms import noise_level
from skprivcov.mechanisms.noise import gram_error_bound, noisy_vector
from skprivcov.privacy import BudgetPart

__all__ = [
    "AUTO_ROUNDS",
    "FEATURE_SHARE",
    "boosted_parts",
    "boosted_ridge",
    "n_rounds",
    "round_sensitivity",
]

# The feature release's share of the budget left after the private bounds
# [choice; measured on diabetes, benchmarks/bench_ridge_frontier.py].
FEATURE_SHARE = 1 / 4
# λ = c_b·ℓ with ℓ = ``noise_level`` (2√d·s, the typical spectral norm of a
# Wigner matrix of the release's entry deviation s at unit scale); the centred
# release's noise measured about 1.5·ℓ in spectral norm (Gaussian and
# Laplace), so c_b = 1.5 keeps Ĉ₊ + λI ⪰ C typically, and the preconditioned
# rounds contract [choice; measured].
SPECTRAL_FACTOR = 1.5


# boosting_rounds="auto": the number of rounds by the notion of the budget
# [choice; measured on diabetes, docs/ridge.rst]: a pure round's ℓ1
# sensitivity is √(d + 1) times its ℓ2 one, so pure budgets afford fewer.
AUTO_ROUNDS = {"zcdp": 10, "pure": 3}


def n_rounds(boosting_rounds, notion):
    """The number of rounds: ``boosting_rounds``, or for "auto" the public
    rule :data:`AUTO_ROUNDS` of the budget's notion."""
    if isinstance(boosting_rounds, str):
        return AUTO_ROUNDS.get(notion, 0)
    return int(boosting_rounds)


def boosted_parts(rest, n_rounds, adassp):
    """(the feature release's cost, the smallest eigenvalue's part or None,
    the rounds' parts) of the boosted fit, from the budget ``rest`` left after
    the private bounds (public: the budget and the parameters only)."""
    left = 1.0 - FEATURE_SHARE
    smallest = None
    if adassp:
        smallest = BudgetPart(
            "smallest eigenvalue", rest.scaled(SMALLEST_EIGENVALUE_SHARE)
        )
        left -= SMALLEST_EIGENVALUE_SHARE
    rounds = tuple(
        BudgetPart(f"residual round {t}", rest.scaled(left / n_rounds))
        for t in range(1, n_rounds + 1)
    )
    return rest.scaled(FEATURE_SHARE), smallest, rounds


def round_sensitivity(n_samples, n_columns, notion):
    """Sensitivity of the mean of n rows in the unit ball of R^D under
    replace-one: 2/n in ℓ2 (zCDP), 2√D/n in ℓ1 (pure)."""
    if notion == "zcdp":
        return 2.0 / n_samples
    return 2.0 * math.sqrt(n_columns) / n_samples


def _inverse(covariance, penalty):
    """(Ĉ₊ + λI)⁺ with Ĉ₊ the PSD projection of the released block."""
    values, vectors = np.linalg.eigh(covariance)
    values = np.maximum(values, 0.0) + penalty
    floor = covariance.shape[0] * np.finfo(float).eps * values.max(initial=0.0)
    inverse = np.divide(1.0, values, out=np.zeros_like(values), where=values > floor)
    return (vectors * inverse) @ vectors.T


def boosted_ridge(
    features,
    target,
    release,
    round_parts,
    *,
    penalty,
    fit_intercept,
    residual_bound,
    learning_rate,
    rng,
    lambda_part=None,
    nonfinite="raise",
):
    """(θ, b, λ) of the boosted fit in the units of the bounded rows.

    Parameters
    ----------
    features : ndarray of shape (n_samples, n_features)
        The bounded feature rows z (finite, ‖z‖ ≤ 1).
    target : ndarray of shape (n_samples,)
        The bounded targets y' ∈ [−1, 1].
    release : fitted covariance estimator
        The feature release of ``features`` (``covariance_``, ``location_``,
        ``eigenvalue_floor_``).
    round_parts : sequence of BudgetPart
        One per round.
    penalty : float or "auto" or "adassp"
        λ in the units of z (2α there), or the rule that sets it.
    fit_intercept, residual_bound, learning_rate : see PrivateRidge
    rng : ReleaseGenerator
    lambda_part : BudgetPart or None
        The smallest eigenvalue's part (``penalty="adassp"``).
    nonfinite : {"raise", "zero"}

    Returns
    -------
    theta : ndarray of shape (n_features,)
    intercept : float
    penalty : float
    """
    n_samples, n_features = features.shape
    covariance = np.asarray(release.covariance_, dtype=np.float64)
    mean = np.zeros(n_features)
    if fit_intercept:
        # The rows lie in the unit ball, so does their mean: the released
        # one is projected onto it (post-processing; a noisy mean far outside
        # would pull every round's cross term and intercept).
        mean = np.asarray(release.location_, dtype=np.float64)
        mean = mean / max(1.0, float(np.linalg.norm(mean)))
    if isinstance(penalty, str):
        # The noise's spectral scale, uncapped (``eigenvalue_floor_`` stops at
        # 1/d): a penalty below the noise's spectral norm lets a direction
        # that the noise shrank overshoot, and the rounds diverge.
        level = SPECTRAL_FACTOR * noise_level(
            n_samples, n_features, release.privacy_spent_
        )
        if penalty == "adassp":
            smallest = private_smallest_eigenvalue(
                features, fit_intercept, lambda_part.cost, rng, nonfinite=nonfinite
            )
            level = max(0.0, level - smallest)
        penalty = level
    inverse = _inverse(covariance, penalty)
    theta, intercept = np.zeros(n_features), 0.0
    if fit_intercept:
        augmented = np.hstack([features, np.ones((n_samples, 1))]) / math.sqrt(2.0)
        unscale = math.sqrt(2.0) * residual_bound
    else:
        augmented, unscale = features, residual_bound
    columns = augmented.shape[1]
    for part in round_parts:
        residuals = np.clip(
            target - features @ theta - intercept, -residual_bound, residual_bound
        )
        rows = augmented * (residuals / residual_bound)[:, None]
        # The exact mean of the rows in the unit ball (§19): no float error
        # to cover, and the same value from any summation order; one O(n·D)
        # pass, no Gram matrix.
        statistic = exact_mean(rows, 1.0, "raise")
        # (The exact mean is noised on its integers; a float one would be
        # within the Gram bound in ℓ2, √D times it in ℓ1.)
        error = gram_error_bound(n_samples, columns)
        if part.cost.notion != "zcdp":
            error *= math.sqrt(columns)
        gradient = noisy_vector(
            statistic,
            round_sensitivity(n_samples, columns, part.cost.notion),
            part.cost,
            rng,
            site="mean",
            statistic_error=error,
        )
        gradient = np.asarray(gradient, dtype=np.float64) * unscale
        if fit_intercept:
            cross = gradient[:-1] - mean * gradient[-1]
            step = inverse @ cross
            intercept += learning_rate * (gradient[-1] - mean @ step)
        else:
            step = inverse @ gradient
        theta = theta + learning_rate * step
    return theta, float(intercept), float(penalty)
