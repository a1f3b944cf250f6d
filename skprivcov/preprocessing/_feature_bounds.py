"""Clip each feature into public bounds and map it affinely to a fixed range."""

from numbers import Real

import numpy as np

from skprivcov.preprocessing._base import BasePublicBoundsTransformer

__all__ = ["FeatureBoundsScaler"]


class FeatureBoundsScaler(BasePublicBoundsTransformer):
    """Clip feature j into public bounds [lower_j, upper_j], then map it to a range.

    Each value is clipped into its bounds and mapped by the affine map that
    sends ``lower_j`` to ``feature_range[0]`` and ``upper_j`` to
    ``feature_range[1]``. Every output row then has a known ℓ2 norm bound,
    :meth:`row_norm_bound`, to give to an estimator's ``norm_bound``. Unlike
    :class:`sklearn.preprocessing.MinMaxScaler`, the bounds are parameters
    and are never learned: the transformer is stateless and costs no privacy.

    Parameters
    ----------
    lower : float or array-like of shape (n_features,), default=-1.0
        Public lower bound of each feature (one value for all features, or one
        per feature). Choose the bounds without looking at the data.

    upper : float or array-like of shape (n_features,), default=1.0
        Public upper bound of each feature; must exceed ``lower``.

    feature_range : tuple (min, max), default=(-1.0, 1.0)
        The range each feature is mapped to; ``min < max``. The symmetric
        default puts the midpoint of the bounds at zero.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit (fit is optional).

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    RowNormClipper : Clip rows to a public ℓ2 norm bound.

    Notes
    -----
    Values inside their bounds are mapped, not clipped, so the map is
    invertible on them. Sparse input is refused: the affine map does not keep
    zeros at zero.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.preprocessing import FeatureBoundsScaler
    >>> scaler = FeatureBoundsScaler(lower=[0, 10], upper=[1, 30])
    >>> scaler.transform(np.array([[0.5, 10.0], [2.0, 25.0]]))
    array([[ 0. , -1. ],
           [ 1. ,  0.5]])
    >>> float(scaler.row_norm_bound())
    1.4142135623730951
    """

    _parameter_constraints: dict = {
        "lower": ["array-like", Real],
        "upper": ["array-like", Real],
        "feature_range": [tuple],
    }

    def __init__(self, *, lower=-1.0, upper=1.0, feature_range=(-1.0, 1.0)):
        self.lower = lower
        self.upper = upper
        self.feature_range = feature_range

    def _bounds(self, n_features):
        """(lower, upper, range_min, range_max), checked, for ``n_features``."""
        lower = np.asarray(self.lower, dtype=np.float64)
        upper = np.asarray(self.upper, dtype=np.float64)
        for name, value in (("lower", lower), ("upper", upper)):
            if value.ndim > 1 or (value.ndim == 1 and value.shape[0] != n_features):
                raise ValueError(
                    f"{name} must be a number or have one entry per feature "
                    f"({n_features}); got shape {value.shape}."
                )
            if not np.all(np.isfinite(value)):
                raise ValueError(f"{name} must be finite, got {getattr(self, name)!r}.")
        if not np.all(lower < upper):
            raise ValueError(
                "Every lower bound must be smaller than its upper bound; got "
                f"lower={self.lower!r}, upper={self.upper!r}."
            )
        if len(self.feature_range) != 2:
            raise ValueError(
                f"feature_range must be (min, max), got {self.feature_range!r}."
            )
        low, high = (float(value) for value in self.feature_range)
        if not (np.isfinite(low) and np.isfinite(high) and low < high):
            raise ValueError(
                "feature_range must be two finite numbers with min < max, got "
                f"{self.feature_range!r}."
            )
        return (
            np.broadcast_to(lower, n_features),
            np.broadcast_to(upper, n_features),
            low,
            high,
        )

    def _transform(self, X):
        lower, upper, low, high = self._bounds(X.shape[1])
        slope = (high - low) / (upper - lower)
        clipped = np.clip(X, lower.astype(X.dtype), upper.astype(X.dtype))
        return ((clipped - lower) * slope + low).astype(X.dtype, copy=False)

    def row_norm_bound(self, n_features=None):
        """The public ℓ2 bound of every output row: ``√(Σ_j max(|min|, |max|)²)``.

        Parameters
        ----------
        n_features : int, default=None
            Needed only when the bounds are scalars and the transformer has not
            been fitted.

        Returns
        -------
        bound : float
            The bound.
        """
        if n_features is None:
            n_features = getattr(self, "n_features_in_", None)
        if n_features is None:
            sizes = {np.size(self.lower), np.size(self.upper)} - {1}
            if not sizes:
                raise ValueError(
                    "Give n_features: the bounds are scalars and the transformer "
                    "has not been fitted."
                )
            n_features = max(sizes)
        _, _, low, high = self._bounds(n_features)
        return float(np.sqrt(n_features) * max(abs(low), abs(high)))
