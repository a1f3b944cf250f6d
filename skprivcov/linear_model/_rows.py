"""The bounded rows [x, y] a ridge regressor releases, and that release in data units.

Each row becomes z = (x / max(‖x‖, B_x), (clip(y, lo, hi) − c) / h), a fixed
function of the row and of public bounds, so ‖z‖ ≤ √2. The covariance
estimator releases the second moment of these rows (with the constant column of
ALGORITHMS.md §8.2 when an intercept is fitted) at norm bound √2; mapping the
release back to the units of (x, y) is post-processing.
"""

import math
from numbers import Real

import numpy as np
from scipy import sparse

from skprivcov._stats import _inverse_scales
from skprivcov.covariance import CovarianceRelease

__all__ = ["ROW_NORM_BOUND", "bounded_rows", "release_in_data_units", "target_map"]

# ‖x/max(‖x‖, B_x)‖ ≤ 1 and |y'| ≤ 1, so ‖z‖ ≤ √2.
ROW_NORM_BOUND = math.sqrt(2.0)


def target_map(y_bound, fit_intercept):
    """(lower, upper, shift c, scale h) from the public target bounds.

    y' = (clip(y, lower, upper) − c)/h lies in [−1, 1]. With an intercept,
    c is the midpoint of the bounds (the intercept absorbs the shift); without
    one there is no constant column to absorb it, so c = 0 and
    h = max(|lower|, |upper|).
    """
    if isinstance(y_bound, Real):
        lower, upper = -float(y_bound), float(y_bound)
    else:
        if len(y_bound) != 2:
            raise ValueError(
                f"y_bound must be a positive number or (lower, upper); got {y_bound!r}."
            )
        lower, upper = (float(value) for value in y_bound)
        if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
            raise ValueError(
                "y_bound=(lower, upper) needs finite bounds with lower < upper; got "
                f"{y_bound!r}."
            )
    if fit_intercept:
        return lower, upper, (lower + upper) / 2.0, (upper - lower) / 2.0
    return lower, upper, 0.0, max(abs(lower), abs(upper))


def bounded_rows(X, y, *, X_norm_bound, y_bound, fit_intercept):
    """The rows z = (x/max(‖x‖, B_x), y') (dense, or CSR for sparse X)."""
    lower, upper, shift, scale = target_map(y_bound, fit_intercept)
    target = ((np.clip(y, lower, upper) - shift) / scale)[:, None]
    factors = _inverse_scales(X, float(X_norm_bound))
    if sparse.issparse(X):
        features = sparse.diags_array(factors) @ X
        return sparse.hstack([features, target], format="csr")
    return np.hstack([X * factors[:, None], target])


def release_in_data_units(
    estimator, *, n_samples, X_norm_bound, y_bound, fit_intercept, names
):
    """The release of a covariance estimator fitted on ``bounded_rows``, mapped
    back to the units of (x, y): x = B_x z_x, y = h z_y + c (post-processing)."""
    _, _, shift, scale = target_map(y_bound, fit_intercept)
    n_columns = estimator.covariance_.shape[0]
    scales = np.full(n_columns, float(X_norm_bound))
    scales[-1] = scale
    shifts = np.zeros(n_columns)
    shifts[-1] = shift
    release = CovarianceRelease.from_estimator(estimator, n_samples=n_samples)
    return release.affine_transformed(scales, shifts, feature_names=names)
