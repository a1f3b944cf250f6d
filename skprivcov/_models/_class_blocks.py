"""Per-class statistics released block by block (docs/algorithms.rst §21).

The classifiers of §21 read the rows of each class c only through three exact
statistics of the rows z = x / max(‖x‖, B) brought into the unit ball and put
on the grid 2^−k of §19 (the integers of the statistics pass, the same rows
every other estimator sees):

* the count n_c,
* the sum Σ_{i∈c} z_i (a vector of d),
* the sum of squares Σ_{i∈c} z_i ⊙ z_i (d numbers), per class or pooled over
  all classes (the pooled one is the overall Σ_i z_i ⊙ z_i).

Each statistic is divided by the public n (the units of one release) and
released as one *block*: the block of all classes stacked, with its own
sensitivity (§21, ``skprivcov.mechanisms._sensitivity``) and its own part of
the budget. The blocks compose (pure: Σε_k; zCDP: Σρ_k), so the split is a
public rule (:func:`block_shares`) and each block a ``BudgetPart``.
"""

import math
from typing import NamedTuple

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from skprivcov._data import (
    FRACTION_BITS,
    ExactStatistic,
    ExactTotal,
    check_public,
    class_sums_squares,
    is_dask_array,
)
from skprivcov._fit import (
    BUDGET,
    DELTA,
    NOISE,
    NONFINITE,
    RELEASE_NORM_BOUND,
    RELEASE_SEED,
    auto_norm_bound,
    bound_range,
    is_private_bound,
)
from skprivcov._models._class_labels import categorical_labels, release_label_set
from skprivcov.base import ClippedData
from skprivcov.mechanisms import (
    class_counts_sensitivity,
    class_squares_sensitivity,
    class_sums_sensitivity,
)
from skprivcov.mechanisms.noise import noisy_vector, plain_scale
from skprivcov.privacy import BudgetPart, PrivacyAccountant

__all__ = [
    "BLOCK_SHARES",
    "CLASSIFIER_CONSTRAINTS",
    "STEPS",
    "ClassBlocks",
    "ClassEstimates",
    "block_shares",
    "centred_rows",
    "check_feature_bounds",
    "check_labels_public",
    "check_public_labels",
    "class_estimates",
    "clipping_rows",
    "private_label_set",
    "release_blocks",
]

# §21, chosen by measurement (docs/classification.rst): the share of the
# budget of each block, pure and zCDP alike. The means decide the classifier,
# so the class sums get the most; the squares' sensitivity does not grow with
# d (2/n in ℓ1, √2/n in ℓ2), the sums' does (2√d/n in ℓ1).
BLOCK_SHARES = {"counts": 0.05, "totals": 0.85, "squares": 0.1}
# The blocks' names (in privacy_parts_ and the noise records).
STEPS = {
    "counts": "class counts",
    "totals": "class totals",
    "squares": "class squares",
    "pooled squares": "pooled squares",
}

# The public guess of how far a class's share of the rows is from 1/C: the
# noisy counts are shrunk toward the uniform prior with the weight
# σ²/(σ² + τ²), τ = PRIOR_SPREAD/C, σ the counts' noise (§21).
PRIOR_SPREAD = 0.5
# The lowest variance kept, as a fraction of the row's mean variance (§21).
VARIANCE_FLOOR = 0.1


def check_labels_public(estimator, X, y):
    """The public checks of a classifier's fit, before the charge (§13.2):
    X's shape and kind, y's length, and the public label set (§25): the
    ``classes`` parameter, else the categories of a categorical y (their
    kind and number). Returns (X, y, the public classes or None: the label
    set is then released privately)."""
    name = type(estimator).__name__
    X = check_public(estimator, X, reset=True, ensure_min_features=1)
    if is_dask_array(X):
        raise TypeError(f"{name} does not take dask arrays; compute X first.")
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None.")
    categories = categorical_labels(y)
    y = column_or_1d(y, warn=True)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels.")
    public = np.asarray(estimator.classes) if estimator.classes is not None else None
    if public is None:
        public = categories
    if public is not None:
        # The kind of labels is checked on the public list, before the charge;
        # afterwards y is only checked for membership, so no label in the
        # list can make the fit fail (§13.2).
        check_classification_targets(public)
        if np.unique(public).size < 2:
            raise ValueError("classes must hold at least 2 distinct labels.")
    return X, y, public


def check_public_labels(y, public):
    """After the charge: the classes of public labels, and the refusal of a
    label of y outside them, paid for (§13.2); no message holds a label."""
    classes = np.unique(public)
    if not np.all(np.isin(y, classes)):
        raise ValueError("y has labels that are not in classes.")
    return classes


def private_label_set(y, budget, rng):
    """After the charge: the label set of y released privately (§25), as
    :func:`skprivcov._models._class_labels.release_label_set`, refused (paid
    for, no label in the message) when fewer than two labels are released.
    Returns (classes, the parts spent on them, the budget left)."""
    check_classification_targets(y)
    classes, parts, rest = release_label_set(y, budget, rng)
    if classes.size < 2:
        raise ValueError(
            "The private label set (docs/algorithms.rst §25) released fewer than "
            "2 classes: too few rows per class for the budget. Give classes (the "
            "label set, public), a categorical y, or a larger budget."
        )
    return classes, parts, rest


# The parameters both classifiers share (their own ``__init__`` stores them).
CLASSIFIER_CONSTRAINTS = {
    "classes": ["array-like", None],
    "rho": BUDGET,
    "epsilon": BUDGET,
    "delta": DELTA,
    "norm_bound": RELEASE_NORM_BOUND,
    "feature_bounds": [tuple, None],
    "nonfinite": NONFINITE,
    "noise": NOISE,
    "random_state": RELEASE_SEED,
    "accountant": [PrivacyAccountant, None],
}

# The public scales' range, as norm_bound's [1e-30, 1e30] (_constraints).
_BOX_LIMIT = 1e30


def check_feature_bounds(feature_bounds, n_features):
    """The public box (lower, upper) of ``feature_bounds`` as two float
    arrays of shape (d,), checked before the charge (public values); None
    stays None."""
    if feature_bounds is None:
        return None
    try:
        lower, upper = feature_bounds
    except (TypeError, ValueError):
        raise ValueError("feature_bounds must be a pair (lower, upper).") from None
    try:
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (n_features,))
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (n_features,))
    except ValueError:
        raise ValueError(
            f"feature_bounds must be numbers or arrays of {n_features} entries "
            "(one per feature)."
        ) from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("feature_bounds must be finite.")
    if not np.all(lower < upper):
        raise ValueError("feature_bounds must have lower < upper for every feature.")
    # The range of every public scale (norm_bound's too): the box's centre,
    # widths and half-diagonal R, the bound of the centred rows, stay normal
    # floats whose squares neither overflow nor underflow, so no fit can fail
    # numerically after the charge (§13.2).
    widths = upper - lower
    radius = 0.5 * float(np.linalg.norm(widths))
    if not (
        np.all(np.abs(lower) <= _BOX_LIMIT)
        and np.all(np.abs(upper) <= _BOX_LIMIT)
        and np.all(widths >= 1.0 / _BOX_LIMIT)
        and 1.0 / _BOX_LIMIT <= radius <= _BOX_LIMIT
    ):
        raise ValueError(
            "feature_bounds must lie within [-1e30, 1e30], with every width at "
            "least 1e-30 and half the box's diagonal at most 1e30."
        )
    return lower, upper


def centred_rows(X, box):
    """Rows clipped to the public box and centred at its centre c (a public
    per-row rule, §21): their norms are at most R = ½‖upper − lower‖.
    Returns (rows, c, R). Dense (a sparse X is densified). Non-finite
    entries stay non-finite, for the ``nonfinite`` rule."""
    lower, upper = box
    centre = (lower + upper) / 2.0
    dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    rows = np.where(np.isfinite(dense), np.clip(dense, lower, upper) - centre, np.nan)
    return rows, centre, float(np.linalg.norm(upper - lower)) / 2.0


def clipping_rows(estimator, X, budget, rng, box):
    """The rows the release reads, their norm bound and the budget's parts
    so far: (rows, bound, parts, rest of the budget, centre or None).

    With a public box the rows are centred in it (:func:`centred_rows`) and
    the bound is R = ½‖upper − lower‖, or a smaller numeric ``norm_bound``
    (then a bound on the centred rows): nothing is spent on it. Otherwise
    ``norm_bound`` as the covariance estimators read it: "auto" or a range
    spends the part "norm bound" (§18.2).
    """
    norm_bound = estimator.norm_bound
    if box is not None:
        rows, centre, radius = centred_rows(X, box)
        if not is_private_bound(norm_bound):
            radius = min(radius, float(norm_bound))
        return rows, radius, (), budget, centre
    if is_private_bound(norm_bound):
        data = ClippedData(X, augmented=False, nonfinite=estimator.nonfinite)
        parts, budget, bound = auto_norm_bound(
            data,
            budget,
            rng,
            owner=type(estimator).__name__,
            fallback="high",
            bound_range=bound_range(norm_bound),
        )
        return X, bound, parts, budget, None
    return X, float(norm_bound), (), budget, None


def block_shares(*, pooled):
    """The public split (§21): (block, step, share), in the order they run."""
    return tuple(
        (
            block,
            STEPS["pooled squares" if pooled and block == "squares" else block],
            share,
        )
        for block, share in BLOCK_SHARES.items()
    )


class ClassBlocks(NamedTuple):
    """The released blocks, in the units of one release (divided by n).

    counts : (C,) n_c/n.
    sums : (C, d) Σ_{i∈c} z_i / n.
    squares : (C, d) Σ_{i∈c} z_i⊙z_i / n, or (1, d) pooled over the classes.
    scales : dict block → the plain noise scale (σ or b) of each coordinate.
    """

    counts: np.ndarray
    sums: np.ndarray
    squares: np.ndarray
    scales: dict


def _exact_blocks(X, y, classes, bound, nonfinite):
    """The integers of the three statistics, per class: counts, Σa (units
    2^−k) and Σa⊙a (units 2^−2k) of the grid rows a (§19), from one pass over
    all rows (:func:`skprivcov._data._class_statistics.class_sums_squares`: a one-hot
    product per block, no Gram matrix), whose work does not depend on the
    class sizes (§13: they are private). A class without rows gets exact
    zeros, noised as every other class is."""
    counts, sums, squares = class_sums_squares(X, y, classes, bound, nonfinite)
    totals = {"sums": sums, "squares": squares}
    # The counts on the squares' grid (n_c·2^{2k} over n·2^{2k}): the same
    # value, and a discrete noise scale of many units, so the sampler's
    # rounding of its scale is negligible (§17).
    counts = ExactTotal.from_integers(counts.astype(object) << (2 * FRACTION_BITS))
    return counts, totals["sums"], totals["squares"]


def _pooled(total):
    """The sum over classes (axis 0) of an ExactTotal, exactly, shape (1, d)."""
    high, low = total.normalised()
    return ExactTotal.from_parts(
        high.sum(axis=0, keepdims=True), low.sum(axis=0, keepdims=True)
    )


def _flat_statistic(total, denominator):
    """(the ExactStatistic of ``total`` raveled, the shape to restore)."""
    high, low = total.normalised()
    flat = ExactTotal.from_parts(high.ravel(), low.ravel())
    return ExactStatistic.of(flat, denominator), total.shape


def release_blocks(X, y, classes, bound, budget, rng, *, pooled, nonfinite):
    """Release the three blocks at their parts of ``budget`` (§21).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Charged data (values read here).
    y : ndarray of shape (n_samples,)
        Labels, each in ``classes``.
    classes : ndarray of shape (n_classes,)
    bound : float
        The public (or privately chosen) row-norm bound B.
    budget : PrivacyCost
        What the three blocks spend together.
    rng : numpy.random.Generator
        ``release_generator``'s.
    pooled : bool
        Release the squares summed over the classes (shared variances) rather
        than per class.
    nonfinite : {"raise", "zero"}

    Returns
    -------
    blocks : ClassBlocks
    parts : tuple of BudgetPart
    """
    n, d = X.shape
    counts, sums, squares = _exact_blocks(X, y, classes, bound, nonfinite)
    if pooled:
        squares = _pooled(squares)
    # Each block one exact vector (its entries in a row), noised as one.
    statistics = {
        "counts": (
            _flat_statistic(counts, n << (2 * FRACTION_BITS)),
            class_counts_sensitivity(n, budget.notion),
        ),
        "totals": (
            _flat_statistic(sums, n << FRACTION_BITS),
            class_sums_sensitivity(d, n, budget.notion),
        ),
        "squares": (
            _flat_statistic(squares, n << (2 * FRACTION_BITS)),
            class_squares_sensitivity(n, budget.notion),
        ),
    }
    parts, released, scales = [], {}, {}
    for block, step, share in block_shares(pooled=pooled):
        part = budget.scaled(share)
        (values, shape), sensitivity = statistics[block]
        noisy = noisy_vector(values, sensitivity, part, rng, site=step)
        released[block] = np.asarray(noisy).reshape(shape)
        scales[block] = plain_scale(sensitivity, part)
        parts.append(BudgetPart(step, part))
    blocks = ClassBlocks(
        released["counts"], released["totals"], released["squares"], scales
    )
    return blocks, tuple(parts)


def _deviation(scale, notion):
    """The standard deviation of one coordinate's noise: σ, or √2·b."""
    return scale if notion == "zcdp" else math.sqrt(2.0) * scale


def shrunk_variances(raw, noise):
    """Variances from noisy estimates ``raw`` (rows: classes, or one pooled
    row) whose entries have noise deviation ``noise`` (one per row), by a
    public rule (§21): each row's mean over the d features v̄ (its noise
    σ/√d) floored at σ/√d, then each entry shrunk toward v̄ with the weight
    σ²/(σ² + v̄²) and floored at VARIANCE_FLOOR·v̄. Post-processing only."""
    d = raw.shape[1]
    noise = np.asarray(noise, dtype=float)[:, None]
    level = np.maximum(raw.mean(axis=1, keepdims=True), noise / math.sqrt(d))
    level = np.maximum(level, 2.0**-40)
    weight = noise**2 / (noise**2 + level**2)
    shrunk = (1.0 - weight) * raw + weight * level
    return np.maximum(shrunk, VARIANCE_FLOOR * level)


class ClassEstimates(NamedTuple):
    """Post-processing of the blocks, at unit scale (rows in the unit ball).

    shares : (C,) class shares, positive, summing to 1.
    means : (C, d) class means (noisy, unbiased given the shares).
    variances : (C, d) per class, or (1, d) pooled, floored.
    mean_noise : (C, d) the public variance of each coordinate of a class's
        mean's noise, σ_S²/s_c² (s_c the class's share), at most h² in a box.
    """

    shares: np.ndarray
    means: np.ndarray
    variances: np.ndarray
    mean_noise: np.ndarray


def class_estimates(blocks, n_samples, notion, half_widths=None):
    """Shares, means and (per-class or pooled) variances from the blocks:
    post-processing only, by public rules (§21).

    * Shares: the noisy counts shrunk toward 1/C with the weight
      σ²/(σ² + τ²) (σ the counts' public noise deviation, τ = 0.5/C), then at
      least 1/n.
    * Means: totals over shares. Their noise has the public variance
      v_c = σ_S²/s_c² per coordinate, so E μ̂² = μ² + v_c: the squares below
      (and the classifiers' quadratic terms) subtract it.
    * Variances: per class q_c/s_c − μ̂_c² + v_c, pooled
      Q − Σ_c s_c (μ̂_c² − v_c) (the within-class variance of every feature,
      shared), then :func:`shrunk_variances` with the public noise of that
      estimate (σ_Q, or σ_Q/s_c per class).
    * With a public box (``half_widths`` h, at unit scale, rows centred):
      means clipped to [−h, h] and variances to at most h² (projections onto
      what the box allows).
    """
    C, d = blocks.sums.shape
    noise = _deviation(blocks.scales["counts"], notion)
    spread = PRIOR_SPREAD / C
    weight = noise**2 / (noise**2 + spread**2)
    shares = (1.0 - weight) * blocks.counts + weight / C
    shares = np.maximum(shares, 1.0 / n_samples)
    means = blocks.sums / shares[:, None]
    if half_widths is not None:
        means = np.clip(means, -half_widths, half_widths)
    mean_noise = np.broadcast_to(
        (_deviation(blocks.scales["totals"], notion) ** 2 / shares**2)[:, None],
        (C, d),
    )
    if half_widths is not None:
        # A clipped coordinate varies at most as much as the box allows.
        mean_noise = np.minimum(mean_noise, half_widths**2)
    centred_squares = means**2 - mean_noise
    squares_noise = _deviation(blocks.scales["squares"], notion)
    if blocks.squares.shape[0] == 1:
        raw = blocks.squares - (shares[:, None] * centred_squares).sum(
            axis=0, keepdims=True
        )
        noise = np.array([squares_noise])
    else:
        raw = blocks.squares / shares[:, None] - centred_squares
        noise = squares_noise / shares
    variances = shrunk_variances(raw, noise)
    if half_widths is not None:
        variances = np.minimum(variances, half_widths**2)
    return ClassEstimates(shares / shares.sum(), means, variances, mean_noise)
