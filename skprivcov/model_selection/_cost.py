"""What a fit, a cross-validation or a search will spend, known before it starts
(docs/accounting.rst, "Searches refused before their first fit")."""

import os
from dataclasses import dataclass

from sklearn.base import clone, is_classifier
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import VotingClassifier, VotingRegressor
from sklearn.model_selection import ParameterGrid, ParameterSampler, check_cv
from sklearn.pipeline import FeatureUnion, Pipeline

from skprivcov._compat import BaseSearchCV
from skprivcov.privacy import BudgetExceededError, PrivacyCost

__all__ = [
    "SearchCost",
    "check_budget",
    "cross_validation_cost",
    "planned_charges",
    "search_cost",
]


def planned_charges(estimator):
    """The charges one ``fit`` of ``estimator`` will make, from its parameters.

    Every skprivcov model knows its own (its release, or none when it fits
    from a given release). ``Pipeline``, ``FeatureUnion``,
    ``ColumnTransformer``, ``TransformedTargetRegressor`` and the voting
    ensembles fit each of their estimators once, so they make the charges of
    their private estimators; another meta-estimator around a private model
    (bagging, one-vs-rest, stacking, calibration …) may fit it several times
    and is refused with TypeError. An estimator from another library that
    spends privacy is not seen: its charges are not counted.

    Parameters
    ----------
    estimator : estimator instance
        The (unfitted or fitted) estimator.

    Returns
    -------
    charges : list of (PrivacyAccountant or None, PrivacyCost)
        One entry per charge, with the accountant that will record it (None:
        spent without an accountant).
    """
    if isinstance(estimator, BaseSearchCV):
        raise TypeError(
            "A search inside a search: compute the inner search's cost with "
            "search_cost and multiply by the outer fits."
        )
    own = getattr(estimator, "_planned_charges", None)
    if own is not None:  # a model that takes or makes a release
        return list(own())
    if hasattr(estimator, "fit_cost"):  # one charge of its own budget
        return [(estimator.accountant, estimator.fit_cost())]
    if isinstance(estimator, Pipeline):
        steps = [step for _, step in estimator.steps]
    else:
        steps = list(_estimators_among(estimator.get_params(deep=False).values()))
    charges = [
        charge
        for step in steps
        if step is not None and not isinstance(step, str)
        for charge in planned_charges(step)
    ]
    if charges and not isinstance(estimator, _FIT_EACH_ONCE):
        # Bagging, one-vs-rest, stacking, calibration, RFE … fit their
        # estimators several times, a number the parameters do not always say.
        raise TypeError(
            f"{type(estimator).__name__} may fit its private estimators more than "
            "once: its cost cannot be counted from its parameters. Supported "
            "around private models: Pipeline, FeatureUnion, ColumnTransformer, "
            "TransformedTargetRegressor, VotingClassifier and VotingRegressor."
        )
    return charges


# Meta-estimators that fit each of their estimators exactly once.
_FIT_EACH_ONCE = (
    Pipeline,
    FeatureUnion,
    ColumnTransformer,
    TransformedTargetRegressor,
    VotingClassifier,
    VotingRegressor,
)


def _is_estimator(value):
    return hasattr(value, "fit") and hasattr(value, "get_params")


def _estimators_among(values):
    """The estimators among parameter values, also inside the lists of
    (name, estimator[, columns]) that FeatureUnion, ColumnTransformer and the
    ensembles take."""
    for value in values:
        if _is_estimator(value):
            yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                if _is_estimator(item):
                    yield item
                elif isinstance(item, tuple):
                    yield from (part for part in item if _is_estimator(part))


@dataclass(frozen=True)
class SearchCost:
    """The cost of a sequence of fits, known before the first.

    Computed from the parameters alone (:func:`search_cost`,
    :func:`cross_validation_cost`) and checked by :func:`check_budget`
    before anything runs; build one with :meth:`of`.

    Parameters
    ----------
    n_fits : int
        How many fits will run (candidates × folds, plus the refit).
    total : PrivacyCost
        The composition of every charge, whichever accountant records it, the
        refit counted at the candidate with the largest ρ.
    by_accountant : tuple of (PrivacyAccountant or None, PrivacyCost)
        The same per accountant (accountants on one ledger file counted
        together; None: charges without one).
    charges : tuple of (PrivacyAccountant or None, PrivacyCost)
        The charges of the fits whose candidates are known (every fold), one
        per fit and release.
    refit_options : tuple of tuple of (PrivacyAccountant or None, PrivacyCost)
        The refit's charges for each candidate it may refit (empty without a
        refit). :func:`check_budget` admits the search only if every option
        fits after the folds: under an (ε, δ) budget the costliest refit is
        not always the one with the largest ρ.

    See Also
    --------
    search_cost : The cost of a search.
    check_budget : Refuses a cost that an accountant cannot pay.

    Examples
    --------
    >>> from skprivcov.model_selection import SearchCost
    >>> from skprivcov.privacy import PrivacyCost
    >>> cost = SearchCost.of(2, [(None, PrivacyCost.zcdp(0.1))] * 2)
    >>> print(cost.total)
    0.2-zCDP
    """

    n_fits: int
    total: PrivacyCost
    by_accountant: tuple
    charges: tuple
    refit_options: tuple = ()

    @classmethod
    def of(cls, n_fits, charges, refit_options=()):
        """The cost of ``n_fits`` fits making ``charges``, then one refit option.

        Parameters
        ----------
        n_fits : int
            How many fits will run.
        charges : iterable of (PrivacyAccountant or None, PrivacyCost)
            The charges of the fits whose candidates are known.
        refit_options : iterable of iterables of (PrivacyAccountant or None, \
PrivacyCost), default=()
            The refit's charges for each candidate it may refit.

        Returns
        -------
        cost : SearchCost
            The cost, its total counting the refit option with the largest ρ.
        """
        shown = list(charges)
        if refit_options:
            shown += max(refit_options, key=_size_of(refit_options))
        grouped = {}
        for accountant, cost in shown:
            key = _ledger_key(accountant)
            held, total = grouped.get(key, (accountant, PrivacyCost.zero()))
            grouped[key] = (held, total + cost)
        total = sum((cost for _, cost in shown), PrivacyCost.zero())
        options = tuple(tuple(plan) for plan in refit_options)
        return cls(n_fits, total, tuple(grouped.values()), tuple(charges), options)

    def __repr__(self):
        shares = ", ".join(
            f"{total} to {'no accountant' if acc is None else repr(acc)}"
            for acc, total in self.by_accountant
        )
        return f"SearchCost(n_fits={self.n_fits}, total={self.total}: {shares})"


def _size_of(plans):
    """How the displayed refit is chosen among ``plans``: by the ρ they
    compose to; by their ε at δ = 1e-6 when one holds a Rényi curve (a
    private selection), which has no ρ (docs/algorithms.rst §14)."""

    def composed(plan):
        return sum((cost for _, cost in plan), PrivacyCost.zero())

    if any(cost.notion == "renyi" for plan in plans for _, cost in plan):
        return lambda plan: composed(plan).to_approx_dp(1e-6)
    return lambda plan: composed(plan).rho


def _ledger_key(accountant):
    """One key per budget: the ledger file's identity (symbolic and hard links
    to one file are one budget), or the in-memory accountant itself."""
    if accountant is None:
        return None
    if not accountant.path:
        return ("memory", id(accountant))
    try:
        status = os.stat(accountant.path)
    except OSError:
        return ("path", os.path.realpath(accountant.path))
    return ("file", status.st_dev, status.st_ino)


def _n_splits(cv, estimator, X, y, groups):
    if hasattr(cv, "__next__"):
        # Counting the folds would use up a one-shot iterator before the
        # search itself could read it.
        raise TypeError(
            "Give cv as a number, a splitter or a list of (train, test) pairs: "
            "a one-shot iterator would be used up counting the folds."
        )
    return check_cv(cv, y, classifier=is_classifier(estimator)).get_n_splits(
        X, y, groups
    )


def cross_validation_cost(estimator, X, y=None, *, groups=None, cv=None):
    """What scikit-learn's ``cross_validate`` will spend.

    That is, ``sklearn.model_selection.cross_validate(estimator, X, y, cv=cv)``:
    one fit of ``estimator`` per fold (docs/accounting.rst).

    Reads X, y and groups only for the number of folds (their lengths, and
    for a stratified split the labels, as scikit-learn's splitter does).

    Parameters
    ----------
    estimator : estimator object
        The model to cross-validate.
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,), default=None
        The target.
    groups : array-like of shape (n_samples,), default=None
        Group labels, for a group splitter.
    cv : int, cross-validation generator or an iterable, default=None
        The splitter, as in scikit-learn.

    Returns
    -------
    cost : SearchCost
        The cost of the folds' fits.
    """
    n_splits = _n_splits(cv, estimator, X, y, groups)
    charges = planned_charges(clone(estimator)) * n_splits
    return SearchCost.of(n_splits, charges)


def _candidates(search):
    if hasattr(search, "param_grid"):
        return list(ParameterGrid(search.param_grid))
    state = search.random_state
    if state is None or not isinstance(state, int):
        raise ValueError(
            "The candidates of a RandomizedSearchCV are known in advance only "
            "with an int random_state; give one to compute its cost."
        )
    return list(
        ParameterSampler(search.param_distributions, search.n_iter, random_state=state)
    )


def search_cost(search, X, y=None, *, groups=None):
    """What ``search.fit(X, y)`` will spend, before it starts.

    A ``GridSearchCV`` or ``RandomizedSearchCV`` (scikit-learn's or
    skprivcov's) fits every candidate on every training fold, then refits
    the best on all rows (``refit``, the default). Which candidate is best is
    not known in advance, so every candidate is kept as an option for the
    refit (``refit_options``; :func:`check_budget` admits the search only if
    each of them fits), and the displayed ``total`` counts the candidate with
    the largest ρ: exact when every candidate costs the same. Scores are not
    charged: a score computed on the raw validation rows is not private at all
    (docs/accounting.rst).

    Parameters
    ----------
    search : GridSearchCV or RandomizedSearchCV
        The search (a randomized one with an int ``random_state``).
    X : array-like of shape (n_samples, n_features)
        As for ``search.fit``, read only for the number of folds.
    y : array-like of shape (n_samples,), default=None
        As for ``search.fit``, read only for the number of folds.
    groups : array-like of shape (n_samples,), default=None
        As for ``search.fit``, read only for the number of folds.

    Returns
    -------
    cost : SearchCost
        The cost of every fit of the search.
    """
    candidates = _candidates(search)
    n_splits = _n_splits(search.cv, search.estimator, X, y, groups)
    per_candidate = [
        planned_charges(clone(search.estimator).set_params(**params))
        for params in candidates
    ]
    charges = [charge for plan in per_candidate for charge in plan * n_splits]
    n_fits = len(candidates) * n_splits
    # The refit's candidate is not known yet: every candidate is an option.
    options = per_candidate if search.refit else ()
    return SearchCost.of(n_fits + bool(search.refit), charges, options)


def check_budget(cost, owner="The search"):
    """Raise BudgetExceededError if an accountant cannot pay its share of ``cost``.

    Before anything runs. The check is exact for one process; with other processes
    spending from the same ledger meanwhile, each fit is still refused by the ledger
    itself when the budget runs out (docs/accounting.rst).

    Parameters
    ----------
    cost : SearchCost
        The cost of the fits.
    owner : str, default="The search"
        Who would spend, for the message.

    Returns
    -------
    cost : SearchCost
        The same ``cost``, admitted.

    Raises
    ------
    BudgetExceededError
        If an accountant cannot pay its share of ``cost``.
    """
    for accountant, total in cost.by_accountant:
        if accountant is None:
            continue
        key = _ledger_key(accountant)

        def to_this(charges, key=key):
            return [c for a, c in charges if _ledger_key(a) == key]

        # Each charge as the ledger will record it (summed exactly), with
        # every candidate the refit may spend on.
        folds = to_this(cost.charges)
        options = [to_this(plan) for plan in cost.refit_options] or [[]]
        if not all(accountant.can_spend(*folds, *refit) for refit in options):
            why = ""
            if total.approximate_delta:
                # §25: a δ₀ (a private label set), which only an (ε, δ)
                # budget can pay.
                why = (
                    " Its δ₀ needs an (epsilon, delta) budget "
                    "(docs/algorithms.rst §25), or classifiers given classes "
                    "(or a categorical y)."
                )
            raise BudgetExceededError(
                f"{owner} would spend {total} in {cost.n_fits} fits, but its "
                f"accountant has {accountant.remaining} left of its budget "
                f"{accountant.budget}.{why} Nothing was fitted or recorded."
            )
    return cost
