"""Exact discrete Laplace and discrete Gaussian samplers (docs/algorithms.rst §17).

Canonne, Kamath and Steinke (NeurIPS 2020, arXiv:2004.00010), Algorithms 1–3,
vectorised: every step works on the whole batch of pending draws with integer
arrays, and a rejected draw is redrawn in the next round (batch rejection).
The randomness is a stream of uniform 64-bit words (:func:`words_of`): numpy's
PCG64 for seeded experiments, the operating system's CSPRNG (``os.urandom``)
otherwise.

Exactness. Every coin of the algorithms is a Bernoulli(exp(−γ)) for a rational
γ ≥ 0. :func:`bernoulli_exp` decides it by comparing a uniform U ∈ [0, 1) with
exp(−γ): the first 53 bits of U are compared with a floating-point value of
exp(−γ) inside a band of half-width 2⁻³⁰ that provably contains the true value
(the caller bounds the error of its float γ by 2⁻⁴⁰, and numpy's exp is far
more accurate than 2⁻⁴⁰); a U whose cell meets the band (probability about
2⁻²⁹ per coin) is decided exactly, with rational bounds on exp(−γ) from its
alternating series and further bits of U until the two separate. The float
filter only saves work: the law of every coin, hence of every draw, is exact.
"""

import math
import os
from fractions import Fraction

import numpy as np

__all__ = [
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_gaussian_variance",
    "discrete_laplace",
    "os_words",
    "words_of",
]

# Half-width of the band around the float exp(−γ) that contains the true value.
# A module constant so that the tests can widen it and drive most coins through
# the exact path.
FILTER_BAND = 2.0**-30
_MANTISSA_BITS = 53
# Parameters up to 2^50 run on int64 arrays (every float computed from them
# within a relative 2^−50 of the exact value); larger ones, which only extreme
# budgets need, on arrays of Python ints (exact, slower).
PARAMETER_LIMIT = 2**50


def os_words(size):
    """``size`` uniform 64-bit words from the operating system's CSPRNG."""
    return np.frombuffer(os.urandom(8 * size), dtype="<u8").astype(np.uint64)


def words_of(rng, *, secure=False):
    """A source of uniform 64-bit words: the OS CSPRNG if ``secure``, else the
    bit generator of ``rng`` (reproducible from its seed)."""
    if secure:
        return os_words
    raw = rng.bit_generator.random_raw
    return lambda size: np.asarray(raw(size), dtype=np.uint64)


def _unit_series_bounds(y, precision):
    """Fractions lo ≤ exp(−y) ≤ hi for a Fraction y in [0, 1], hi − lo ≤ 2^−precision.

    The series Σ (−y)^j / j! alternates with terms decreasing in size (y ≤ 1),
    so consecutive partial sums enclose the limit.
    """
    scale = 1 << (precision + 2)
    term, total, j = Fraction(1), Fraction(1), 0
    while True:
        j += 1
        term = -term * y / j
        previous, total = total, total + term
        if abs(term) * scale <= 1:
            break
    low, high = min(previous, total), max(previous, total)
    # Outward to multiples of 2^−(precision+2), to keep the numbers small.
    return (
        Fraction(math.floor(low * scale), scale),
        Fraction(math.ceil(high * scale), scale),
    )


def _exp_bounds(gamma, precision):
    """Fractions lo ≤ exp(−γ) ≤ hi for a Fraction γ ≥ 0: exp(−γ) = e^{−w}·e^{−f}
    with w = ⌊γ⌋, f = γ − w, each factor enclosed by its series."""
    whole = gamma.numerator // gamma.denominator
    working = precision + 2 * whole.bit_length() + 8
    low, high = _unit_series_bounds(gamma - whole, working)
    if whole:
        e_low, e_high = _unit_series_bounds(Fraction(1), working)
        scale = 1 << working
        power_low, power_high = Fraction(1), Fraction(1)
        base_low, base_high, exponent = e_low, e_high, whole
        while exponent:
            if exponent & 1:
                power_low = Fraction(math.floor(power_low * base_low * scale), scale)
                power_high = Fraction(math.ceil(power_high * base_high * scale), scale)
            exponent >>= 1
            if exponent:
                base_low = Fraction(math.floor(base_low * base_low * scale), scale)
                base_high = Fraction(math.ceil(base_high * base_high * scale), scale)
        low, high = low * power_low, high * power_high
    return low, high


def _exact_comparison(gamma, prefix, bits, words):
    """Whether U < exp(−γ), exactly, for U uniform with known first ``bits``
    bits ``prefix``: more bits of U and tighter bounds on exp(−γ) until they
    part. Ends with probability one (exp(−γ) is 1 or irrational).

    Returns
    -------
    below : bool
    prefix, bits : int
        What is now known of U (to compare the same U with another value).
    """
    precision = bits + 16
    while True:
        low, high = _exp_bounds(gamma, precision)
        if Fraction(prefix + 1, 1 << bits) <= low:
            return True, prefix, bits
        if Fraction(prefix, 1 << bits) >= high:
            return False, prefix, bits
        prefix = (prefix << 64) | int(words(1)[0])
        bits += 64
        precision += 64


def bernoulli_exp(gamma_approx, exact_gamma, words):
    """Independent Bernoulli(exp(−γᵢ)) coins, exactly.

    Parameters
    ----------
    gamma_approx : ndarray of float
        γᵢ ≥ 0 in floating point, with |exp(−γ̂ᵢ) − exp(−γᵢ)| ≤ 2⁻⁴⁰ (true when
        γ̂ᵢ is within a relative 2⁻⁴⁰ of γᵢ).
    exact_gamma : callable
        ``exact_gamma(i)`` is γᵢ as a Fraction; called only for the rare coins
        that the float filter cannot decide.
    words : callable
        Source of uniform 64-bit words.

    Returns
    -------
    coins : ndarray of bool
    """
    gamma_approx = np.asarray(gamma_approx, dtype=float)
    word = words(gamma_approx.size)
    top = word >> np.uint64(64 - _MANTISSA_BITS)
    cell = top.astype(float) * 2.0**-_MANTISSA_BITS
    p = np.exp(-np.maximum(gamma_approx, 0.0))
    # Twice the band: the float sums below round by far less than the band.
    below = cell + 2.0**-_MANTISSA_BITS <= p - 2 * FILTER_BAND
    above = cell >= p + 2 * FILTER_BAND
    coins = below
    for i in np.flatnonzero(~(below | above)):
        coins[i], _, _ = _exact_comparison(
            exact_gamma(int(i)), int(top[i]), _MANTISSA_BITS, words
        )
    return coins


def _uniform_below(bound, size, words):
    """Uniform integers in {0, …, bound − 1}, exactly: for bound ≤ 2^62 a word
    modulo ``bound``, rejected above the largest multiple of ``bound`` (int64);
    beyond, the top bits of enough words, rejected at or above ``bound``
    (Python ints)."""
    if bound > 1 << 62:
        return _big_uniform_below(bound, size, words)
    limit = (1 << 64) // bound * bound
    out = np.empty(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        word = words(pending.size)
        if limit == 1 << 64:
            ok = np.ones(pending.size, bool)
        else:
            ok = word < np.uint64(limit)
        out[pending[ok]] = (word[ok] % np.uint64(bound)).astype(np.int64)
        pending = pending[~ok]
    return out


def _big_uniform_below(bound, size, words):
    bits = bound.bit_length()
    n_words = -(-bits // 64)
    out = np.empty(size, dtype=object)
    pending = np.arange(size)
    while pending.size:
        value = np.zeros(pending.size, dtype=object)
        for _ in range(n_words):
            value = value * (1 << 64) + words(pending.size).astype(object)
        value = value // (1 << (64 * n_words - bits))  # the top ``bits`` bits
        ok = (value < bound).astype(bool)
        out[pending[ok]] = value[ok]
        pending = pending[~ok]
    return out


def _geometric_and_sign(size, words):
    """(V, sign) per draw: V = ⌊−log U⌋ for one uniform U, the number of
    Bernoulli(e⁻¹) successes before the first failure in CKS20 Algorithm 2
    (P(V ≥ k) = P(U < e^{−k}) = e^{−k}), and an independent fair sign from
    the lowest bit of U's word, which the decision never reads.

    The first 53 bits of U decide V unless log U is within 2⁻³⁰ of an
    integer; those U are compared exactly with e^{−1}, e^{−2}, …
    """
    word = words(size)
    negative = (word & np.uint64(1)).astype(bool)
    top = word >> np.uint64(64 - _MANTISSA_BITS)
    cell = top.astype(float) * 2.0**-_MANTISSA_BITS
    with np.errstate(divide="ignore"):
        # −log over the cell [c, c + 2^−53), widened by the band.
        low = np.floor(-np.log(cell + 2.0**-_MANTISSA_BITS) - FILTER_BAND)
        high = np.floor(-np.log(cell) + FILTER_BAND)
    decided = (low == high) & np.isfinite(high)
    counts = np.where(decided, low, 0.0).astype(np.int64)
    for i in np.flatnonzero(~decided):
        prefix, bits, k = int(top[i]), _MANTISSA_BITS, 1
        while True:
            below, prefix, bits = _exact_comparison(Fraction(k), prefix, bits, words)
            if not below:
                break
            k += 1
        counts[i] = k - 1
    return counts, negative


def _candidates(pending):
    """Candidates drawn in a round for ``pending`` places: half as many again,
    plus 16, so that small batches rarely need a second round."""
    return pending + pending // 2 + 16


def _place(out, pending, values, accept):
    """Accepted candidates, in their order, fill the pending places; returns
    the places still pending. Exact: the candidates are independent, each
    accepted one has the target law, and which place gets which depends on
    the acceptance pattern alone."""
    chosen = values[accept][: pending.size]
    out[pending[: chosen.size]] = chosen
    return pending[chosen.size :]


def _check_parameter(value, name):
    if value < 1:
        raise ValueError(f"{name} must be a positive integer.")


def discrete_laplace(scale, size, words):
    """Draw from the discrete Laplace law P(x) ∝ exp(−|x|/t) on ℤ, exactly.

    CKS20 Algorithm 2 for a rational scale t = a/b: U uniform on
    {0, …, a − 1} kept with probability exp(−U/a), V ~ Geometric, X = U + aV,
    Y = ⌊X/b⌋, a random sign (Y = 0 with sign − rejected).

    Parameters
    ----------
    scale : int or Fraction
        The scale t > 0.
    size : int
        The number of draws.
    words : callable
        Source of uniform 64-bit words (:func:`words_of`).

    Returns
    -------
    draws : ndarray of int64
        The draws: of Python ints for a scale beyond 2^50.
    """
    scale = Fraction(scale)
    a, b = scale.numerator, scale.denominator
    _check_parameter(a, "The scale's numerator")
    _check_parameter(b, "The scale's denominator")
    big = max(a, b) > PARAMETER_LIMIT
    out = np.empty(size, dtype=object if big else np.int64)
    pending = np.arange(size)
    while pending.size:
        k = _candidates(pending.size)
        u = _uniform_below(a, k, words)
        if big:  # Python ints: true division is correctly rounded
            u = u.astype(object)
            gamma = np.array([v / a for v in u], dtype=float)
        else:
            gamma = u / a
        keep = bernoulli_exp(gamma, lambda i, u=u: Fraction(int(u[i]), a), words)
        geometric, negative = _geometric_and_sign(k, words)
        if big:
            geometric = geometric.astype(object)
        x = u + a * geometric
        y = x // b
        accept = keep & ~(negative & (y == 0))
        pending = _place(out, pending, np.where(negative, -y, y), accept)
    return out


def discrete_gaussian_variance(sigma):
    """(T, σ_Z²) of the discrete Gaussian that :func:`discrete_gaussian` draws
    for a requested σ: T = ⌈σ⌉ + 1 and σ_Z² = T(T − 1) ≥ σ², exactly."""
    top = math.ceil(sigma) + 1
    return top, top * (top - 1)


def discrete_gaussian(sigma, size, words):
    """Draw from the discrete Gaussian N_ℤ(0, σ_Z²), P(x) ∝ exp(−x²/(2σ_Z²)).

    CKS20 Algorithm 3 with σ_Z² = T(T − 1), T = ⌈σ⌉ + 1 (so σ_Z ≥ σ, and its
    t = ⌊σ_Z⌋ + 1 = T and σ_Z²/t = T − 1 are integers): Y from the discrete
    Laplace of scale T, kept with probability
    ``exp(−(|Y| − (T − 1))² / (2T(T − 1)))``.

    Parameters
    ----------
    sigma : float
        The smallest acceptable σ, positive and finite (beyond 2^50 − 1 the
        draws are Python ints).
    size : int
        The number of draws.
    words : callable
        Source of uniform 64-bit words (:func:`words_of`).

    Returns
    -------
    draws : ndarray of int64
        The draws: of Python ints beyond 2^50.
    variance : int
        The exact variance parameter σ_Z² = T(T − 1) of the law drawn.
    """
    if not 0 < sigma < math.inf:
        raise ValueError("sigma must be positive and finite.")
    top, variance = discrete_gaussian_variance(sigma)
    big = top > PARAMETER_LIMIT
    out = np.empty(size, dtype=object if big else np.int64)
    pending = np.arange(size)
    while pending.size:
        y = discrete_laplace(top, _candidates(pending.size), words)
        distance = np.abs(y) - (top - 1)
        if big:  # one correctly rounded division of exact ints
            gamma = np.array([w * w / (2 * variance) for w in distance], dtype=float)
        else:
            # Relative error below 2^−50: a product and a quotient of floats
            # within a relative 2^−53 of exact integers.
            gamma = np.square(distance.astype(float)) / (
                2.0 * float(top) * float(top - 1)
            )
        accept = bernoulli_exp(
            gamma, lambda i, w=distance: Fraction(int(w[i]) ** 2, 2 * variance), words
        )
        pending = _place(out, pending, y, accept)
    return out, variance
