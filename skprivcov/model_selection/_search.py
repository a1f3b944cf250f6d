"""Searches and cross-validation that refuse, before their first fit, what
their accountants cannot pay (docs/accounting.rst)."""

from sklearn import model_selection

from skprivcov._spark import is_spark_dataframe, spark_refusal
from skprivcov.model_selection._cost import (
    check_budget,
    cross_validation_cost,
    search_cost,
)

__all__ = ["GridSearchCV", "RandomizedSearchCV", "cross_validate"]

# Folds are subsets of the rows, and scores read the validation rows: a Spark
# DataFrame is refused before any fit (docs/clusters.rst).
_SPLITS_ROWS = "it splits the rows into folds and scores the validation rows"


class _CheckedSearchMixin:
    """``fit`` computes :func:`search_cost` and refuses, with
    BudgetExceededError, before the first fit if an accountant cannot pay."""

    def fit(self, X, y=None, **params):
        """Check the whole search's cost against every accountant, then run
        scikit-learn's search.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,), default=None
            Target, for supervised models.
        **params : dict
            Passed on to scikit-learn's ``fit`` (``groups`` is also used to
            count the folds).

        Returns
        -------
        self : object

        Raises
        ------
        BudgetExceededError
            Before the first fit, if an accountant cannot pay its share of
            :func:`~skprivcov.model_selection.search_cost`.
        """
        if is_spark_dataframe(X):
            raise spark_refusal(type(self).__name__, reason=_SPLITS_ROWS)
        cost = search_cost(self, X, y, groups=params.get("groups"))
        check_budget(cost, owner=type(self).__name__)
        super().fit(X, y, **params)
        self.search_cost_ = cost
        return self


class GridSearchCV(_CheckedSearchMixin, model_selection.GridSearchCV):
    """scikit-learn's ``GridSearchCV``, refused up front when it cannot fit.

    Before the first fit, the cost of the whole search (every candidate on
    every fold, plus the refit at the most expensive candidate's cost; see
    :func:`~skprivcov.model_selection.search_cost`) is compared with what
    every accountant involved has left. A search that would run out of budget
    part-way raises :class:`~skprivcov.BudgetExceededError` before spending
    anything, instead of keeping the fits already charged and returning no
    model. Parameters, attributes and behaviour are otherwise scikit-learn's.

    Scores are computed on the raw validation rows, as in scikit-learn: the
    choice they make is not private with respect to those rows
    (docs/accounting.rst).

    Attributes
    ----------
    search_cost_ : SearchCost
        What the search was checked against: the number of fits and the
        composed cost per accountant.
    """


class RandomizedSearchCV(_CheckedSearchMixin, model_selection.RandomizedSearchCV):
    """scikit-learn's ``RandomizedSearchCV``, refused up front when it cannot
    fit (see :class:`GridSearchCV`). Its candidates, hence its cost, are known
    in advance only with an int ``random_state``: without one, ``fit`` refuses
    to start.

    Attributes
    ----------
    search_cost_ : SearchCost
        What the search was checked against.
    """


def cross_validate(estimator, X, y=None, *, groups=None, cv=None, **kwargs):
    """scikit-learn's ``cross_validate``, refused before the first fold when an
    accountant cannot pay for every fold (:func:`cross_validation_cost`).

    Every other argument is passed on unchanged.
    """
    if is_spark_dataframe(X):
        raise spark_refusal("cross_validate", reason=_SPLITS_ROWS)
    cost = cross_validation_cost(estimator, X, y, groups=groups, cv=cv)
    check_budget(cost, owner="cross_validate")
    return model_selection.cross_validate(
        estimator, X, y, groups=groups, cv=cv, **kwargs
    )
