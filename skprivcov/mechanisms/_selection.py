"""The mathematics of private selection by random stopping (§14, §22): the
law of the number of runs and what a selection of candidates costs. The
search itself, which runs the candidates, is
:class:`skprivcov.model_selection.PrivateRandomSearch`."""

import numpy as np

from skprivcov.privacy import (
    PrivacyCost,
    SelectionProfile,
    StoppingLaw,
    expected_runs,
)

__all__ = ["draw_runs", "runs_pmf", "selection_cost", "stopping_law"]


def runs_pmf(k, eta, gamma):
    """P(K = k) of the truncated negative binomial TNB(η, γ) (§14).

    For η > 0, P(K = k) = (1 − γ)^k·Γ(k + η)/(Γ(η)·k!)·γ^η / (1 − γ^η), k ≥ 1
    (η = 1: the geometric γ(1 − γ)^(k−1)); for η = 0 (logarithmic),
    (1 − γ)^k / (k·log(1/γ)).

    Parameters
    ----------
    k : int or ndarray of int
        The numbers of runs, ≥ 1.
    eta : float >= 0
        The TNB shape η (1: geometric; 0: logarithmic).
    gamma : float in (0, 1)
        The TNB parameter γ.

    Returns
    -------
    pmf : float or ndarray
        P(K = k).
    """
    expected_runs(eta, gamma)  # checks η and γ
    return StoppingLaw("negative_binomial", eta, gamma).pmf(k)


def draw_runs(rng, eta, gamma):
    """One draw of K ~ TNB(η, γ), the number of runs (§14).

    η > 0: a negative binomial with shape η and success probability γ,
    redrawn while it is 0 (the truncation); η = 0: the logarithmic law.

    Parameters
    ----------
    rng : numpy.random.Generator
        The only source of randomness.
    eta : float >= 0
        The TNB shape η (1: geometric; 0: logarithmic).
    gamma : float in (0, 1)
        The TNB parameter γ.

    Returns
    -------
    k : int
        The number of runs K ≥ 1.
    """
    expected_runs(eta, gamma)  # checks η and γ
    return StoppingLaw("negative_binomial", eta, gamma).draw(rng)


def selection_cost(run_costs, *, eta, gamma, stopping="negative_binomial"):
    """The cost of returning the best of K runs (§14, §22).

    Each run draws one candidate at random, so one run's Rényi curve is the
    largest of the candidates' curves, order by order (Rényi divergence is
    quasi-convex). With K ~ TNB(η, γ) (Papernot & Steinke 2022, Thm. 2):

    * every candidate pure ε_c: pure (2 + η)·max ε_c (Liu & Talwar's 3ε for
      the geometric η = 1);
    * every candidate ρ_c-zCDP (or costless): the Rényi curve with the exact
      inner minimum 2√(ρ log(1/γ)) − ρ at ρ = max ρ_c [derived], and its
      closed form, so that it converts over every real order;
    * otherwise: the Rényi curve from the largest curve, minimised over the
      grid of orders.

    With ``stopping="binomial"``, K ~ Binomial(m, 1/2) conditioned on K ≥ 1,
    m the even number nearest 2·E[K] of TNB(η, γ) (the same mean). Its Rényi
    curve is the smaller of m runs composed and ε(λ) + (m − 1)·log 2 +
    log E[K]/(λ − 1) (§22); pure candidates: pure min(m, 1 + (m − 1)·log 2/ε)·ε.

    Either way the cost also carries the candidates and the law of K, and
    :meth:`~skprivcov.privacy.PrivacyCost.to_approx_dp` reports the smaller
    of this and the privacy-profile bound of §22. Composed with anything
    else, the curve (or the pure ε) is what adds up.

    Parameters
    ----------
    run_costs : sequence of PrivacyCost
        The cost of one run of each candidate.
    eta : float >= 0
        The TNB shape η (1: geometric; 0: logarithmic).
    gamma : float in (0, 1)
        The TNB parameter γ.
    stopping : {"negative_binomial", "binomial"}, default="negative_binomial"
        The law of K.

    Returns
    -------
    cost : PrivacyCost
        The cost of the selection: pure, or a Rényi curve.
    """
    costs = list(run_costs)
    if not costs:
        raise ValueError("selection_cost needs the cost of at least one candidate.")
    for cost in costs:
        if cost.approximate_delta:
            # §14 holds for candidates with Rényi curves; a δ₀-approximate
            # one (§25) may fail in any of the K runs, K unbounded.
            raise ValueError(
                f"A candidate costs {cost}, a δ₀-approximate guarantee "
                "(docs/algorithms.rst §25): a private selection needs "
                "candidates with Rényi curves. Give classifiers their classes "
                "(or a categorical y)."
            )
    law = stopping_law(eta, gamma, stopping)
    caveats = tuple(code for cost in costs for code in cost.caveats)
    deltas = {cost.reference_delta for cost in costs} - {None}
    reference = deltas.pop() if len(deltas) == 1 else None
    profile = _selection_profile(costs, law)
    route = profile.renyi_route()
    if route[0] == "pure":
        cost = PrivacyCost("pure", route[1], selection=profile)
    else:
        _, curve, envelope = route
        cost = PrivacyCost(
            "renyi", None, reference, curve=curve, envelope=envelope, selection=profile
        )
    return cost.with_caveats(caveats)


def stopping_law(eta, gamma, stopping="negative_binomial"):
    """The law of the number of runs K of a private selection (§14, §22).

    Parameters
    ----------
    eta : float >= 0
        The TNB shape η.
    gamma : float in (0, 1)
        The TNB parameter γ.
    stopping : {"negative_binomial", "binomial"}, default="negative_binomial"
        TNB(η, γ), or Binomial(m, 1/2) conditioned on K ≥ 1 with m the even
        number nearest 2·E[K] of TNB(η, γ).

    Returns
    -------
    law : StoppingLaw
        The law.
    """
    expected = expected_runs(eta, gamma)
    if stopping == "binomial":
        return StoppingLaw("binomial", max(2.0, 2.0 * round(expected)), 0.5)
    if stopping != "negative_binomial":
        raise ValueError(
            f"stopping must be 'negative_binomial' or 'binomial', got {stopping!r}."
        )
    return StoppingLaw("negative_binomial", eta, gamma)


def _selection_profile(costs, law):
    """The candidates, summarised for the profile bound (§22)."""
    zcdp = [cost.parameter for cost in costs if cost.notion == "zcdp"]
    pure = [cost.parameter for cost in costs if cost.notion == "pure"]
    curves = [cost.curve for cost in costs if cost.notion == "renyi"]
    return SelectionProfile(
        rho=max(zcdp) if zcdp else None,
        epsilon=max(pure) if pure else None,
        curve=tuple(np.max(curves, axis=0).tolist()) if curves else None,
        law=law,
    )
