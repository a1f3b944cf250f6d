"""Private scalar shrinkage of a released covariance (docs/algorithms.rst
§3.9a).

Given a released PSD matrix R (post-processing of a private release, so
public) and the exact statistic C of unit-ball rows it estimates (the second
moment S, or the covariance S − μμᵀ), release c·R with

    c = clip(⟨R, C⟩^ / ‖R‖_F², 0, 1),

⟨R, C⟩^ the Gaussian (zCDP) or Laplace (pure) mechanism on ⟨R, C⟩. Given R
the sensitivity is public. In general |⟨R, ΔC⟩| ≤ ‖R‖_op·‖ΔC‖_*, with
‖ΔC‖_* ≤ 2/n for the second moment and ≤ (6 + 4/n)/n for the covariance
under replace-one; for R = R₊ − R₋ (its positive and negative parts) it is
at most (λ₊ + λ₋)·ν/n with ν = 1 for the second moment and ν = 4 for the
covariance (λ± = ‖R±‖_op; for a PSD R, λ₋ = 0). The mechanism noises the
normalised q = ⟨R, C⟩/(λ·ν), λ ≥ λ₊ + λ₋, whose sensitivity is 1/n whatever
R is; c·R is post-processing. At the optimal c the error ‖C‖_F² − ⟨R, C⟩²/‖R‖_F² is at
most ‖C‖_F², the error of releasing nothing.
"""

import math
from fractions import Fraction

import numpy as np

from skprivcov.mechanisms._sensitivity import gaussian_scale, laplace_scale
from skprivcov.mechanisms.noise._float import additive_noise
from skprivcov.mechanisms.noise._hardened import _gamma, hardened_noise, is_hardened

__all__ = [
    "noisy_inner_product",
    "private_shrinkage",
    "shrinkage_factor",
    "shrinkage_from",
    "shrinkage_scale",
    "spectral_spread",
]

_UNIT_ROUNDOFF = 2.0**-53
# LAPACK's eigenvalues are those of R + F with ‖F‖₂ ≤ p(d)·u·‖R‖₂; as in
# ``eigenvalue_error_bound`` (an assumption listed in docs/threat_model.rst),
# p(d) = 64·d.
_LAPACK = 64.0
# §3.9a: k of the positive-part shrinkage of the noisy q̂ (a utility choice,
# post-processing): set on the bundled datasets and the demo's cells, where
# k = 0 released more than nothing on digits at ε = √2 and a shift of q̂ by
# one deviation lost up to 0.06 of ‖Σ‖_F on diabetes.
POSITIVE_PART = 2.0


def shrinkage_factor(centred):
    """The factor ν of the sensitivity of ⟨R, C⟩ (§3.9a).

    ν with abs(⟨R, ΔC⟩) ≤ ‖R‖_op·ν/n for a PSD R under replace-one of
    unit-ball rows: 1 for the second moment (⟨R, x'x'ᵀ − xxᵀ⟩/n is a
    difference of two values in [0, ‖R‖_op]/n), 4 for the covariance S − μμᵀ
    (n·⟨R, ΔC⟩ = ‖x' − μ‖_R² − ‖x − μ‖_R² − ‖x' − x‖_R²/n, the first term in
    [0, 4‖R‖_op] and the other two together in [−4‖R‖_op, 0], since
    ‖x' − μ‖ ≤ 2 and ‖x − μ‖ ≤ 2(1 − 1/n)).

    Parameters
    ----------
    centred : bool
        Whether C is the covariance S − μμᵀ (else the second moment S).

    Returns
    -------
    factor : Fraction
        The factor ν: 4 if ``centred``, else 1.
    """
    return Fraction(4) if centred else Fraction(1)


def shrinkage_scale(n_samples, budget):
    """The noise scale of the normalised statistic q (sensitivity 1/n).

    Δ/√(2ρ) (Gaussian standard deviation) or Δ/ε (Laplace scale).

    Parameters
    ----------
    n_samples : int
        The number of rows n (public).
    budget : PrivacyCost
        A zCDP or pure budget.

    Returns
    -------
    scale : float
        The scale of the noise of q.
    """
    sensitivity = 1.0 / n_samples
    if budget.notion == "zcdp":
        return gaussian_scale(sensitivity, budget.rho)
    return laplace_scale(sensitivity, budget.parameter)


def spectral_spread(release):
    """The spread λ of a symmetric release, the factor of the sensitivity of ⟨R, C⟩.

    λ ≥ λ₊ + λ₋ = max(λ_max(R), 0) + max(−λ_min(R), 0) for a symmetric float R (public:
    R is), §3.9a; ‖R‖_op ≤ λ.

    Parameters
    ----------
    release : ndarray of shape (d, d)
        The symmetric release R.

    Returns
    -------
    spread : float
        The spread λ, raised for the rounding of the eigenvalues.
    """
    d = release.shape[0]
    values = np.linalg.eigvalsh(release)
    spread = max(float(values[-1]), 0.0) + max(-float(values[0]), 0.0)
    top = float(np.max(np.abs(values)))
    # Each computed eigenvalue is within p(d)·u·‖R‖₂ of the exact one, and
    # ‖R‖₂ ≤ top/(1 − p(d)·u); raised by 2^−40 for this computation's own
    # rounding.
    slack = _LAPACK * d**1.5 * _UNIT_ROUNDOFF
    return (spread + 2.0 * slack * top / (1.0 - slack)) * (1.0 + 2.0**-40)


def private_shrinkage(
    release,
    second_moment,
    n_samples,
    budget,
    rng,
    *,
    mean=None,
    second_moment_error=0.0,
    mean_error=0.0,
):
    """The private shrink factor c of ``release`` towards C (§3.9a).

    Parameters
    ----------
    release : ndarray of shape (d, d)
        R, symmetric (PSD after the projections of the fit), public: a
        post-processed private release.
    second_moment : ndarray of shape (d, d)
        S̃, the float second moment of the unit-ball rows.
    n_samples : int
        The number of rows n (public).
    budget : PrivacyCost
        Spent in full.
    rng : numpy.random.Generator
        The only source of noise.
    mean : ndarray of shape (d,) or None
        The mean μ̃, the float mean of the rows: then C = S − μμᵀ, else C = S.
    second_moment_error, mean_error : float
        Public bounds on ‖S̃ − S‖_F and ‖μ̃ − μ‖ (hardened noise adds the
        resulting error of q to its sensitivity, §17).

    Returns
    -------
    factor : float
        The shrink factor c ∈ [0, 1].
    """
    squared_norm = float(np.sum(release * release))
    if squared_norm == 0.0:
        # A zero release (public) is its own shrinkage; nothing to estimate.
        return 0.0
    inner, deviation = noisy_inner_product(
        release,
        second_moment,
        n_samples,
        budget,
        rng,
        mean=mean,
        second_moment_error=second_moment_error,
        mean_error=mean_error,
    )
    return shrinkage_from(inner, deviation, squared_norm)


def shrinkage_from(inner, deviation, squared_norm):
    """The shrink factor c from the noisy ⟨R, C⟩^ (post-processing, §3.9a).

    From ⟨R, C⟩^, its noise's public standard deviation s and ‖R‖_F²: the positive-part
    estimate ⟨R, C⟩^·(1 − k·s²/⟨R, C⟩^²)₊ (0 if ⟨R, C⟩^ ≤ 0), divided by ‖R‖_F² and
    capped at 1. An estimate of the size of its noise gives nothing (a factor above
    2·c*, c* the best, costs more than releasing nothing) while one well above its noise
    is kept.

    Parameters
    ----------
    inner : float
        The noisy ⟨R, C⟩^.
    deviation : float
        The public standard deviation s of its noise.
    squared_norm : float
        ‖R‖_F².

    Returns
    -------
    factor : float
        The factor c ∈ [0, 1].
    """
    if inner <= 0.0:
        return 0.0
    kept = max(inner - POSITIVE_PART * deviation**2 / inner, 0.0)
    return min(kept / squared_norm, 1.0)


def noisy_inner_product(
    release,
    second_moment,
    n_samples,
    budget,
    rng,
    *,
    mean=None,
    second_moment_error=0.0,
    mean_error=0.0,
):
    """The noisy ⟨R, C⟩^ and the public standard deviation of its noise (§3.9a).

    The Gaussian (zCDP) or Laplace (pure) mechanism on q = ⟨R, C⟩/(λ·ν),
    sensitivity 1/n (λ = :func:`spectral_spread`, ν =
    :func:`shrinkage_factor`), times λ·ν: the noise of ⟨R, C⟩^ is that of a
    statistic of sensitivity λ·ν/n, of scale λ·ν/(n√(2ρ)) or λ·ν/(nε).

    Parameters
    ----------
    release : ndarray of shape (d, d)
        As in :func:`private_shrinkage`.
    second_moment : ndarray of shape (d, d)
        As in :func:`private_shrinkage`.
    n_samples : int
        As in :func:`private_shrinkage`.
    budget : PrivacyCost
        As in :func:`private_shrinkage`.
    rng : numpy.random.Generator
        The only source of noise.
    mean : ndarray of shape (d,) or None, default=None
        As in :func:`private_shrinkage`.
    second_moment_error : float, default=0.0
        As in :func:`private_shrinkage`.
    mean_error : float, default=0.0
        As in :func:`private_shrinkage`.

    Returns
    -------
    inner : float
        ⟨R, C⟩^.
    deviation : float
        The public standard deviation of its noise.
    """
    d = release.shape[0]
    centred = mean is not None
    factor = shrinkage_factor(centred)
    operator = spectral_spread(release)
    inner = float(np.sum(release * second_moment))
    if centred:
        inner -= float(mean @ (release @ mean))
    statistic = inner / (operator * float(factor))
    # A public bound on |q̃ − q|: ‖R‖_F/λ ≤ √d (‖R‖_op ≤ λ);
    # ‖C̃ − C‖_F ≤ ‖S̃ − S‖_F + e(2 + e) (‖μ‖ ≤ 1); the sums of d² and
    # d² + d products are within γ_N of the sums of their absolute values, at
    # most √d·λ·(1 + error)² each; twice all of it for the divisions and the
    # subtraction.
    error_c = second_moment_error + (mean_error * (2.0 + mean_error) if centred else 0)
    rounding = _gamma(d * d + d + 4) * 2.0 * (1.0 + error_c) ** 2
    error = 2.0 * math.sqrt(d) * (error_c + rounding) / float(factor)
    sensitivity = 1.0 / n_samples
    scale = shrinkage_scale(n_samples, budget)
    if is_hardened(rng):
        noisy = hardened_noise(
            Fraction(statistic),
            sensitivity,
            budget,
            rng,
            statistic_error=error,
            site="shrinkage",
        )
    else:
        noise = additive_noise(None, scale, budget, rng, site="shrinkage")
        noisy = statistic + float(noise)
    deviation = scale if budget.notion == "zcdp" else math.sqrt(2.0) * scale
    units = operator * float(factor)
    return noisy * units, deviation * units
