"""A private centre and scale for every feature (docs/algorithms.rst §23, step 1).

Joint over the features, so that its noise grows with √d, not with the 2d
quantiles of §18.3:

1. **Cells**: the count of every feature's values in each cell of a public
   signed log grid (``CELLS_PER_OCTAVE`` cells per octave from 2^−32 to
   2^32, their negatives, and the cell around zero), all d·K counts noised
   at once. A replaced row moves, in each feature, one count down and one up:
   ℓ2 sensitivity √(2d), ℓ1 2d (in counts). Each feature's box spans its
   passing blocks of adjacent cells (1, 2, …, 16 cells, the finest width
   where a block's noisy count reaches its public threshold), or is [−1, 1]
   when none passes.
2. **Rounds** (``ROUNDS``): in the box (m, r) of each feature, the noisy
   mean of u = clip((x − m)/r, −1, 1) (ℓ2 sensitivity 2√d/n, ℓ1 2d/n) moves
   the centre to c = m + r·ū when its noise is small (deviation below 0.1);
   then the noisy mean of a = min(abs(x − c)/r, 1) (ℓ2 √d/n, ℓ1 d/n) gives the
   scale σ = r·â (the mean absolute deviation: it errs low) where â stands
   out of its noise, and the next box c ± (``SPREAD_WIDTH``·σ + 3 noise
   deviations of the mean); elsewhere the scale and box may only shrink.
   With ``centred=False`` (an estimator that assumes centred data) c = 0
   and only the spread steps run, around zero. A feature of which nothing
   was learned is left as given (centre 0, scale 1, not clipped).
3. **Clip limits**: z of each feature is clipped at ±``Z_LIMIT`` (4), so
   that a scale far below a few rows' values (a point mass at zero with
   rare other values) cannot make those rows' norms, and so the private
   norm bound, arbitrarily large; a feature left as given is not clipped.
   (Measured: reaching out to the cells' box instead brought those back,
   1e2 times the zero matrix's error on digits; ±8 and ±16 trade heavy
   tails against point masses, docs/algorithms.rst §23.)

Every box, threshold and floor is a function of public values and earlier
releases only, so the steps compose sequentially; the map z = (x − c)/σ that
follows is post-processing of this release applied to each row (§23, step 2).
"""

import math
from typing import NamedTuple

import numpy as np
from scipy.special import ndtri

from skprivcov._data import Z_LIMIT, ExactStatistic, ExactTotal
from skprivcov.mechanisms._splits import FEATURE_SCALING_ROUNDS as ROUNDS
from skprivcov.mechanisms.noise import exact_noise_law, is_hardened, noisy_vector
from skprivcov.mechanisms.noise._source import plain_scale

__all__ = [
    "CELLS_PER_OCTAVE",
    "FeatureScaling",
    "cell_edges",
    "private_feature_scaling",
]

CELLS_PER_OCTAVE = 2
# The grid spans 2^−32 … 2^32 in magnitude (a value below 2^−32 is in the
# cell around zero; one beyond 2^32 in the outermost cell).
_OCTAVES = 32
# The threshold makes a cell of no row pass with probability at most this,
# over all d·K cells together (one-sided tail of each cell's noise).
FALSE_CELL_RATE = 0.01
# The widest block of cells a box is read from: 16 cells, 8 octaves (wider
# blocks pass on almost any data and give boxes of no use).
_WIDEST_BLOCK = 16
# The next round's box: the centre ± this many released scales.
SPREAD_WIDTH = 4.0
# A centre's step is used when its noise's deviation is below this (in units
# of the box's half width), a spread where it exceeds its noise's deviation
# this many times.
_USABLE_DEVIATION = 0.1
_INFORMATIVE_DEVIATIONS = 2.0
# A centre's noise covered by the next box: this many deviations.
_CENTRE_DEVIATIONS = 3.0
# The scale is the mean absolute deviation itself, √(2/π) ≈ 0.8 of a
# Gaussian's deviation: it errs low on purpose. A feature scaled too small is
# clipped at ±Z_LIMIT a little more often; one scaled too large multiplies
# its noise, in the rows' units, by the square of the excess (measured on
# digits at ρ = 0.1: 1.52 of the zero matrix's error with √(π/2), 0.97 without).
_MAD_TO_DEVIATION = 1.0
# The counts are noised on the grid 2^−40 (as the label set's, §25): a
# discrete scale of many units.
_COUNT_UNITS = 1 << 40

# The sites of the three statistics in the noise records (§0.2).
CELLS_SITE = "feature cells"
MEANS_SITE = "feature means"
SPREADS_SITE = "feature spreads"


class FeatureScaling(NamedTuple):
    """The release of :func:`private_feature_scaling`: z = (x − centre)/scale.

    Public once released: the estimators map their rows by it and publish it
    as ``feature_location_`` and ``feature_scale_`` (docs/algorithms.rst §23).

    Parameters
    ----------
    centre : ndarray of shape (n_features,)
        The released centre c (zeros when not centred).
    scale : ndarray of shape (n_features,)
        The released scale s, positive.
    limit : ndarray of shape (n_features,)
        Where z = (x − centre)/scale is clipped, ±limit: ``Z_LIMIT`` (4),
        or inf for a feature of which nothing was learned (no cell passed
        and no spread stood out of its noise: centre 0, scale 1, left as
        given).

    See Also
    --------
    private_feature_scaling : Releases it.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.mechanisms import FeatureScaling
    >>> FeatureScaling(np.zeros(2), np.ones(2), np.full(2, 4.0)).scale
    array([1., 1.])
    """

    centre: np.ndarray
    scale: np.ndarray
    limit: np.ndarray


def cell_edges():
    """The public signed log grid of the cells (§23, step 1).

    Returns
    -------
    edges : ndarray of shape (258,)
        Ascending: −2^32 … −2^−32, 2^−32 … 2^32, ``CELLS_PER_OCTAVE`` per
        octave; cell k holds the values in (edges[k − 1], edges[k]] (the
        first cell everything up to edges[0], the last everything above
        edges[-1]).

    Examples
    --------
    >>> from skprivcov.mechanisms import cell_edges
    >>> edges = cell_edges()
    >>> edges.size, float(edges[0]), float(edges[-1])
    (258, -4294967296.0, 4294967296.0)
    """
    steps = np.arange(-_OCTAVES * CELLS_PER_OCTAVE, _OCTAVES * CELLS_PER_OCTAVE + 1)
    positive = np.exp2(steps / CELLS_PER_OCTAVE)
    return np.concatenate([-positive[::-1], positive])


def _cell_limits(edges):
    """(lower, upper) of every cell; the outer cells end at twice the grid."""
    lower = np.concatenate([[2.0 * edges[0]], edges])
    upper = np.concatenate([edges, [2.0 * edges[-1]]])
    return lower, upper


def _tail_deviations(n_tests):
    """z with P(N(0, 1) > z) = FALSE_CELL_RATE / n_tests."""
    return float(ndtri(1.0 - FALSE_CELL_RATE / n_tests))


def _cells_noise(sensitivity, cost, hardened):
    """(deviation, offset) of each noisy count: a threshold of z·deviation +
    offset is passed by an empty cell's Gaussian noise with probability
    P(N(0, 1) > z) (Laplace: at most that, b·√2 standing for the deviation
    and the tail taken as Laplace's below, which is heavier)."""
    if cost.notion == "zcdp":
        deviation, grid = exact_noise_law(
            sensitivity, cost, hardened=hardened, denominator=_COUNT_UNITS
        )
        return deviation, grid
    return plain_scale(sensitivity, cost), 0.0


def _threshold(deviation, offset, width, n_tests, gaussian):
    """The count a block of ``width`` cells must reach (its noise is the sum
    of ``width`` cells' noise)."""
    if gaussian:
        return _tail_deviations(n_tests) * deviation * math.sqrt(width) + offset
    # A sum of Laplace(b) noises has a tail below Laplace(b·width)'s.
    return deviation * width * math.log(n_tests / (2.0 * FALSE_CELL_RATE))


def _boxes(noisy, noise, edges, gaussian):
    """Each feature's box (centre, half width), by post-processing of the
    noisy counts: blocks of 1, 2, 4, … adjacent cells (their counts added),
    at the finest width where some block of the feature reaches its
    threshold, span its passing blocks; a feature none of whose blocks
    passes gets the box [−1, 1] (a public default), and False in ``found``."""
    d, n_cells = noisy.shape
    lower, upper = _cell_limits(edges)
    widths = [1 << k for k in range(_WIDEST_BLOCK.bit_length())]
    n_tests = sum(d * -(-n_cells // width) for width in widths)
    centre, half_width = np.zeros(d), np.ones(d)
    found = np.zeros(d, dtype=bool)  # a feature some block of which passed
    for width in widths:
        n_blocks = -(-n_cells // width)
        padded = np.zeros((d, n_blocks * width))
        padded[:, :n_cells] = noisy
        blocks = padded.reshape(d, n_blocks, width).sum(axis=2)
        passing = blocks >= _threshold(*noise, width, n_tests, gaussian)
        new = passing.any(axis=1) & ~found
        first = np.argmax(passing, axis=1) * width
        last = np.minimum(
            (n_blocks - 1 - np.argmax(passing[:, ::-1], axis=1)) * width + width - 1,
            n_cells - 1,
        )
        low, high = lower[first], upper[last]
        centre = np.where(new, (low + high) / 2.0, centre)
        half_width = np.where(new, (high - low) / 2.0, half_width)
        found |= new
    return centre, half_width, found


def _noisy_box_means(passes, centre, half_width, absolute, part, rng, d):
    """The noisy mean of the clipped coordinates (or their absolute values),
    and the deviation of its noise (public)."""
    n = passes.n_samples
    # A replaced row moves each coordinate by at most 2 (|u| ≤ 1) or 1.
    per_feature = 1.0 if absolute else 2.0
    if part.cost.notion == "zcdp":
        sensitivity = per_feature * math.sqrt(d) / n
        deviation = plain_scale(sensitivity, part.cost)
    else:
        sensitivity = per_feature * d / n
        deviation = math.sqrt(2.0) * plain_scale(sensitivity, part.cost)
    statistic = passes.box_means(centre, half_width, absolute)
    site = SPREADS_SITE if absolute else MEANS_SITE
    noisy = noisy_vector(statistic, sensitivity, part.cost, rng, site=site)
    lowest = 0.0 if absolute else -1.0
    return np.clip(np.asarray(noisy, dtype=np.float64), lowest, 1.0), deviation


def private_feature_scaling(passes, parts, rng, *, n_features, centred=True):
    """Release a centre and a scale for every feature (§23, step 1).

    Parameters
    ----------
    passes : object
        The passes over the (charged) rows (``skprivcov.base.ClippedData``
        has them): ``n_samples``; ``feature_cells(edges)``, the counts of
        shape (d, edges.size + 1) of every feature's values in the cells
        (edges[k − 1], edges[k]]; ``box_means(centre, half_width,
        absolute)``, the exact per-feature mean of clip((x − m)/r, −1, 1)
        (with ``absolute`` of min(abs(x − m)/r, 1)) on the grid 2^−32.
    parts : tuple of BudgetPart
        The steps' parts, in the order of ``scaling_steps`` (zCDP: Gaussian
        noise; pure: Laplace noise).
    rng : numpy.random.Generator
        The only source of noise.
    n_features : int
        The public d.
    centred : bool, default=True
        Release a centre; False: the centre is 0 and only scales are released.

    Returns
    -------
    scaling : FeatureScaling
        The centre (zeros when not ``centred``) and the positive scale.
    """
    d = n_features
    steps = iter(parts)
    cells_part = next(steps)
    edges = cell_edges()
    counts = passes.feature_cells(edges)
    statistic = ExactStatistic.of(
        ExactTotal.from_integers(counts.ravel().astype(object) * _COUNT_UNITS),
        _COUNT_UNITS,
    )
    if cells_part.cost.notion == "zcdp":
        sensitivity = math.sqrt(2.0 * d)
    else:
        sensitivity = 2.0 * d
    noisy = noisy_vector(
        statistic, sensitivity, cells_part.cost, rng, site=CELLS_SITE
    ).reshape(counts.shape)
    noise = _cells_noise(sensitivity, cells_part.cost, is_hardened(rng))
    gaussian = cells_part.cost.notion == "zcdp"
    centre, half_width, found = _boxes(np.asarray(noisy), noise, edges, gaussian)
    if not centred:
        half_width = np.maximum(
            np.abs(centre - half_width), np.abs(centre + half_width)
        )
        centre = np.zeros(d)
    # A feature's scale until a spread step says more: half its box.
    scale = half_width / 2.0
    learned = found.copy()
    for _ in range(ROUNDS):
        mean_deviation = 0.0
        if centred:
            mean, mean_deviation = _noisy_box_means(
                passes, centre, half_width, False, next(steps), rng, d
            )
            # A centre moves only when its step can place it within half
            # its box (the noise's deviation is public).
            if mean_deviation < _USABLE_DEVIATION:
                centre = centre + half_width * mean
        spread, spread_deviation = _noisy_box_means(
            passes, centre, half_width, True, next(steps), rng, d
        )
        # A spread is used where it stands out of its noise; elsewhere only
        # its upper confidence bound is (â + 2 deviations), which can only
        # lower the scale: noise alone must not grow it (a floor at the
        # noise would, round after round).
        informative = spread > _INFORMATIVE_DEVIATIONS * spread_deviation
        upper = spread + _INFORMATIVE_DEVIATIONS * spread_deviation
        scale = np.where(
            informative,
            _MAD_TO_DEVIATION * half_width * spread,
            np.minimum(scale, _MAD_TO_DEVIATION * half_width * upper),
        )
        learned |= informative
        # The next box: the centre ± 4 scales and the centre's noise; where
        # the spread was noise, never wider than the box it had.
        proposed = (
            SPREAD_WIDTH * scale + _CENTRE_DEVIATIONS * mean_deviation * half_width
        )
        half_width = np.where(informative, proposed, np.minimum(half_width, proposed))
    # A feature of which nothing was learned (no cell passed, no spread
    # stood out) is left as given: centre 0, scale 1, not clipped.
    centre = np.where(learned, centre, 0.0)
    scale = np.where(learned, scale, 1.0)
    return FeatureScaling(centre, scale, np.where(learned, Z_LIMIT, np.inf))
