"""What the public-bounds transformers share: stateless fit, tags, validation."""

from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    _fit_context,
)

from skprivcov._validation import check_input

__all__ = ["BasePublicBoundsTransformer"]


class BasePublicBoundsTransformer(
    OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """A stateless transformer: ``fit`` only records the input's shape and names.

    Subclasses implement ``_transform(X)`` on validated input and say whether
    they accept sparse input with ``_accept_sparse``.
    """

    _accept_sparse = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _validate(self, X, *, reset):
        # Every check of skprivcov's own: no message names a value of X.
        return check_input(self, X, reset=reset, accept_sparse=self._accept_sparse)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check X and record its number of features; nothing is learned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data; only its shape and column names are recorded.
        y : Ignored

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
        return self._transform(self._validate(X, reset=False))
