"""ADK19 iterative eigenvector sampling (EMCov) and the Kapralov–Talwar baseline.

docs/algorithms.rst §5. Noisy eigenvalues, then one exponential-mechanism draw per
eigenvector, each from the Bingham law of :mod:`._bingham`:

* ``update="project"`` (EMCov, ADK19 Alg. 1; §5.2): draw i samples the top
  eigenvector of C restricted to the orthogonal complement of θ_1..θ_{i−1}; the
  complement's basis is updated by one Householder reflection per step.
* ``update="deflate"`` (the KT-style baseline of ADK19's experiments; §5.4):
  every draw is on the whole sphere, from C − Σ_{j<i} λ̂_j θ_j θ_jᵀ.

The utility of a draw is g(u) = uᵀCu with C = XᵀX = nΣ. Under replace-one with
unit rows, g changes by (u·x)² − (u·x')² ∈ [−1, 1], so its sensitivity is 1
(§5.1; ADK19 states 2), also after the projection onto a data-independent
subspace and after subtracting already released terms. The density
∝ exp(c·ε_i·g(u)) is therefore (2c·ε_i)-DP, and ε_i-DP for every c ≤ 1/2: the
paper's c = 1/4 keeps a factor 2 of slack, c = 1/2 is tight.
"""

import math
from contextlib import nullcontext

import numpy as np
from threadpoolctl import threadpool_limits

from skprivcov.mechanisms._bingham import sample_bingham
from skprivcov.mechanisms._covariance import (
    UNIT_TRACE,
    eigenvalue_noise_scale,
    noisy_eigenvalues,
)
from skprivcov.mechanisms._eigen import (
    eigh_descending,
    from_eigenpairs,
)
from skprivcov.mechanisms._projections import project_capped_simplex
from skprivcov.mechanisms._splits import split_budget
from skprivcov.privacy import PrivacyCost, check_within

__all__ = [
    "draw_epsilons",
    "iterative_eigen_covariance",
    "sample_top_eigenvector",
]

# The draws' loops run on one BLAS thread. Each step interleaves SciPy's LAPACK
# (eigh) with NumPy's BLAS, two OpenBLAS copies whose spinning threads contend;
# one thread was the fastest choice measured (docs/developers.rst,
# measurements). The limit is entered once per loop: threadpoolctl rescans the
# loaded libraries on entry.
_LOOP_THREADS = 1
# Entering the limit costs more than a whole fit at small d (docs/developers.rst,
# measurements), and on matrices this small OpenBLAS runs one thread anyway.
_LIMIT_FROM = 64


def _single_threaded(d):
    return threadpool_limits(_LOOP_THREADS) if d >= _LIMIT_FROM else nullcontext()


def sample_top_eigenvector(values, vectors, concentration, rng):
    """One draw of the exponential mechanism density ∝ exp(κ·uᵀSu) on the sphere.

    Parameters
    ----------
    values, vectors : ndarray
        Eigenvalues of S in descending order and their eigenvectors (columns).
    concentration : float
        The concentration κ ≥ 0; for the mechanism, c·ε_i·n with S at the scale of Σ.
    rng : numpy.random.Generator
        The only source of noise.

    Returns
    -------
    u : ndarray of shape (q,)
        A unit vector.

    Notes
    -----
    In S's eigenbasis the density is exp(−yᵀAy) up to a constant, with
    A = κ(λ_max·I − S) ⪰ 0, a_j = κ(λ_1 − λ_j) (the shift by the *largest*
    eigenvalue, docs/algorithms.rst §5.3 erratum), sampled exactly by KGM.
    """
    concentrations = concentration * (values[0] - values)
    return vectors @ sample_bingham(concentrations, rng)


def draw_epsilons(weights, vectors_budget):
    """The ε_i of the eigenvector draws, spending exactly ``vectors_budget``.

    Proportional to ``weights``. Pure ε: Σε_i = ε (basic composition). ρ-zCDP: each
    ε_i-DP draw is (ε_i²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4), so Σε_i²/2 = ρ; with
    equal weights over d draws this is ε_i = √(2ρ/d), i.e. √(ρ/d) at ρ/2 for the vectors
    (§5.2).

    Pure ε: Σε_i = ε (basic composition). ρ-zCDP: each ε_i-DP draw is
    (ε_i²/2)-zCDP (Bun & Steinke 2016, Prop. 1.4), so Σε_i²/2 = ρ; with equal
    weights over d draws this is ε_i = √(2ρ/d), i.e. √(ρ/d) at ρ/2 for the
    vectors (§5.2).

    Parameters
    ----------
    weights : ndarray of shape (k,)
        Positive weights of the draws.
    vectors_budget : PrivacyCost
        The eigenvectors' budget, pure or zCDP.

    Returns
    -------
    epsilons : ndarray of shape (k,)
        The ε_i.
    """
    weights = np.asarray(weights, dtype=float)
    if vectors_budget.notion == "pure":
        return vectors_budget.parameter * weights / weights.sum()
    return math.sqrt(2.0 * vectors_budget.rho) * weights / np.linalg.norm(weights)


def _draw_cost(epsilon, notion):
    if notion == "pure":
        return PrivacyCost.pure(epsilon)
    return PrivacyCost.zcdp(0.5 * epsilon**2)


def _adaptive_weights(values, noise_scale, notion, beta):
    """ADK19 Cor. 1: weights from the noisy eigenvalues (post-processing).

    τ bounds all k eigenvalue noises with probability 1 − β. Pure: ε_i ∝ √(λ̂_i + τ),
    τ = b·log(2k/β) (the paper's τ = (2/ε_0)·log(2d/β) at the scale of Σ).
    zCDP [derived]: the bound Σ_i (λ̂_i + τ)/ε_i of Cor. 1's proof is minimised
    under Σε_i² = const by ε_i ∝ (λ̂_i + τ)^{1/3}, with τ = σ√(2 log(2k/β)) for
    Gaussian noise.
    """
    k = values.size
    if notion == "pure":
        tau = noise_scale * math.log(2.0 * k / beta)
        return np.sqrt(values + tau)
    tau = noise_scale * math.sqrt(2.0 * math.log(2.0 * k / beta))
    return np.cbrt(values + tau)


def _restrict_to_complement(matrix, basis, u):
    """(HᵀSH, BH) for H the q×(q−1) orthonormal basis of u^⊥ given by a
    Householder reflection P = I − βvvᵀ with Pu = ∓e_1 (drop P's first column).

    O(q² + dq) per step instead of a null-space decomposition: PSP = S − vwᵀ − wvᵀ
    with p = βSv, w = p − (βvᵀp/2)v (Golub & Van Loan, §8.3.1).
    """
    v = u.copy()
    v[0] += 1.0 if u[0] >= 0.0 else -1.0  # no cancellation: |v_0| = 1 + |u_0|
    beta = 1.0 / (1.0 + abs(u[0]))  # 2/vᵀv with vᵀv = 2(1 + |u_0|)
    p = beta * (matrix @ v)
    w = p - (0.5 * beta * (v @ p)) * v
    tail_v, tail_w = v[1:], w[1:]
    reduced = matrix[1:, 1:] - np.outer(tail_v, tail_w)
    reduced -= np.outer(tail_w, tail_v)
    new_basis = basis[:, 1:] - np.outer(beta * (basis @ v), tail_v)
    return reduced, new_basis


def _projected_draws(second_moment, decomposition, concentrations, rng):
    """EMCov's draws (§5.2): θ_i = B_i u_i, u_i from the restriction of S to the
    complement of the earlier draws, B_i its orthonormal basis.
    ``decomposition`` is S's own (descending), reused for the first draw."""
    d = second_moment.shape[0]
    thetas = np.empty((d, len(concentrations)))
    matrix = np.array(second_moment, dtype=float)
    basis = np.eye(d)
    with _single_threaded(d):
        for i, concentration in enumerate(concentrations):
            if i:
                decomposition = eigh_descending(matrix)
            u = sample_top_eigenvector(*decomposition, concentration, rng)
            thetas[:, i] = basis @ u
            if i + 1 < len(concentrations):
                matrix, basis = _restrict_to_complement(matrix, basis, u)
    return thetas


def _deflated_draws(second_moment, decomposition, concentrations, values, rng):
    """KT-style draws (§5.4): on the whole sphere from S − Σ_{j<i} λ̂_j θ_jθ_jᵀ.

    The subtracted terms are released values, so each draw's utility still has
    sensitivity 1; the deflated matrix may be indefinite, the shift by its
    largest eigenvalue still makes A ⪰ 0. ``decomposition`` is S's own,
    reused for the first draw.
    """
    d = second_moment.shape[0]
    thetas = np.empty((d, len(concentrations)))
    matrix = np.array(second_moment, dtype=float)
    with _single_threaded(d):
        for i, concentration in enumerate(concentrations):
            if i:
                decomposition = eigh_descending(matrix)
            theta = sample_top_eigenvector(*decomposition, concentration, rng)
            thetas[:, i] = theta
            matrix -= values[i] * np.outer(theta, theta)
    return thetas


_EIGENVALUE_PROJECTIONS = {
    # The capped simplex {λ ≥ 0, Σλ ≤ 1} (tr C ≤ n): the feasible set at unit scale.
    "simplex": lambda values: project_capped_simplex(values, UNIT_TRACE),
    # [0, n] for C, as in the paper (§4) and its reference code: [0, 1] for Σ.
    "clip": lambda values: np.clip(values, 0.0, UNIT_TRACE),
}


def iterative_eigen_covariance(
    second_moment,
    n_samples,
    budget,
    rng,
    *,
    n_components=None,
    update="project",
    budget_split="uniform",
    em_coefficient=0.25,
    eigenvalue_share=0.5,
    eigenvalue_projection="simplex",
    beta=0.05,
):
    """EMCov (ADK19 Alg. 1) or the KT baseline; pure ε-DP or ρ-zCDP.

    Parameters
    ----------
    second_moment : ndarray of shape (d, d)
        Σ of unit-ball rows.
    n_samples : int
        The public n.
    budget : PrivacyCost
        Pure ε or ρ-zCDP.
    rng : numpy.random.Generator
        The only source of noise.
    n_components : int or None
        The number k ≤ d eigenpairs (rank of the release); None for d.
    update : {"project", "deflate"}
        EMCov's projection onto the complement, or KT's rank-one subtraction.
    budget_split : {"uniform", "adaptive"}
        Equal ε_i, or ADK19 Cor. 1's split from the noisy eigenvalues.
    em_coefficient : float in (0, 1/2]
        The coefficient c in the density ∝ exp(c·ε_i·uᵀCu).
    eigenvalue_share : float in (0, 1)
        The share of the budget for the eigenvalues (ADK19: ε_0 = ε/2).
    eigenvalue_projection : {"simplex", "clip"}
        Post-processing of the sorted noisy eigenvalues.
    beta : float in (0, 1)
        Failure probability of τ in the adaptive split (utility only).

    Returns
    -------
    release : ndarray of shape (d, d)
        Σ_i λ̂_i θ_i θ_iᵀ, symmetric PSD.
    parts : tuple of BudgetPart
        The eigenvalues' part and the eigenvectors' part (all draws together).

    Notes
    -----
    Eigenvalues: the k largest of Σ plus Laplace noise of scale 2/(nε_0) (pure;
    ℓ1 sensitivity 2/n) or Gaussian noise at ρ_0 (zCDP; ℓ2 sensitivity √2/n,
    the Gaussian path of §5.2), then sorted and projected. With
    ``update="project"`` and k = d the last draw is on S⁰ = {±1} with a law that
    does not depend on the data: it is free, and its ε goes to the others
    (§5.2, optional [derived]).
    """
    d = second_moment.shape[0]
    k = d if n_components is None else min(n_components, d)
    parts = split_budget("iterative-eigen", budget, eigenvalue_share=eigenvalue_share)
    values_budget, vectors_budget = (part.cost for part in parts)

    # One eigendecomposition of Σ serves the eigenvalues' release and the
    # first draw.
    decomposition = eigh_descending(second_moment)
    noisy = noisy_eigenvalues(
        decomposition[0][:k], n_samples, values_budget, rng, n_columns=d
    )
    values = _EIGENVALUE_PROJECTIONS[eigenvalue_projection](np.sort(noisy)[::-1])

    n_paid = k - 1 if (update == "project" and k == d) else k
    if budget_split == "adaptive":
        weights = _adaptive_weights(
            values,
            eigenvalue_noise_scale(n_samples, values_budget),
            budget.notion,
            beta,
        )[:n_paid]
    else:
        weights = np.ones(n_paid)
    epsilons = np.zeros(k)
    epsilons[:n_paid] = draw_epsilons(weights, vectors_budget)
    concentrations = em_coefficient * epsilons * n_samples

    if update == "project":
        thetas = _projected_draws(second_moment, decomposition, concentrations, rng)
    else:
        thetas = _deflated_draws(
            second_moment, decomposition, concentrations, values, rng
        )
    # The draws' ε_i compose to the eigenvectors' part (draw_epsilons).
    draws = (_draw_cost(epsilon, budget.notion) for epsilon in epsilons[:n_paid])
    check_within(sum(draws, PrivacyCost.zero()), vectors_budget)
    return from_eigenpairs(values, thetas), parts
