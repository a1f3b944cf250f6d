"""What PrivateRidge and PrivateRidgeCV share: parameters, the own release, predict."""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils._param_validation import Interval
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from skprivcov.covariance import BasePrivateCovariance, GaussianCovariance
from skprivcov.linear_model._rows import (
    ROW_NORM_BOUND,
    bounded_rows,
    release_in_data_units,
    target_map,
)

__all__ = ["BasePrivateRidge"]


def default_estimator():
    """The covariance estimator used when none is given (see PrivateRidge)."""
    return GaussianCovariance()


class BasePrivateRidge(RegressorMixin, BaseEstimator):
    """Shared parameters and methods of the private ridge regressors."""

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "estimator": [BasePrivateCovariance, None],
        "X_norm_bound": [Interval(Real, 0, None, closed="neither")],
        "y_bound": [Interval(Real, 0, None, closed="neither"), tuple],
        "random_state": ["random_state", np.random.Generator],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # The fit is noisy by design: scikit-learn's minimum-R² check does not apply.
        tags.regressor_tags.poor_score = True
        return tags

    def _validate_training_data(self, X, y):
        X, y = validate_data(
            self,
            X,
            y,
            reset=True,
            accept_sparse="csr",
            dtype=(np.float64, np.float32),
            y_numeric=True,
            ensure_min_samples=2,
        )
        # Bounds are checked before any privacy is spent.
        target_map(self.y_bound, self.fit_intercept)
        return X, y

    def _release_estimator(self, random_state):
        """A fresh covariance estimator for the bounded rows [x, y'] (never the
        user's instance): norm bound √2, the constant column iff an intercept."""
        estimator = default_estimator() if self.estimator is None else self.estimator
        return clone(estimator).set_params(
            norm_bound=ROW_NORM_BOUND,
            assume_centered=not self.fit_intercept,
            random_state=random_state,
        )

    def _bounded_rows(self, X, y):
        return bounded_rows(
            X,
            y,
            X_norm_bound=self.X_norm_bound,
            y_bound=self.y_bound,
            fit_intercept=self.fit_intercept,
        )

    def _release_of(self, estimator, n_samples, target_name="y"):
        """The release of a fitted estimator, in the units of [X, y]."""
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            names = [*names, target_name]
        return release_in_data_units(
            estimator,
            n_samples=n_samples,
            X_norm_bound=self.X_norm_bound,
            y_bound=self.y_bound,
            fit_intercept=self.fit_intercept,
            names=names,
        )

    def predict(self, X):
        """Predict with the linear model: ``X @ coef_ + intercept_``.

        Prediction reads X but not the training data: it is post-processing of
        the release with respect to the training rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "coef_")
        X = validate_data(
            self, X, reset=False, accept_sparse=("csr", "csc"), dtype=np.float64
        )
        return safe_sparse_dot(X, self.coef_) + self.intercept_
