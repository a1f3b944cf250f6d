"""Nuclear-Laplace noise (d'Orsi & Novikov): density ∝ exp(−‖Z‖_*/r).

docs/algorithms.rst §6. The noise factors as Z = U·diag(R·w)·Vᵀ (general d×d) or
Z = P·diag(R·w)·Pᵀ (on Sym(d), the symmetric variant), with independent parts
(§6.2):

* R = ‖Z‖_* ~ Gamma(D, r), D = d² (general) or d(d+1)/2 (symmetric): **exact**;
* U, V, P Haar on O(d), by QR of a Gaussian matrix with the sign fix
  (Mezzadri 2007): **exact**;
* w, the normalised singular values (eigenvalues), with density
  ∝ Π_{i<j}|w_i² − w_j²| on the simplex (∝ Π_{i<j}|w_i − w_j| on the ℓ1 sphere):
  **approximate**. No exact practical sampler is known (§6.3). It is drawn by a
  Markov chain (Gibbs sweeps of slice updates plus a scale move) on the ordered
  chamber, where the target of s = (unnormalised w) is log-concave, started at
  the large-d equilibrium; every update leaves the target exactly invariant,
  but the chain runs a finite number of sweeps.

What this means for privacy: the mechanism Σ + Z is pure ε-DP for the exact
law of Z. With the chain's law at total-variation distance η from it, it is
(ε, (1 + e^ε)η)-DP, and η is not certified (§6.3, risk R1).

Nothing about the chain that drew a release's noise ever leaves these functions
(§13.1): its final state is the noise direction, so a diagnostic of it (e.g.
d·max|w|) lets anyone holding the release tell Σ_D from Σ_D' by checking which
residual has that statistic. Convergence is checked instead by
:func:`nuclear_chain_diagnostics`, on independent chains whose randomness never
becomes noise.
"""

import math
from typing import NamedTuple

import numpy as np

from skprivcov._data import symmetrize
from skprivcov.mechanisms.noise._generators import derived_generator

__all__ = [
    "NoiseDiagnostics",
    "equilibrium_start",
    "haar_orthogonal",
    "nuclear_chain_diagnostics",
    "nuclear_laplace_noise",
    "sample_normalised_spectrum",
]

# Doubling grid for the unbounded sides of the top (and, symmetric, bottom) value.
_GRID = 2.0 ** np.arange(24)
# Candidates drawn per shrinkage round; one round nearly always suffices.
_BATCH = 4
# The scale move s ↦ c·s, log c ~ N(0, 0.05²) (§6.3).
_SCALE_STEP = 0.05


class NoiseDiagnostics(NamedTuple):
    """Convergence diagnostics of independent runs of the spectrum chain.

    Made by :func:`nuclear_chain_diagnostics` from chains that never become
    noise: they say how well the chain mixes, nothing about a release.

    Parameters
    ----------
    n_sweeps : int
        The sweeps run.
    statistic : ndarray of shape (n_chains, n_sweeps)
        The statistic d·max|w| after each sweep, per chain.
    scale_acceptance : float
        Acceptance rate of the scale moves.
    geweke_z : ndarray of shape (n_chains,)
        Geweke's z of the statistic (first 10% against last 50% of the
        sweeps, standard errors from the tail's batch means), per chain; about
        N(0, 1) at stationarity, large when the start has not been forgotten.
    autocorrelation_time : ndarray of shape (n_chains,)
        Integrated autocorrelation time of the statistic, in sweeps (initial
        positive sequence), per chain.

    See Also
    --------
    nuclear_chain_diagnostics : Runs the chains.

    Examples
    --------
    >>> from skprivcov.mechanisms import nuclear_chain_diagnostics
    >>> diagnostics = nuclear_chain_diagnostics(3, n_sweeps=20, random_state=0)
    >>> diagnostics.statistic.shape
    (4, 20)
    """

    n_sweeps: int
    statistic: np.ndarray
    scale_acceptance: float
    geweke_z: np.ndarray
    autocorrelation_time: np.ndarray


def haar_orthogonal(d, rng):
    """A Haar-distributed orthogonal d×d matrix (docs/algorithms.rst §0.1).

    Q of the QR decomposition of a Gaussian matrix, with its columns' signs
    fixed by sign(diag R): without the fix the law is not Haar (Mezzadri 2007).

    Parameters
    ----------
    d : int
        The dimension.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    q : ndarray of shape (d, d)
        The orthogonal matrix.
    """
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    signs = np.sign(np.diag(r))
    signs[signs == 0.0] = 1.0
    return q * signs


def _ullman_cdf(t):
    """CDF of |x|/a under the Ullman (Freud α = 1) law on [−a, a] (§6.3)."""
    t = np.clip(t, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(t > 0.0, t * np.arccosh(1.0 / np.maximum(t, 1e-300)), 0.0)
    return (2.0 / math.pi) * (first + np.arcsin(t))


def equilibrium_start(d, *, symmetric):
    """The chain's start: quantiles of the large-d equilibrium, descending.

    t_k = F⁻¹((d − k + ½)/d); general s_k = πd·t_k, symmetric magnitudes
    (πd/2)·t_k with alternating signs (§6.3, EquilibriumStart).

    Parameters
    ----------
    d : int
        The dimension.
    symmetric : bool
        The symmetric variant, else the general one.

    Returns
    -------
    start : ndarray of shape (d,)
        The initial state, descending.
    """
    levels = (d - np.arange(1, d + 1) + 0.5) / d
    # F increases from 0 to 1 on [0, 1]: bisection on all levels at once, to
    # below 1e-15 after 52 halvings.
    low, high = np.zeros(d), np.ones(d)
    for _ in range(52):
        middle = 0.5 * (low + high)
        below = _ullman_cdf(middle) < levels
        low = np.where(below, middle, low)
        high = np.where(below, high, middle)
    quantiles = 0.5 * (low + high)
    if not symmetric:
        return math.pi * d * quantiles
    signs = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
    return np.sort(0.5 * math.pi * d * quantiles * signs)[::-1]


def _log_target(x, state, k, symmetric):
    """Log of the chamber density as a function of value k, the others fixed:
    −|x| + Σ_{j≠k} log|x − s_j| (symmetric) or −x + Σ_{j≠k} log|x² − s_j²|
    (general, x ≥ 0). x has shape (chains, m), state (chains, d)."""
    if symmetric:
        gaps = x[:, :, None] - state[:, None, :]
    else:
        gaps = x[:, :, None] ** 2 - (state**2)[:, None, :]
    gaps[:, :, k] = 1.0  # j = k is not a factor
    np.abs(gaps, out=gaps)
    with np.errstate(divide="ignore"):
        np.log(gaps, out=gaps)
    return gaps.sum(axis=2) - np.abs(x)


def _close_open_sides(state, k, x0, low, high, level, symmetric):
    """Close the unbounded sides of the chamber interval (value 1 upwards, and
    for the symmetric variant value d downwards) at the first point of a
    doubling grid, anchored at the finite neighbour, past the slice's end.

    The grid does not depend on x0, and the first grid point beyond x0 that is
    outside the slice is the first grid point past the slice's end for every x0
    in the slice (the slice is an interval: the conditional is log-concave), so
    the bracket is the same from any point of the slice, as slice sampling
    requires (Neal 2003, §4)."""
    for side, bound, other in ((1.0, high, low), (-1.0, low, high)):
        if np.isfinite(bound[0]):
            continue
        anchor = other if np.isfinite(other[0]) else np.zeros_like(other)
        width = np.maximum(1.0, np.abs(anchor) / 2)
        grid = anchor[:, None] + side * width[:, None] * _GRID
        outside = (side * (grid - x0[:, None]) > 0) & (
            _log_target(grid, state, k, symmetric) < level[:, None]
        )
        if not np.all(outside.any(axis=1)):
            raise RuntimeError("The slice bracket did not close; this is a bug.")
        bound[:] = grid[np.arange(grid.shape[0]), outside.argmax(axis=1)]


def _slice_update(state, k, rng, symmetric, *, vectorised=None):
    """Exact-invariance slice update of value k of every chain (Neal 2003).

    The value stays in its chamber interval (s_{k+1}, s_{k−1}) (unbounded sides
    closed by :func:`_close_open_sides`); the interval then shrinks towards x0.
    Candidates come in batches: a batch is the shrinkage sequence as if every
    earlier candidate had been rejected, so keeping its first accepted one is
    exactly the sequential procedure. ``vectorised`` (default: more than one
    chain) chooses the shrinkage over arrays of chains or on Python floats.
    """
    n_chains, d = state.shape
    x0 = state[:, k].copy()
    if k + 1 < d:
        low = state[:, k + 1].copy()
    else:
        low = np.full(n_chains, -np.inf if symmetric else 0.0)
    high = state[:, k - 1].copy() if k > 0 else np.full(n_chains, np.inf)
    drop = rng.standard_exponential(n_chains)
    level = None
    if k == 0 or (symmetric and k == d - 1):
        level = _log_target(x0[:, None], state, k, symmetric)[:, 0] - drop
        _close_open_sides(state, k, x0, low, high, level, symmetric)

    if not (n_chains > 1 if vectorised is None else vectorised):
        level = None if level is None else float(level[0])
        _shrink_one_chain(state, k, rng, symmetric, low[0], high[0], level, drop[0])
        return
    chains = np.arange(n_chains)
    while chains.size:
        start = x0[chains]
        uniforms = rng.random((_BATCH, chains.size))
        points = np.empty((chains.size, _BATCH + 1))
        points[:, 0] = start
        below = np.empty(chains.size, dtype=bool)
        for i in range(_BATCH):
            candidate = low + uniforms[i] * (high - low)
            points[:, i + 1] = candidate
            np.less(candidate, start, out=below)
            np.copyto(low, candidate, where=below)
            np.logical_not(below, out=below)
            np.copyto(high, candidate, where=below)
        values = _log_target(points, state[chains], k, symmetric)
        if level is None:  # x0 was evaluated with the first batch
            level = values[:, 0] - drop
        accepted = values[:, 1:] > level[chains, None]
        hit = accepted.any(axis=1)
        first = 1 + accepted.argmax(axis=1)
        state[chains[hit], k] = points[hit, first[hit]]
        chains, low, high = chains[~hit], low[~hit], high[~hit]


def _shrink_one_chain(state, k, rng, symmetric, low, high, level, drop):
    """The shrinkage of :func:`_slice_update` for a single chain, on Python
    floats: the same draws and the same candidates (tested), without the
    per-call overhead of numpy on length-1 arrays (4x faster at d = 400)."""
    start = float(state[0, k])
    while True:
        points = [start]
        for uniform in rng.random((_BATCH, 1))[:, 0].tolist():
            candidate = low + uniform * (high - low)
            points.append(candidate)
            if candidate < start:
                low = candidate
            else:
                high = candidate
        values = _log_target(np.array([points]), state, k, symmetric)[0]
        if level is None:  # x0 was evaluated with the first batch
            level = values[0] - drop
        for point, value in zip(points[1:], values[1:].tolist(), strict=True):
            if value > level:
                state[0, k] = point
                return


def _scale_move(state, rng, symmetric):
    """Metropolis move s ↦ c·s, log c ~ N(0, 0.05²): the target is homogeneous
    of degree H (d(d−1) general, d(d−1)/2 symmetric) times e^{−Σ|s|}, and the
    map has Jacobian c^d, so log acceptance = −(c − 1)Σ|s| + (H + d)·log c."""
    n_chains, d = state.shape
    homogeneity = d * (d - 1) // (2 if symmetric else 1)
    log_c = _SCALE_STEP * rng.standard_normal(n_chains)
    c = np.exp(log_c)
    log_accept = -(c - 1.0) * np.abs(state).sum(axis=1) + (homogeneity + d) * log_c
    accept = np.log(rng.random(n_chains)) < log_accept
    state[accept] *= c[accept, None]
    return accept


def _long_run_variance(series, n_batches=10):
    """σ²τ of each row (chain) by batch means: n·Var(mean); NaN if too short."""
    length = series.shape[1] // n_batches
    if length == 0:
        return np.full(series.shape[0], np.nan)
    batches = series[:, : length * n_batches].reshape(series.shape[0], n_batches, -1)
    return length * batches.mean(axis=2).var(axis=1, ddof=1)


def _autocorrelation_time(series):
    """Integrated autocorrelation time, summing autocorrelations up to the
    first non-positive pair (Geyer's initial positive sequence)."""
    centred = series - series.mean(axis=1, keepdims=True)
    n = series.shape[1]
    spectrum = np.fft.rfft(centred, n=2 * n, axis=1)
    acov = np.fft.irfft(spectrum * np.conj(spectrum), axis=1)[:, :n]
    times = np.empty(series.shape[0])
    for chain, row in enumerate(acov):
        if row[0] <= 0.0:
            times[chain] = np.nan
            continue
        rho = row / row[0]
        pairs = rho[: n - n % 2].reshape(-1, 2).sum(axis=1)
        stop = np.flatnonzero(pairs <= 0.0)
        kept = pairs[: stop[0] if stop.size else pairs.size]
        times[chain] = 2.0 * kept.sum() - 1.0
    return times


def _diagnostics(statistic, n_sweeps, acceptance):
    """Geweke's comparison of the first 10% with the last 50% of the sweeps,
    both standard errors from the tail's long-run variance (the tail is the
    part assumed stationary; a drifting head would inflate its own estimate and
    hide the drift it is meant to reveal)."""
    head = statistic[:, : max(1, n_sweeps // 10)]
    tail = statistic[:, n_sweeps // 2 :]
    variance = _long_run_variance(tail) * (1.0 / head.shape[1] + 1.0 / tail.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        geweke = (head.mean(axis=1) - tail.mean(axis=1)) / np.sqrt(variance)
    return NoiseDiagnostics(
        n_sweeps=n_sweeps,
        statistic=statistic,
        scale_acceptance=float(acceptance),
        geweke_z=geweke,
        autocorrelation_time=_autocorrelation_time(statistic),
    )


def _run_chains(d, rng, *, symmetric, n_sweeps, n_chains, start, record):
    """Run ``n_chains`` chains of ``n_sweeps`` sweeps (each sweep updates every
    value once, then tries one scale move).

    Returns
    -------
    w : ndarray of shape (n_chains, d)
        Each chain's final state divided by its ℓ1 norm, descending.
    statistic : ndarray of shape (n_chains, n_sweeps) or None
        d·max|w| after each sweep (``record`` only).
    acceptance : float
        Acceptance rate of the scale moves.
    """
    if d == 1:
        # D = 1: ±1 (symmetric; the sign of a Laplace variable) or 1 (general).
        sign = np.where(rng.random(n_chains) < 0.5, 1.0, -1.0) if symmetric else 1.0
        w = np.ones((n_chains, 1)) * np.reshape(sign, (-1, 1))
        return w, np.zeros((n_chains, n_sweeps)) if record else None, 1.0
    if start is None:
        start = equilibrium_start(d, symmetric=symmetric)
    state = np.tile(np.asarray(start, dtype=float), (n_chains, 1))
    statistic = np.empty((n_chains, n_sweeps)) if record else None
    accepted = 0
    for sweep in range(n_sweeps):
        for k in range(d):
            _slice_update(state, k, rng, symmetric)
        accepted += int(_scale_move(state, rng, symmetric).sum())
        if record:
            magnitudes = np.abs(state)
            statistic[:, sweep] = d * magnitudes.max(axis=1) / magnitudes.sum(axis=1)
    w = state / np.abs(state).sum(axis=1, keepdims=True)
    return w, statistic, accepted / max(1, n_sweeps * n_chains)


def sample_normalised_spectrum(
    d, rng, *, symmetric, n_sweeps=200, n_chains=1, start=None
):
    """The normalised singular values (or eigenvalues) w of nuclear-Laplace noise.

    Runs ``n_chains`` independent chains of ``n_sweeps`` sweeps (each sweep
    updates every value once, then tries one scale move) and returns each
    chain's final state divided by its ℓ1 norm, in descending order. Nothing
    else about the chains is returned: their states are the noise.

    Parameters
    ----------
    d : int
        Dimension.
    rng : numpy.random.Generator
        The only source of randomness.
    symmetric : bool
        Eigenvalues of the symmetric variant (density ∝ e^{−Σ|s|} Π|s_i − s_j|
        on s_1 > … > s_d) or singular values of the general one
        (∝ e^{−Σs} Π(s_i² − s_j²) on s_1 > … > s_d > 0).
    n_sweeps : int, default=200
        B of docs/algorithms.rst §6.3; from the equilibrium start the chain is
        stationary within the first sweeps up to d = 400 (§9.2).
    n_chains : int, default=1
        Independent chains, updated together (vectorised).
    start : ndarray of shape (d,), default=None
        The initial state (descending); the equilibrium start if None.

    Returns
    -------
    w : ndarray of shape (n_chains, d)
        ``Σ_i |w_i| = 1`` per row, descending.
    """
    w, _, _ = _run_chains(
        d,
        rng,
        symmetric=symmetric,
        n_sweeps=n_sweeps,
        n_chains=n_chains,
        start=start,
        record=False,
    )
    return w


def nuclear_chain_diagnostics(
    d, *, symmetric=True, n_sweeps=200, n_chains=4, start=None, random_state=None
):
    """Convergence diagnostics of the spectrum chain, from independent runs.

    Runs ``n_chains`` fresh chains exactly as a release would, with randomness
    that never becomes noise: None draws OS entropy, and an int seed draws a
    stream that shares nothing with a release seeded by the same int. The
    diagnostics therefore say how well the chain mixes at this d and number of
    sweeps, and nothing about any release (docs/algorithms.rst §13.1). Data-free.

    Parameters
    ----------
    d : int >= 1
        Dimension of the release (plus one for a centred release).
    symmetric : bool, default=True
        The symmetric variant (the estimator's default) or the general one.
    n_sweeps : int >= 1, default=200
        Sweeps per chain, as the estimator's ``n_sweeps``.
    n_chains : int >= 1, default=4
        Independent chains.
    start : ndarray of shape (d,), default=None
        The initial state; the equilibrium start, as in a release, if None.
    random_state : int >= 0 or None, default=None
        The chains' randomness: None draws OS entropy, an int a stream that shares
        nothing with a release's.

    Returns
    -------
    diagnostics : NoiseDiagnostics
        The diagnostics of the chains.
    """
    _, statistic, acceptance = _run_chains(
        d,
        derived_generator(random_state),
        symmetric=symmetric,
        n_sweeps=n_sweeps,
        n_chains=n_chains,
        start=start,
        record=True,
    )
    return _diagnostics(statistic, n_sweeps, acceptance)


def nuclear_laplace_noise(d, scale, rng, *, symmetric, n_sweeps=200):
    """One draw of Z with density ∝ exp(−‖Z‖_*/scale) (on Sym(d) if symmetric).

    Parameters
    ----------
    d : int
        The dimension.
    scale : float
        The scale r of the density.
    rng : numpy.random.Generator
        The only source of randomness.
    symmetric : bool
        Draw on Sym(d), else on d×d matrices.
    n_sweeps : int, default=200
        The sweeps of the spectrum chain.

    Returns
    -------
    noise : ndarray of shape (d, d)
        Symmetric for the symmetric variant; general otherwise.
    radius : float
        R = ‖Z‖_*, drawn exactly from Gamma(D, scale).
    """
    dimension = d * (d + 1) // 2 if symmetric else d * d
    w = sample_normalised_spectrum(d, rng, symmetric=symmetric, n_sweeps=n_sweeps)
    radius = rng.gamma(dimension, scale)
    values = radius * w[0]
    if symmetric:
        p = haar_orthogonal(d, rng)
        noise = symmetrize((p * values) @ p.T)
    else:
        u, v = haar_orthogonal(d, rng), haar_orthogonal(d, rng)
        noise = (u * values) @ v.T
    return noise, float(radius)
