"""Sufficient statistics of norm-bounded rows, computed in bounded-memory chunks.

Rows are brought into the unit ball by the public bound B as z = x / max(‖x‖, B):
rows inside the ball of radius B are scaled by 1/B, rows outside are clipped to
it (Clip(x, B)/B, ALGORITHMS.md §3.3). Only one chunk of rows is ever copied;
dense arrays, memmaps and CSR matrices are read slice by slice. The work done does
not depend on which rows are clipped (only on the shape, and for sparse input on
the non-zeros), except for rows with entries beyond ~1e154 (see _row_norms).
"""

from typing import NamedTuple

import numpy as np
from scipy import sparse
from scipy.linalg import blas

__all__ = [
    "NormProfile",
    "SufficientStatistics",
    "norm_profile",
    "unit_ball_statistics",
]

# About 32 MiB of float64 per chunk of rows.
_CHUNK_BYTES = 1 << 25


class SufficientStatistics(NamedTuple):
    """Statistics of the unit-ball rows z_i.

    second_moment : (1/n) Σ z_i z_iᵀ, exactly symmetric.
    mean : (1/n) Σ z_i, or None when not requested.
    n_samples : n.
    """

    second_moment: np.ndarray
    mean: np.ndarray | None
    n_samples: int


def _rows_per_chunk(n_features, chunk_rows):
    """``chunk_rows``, or by default about 32 MiB of float64 rows per chunk."""
    if chunk_rows is None:
        return max(1, _CHUNK_BYTES // (8 * n_features))
    return chunk_rows


def _squared_row_norms(chunk):
    if sparse.issparse(chunk):
        return np.asarray(chunk.multiply(chunk).sum(axis=1), dtype=float).ravel()
    return np.einsum("ij,ij->i", chunk, chunk, dtype=np.float64)


def _row_norms(chunk):
    """ℓ2 row norms that do not overflow for entries beyond 1e154."""
    squared = _squared_row_norms(chunk)
    norms = np.sqrt(squared)
    overflow = np.flatnonzero(~np.isfinite(squared))
    if overflow.size:
        # Rare: entries beyond ~1e154. Rescale those rows by their largest entry.
        rows = chunk[overflow]
        rows = rows.toarray() if sparse.issparse(rows) else np.asarray(rows, float)
        peak = np.abs(rows).max(axis=1)
        norms[overflow] = peak * np.linalg.norm(rows / peak[:, None], axis=1)
    return norms


def _inverse_scales(chunk, norm_bound):
    """1/max(‖x‖, B) per row: the factor that brings each row into the unit ball."""
    return 1.0 / np.maximum(_row_norms(chunk), norm_bound)


def _dense_gram(X, norm_bound, chunk_rows, with_mean):
    """Σ z zᵀ (and Σ z) by in-place symmetric rank-k updates (dsyrk).

    Every chunk is scaled row by row into one reused buffer, whether or not it
    has a row to clip: a shortcut for chunks without one would make the running
    time tell whether the data has rows beyond the bound. Every BLAS call in the
    loop goes to SciPy's BLAS: interleaving it with NumPy's (a separate OpenBLAS
    with its own spinning threads) measured twice as slow on 2 cores.
    """
    n_samples, n_features = X.shape
    gram = np.zeros((n_features, n_features), order="F")
    total = np.zeros(n_features) if with_mean else None
    buffer = np.empty((min(chunk_rows, n_samples), n_features))
    for start in range(0, n_samples, chunk_rows):
        chunk = X[start : start + chunk_rows]
        inverse = _inverse_scales(chunk, norm_bound)
        rows = np.multiply(chunk, inverse[:, None], out=buffer[: len(chunk)])
        # rows.T is Fortran-ordered: BLAS reads it in place.
        gram = blas.dsyrk(1.0, rows.T, beta=1.0, c=gram, trans=0, overwrite_c=1)
        if with_mean:
            ones = np.ones(len(rows))
            total = blas.dgemv(1.0, rows.T, ones, beta=1.0, y=total, overwrite_y=1)
    upper = np.triu(gram)
    return upper + np.triu(upper, 1).T, total


def _sparse_gram(X, norm_bound, chunk_rows, with_mean):
    """Σ z zᵀ (and Σ z) for a CSR matrix, chunk by chunk, never densifying X."""
    n_samples, n_features = X.shape
    gram = np.zeros((n_features, n_features))
    total = np.zeros(n_features) if with_mean else None
    for start in range(0, n_samples, chunk_rows):
        chunk = X[start : start + chunk_rows]
        rows = sparse.diags(_inverse_scales(chunk, norm_bound)) @ chunk.astype(float)
        gram += (rows.T @ rows).toarray()
        if with_mean:
            total += np.asarray(rows.sum(axis=0)).ravel()
    return 0.5 * (gram + gram.T), total


def unit_ball_statistics(X, norm_bound, *, with_mean=False, chunk_rows=None):
    """Second moment (and mean) of the rows of X brought into the unit ball.

    Parameters
    ----------
    X : ndarray, memmap or CSR matrix of shape (n_samples, n_features)
        Validated, finite input.
    norm_bound : float
        Public ℓ2 bound B on the rows.
    with_mean : bool, default=False
        Also return the mean of the unit-ball rows.
    chunk_rows : int, default=None
        Rows per chunk; by default about 32 MiB of float64 per chunk.

    Returns
    -------
    stats : SufficientStatistics
    """
    n_samples, n_features = X.shape
    chunk_rows = _rows_per_chunk(n_features, chunk_rows)
    gram_of = _sparse_gram if sparse.issparse(X) else _dense_gram
    gram, total = gram_of(X, float(norm_bound), chunk_rows, with_mean)
    mean = total / n_samples if with_mean else None
    return SufficientStatistics(gram / n_samples, mean, n_samples)


# Exponents e = ceil(log2 ‖z‖) of non-zero float64 norms in the unit ball lie in
# [−1074, 0].
_SMALLEST_EXPONENT = -1074


class NormProfile(NamedTuple):
    """The row norms of the unit-ball rows z_i, grouped by e_i = ⌈log₂‖z_i‖⌉.

    exponents : the integers e from −1074 to 0 (ascending).
    counts : number of rows with each exponent (rows of norm 0 excluded).
    squared_norms : Σ‖z_i‖² over the rows with each exponent.
    n_samples : n, rows of norm 0 included.
    """

    exponents: np.ndarray
    counts: np.ndarray
    squared_norms: np.ndarray
    n_samples: int


def _ceil_log2(norms):
    """⌈log₂ ν⌉ for ν > 0, exactly (frexp: ν = m·2^e with m ∈ [½, 1))."""
    mantissa, exponent = np.frexp(norms)
    return np.where(mantissa == 0.5, exponent - 1, exponent)


def norm_profile(X, norm_bound, *, chunk_rows=None):
    """Histogram of the exponents of the unit-ball row norms, min(‖x‖/B, 1).

    One pass over the rows, O(d) work per row; what AdaptiveCovariance's
    private radius, private trace and threshold search need (ALGORITHMS.md §2,
    §3.4–3.5).

    Parameters
    ----------
    X : ndarray, memmap or CSR matrix of shape (n_samples, n_features)
        Validated, finite input.
    norm_bound : float
        Public ℓ2 bound B on the rows.
    chunk_rows : int, default=None
        Rows per chunk; by default about 32 MiB of float64 per chunk.

    Returns
    -------
    profile : NormProfile
    """
    n_samples, n_features = X.shape
    chunk_rows = _rows_per_chunk(n_features, chunk_rows)
    size = 1 - _SMALLEST_EXPONENT
    counts = np.zeros(size, dtype=np.int64)
    squared = np.zeros(size)
    for start in range(0, n_samples, chunk_rows):
        norms = np.minimum(_row_norms(X[start : start + chunk_rows]) / norm_bound, 1.0)
        norms = norms[norms > 0.0]
        index = _ceil_log2(norms) - _SMALLEST_EXPONENT
        counts += np.bincount(index, minlength=size)
        squared += np.bincount(index, weights=norms * norms, minlength=size)
    exponents = np.arange(_SMALLEST_EXPONENT, 1)
    return NormProfile(exponents, counts, squared, n_samples)
