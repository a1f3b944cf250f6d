"""Private bounds for a ridge model's rows: ``X_norm_bound="auto"`` and
``y_bound="auto"`` (docs/algorithms.rst §18.2–18.3).

After the model's one charge, each bound given as "auto" spends 1/32 of the
release's budget: a private upper bound on the row norms of X
(:func:`skprivcov.mechanisms.private_norm_bound`), and a private box for the
target, its 1% and 99% quantiles on the public signed grid
(``skprivcov.mechanisms._quantile.private_box``, two quantiles at
half the part each); the release runs at the rest of the budget, on the same
rows (sequential composition). The parts are in ``privacy_parts_``, before
the release's own.
"""

import numpy as np

from skprivcov._random import SEED_LIMIT, release_generator
from skprivcov._stats import feature_counts
from skprivcov.covariance._clipped_data import ClippedData
from skprivcov.mechanisms import quantile_epsilon
from skprivcov.mechanisms._quantile import private_box, signed_grid
from skprivcov.privacy import BudgetPart

__all__ = [
    "BOUND_SHARE",
    "TARGET_QUANTILES",
    "bounds_generator",
    "budget_parameters",
    "choose_bounds",
    "release_budget",
]

# The part of the release's budget each "auto" bound spends (§18.2).
BOUND_SHARE = 1 / 32
TARGET_QUANTILES = (0.01, 0.99)


def _auto(bound):
    return isinstance(bound, str) and bound == "auto"


def release_budget(cost, X_norm_bound, y_bound):
    """(the parts the auto bounds spend, the budget left for the release)."""
    parts = []
    if _auto(X_norm_bound):
        parts.append(BudgetPart("X norm bound", cost.scaled(BOUND_SHARE)))
    if _auto(y_bound):
        parts.append(BudgetPart("y bound", cost.scaled(BOUND_SHARE)))
    return tuple(parts), cost.scaled(1.0 - BOUND_SHARE * len(parts))


def choose_bounds(X, y, parts, X_norm_bound, y_bound, *, nonfinite, rng):
    """The bounds the rows are clipped at: the given ones, or for "auto" the
    private ones of ``parts`` (values read: run after the charge).

    Returns
    -------
    X_norm_bound : float
    y_bound : float or (lower, upper)
    """
    spent = {part.step: part.cost for part in parts}
    if _auto(X_norm_bound):
        # A bound too low is what harms a ridge model (every row shrunk onto
        # a small sphere, coefficients that blow up on the raw rows); one too
        # high only raises the noise, which the penalty of alpha="auto"
        # answers: β = 0.05 and the largest candidate when n ≤ 2r.
        rows = ClippedData(X, augmented=False, nonfinite=nonfinite)
        X_norm_bound = rows.private_norm_bound(
            spent["X norm bound"], rng, beta=0.05, fallback="high"
        )
    if _auto(y_bound):
        grid = signed_grid()
        # Two quantiles, each at half the part (sequential composition).
        epsilon = quantile_epsilon(spent["y bound"].scaled(0.5))
        counts = feature_counts(
            np.asarray(y, float)[:, None], grid, nonfinite=nonfinite
        )
        # An edge far beyond the targets would scale them onto almost
        # nothing and blow the model up: β = 10^−6 for the target's box (the
        # scaler's 0.05 only costs a feature its resolution).
        lower, upper = private_box(
            counts[0], grid, TARGET_QUANTILES, y.shape[0], epsilon, rng, beta=1e-6
        )
        y_bound = (lower, upper)
    return X_norm_bound, y_bound


def bounds_generator(random_state, noise):
    """(the generator of the bounds' draws, the release's own seed): with an
    int seed, the release gets a seed drawn from the bounds' generator, so the
    two never share a stream (docs/algorithms.rst §13.4); None stays None
    (fresh OS entropy for each)."""
    rng = release_generator(random_state, noise=noise)
    if random_state is None:
        return rng, None
    return rng, int(rng.integers(SEED_LIMIT))


def budget_parameters(cost):
    """The budget parameters that make an estimator spend ``cost``."""
    if cost.notion == "zcdp":
        return {"rho": cost.parameter, "epsilon": None, "delta": None}
    return {"epsilon": cost.parameter, "rho": None, "delta": None}
