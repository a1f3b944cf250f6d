"""Mean and centred covariance from one release of augmented rows.

docs/algorithms.rst §8.2: each unit-ball row z gets a constant appended,
a = (c_x·z, c_0) with c_x² + c_0² ≤ 1, so ‖a‖ ≤ 1 and any mechanism applies to
M = (1/n) Σ a aᵀ unchanged. From one release M̂: S = M̂_zz / c_x²,
m = M̂_z0 / (c_x c_0), and the centred covariance S − m mᵀ is post-processing.
Centring inside the mechanism is avoided: its sensitivity is data-dependent.
"""

import math
from fractions import Fraction

import numpy as np

from skprivcov._data._symmetric import row_blocks

__all__ = [
    "CONSTANT_SQUARE",
    "CONSTANT_WEIGHT",
    "FEATURE_SQUARE",
    "FEATURE_WEIGHT",
    "augment",
    "center",
]

# c_x = c_0 = 1/√2, the default of §8.2 (c_x² + c_0² = 1).
FEATURE_WEIGHT = CONSTANT_WEIGHT = 1.0 / math.sqrt(2.0)
# Their squares, exactly (for exact traces of the augmented rows).
FEATURE_SQUARE = CONSTANT_SQUARE = Fraction(1, 2)


def augment(second_moment, mean):
    """M of the augmented rows, from the second moment and mean of the z rows."""
    d = second_moment.shape[0]
    augmented = np.empty((d + 1, d + 1))
    np.multiply(second_moment, FEATURE_WEIGHT**2, out=augmented[:d, :d])
    augmented[:d, d] = augmented[d, :d] = FEATURE_WEIGHT * CONSTANT_WEIGHT * mean
    augmented[d, d] = CONSTANT_WEIGHT**2
    return augmented


def center(release):
    """(centred covariance, mean) at unit scale from a symmetric release M̂."""
    d = release.shape[0] - 1
    covariance = release[:d, :d] / FEATURE_WEIGHT**2
    mean = release[:d, d] / (FEATURE_WEIGHT * CONSTANT_WEIGHT)
    # S − m mᵀ in place, one row block at a time (no d × d temporary).
    for start, stop in row_blocks(d):
        covariance[start:stop] -= np.outer(mean[start:stop], mean)
    return covariance, mean
