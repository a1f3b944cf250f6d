"""What PrivateRidge and PrivateRidgeCV share: parameters, the own release, predict."""

from numbers import Real

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from skprivcov._compat import Interval, StrOptions
from skprivcov._data import (
    as_numeric,
    canonical_sparse,
    check_input,
    check_public,
    check_target,
    compute_array,
    is_dask_array,
)
from skprivcov._fit import (
    NORM_BOUND,
    NORM_BOUND_RANGE,
    PROJECTION,
    RELEASE_SEED,
)
from skprivcov.covariance import BasePrivateCovariance, GaussianCovariance
from skprivcov.linear_model._rows import (
    ROW_NORM_BOUND,
    bounded_rows,
    is_box,
    release_in_data_units,
    target_map,
)

__all__ = ["BasePrivateRidge"]


def default_estimator():
    """The covariance estimator used when none is given (see PrivateRidge)."""
    return GaussianCovariance()


def release_estimator(estimator, fit_intercept):
    """A fresh covariance estimator for the bounded rows [x, y'] (never the
    user's instance): norm bound √2, the constant column iff an intercept."""
    estimator = default_estimator() if estimator is None else estimator
    estimator = clone(estimator).set_params(
        norm_bound=ROW_NORM_BOUND, assume_centered=not fit_intercept
    )
    if estimator._parameter_constraints.get("projection") is PROJECTION:
        # The solver projects the joint (features, target) block itself
        # (docs/ridge.rst); projecting the whole release onto the trace
        # ball first shrank every eigenvalue at small ρ and raised the
        # test error on diabetes (e.g. 5606 against 5298 at ρ = 0.01).
        # (A mechanism whose projection is its own, as the nuclear one's,
        # keeps it.)
        estimator.set_params(projection=None)
    return estimator


class BasePrivateRidge(RegressorMixin, BaseEstimator):
    """Shared parameters and methods of the private ridge regressors."""

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "estimator": [BasePrivateCovariance, None],
        # "auto": private bounds inside the budget (docs/algorithms.rst §18.5).
        "X_norm_bound": [*NORM_BOUND, StrOptions({"auto"})],
        "y_bound": [
            Interval(Real, *NORM_BOUND_RANGE, closed="both"),
            tuple,
            StrOptions({"auto"}),
        ],
        "random_state": RELEASE_SEED,
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # The fit is noisy by design: scikit-learn's minimum-R² check does not apply.
        tags.regressor_tags.poor_score = True
        return tags

    def _validate_training_data(self, X, y):
        """The public checks of (X, y), before anything is spent: shapes,
        dtype kinds, the sparse format and the target bounds; no value read."""
        X = check_public(
            self, X, reset=True, accept_sparse=("csr", "csc"), ensure_min_features=1
        )
        y = check_target(y, X.shape[0], type(self).__name__)
        if not (isinstance(self.y_bound, str) and self.y_bound == "auto"):
            target_map(self.y_bound, self.fit_intercept)
        return X, y

    def _release_estimator(self):
        """A fresh covariance estimator for the bounded rows [x, y'] (never the
        user's instance): :func:`release_estimator`."""
        return release_estimator(self.estimator, self.fit_intercept)

    def _planned_charges(self):
        """The charges one fit makes: none from a given release, else the
        release(s) it makes, charged once by the fit template (see
        ``skprivcov.model_selection.planned_charges``)."""
        if getattr(self, "covariance", None) is not None:
            return []
        template = self._release_estimator()
        return [(template.accountant, template.fit_cost())]

    def _bounded_rows(self, X, y):
        """The bounded rows [x, y'], values converted after the charge."""
        if is_dask_array(X):
            # Its blocks are read here: a failing block is reported by its
            # type only, as in the statistics pass (docs/algorithms.rst §13.1).
            X = compute_array(X)
        X_norm_bound, y_bound = self._fitted_bounds()
        return bounded_rows(
            as_numeric(X),
            as_numeric(y, "y"),
            X_norm_bound=X_norm_bound,
            y_bound=y_bound,
            fit_intercept=self.fit_intercept,
        )

    def _fitted_bounds(self):
        """The bounds this fit clips at: the parameters, or the private ones
        chosen for "auto" (``X_norm_bound_``, ``y_bound_``)."""
        return (
            getattr(self, "X_norm_bound_", self.X_norm_bound),
            getattr(self, "y_bound_", self.y_bound),
        )

    def _release_of(self, estimator, n_samples, target_name="y"):
        """The release of a fitted estimator, in the units of [X, y]."""
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            names = [*names, target_name]
        X_norm_bound, y_bound = self._fitted_bounds()
        return release_in_data_units(
            estimator,
            n_samples=n_samples,
            X_norm_bound=X_norm_bound,
            y_bound=y_bound,
            fit_intercept=self.fit_intercept,
            names=names,
        )

    def predict(self, X):
        """Predict with the linear model: ``X @ coef_ + intercept_``.

        Each feature is first clipped into the private box ``X_norm_bound_``
        when the model chose one (``X_norm_bound="auto"``, docs/algorithms.rst
        §18.5), as its training rows were.

        Prediction reads X but not the training data: it is post-processing of
        the release with respect to the training rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The predictions.
        """
        check_is_fitted(self, "coef_")
        X = check_input(self, X, reset=False, accept_sparse=("csr", "csc"))
        bound = getattr(self, "X_norm_bound_", None)
        if bound is not None and is_box(bound):
            # The model was fit on features clipped into the private box
            # (docs/algorithms.rst §18.5): its rows are clipped the same way.
            lower, upper = bound
            if sparse.issparse(X) and np.all((lower <= 0) & (upper >= 0)):
                # Zeros lie in every box: only the stored entries move.
                # (Duplicates summed first, so an entry is clipped as the
                # dense row's is.)
                X = canonical_sparse(X.tocsr(), dtype=np.float64).copy()
                X.data = np.clip(X.data, lower[X.indices], upper[X.indices])
            else:
                X = X.toarray() if sparse.issparse(X) else X
                X = np.clip(np.asarray(X, dtype=np.float64), lower, upper)
        return safe_sparse_dot(X, self.coef_) + self.intercept_
