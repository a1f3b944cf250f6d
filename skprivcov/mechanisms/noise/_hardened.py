"""Hardened additive noise: the statistic on a grid, exact discrete noise (§17).

The float path adds numpy's continuous Gaussian or Laplace noise to a float
statistic; its output's low bits can reveal the statistic (Mironov 2012). The
hardened path (docs/algorithms.rst §17, "As implemented"):

1. picks a grid g = 2^−k from public values only: the largest power of two with
   σ/g ≥ 2^48 (σ the noise scale of the plain mechanism) whose rounding costs
   at most 2^−12 of the sensitivity;
2. rounds the statistic to the grid, s = g·round(v/g) (exact: a power-of-two
   scaling and an integer rounding);
3. draws integer noise Z exactly (:mod:`._discrete`), the discrete Gaussian
   for a zCDP budget, the discrete Laplace for a pure one, at a scale that
   covers the sensitivity inflated by the rounding (‖s − v‖ ≤ g/2 per
   coordinate) and by the public bound on the statistic's own floating-point
   error (:func:`gram_error_bound`);
4. returns s + g·Z. Both terms are exact multiples of g, so the float sum is the
   correctly rounded value of the exact discrete release: post-processing.

Privacy: the discrete Gaussian N_ℤ(0, σ_Z²) on a vector of ℓ2 sensitivity Δ
(in grid units) is Δ²/(2σ_Z²)-zCDP (CKS20 Thm 14), the discrete Laplace of
scale t on ℓ1 sensitivity Δ is (Δ/t)-DP; the scales are chosen so that these are
at most the budget's ρ or ε.
"""

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from skprivcov._data import mirror_upper
from skprivcov.mechanisms.noise._discrete import (
    discrete_gaussian,
    discrete_gaussian_variance,
    discrete_laplace,
    words_of,
)
from skprivcov.mechanisms.noise._float import symmetric_from_upper
from skprivcov.mechanisms.noise._record import record_noise

__all__ = [
    "HARDENED",
    "eigenvalue_error_bound",
    "exact_noise_plan",
    "gram_error_bound",
    "grid_laplace",
    "hardened_noise",
    "hardened_second_moment",
    "is_hardened",
    "noise_plan",
]

HARDENED = "hardened"

_UNIT_ROUNDOFF = 2.0**-53
# σ/g in [2^48, 2^49): the rounding costs a relative √m·2^−48/√(2ρ) of the
# sensitivity, and every integer of the sampler stays below 2^50.
_GRID_UNITS_BITS = 48
# Every computed scale is raised by this relative margin, which covers the
# rounding of the float operations that compute it (a few ulps).
_MARGIN = 1.0 + 2.0**-40


def _gamma(count):
    """Higham's γ_N = N·u/(1 − N·u): the relative error bound of a sum of N
    terms in any order (Higham, Accuracy and Stability, Lemma 3.1 and §3.1)."""
    nu = count * _UNIT_ROUNDOFF
    if nu >= 0.5:
        return math.inf
    return nu / (1.0 - nu)


def is_hardened(rng):
    """Whether ``rng`` asks for hardened noise.

    See ``skprivcov.mechanisms.noise._generators.release_generator``.

    Parameters
    ----------
    rng : numpy.random.Generator
        A generator of ``release_generator``.

    Returns
    -------
    hardened : bool
        True for hardened noise.
    """
    return getattr(rng, "noise", "float") == HARDENED


def gram_error_bound(n_samples, n_columns):
    """Public bound on ‖M̃ − M‖_F for the float value M̃ of a second moment.

    For one computed by skprivcov (``n_samples`` and ``n_columns`` do not enter).

    M is the exact statistic: integers over a public denominator, rows
    exactly in the unit ball (docs/algorithms.rst §19), so ‖M‖_F ≤ 1. Its
    float value (``ExactTotal.to_float``) rounds each entry twice (the integer
    to float64, the division), so each entry moves by at most (2u + u²) times
    its magnitude and ‖M̃ − M‖_F ≤ 2.0001·2^−53. The summation depth of the
    old float Gram is gone: the bound no longer grows with n. Hardened noise on an
    :class:`~skprivcov._data._exact.ExactStatistic` needs no bound at all (it
    noises the integers); this one serves the mechanisms that compute on the
    float value (eigenvalues, projections, the shrinkage), with the entries
    of ``augment``-style matrices built from it.

    Parameters
    ----------
    n_samples : int
        The public n.
    n_columns : int
        The dimension of M.

    Returns
    -------
    bound : float
        2.0001·2^−53, raised by a relative 2^−40.
    """
    return 2.0001 * _UNIT_ROUNDOFF * _MARGIN


def eigenvalue_error_bound(n_samples, n_columns):
    """Bound on ‖λ̂ − λ(M)‖₂ for eigenvalues computed from M̃.

    ‖λ(M̃) − λ(M)‖₂ ≤ ‖M̃ − M‖_F (Hoffman–Wielandt) is bounded by
    :func:`gram_error_bound`. LAPACK's eigenvalues are those of M̃ + F with
    ‖F‖₂ ≤ p(d)·u·‖M̃‖₂ (backward stability); p(d) has no published constant, so
    this takes p(d) = 64·d, that is ‖λ̂ − λ(M̃)‖₂ ≤ 64·d^{3/2}·u for ‖M̃‖₂ ≤ 1
    (an assumption, listed in docs/threat_model.rst).

    Parameters
    ----------
    n_samples : int
        The public n (does not enter).
    n_columns : int
        The dimension d of M.

    Returns
    -------
    bound : float
        The bound on ‖λ̂ − λ(M)‖₂.
    """
    lapack = 64.0 * n_columns**1.5 * _UNIT_ROUNDOFF
    return (gram_error_bound(n_samples, n_columns) + lapack) * _MARGIN


def _power_of_two_below(value):
    """The largest power of two at most ``value`` (> 0, finite)."""
    _, exponent = math.frexp(value)  # value = m·2^e, m ∈ [½, 1)
    return math.ldexp(1.0, exponent - 1)


def _grid(scale, sensitivity=None, spread=1.0):
    """The grid g: the largest power of two with scale/g ≥ 2^48 and, given a
    sensitivity, g·spread ≤ 2^−12·sensitivity (the rounding's share of the
    inflated sensitivity stays below 2^−12 even when m/ε is huge)."""
    if not 2.0**-900 < scale < 2.0**900:
        raise ValueError(
            "The noise scale is outside [2^-900, 2^900]: no grid for hardened "
            "noise (use noise='float')."
        )
    grid = _power_of_two_below(scale) * 2.0**-_GRID_UNITS_BITS
    if sensitivity is not None:
        grid = min(grid, _power_of_two_below(sensitivity / spread * 2.0**-12))
    return grid


def _on_grid(values, grid):
    """g·round(v/g), exactly (a power-of-two scaling, then rint)."""
    return np.rint(values / grid) * grid


def _plus_grid_noise(rounded, grid, draws):
    """rounded + g·Z, each entry the correctly rounded value of the exact sum.

    g·Z is exact for |Z| < 2^53; the rare larger draws are added as integers."""
    out = rounded + grid * draws.astype(float)
    for i in np.flatnonzero(np.abs(draws) >= 1 << 53):
        exact = Fraction(float(rounded.flat[i])) + int(draws.flat[i]) * Fraction(grid)
        out.flat[i] = float(exact)
    return out


def _words(rng):
    return words_of(rng, secure=getattr(rng, "secure", False))


def grid_laplace(scale, size, rng, *, site="svt queries", budget=None, joint=None):
    """Laplace noise on a grid: g·Z with Z discrete Laplace of scale ⌈b/g⌉.

    For the sparse vector technique (§17): its proof shifts the threshold's
    noise by 1 and a query's by 2, both multiples of g ≤ 1, and the discrete
    Laplace of scale t ≥ b/g changes by a factor at most e^{s/(g t)} ≤ e^{s/b}
    under a shift s, as the continuous Lap(b) does. The grid is the largest
    power of two with b/g ≥ 2^48 (the queries are exact: nothing is rounded),
    capped at 1. ``site``, ``budget`` and ``joint`` describe the draw for a
    noise record (``_noise_record``).

    Returns
    -------
    draws : ndarray of int64
        Z.
    grid : Fraction
        g, so the noise is exactly ``draws[i] * grid``.
    """
    # g ≤ 1, so that the proof's shifts by 1 and 2 stay on the lattice.
    grid = min(_grid(scale), 1.0)
    units = math.ceil(scale / grid * _MARGIN)
    draws = discrete_laplace(units, size, _words(rng))
    record_noise(
        site,
        budget,
        True,
        draws.astype(float) * grid,
        _redraw(False, units, grid),
        joint,
    )
    return draws, Fraction(grid)


def _redraw(gaussian, units, grid):
    """More draws of the discrete law of a plan, in float (for
    :class:`~skprivcov.mechanisms.noise._record.NoiseRecord`)."""

    def redraw(count, rng):
        words = words_of(rng)
        if gaussian:
            draws, _ = discrete_gaussian(units, count, words)
        else:
            draws = discrete_laplace(units, count, words)
        return np.asarray(draws, dtype=float) * grid

    return redraw


class NoisePlan(NamedTuple):
    """How :func:`hardened_noise` noises a statistic (public values only).

    grid : g = 2^−k.
    sensitivity : the inflated sensitivity Δ' (exact + float error + rounding).
    gaussian : discrete Gaussian (zCDP) or discrete Laplace (pure).
    units : the discrete law's parameter in grid units: the smallest σ the
        discrete Gaussian may have (it draws σ_Z ≥ this, see
        ``discrete_gaussian_variance``), or the discrete Laplace's integer t.
    """

    grid: float
    sensitivity: float
    gaussian: bool
    units: float

    def discrete_cost(self):
        """The discrete mechanism's own guarantee, exactly (a Fraction): ρ =
        (Δ'/g)²/(2σ_Z²) for the discrete Gaussian (CKS20 Thm 14), ε = (Δ'/g)/t
        for the discrete Laplace."""
        in_units = Fraction(self.sensitivity) / Fraction(self.grid)
        if self.gaussian:
            _, variance = discrete_gaussian_variance(self.units)
            return in_units**2 / (2 * variance)
        return in_units / self.units


def noise_plan(sensitivity, budget, coordinates, *, statistic_error=0.0):
    """The grid, inflated sensitivity and discrete scale for noised coordinates.

    For ``coordinates`` noised coordinates (docs/algorithms.rst §17, "As implemented").

    The grid is the largest power of two g with σ/g ≥ 2^48, σ the plain
    mechanism's scale (Δ/√(2ρ) or Δ/ε), and with g·√m (or g·m) at most
    2^−12·Δ. Neighbours' rounded statistics differ
    by at most Δ, plus each one's float error, plus g/2 per coordinate for each
    rounding: Δ' = Δ + 2E + g·√m (ℓ2) or Δ + 2E + g·m (ℓ1), then the discrete
    scale is Δ'/√(2ρ) or Δ'/ε in grid units, rounded up.

    Parameters
    ----------
    sensitivity : float
        The ℓ2 (zCDP) or ℓ1 (pure) sensitivity Δ in exact arithmetic.
    budget : PrivacyCost
        A zCDP or pure cost.
    coordinates : int
        The number m of noised coordinates.
    statistic_error : float, default=0.0
        The public bound E on the float error of the statistic.

    Returns
    -------
    plan : NoisePlan
        The grid, the inflated sensitivity, the law and its scale in grid units.
    """
    gaussian = budget.notion == "zcdp"
    if gaussian:
        rate = math.sqrt(2.0 * budget.rho)
        rounding_spread = math.sqrt(coordinates)
    else:
        rate = budget.parameter
        rounding_spread = coordinates
    grid = _grid(sensitivity / rate, sensitivity, rounding_spread)
    inflated = (sensitivity + 2.0 * statistic_error + grid * rounding_spread) * _MARGIN
    units = inflated / rate / grid * _MARGIN
    return NoisePlan(grid, inflated, gaussian, units if gaussian else math.ceil(units))


def exact_noise_plan(sensitivity, budget, coordinates):
    """The plan for an exact integer statistic (docs/algorithms.rst §19), in
    the units of its integers: ``sensitivity`` is Δ times the statistic's
    denominator.

    The integers need no rounding while the discrete scale Δ/√(2ρ) (or Δ/ε)
    is below 2^49 units, the samplers' fast range: then Δ' = Δ exactly, with
    no float-error term (``grid`` 1). Above, the integers are rounded to the
    largest power of two g with scale/g ≥ 2^48 and g·√m (or g·m) ≤ 2^−12·Δ,
    and Δ' = Δ + g·√m (ℓ2) or Δ + g·m (ℓ1), as in :func:`noise_plan`.
    """
    gaussian = budget.notion == "zcdp"
    if gaussian:
        rate = math.sqrt(2.0 * budget.rho)
        rounding_spread = math.sqrt(coordinates)
    else:
        rate = budget.parameter
        rounding_spread = coordinates
    grid = max(1.0, _grid(sensitivity / rate, sensitivity, rounding_spread))
    rounding = 0.0 if grid == 1.0 else grid * rounding_spread
    inflated = (sensitivity + rounding) * _MARGIN
    units = inflated / rate / grid * _MARGIN
    return NoisePlan(grid, inflated, gaussian, units if gaussian else math.ceil(units))


def _exact_hardened_noise(values, sensitivity, budget, rng, symmetric, n_releases):
    """(release, noise in the statistic's units, the plan's law) of an
    :class:`~skprivcov._data._exact.ExactStatistic`: exact discrete noise
    added to its integers (§19), then the float value of the noisy integers
    over the denominator (post-processing of the exact discrete release)."""
    total, denominator = values.exact
    d = values.shape[0]
    coordinates = d * (d + 1) // 2 if symmetric else values.size
    plan = exact_noise_plan(sensitivity * denominator, budget, coordinates * n_releases)
    words = _words(rng)
    if plan.gaussian:
        draws, _ = discrete_gaussian(plan.units, coordinates, words)
    else:
        draws = discrete_laplace(plan.units, coordinates, words)
    scale = plan.grid / float(denominator)
    # The record holds the draws as drawn (the upper triangle, row by row).
    noise = np.asarray(draws, dtype=float) * scale
    if symmetric:
        draws = symmetric_from_upper(draws, d)
    draws = draws.reshape(values.shape)
    shift = int(plan.grid).bit_length() - 1
    rounded = total.rounded_down_shift(shift)
    if draws.dtype == object:
        # Beyond int64 (only extreme budgets): the noisy integers may exceed
        # an ExactTotal's range; Python ints, each converted once.
        noisy = (rounded.integers() + draws).astype(np.float64)
        return noisy * scale, noise, plan, scale
    noisy = rounded.add(draws, int(np.abs(draws).max(initial=0)))
    return noisy.to_float(scale), noise, plan, scale


def hardened_noise(
    values,
    sensitivity,
    budget,
    rng,
    *,
    statistic_error=0.0,
    symmetric=False,
    n_releases=1,
    site=None,
    joint=None,
):
    """``values`` plus exact discrete noise on a grid, private for ``budget``.

    Parameters
    ----------
    values : ndarray or Fraction
        The statistic: a float array (a symmetric matrix if ``symmetric``,
        whose upper triangle is the released vector), or one exact Fraction.
    sensitivity : float
        Its ℓ2 (zCDP budget) or ℓ1 (pure budget) sensitivity in exact
        arithmetic.
    budget : PrivacyCost
        A zCDP or pure cost, spent in full.
    rng : numpy.random.Generator
        ``release_generator``'s; its ``secure`` flag picks the OS CSPRNG.
    statistic_error : float, default=0.0
        Public bound on the distance, in the sensitivity's norm, between the
        computed statistic and its exact value (counted twice: both neighbours).
    symmetric : bool, default=False
        Noise the upper triangle and mirror it.
    n_releases : int, default=1
        The number of such calls, on the same grid, whose statistics together
        have the given sensitivity (the per-class sums of private LDA): the
        rounding of all their coordinates counts.
    site : str, default=None
        Which statistic this is (``_noise_record.SITES``), for a noise record;
        every caller inside skprivcov names it.
    joint : object, default=None
        A token shared by the records of draws that spend one budget together.

    Returns
    -------
    release : ndarray or float
        ``values`` plus the noise: an array, or a float for a Fraction.
    """
    if getattr(values, "exact", None) is not None:
        # An exact statistic: its integers are noised, no error to cover.
        release, noise, plan, grid = _exact_hardened_noise(
            values, sensitivity, budget, rng, symmetric, n_releases
        )
        redraw = _redraw(plan.gaussian, plan.units, grid)
        record_noise(site, budget, True, noise, redraw, joint)
        return release
    scalar = isinstance(values, Fraction)
    if sensitivity == 0.0 and statistic_error == 0.0:
        # A statistic that no row can move needs no noise (as σ = 0 adds none).
        return float(values) if scalar else values.copy()
    d = 1 if scalar else values.shape[0]
    coordinates = d * (d + 1) // 2 if symmetric else (1 if scalar else values.size)
    plan = noise_plan(
        sensitivity, budget, coordinates * n_releases, statistic_error=statistic_error
    )
    words = _words(rng)
    if plan.gaussian:
        draws, _ = discrete_gaussian(plan.units, coordinates, words)
    else:
        draws = discrete_laplace(plan.units, coordinates, words)
    grid = plan.grid
    record_noise(
        site,
        budget,
        True,
        np.asarray(draws, dtype=float) * grid,
        _redraw(plan.gaussian, plan.units, grid),
        joint,
    )
    if scalar:
        exact = Fraction(round(values / Fraction(grid)) + int(draws[0])) * Fraction(
            grid
        )
        return float(exact)
    rounded = _on_grid(values, grid)
    if symmetric:
        # Only the upper triangle is released (the lower one mirrors it), so a
        # statistic that is not exactly symmetric publishes nothing more.
        rounded = mirror_upper(rounded)
        draws = symmetric_from_upper(draws, d)
    return _plus_grid_noise(rounded, grid, draws.reshape(values.shape))


def hardened_second_moment(
    matrix,
    n_samples,
    sensitivity,
    budget,
    rng,
    n_releases=1,
    *,
    site="second moment",
    joint=None,
):
    """A second moment computed by skprivcov plus hardened noise on its upper
    triangle: :func:`hardened_noise`. An
    :class:`~skprivcov._data._exact.ExactStatistic` (what the statistics pass
    returns) is noised exactly, with no error term (§19); a float matrix
    computed from one gets its float error, in ℓ2 (zCDP) the Frobenius bound
    :func:`gram_error_bound`, in ℓ1 (pure) d times it (Σ_{j≤k}|E_jk| ≤
    d·‖E‖_F)."""
    d = matrix.shape[0]
    error = gram_error_bound(n_samples, d)
    if budget.notion != "zcdp":
        error *= d
    return hardened_noise(
        matrix,
        sensitivity,
        budget,
        rng,
        statistic_error=error,
        symmetric=True,
        n_releases=n_releases,
        site=site,
        joint=joint,
    )
