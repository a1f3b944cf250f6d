"""Base classes of the private covariance estimators.

The template of every fit: resolve the budget → validate the data → charge the
accountant (before any data value enters a computation) → generator → sufficient
statistics of the unit-ball rows → mechanism → post-processing and storage →
``privacy_spent_``. Subclasses only name their
mechanism; an estimator never draws noise itself.
"""

from abc import ABCMeta
from numbers import Real

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, _fit_context
from sklearn.covariance import empirical_covariance, log_likelihood
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from skprivcov._dask import check_dask_array, is_dask_array
from skprivcov._random import check_generator
from skprivcov._stats import unit_ball_statistics
from skprivcov.covariance._centering import augment, center
from skprivcov.mechanisms import project_psd
from skprivcov.privacy import PrivacyAccountant, PrivacyCost, resolve_budget

__all__ = ["BasePrivateCovariance", "ReleasedCovarianceMixin", "public_parameters"]


def public_parameters(estimator):
    """The parameters of ``estimator`` that may be published with its release.

    Never the seed: with it and the release, anyone could regenerate the noise
    and subtract it. Nor the accountant (not a parameter of the release).
    Values other than plain scalars are given as their repr.
    """
    parameters = estimator.get_params(deep=False)
    parameters.pop("accountant", None)
    parameters.pop("random_state", None)
    return {
        name: value
        if isinstance(value, bool | int | float | str | None)
        else repr(value)
        for name, value in parameters.items()
    }


class ReleasedCovarianceMixin:
    """What every fitted covariance release offers: precision, score, errors.

    Everything here reads only ``covariance_`` and ``location_`` (released
    values) or data passed by the caller: it is post-processing.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_input(self, X, *, reset):
        """X validated and kept in place: arrays and memmaps of float32 or
        float64 are not copied, CSR and CSC stay sparse, dask arrays stay
        lazy (checked on the cluster)."""
        if is_dask_array(X):
            X = check_dask_array(
                X,
                ensure_min_samples=2,
                ensure_min_features=2,
                owner=type(self).__name__,
            )
            return validate_data(self, X, reset=reset, skip_check_array=True)
        return validate_data(
            self,
            X,
            reset=reset,
            accept_sparse=("csr", "csc"),
            dtype=(np.float64, np.float32),
            ensure_min_samples=2,
            ensure_min_features=2,
        )

    def _charge(self, cost):
        """Spend ``cost`` with the accountant, if any, before data is read.

        Raises BudgetExceededError (nothing recorded) when it does not fit.
        """
        if self.accountant is None:
            return
        self.accountant.spend(
            cost, source=type(self).__name__, details=public_parameters(self)
        )

    def _set_release(self, covariance, location):
        self.covariance_ = covariance
        self.location_ = location
        self._precision = None

    @property
    def precision_(self):
        check_is_fitted(self, "covariance_")
        if self._precision is None:
            self._precision = linalg.pinvh(self.covariance_, check_finite=False)
        return self._precision

    def score(self, X_test, y=None):
        """Gaussian log-likelihood of ``X_test`` under the released covariance.

        As :meth:`sklearn.covariance.EmpiricalCovariance.score`. It reads
        ``X_test``; it is private only with respect to the training data.

        Parameters
        ----------
        X_test : array-like of shape (n_samples, n_features)
            Test data, centred by ``location_``.
        y : Ignored

        Returns
        -------
        res : float
            The log-likelihood (−inf if the release is not positive definite).
        """
        X_test = validate_data(self, X_test, reset=False)
        test_covariance = empirical_covariance(
            X_test - self.location_, assume_centered=True
        )
        return log_likelihood(test_covariance, self.precision_)

    def error_norm(self, comp_cov, norm="frobenius", scaling=True, squared=True):
        """Error between ``comp_cov`` and the released covariance.

        Parameters
        ----------
        comp_cov : array-like of shape (n_features, n_features)
            The covariance to compare with.
        norm : {"frobenius", "spectral"}, default="frobenius"
        scaling : bool, default=True
            Divide the squared norm by n_features.
        squared : bool, default=True
            Return the squared norm, else the norm.

        Returns
        -------
        result : float
        """
        check_is_fitted(self, "covariance_")
        error = np.asarray(comp_cov) - self.covariance_
        if norm == "frobenius":
            squared_norm = float(np.sum(error**2))
        elif norm == "spectral":
            squared_norm = float(np.linalg.norm(error, 2) ** 2)
        else:
            raise ValueError(f"norm must be 'frobenius' or 'spectral', got {norm!r}.")
        if scaling:
            squared_norm /= error.shape[0]
        return squared_norm if squared else float(np.sqrt(squared_norm))


class BasePrivateCovariance(ReleasedCovarianceMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of the estimators that release a noisy second moment.

    Subclasses set ``_mechanism`` (a function of ``skprivcov.mechanisms`` taking
    ``(second_moment, n_samples, budget, rng)`` and returning
    ``(release, spent)``), the notions it offers and its default budget, or
    override ``_compute_release`` for a mechanism with several data passes.
    """

    _parameter_constraints: dict = {
        "rho": [Interval(Real, 0, None, closed="neither"), None],
        "epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "delta": [Interval(Real, 0, 1, closed="left"), None],
        "norm_bound": [Interval(Real, 0, None, closed="neither")],
        "assume_centered": ["boolean"],
        "random_state": ["random_state", np.random.Generator],
        "accountant": [PrivacyAccountant, None],
    }
    # Notions the mechanism offers, and the budget when none is given.
    _notions = ("zcdp",)
    _default_budget = PrivacyCost.zcdp(0.1)
    # Whether the mechanism's release is PSD, so the centred one is kept PSD.
    _psd_release = False

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        norm_bound=1.0,
        assume_centered=True,
        random_state=None,
        accountant=None,
    ):
        self.rho = rho
        self.epsilon = epsilon
        self.delta = delta
        self.norm_bound = norm_bound
        self.assume_centered = assume_centered
        self.random_state = random_state
        self.accountant = accountant

    def _resolve_budget(self):
        return resolve_budget(
            rho=self.rho,
            epsilon=self.epsilon,
            delta=self.delta,
            notions=self._notions,
            default=self._default_budget,
            owner=type(self).__name__,
        )

    def _check_parameters(self, X):
        """Checks of parameter combinations (and of parameters against the
        shape of X) that a subclass needs; run before the accountant is
        charged. None here."""

    def _statistics_target(self, X, bound):
        """The matrix the mechanism perturbs: the second moment of the rows
        x / max(‖x‖, bound), augmented with the constant column unless
        ``assume_centered`` (ALGORITHMS.md §8.2)."""
        stats = unit_ball_statistics(X, bound, with_mean=not self.assume_centered)
        if self.assume_centered:
            return stats.second_moment
        return augment(stats.second_moment, stats.mean)

    def _compute_release(self, X, budget, rng):
        """Release at unit scale: ``(release, spent, bound)``.

        ``release`` estimates the target of the rows x / max(‖x‖, bound);
        ``bound`` is ``norm_bound`` here, and may be a data-dependent (private)
        threshold for subclasses that choose one.
        """
        bound = float(self.norm_bound)
        target = self._statistics_target(X, bound)
        release, spent = self._mechanism(target, X.shape[0], budget, rng)
        return release, spent, bound

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release a private covariance of X.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, \
                n_features)
            Training data; rows beyond ``norm_bound`` are clipped. Arrays and
            memmaps (float64 or float32), CSR and CSC matrices and dask arrays
            are read chunk by chunk and never copied whole (docs/large_data.rst).
        y : Ignored

        Returns
        -------
        self : object
            The fitted estimator.
        """
        budget = self._resolve_budget()
        X = self._validate_input(X, reset=True)
        self._check_parameters(X)
        self._charge(budget)
        rng = check_generator(self.random_state)
        release, spent, bound = self._compute_release(X, budget, rng)
        # Checked before anything is stored: an overspent release is never kept.
        spent = _charged_cost(spent, budget)

        # Post-processing of the release only; back to the scale of the data.
        if self.assume_centered:
            covariance, location = release, np.zeros(X.shape[1])
        else:
            covariance, location = center(release)
            if self._psd_release:
                covariance = project_psd(covariance)
        self._set_release(covariance * bound**2, location * bound)
        self.privacy_spent_ = spent
        return self


# The parts of a budget are floats summed in floating point: they may exceed the
# budget by rounding, a few ulps, and never by more.
_ROUNDING = 1e-12


def _charged_cost(spent, budget):
    """The cost to report: the budget charged, once the mechanism's parts are
    checked to fit in it, so ``privacy_spent_`` equals what the accountant
    recorded."""
    if spent.notion != budget.notion or spent.parameter > budget.parameter * (
        1.0 + _ROUNDING
    ):
        raise RuntimeError(
            f"The mechanism spent {spent}, more than the budget {budget} it was "
            "given; this is a bug, please report it."
        )
    return budget
