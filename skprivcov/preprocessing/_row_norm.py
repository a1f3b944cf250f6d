"""Clip each row to a public ℓ2 norm bound, optionally scaling into the unit ball."""

from numbers import Real

import numpy as np
from scipy import sparse

from skprivcov._compat import Interval
from skprivcov._data import canonical_sparse, row_norms, unit_ball_factors
from skprivcov.preprocessing._base import BasePublicBoundsTransformer

__all__ = ["RowNormClipper"]


class RowNormClipper(BasePublicBoundsTransformer):
    """Clip every row to a public ℓ2 norm bound: x ↦ min(1, B/‖x‖)·x.

    The bounding step of every mechanism in skprivcov (docs/algorithms.rst §3.3),
    as a transformer for pipelines: rows with ‖x‖ ≤ B are left exactly as they
    are, longer rows are shrunk onto the sphere of radius B. With
    ``scale=True`` the result is also divided by B, so that every row lies in
    the unit ball. Stateless: it needs no fit and costs no privacy, since each
    output row depends only on its input row and on B.

    Parameters
    ----------
    norm_bound : float > 0, default=1.0
        The public bound B. Choose it without looking at the data.

    scale : bool, default=False
        Divide the clipped rows by B, into the unit ball.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during fit (fit is optional).

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    FeatureBoundsScaler : Clip each feature into public bounds and map it to a
        fixed range.

    Notes
    -----
    The privacy guarantees of skprivcov's estimators never depend on this
    transformer: each estimator clips rows to its own ``norm_bound`` again. A
    clipped row has norm B up to a rounding error of a few ulps. Sparse input
    stays sparse.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.preprocessing import RowNormClipper
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4]])
    >>> RowNormClipper(norm_bound=1.0).transform(X)
    array([[0.6, 0.8],
           [0.3, 0.4]])
    >>> RowNormClipper(norm_bound=2.0, scale=True).transform(X)
    array([[0.6 , 0.8 ],
           [0.15, 0.2 ]])
    """

    _parameter_constraints: dict = {
        "norm_bound": [Interval(Real, 0, None, closed="neither")],
        "scale": ["boolean"],
    }
    _accept_sparse = ("csr", "csc")

    def __init__(self, *, norm_bound=1.0, scale=False):
        self.norm_bound = norm_bound
        self.scale = scale

    def _transform(self, X):
        bound = float(self.norm_bound)
        if sparse.issparse(X):
            # Duplicates summed first: the norm is that of the row as it is
            # used (docs/algorithms.rst §13.3).
            X = canonical_sparse(X)
        norms = row_norms(X)
        if self.scale:
            # x / max(‖x‖, B): exactly the rows every estimator computes (_stats).
            factors = unit_ball_factors(norms, bound)
        else:
            # Rows inside the ball keep the factor 1 exactly, hence stay unchanged.
            factors = np.ones_like(norms)
            np.divide(bound, norms, out=factors, where=norms > bound)
        factors = factors.astype(X.dtype, copy=False)
        if not sparse.issparse(X):
            return X * factors[:, None]
        if X.format == "csr":
            values = X.data * np.repeat(factors, np.diff(X.indptr))
        else:  # CSC: each stored value belongs to the row its index names.
            values = X.data * factors[X.indices]
        return type(X)((values, X.indices, X.indptr), shape=X.shape)
