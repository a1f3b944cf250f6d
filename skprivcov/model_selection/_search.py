"""Searches and cross-validation that refuse, before their first fit, what
their accountants cannot pay (docs/accounting.rst)."""

from sklearn import model_selection

from skprivcov._data import is_spark_dataframe, spark_refusal
from skprivcov.model_selection._cost import (
    check_budget,
    cross_validation_cost,
    search_cost,
)
from skprivcov.privacy import BudgetExceededError

__all__ = ["GridSearchCV", "RandomizedSearchCV", "cross_validate"]

# Folds are subsets of the rows, and scores read the validation rows: a Spark
# DataFrame is refused before any fit (docs/clusters.rst).
_SPLITS_ROWS = "it splits the rows into folds and scores the validation rows"
# How the traceback of a fit that scikit-learn caught names the ledger's refusal.
_REFUSED = f"{BudgetExceededError.__module__}.{BudgetExceededError.__qualname__}:"


def _refused_by_the_ledger(fit_error):
    """Whether a fit's recorded error (scikit-learn's traceback text, or
    None) is, or was raised from, a BudgetExceededError."""
    return isinstance(fit_error, str) and any(
        line.startswith(_REFUSED) for line in fit_error.splitlines()
    )


class _CheckedSearchMixin:
    """``fit`` computes :func:`search_cost` and refuses, with
    BudgetExceededError, before the first fit if an accountant cannot pay."""

    def fit(self, X, y=None, **params):
        """Check the whole search's cost against every accountant, then search.

        The search is scikit-learn's.

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
            The fitted search.

        Raises
        ------
        BudgetExceededError
            Before the first fit, if an accountant cannot pay its share of
            :func:`~skprivcov.model_selection.search_cost`; or, whatever
            ``error_score``, before the refit when the ledger refused a fit
            part-way (another process spent from the same budget meanwhile).
        """
        if is_spark_dataframe(X):
            raise spark_refusal(type(self).__name__, reason=_SPLITS_ROWS)
        cost = search_cost(self, X, y, groups=params.get("groups"))
        check_budget(cost, owner=type(self).__name__)
        super().fit(X, y, **params)
        self.search_cost_ = cost
        return self

    def _format_results(self, candidate_params, n_splits, out, *args, **kwargs):
        # scikit-learn's search, after each batch of fits and before the refit:
        # a fit the ledger refused stops the search, instead of a NaN score
        # and a best_params_ chosen among the fits that ran.
        refused = sum(
            _refused_by_the_ledger(result.get("fit_error"))
            for result in out
            if isinstance(result, dict)
        )
        if refused:
            raise BudgetExceededError(
                f"{type(self).__name__}: the ledger refused {refused} of its "
                f"{len(out)} fits part-way, after the search was admitted (another "
                "process spending from the same ledger meanwhile, say). The fits "
                "that ran were charged; no model was chosen or refit."
            )
        return super()._format_results(candidate_params, n_splits, out, *args, **kwargs)


class GridSearchCV(_CheckedSearchMixin, model_selection.GridSearchCV):
    """The ``GridSearchCV`` of scikit-learn, refused up front when it cannot fit.

    Before the first fit, the cost of the whole search (every candidate on
    every fold, plus the refit at the most expensive candidate's cost; see
    :func:`~skprivcov.model_selection.search_cost`) is compared with what
    every accountant involved has left. A search that would run out of budget
    part-way raises :class:`~skprivcov.BudgetExceededError` before spending
    anything, instead of spending the budget fold by fold, then scoring the
    refused fits NaN (scikit-learn's default ``error_score``) and choosing
    among the fits that ran. A fit the ledger refuses all the same (another
    process spending from the same ledger meanwhile) stops the search with
    BudgetExceededError, before the refit, whatever ``error_score``.
    Parameters, attributes and behaviour are otherwise scikit-learn's.

    Scores are computed on the raw validation rows, as in scikit-learn: the
    choice they make is not private with respect to those rows
    (docs/accounting.rst).

    Parameters
    ----------
    estimator : estimator object
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    param_grid : dict or list of dictionaries
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    scoring : str, callable, list, tuple or dict, default=None
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    n_jobs : int, default=None
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    refit : bool, str or callable, default=True
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    cv : int, cross-validation generator or an iterable, default=None
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    verbose : int, default=0
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    pre_dispatch : int or str, default='2*n_jobs'
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.
    error_score : 'raise' or numeric, default=np.nan
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`,
        except for a fit the ledger refuses (BudgetExceededError), which
        always stops the search.
    return_train_score : bool, default=False
        As in scikit-learn's :class:`~sklearn.model_selection.GridSearchCV`.

    Attributes
    ----------
    search_cost_ : SearchCost
        What the search was checked against: the number of fits and the
        composed cost per accountant.

    See Also
    --------
    search_cost : The cost it is checked against.
    RandomizedSearchCV : The same for random candidates.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance, PrivacyAccountant
    >>> from skprivcov.model_selection import GridSearchCV
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(600, 2))
    >>> accountant = PrivacyAccountant(rho=1.0)
    >>> # No random_state: with a seed every fold's fit would draw the same
    >>> # noise (docs/threat_model.rst, "No two releases share noise").
    >>> estimator = GaussianCovariance(rho=0.1, norm_bound=1.0, accountant=accountant)
    >>> grid = {"projection": ["psd-trace", None]}
    >>> search = GridSearchCV(estimator, grid, cv=3).fit(X)
    >>> search.search_cost_.n_fits  # 2 candidates × 3 folds, and the refit
    7
    >>> print(accountant.spent)
    0.7-zCDP
    """


class RandomizedSearchCV(_CheckedSearchMixin, model_selection.RandomizedSearchCV):
    """The ``RandomizedSearchCV`` of scikit-learn, refused up front when it cannot fit.

    See :class:`GridSearchCV`. Its candidates, hence its cost, are known in advance only
    with an int ``random_state``: without one, ``fit`` refuses to start.

    Parameters
    ----------
    estimator : estimator object
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    param_distributions : dict or list of dicts
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    n_iter : int, default=10
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    scoring : str, callable, list, tuple or dict, default=None
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    n_jobs : int, default=None
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    refit : bool, str or callable, default=True
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    cv : int, cross-validation generator or an iterable, default=None
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    verbose : int, default=0
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    pre_dispatch : int or str, default='2*n_jobs'
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    random_state : int, RandomState instance or None, default=None
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.
    error_score : 'raise' or numeric, default=np.nan
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`,
        except for a fit the ledger refuses (BudgetExceededError), which
        always stops the search.
    return_train_score : bool, default=False
        As in scikit-learn's :class:`~sklearn.model_selection.RandomizedSearchCV`.

    Attributes
    ----------
    search_cost_ : SearchCost
        What the search was checked against.

    See Also
    --------
    search_cost : The cost it is checked against.
    GridSearchCV : The same for a grid.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.model_selection import RandomizedSearchCV
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(600, 2))
    >>> estimator = GaussianCovariance(rho=0.1, norm_bound=1.0)
    >>> grid = {"projection": ["psd-trace", None]}
    >>> search = RandomizedSearchCV(
    ...     estimator, grid, n_iter=2, cv=3, random_state=0
    ... ).fit(X)
    >>> print(search.search_cost_.total)
    0.7-zCDP
    """


def cross_validate(estimator, X, y=None, *, groups=None, cv=None, **kwargs):
    """Run the ``cross_validate`` of scikit-learn, refused when it cannot pay.

    Refused before the first fold when an accountant cannot pay for every fold
    (:func:`cross_validation_cost`).

    Parameters
    ----------
    estimator : estimator object
        The model to cross-validate.
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,), default=None
        The target, for supervised models.
    groups : array-like of shape (n_samples,), default=None
        Group labels, for a group splitter.
    cv : int, cross-validation generator or an iterable, default=None
        The splitter, as in scikit-learn.
    **kwargs : dict
        Every other argument of scikit-learn's ``cross_validate``, passed on unchanged.

    Returns
    -------
    scores : dict of float arrays of shape (n_splits,)
        What scikit-learn's ``cross_validate`` returns.
    """
    if is_spark_dataframe(X):
        raise spark_refusal("cross_validate", reason=_SPLITS_ROWS)
    cost = cross_validation_cost(estimator, X, y, groups=groups, cv=cv)
    check_budget(cost, owner="cross_validate")
    return model_selection.cross_validate(
        estimator, X, y, groups=groups, cv=cv, **kwargs
    )
