"""Sufficient statistics of norm-bounded rows, computed in bounded-memory chunks.

Rows are brought into the unit ball by the public bound B as z = x / max(‖x‖, B):
rows inside the ball of radius B are scaled by 1/B, rows outside are clipped to
it (Clip(x, B)/B, docs/algorithms.rst §3.3). X is never copied whole:

* dense arrays and memmaps (float64 or float32) are read in row chunks, each
  scaled into one reused float64 buffer and added by a symmetric rank-k update;
* CSR matrices are read in row blocks of bounded non-zeros, CSC matrices in
  column blocks (after one pass for the row norms), never densified;
* dask arrays are reduced block by block on the cluster (the numpy or sparse
  path on each block), the partial sums added in a fixed tree (``_dask``).

Every format clips by the norm of the row as it is multiplied (§13.3): sparse
blocks are made canonical (duplicates summed) and their norms taken in float64
(``_clipping``). A non-canonical CSC matrix is copied once, to canonical form.

Data values are checked here, in the first pass, after the budget is charged
(§13.2): a row with a NaN or infinite entry makes the pass refuse the data
(``nonfinite="raise"``, after reading all of it) or count as a row of zeros
(``nonfinite="zero"``, a public per-row rule).

The squared norms ‖z_i‖² are also summed **exactly**, for the private traces
(§13.6): each is floored to a multiple of 2^−52 (a function of its row alone,
so the sensitivity is unchanged) and the integers are added in two 26-bit
halves, which float64 adds without rounding in any order.

Sums are accumulated in float64 whatever the input dtype. The work done does not
depend on which rows are clipped (only on the shape, and for sparse input on the
non-zeros), except for rows of zeros, rows with a non-finite entry, and rows
with entries beyond ~1e154 or below ~1e−154 (see ``_clipping``).
"""

import contextlib
import contextvars
import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from scipy import sparse
from scipy.linalg import blas

from skprivcov import _dask, _spark
from skprivcov._clipping import canonical_sparse, row_norms, unit_ball_factors
from skprivcov._symmetric import mirror_upper, symmetrize

__all__ = [
    "NONFINITE_RULES",
    "UNIT_BITS",
    "NormProfile",
    "SufficientStatistics",
    "feature_counts",
    "floored_unit_sum",
    "norm_profile",
    "record_summation_depth",
    "recorded_summation_depths",
    "row_norm_counts",
    "summation_depth",
    "unit_ball_statistics",
]

# About 32 MiB of float64 per chunk: rows × features for dense input,
# non-zeros for sparse input.
_CHUNK_BYTES = 1 << 25
_CHUNK_VALUES = _CHUNK_BYTES // 8
_MAX_CHUNK_ROWS = 1 << 16
_MIN_GROUP_ROWS = 1 << 13

NONFINITE_RULES = ("raise", "zero")

# Exact sums of squared norms in [0, 1]: units of 2^−52, in 26-bit halves.
UNIT_BITS = 52
_HALF_BITS = 26


class SufficientStatistics(NamedTuple):
    """Statistics of the unit-ball rows z_i.

    second_moment : (1/n) Σ z_i z_iᵀ, exactly symmetric.
    mean : (1/n) Σ z_i, or None when not requested.
    n_samples : n.
    squared_units : Σ ⌊‖z_i‖²·2^52⌋, an exact int (see :attr:`trace`).
    """

    second_moment: np.ndarray
    mean: np.ndarray | None
    n_samples: int
    squared_units: int

    @property
    def trace(self):
        """(1/n) Σ ‖z_i‖², each term floored to a multiple of 2^−52, as an exact
        Fraction: replacing one row moves it by at most 1/n exactly."""
        return Fraction(self.squared_units, self.n_samples << UNIT_BITS)


def _rows_per_chunk(n_features, chunk_rows):
    """``chunk_rows``, or by default about 32 MiB of float64 rows per chunk
    (at most 2^16 rows)."""
    if chunk_rows is None:
        # At most 2^16 rows: a Gram entry then passes through at most about
        # 2^16 + n/2^16 roundings, the depth that bounds its float error for
        # hardened noise (§17), rather than the millions of rows of a chunk of
        # very narrow data.
        return max(1, min(_CHUNK_VALUES // n_features, _MAX_CHUNK_ROWS))
    return chunk_rows


def _sparse_blocks(indptr, max_lines):
    """(start, stop) ranges of the rows of a CSR (columns of a CSC) matrix, each
    holding at most ``max_lines`` lines and about ``_CHUNK_VALUES`` non-zeros
    (at least one line)."""
    n_lines = len(indptr) - 1
    end = int(indptr[-1])
    start = 0
    while start < n_lines:
        # The last line whose end is within the non-zero budget of this block.
        # The value searched for has indptr's own dtype (capped at the last
        # entry, so it fits): NumPy before 2.0 would otherwise cast the whole
        # of indptr to int64 for each search.
        budget = indptr.dtype.type(min(int(indptr[start]) + _CHUNK_VALUES, end))
        stop = int(np.searchsorted(indptr, budget, "right")) - 1
        stop = min(max(stop, start + 1), start + max_lines, n_lines)
        yield start, stop
        start = stop


# Values summed at once (fewer than 2^27 halves below 2^26 each stay below
# 2^53); small, to keep the temporaries of a long CSC column of norms small.
_SLICE = 1 << 13


def _halves(squares):
    """⌊s·2^52⌋ of each s in [0, 1], split into (high, low) 26-bit halves.

    s·2^52 is exact (a power-of-two scaling) and so are the floor and the
    split; float64 sums of fewer than 2^27 halves stay below 2^53, so they are
    exact whatever the order of addition.
    """
    units = np.floor(squares * 2.0**UNIT_BITS)
    high = np.floor(units * 2.0**-_HALF_BITS)
    return high, units - high * 2.0**_HALF_BITS


def floored_unit_sum(squares):
    """Σ⌊s·2^52⌋ over ``squares`` (any values in [0, 1]), as an exact int: the
    private traces' squared norms, the prediction-loss score's losses."""
    total = 0
    for start in range(0, squares.size, _SLICE):
        high, low = _halves(squares[start : start + _SLICE])
        total += (int(high.sum()) << _HALF_BITS) + int(low.sum())
    return total


def _unit_norms(norms, factors, norm_bound):
    """min(‖x‖/B, 1) per row, 0 for rows that count as zero (factor 0)."""
    with np.errstate(invalid="ignore", over="ignore"):
        unit = np.minimum(norms / norm_bound, 1.0)
    unit[factors == 0.0] = 0.0
    return unit


def _trace_units(norms, factors, norm_bound):
    """Σ⌊‖z‖²·2^52⌋ over the rows, ‖z‖ = min(‖x‖/B, 1) (0 for zero rows)."""
    total = 0
    for start in range(0, norms.size, _SLICE):
        part = slice(start, start + _SLICE)
        unit = _unit_norms(norms[part], factors[part], norm_bound)
        total += floored_unit_sum(unit * unit)
    return total


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


def _group_rows(n_samples, chunk):
    """Rows per group of chunks: whole chunks, at least max(2^13, 8√n) rows.

    Each group is summed into a buffer that starts at zero, and the groups are
    then added one by one: whatever order BLAS sums a group's products in (its
    own blocking included), a product passes through at most (group rows)
    roundings there and one per later group, the depth that bounds the float
    error for hardened noise (docs/algorithms.rst §17). Groups of about 8√n
    rows keep that near 8√n, and the extra additions (one d × d sum per group)
    small next to the products."""
    wanted = max(_MIN_GROUP_ROWS, 8 * math.isqrt(max(n_samples, 1)) + 8)
    return chunk * max(1, -(-wanted // chunk))


def _dense_gram(X, norm_bound, chunk_rows, with_mean, nonfinite):
    """Σ z zᵀ (and Σ z) by in-place symmetric rank-k updates (dsyrk), group of
    chunks by group of chunks (:func:`_group_rows`).

    Every chunk is scaled row by row into one reused buffer, whether or not it
    has a row to clip: a shortcut for chunks without one would make the
    running time tell whether the data has rows beyond the bound. Every BLAS
    call in the loop goes to SciPy's BLAS, not NumPy's (a separate OpenBLAS
    whose threads contend with SciPy's; docs/developers.rst, measurements).
    """
    n_samples, n_features = X.shape
    group_rows = _group_rows(n_samples, min(chunk_rows, max(n_samples, 1)))
    # One group (n ≤ group_rows) is summed straight into the result.
    grouped = n_samples > group_rows
    gram = np.zeros((n_features, n_features), order="F")
    partial = np.zeros_like(gram) if grouped else gram
    total = np.zeros(n_features) if with_mean else None
    partial_total = None
    if with_mean:
        partial_total = np.zeros(n_features) if grouped else total
    scaled = np.empty((min(chunk_rows, n_samples), n_features))
    units, n_bad, in_group = 0, 0, 0
    for chunk in _dense_chunks(X, chunk_rows):
        norms = row_norms(chunk)
        factors = unit_ball_factors(norms, norm_bound)
        with np.errstate(invalid="ignore"):
            rows = np.multiply(chunk, factors[:, None], out=scaled[: len(chunk)])
        bad = np.flatnonzero(np.isnan(norms))
        n_bad += bad.size
        if nonfinite == "zero":
            rows[bad] = 0.0
        units += _trace_units(norms, factors, norm_bound)
        # rows.T is Fortran-ordered: BLAS reads it in place.
        partial = blas.dsyrk(1.0, rows.T, beta=1.0, c=partial, trans=0, overwrite_c=1)
        if with_mean:
            ones = np.ones(len(rows))
            partial_total = blas.dgemv(
                1.0, rows.T, ones, beta=1.0, y=partial_total, overwrite_y=1
            )
        in_group += len(rows)
        if grouped and in_group >= group_rows:
            gram += partial
            partial.fill(0.0)
            if with_mean:
                total += partial_total
                partial_total.fill(0.0)
            in_group = 0
    if grouped and in_group:
        gram += partial
        if with_mean:
            total += partial_total
    if not grouped:
        gram, total = partial, partial_total
    # dsyrk wrote the upper triangle only. The transpose of the symmetric
    # Fortran-ordered result is the same matrix, C-ordered, without a copy.
    return mirror_upper(gram).T, total, units, n_bad


def _csr_block(X, start, stop):
    """Rows start:stop of a CSR matrix as a new canonical float64 CSR matrix
    (duplicates summed: the rows as every product reads them)."""
    low, high = X.indptr[start], X.indptr[stop]
    block = sparse.csr_matrix(
        (
            X.data[low:high].astype(np.float64),
            X.indices[low:high],
            X.indptr[start : stop + 1] - low,
        ),
        shape=(stop - start, X.shape[1]),
    )
    return canonical_sparse(block)


def _scaled_csr_block(block, norm_bound, nonfinite):
    """(the block's rows z, their squared-norm units, non-finite rows)."""
    norms = row_norms(block)
    factors = unit_ball_factors(norms, norm_bound)
    lengths = np.diff(block.indptr)
    # Each stored value times its row's factor: the same non-zeros.
    with np.errstate(invalid="ignore"):
        values = block.data * np.repeat(factors, lengths)
    bad = np.isnan(norms)
    if nonfinite == "zero" and bad.any():
        values[np.repeat(bad, lengths)] = 0.0
    rows = sparse.csr_matrix((values, block.indices, block.indptr), shape=block.shape)
    return rows, _trace_units(norms, factors, norm_bound), int(bad.sum())


def _csr_gram(X, norm_bound, chunk_rows, with_mean, nonfinite):
    """Σ z zᵀ (and Σ z) for a CSR matrix, row block by row block."""
    n_samples, n_features = X.shape
    gram = np.zeros((n_features, n_features))
    total = np.zeros(n_features) if with_mean else None
    units, n_bad = 0, 0
    for start, stop in _sparse_blocks(X.indptr, chunk_rows or n_samples):
        rows, block_units, block_bad = _scaled_csr_block(
            _csr_block(X, start, stop), norm_bound, nonfinite
        )
        units, n_bad = units + block_units, n_bad + block_bad
        # Densified before adding: a dense add beats scattering the
        # non-zeros into the Gram matrix (docs/developers.rst, measurements).
        gram += (rows.T @ rows).toarray()
        if with_mean:
            total += np.asarray(rows.sum(axis=0)).ravel()
    return symmetrize(gram), total, units, n_bad


# Rows whose 1/max(‖x‖, B) lies outside [2^−500, 2^500] (entries beyond ~1e150,
# or a bound below ~1e−150) would over- or underflow the weight (1/max(‖x‖, B))²
# of the CSC path; they are added separately.
_EXTREME_SCALE = 2.0**500


def _csc_factors(X, norm_bound, nonfinite):
    """(X ready for the products, factors, trace units, non-finite row count).

    The row norms take one pass over the columns and O(n) memory. Under
    ``nonfinite="zero"`` the entries of non-finite rows are zeroed in a copy
    of the values (0·NaN would be NaN).
    """
    blocks = _sparse_blocks(X.indptr, X.shape[1])
    norms = row_norms(X, column_blocks=blocks)
    factors = unit_ball_factors(norms, norm_bound)
    bad = np.isnan(norms)
    if nonfinite == "zero" and bad.any():
        X = sparse.csc_matrix(
            (np.where(bad[X.indices], 0.0, X.data), X.indices, X.indptr),
            shape=X.shape,
        )
    units = _trace_units(norms, factors, norm_bound)
    return X, factors, units, int(bad.sum())


def _csc_gram(X, norm_bound, chunk_columns, with_mean, nonfinite):
    """Σ z zᵀ (and Σ z) for a CSC matrix, column block by column block.

    Column block J of the Gram matrix is Xᵀ·D²·X_J with D = diag(1/max(‖x‖, B)):
    only the block X_J is copied (weighted); Xᵀ is a view (CSR) of X.
    """
    n_samples, n_features = X.shape
    # Duplicates summed in float64 whatever the input dtype, as the CSR path
    # sums them (§13.3; review of issue 33: float32 CSC summed them in float32).
    X = canonical_sparse(X, dtype=np.float64)
    X, factors, units, n_bad = _csc_factors(X, norm_bound, nonfinite)
    extreme = (factors > 0.0) & (
        (factors < 1.0 / _EXTREME_SCALE) | (factors > _EXTREME_SCALE)
    )
    weights = np.where(extreme, 0.0, np.minimum(factors, _EXTREME_SCALE) ** 2)
    gram = np.zeros((n_features, n_features))
    # A block of the Gram matrix is dense: d × width values, ~32 MiB by default.
    width = chunk_columns or _rows_per_chunk(n_features, None)
    for start, stop in _sparse_blocks(X.indptr, width):
        low, high = X.indptr[start], X.indptr[stop]
        indices = X.indices[low:high]
        with np.errstate(invalid="ignore"):
            values = X.data[low:high] * weights[indices]
        block = sparse.csc_matrix(
            (values, indices, X.indptr[start : stop + 1] - low),
            shape=(n_samples, stop - start),
        )
        gram[:, start:stop] = (X.T @ block).toarray()
    if extreme.any():
        # Rare, like the overflow path of the norms: scaled before the product.
        rows = X[np.flatnonzero(extreme)].toarray() * factors[extreme, None]
        gram += rows.T @ rows
    total = None
    if with_mean:
        with np.errstate(invalid="ignore"):
            total = X.T @ factors
    return symmetrize(gram), total, units, n_bad


def _gram_sums(X, norm_bound, chunk_rows, with_mean, nonfinite):
    """(Σ z zᵀ, Σ z or None, Σ⌊‖z‖²·2^52⌋, non-finite rows) over the rows of an
    array, memmap or sparse matrix."""
    if not sparse.issparse(X):
        return _dense_gram(
            X, norm_bound, _rows_per_chunk(X.shape[1], chunk_rows), with_mean, nonfinite
        )
    if X.format == "csc":
        return _csc_gram(X, norm_bound, chunk_rows, with_mean, nonfinite)
    return _csr_gram(X.tocsr(), norm_bound, chunk_rows, with_mean, nonfinite)


def _reduce(X, sums, *args):
    """``sums(X, *args)``, or for a dask array its sum over the blocks of X."""
    if _dask.is_dask_array(X):
        return _dask.reduce_blocks(X, sums, *args)
    if _spark.is_spark_rows(X):
        return _spark.reduce_partitions(X, sums, *args)
    return sums(X, *args)


def _check_rule(nonfinite):
    if nonfinite not in NONFINITE_RULES:
        raise ValueError(f"nonfinite must be one of {NONFINITE_RULES}.")


def _refuse_nonfinite(n_bad, nonfinite):
    """The data-dependent refusal of ``nonfinite="raise"``, after a full pass."""
    if n_bad and nonfinite == "raise":
        raise ValueError(
            "Input X contains NaN or infinity (or an entry that is not a "
            "number) in at least one row. This is checked after the budget is "
            "charged, so the fit has spent it; nonfinite='zero' treats such rows "
            "as rows of zeros instead."
        )


# The summation depths of the statistics computed in the current fit (None
# outside one): hardened noise bounds the float error of a Gram matrix by its
# depth (docs/algorithms.rst §17).
_DEPTHS = contextvars.ContextVar("skprivcov_summation_depths", default=None)


@contextlib.contextmanager
def recorded_summation_depths():
    """Within this context, every :func:`unit_ball_statistics` records a public
    bound on its summation depth, and :func:`summation_depth` returns the
    largest one recorded (a fit's statistics are all computed before its noise
    is drawn). Outside, it returns the bound for any order of summation."""
    token = _DEPTHS.set([])
    try:
        yield
    finally:
        _DEPTHS.reset(token)


def record_summation_depth(depth):
    """Record a public depth bound in the current fit's scope (if any): a
    caller whose statistics' own depths would depend on private facts (the
    class sizes of LDA) records one that holds for all of them."""
    depths = _DEPTHS.get()
    if depths is not None:
        depths.append(depth)


def summation_depth(n_samples):
    """A public bound on the number of roundings that any term of a Gram entry
    went through in the statistics of the current fit: the largest recorded
    depth, or n + 8 (any order of summation of n products) when none is."""
    depths = _DEPTHS.get()
    return max(depths) if depths else n_samples + 8


def _dense_depth(n_samples, n_features, chunk_rows):
    """The dense path's depth: within a group of S rows (:func:`_group_rows`),
    a sum of S products and a zero in any order (at most S additions, BLAS's
    own blocking included) after the product's rounding, then one addition per
    later group, then the division by n and the augmentation's weight: at most
    S + ⌈n/S⌉ + 8 (public: n, d, the chunk)."""
    chunk = min(_rows_per_chunk(n_features, chunk_rows), max(n_samples, 1))
    group = min(_group_rows(n_samples, chunk), max(n_samples, 1))
    return group + math.ceil(n_samples / group) + 8


def _depth(X, chunk_rows):
    """A public bound on the summation depth of the statistics of X: the dense
    path's for arrays and memmaps; n + 8 (any order) for sparse input, whose
    blocks hold a number of rows that depends on the non-zeros, and for dask
    arrays (so that every dask array, of dense or sparse blocks, gets the same
    noise as the others)."""
    n_samples, n_features = X.shape
    if _dask.is_dask_array(X) or sparse.issparse(X):
        return n_samples + 8
    return _dense_depth(n_samples, n_features, chunk_rows)


def unit_ball_statistics(
    X, norm_bound, *, with_mean=False, nonfinite="raise", chunk_rows=None
):
    """Second moment (and mean) of the rows of X brought into the unit ball.

    Parameters
    ----------
    X : ndarray, memmap, sparse matrix or dask array of shape (n_samples, \
            n_features)
        Validated numeric input (float64 or float32); its values are checked
        here.
    norm_bound : float
        Public ℓ2 bound B on the rows.
    with_mean : bool, default=False
        Also return the mean of the unit-ball rows.
    nonfinite : {"raise", "zero"}, default="raise"
        What a row with a NaN or infinite entry does: refuse the data (after
        the whole pass) or count as a row of zeros.
    chunk_rows : int, default=None
        Rows per chunk (columns per block for CSC input); by default about
        32 MiB of float64 values per chunk.

    Returns
    -------
    stats : SufficientStatistics
    """
    _check_rule(nonfinite)
    n_samples = X.shape[0]
    record_summation_depth(min(_depth(X, chunk_rows), n_samples + 8))
    gram, total, units, n_bad = _reduce(
        X, _gram_sums, float(norm_bound), chunk_rows, with_mean, nonfinite
    )
    _refuse_nonfinite(n_bad, nonfinite)
    mean = total / n_samples if with_mean else None
    return SufficientStatistics(gram / n_samples, mean, n_samples, int(units))


# Exponents e = ceil(log2 ‖z‖) of non-zero float64 norms in the unit ball lie in
# [−1074, 0].
_SMALLEST_EXPONENT = -1074
_N_EXPONENTS = 1 - _SMALLEST_EXPONENT


class NormProfile(NamedTuple):
    """The row norms of the unit-ball rows z_i, grouped by e_i = ⌈log₂‖z_i‖⌉.

    exponents : the integers e from −1074 to 0 (ascending).
    counts : number of rows with each exponent (rows of norm 0 excluded).
    squared_units : per exponent e, Σ⌊(‖z_i‖·2^{−e})²·2^52⌋ over its rows, an
        exact int (object array): ‖z_i‖² relative to the top of its bucket,
        floored to a multiple of 2^−52.
    n_samples : n, rows of norm 0 included.
    """

    exponents: np.ndarray
    counts: np.ndarray
    squared_units: np.ndarray
    n_samples: int


def _ceil_log2(norms):
    """⌈log₂ ν⌉ for ν > 0, exactly (frexp: ν = m·2^e with m ∈ [½, 1))."""
    mantissa, exponent = np.frexp(norms)
    return np.where(mantissa == 0.5, exponent - 1, exponent)


def _norm_chunks(X, chunk_rows):
    """The row norms of X, chunk by chunk (all at once for CSC input)."""
    if sparse.issparse(X) and X.format == "csc":
        # Duplicates summed in float64, as on the CSR path (§13.3).
        X = canonical_sparse(X, dtype=np.float64)
        yield row_norms(X, column_blocks=_sparse_blocks(X.indptr, X.shape[1]))
        return
    if not sparse.issparse(X):
        for rows in _dense_chunks(X, _rows_per_chunk(X.shape[1], chunk_rows)):
            yield row_norms(rows)
        return
    X = X.tocsr()
    for start, stop in _sparse_blocks(X.indptr, chunk_rows or X.shape[0]):
        yield row_norms(_csr_block(X, start, stop))


def _profile_sums(X, norm_bound, chunk_rows):
    """(counts, squared units in 26-bit halves, non-finite rows) per exponent of
    the unit-ball row norms."""
    counts = np.zeros(_N_EXPONENTS, dtype=np.int64)
    high = np.zeros(_N_EXPONENTS, dtype=np.int64)
    low = np.zeros(_N_EXPONENTS, dtype=np.int64)
    n_bad = 0
    for chunk in _norm_chunks(X, chunk_rows):
        n_bad += int(np.isnan(chunk).sum())
        for start in range(0, chunk.size, _SLICE):
            norms = chunk[start : start + _SLICE]
            unit = _unit_norms(norms, unit_ball_factors(norms, norm_bound), norm_bound)
            unit = unit[unit > 0.0]
            exponent = _ceil_log2(unit)
            index = exponent - _SMALLEST_EXPONENT
            counts += np.bincount(index, minlength=_N_EXPONENTS)
            # ‖z‖·2^{−e} ∈ (½, 1] exactly (ldexp), so its square is in (¼, 1].
            halves = _halves(np.ldexp(unit, -exponent) ** 2)
            for total, part in zip((high, low), halves, strict=True):
                # Per bin below 2^53 (fewer than 2^27 halves): exact.
                total += np.bincount(
                    index, weights=part, minlength=_N_EXPONENTS
                ).astype(np.int64)
    return counts, high, low, n_bad


def norm_profile(X, norm_bound, *, nonfinite="raise", chunk_rows=None):
    """Histogram of the exponents of the unit-ball row norms, min(‖x‖/B, 1).

    One pass over the rows, O(d) work per row; what AdaptiveCovariance's
    private radius, private trace and threshold search need (docs/algorithms.rst §2,
    §3.4–3.5). It reads the values of X, so it checks them (see
    :func:`unit_ball_statistics`).

    Parameters
    ----------
    X : ndarray, memmap, sparse matrix or dask array of shape (n_samples, \
            n_features)
        Validated numeric input.
    norm_bound : float
        Public ℓ2 bound B on the rows.
    nonfinite : {"raise", "zero"}, default="raise"
        As in :func:`unit_ball_statistics`.
    chunk_rows : int, default=None
        Rows per chunk; by default about 32 MiB of float64 values per chunk.

    Returns
    -------
    profile : NormProfile
    """
    _check_rule(nonfinite)
    counts, high, low, n_bad = _reduce(X, _profile_sums, float(norm_bound), chunk_rows)
    _refuse_nonfinite(n_bad, nonfinite)
    squared_units = np.array(
        [(int(h) << _HALF_BITS) + int(lo) for h, lo in zip(high, low, strict=True)],
        dtype=object,
    )
    exponents = np.arange(_SMALLEST_EXPONENT, 1)
    return NormProfile(exponents, counts, squared_units, X.shape[0])


def _norm_count_sums(X, grid, chunk_rows):
    """(rows per grid cell, non-finite rows): cell j holds the rows whose
    norm lies in (grid[j − 1], grid[j]] (cell 0: norm 0, the last: above
    every candidate)."""
    cells = np.zeros(grid.size + 1, dtype=np.int64)
    n_bad = 0
    for norms in _norm_chunks(X, chunk_rows):
        # A row with a non-finite entry has a NaN norm (``row_norms``): it
        # counts as a row of zeros (nonfinite="zero"; with "raise" the pass
        # refuses afterwards). A finite row whose norm overflows is +inf: it
        # lies above every candidate (review of issue 33).
        bad = np.isnan(norms)
        n_bad += int(np.count_nonzero(bad))
        cells += _cell_counts(np.where(bad, 0.0, norms)[:, None], grid)[0]
    return cells, n_bad


def _cell_counts(values, grid):
    """Per column j of ``values``, how many entries lie in each cell
    (grid[k − 1], grid[k]] (cell 0: at most grid[0]; the last: above every
    candidate): an int64 array of shape (n_columns, grid.size + 1)."""
    n_columns = values.shape[1]
    size = grid.size + 1
    cells = np.searchsorted(grid, values, side="left") + np.arange(n_columns) * size
    return np.bincount(cells.ravel(), minlength=n_columns * size).reshape(
        n_columns, size
    )


def row_norm_counts(X, grid, *, nonfinite="raise", chunk_rows=None):
    """c_k = #{i : ‖x_i‖ ≤ grid[k]} for the raw rows of X (no clipping), in
    one pass: what a private quantile of the row norms needs
    (docs/algorithms.rst §18.1–18.2). Each row's computed norm is a function
    of that row alone, so replacing a row moves every count by at most 1.

    It reads the values of X, so it checks them (see
    :func:`unit_ball_statistics`): run it after the charge.

    Parameters
    ----------
    X : ndarray, memmap, sparse matrix or dask array of shape (n_samples, \
            n_features)
        Validated numeric input.
    grid : ndarray of float64, ascending
        The public candidates.
    nonfinite : {"raise", "zero"}, default="raise"
    chunk_rows : int, default=None

    Returns
    -------
    counts : ndarray of int64, shape grid.shape
    """
    _check_rule(nonfinite)
    grid = np.asarray(grid, dtype=np.float64)
    cells, n_bad = _reduce(X, _norm_count_sums, grid, chunk_rows)
    _refuse_nonfinite(n_bad, nonfinite)
    return np.cumsum(cells)[:-1]


# The rows read at a time by the per-feature counting pass (≤ 2^20 cells).
_CHUNK_CELLS = 2**20


def _feature_count_sums(X, grid):
    """(cells of shape (d, G + 1), non-finite rows) of every feature: cell
    [j, k] holds the rows whose x_ij lies in (grid[k − 1], grid[k]]. A row with
    a non-finite entry counts as a row of zeros (the rule ``nonfinite="zero"``;
    with ``"raise"`` the caller refuses after the full pass)."""
    cells = np.zeros((X.shape[1], grid.size + 1), dtype=np.int64)
    n_bad = 0
    rows_per_chunk = max(1, _CHUNK_CELLS // max(X.shape[1], 1))
    for rows in _dense_chunks(np.asarray(X), rows_per_chunk):
        bad = ~np.isfinite(rows).all(axis=1)
        n_bad += int(bad.sum())
        cells += _cell_counts(np.where(bad[:, None], 0.0, rows), grid)
    return cells, n_bad


def feature_counts(X, grid, *, nonfinite="raise"):
    """c_jk = #{i : x_ij ≤ grid[k]} for every feature j, in one pass over X
    (dense arrays and memmaps chunk by chunk; dask arrays block by block).

    Replacing one row moves every c_jk by at most 1 (§18.1). Reads values:
    run it after the charge. With ``nonfinite="raise"`` a non-finite entry is
    refused after the full pass; with ``"zero"`` its row counts as zeros.

    Returns
    -------
    counts : ndarray of int64, shape (n_features, grid.size)
    """
    cells, n_bad = _reduce(X, _feature_count_sums, np.asarray(grid, dtype=np.float64))
    _refuse_nonfinite(n_bad, nonfinite)
    return np.cumsum(cells, axis=1)[:, :-1]
