"""Sufficient statistics of norm-bounded rows, computed in bounded-memory chunks.

Rows are brought into the unit ball by the public bound B as z = x / max(‖x‖, B):
rows inside the ball of radius B are scaled by 1/B, rows outside are clipped to
it (Clip(x, B)/B, ALGORITHMS.md §3.3). X is never copied whole:

* dense arrays and memmaps (float64 or float32) are read in row chunks, each
  scaled into one reused float64 buffer and added by a symmetric rank-k update;
* CSR matrices are read in row blocks of bounded non-zeros, CSC matrices in
  column blocks (after one pass for the row norms), never densified;
* dask arrays are reduced block by block on the cluster (the numpy or sparse
  path on each block), the partial sums added in a fixed tree (``_dask``).

Sums are accumulated in float64 whatever the input dtype. The work done does not
depend on which rows are clipped (only on the shape, and for sparse input on the
non-zeros), except for rows of zeros and rows with entries beyond ~1e154 or
below ~1e−154 (see ``_row_norms``).
"""

from typing import NamedTuple

import numpy as np
from scipy import sparse
from scipy.linalg import blas

from skprivcov import _dask
from skprivcov._symmetric import mirror_upper, symmetrize

__all__ = [
    "NormProfile",
    "SufficientStatistics",
    "norm_profile",
    "unit_ball_statistics",
]

# About 32 MiB of float64 per chunk: rows × features for dense input,
# non-zeros for sparse input.
_CHUNK_BYTES = 1 << 25
_CHUNK_VALUES = _CHUNK_BYTES // 8


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
        return max(1, _CHUNK_VALUES // n_features)
    return chunk_rows


def _sparse_blocks(indptr, max_lines):
    """(start, stop) ranges of the rows of a CSR (columns of a CSC) matrix, each
    holding at most ``max_lines`` lines and about ``_CHUNK_VALUES`` non-zeros
    (at least one line)."""
    n_lines = len(indptr) - 1
    start = 0
    while start < n_lines:
        # The last line whose end is within the non-zero budget of this block.
        stop = int(np.searchsorted(indptr, indptr[start] + _CHUNK_VALUES, "right")) - 1
        stop = min(max(stop, start + 1), start + max_lines, n_lines)
        yield start, stop
        start = stop


def _squared_row_norms(chunk):
    if sparse.issparse(chunk):
        return np.asarray(chunk.multiply(chunk).sum(axis=1), dtype=float).ravel()
    return np.einsum("ij,ij->i", chunk, chunk, dtype=np.float64)


# Squared norms at or above 2^−960 lost at most d·2^−62 of their value to
# underflowing terms; below it (or on overflow) the norm is recomputed.
_SMALLEST_SAFE_SQUARE = 2.0**-960


def _row_norms(rows, squared=None):
    """ℓ2 row norms, right for entries beyond 1e154 and below 1e−154.

    Σx² overflows for huge entries and underflows for tiny ones; a norm computed
    as 0 for a row of tiny entries would let the row escape a tiny bound's
    clipping. Those rows (rare, and rows of zeros) are rescaled by their largest
    entry. ``squared`` are the squared norms when already summed (CSC input).
    """
    if squared is None:
        squared = _squared_row_norms(rows)
    norms = np.sqrt(squared)
    unsafe = np.flatnonzero(~(_SMALLEST_SAFE_SQUARE <= squared) | np.isinf(squared))
    if unsafe.size:
        extreme = abs(rows[unsafe])
        if sparse.issparse(extreme):
            peak = extreme.max(axis=1).toarray().ravel()
            scaled = sparse.diags_array(1.0 / np.where(peak > 0, peak, 1.0)) @ extreme
            norms[unsafe] = peak * np.sqrt(_squared_row_norms(scaled))
        else:
            extreme = np.asarray(extreme, dtype=float)
            peak = extreme.max(axis=1)
            scaled = extreme / np.where(peak > 0, peak, 1.0)[:, None]
            norms[unsafe] = peak * np.linalg.norm(scaled, axis=1)
    return norms


def _csc_row_norms(X):
    """Row norms of a CSC matrix: squared entries summed per row, one column
    block at a time."""
    squared = np.zeros(X.shape[0])
    for start, stop in _sparse_blocks(X.indptr, X.shape[1]):
        low, high = X.indptr[start], X.indptr[stop]
        values = X.data[low:high].astype(float)
        with np.errstate(over="ignore"):  # rows that overflow are redone below
            squared += np.bincount(
                X.indices[low:high], weights=values * values, minlength=X.shape[0]
            )
    return _row_norms(X, squared)


def _inverse_scales(chunk, norm_bound):
    """1/max(‖x‖, B) per row: the factor that brings each row into the unit ball."""
    return 1.0 / np.maximum(_row_norms(chunk), norm_bound)


def _dense_chunks(X, chunk_rows):
    """The rows of a dense X (array or memmap), chunk by chunk, as C-ordered
    float64 arrays that the caller must neither write nor keep.

    Slices of a C-ordered float64 X are read in place; any other layout or
    dtype (Fortran order, float32) is copied into one reused buffer first, so
    that every input goes through the same arithmetic and gives the same bits.
    """
    n_samples, n_features = X.shape
    if X.dtype == np.float64 and X.flags.c_contiguous:
        for start in range(0, n_samples, chunk_rows):
            yield X[start : start + chunk_rows]
        return
    buffer = np.empty((min(chunk_rows, n_samples), n_features))
    for start in range(0, n_samples, chunk_rows):
        chunk = X[start : start + chunk_rows]
        rows = buffer[: len(chunk)]
        rows[...] = chunk
        yield rows


def _dense_gram(X, norm_bound, chunk_rows, with_mean):
    """Σ z zᵀ (and Σ z) by in-place symmetric rank-k updates (dsyrk).

    Every chunk is scaled row by row into one reused buffer, whether or not it
    has a row to clip: a shortcut for chunks without one would make the
    running time tell whether the data has rows beyond the bound. Every BLAS
    call in the loop goes to SciPy's BLAS: interleaving it with NumPy's (a
    separate OpenBLAS with its own spinning threads) measured twice as slow on
    2 cores.
    """
    n_samples, n_features = X.shape
    gram = np.zeros((n_features, n_features), order="F")
    total = np.zeros(n_features) if with_mean else None
    scaled = np.empty((min(chunk_rows, n_samples), n_features))
    for chunk in _dense_chunks(X, chunk_rows):
        inverse = _inverse_scales(chunk, norm_bound)
        rows = np.multiply(chunk, inverse[:, None], out=scaled[: len(chunk)])
        # rows.T is Fortran-ordered: BLAS reads it in place.
        gram = blas.dsyrk(1.0, rows.T, beta=1.0, c=gram, trans=0, overwrite_c=1)
        if with_mean:
            ones = np.ones(len(rows))
            total = blas.dgemv(1.0, rows.T, ones, beta=1.0, y=total, overwrite_y=1)
    # dsyrk wrote the upper triangle only. The transpose of the symmetric
    # Fortran-ordered result is the same matrix, C-ordered, without a copy.
    return mirror_upper(gram).T, total


def _csr_gram(X, norm_bound, chunk_rows, with_mean):
    """Σ z zᵀ (and Σ z) for a CSR matrix, row block by row block."""
    n_samples, n_features = X.shape
    gram = np.zeros((n_features, n_features))
    total = np.zeros(n_features) if with_mean else None
    for start, stop in _sparse_blocks(X.indptr, chunk_rows or n_samples):
        chunk = X[start:stop]
        # Each stored value times its row's factor (float64 whatever the dtype
        # of X): the same non-zeros, no sparse product.
        factors = np.repeat(_inverse_scales(chunk, norm_bound), np.diff(chunk.indptr))
        rows = sparse.csr_matrix(
            (chunk.data * factors, chunk.indices, chunk.indptr), shape=chunk.shape
        )
        # Densified before adding: a dense add beats scattering the
        # non-zeros into the Gram matrix (7x at d = 4096).
        gram += (rows.T @ rows).toarray()
        if with_mean:
            total += np.asarray(rows.sum(axis=0)).ravel()
    return symmetrize(gram), total


# Rows whose 1/max(‖x‖, B) lies outside [2^−500, 2^500] (entries beyond ~1e150,
# or a bound below ~1e−150) would over- or underflow the weight (1/max(‖x‖, B))²
# of the CSC path; they are added separately.
_EXTREME_SCALE = 2.0**500


def _csc_gram(X, norm_bound, chunk_columns, with_mean):
    """Σ z zᵀ (and Σ z) for a CSC matrix, column block by column block.

    Column block J of the Gram matrix is Xᵀ·D²·X_J with D = diag(1/max(‖x‖, B)):
    only the block X_J is copied (weighted); Xᵀ is a view (CSR) of X. The row
    norms come first, from one pass over the columns, and take O(n) memory.
    """
    n_samples, n_features = X.shape
    inverse = 1.0 / np.maximum(_csc_row_norms(X), norm_bound)
    extreme = (inverse < 1.0 / _EXTREME_SCALE) | (inverse > _EXTREME_SCALE)
    weights = np.where(extreme, 0.0, np.minimum(inverse, _EXTREME_SCALE) ** 2)
    gram = np.zeros((n_features, n_features))
    # A block of the Gram matrix is dense: d × width values, ~32 MiB by default.
    width = chunk_columns or _rows_per_chunk(n_features, None)
    for start, stop in _sparse_blocks(X.indptr, width):
        low, high = X.indptr[start], X.indptr[stop]
        indices = X.indices[low:high]
        block = sparse.csc_matrix(
            (
                X.data[low:high] * weights[indices],
                indices,
                X.indptr[start : stop + 1] - low,
            ),
            shape=(n_samples, stop - start),
        )
        gram[:, start:stop] = (X.T @ block).toarray()
    if extreme.any():
        # Rare, like the overflow path of _row_norms: scaled before the product.
        rows = X[np.flatnonzero(extreme)].toarray() * inverse[extreme, None]
        gram += rows.T @ rows
    total = X.T @ inverse if with_mean else None
    return symmetrize(gram), total


def _gram_sums(X, norm_bound, chunk_rows, with_mean):
    """(Σ z zᵀ, Σ z or None) over the rows of an array, memmap or sparse matrix."""
    if not sparse.issparse(X):
        return _dense_gram(
            X, norm_bound, _rows_per_chunk(X.shape[1], chunk_rows), with_mean
        )
    if X.format == "csc":
        return _csc_gram(X, norm_bound, chunk_rows, with_mean)
    return _csr_gram(X.tocsr(), norm_bound, chunk_rows, with_mean)


def _reduce(X, sums, *args):
    """``sums(X, *args)``, or for a dask array its sum over the blocks of X."""
    if _dask.is_dask_array(X):
        return _dask.reduce_blocks(X, sums, *args)
    return sums(X, *args)


def unit_ball_statistics(X, norm_bound, *, with_mean=False, chunk_rows=None):
    """Second moment (and mean) of the rows of X brought into the unit ball.

    Parameters
    ----------
    X : ndarray, memmap, sparse matrix or dask array of shape (n_samples, \
            n_features)
        Validated, finite input (float64 or float32).
    norm_bound : float
        Public ℓ2 bound B on the rows.
    with_mean : bool, default=False
        Also return the mean of the unit-ball rows.
    chunk_rows : int, default=None
        Rows per chunk (columns per block for CSC input); by default about
        32 MiB of float64 values per chunk.

    Returns
    -------
    stats : SufficientStatistics
    """
    n_samples = X.shape[0]
    gram, total = _reduce(X, _gram_sums, float(norm_bound), chunk_rows, with_mean)
    mean = total / n_samples if with_mean else None
    return SufficientStatistics(gram / n_samples, mean, n_samples)


# Exponents e = ceil(log2 ‖z‖) of non-zero float64 norms in the unit ball lie in
# [−1074, 0].
_SMALLEST_EXPONENT = -1074
_N_EXPONENTS = 1 - _SMALLEST_EXPONENT


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


def _norm_chunks(X, chunk_rows):
    """The row norms of X, chunk by chunk (all at once for CSC input)."""
    if sparse.issparse(X) and X.format == "csc":
        yield _csc_row_norms(X)
        return
    if not sparse.issparse(X):
        for rows in _dense_chunks(X, _rows_per_chunk(X.shape[1], chunk_rows)):
            yield _row_norms(rows)
        return
    X = X.tocsr()
    for start, stop in _sparse_blocks(X.indptr, chunk_rows or X.shape[0]):
        yield _row_norms(X[start:stop])


def _profile_sums(X, norm_bound, chunk_rows):
    """(counts, Σ‖z‖²) per exponent of the unit-ball row norms."""
    counts = np.zeros(_N_EXPONENTS, dtype=np.int64)
    squared = np.zeros(_N_EXPONENTS)
    for norms in _norm_chunks(X, chunk_rows):
        norms = np.minimum(norms / norm_bound, 1.0)
        norms = norms[norms > 0.0]
        index = _ceil_log2(norms) - _SMALLEST_EXPONENT
        counts += np.bincount(index, minlength=_N_EXPONENTS)
        squared += np.bincount(index, weights=norms * norms, minlength=_N_EXPONENTS)
    return counts, squared


def norm_profile(X, norm_bound, *, chunk_rows=None):
    """Histogram of the exponents of the unit-ball row norms, min(‖x‖/B, 1).

    One pass over the rows, O(d) work per row; what AdaptiveCovariance's
    private radius, private trace and threshold search need (ALGORITHMS.md §2,
    §3.4–3.5).

    Parameters
    ----------
    X : ndarray, memmap, sparse matrix or dask array of shape (n_samples, \
            n_features)
        Validated, finite input.
    norm_bound : float
        Public ℓ2 bound B on the rows.
    chunk_rows : int, default=None
        Rows per chunk; by default about 32 MiB of float64 values per chunk.

    Returns
    -------
    profile : NormProfile
    """
    counts, squared = _reduce(X, _profile_sums, float(norm_bound), chunk_rows)
    exponents = np.arange(_SMALLEST_EXPONENT, 1)
    return NormProfile(exponents, counts, squared, X.shape[0])
