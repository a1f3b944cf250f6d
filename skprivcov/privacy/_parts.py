"""The parts of a budget: which step of a mechanism spent how much."""

from typing import NamedTuple

from skprivcov.privacy._cost import PrivacyCost

__all__ = ["BudgetPart", "check_within", "compose_parts"]

# Parts are floats composed in floating point: their sum may exceed the whole by
# rounding, a few ulps, and never by more.
_ROUNDING = 1e-12


class BudgetPart(NamedTuple):
    """One step of a mechanism and the part of the budget it spends.

    Parts depend only on public values (the budget and the parameters), never
    on the data: a fitted estimator publishes them as ``privacy_parts_``.

    Parameters
    ----------
    step : str
        What the part buys, e.g. ``"eigenvalues"`` or ``"noisy matrix"``.
    cost : PrivacyCost
        What that step spends.

    See Also
    --------
    compose_parts : The composition of parts.
    skprivcov.mechanisms.split_budget : Splits a budget into parts.

    Examples
    --------
    >>> from skprivcov.privacy import BudgetPart, PrivacyCost, compose_parts
    >>> parts = [BudgetPart("eigenvalues", PrivacyCost.zcdp(0.05)),
    ...          BudgetPart("noisy matrix", PrivacyCost.zcdp(0.05))]
    >>> print(compose_parts(parts))
    0.1-zCDP
    """

    step: str
    cost: PrivacyCost

    def __str__(self):
        return f"{self.step}: {self.cost}"


def compose_parts(parts):
    """The composition (sum) of the costs of ``parts``; zero if there are none.

    Parameters
    ----------
    parts : iterable of BudgetPart
        The parts.

    Returns
    -------
    cost : PrivacyCost
        The sum of their costs.
    """
    return sum((part.cost for part in parts), PrivacyCost.zero())


def check_within(spent, allowed):
    """Raise if ``spent`` is not within ``allowed``.

    Within: the same notion, a parameter (for a Rényi curve, every order's
    ε(λ)) at most ``allowed``'s up to rounding, a δ₀ of an approximate
    guarantee (§25) at most ``allowed``'s likewise, no caveat that
    ``allowed`` lacks.

    A mechanism that spends more than its budget is a bug, caught before any
    release is stored.

    Parameters
    ----------
    spent : PrivacyCost
        What a mechanism spent.
    allowed : PrivacyCost
        Its budget.

    Raises
    ------
    RuntimeError
        If ``spent`` exceeds ``allowed``.
    """
    if spent.notion == allowed.notion == "renyi":
        # Curves: order by order (§14).
        over = any(
            a > b * (1.0 + _ROUNDING)
            for a, b in zip(spent.curve, allowed.curve, strict=True)
        )
    else:
        over = spent.notion != allowed.notion or (
            spent.parameter > allowed.parameter * (1.0 + _ROUNDING)
        )
    if (
        over
        or spent.approximate_delta > allowed.approximate_delta * (1.0 + _ROUNDING)
        or not set(spent.caveats) <= set(allowed.caveats)
    ):
        raise RuntimeError(
            f"The mechanism spent {spent}, more than the budget {allowed} it was "
            "given; this is a bug, please report it."
        )
