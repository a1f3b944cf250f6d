"""Exact fixed-point sufficient statistics (docs/algorithms.rst §19).

Every statistic of clipped rows is an exact integer sum:

* a unit-ball row z (‖z‖ ≤ 1) becomes the integers a = rint(z·2^k), k =
  :data:`FRACTION_BITS`, or a = trunc(z·2^k) where the nearest integers would
  leave the ball (truncation toward zero never increases a norm), so
  Σ_j a_j² ≤ 2^{2k} exactly and the paper's sensitivities hold for the
  integers with no rounding term;
* a block of at most :data:`BLOCK_ROWS` = 2^{53−2k} such rows has every partial
  sum of every Gram entry an integer of magnitude at most 2^53
  (|Σ_i a_ij a_il| ≤ Σ_i ‖a_i‖² ≤ S·2^{2k}), so a float64 GEMM on the block is
  exact in any order, with or without FMA;
* the blocks' results are added as integers (:class:`ExactTotal`): no rounding
  and no order, so every input format, chunking, worker count and engine gives
  the same integers, hence the same release bit for bit.

The released statistic is the integer total over a public denominator
(:class:`ExactStatistic`); hardened noise adds exact discrete noise to the
integers themselves (``skprivcov.mechanisms.noise._hardened``), so its sensitivity is
exactly the paper's at every n ≤ 2^50, with no float-error term.

The grid moves a coordinate of a unit row by less than 2^−k (so
‖M − M_grid‖_F ≤ 2·min(1, √d·2^−k) for the second moment), the factor
:data:`SHRINK` by a relative 2^−32.
"""

import numpy as np

__all__ = [
    "BLOCK_ROWS",
    "FRACTION_BITS",
    "MAX_FEATURES",
    "SHRINK",
    "ExactStatistic",
    "ExactTotal",
]

# k: rows on the grid 2^−20 (chosen by measurement, docs/large_data.rst: k = 22
# would allow blocks of only 512 rows, whose integer additions cost up to a
# third of the Gram's time at d = 1000; k = 20 allows 8 192 and costs ~1%).
FRACTION_BITS = 20
UNIT = float(1 << FRACTION_BITS)
# S with S·2^{2k} ≤ 2^53: every partial sum of a block's Gram is exact in float64.
BLOCK_ROWS = 1 << (53 - 2 * FRACTION_BITS)
# The factor that brings a row into the unit ball is c/max(‖x‖, B), c = 1 − 2^−32:
# the computed norm, factor and products are within a relative (d + 10)·2^−53
# of exact, so for d ≤ 2^20 the computed row has norm at most 1 (§19, "the
# rows"). A row of more features would need a smaller c.
SHRINK = 1.0 - 2.0**-32
MAX_FEATURES = 1 << 20

# An ExactTotal holds high·2^32 + low with int64 arrays; low is brought back to
# [0, 2^32) before it could reach 2^62.
_SPLIT = 32
_LOW_MASK = (1 << _SPLIT) - 1
_LIMIT = 1 << 62


class ExactTotal:
    """An array of exact integers, high·2^32 + low, in two int64 arrays.

    Integers up to about 2^94 in magnitude, added exactly and cheaply: the sum
    of n ≤ 2^50 Gram entries (each at most 2^40) needs 91 bits. Picklable, so
    a dask or Spark worker can return one; ``+`` adds two totals exactly.

    Parameters
    ----------
    shape : tuple of int
    """

    __slots__ = ("_pending", "high", "low")

    def __init__(self, shape):
        self.high = np.zeros(shape, dtype=np.int64)
        self.low = np.zeros(shape, dtype=np.int64)
        # A public bound on |low| (a Python int): when the next addition could
        # take it past 2^62, the carry is moved into ``high`` first.
        self._pending = 0

    @property
    def shape(self):
        return self.low.shape

    def add(self, values, bound):
        """Add an int64 array (or an integer-valued float array) whose entries
        are at most ``bound`` ≤ 2^61 in magnitude, in place."""
        if self._pending + bound >= _LIMIT:
            self._normalise()
        if values.dtype != np.int64:
            values = values.astype(np.int64)
        self.low += values
        self._pending += bound
        return self

    def _normalise(self):
        carry = self.low >> _SPLIT  # floor division by 2^32
        self.high += carry
        self.low -= carry << _SPLIT
        self._pending = 1 << _SPLIT

    def __add__(self, other):
        total = ExactTotal.__new__(ExactTotal)
        self._normalise()
        other._normalise()
        total.high = self.high + other.high
        total.low = self.low + other.low
        total._pending = 1 << (_SPLIT + 1)
        return total

    def normalised(self):
        """(high, low) with 0 ≤ low < 2^32: one pair for each integer."""
        self._normalise()
        return self.high, self.low

    def integers(self):
        """The exact totals as an object array of Python ints (slow: tests and
        rare paths)."""
        high, low = self.normalised()
        return (high.astype(object) << _SPLIT) + low.astype(object)

    @classmethod
    def from_parts(cls, high, low):
        """An ExactTotal holding high·2^32 + low (int64 arrays, copied)."""
        total = cls(np.shape(low))
        total.high[...] = high
        total.low[...] = low
        total._pending = int(np.abs(total.low).max(initial=0))
        return total

    @classmethod
    def from_integers(cls, values):
        """An ExactTotal holding an array of Python ints (or int64)."""
        values = np.asarray(values, dtype=object)
        return cls.from_parts(
            (values >> _SPLIT).astype(np.int64), (values & _LOW_MASK).astype(np.int64)
        )

    def scaled(self, bits):
        """A new total: every integer times 2^bits (0 ≤ bits ≤ 28)."""
        high, low = self.normalised()
        if np.abs(high).max(initial=0) >= 1 << (62 - bits):
            return ExactTotal.from_integers(self.integers() << bits)
        total = ExactTotal.__new__(ExactTotal)
        total.high = high << bits
        total.low = low << bits
        total._pending = 1 << (_SPLIT + bits)
        return total

    def rounded_down_shift(self, bits):
        """A new total: round(v / 2^bits) of every integer v (ties up), exactly."""
        if bits == 0:
            return self.scaled(0)
        if bits > _SPLIT:
            values = self.integers()
            half = 1 << (bits - 1)
            return ExactTotal.from_integers((values + half) >> bits)
        high, low = self.normalised()
        # v = high·2^32 + low, so v/2^j = (high >> j)·2^32 + (high mod 2^j)·2^{32−j}
        # + low/2^j: the last two terms, rounded, stay below 2^34.
        total = ExactTotal.__new__(ExactTotal)
        total.high = high >> bits
        total.low = ((high & ((1 << bits) - 1)) << (_SPLIT - bits)) + (
            (low + (1 << (bits - 1))) >> bits
        )
        total._pending = 1 << (_SPLIT + 2)
        return total

    def to_float(self, scale):
        """The totals times ``scale`` (a float), in float64: a function of the
        exact integers only (one pair (high, low) per integer), so equal
        totals give equal bits. Each integer is rounded once to float64 (its
        two halves' sum, exact below 2^53 for high), then once by the product:
        relative error at most 2·2^−53 plus the rounding of ``scale``."""
        high, low = self.normalised()
        if np.abs(high).max(initial=0) >= 1 << 53:
            # Beyond 2^85 (sums of more than 2^45 rows) high itself would
            # round: Python converts each integer correctly rounded, once.
            values = self.integers().astype(np.float64)
        else:
            values = high.astype(np.float64) * float(1 << _SPLIT)
            values += low.astype(np.float64)
        values *= scale
        return values


class ExactStatistic(np.ndarray):
    """A float64 statistic that carries its exact value: ``total`` /
    ``denominator`` with ``total`` an :class:`ExactTotal` of integers.

    The array is the float value (``ExactTotal.to_float``); hardened noise
    (``skprivcov.mechanisms.noise._hardened``) reads ``exact`` and noises the
    integers themselves. Anything computed from it (a slice, a product, a
    copy) is a plain array or an ExactStatistic with ``exact`` None: only the
    statistic as computed claims to be exact.
    """

    exact = None

    @classmethod
    def of(cls, total, denominator):
        """The statistic total/denominator (denominator a positive int)."""
        value = (
            total.to_float(1.0 / denominator)
            if denominator & (denominator - 1) == 0
            else total.to_float(1.0) / float(denominator)
        )
        statistic = value.view(cls)
        statistic.exact = (total, int(denominator))
        # Read-only: an in-place change would leave the integers stale, and
        # hardened noise would release them (review of issue 34).
        statistic.flags.writeable = False
        return statistic

    def __array_finalize__(self, obj):
        self.exact = None

    def __array_wrap__(self, array, context=None, return_scalar=False):
        if return_scalar:
            return array[()]
        return array.view(np.ndarray)

    def __reduce__(self):
        # Pickled (and copied) as the plain float array.
        return np.asarray(self).__reduce__()
