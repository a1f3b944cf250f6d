"""What the public-bounds transformers share: stateless fit, tags, validation."""

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from skprivcov._compat import fit_context
from skprivcov._data import check_training_rows

__all__ = ["BasePublicBoundsTransformer"]


class BasePublicBoundsTransformer(
    OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """A stateless transformer: ``fit`` only records the input's shape and names.

    Subclasses implement ``_transform(X)`` on validated input and say whether
    they accept sparse input with ``_accept_sparse``.

    Their input is usually training data on its way to a private estimator,
    before that estimator's charge: so they refuse no value (a refusal would
    be a free test of the rows, docs/algorithms.rst §13.2). A row with a NaN,
    infinite or non-number entry comes out as a row of NaN, and the
    estimator's own ``nonfinite`` rule decides, after its charge.
    """

    _accept_sparse = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _validate(self, X, *, reset):
        # Every check of skprivcov's own: no message names a value of X, and
        # none depends on one.
        return check_training_rows(
            self, X, reset=reset, accept_sparse=self._accept_sparse
        )

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check X and record its number of features; nothing is learned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data; only its shape and column names are recorded.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The transformer.
        """
        self._validate(X, reset=True)
        return self

    def transform(self, X):
        """Apply the public bounds to each row of X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        X_out : ndarray or sparse matrix of shape (n_samples, n_features)
            The bounded rows, in the dtype of X (float32 or float64).
        """
        self._validate_params()
        X = self._validate(X, reset=False)
        # Silent arithmetic: a warning about inf·0 would tell, for free, that a
        # row is not finite.
        with np.errstate(all="ignore"):
            return _nonfinite_rows_as_nan(X, self._transform(X))


def _nonfinite_rows_as_nan(X, X_out):
    """``X_out`` with every row that is not finite in X set to NaN (its stored
    entries, for sparse output)."""
    if sparse.issparse(X):
        X = X.tocsr()
        finite = np.isfinite(X.data)
        bad = np.zeros(X.shape[0], dtype=bool)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        bad[rows[~finite]] = True
    else:
        bad = ~np.isfinite(X).all(axis=1)
    if not bad.any():
        return X_out
    if not sparse.issparse(X_out):
        X_out[bad] = np.nan
        return X_out
    out = X_out.tocsr(copy=True)
    out.data[np.repeat(bad, np.diff(out.indptr))] = np.nan
    return out.asformat(X_out.format)
