"""Euclidean projections used as post-processing (docs/algorithms.rst §4)."""

import numpy as np

from skprivcov._data import symmetrize
from skprivcov.mechanisms._eigen import eigh_descending, from_eigenpairs

__all__ = [
    "project_capped_simplex",
    "project_l1_ball",
    "project_nuclear_ball",
    "project_psd",
    "project_psd_trace_ball",
]


def project_l1_ball(values, radius):
    """Euclidean projection of a vector onto {u : ‖u‖₁ ≤ radius} (§4.1).

    Duchi, Shalev-Shwartz, Singer & Chandra (2008), O(d log d).

    Parameters
    ----------
    values : array-like of shape (d,)
        The vector.
    radius : float
        The radius of the ℓ1 ball.

    Returns
    -------
    projected : ndarray of shape (d,)
        The projection.
    """
    values = np.asarray(values, dtype=float)
    magnitude = np.abs(values)
    if magnitude.sum() <= radius:
        return values.copy()
    if radius <= 0.0:
        return np.zeros_like(values)
    ordered = np.sort(magnitude)[::-1]
    cumulative = np.cumsum(ordered)
    index = np.arange(1, values.size + 1)
    # ρ = max{j : u_j − (S_j − t)/j > 0}; the condition holds for a prefix,
    # and always for j = 1 (u_1 − (u_1 − t) = t > 0), which rounding can hide
    # when u_1 dwarfs t (noise of a tiny budget): then ρ = 1.
    satisfied = np.nonzero(ordered - (cumulative - radius) / index > 0)[0]
    last = satisfied[-1] if satisfied.size else 0
    threshold = (cumulative[last] - radius) / (last + 1)
    return np.sign(values) * np.maximum(magnitude - threshold, 0.0)


def project_capped_simplex(values, total):
    """Projection onto {u : u ≥ 0, Σu ≤ total} (§4.2, DLY22 Lemma 11).

    Equal to the ℓ1-ball projection of max(values, 0): on the non-negative orthant
    the two sets coincide. The map is monotone, so sorted input stays sorted.

    Parameters
    ----------
    values : array-like of shape (d,)
        The vector.
    total : float
        The bound on the sum.

    Returns
    -------
    projected : ndarray of shape (d,)
        The projection, non-negative.
    """
    return project_l1_ball(np.maximum(values, 0.0), total)


def project_nuclear_ball(matrix, radius):
    """Project a square matrix onto {Y : ‖Y‖_* ≤ radius} in Frobenius norm (§4.1).

    The ball is a unitarily invariant set, so the projection acts on singular
    values: U·diag(Π(s))·Vᵀ with Π the projection onto {σ ≥ 0, Σσ ≤ radius}.
    A symmetric matrix goes by ``eigh`` (eigenvalues onto the ℓ1 ball, the
    same matrix, cheaper) and stays exactly symmetric.

    Parameters
    ----------
    matrix : ndarray of shape (d, d)
        The matrix.
    radius : float
        The radius of the nuclear-norm ball.

    Returns
    -------
    projected : ndarray of shape (d, d)
        The projection (exactly symmetric for a symmetric matrix).
    """
    if np.array_equal(matrix, matrix.T):
        values, vectors = eigh_descending(matrix)
        return from_eigenpairs(project_l1_ball(values, radius), vectors)
    u, singular, vt = np.linalg.svd(matrix)
    return (u * project_capped_simplex(singular, radius)) @ vt


def project_psd_trace_ball(matrix, trace_bound):
    """Project onto K_t = {Y ⪰ 0, tr Y ≤ t} in Frobenius norm (§4.2).

    The skew part is orthogonal to Sym(d) and dropped; the eigenvalues of the
    symmetric part go onto the capped simplex (von Neumann / Lewis 1996).

    Parameters
    ----------
    matrix : ndarray of shape (d, d)
        The matrix.
    trace_bound : float
        The bound t on the trace.

    Returns
    -------
    projected : ndarray of shape (d, d)
        Symmetric positive semi-definite with trace at most ``trace_bound``.
    """
    symmetric = symmetrize(np.array(matrix, dtype=float))
    values, vectors = eigh_descending(symmetric)
    return from_eigenpairs(project_capped_simplex(values, trace_bound), vectors)


def project_psd(matrix):
    """Project a symmetric matrix onto the PSD cone in Frobenius norm.

    Negative eigenvalues are set to zero (docs/algorithms.rst §6.5: at most doubles the
    spectral error against a PSD target, never increases the Frobenius error).

    Parameters
    ----------
    matrix : ndarray of shape (d, d)
        The symmetric matrix.

    Returns
    -------
    projected : ndarray of shape (d, d)
        The projection, positive semi-definite.
    """
    values, vectors = eigh_descending(matrix)
    return from_eigenpairs(np.maximum(values, 0.0), vectors)
