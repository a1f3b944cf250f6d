"""A record of the additive noise every noised step of a fit draws.

Off unless a caller opens :func:`recorded_noise` (a context variable that is
None otherwise, so a fit pays one look-up per draw). Inside it, each draw of
additive noise, on either path (numpy's floating-point samplers, or the exact
discrete samplers of §17), appends a :class:`NoiseRecord`: which statistic
was noised (the *site*), the budget the draw was sized for, the law, the noise
itself and a way to draw more of the same law at the same scale. The
calibration tests (``tests/test_noise_calibration_registry.py``) compare these
draws with the scale docs/algorithms.rst states for each site, and the
budgets with the fit's ``privacy_parts_``, for every registered estimator and
variant (docs/developers.rst, "Noise records").

The record holds the noise, never published: it lives in the caller's
process, for the caller who holds the data anyway (§13.1 is about what a fit
publishes).
"""

import contextlib
import contextvars
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["SITES", "NoiseRecord", "record_noise", "recorded_noise"]

# The statistics that receive additive noise (docs/algorithms.rst §0.2 gives
# each one's sensitivity): the (augmented) second moment, LDA's per-class sums,
# the sorted eigenvalues, the trace, dON's nuclear radius 2·tr, the sparse
# vector technique's threshold and queries, a private selection's score, and
# AutoCovariance's shrinkage statistic.
SITES = (
    "second moment",
    "class sums",
    "eigenvalues",
    "trace",
    "nuclear radius",
    "svt threshold",
    "svt queries",
    "score",
    # CoinPress (§18.4): the second moment of m = ⌊n/2⌋ pair differences, and
    # the mean of n unit-ball rows.
    "pair second moment",
    "mean",
    # AutoCovariance's shrinkage (§3.9a): ⟨R, C⟩/(λ·ν) of sensitivity 1/n.
    "shrinkage",
    # A ridge model's fallback (§18.5): the mean of the n targets clipped to
    # their box [lower, upper], of sensitivity (upper − lower)/n.
    "target mean",
    # The classifiers' blocks (§21): per class the shares n_c/n, the totals
    # Σ z/n and the squares Σ z⊙z/n, or the squares pooled over the classes.
    "class counts",
    "class totals",
    "class squares",
    "pooled squares",
    # AdaSSP's step (§16): λ_min of a ridge model's bounded feature rows'
    # second moment, of sensitivity 4(n − 1)/n² centred, 1/n uncentred.
    "smallest eigenvalue",
    # A classifier's private label set (§25): the count of every label
    # present in y, of ℓ2 sensitivity √2 (in counts).
    "label set",
    # The private per-feature normalisation (§23): the counts of every
    # feature's cells (ℓ2 √(2d), in counts), the means of the box-clipped
    # coordinates (2√d/n) and of their absolute deviations (√d/n).
    "feature cells",
    "feature means",
    "feature spreads",
)

_RECORDS = contextvars.ContextVar("skprivcov_noise_records", default=None)


class NoiseRecord(NamedTuple):
    """One draw of additive noise.

    site : one of :data:`SITES` (None from a caller outside skprivcov that
        did not name it).
    budget : the PrivacyCost the draw was sized for (zCDP: Gaussian noise;
        pure: Laplace noise).
    hardened : whether the exact discrete samplers drew it (§17).
    noise : float64 array of the noise added to each released coordinate
        (the upper triangle of a symmetric statistic); on the hardened path
        the grid multiple g·Z, without the rounding of the statistic (≤ g/2).
    redraw : ``redraw(count, rng)`` returns ``count`` more draws of the same
        law at the same scale, by the same sampler, from the numpy Generator
        ``rng``.
    joint : records sharing a token (not None) spend one budget together:
        the threshold and the queries of one sparse vector search, the class
        sums of one LDA release.
    """

    site: str
    budget: object
    hardened: bool
    noise: np.ndarray
    redraw: Callable
    joint: object = None


@contextlib.contextmanager
def recorded_noise():
    """Record every additive noise draw made inside the block.

    Yields
    ------
    records : list of NoiseRecord
        Filled as the draws happen, in order.
    """
    records = []
    token = _RECORDS.set(records)
    try:
        yield records
    finally:
        _RECORDS.reset(token)


def record_noise(site, budget, hardened, noise, redraw, joint=None):
    """Append a :class:`NoiseRecord` if a record is open (else do nothing)."""
    records = _RECORDS.get()
    if records is None:
        return
    noise = np.array(noise, dtype=np.float64).ravel()
    records.append(NoiseRecord(site, budget, hardened, noise, redraw, joint))
