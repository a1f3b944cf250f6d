"""Private bounds for a ridge model's rows: ``X_norm_bound="auto"`` and
``y_bound="auto"``, the defaults (docs/algorithms.rst §18.5).

After the model's one charge, on the same rows as its release (sequential
composition; the shares are in ``skprivcov.mechanisms._splits``):

* ``X_norm_bound="auto"``: a private box per feature, the 2% and 98%
  quantiles of every column on the public signed grid (§18.1, §18.3), 2d
  quantiles at 1/(2d) of the part ``"X box"`` each; the rows are then mapped
  into [−1, 1]^d by the box (undone on the coefficients).
* ``y_bound="auto"``: the private box of the target's 1% and 99% quantiles
  (part ``"y bound"``).
* the release of the bounded rows at the rest (part ``"release"``).

When the share of the box cannot buy it (a public rule of n, d and the
budget, :func:`feature_box_affordable`), a model with an intercept spends its
budget on a private mean of the target instead and predicts it (the parts
``"y bound"`` and ``"y mean"``). The parts are in ``privacy_parts_``.
"""

import math
from fractions import Fraction

import numpy as np
from scipy import sparse

from skprivcov._data import canonical_sparse, feature_counts, refuse_nonfinite
from skprivcov._fit import is_auto
from skprivcov.mechanisms import (
    private_box,
    quantile_epsilon,
    signed_grid,
    split_budget,
)
from skprivcov.mechanisms.noise import is_hardened, noisy_scalar

__all__ = [
    "FEATURE_QUANTILES",
    "TARGET_QUANTILES",
    "choose_bounds",
    "feature_box_affordable",
    "mean_budget",
    "private_target_mean",
    "release_budget",
]

FEATURE_QUANTILES = (0.02, 0.98)
TARGET_QUANTILES = (0.01, 0.99)
# The failure probability behind the target box's margin (§18.5): an edge far
# beyond the targets would scale them onto almost nothing and blow the model
# up, so it is small; 10^−3 measured better than 10^−6 on diabetes (a box of
# less central quantiles) with no split blowing up (docs/ridge.rst).
TARGET_BETA = 1e-3
# The box of the fallback's mean: an edge far beyond the targets would drown
# the mean in noise (its sensitivity is the box's width over n).
_MEAN_BOX_BETA = 1e-6


def release_budget(cost, X_norm_bound, y_bound):
    """(the parts the auto bounds spend, the budget left for the release):
    ``SPLITS["ridge bounds auto"]`` (§18.5)."""
    parts = split_budget(
        "ridge bounds auto", cost, X_auto=is_auto(X_norm_bound), y_auto=is_auto(y_bound)
    )
    return parts[:-1], parts[-1].cost


def mean_budget(cost, y_bound):
    """The parts of the fallback (``SPLITS["ridge mean"]``, §18.5)."""
    return split_budget("ridge mean", cost, y_auto=is_auto(y_bound))


def _box_epsilon(cost, n_features):
    """The exponential mechanism's ε of each of the box's 2d quantiles."""
    part = split_budget("ridge bounds auto", cost, X_auto=True, y_auto=False)[0]
    return quantile_epsilon(part.cost.scaled(1.0 / (2 * n_features)))


def feature_box_affordable(n_samples, n_features, cost):
    """Whether the part ``"X box"`` buys a box per feature: n·ε_j ≥ 4·ln(K/4)
    (§18.5), a public rule of n, d and the budget [choice; measured].

    With a target rank at the median (where ``target_ranks`` puts both of a
    box's targets when its margin exceeds n/2), the K candidates beyond the
    data weigh at most K·exp(−ε_j·n/4) against the best candidate's 1; the
    rule keeps that below 4. On raw diabetes (n = 309, d = 10) it holds from
    ρ ≈ 0.08 (zCDP) and from ε ≈ 10 (pure), where the boxes measured
    worse than the mean (docs/ridge.rst).
    """
    n_candidates = signed_grid().size
    epsilon = _box_epsilon(cost, n_features)
    return n_samples * epsilon >= 4.0 * math.log(n_candidates / 4.0)


def _quantile_box(counts, quantiles, n_samples, epsilon, rng, beta):
    grid = signed_grid()
    return private_box(counts, grid, quantiles, n_samples, epsilon, rng, beta=beta)


def choose_bounds(X, y, parts, X_norm_bound, y_bound, *, nonfinite, rng, centred):
    """The bounds the rows are clipped at: the given ones, or for "auto" the
    private ones of ``parts`` (values read: run after the charge).

    Returns
    -------
    X_norm_bound : float or (lower, upper) arrays of shape (n_features,)
        The box of "auto" is symmetric (−m, m), m = max(|lower|, |upper|),
        when not ``centred`` (no intercept: no constant column to absorb a
        shift, §18.5).
    y_bound : float or (lower, upper)
    """
    spent = {part.step: part.cost for part in parts}
    if is_auto(X_norm_bound):
        n_samples, n_features = X.shape
        grid = signed_grid()
        # 2d quantiles on the same rows compose (§18.1): 1/(2d) each.
        epsilon = quantile_epsilon(spent["X box"].scaled(1.0 / (2 * n_features)))
        counts = _feature_counts(X, grid, nonfinite)
        lower, upper = np.empty(n_features), np.empty(n_features)
        for j in range(n_features):
            # β = 0.05, the scaler's (§18.3): a feature's edge beyond its
            # data only costs that feature its resolution.
            lower[j], upper[j] = _quantile_box(
                counts[j], FEATURE_QUANTILES, n_samples, epsilon, rng, 0.05
            )
        if not centred:
            upper = np.maximum(np.abs(lower), np.abs(upper))
            lower = -upper
        X_norm_bound = (lower, upper)
    if is_auto(y_bound):
        y_bound = _target_box(y, spent["y bound"], rng, nonfinite, beta=TARGET_BETA)
    return X_norm_bound, y_bound


def _feature_counts(X, grid, nonfinite):
    """c_jk = #{i : x_ij ≤ grid[k]}
    (``skprivcov._data._statistics.feature_counts``), for
    sparse X too: its duplicates summed first (§13.3), a row with a
    non-finite entry refused after the full pass or, under ``"zero"``, a row
    of zeros; every other entry not stored is a 0."""
    if not sparse.issparse(X):
        return feature_counts(X, grid, nonfinite=nonfinite)
    X = canonical_sparse(X.tocsr(), dtype=np.float64)
    n_samples, n_features = X.shape
    rows = np.repeat(np.arange(n_samples), np.diff(X.indptr))
    bad = np.zeros(n_samples, dtype=bool)
    bad[rows[~np.isfinite(X.data)]] = True
    refuse_nonfinite(int(bad.sum()), nonfinite)
    keep = ~bad[rows]
    columns, values = X.indices[keep], X.data[keep]
    size = grid.size + 1
    cells = np.bincount(
        columns * size + np.searchsorted(grid, values, side="left"),
        minlength=n_features * size,
    ).reshape(n_features, size)
    # The entries not stored (and the rows of zeros) are zeros.
    zeros = n_samples - np.bincount(columns, minlength=n_features)
    cells[:, np.searchsorted(grid, 0.0, side="left")] += zeros
    return np.cumsum(cells, axis=1)[:, :-1]


def finite_rows(X, y):
    """Whether each row (x, y) is finite: the rows the nonfinite rule acts on
    (values read: after the charge)."""
    ok = np.isfinite(np.asarray(y, dtype=np.float64))
    if sparse.issparse(X):
        # Duplicates summed first: a row is finite as its dense form is
        # (two stored 1.7e308 sum to inf), the same rule for every format (§13.3).
        X = canonical_sparse(X.tocsr(), dtype=np.float64)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        ok[rows[~np.isfinite(X.data)]] = False
        return ok
    for start in range(0, X.shape[0], 4096):
        block = np.asarray(X[start : start + 4096], dtype=np.float64)
        ok[start : start + 4096] &= np.isfinite(block).all(axis=1)
    return ok


def _target_box(y, part, rng, nonfinite, *, beta):
    """The private box of the target's 1% and 99% quantiles at ``part``: two
    quantiles at half of it each (sequential composition), their target
    ranks moved inward by the margin of ``beta`` (``target_ranks``)."""
    grid = signed_grid()
    epsilon = quantile_epsilon(part.scaled(0.5))
    counts = feature_counts(np.asarray(y, float)[:, None], grid, nonfinite=nonfinite)
    return _quantile_box(counts[0], TARGET_QUANTILES, y.shape[0], epsilon, rng, beta)


def private_target_mean(y, parts, y_bound, *, rng, finite=None, nonfinite="raise"):
    """(the target's bounds, its private mean): the fallback of §18.5.

    The box of ``y_bound`` (given, or "auto": the private box at the part
    ``"y bound"``), then the mean of the clipped targets plus noise at the
    part ``"y mean"``: replacing one row moves it by at most (upper −
    lower)/n (the ℓ1 and ℓ2 sensitivity of a scalar), so N(0, σ²) with
    σ = Δ/√(2ρ) is ρ-zCDP and Lap(Δ/ε) is ε-DP (§0.1); on the hardened path
    the exact mean on a grid plus exact discrete noise (§17).

    ``finite`` marks the rows (x, y) without a non-finite entry (default:
    those of a finite y): the others are refused after the charge under
    ``nonfinite="raise"``, or count as rows of zeros (y = 0) under
    ``"zero"``, a public rule per row.
    """
    spent = {part.step: part.cost for part in parts}
    y = np.asarray(y, dtype=np.float64)
    if finite is None:
        finite = np.isfinite(y)
    refuse_nonfinite(int(np.count_nonzero(~finite)), nonfinite)
    y = np.where(finite, y, 0.0)
    if is_auto(y_bound):
        lower, upper = _target_box(
            y, spent["y bound"], rng, "raise", beta=_MEAN_BOX_BETA
        )
    elif isinstance(y_bound, tuple):
        lower, upper = (float(edge) for edge in y_bound)
    else:
        lower, upper = -float(y_bound), float(y_bound)
    budget = spent["y mean"]
    n_samples = y.shape[0]
    values = np.clip(y, lower, upper)
    sensitivity = (upper - lower) / n_samples
    if is_hardened(rng):
        # The exact mean of the clipped floats: fsum is their correctly
        # rounded sum, within 2^−53·n·max(|lower|, |upper|) of the exact one.
        mean = Fraction(math.fsum(values)) / n_samples
        error = 2.0**-52 * max(abs(lower), abs(upper))
    else:
        mean, error = math.fsum(values) / n_samples, 0.0
    noisy = noisy_scalar(
        mean, sensitivity, budget, rng, statistic_error=error, site="target mean"
    )
    # Post-processing: a mean outside the box is moved onto it.
    return (lower, upper), float(np.clip(noisy, lower, upper))
