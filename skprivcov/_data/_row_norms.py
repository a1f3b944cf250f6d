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
    "dense_row_norms",
    "is_canonical",
    "row_norms",
    "tile_rows",
    "tiles",
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


# Values per tile of the dense kernels (512 KiB of float64): a tile of rows,
# its transposed squares and the statistics pass's two roundings of it stay
# in the L2 cache. Measured at d = 1000 (2 MiB of L2 a core): tiles of 2^15
# to 2^17 values took the same time within the noise, 2^13 about 1.5 times
# as long (NumPy's cost per call).
_TILE_VALUES = 1 << 16


def tile_rows(n_features):
    """Rows per tile of the dense kernels: about ``_TILE_VALUES`` values, at
    least two rows (see :func:`tiles`)."""
    return max(2, _TILE_VALUES // max(n_features, 1))


def tiles(n_rows, rows_per_tile):
    """(start, stop) of consecutive tiles of at most ``rows_per_tile + 1``
    rows, none of exactly one row unless ``n_rows`` is 1 (a last row left
    alone joins the tile before it): :func:`_square_sums` needs two rows to
    sum along a non-contiguous axis."""
    start = 0
    while start < n_rows:
        stop = min(start + rows_per_tile, n_rows)
        if n_rows - stop == 1:
            stop = n_rows
        yield start, stop
        start = stop


def _square_sums(rows, out=None, buffer=None):
    """Σ_j x_j² of each row in float64, added left to right: the sum a CSR
    row's ``bincount`` computes over its non-zeros in column order, since
    adding a zero changes nothing. So every format gives the same bits for the
    same row (§19), whatever the row's place in memory (a pairwise or SIMD sum
    depends on it).

    The squares of a tile of rows are written transposed (one column per row)
    and reduced over the first axis: NumPy adds along a non-contiguous axis one
    element at a time, in order, for all the columns at once (pairwise
    summation is only used along the contiguous axis, and a tile of one row
    would be contiguous: :func:`tiles` never makes one, the single row of a
    one-row input is summed by ``np.add.accumulate``, sequential by
    definition). Measured at d = 1000: 2.8 ns a value, against 7.3–7.8 for
    ``np.add.accumulate`` along the rows, whose every step waits for the one
    before.

    ``out`` (float64, one value per row) and ``buffer`` (float64 of shape
    (n_features, t + 1), t ≥ 2: tiles of at most t + 1 rows) may be given to
    avoid allocations.
    """
    n_rows, n_features = rows.shape
    squared = np.empty(n_rows) if out is None else out
    if n_features == 0 or n_rows == 0:
        squared[...] = 0.0
        return squared
    if n_rows == 1:
        line = np.square(rows[0], dtype=np.float64)
        squared[0] = np.add.accumulate(line)[-1]
        return squared
    if buffer is None or buffer.shape[1] < 3:
        buffer = np.empty((n_features, min(tile_rows(n_features), n_rows) + 1))
    for start, stop in tiles(n_rows, max(2, buffer.shape[1] - 1)):
        part = buffer[:, : stop - start]
        np.square(rows[start:stop].T, out=part, dtype=np.float64)
        np.add.reduce(part, axis=0, out=squared[start:stop])
    return squared


def dense_row_norms(rows, out=None, buffer=None):
    """Row norms of a dense block (any float dtype and layout) as
    :func:`row_norms`; ``out`` and ``buffer`` as in :func:`_square_sums`."""
    with np.errstate(over="ignore", invalid="ignore"):
        squared = _square_sums(rows, out, buffer)
    # Checked on the sums of squares: the unsafe rows are those recomputed.
    unsafe = np.flatnonzero(~(_SMALLEST_SAFE_SQUARE <= squared) | np.isinf(squared))
    norms = np.sqrt(squared, out=squared)
    if unsafe.size:
        extreme = np.abs(np.asarray(rows[unsafe], dtype=np.float64))
        finite = np.isfinite(extreme).all(axis=1)
        peak = np.where(finite, extreme.max(axis=1, initial=0.0), 1.0)
        scaled = extreme / np.where(peak > 0, peak, 1.0)[:, None]
        with np.errstate(over="ignore"):
            recomputed = peak * np.sqrt(_square_sums(scaled))
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
        return dense_row_norms(rows)
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
