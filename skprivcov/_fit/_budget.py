"""One fit's budget from its parameters, and the shares a fit hands down."""

from skprivcov._fit._constraints import BUDGET_RANGE
from skprivcov.privacy import resolve_budget

__all__ = ["budget_parameters", "check_handed_down", "estimator_budget"]


def budget_parameters(cost):
    """The budget parameters that make an estimator spend ``cost``.

    Parameters
    ----------
    cost : PrivacyCost
        A zCDP or pure cost.

    Returns
    -------
    parameters : dict
        ``rho``, ``epsilon`` and ``delta``, for ``set_params``.
    """
    if cost.notion == "zcdp":
        return {"rho": cost.parameter, "epsilon": None, "delta": None}
    return {"epsilon": cost.parameter, "rho": None, "delta": None}


def check_handed_down(owner, *budgets):
    """Refuse, before the charge, a budget too small to hand to a step.

    A fit that splits its budget and hands a share to an inner estimator
    (a ridge model's covariance release after its private bounds, a fold
    release) checks every share first: the inner estimator takes budgets in
    [1e-30, 1e30] only (``_constraints.BUDGET_RANGE``, the range in which no
    computation can overflow or underflow), and a share below it would be
    refused after the charge (docs/algorithms.rst §13.2). The shares are
    public: functions of the parameters and the shape.

    Parameters
    ----------
    owner : str
        The estimator that splits, for the message.
    *budgets : PrivacyCost
        The shares it will hand down.

    Raises
    ------
    ValueError
        If a share is below the smallest budget an estimator takes.
    """
    low = BUDGET_RANGE[0]
    for budget in budgets:
        if budget.parameter < low:
            raise ValueError(
                f"{owner}: the budget is too small to split among the fit's "
                f"steps: one step would get {budget}, below {low:g}, the "
                "smallest budget an estimator takes (docs/algorithms.rst "
                "§13.2). Give a larger budget."
            )


def estimator_budget(estimator):
    """The budget one fit of ``estimator`` spends, from its parameters alone.

    ``rho``, ``epsilon`` and ``delta`` by the budget rule
    (:func:`skprivcov.privacy.resolve_budget`), among the notions the
    estimator offers (``_notions``), or its ``_default_budget`` when none is
    given; no data is read.

    Parameters
    ----------
    estimator : estimator instance
        A private estimator with ``rho``, ``epsilon`` and ``delta`` parameters
        and the class attributes ``_notions`` and ``_default_budget``.

    Returns
    -------
    cost : PrivacyCost
        The budget of one fit.
    """
    return resolve_budget(
        rho=estimator.rho,
        epsilon=estimator.epsilon,
        delta=estimator.delta,
        notions=estimator._notions,
        default=estimator._default_budget,
        owner=type(estimator).__name__,
    )
