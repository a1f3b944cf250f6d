"""Shared parameter constraints, with the safe ranges of the public numbers.

docs/algorithms.rst §13.2: nothing that is independent of the data may fail after
the budget is charged. Every public number a fit computes with is therefore
bounded, and checked before the charge by ``_parameter_constraints``, to a
range where no intermediate value can overflow or underflow float64:

* a budget ρ or ε in [1e−30, 1e30], and a share of it in [1e−3, 1 − 1e−3], so
  every part is at least 1e−33: the largest noise at unit scale is then below
  about 1e18 (Gaussian) or 1e35·d (Laplace), and the exponential mechanism's
  concentration below 1e30·n;
* a norm bound B in [1e−30, 1e30], so the release is rescaled by B² ≤ 1e60 (at
  most ~1e100·d² in all) and AdaptiveCovariance's smallest threshold,
  B·2^−320 ≥ 4e−127, has a normal square;
* the remaining numbers (failure probabilities, shares, factors) within ranges
  where their logarithms and products stay finite.

The ranges are far wider than any meaningful use: a budget below 1e−30 releases
noise only, and rescaling a unit-ball release by more than 1e60 loses nothing
that a smaller unit would keep.
"""

from numbers import Integral, Real

from skprivcov._compat import Interval, Options, StrOptions
from skprivcov._data import NONFINITE_RULES
from skprivcov.mechanisms.noise import SEED_LIMIT

__all__ = [
    "BUDGET",
    "BUDGET_RANGE",
    "DELTA",
    "NOISE",
    "NONFINITE",
    "NORM_BOUND",
    "NORM_BOUND_RANGE",
    "PROJECTION",
    "RELEASE_NORM_BOUND",
    "RELEASE_SEED",
    "SHARE",
    "SHARE_RANGE",
    "BoundRange",
    "is_auto",
]

BUDGET_RANGE = (1e-30, 1e30)
NORM_BOUND_RANGE = (1e-30, 1e30)
SHARE_RANGE = (1e-3, 1.0 - 1e-3)

# rho and epsilon (None: not given).
BUDGET = [Interval(Real, *BUDGET_RANGE, closed="both"), None]
DELTA = [Interval(Real, 0, 1, closed="left"), None]
NORM_BOUND = [Interval(Real, *NORM_BOUND_RANGE, closed="both")]


class BoundRange(Options):
    """A pair (low, high) of public numbers, NORM_BOUND_RANGE[0] <= low <
    high <= NORM_BOUND_RANGE[1] (not bools): the range a private bound is
    chosen in (docs/algorithms.rst §18.2), when the user knows more than the
    default grid 2^-32..2^32 assumes. (An ``Options`` so that
    scikit-learn's parameter validation takes it.)"""

    def __init__(self):
        super().__init__(tuple, set())

    def is_satisfied_by(self, val):
        if not (isinstance(val, tuple) and len(val) == 2):
            return False
        if not all(isinstance(v, Real) and not isinstance(v, bool) for v in val):
            return False
        low, high = (float(v) for v in val)
        return NORM_BOUND_RANGE[0] <= low < high <= NORM_BOUND_RANGE[1]

    def __str__(self):
        return (
            "a tuple (low, high) with "
            f"{NORM_BOUND_RANGE[0]:g} <= low < high <= {NORM_BOUND_RANGE[1]:g}"
        )


# A releasing estimator's bound: public, or "auto", a private quantile of the
# row norms inside the budget (docs/algorithms.rst §18.2), on the default grid
# or, given a pair (low, high), on the grid of that range.
RELEASE_NORM_BOUND = [*NORM_BOUND, StrOptions({"auto"}), BoundRange()]
# A share of a budget (e.g. an eigenvalue share, a trace fraction).
SHARE = [Interval(Real, *SHARE_RANGE, closed="both")]


class _IntervalOfInts(Interval):
    """An interval of ints that are not bools (``True`` is an ``Integral``)."""

    def is_satisfied_by(self, val):
        return not isinstance(val, bool) and super().is_satisfied_by(val)


# The random_state of anything that releases: None or an int in [0, 2⁶³); a
# Generator or RandomState would be deep-copied by clone() and replayed, and
# a bool is not a seed (_random). Below 2⁶³ a seed's stream can never be a
# diagnostic stream (``_random.derived_generator``).
RELEASE_SEED = [_IntervalOfInts(Integral, 0, SEED_LIMIT - 1, closed="both"), None]
NONFINITE = [StrOptions(set(NONFINITE_RULES))]
# The default post-processing of a release (docs/algorithms.rst §4.2, §15), or None.
PROJECTION = [StrOptions({"psd-trace"}), None]
# How additive noise is drawn (docs/algorithms.rst §17).
NOISE = [StrOptions({"hardened", "float"})]


def is_auto(value):
    """Whether a bound parameter asks for a private bound: the string "auto"
    (never compared with ``==`` on an array or a tuple)."""
    return isinstance(value, str) and value == "auto"
