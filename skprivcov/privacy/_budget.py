"""The one budget rule shared by every estimator (PRODUCT.md §1.4)."""

from skprivcov.privacy._conversions import zcdp_from_approx_dp
from skprivcov.privacy._cost import PrivacyCost
from skprivcov.privacy._exceptions import UnsupportedPrivacyNotionError

__all__ = ["budget_kind", "resolve_budget"]


def budget_kind(*, rho, epsilon, delta, owner):
    """The one reading of the ``rho`` / ``epsilon`` / ``delta`` parameters,
    shared by every estimator and the accountant.

    Parameters
    ----------
    rho, epsilon, delta : float or None
    owner : str
        Who was given them, for error messages.

    Returns
    -------
    kind : {"zcdp", "pure", "approx"} or None
        ρ-zCDP (``rho``), pure ε-DP (``epsilon`` with ``delta`` None or 0),
        (ε, δ)-DP (``epsilon`` with ``delta > 0``), or None if neither
        ``rho`` nor ``epsilon`` is given.

    Raises
    ------
    ValueError
        ``rho`` together with ``epsilon``, or ``delta`` without ``epsilon``.
    """
    if rho is not None and epsilon is not None:
        raise ValueError(
            f"{owner}: give either rho (ρ-zCDP) or epsilon (with optional delta), "
            f"not both; got rho={rho!r} and epsilon={epsilon!r}."
        )
    if delta is not None and epsilon is None:
        raise ValueError(
            f"{owner}: delta={delta!r} was given without epsilon; delta only "
            "qualifies an epsilon budget."
        )
    if rho is not None:
        return "zcdp"
    if epsilon is None:
        return None
    return "approx" if delta else "pure"


def resolve_budget(*, rho, epsilon, delta, notions, default, owner):
    """Turn the ``rho`` / ``epsilon`` / ``delta`` parameters into a budget.

    The rule, identical for every estimator:

    * ``rho`` alone: a ρ-zCDP budget.
    * ``epsilon`` with ``delta`` None or 0: a pure ε-DP budget.
    * ``epsilon`` with ``delta > 0``: for a mechanism with a zCDP version, the
      largest ρ whose Canonne–Kamath–Steinke conversion meets (ε, δ)
      (docs/algorithms.rst §7.2); for a pure-only mechanism, pure ε-DP, which implies
      (ε, δ)-DP.
    * nothing: the estimator's documented ``default``.

    Parameters
    ----------
    rho, epsilon, delta : float or None
        The estimator's parameters (ranges already validated).
    notions : tuple of {"pure", "zcdp"}
        The notions the mechanism offers.
    default : PrivacyCost
        The budget used when neither ``rho`` nor ``epsilon`` is given.
    owner : str
        The estimator's name, for error messages.

    Returns
    -------
    budget : PrivacyCost
        What the fit will spend.

    Raises
    ------
    ValueError
        ``rho`` together with ``epsilon``, or ``delta`` without ``epsilon``.
    UnsupportedPrivacyNotionError
        The mechanism does not offer the requested notion.
    """
    kind = budget_kind(rho=rho, epsilon=epsilon, delta=delta, owner=owner)
    if kind is None:
        return default
    if kind == "zcdp":
        if "zcdp" not in notions:
            raise UnsupportedPrivacyNotionError(
                f"{owner} is a pure ε-DP mechanism and cannot spend a zCDP budget "
                f"rho={rho!r}; give epsilon instead."
            )
        return PrivacyCost.zcdp(rho)
    if kind == "pure":
        if "pure" not in notions:
            raise UnsupportedPrivacyNotionError(
                f"{owner} has no pure ε-DP version (delta=0 or None asks for pure "
                f"DP); give delta > 0 to calibrate ρ-zCDP to (epsilon, delta), or "
                f"give rho."
            )
        return PrivacyCost.pure(epsilon)
    if "zcdp" in notions:
        return PrivacyCost.zcdp(
            zcdp_from_approx_dp(epsilon, delta), reference_delta=delta
        )
    return PrivacyCost.pure(epsilon)
