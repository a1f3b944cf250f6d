"""The bounded rows [x, y] a ridge regressor releases, and that release in data units.

Each row becomes z = (x / max(‖x‖, B_x), (clip(y, lo, hi) − c) / h), a fixed
function of the row and of public bounds, so ‖z‖ ≤ √2. With a box per feature
(docs/algorithms.rst §18.5), x is first mapped into [−1, 1]^d by the box and
B_x = √d. The covariance
estimator releases the second moment of these rows (with the constant column of
docs/algorithms.rst §8.2 when an intercept is fitted) at norm bound √2; mapping the
release back to the units of (x, y) is post-processing.
"""

import math
from dataclasses import replace
from numbers import Real

import numpy as np
from scipy import sparse

from skprivcov._data import (
    canonical_sparse,
    check_per_row,
    row_norms,
    unit_ball_factors,
)
from skprivcov._fit import NORM_BOUND_RANGE
from skprivcov.covariance import CovarianceRelease

__all__ = [
    "ROW_NORM_BOUND",
    "bounded_rows",
    "feature_map",
    "feature_noise_level",
    "is_box",
    "penalty_scales",
    "release_in_data_units",
    "target_map",
]

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
        smallest, largest = NORM_BOUND_RANGE
        if not (
            math.isfinite(lower)
            and math.isfinite(upper)
            and max(abs(lower), abs(upper)) <= largest
            and upper - lower >= 2.0 * smallest
        ):
            # The same safe range as a norm bound: nothing can overflow later.
            raise ValueError(
                "y_bound=(lower, upper) needs finite bounds with lower < upper, "
                f"of magnitude at most {largest:g} and upper - lower >= "
                f"{2.0 * smallest:g}; got {y_bound!r}."
            )
    if fit_intercept:
        return lower, upper, (lower + upper) / 2.0, (upper - lower) / 2.0
    return lower, upper, 0.0, max(abs(lower), abs(upper))


def is_box(X_norm_bound):
    """Whether the bound of X is a box per feature, (lower, upper) arrays
    (``X_norm_bound="auto"``'s private box, docs/algorithms.rst §18.5), not
    one row-norm bound."""
    return isinstance(X_norm_bound, tuple)


def feature_map(X_norm_bound):
    """(lower, upper, shift c, scale s, row bound B) of each feature's map
    x' = (clip(x, lower, upper) − c)/s into [−1, 1], then rows x'/max(‖x'‖, B).

    For one row-norm bound B_x: no box (±inf), c = 0, s = 1, B = B_x. For a
    box (§18.5): c its midpoint and s its half-width, so |x'_j| ≤ 1 and
    ‖x'‖ ≤ √d = B (no row is shrunk). (Without an intercept the box is
    symmetric, c = 0: there is no constant column to absorb a shift.)
    """
    if not is_box(X_norm_bound):
        return -np.inf, np.inf, 0.0, 1.0, float(X_norm_bound)
    lower, upper = (np.asarray(edge, dtype=np.float64) for edge in X_norm_bound)
    shift, scale = (lower + upper) / 2.0, (upper - lower) / 2.0
    return lower, upper, shift, scale, math.sqrt(lower.size)


def penalty_scales(X_norm_bound):
    """The per-feature scales t_j = s_j / max s of the ridge penalty (§18.5):
    with a box the model penalises the features in the box's units, i.e.
    2α·diag(t²) in the units of X, α set from the noise level of the
    feature of the largest scale; None (one scale) for a row-norm bound."""
    if not is_box(X_norm_bound):
        return None
    scale = feature_map(X_norm_bound)[3]
    return scale / scale.max()


def bounded_rows(X, y, *, X_norm_bound, y_bound, fit_intercept):
    """The rows z = (x/max(‖x‖, B_x), y') (dense, or CSR for sparse X).

    Sparse X is made canonical first, so that each row is clipped by the norm
    of its summed entries (docs/algorithms.rst §13.3). A row with a non-finite entry
    (or a NaN target) stays non-finite here, for the covariance estimator's
    ``nonfinite`` rule, and so does a row with an infinite target (it is not
    clipped to the bound: it is not a value).
    """
    lower, upper, shift, scale = target_map(y_bound, fit_intercept)
    y = check_per_row(y, X.shape[0], "The target")  # no broadcast (§13.7)
    target = ((np.clip(y, lower, upper) - shift) / scale)[:, None]
    target[~np.isfinite(y)] = np.nan
    box = is_box(X_norm_bound)
    if sparse.issparse(X):
        X = canonical_sparse(X.tocsr(), dtype=np.float64)
        if box and np.any(feature_map(X_norm_bound)[2]):
            # A box with a shift fills the zeros: the rows are the dense
            # ones, the same statistic as for the same X given dense (§13.3).
            X = X.toarray()
    if sparse.issparse(X):
        if box:
            # A symmetric box (no shift): zeros stay zeros (§18.5); a
            # non-finite entry stays non-finite.
            low, high, _, scales, bound = feature_map(X_norm_bound)
            columns = X.indices
            with np.errstate(invalid="ignore"):
                data = np.clip(X.data, low[columns], high[columns]) / scales[columns]
            data = np.where(np.isfinite(X.data), data, np.nan)
            X = sparse.csr_matrix((data, columns, X.indptr), shape=X.shape)
        else:
            bound = float(X_norm_bound)
        factors = unit_ball_factors(row_norms(X), bound)
        with np.errstate(invalid="ignore"):
            values = X.data * np.repeat(factors, np.diff(X.indptr))
        features = sparse.csr_matrix((values, X.indices, X.indptr), shape=X.shape)
        return sparse.hstack([features, target], format="csr")
    if box:
        low, high, shifts, scales, bound = feature_map(X_norm_bound)
        with np.errstate(invalid="ignore"):
            # A non-finite entry stays non-finite (NaN) for the nonfinite rule.
            mapped = (np.clip(X, low, high) - shifts) / scales
            X = np.where(np.isfinite(X), mapped, np.nan)
    else:
        bound = float(X_norm_bound)
    factors = unit_ball_factors(row_norms(X), bound)
    with np.errstate(invalid="ignore"):
        return np.hstack([X * factors[:, None], target])


def release_in_data_units(
    estimator,
    *,
    n_samples,
    X_norm_bound,
    y_bound,
    fit_intercept,
    names,
):
    """The release of a covariance estimator fitted on ``bounded_rows``, mapped
    back to the units of (x, y): x = B_x z_x, y = h z_y + c (post-processing);
    with a box per feature (§18.5), x_j = s_j·√d·z_j + c_j.

    Its ``noise_level`` is that of the feature block in the units of X²: the
    estimator's ``eigenvalue_floor_`` (public n, d and budget times the
    release's scale², docs/algorithms.rst §15) times B_x², the scale of every
    feature column. ``PrivateRidge(alpha="auto")`` reads it (§16), so every
    release a fitted ridge model or fold search publishes states it.
    (``affine_transformed`` drops it, since the target's scale h differs.)
    """
    _, _, shift, scale = target_map(y_bound, fit_intercept)
    n_columns = estimator.covariance_.shape[0]
    _, _, x_shifts, x_scales, bound = feature_map(X_norm_bound)
    scales = np.empty(n_columns)
    scales[:-1] = x_scales * bound
    scales[-1] = scale
    shifts = np.zeros(n_columns)
    shifts[:-1] = x_shifts
    shifts[-1] = shift
    release = CovarianceRelease.from_estimator(estimator, n_samples=n_samples)
    release = release.affine_transformed(scales, shifts, feature_names=names)
    noise = feature_noise_level(estimator, X_norm_bound)
    return replace(release, noise_level=noise)


def feature_noise_level(estimator, X_norm_bound):
    """The noise level of the feature block of a release of ``bounded_rows``,
    in the units of X²: ``eigenvalue_floor_`` · B_x² (docs/algorithms.rst §16);
    for a box (§18.5), ``eigenvalue_floor_`` · d · max_j s_j², that of the
    feature of the largest scale (the others' is smaller: the noise of the
    feature block is diag(s)·N·diag(s)·d)."""
    _, _, _, scales, bound = feature_map(X_norm_bound)
    return float(estimator.eigenvalue_floor_) * (bound * float(np.max(scales))) ** 2
