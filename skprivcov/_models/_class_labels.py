"""The label set of a classifier: public, or released privately (§25).

The labels present in y are data: a label held by one row alone is a
neighbouring difference that ``classes_`` would reveal with certainty. A
classifier's label set is therefore either public (``classes``, or the
categories of a categorical y: the schema, not the rows) or released by the
stability-based histogram of docs/algorithms.rst §25:

* the count of every label present in y gets Gaussian noise (discrete on the
  hardened path) at the share :data:`LABEL_SHARE` of a zCDP budget; replacing
  one row moves two counts by one, ℓ2 sensitivity √2 (§0.2);
* a label is released when its noisy count reaches the public threshold
  τ = 1 + g + σ·Φ̄⁻¹(δ₀) (σ, g the noise's public law,
  :func:`skprivcov.mechanisms.exact_noise_law`: g = 0 on the float path),
  so that a label held by one row is released with probability at most δ₀;
* rows whose label is not released are left out of the statistics (they
  count in no class; a public function of the released set, the denominator
  stays the public n).

The release is δ₀-approximately ρ_L-zCDP: on neighbours that add or remove a
label the two output laws are mixtures, with the same weight p ≤ δ₀, of laws
that differ only in one count (sensitivity 1) and arbitrary ones (§25), so
the fit's cost carries δ₀ (``PrivacyCost.approximate_delta``): a ρ or pure ε
budget cannot pay for it.
"""

import math

import numpy as np
from scipy.special import ndtri

from skprivcov._data import FRACTION_BITS, ExactStatistic, ExactTotal
from skprivcov.mechanisms.noise import exact_noise_law, is_hardened, noisy_vector
from skprivcov.privacy import (
    BudgetPart,
    PrivacyCost,
    UnsupportedPrivacyNotionError,
    zcdp_from_approx_dp,
)

__all__ = [
    "LABEL_DELTA",
    "LABEL_DELTA_FRACTION",
    "LABEL_SHARE",
    "LABEL_STEP",
    "categorical_labels",
    "check_label_release",
    "label_budget",
    "label_threshold",
    "release_label_set",
]

# §25, a public rule: the label step's share of a zCDP budget; its δ₀ with a
# ρ budget (far below 1/n for any table that fits on a machine), or its
# fraction of δ with an (ε, δ) budget (the rest calibrates ρ, §7.2).
LABEL_SHARE = 0.1
LABEL_DELTA = 1e-9
LABEL_DELTA_FRACTION = 0.01
# The step's name in privacy_parts_ and the noise records.
LABEL_STEP = "label set"
# A replaced row moves two labels' counts by one (§0.2: disjoint counts).
_COUNTS_SENSITIVITY = math.sqrt(2.0)
# The counts are noised on the grid 2^−2k, as the classifiers' class counts
# (§21): a discrete scale of many units, so that the sampler's rounding of
# its scale up to σ_Z² = T(T − 1) is negligible (§17).
_COUNT_UNITS = 1 << (2 * FRACTION_BITS)


def categorical_labels(y):
    """The categories of a categorical ``y`` (a pandas Series of category
    dtype, or a pandas Categorical): the schema's label set, public (§25).
    None for any other y. Reads no label of y."""
    dtype = getattr(y, "dtype", None)
    if getattr(dtype, "name", None) != "category":
        return None
    categories = getattr(dtype, "categories", None)
    return None if categories is None else np.asarray(categories)


def label_budget(budget, *, epsilon, delta, owner):
    """The cost of a fit whose label set is released privately (§25).

    Parameters
    ----------
    budget : PrivacyCost
        The fit's budget by the budget rule (``estimator_budget``).
    epsilon, delta : float or None
        The estimator's parameters: with ``delta > 0`` the budget is (ε, δ),
        and δ₀ = ``LABEL_DELTA_FRACTION``·δ of it pays for the labels while
        ρ is calibrated to (ε, δ − δ₀).
    owner : str
        For messages.

    Returns
    -------
    cost : PrivacyCost
        δ₀-approximate ρ-zCDP: ``LABEL_DELTA`` with a ρ budget.

    Raises
    ------
    UnsupportedPrivacyNotionError
        A pure ε budget (no δ to pay the threshold with).
    """
    if budget.notion != "zcdp":
        raise UnsupportedPrivacyNotionError(
            f"{owner} releases its label set privately when classes is None "
            "(docs/algorithms.rst §25), which needs a δ: a pure ε-DP budget "
            "cannot pay for it. Give classes (the label set, public), a "
            "categorical y, or delta > 0."
        )
    if epsilon is not None and delta:
        # (ε, δ) holds when the rest converts to ε − log(1/(1 − δ₀)) at
        # δ − δ₀ (§25; the subtraction rounded so that ε is never exceeded).
        approximate = LABEL_DELTA_FRACTION * delta
        target = math.nextafter(epsilon + math.log1p(-approximate), 0.0)
        rho = zcdp_from_approx_dp(target, delta - approximate)
        return PrivacyCost.zcdp(
            rho, reference_delta=delta, approximate_delta=approximate
        ).with_caveats(budget.caveats)
    return PrivacyCost.zcdp(budget.parameter, approximate_delta=LABEL_DELTA)


def _label_part(cost):
    """(the label step's part, the rest of the budget) of a label cost."""
    part = PrivacyCost.zcdp(
        LABEL_SHARE * cost.parameter, approximate_delta=cost.approximate_delta
    )
    return part, PrivacyCost.zcdp((1.0 - LABEL_SHARE) * cost.parameter)


def label_threshold(cost, hardened):
    """The public threshold τ of the label step of ``cost`` (§25): a label
    held by one row reaches it with probability at most δ₀.

    The noisy count of a singleton is 1 + N(0, σ²) on the float path, so
    P(count ≥ τ) = Φ̄((τ − 1)/σ). On the hardened path it is
    g·(⌊1/g⌋ + K) ≤ 1 + g·K, g the grid in counts (2^−2k while the scale
    is below 2^48 units) and K discrete Gaussian of parameter σ/g: its
    normaliser is at least √(2π)σ/g (Poisson summation), so
    P(K ≥ m) ≤ Φ̄((m − 1)g/σ) for every integer m ≥ 1, and with
    m = ⌈(τ − 1)/g⌉, P(count ≥ τ) ≤ Φ̄((τ − 1 − g)/σ). Both are δ₀ at
    τ = 1 + g + σ·Φ̄⁻¹(δ₀), g = 0 on the float path.

    Parameters
    ----------
    cost : PrivacyCost
        The fit's label cost (:func:`label_budget`).
    hardened : bool
        The noise path (``noise="hardened"``).

    Returns
    -------
    threshold : float
        τ, in counts.
    """
    part, _ = _label_part(cost)
    deviation, grid = exact_noise_law(
        _COUNTS_SENSITIVITY, part, hardened=hardened, denominator=_COUNT_UNITS
    )
    # ndtri(1 − δ₀) rounded up by a relative 1e-12 (its float error is far
    # below); τ is only ever made larger, which lowers the probability.
    quantile = -ndtri(cost.approximate_delta) * (1.0 + 1e-12)
    return 1.0 + grid + deviation * quantile


def check_label_release(cost, n_samples, hardened, owner):
    """Refuse, before the charge, a label step that could not release a
    label even if every row held it: τ above the public n (a public rule of
    n and the budget; after the charge it would fail on every dataset)."""
    threshold = label_threshold(cost, hardened)
    if threshold > n_samples:
        raise ValueError(
            f"{owner}: with {n_samples} rows the budget is too small to release "
            "the label set privately (docs/algorithms.rst §25: a label needs a "
            f"noisy count of at least {threshold:.3g}). Give classes (the label "
            "set, public), a categorical y, or a larger budget."
        )


def release_label_set(y, cost, rng):
    """Release the label set of ``y`` (after the charge; §25).

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        The labels (their kind checked).
    cost : PrivacyCost
        The fit's label cost (:func:`label_budget`).
    rng : numpy.random.Generator
        The only source of noise.

    Returns
    -------
    classes : ndarray
        The released labels, sorted.
    parts : tuple of BudgetPart
        The step's part: δ₀-approximate, at ``LABEL_SHARE`` of ρ.
    rest : PrivacyCost
        What is left for the release (plain ρ-zCDP).
    """
    part, rest = _label_part(cost)
    labels, counts = np.unique(y, return_counts=True)
    statistic = ExactStatistic.of(
        ExactTotal.from_integers(counts.astype(object) * _COUNT_UNITS), _COUNT_UNITS
    )
    noisy = noisy_vector(statistic, _COUNTS_SENSITIVITY, part, rng, site=LABEL_STEP)
    threshold = label_threshold(cost, is_hardened(rng))
    released = labels[np.asarray(noisy) >= threshold]
    return released, (BudgetPart(LABEL_STEP, part),), rest
