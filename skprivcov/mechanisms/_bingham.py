"""Exact sampling of the Bingham law on the sphere (Kent, Ganeiber & Mardia 2018).

The target on S^{q−1} is f(y) ∝ exp(−yᵀAy) with A = diag(a), a ≥ 0 and
min a = 0: the exponential mechanism for a top eigenvector, written in the
eigenbasis of its matrix (docs/algorithms.rst §5.3). The proposal is the angular
central Gaussian ACG(Ω), Ω = I + 2A/b, whose density on the sphere is
∝ (yᵀΩy)^{−q/2}; a proposal is accepted with probability

    exp(−yᵀAy) · (yᵀΩy)^{q/2} / M,   M = e^{−(q−b)/2} (q/b)^{q/2},

where b solves Σ_j 1/(b + 2a_j) = 1. Three errata of ADK19 Alg. 2 are fixed here
(§5.3): A is shifted by the *largest* eigenvalue (so a ≥ 0), the equation for b
equals 1 (not 0), and the ratio multiplies by (yᵀΩy)^{q/2} (it does not divide).

Everything is in the log domain and in A's eigenbasis (no Ω⁻¹, no Cholesky), so
concentrations up to 1e8 are stable: b → 1⁺ and s = yᵀAy stays O(1) where
proposals are accepted. It is exact rejection sampling: the law of the output is
exactly the Bingham law whatever b is, as long as b ∈ (0, q] (there M is the
supremum of the ratio; b only decides the efficiency).
"""

import math
from typing import NamedTuple

import numpy as np
from scipy import optimize, special

__all__ = [
    "BinghamEnvelope",
    "bingham_envelope",
    "high_concentration_trials",
    "sample_bingham",
]


class BinghamEnvelope(NamedTuple):
    """The ACG envelope of a Bingham law: b, Ω's diagonal and log M."""

    b: float
    omega: np.ndarray
    log_m: float


def bingham_envelope(concentrations):
    """The KGM envelope for f(y) ∝ exp(−Σ a_j y_j²), ``a`` ≥ 0 with min 0.

    b solves Σ_j 1/(b + 2a_j) = 1 on [1, q] (docs/algorithms.rst §5.3, the erratum's
    "= 1": it minimises ``M·|Ω|^{−1/2}``, the expected number of proposals). The
    left side decreases in b, is ≥ 1 at b = 1 (the a_j = 0 term alone is 1)
    and ≤ 1 at b = q (every term ≤ 1/q), so the root is bracketed.

    Parameters
    ----------
    concentrations : array-like of shape (q,)
        The a_j ≥ 0, with min 0.

    Returns
    -------
    envelope : BinghamEnvelope
        The envelope's b, Ω's diagonal and log M.
    """
    a = np.asarray(concentrations, dtype=float)
    q = a.size

    def excess(b):
        return np.sum(1.0 / (b + 2.0 * a)) - 1.0

    if excess(float(q)) >= 0.0:  # all a_j = 0: the uniform law, b = q
        b = float(q)
    elif excess(1.0) <= 0.0:  # the others so large that 1/(1 + 2a_j) underflows
        b = 1.0
    else:
        b = optimize.brentq(excess, 1.0, float(q), xtol=1e-14, rtol=1e-14)
    omega = 1.0 + 2.0 * a / b
    # sup_{s ≥ 0} e^{−s}(1 + 2s/b)^{q/2} is attained at s = (q − b)/2 ≥ 0.
    log_m = -(q - b) / 2.0 + (q / 2.0) * (math.log(q) - math.log(b))
    return BinghamEnvelope(b, omega, log_m)


def _log_acceptance(s, q, envelope):
    """log of exp(−s)·(1 + 2s/b)^{q/2}/M for s = yᵀAy, since yᵀΩy = 1 + 2s/b
    on the sphere (the corrected ratio of §5.3). Clamped to ≤ 0 against
    rounding: it is ≤ 0 exactly."""
    log_ratio = -s + 0.5 * q * np.log1p(2.0 * s / envelope.b) - envelope.log_m
    return np.minimum(log_ratio, 0.0)


def high_concentration_trials(q):
    """Mean number of proposals per draw as all a_j but one go to infinity.

    q^{q/2} e^{−(q−1)/2} √π / (Γ(q/2) 2^{(q−1)/2}) (docs/algorithms.rst §5.3), about
    √(e·q/2): 1.52 at q = 2, 3.6 at q = 10, 16.5 at q = 200.

    Parameters
    ----------
    q : int
        The dimension q.

    Returns
    -------
    trials : float
        The mean number of proposals per draw.
    """
    log_trials = (
        0.5 * q * math.log(q)
        - 0.5 * (q - 1)
        + 0.5 * math.log(math.pi)
        - special.gammaln(0.5 * q)
        - 0.5 * (q - 1) * math.log(2.0)
    )
    return math.exp(log_trials)


def _batch_size(q):
    """Proposals drawn per round: about twice the worst mean number of trials,
    so one round nearly always suffices without drawing many unused ones."""
    return max(4, math.ceil(2.0 * math.sqrt(math.e * q / 2.0)))


def sample_bingham(concentrations, rng, *, return_trials=False):
    """One exact draw from the Bingham law f(y) ∝ exp(−Σ_j a_j y_j²) on S^{q−1}.

    Parameters
    ----------
    concentrations : array-like of shape (q,)
        The concentrations a ≥ 0 with min a = 0 (the matrix shifted by its largest
        eigenvalue).
    rng : numpy.random.Generator
        The only source of randomness.
    return_trials : bool, default=False
        Also return the number of proposals the draw took (the index of the
        first accepted one in the i.i.d. sequence of proposals).

    Returns
    -------
    y : ndarray of shape (q,)
        A unit vector in the coordinates of ``concentrations``.
    trials : int
        Only with ``return_trials``.
    """
    a = np.asarray(concentrations, dtype=float)
    q = a.size
    # A negative a_j (a matrix shifted by anything but its largest eigenvalue,
    # the erratum of §5.3) has no valid envelope: refuse it rather than loop.
    if not (np.all(np.isfinite(a)) and a.min() >= 0.0):
        raise ValueError(
            "Bingham concentrations must be finite and non-negative; got "
            f"min {a.min()!r}."
        )
    if q == 1:
        # S⁰ = {±1}: uniform whatever a is (the law does not depend on a).
        y = np.array([1.0 if rng.random() < 0.5 else -1.0])
        return (y, 1) if return_trials else y
    envelope = bingham_envelope(a)
    scale = 1.0 / np.sqrt(envelope.omega)
    batch = _batch_size(q)
    trials = 0
    while True:
        # A batch of i.i.d. ACG(Ω) proposals z/‖z‖, z ~ N(0, Ω⁻¹); the first
        # accepted one in the sequence is returned, so the law is that of
        # sequential rejection sampling.
        z = rng.standard_normal((batch, q)) * scale
        y = z / np.linalg.norm(z, axis=1, keepdims=True)
        s = (y * y) @ a
        # log(1 − U) with U uniform on [0, 1): uniform, and never log(0).
        log_u = np.log1p(-rng.random(batch))
        accepted = np.flatnonzero(log_u < _log_acceptance(s, q, envelope))
        if accepted.size:
            first = accepted[0]
            trials += first + 1
            return (y[first], int(trials)) if return_trials else y[first]
        trials += batch
