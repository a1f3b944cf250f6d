"""Covariance mechanisms on the second moment of unit-ball rows.

Each function takes Σ = (1/n)·Σᵢ zᵢzᵢᵀ of rows with ‖zᵢ‖ ≤ 1, the public n, a
budget (:class:`~skprivcov.privacy.PrivacyCost`) and a numpy Generator, and
returns ``(release, parts)``: the parts of the budget it drew noise for, from
the one table of splits (:mod:`._splits`), so their composition can be checked
against the budget. Neighbours replace one row (docs/algorithms.rst §0). Functions
never see raw data.
"""

from fractions import Fraction

import numpy as np

from skprivcov._data import symmetrize
from skprivcov.mechanisms._eigen import (
    eigh_descending,
    eigvalsh_descending,
    from_eigenpairs,
)
from skprivcov.mechanisms._nuclear import nuclear_laplace_noise
from skprivcov.mechanisms._projections import (
    project_capped_simplex,
    project_nuclear_ball,
    project_psd_trace_ball,
)
from skprivcov.mechanisms._sensitivity import (
    eigenvalues_l1_sensitivity,
    eigenvalues_l2_sensitivity,
    gaussian_scale,
    laplace_scale,
    second_moment_l1_sensitivity,
    second_moment_l2_sensitivity,
    second_moment_nuclear_sensitivity,
    trace_sensitivity,
)
from skprivcov.mechanisms._splits import split_budget
from skprivcov.mechanisms._trace import private_trace_upper_bound
from skprivcov.mechanisms.noise._float import additive_noise
from skprivcov.mechanisms.noise._hardened import (
    eigenvalue_error_bound,
    gram_error_bound,
    hardened_noise,
    is_hardened,
)
from skprivcov.mechanisms.noise._source import noisy_second_moment, noisy_vector
from skprivcov.privacy import MCMC_NOISE, BudgetPart, UnsupportedPrivacyNotionError

__all__ = [
    "eigenvalue_noise_scale",
    "gaussian_covariance",
    "laplace_covariance",
    "noisy_covariance",
    "noisy_eigenvalues",
    "nuclear_laplace_covariance",
    "projection_covariance",
    "separate_covariance",
]

# At unit scale tr Σ ≤ 1 is public: the radius of every trace projection below.
UNIT_TRACE = 1.0


def _require_notion(budget, notion, mechanism):
    if budget.notion != notion:
        raise UnsupportedPrivacyNotionError(
            f"{mechanism} needs a {notion} budget, got {budget}."
        )


def gaussian_covariance(second_moment, n_samples, budget, rng):
    """GaussCov: Σ + (1/(√ρ n))·SGW(d), ρ-zCDP (DLY22; docs/algorithms.rst §3.1).

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        The second moment Σ of the unit-ball rows.
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A ρ-zCDP budget.
    rng : numpy.random.Generator
        The only source of noise.

    Returns
    -------
    release : ndarray of shape (d, d)
        The noisy Σ, exactly symmetric.
    parts : tuple of BudgetPart
        The parts of the budget spent.
    """
    _require_notion(budget, "zcdp", "GaussCov")
    parts = split_budget("gaussian", budget)
    # σ = Δ₂/√(2ρ) with Δ₂ = √2/n (§0.2), i.e. 1/(√ρ n) as in §3.1.
    sensitivity = second_moment_l2_sensitivity(n_samples)
    release = noisy_second_moment(
        second_moment, n_samples, sensitivity, parts[0].cost, rng, site="second moment"
    )
    return release, parts


def laplace_covariance(second_moment, n_samples, budget, rng):
    """LapCov: Σ + (Δ₁/ε)·SLW(d), pure ε-DP (DLY22 §6; docs/algorithms.rst §3.8).

    Δ₁ is the ℓ1 sensitivity of the upper triangle, min(√(d(d+1)), d/√2 + 1)/n
    (see :func:`second_moment_l1_sensitivity`).

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        The second moment Σ of the unit-ball rows.
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A pure ε-DP budget.
    rng : numpy.random.Generator
        The only source of noise.

    Returns
    -------
    release : ndarray of shape (d, d)
        The noisy Σ, exactly symmetric.
    parts : tuple of BudgetPart
        The parts of the budget spent.
    """
    _require_notion(budget, "pure", "LapCov")
    parts = split_budget("laplace", budget)
    d = second_moment.shape[0]
    sensitivity = second_moment_l1_sensitivity(d, n_samples)
    release = noisy_second_moment(
        second_moment, n_samples, sensitivity, parts[0].cost, rng, site="second moment"
    )
    return release, parts


_NOISY_COVARIANCE = {"zcdp": gaussian_covariance, "pure": laplace_covariance}


def noisy_covariance(second_moment, n_samples, budget, rng):
    """GaussCov for a zCDP budget, LapCov for a pure one.

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        The second moment Σ of the unit-ball rows.
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A zCDP or pure budget.
    rng : numpy.random.Generator
        The only source of noise.

    Returns
    -------
    release : ndarray of shape (d, d)
        The noisy Σ, exactly symmetric.
    parts : tuple of BudgetPart
        The parts of the budget spent.
    """
    return _NOISY_COVARIANCE[budget.notion](second_moment, n_samples, budget, rng)


def eigenvalue_noise_scale(n_samples, budget):
    """Noise scale of the sorted eigenvalues of Σ.

    The Gaussian σ for a zCDP budget (ℓ2 sensitivity √2/n, DLY22 Lemma 10) or the
    Laplace b for a pure one (ℓ1 sensitivity 2/n, ADK19 Thm 1); docs/algorithms.rst
    §0.2.

    Parameters
    ----------
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A zCDP or pure budget.

    Returns
    -------
    scale : float
        The σ or b of the noise.
    """
    if budget.notion == "zcdp":
        return gaussian_scale(eigenvalues_l2_sensitivity(n_samples), budget.rho)
    return laplace_scale(eigenvalues_l1_sensitivity(n_samples), budget.parameter)


def noisy_eigenvalues(values, n_samples, budget, rng, *, n_columns=None):
    """Λ + Gaussian or Laplace noise at :func:`eigenvalue_noise_scale`.

    ``values`` may be the k largest eigenvalues only: a sub-vector has at most
    the sensitivity of the whole sorted vector. ``n_columns`` is the dimension
    of the matrix they come from (default: ``values.size``), for the float
    error bound of hardened noise (§17).

    Parameters
    ----------
    values : ndarray of shape (k,)
        The sorted eigenvalues Λ (or the k largest).
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A zCDP or pure budget.
    rng : numpy.random.Generator
        The only source of noise.
    n_columns : int, default=None
        The dimension of the matrix; None for ``values.size``.

    Returns
    -------
    noisy : ndarray of shape (k,)
        Λ plus the noise (the whole ``budget`` spent).
    """
    d = values.size if n_columns is None else n_columns
    error = eigenvalue_error_bound(n_samples, d)
    if budget.notion == "zcdp":
        sensitivity = eigenvalues_l2_sensitivity(n_samples)
    else:
        sensitivity = eigenvalues_l1_sensitivity(n_samples)
        error *= np.sqrt(values.size)  # ℓ1 ≤ √k·ℓ2
    return noisy_vector(
        values, sensitivity, budget, rng, site="eigenvalues", statistic_error=error
    )


def separate_covariance(
    second_moment,
    n_samples,
    budget,
    rng,
    *,
    trace_bound=UNIT_TRACE,
    eigenvalue_share=0.5,
):
    """SeparateCov: noisy eigenvalues with eigenvectors of a noisy Σ.

    zCDP version (docs/algorithms.rst §3.2): Λ + (√2/(√ρ n))·N(0, I) at ρ/2, and the
    eigenvectors of GaussCov(Σ, ρ/2). Pure version (§3.8, SeparateLapCov):
    Λ + Lap(4/(εn)) at ε/2, eigenvectors of LapCov(Σ, ε/2). Post-processing
    (free): eigenvectors paired by descending eigenvalue with ``eigh``, noisy
    eigenvalues sorted and projected onto {u ≥ 0, Σu ≤ t}, t = ``trace_bound``
    (1, the public bound, unless a private bound is known). The release is PSD.

    ``eigenvalue_share`` v moves the split: the eigenvalues get v of the budget
    and the noisy Σ 1 − v (the paper's v = 1/2 by default). Any v is private
    with the same total, by composition; it changes only the accuracy.

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        The second moment Σ of the unit-ball rows.
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A zCDP or pure budget.
    rng : numpy.random.Generator
        The only source of noise.
    trace_bound : float, default=1.0
        The bound t on the sum of the released eigenvalues.
    eigenvalue_share : float in (0, 1), default=0.5
        The share v of the budget spent on the eigenvalues.

    Returns
    -------
    release : ndarray of shape (d, d)
        The release, PSD and exactly symmetric.
    parts : tuple of BudgetPart
        The parts of the budget spent.
    """
    parts = split_budget("separate", budget, eigenvalue_share=eigenvalue_share)
    values_budget, vectors_budget = (part.cost for part in parts)
    noisy_values = noisy_eigenvalues(
        eigvalsh_descending(second_moment), n_samples, values_budget, rng
    )
    noisy_matrix, _ = noisy_covariance(second_moment, n_samples, vectors_budget, rng)
    _, vectors = eigh_descending(noisy_matrix)
    values = project_capped_simplex(np.sort(noisy_values)[::-1], trace_bound)
    return from_eigenpairs(values, vectors), parts


def projection_covariance(
    second_moment,
    n_samples,
    budget,
    rng,
    *,
    trace_fraction=None,
    beta=0.05,
    trace=None,
):
    """The projection mechanism (DLY22 App. E; docs/algorithms.rst §3.7), ρ-zCDP.

    GaussCov(Σ) projected onto K_t = {Y ⪰ 0, tr Y ≤ t}. By default t = 1, the
    public trace bound. With ``trace_fraction`` f, a share f of ρ buys a private
    upper bound t̂r on tr Σ (§3.7, trace-sensitive variant) and GaussCov gets the
    rest, (1 − f)ρ. ``trace`` is tr Σ computed exactly
    (``SufficientStatistics.trace``, §13.6); without it, the trace of the float
    matrix is used.

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        The second moment Σ of the unit-ball rows.
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A ρ-zCDP budget.
    rng : numpy.random.Generator
        The only source of noise.
    trace_fraction : float in (0, 1), default=None
        The share f of ρ spent on a private trace bound; None for the public bound t =
        1.
    beta : float in (0, 1), default=0.05
        The failure probability of the private trace bound.
    trace : Fraction or float, default=None
        The exact tr Σ; None for the trace of the float matrix.

    Returns
    -------
    release : ndarray of shape (d, d)
        The projection onto K_t.
    parts : tuple of BudgetPart
        The parts of the budget spent.
    """
    _require_notion(budget, "zcdp", "The projection mechanism")
    parts = split_budget("projection", budget, trace_fraction=trace_fraction)
    if trace_fraction is None:
        (matrix_budget,) = (part.cost for part in parts)
        trace_bound = UNIT_TRACE
    else:
        trace_budget, matrix_budget = (part.cost for part in parts)
        # A float trace is within √d·‖M̃ − M‖_F of the exact one (§17).
        trace_error = 0.0
        if trace is None:
            d = second_moment.shape[0]
            trace_error = np.sqrt(d) * gram_error_bound(n_samples, d)
        trace_bound, _ = private_trace_upper_bound(
            np.trace(second_moment) if trace is None else trace,
            n_samples,
            trace_budget,
            beta,
            rng,
            trace_error=trace_error,
        )
    noisy, _ = gaussian_covariance(second_moment, n_samples, matrix_budget, rng)
    return project_psd_trace_ball(noisy, trace_bound), parts


def _private_nuclear_radius(trace, n_samples, budget, rng, n_columns):
    """dON Alg. 2's radius t = max(0, 2·tr Σ + Lap(10/(εn))) at ε/5 = ``budget``:
    2·tr Σ has sensitivity 2/n, and (2/n)/(ε/5) = 10/(εn) (§6.6). The sum is
    exact and rounded once (§13.6). Capped at 1 [choice]: ‖Σ‖_* = tr Σ ≤ 1 is
    public, so the capped ball still contains Σ and is never larger
    (post-processing)."""
    sensitivity = 2.0 * trace_sensitivity(n_samples)
    if is_hardened(rng):
        # §17: 2·tr Σ on a grid plus exact discrete Laplace noise; a float
        # trace carries its error √d·‖M̃ − M‖_F, twice.
        error = 0.0
        if not isinstance(trace, Fraction):
            d = n_columns
            error = 2.0 * np.sqrt(d) * gram_error_bound(n_samples, d)
        radius = hardened_noise(
            2 * Fraction(trace),
            sensitivity,
            budget,
            rng,
            statistic_error=error,
            site="nuclear radius",
        )
        return min(max(radius, 0.0), UNIT_TRACE)
    scale = laplace_scale(sensitivity, budget.parameter)
    noise = additive_noise(None, scale, budget, rng, site="nuclear radius")
    radius = float(2 * Fraction(trace) + Fraction(noise))
    return min(max(radius, 0.0), UNIT_TRACE)


def nuclear_laplace_covariance(
    second_moment,
    n_samples,
    budget,
    rng,
    *,
    symmetric=True,
    projection=None,
    trace_bound="public",
    n_sweeps=200,
    trace=None,
):
    """Release Σ by dON's nuclear-Laplace mechanism (docs/algorithms.rst §6).

    Pure ε-DP for the exact noise law (see :mod:`._nuclear` for what is approximate).

    Σ + Z with Z ∝ exp(−‖Z‖_*/r), r = Δ_*/ε = 2/(εn) (the K-norm mechanism,
    §6.1), on d×d matrices then symmetrised (§6.5), or on Sym(d) directly
    (``symmetric``, §6.1's derived variant, ~29% lower Frobenius error).

    ``projection``: None (dON Alg. 1); "nuclear", the nuclear ball of radius t
    (dON Alg. 2; the general matrix by SVD, then symmetrised); "psd-trace",
    {Y ⪰ 0, tr Y ≤ t} (§6.6's alternative and §6.5 step 2). ``trace_bound``:
    "public", t = 1 and all of ε for the noise; "private", dON Alg. 2's split,
    noise at ε/2 and t from :func:`_private_nuclear_radius` at ε/5, from
    ``trace``, tr Σ computed exactly (``SufficientStatistics.trace``, §13.6;
    without it, the trace of the float matrix).

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        The second moment Σ of the unit-ball rows.
    n_samples : int
        The number of rows n.
    budget : PrivacyCost
        A pure ε-DP budget.
    rng : numpy.random.Generator
        The only source of noise.
    symmetric : bool, default=True
        Draw the noise on Sym(d) directly, else on d×d matrices then symmetrise.
    projection : {"nuclear", "psd-trace"} or None, default=None
        The post-processing, above.
    trace_bound : {"public", "private"}, default="public"
        The bound t, above.
    n_sweeps : int, default=200
        The sweeps of the Markov chain of the noise's spectrum (§6.3).
    trace : Fraction or float, default=None
        The exact tr Σ; None for the trace of the float matrix.

    Returns
    -------
    release : ndarray of shape (d, d)
        Exactly symmetric.
    parts : tuple of BudgetPart
        With the caveat ``"mcmc-noise"``: the spectrum of the noise comes from
        a Markov chain (§6.3). Nothing about that chain is returned (§13.1).
    """
    _require_notion(budget, "pure", "The nuclear-Laplace mechanism")
    noise_part, *other_parts = split_budget(
        "nuclear-laplace", budget, trace_bound=trace_bound
    )
    # The noise's spectrum comes from a Markov chain (§6.3): its part carries
    # the caveat, and so does every composition with it.
    noise_budget = noise_part.cost.with_caveats((MCMC_NOISE,))
    parts = (BudgetPart(noise_part.step, noise_budget), *other_parts)
    radius = UNIT_TRACE
    if trace_bound == "private":
        radius = _private_nuclear_radius(
            np.trace(second_moment) if trace is None else trace,
            n_samples,
            parts[1].cost,
            rng,
            second_moment.shape[0],
        )
    scale = laplace_scale(
        second_moment_nuclear_sensitivity(n_samples), noise_budget.parameter
    )
    noise, _ = nuclear_laplace_noise(
        second_moment.shape[0], scale, rng, symmetric=symmetric, n_sweeps=n_sweeps
    )
    release = second_moment + noise
    if projection == "nuclear":
        release = project_nuclear_ball(release, radius)
    # The Frobenius projection onto Sym(d): never increases a Schatten error.
    release = symmetrize(release)
    if projection == "psd-trace":
        release = project_psd_trace_ball(release, radius)
    return release, parts
