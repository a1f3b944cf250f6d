"""Row norms and the factors that bring rows into the unit ball, for every format.

Every statistic of skprivcov is computed from the rows z = x / max(‖x‖, B)
(docs/algorithms.rst §3.3). The guarantee needs ‖z‖ ≤ 1 for the row *as the library
multiplies it* (§13.3): scipy sums duplicate stored entries of a sparse matrix
in every product, so the norm must be that of the summed row. Sparse input is
therefore brought to canonical form (duplicates summed, indices sorted) before
any norm is taken, and norms are computed in float64 whatever the input dtype.

Public per-row rules (functions of one row only, so the sensitivity is
unchanged):

* a row with a NaN or infinite entry has norm NaN; the statistics passes then
  refuse the data or treat the row as a row of zeros (``nonfinite``);
* a row of finite entries whose norm overflows float64 (beyond ~1.8e308) gets
  the factor 0: it counts as a row of zeros.
"""

import numpy as np
from scipy import sparse

__all__ = [
    "canonical_sparse",
    "is_canonical",
    "row_norms",
    "unit_ball_factors",
]

# Squared norms at or above 2^−960 lost at most d·2^−62 of their value to
# underflowing terms; below it (or on overflow, or NaN) the norm is recomputed
# from the row scaled by its largest entry.
_SMALLEST_SAFE_SQUARE = 2.0**-960


def is_canonical(matrix):
    """Whether every line of a CSR (rows) or CSC (columns) matrix has strictly
    increasing indices: no duplicate entries, indices sorted. Read from the
    index arrays themselves, never from scipy's cached flag."""
    indptr, indices = matrix.indptr, matrix.indices
    if indices.size < 2:
        return True
    increasing = indices[1:] > indices[:-1]  # one byte per entry
    # A decrease is allowed where a new line starts.
    starts = indptr[1:-1]
    starts = starts[(starts > 0) & (starts < indices.size)]
    increasing[starts - 1] = True
    return bool(increasing.all())


def canonical_sparse(matrix, *, dtype=None):
    """A CSR or CSC matrix with duplicates summed and indices sorted.

    Returns ``matrix`` itself when it already is canonical (and of ``dtype``),
    else a new matrix: the caller may then write its values.
    """
    target = matrix.dtype if dtype is None else np.dtype(dtype)
    if is_canonical(matrix):
        return matrix if matrix.dtype == target else matrix.astype(target)
    copy = type(matrix)(
        (matrix.data.astype(target), matrix.indices.copy(), matrix.indptr.copy()),
        shape=matrix.shape,
    )
    copy.has_canonical_format = False  # make scipy do the work, whatever it cached
    copy.sum_duplicates()
    return copy


def _sequential_sums(squares):
    """Σ_j s_j of each row, added left to right (``np.add.accumulate`` is
    sequential by definition): the sum a CSR row's ``bincount`` computes over
    its non-zeros in column order, since adding a zero changes nothing. So
    every format gives the same bits for the same row (§19), whatever the
    row's place in memory (a pairwise or SIMD sum depends on it)."""
    if squares.shape[1] == 0:
        return np.zeros(squares.shape[0])
    return np.add.accumulate(squares, axis=1)[:, -1].copy()


def _dense_row_norms(rows):
    with np.errstate(over="ignore", invalid="ignore"):
        squared = _sequential_sums(np.square(rows, dtype=np.float64))
    norms = np.sqrt(squared)
    unsafe = np.flatnonzero(~(_SMALLEST_SAFE_SQUARE <= squared) | np.isinf(squared))
    if unsafe.size:
        extreme = np.abs(np.asarray(rows[unsafe], dtype=np.float64))
        finite = np.isfinite(extreme).all(axis=1)
        peak = np.where(finite, extreme.max(axis=1, initial=0.0), 1.0)
        scaled = extreme / np.where(peak > 0, peak, 1.0)[:, None]
        with np.errstate(over="ignore"):
            recomputed = peak * np.sqrt(_sequential_sums(scaled * scaled))
        norms[unsafe] = np.where(finite, recomputed, np.nan)
    return norms


def _csr_row_norms(rows):
    """Row norms of a canonical CSR matrix, one bincount over its entries
    (sequential in column order within each row, as the dense sum)."""
    n_rows = rows.shape[0]
    owners = np.repeat(np.arange(n_rows), np.diff(rows.indptr))
    values = np.asarray(rows.data, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        squared = np.bincount(owners, weights=values * values, minlength=n_rows)
    return _fix_unsafe(np.sqrt(squared), squared, owners, values)


def _fix_unsafe(norms, squared, owners, values):
    """Recompute, in place, the norms of the rows whose sum of squares under-
    or overflowed, from the entries (``values``) and their rows (``owners``).
    Works on those rows only (rare: rows of zeros, extreme entries)."""
    rows = np.flatnonzero(~(_SMALLEST_SAFE_SQUARE <= squared) | np.isinf(squared))
    if not rows.size:
        return norms
    unsafe = np.zeros(norms.size, dtype=bool)
    unsafe[rows] = True
    picked = np.flatnonzero(unsafe[owners])
    # Position of each picked entry's row among the unsafe rows.
    where = np.searchsorted(rows, owners[picked])
    magnitudes = np.abs(np.asarray(values[picked], dtype=np.float64))
    finite = np.isfinite(magnitudes)
    bad = np.bincount(where, weights=~finite, minlength=rows.size) > 0
    magnitudes[~finite] = 0.0
    peak = np.zeros(rows.size)
    np.maximum.at(peak, where, magnitudes)
    scaled = magnitudes / np.where(peak > 0, peak, 1.0)[where]
    with np.errstate(over="ignore"):
        recomputed = peak * np.sqrt(
            np.bincount(where, weights=scaled * scaled, minlength=rows.size)
        )
    norms[rows] = np.where(bad, np.nan, recomputed)
    return norms


def _csc_row_norms(matrix, column_blocks):
    """Row norms of a canonical CSC matrix, summed one column block at a time
    (``column_blocks`` yields (start, stop) column ranges). ``np.add.at`` adds
    in the order of the entries, column by column: each row's sum is the
    sequential one of the dense and CSR paths (§19)."""
    n_rows = matrix.shape[0]
    squared = np.zeros(n_rows)
    for start, stop in column_blocks:
        low, high = matrix.indptr[start], matrix.indptr[stop]
        values = np.asarray(matrix.data[low:high], dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            np.add.at(squared, matrix.indices[low:high], values * values)
    return _fix_unsafe(np.sqrt(squared), squared, matrix.indices, matrix.data)


def row_norms(rows, *, column_blocks=None):
    """ℓ2 norms of the rows, in float64; NaN for a row with a non-finite entry.

    Right for entries beyond 1e154 and below 1e−154: Σx² over- or underflows
    there, and a tiny row computed as norm 0 would escape a tiny bound's
    clipping, so those rows (and rows of zeros) are recomputed from the row
    scaled by its largest entry.

    Parameters
    ----------
    rows : ndarray or canonical CSR/CSC matrix of shape (n_rows, n_features)
    column_blocks : iterable of (start, stop), default=None
        For CSC input, the column ranges to sum over (default: all at once).

    Returns
    -------
    norms : ndarray of shape (n_rows,)
    """
    if not sparse.issparse(rows):
        return _dense_row_norms(rows)
    if rows.format == "csc":
        blocks = column_blocks or [(0, rows.shape[1])]
        return _csc_row_norms(rows, blocks)
    return _csr_row_norms(rows)


def unit_ball_factors(norms, norm_bound):
    """1/max(‖x‖, B) per row: the factor that brings each row into the unit
    ball. 0 for rows of non-finite entries (norm NaN) and rows whose norm
    overflows; the caller must still zero the non-finite entries themselves
    (0·NaN is NaN)."""
    with np.errstate(invalid="ignore"):
        factors = 1.0 / np.maximum(norms, norm_bound)
    factors[np.isnan(norms)] = 0.0
    return factors
