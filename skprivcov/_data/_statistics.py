"""Sufficient statistics of norm-bounded rows, computed in bounded-memory chunks.

Rows are brought into the unit ball by the public bound B as z = x / max(‖x‖, B):
rows inside the ball of radius B are scaled by 1/B, rows outside are clipped to
it (Clip(x, B)/B, docs/algorithms.rst §3.3). X is never copied whole:

* dense arrays and memmaps (float64 or float32, any layout) are read in place,
  a tile of rows at a time: each tile is read from memory once and its
  integer rows written once, into a block that symmetric rank-k updates add
  up (:func:`_dense_gram`); each thread (:func:`_threads`) owns whole blocks;
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

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
from scipy import sparse
from threadpoolctl import ThreadpoolController

from skprivcov._data import _dask as _dask
from skprivcov._data import _spark as _spark
from skprivcov._data._blas import syrk_upper
from skprivcov._data._exact import (
    BLOCK_ROWS,
    FRACTION_BITS,
    SHRINK,
    UNIT,
    ExactStatistic,
    ExactTotal,
)
from skprivcov._data._normalised import (
    BOX_BITS,
    NormalisedRows,
    box_means_sums,
    reduce_dense_blocks,
)
from skprivcov._data._row_norms import (
    canonical_sparse,
    dense_row_norms,
    row_norms,
    tile_rows,
    tiles,
    unit_ball_factors,
)
from skprivcov._data._symmetric import mirror_upper

__all__ = [
    "NONFINITE_RULES",
    "UNIT_BITS",
    "NormProfile",
    "SufficientStatistics",
    "feature_counts",
    "floored_unit_sum",
    "norm_profile",
    "row_norm_counts",
    "unit_ball_statistics",
]

# About 64 MiB of float64 per chunk: rows × features for dense input (the
# rows of one integer block of the statistics pass, and of one chunk of the
# norm-only passes), non-zeros for sparse input.
_CHUNK_BYTES = 1 << 26
_CHUNK_VALUES = _CHUNK_BYTES // 8
# Rows of a sparse block: their int64 Gram sums stay below 2^61.
_SPARSE_BLOCK_ROWS = 1 << (61 - 2 * FRACTION_BITS)

NONFINITE_RULES = ("raise", "zero")

# Exact sums of squared norms in [0, 1]: units of 2^−52, in 26-bit halves.
UNIT_BITS = 52
_HALF_BITS = 26


class SufficientStatistics:
    """Exact statistics of the unit-ball rows z_i, on the grid 2^−k (§19).

    gram : ExactTotal, Σ a_i a_iᵀ with a_i = trunc(z_i·2^k), exactly symmetric.
    sums : ExactTotal or None, Σ a_i (when the mean was requested).
    n_samples : n.
    """

    def __init__(self, gram, sums, n_samples):
        self.gram = gram
        self.sums = sums
        self.n_samples = n_samples
        self._moment = None

    @property
    def second_moment(self):
        """(1/n) Σ z'z'ᵀ of the rows on the grid (z' = a·2^−k), an
        :class:`~skprivcov._data._exact.ExactStatistic`."""
        if self._moment is None:
            self._moment = ExactStatistic.of(
                self.gram, self.n_samples << (2 * FRACTION_BITS)
            )
        return self._moment

    @property
    def mean(self):
        """(1/n) Σ z', an ExactStatistic, or None."""
        if self.sums is None:
            return None
        return ExactStatistic.of(self.sums, self.n_samples << FRACTION_BITS)

    @property
    def squared_units(self):
        """Σ_i ‖a_i‖², the trace of the Gram total, an exact int (units 2^−2k)."""
        high, low = self.gram.normalised()
        diagonal_high = int(np.diagonal(high).astype(object).sum())
        diagonal_low = int(np.diagonal(low).astype(object).sum())
        return (diagonal_high << 32) + diagonal_low

    @property
    def trace(self):
        """(1/n) Σ ‖z'_i‖², an exact Fraction: each row adds at most 1/n
        (Σ_j a_ij² ≤ 2^{2k}), so replacing one row moves it by at most 1/n."""
        return Fraction(self.squared_units, self.n_samples << (2 * FRACTION_BITS))

    def augmented(self):
        """The second moment of the augmented rows (z'/√2, 1/√2) of
        docs/algorithms.rst §8.2, exactly: the integers
        [[Σ a aᵀ, 2^k Σ a], [2^k Σ aᵀ, n·2^{2k}]] over 2n·2^{2k}."""
        d = self.gram.shape[0]
        n = self.n_samples
        high, low = self.gram.normalised()
        sums = self.sums.scaled(FRACTION_BITS)
        sum_high, sum_low = sums.normalised()
        corner = n << (2 * FRACTION_BITS)
        parts = []
        for block, vector, last in (
            (high, sum_high, corner >> 32),
            (low, sum_low, corner & 0xFFFFFFFF),
        ):
            part = np.empty((d + 1, d + 1), dtype=np.int64)
            part[:d, :d] = block
            part[:d, d] = part[d, :d] = vector
            part[d, d] = last
            parts.append(part)
        return ExactStatistic.of(ExactTotal.from_parts(*parts), 2 * corner)


def _rows_per_chunk(n_features, chunk_rows):
    """``chunk_rows``, or by default about 64 MiB of float64 rows per chunk,
    at most one block of :data:`BLOCK_ROWS` rows (the exact GEMM's limit)."""
    if chunk_rows is None:
        return max(1, min(_CHUNK_VALUES // n_features, BLOCK_ROWS))
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


def _fixed_point_factors(norms, norm_bound):
    """2^k·c/max(‖x‖, B) per row (c = ``SHRINK``), 0 for rows with a
    non-finite entry (norm NaN) and rows whose norm overflows: x times it,
    truncated, are the integers a of a row in the unit ball (§19). Computed in
    one division, so that the factor is normal even for norms near 1e308."""
    with np.errstate(invalid="ignore", divide="ignore"):
        factors = (SHRINK * UNIT) / np.maximum(norms, norm_bound)
    factors[np.isnan(norms)] = 0.0
    return factors


# A row of integers is in the unit ball when Σ a_j² ≤ 2^{2k}.
_UNIT_SQUARE = float(1 << (2 * FRACTION_BITS))


class _DenseGrid:
    """The integers a of dense rows, a tile of rows at a time, in reused
    buffers that stay in the cache: one read of the rows from memory, one
    write of their integers (where the product reads them).

    For a tile x of m rows (any float dtype and layout): the norms, summed
    left to right (``_clipping``); v = x times the row's factor
    (:func:`_fixed_point_factors`), in float64; then each row of v rounded to
    the nearest integers, unless that takes it out of the ball
    (Σ a_j² > 2^{2k}, exact: integers below 2^53), in which case it is
    truncated toward zero, which never increases a norm: a public rule of the
    row alone (§19), unbiased inside the ball where truncation alone would
    shrink every coordinate by half a unit on average. A row with a
    non-finite entry (norm NaN, factor 0) becomes a row of zeros.

    Constant work: both roundings of every row are computed, and the chosen
    one (or the row of zeros) is copied by an index per row, whichever it
    is; no step depends on which rows are clipped or rounded down.

    With ``constant``, every row written gets one more entry, ``constant``
    (the product then also gives ``constant``·Σ a; see :func:`_dense_gram`).
    """

    def __init__(self, n_features, per_tile, constant=None):
        self.per_tile = per_tile
        size = per_tile + 1  # tiles() makes tiles of up to per_tile + 1
        self.size = size
        self.n_features = n_features
        self.squares = np.empty((n_features, size))
        self.norms = np.empty(size)
        # Rows 0..size−1: nearest; size..2·size−1: the scaled rows, then
        # truncated in place; the last: zeros.
        width = n_features + (constant is not None)
        self.choices = np.zeros((2 * size + 1, width))
        if constant is not None:
            self.choices[:, n_features] = constant
        self.rows = np.arange(size)

    def integers(self, x, norm_bound, out):
        """Write the integers of the rows ``x`` (as exact float64) to ``out``;
        return the number of rows with a non-finite entry."""
        m, d = len(x), self.n_features
        norms = dense_row_norms(x, out=self.norms[:m], buffer=self.squares)
        factors = _fixed_point_factors(norms, norm_bound)
        bad = np.isnan(norms)
        values = self.choices[self.size : self.size + m, :d]
        with np.errstate(invalid="ignore", over="ignore"):
            np.multiply(x, factors[:, None], out=values, dtype=np.float64)
        nearest = np.rint(values, out=self.choices[:m, :d])
        outside = np.einsum("ij,ij->i", nearest, nearest) > _UNIT_SQUARE
        np.trunc(values, out=values)
        index = np.where(bad, 2 * self.size, self.rows[:m] + self.size * outside)
        np.take(self.choices, index, axis=0, out=out, mode="clip")
        return int(np.count_nonzero(bad))


def _values_to_grid(values, owners, n_rows):
    """The rule of :class:`_DenseGrid` for the stored values of a sparse
    matrix (``owners``: the row of each value), as int64."""
    nearest = np.rint(values)
    squares = np.bincount(owners, weights=nearest * nearest, minlength=n_rows)
    inside = (squares <= _UNIT_SQUARE)[owners]
    np.trunc(values, out=values)
    np.copyto(values, nearest, where=inside)
    return values.astype(np.int64)


# Values of the integer rows multiplied at a time (each product adds into a
# float64 accumulator, exact over up to BLOCK_ROWS rows), 8 MiB. Measured at
# d = 1000 (two cores): from 2^18 to 2^23 values the pass took the same time
# within the noise (±10%); the smaller size keeps the memory of a pass small.
_PRODUCT_VALUES = 1 << 20


def _product_rows(n_features, block_rows, per_tile):
    """Rows per product: about ``_PRODUCT_VALUES`` values (at most one chunk
    of ``_CHUNK_VALUES``), at least a tile, at most a block."""
    values = min(_PRODUCT_VALUES, _CHUNK_VALUES)
    return min(max(values // max(n_features, 1), per_tile), block_rows)


def _block_spans(n_samples, block_rows, shares):
    """(start, stop) of the blocks of rows, each of at most ``block_rows``
    rows, their number a multiple of ``shares`` (so that each thread gets as
    many) and their sizes within one row of each other."""
    count = shares * -(-n_samples // (block_rows * shares))
    if not count:
        return []
    cut = [n_samples * i // count for i in range(count + 1)]
    return [(cut[i], cut[i + 1]) for i in range(count) if cut[i] < cut[i + 1]]


def _dense_gram(X, norm_bound, chunk_rows, with_mean, nonfinite, threads=1):
    """(Σ a aᵀ, Σ a or None, non-finite rows) of a dense X (array or memmap,
    float64 or float32, any layout), read in place tile by tile
    (:class:`_DenseGrid`), by ``threads`` threads.

    Blocks of at most ``BLOCK_ROWS`` rows (or ``chunk_rows``): their integer
    rows are multiplied about a thousand at a time by symmetric rank-k
    updates (dsyrk) into one float64 accumulator, exact over the whole block
    (every partial sum an integer below 2^53, §19); the block's accumulator
    is then added to the integer total (its upper triangle only is computed;
    the lower one mirrors it at the end). For the mean, each integer row gets
    one more entry, 2^k: the product's last column is then 2^k·Σ a, exact
    too (every partial sum at most 2^k·S·2^k), and no pass is needed for the
    sums.

    Every tile is scaled row by row, whether or not it has a row to clip: a
    shortcut for tiles without one would make the running time tell whether
    the data has rows beyond the bound.

    Threads: each owns every ``threads``-th block (the blocks are as many for
    each, a public function of the shape), puts its rows on the grid and
    multiplies them itself on one BLAS thread, through SciPy's BLAS with the
    GIL released (``_blas``); the threads' integer totals are then added,
    exactly, so the result does not depend on the number of threads. Sharing
    each product between the threads and then multiplying it on BLAS's own
    threads, as before, left the cores half idle: SciPy's OpenBLAS threads
    spin for a while after each product, taking the cores from the threads
    that put the next rows on the grid (measured: the grid took as long on
    two threads as on one; benchmarks/bench_fit_time.py).
    """
    n_samples, d = X.shape
    block_rows = max(1, min(chunk_rows, BLOCK_ROWS, n_samples))
    spans = _block_spans(n_samples, block_rows, threads)
    block_rows = max((stop - start for start, stop in spans), default=1)
    # Tiles (four buffers of a tile each) and products within a block: the
    # memory stays that of about one chunk per thread.
    per_tile = max(2, min(tile_rows(d), block_rows // 4))
    product_rows = _product_rows(d, block_rows, per_tile)
    width = d + 1 if with_mean else d
    constant = UNIT if with_mean else None

    def run(share):
        grid = _DenseGrid(d, per_tile, constant)
        # tiles() may end a product with a tile of per_tile + 1 rows.
        rows = np.empty((product_rows + 1, width))
        # Fortran-ordered, as dsyrk writes it; the strict lower triangle
        # stays 0.
        block = np.zeros((width, width), order="F")
        integers = np.empty((width, width), dtype=np.int64, order="F")
        gram = ExactTotal((d, d))
        total = ExactTotal((d,)) if with_mean else None
        n_bad = 0
        for block_start, block_stop in spans[share::threads]:
            beta = 0.0
            for start, stop in tiles(block_stop - block_start, product_rows):
                part = rows[: stop - start]
                first = block_start + start
                for low, high in tiles(stop - start, per_tile):
                    n_bad += grid.integers(
                        X[first + low : first + high], norm_bound, part[low:high]
                    )
                syrk_upper(part, block, beta)
                beta = 1.0
            count = block_stop - block_start
            np.copyto(integers, block, casting="unsafe")
            # integers.T is C-ordered as the total: its lower triangle holds
            # the block's upper one.
            gram.add(integers.T[:d, :d], count << (2 * FRACTION_BITS))
            if with_mean:
                total.add(integers[:d, d] >> FRACTION_BITS, count << FRACTION_BITS)
        return gram, total, n_bad

    if threads <= 1:
        gram, total, n_bad = run(0)
    else:
        # One BLAS thread per product: the threads here are the parallelism.
        with (
            _blas_controller().limit(limits=1, user_api="blas"),
            _pool(threads) as pool,
        ):
            futures = [pool.submit(run, share) for share in range(1, threads)]
            results = [run(0)] + [future.result() for future in futures]
        gram = sum((result[0] for result in results[1:]), results[0][0])
        total = None
        if with_mean:
            total = sum((result[1] for result in results[1:]), results[0][1])
        n_bad = sum(result[2] for result in results)
    _mirror_total(gram)
    return gram, total, n_bad


@contextmanager
def _pool(threads):
    """A pool of ``threads`` − 1 threads (the calling thread is the other),
    or None."""
    if threads <= 1:
        yield None
        return
    with ThreadPoolExecutor(threads - 1) as pool:
        yield pool


# Below this many values a pass runs on one thread (starting threads would
# cost more than they save); never more than _MAX_THREADS (each step of a
# tile is short, and threads beyond a few wait for the GIL more than they
# work).
_THREADED_VALUES = 1 << 22
_MAX_THREADS = 4
_controller = None


def _blas_controller():
    """threadpoolctl's controller of the BLAS libraries loaded (made once)."""
    global _controller
    if _controller is None:
        _controller = ThreadpoolController().select(user_api="blas")
    return _controller


def _threads(X):
    """Threads for a pass over a dense X in this process: as many as the BLAS
    libraries use (so a user's ``threadpoolctl`` limit, or a cluster
    worker's single thread, holds here too), at most the usable cores and
    ``_MAX_THREADS``; one for small X or sparse input. The work of each
    thread is a fixed share of the tiles: the data does not change it."""
    if sparse.issparse(X) or X.ndim != 2 or X.size < _THREADED_VALUES:
        return 1
    counts = [lib.get_num_threads() for lib in _blas_controller().lib_controllers]
    cores = (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count() or 1
    )
    return max(1, min([*counts, cores, _MAX_THREADS]))


def _mirror_total(gram):
    """The strict upper triangle of both halves from the lower one."""
    high, low = gram.normalised()
    # The transposed views: their upper triangles are the lower ones.
    mirror_upper(high.T)
    mirror_upper(low.T)


def _csr_block(X, start, stop):
    """Rows start:stop of a CSR matrix as a new canonical float64 CSR matrix
    (duplicates summed: the rows as every product reads them), whose values
    are its own copy."""
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


def _integer_csr_block(block, norm_bound):
    """(the block's integer rows a as an int64 CSR matrix, non-finite rows)."""
    norms = row_norms(block)
    factors = _fixed_point_factors(norms, norm_bound)
    owners = np.repeat(np.arange(block.shape[0]), np.diff(block.indptr))
    # In place: the block's values are its own copy (``_csr_block``).
    values = block.data
    with np.errstate(invalid="ignore", over="ignore"):
        np.multiply(values, factors[owners], out=values)
    values[~np.isfinite(values)] = 0.0
    values = _values_to_grid(values, owners, block.shape[0])
    bad = np.isnan(norms)
    rows = sparse.csr_matrix((values, block.indices, block.indptr), shape=block.shape)
    return rows, int(bad.sum())


def _csr_gram(X, norm_bound, chunk_rows, with_mean, nonfinite):
    """(Σ a aᵀ, Σ a or None, non-finite rows) of a CSR matrix, row block by row
    block: int64 sparse products, exact (the block's sums stay below 2^61)."""
    n_samples, n_features = X.shape
    gram = ExactTotal((n_features, n_features))
    total = ExactTotal((n_features,)) if with_mean else None
    n_bad = 0
    max_rows = min(chunk_rows or n_samples, _SPARSE_BLOCK_ROWS)
    for start, stop in _sparse_blocks(X.indptr, max_rows):
        rows, block_bad = _integer_csr_block(_csr_block(X, start, stop), norm_bound)
        n_bad += block_bad
        rows_count = stop - start
        # Densified before adding: a dense add beats scattering the
        # non-zeros into the Gram matrix (docs/developers.rst, measurements).
        gram.add((rows.T @ rows).toarray(), rows_count << (2 * FRACTION_BITS))
        if with_mean:
            total.add(np.asarray(rows.sum(axis=0)).ravel(), rows_count << FRACTION_BITS)
    return gram, total, n_bad


def _csc_gram(X, norm_bound, chunk_columns, with_mean, nonfinite):
    """(Σ a aᵀ, Σ a or None, non-finite rows) of a CSC matrix, by column blocks
    (each ~``_CHUNK_VALUES`` non-zeros, never the whole matrix copied): a first
    pass takes each row's norm and Σ of its nearest integers' squares (the
    rule of :class:`_DenseGrid`), then block (I, J) of the Gram matrix is
    A_Iᵀ·A_J with the int64 integers of the two blocks, exact while
    n·2^{2k} < 2^61. Taller matrices take the CSR path (one conversion)."""
    n_samples, n_features = X.shape
    if n_samples > _SPARSE_BLOCK_ROWS:
        return _csr_gram(X.tocsr(), norm_bound, None, with_mean, nonfinite)
    # Duplicates summed in float64 whatever the input dtype, as the CSR path
    # sums them (§13.3).
    X = canonical_sparse(X, dtype=np.float64)
    width = chunk_columns or _rows_per_chunk(n_features, None)
    blocks = list(_sparse_blocks(X.indptr, width))
    norms = row_norms(X, column_blocks=blocks)
    factors = _fixed_point_factors(norms, norm_bound)
    n_bad = int(np.isnan(norms).sum())
    del norms  # O(n) memory: a few vectors of n values at a time

    def scaled(start, stop):
        low, high = X.indptr[start], X.indptr[stop]
        rows = X.indices[low:high]
        with np.errstate(invalid="ignore", over="ignore"):
            values = X.data[low:high] * factors[rows]
        values[~np.isfinite(values)] = 0.0
        return values, rows, X.indptr[start : stop + 1] - low

    squares = np.zeros(n_samples)
    for start, stop in blocks:
        values, rows, _ = scaled(start, stop)
        np.rint(values, out=values)
        # Integers below 2^53: exact in any order.
        np.add.at(squares, rows, values * values)
    inside = squares <= _UNIT_SQUARE
    del squares

    def integers(start, stop):
        values, rows, indptr = scaled(start, stop)
        nearest = np.rint(values)
        np.trunc(values, out=values)
        np.copyto(values, nearest, where=inside[rows])
        del nearest
        return sparse.csc_matrix(
            (values.astype(np.int64), rows, indptr), shape=(n_samples, stop - start)
        )

    gram = np.zeros((n_features, n_features), dtype=np.int64)
    sums = np.zeros(n_features, dtype=np.int64)
    for position, (start, stop) in enumerate(blocks):
        right = integers(start, stop)
        sums[start:stop] = np.asarray(right.sum(axis=0)).ravel()
        for first, last in blocks[: position + 1]:
            left = right if first == start else integers(first, last)
            gram[first:last, start:stop] = (left.T @ right).toarray()
    mirror_upper(gram)
    gram_total = ExactTotal((n_features, n_features))
    gram_total.add(gram, n_samples << (2 * FRACTION_BITS))
    total = None
    if with_mean:
        total = ExactTotal((n_features,)).add(sums, n_samples << FRACTION_BITS)
    return gram_total, total, n_bad


def _gram_sums(X, norm_bound, chunk_rows, with_mean, nonfinite, threads=1):
    """(Σ a aᵀ, Σ a or None, non-finite rows) over the rows of an array,
    memmap or sparse matrix, as exact integer totals (§19); ``threads`` for a
    dense X."""
    if not sparse.issparse(X):
        chunk_rows = _rows_per_chunk(X.shape[1], chunk_rows)
        return _dense_gram(X, norm_bound, chunk_rows, with_mean, nonfinite, threads)
    if X.format == "csc":
        return _csc_gram(X, norm_bound, chunk_rows, with_mean, nonfinite)
    return _csr_gram(X.tocsr(), norm_bound, chunk_rows, with_mean, nonfinite)


def _reduce(X, sums, *args, threaded=False):
    """``sums(X, *args)``, or for a dask array its sum over the blocks of X
    (a Spark DataFrame: over its partitions). A ``threaded`` function also
    gets ``threads=`` for an X in this process (:func:`_threads`); on a
    cluster the engine runs the blocks in parallel, each on one thread."""
    if isinstance(X, NormalisedRows):  # z = (x − c)/s, mapped where X lives (§23)
        return X.reduce(
            sums,
            *args,
            chunk_values=_CHUNK_VALUES,
            threads_of=_threads if threaded else None,
        )
    if _dask.is_dask_array(X):
        return _dask.reduce_blocks(X, sums, *args)
    if _spark.is_spark_rows(X):
        return _spark.reduce_partitions(X, sums, *args)
    if threaded:
        return sums(X, *args, threads=_threads(X))
    return sums(X, *args)


def _check_rule(nonfinite):
    if nonfinite not in NONFINITE_RULES:
        raise ValueError(f"nonfinite must be one of {NONFINITE_RULES}.")


def refuse_nonfinite(n_bad, nonfinite):
    """The data-dependent refusal of ``nonfinite="raise"``, after a full pass."""
    if n_bad and nonfinite == "raise":
        raise ValueError(
            "Input X contains NaN or infinity (or an entry that is not a "
            "number) in at least one row. This is checked after the budget is "
            "charged, so the fit has spent it; nonfinite='zero' treats such rows "
            "as rows of zeros instead."
        )


def unit_ball_statistics(
    X: Any,
    norm_bound: float,
    *,
    with_mean: bool = False,
    nonfinite: str = "raise",
    chunk_rows: int | None = None,
) -> "SufficientStatistics":
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
        64 MiB of float64 values per chunk, at most 8 192 rows (the rows of
        one exact block).

    Returns
    -------
    stats : SufficientStatistics
    """
    _check_rule(nonfinite)
    gram, total, n_bad = _reduce(
        X,
        _gram_sums,
        float(norm_bound),
        chunk_rows,
        with_mean,
        nonfinite,
        threaded=True,
    )
    refuse_nonfinite(n_bad, nonfinite)
    return SufficientStatistics(gram, total, X.shape[0])


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


def _norm_chunks(X, chunk_rows, threads=1):
    """The row norms of X, chunk by chunk (all at once for CSC input); a
    dense X's chunks shared by ``threads`` threads."""
    if sparse.issparse(X) and X.format == "csc":
        # Duplicates summed in float64, as on the CSR path (§13.3).
        X = canonical_sparse(X, dtype=np.float64)
        yield row_norms(X, column_blocks=_sparse_blocks(X.indptr, X.shape[1]))
        return
    if not sparse.issparse(X):
        # Read in place, any dtype and layout (the squares are taken in
        # float64, as the statistics pass takes them).
        chunk_rows = _rows_per_chunk(X.shape[1], chunk_rows)
        per_tile = max(2, min(tile_rows(X.shape[1]), chunk_rows // 4))
        buffers = [np.empty((X.shape[1], per_tile + 1)) for _ in range(threads)]
        with _pool(threads) as pool:
            for start in range(0, X.shape[0], chunk_rows):
                yield _shared_norms(pool, buffers, X[start : start + chunk_rows])
        return
    X = X.tocsr()
    for start, stop in _sparse_blocks(X.indptr, chunk_rows or X.shape[0]):
        yield row_norms(_csr_block(X, start, stop))


def _shared_norms(pool, buffers, rows):
    """The row norms of a dense chunk, its rows split into consecutive
    shares, one per buffer, the first on this thread."""
    norms = np.empty(len(rows))
    shares = len(buffers)
    cut = [len(rows) * i // shares for i in range(shares + 1)]

    def run(i):
        dense_row_norms(
            rows[cut[i] : cut[i + 1]], norms[cut[i] : cut[i + 1]], buffers[i]
        )

    futures = [pool.submit(run, i) for i in range(1, shares)]
    run(0)
    for future in futures:
        future.result()
    return norms


def _profile_sums(X, norm_bound, chunk_rows, threads=1):
    """(counts, squared units in 26-bit halves, non-finite rows) per exponent of
    the unit-ball row norms."""
    counts = np.zeros(_N_EXPONENTS, dtype=np.int64)
    high = np.zeros(_N_EXPONENTS, dtype=np.int64)
    low = np.zeros(_N_EXPONENTS, dtype=np.int64)
    n_bad = 0
    for chunk in _norm_chunks(X, chunk_rows, threads):
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


def norm_profile(
    X: Any,
    norm_bound: float,
    *,
    nonfinite: str = "raise",
    chunk_rows: int | None = None,
) -> "NormProfile":
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
        Rows per chunk; by default about 64 MiB of float64 values per chunk.

    Returns
    -------
    profile : NormProfile
    """
    _check_rule(nonfinite)
    counts, high, low, n_bad = _reduce(
        X, _profile_sums, float(norm_bound), chunk_rows, threaded=True
    )
    refuse_nonfinite(n_bad, nonfinite)
    squared_units = np.array(
        [(int(h) << _HALF_BITS) + int(lo) for h, lo in zip(high, low, strict=True)],
        dtype=object,
    )
    exponents = np.arange(_SMALLEST_EXPONENT, 1)
    return NormProfile(exponents, counts, squared_units, X.shape[0])


def _norm_count_sums(X, grid, chunk_rows, threads=1):
    """(rows per grid cell, non-finite rows): cell j holds the rows whose
    norm lies in (grid[j − 1], grid[j]] (cell 0: norm 0, the last: above
    every candidate)."""
    cells = np.zeros(grid.size + 1, dtype=np.int64)
    n_bad = 0
    for norms in _norm_chunks(X, chunk_rows, threads):
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


def row_norm_counts(
    X: Any,
    grid: np.ndarray,
    *,
    nonfinite: str = "raise",
    chunk_rows: int | None = None,
) -> np.ndarray:
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
    cells, n_bad = _reduce(X, _norm_count_sums, grid, chunk_rows, threaded=True)
    refuse_nonfinite(n_bad, nonfinite)
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
    refuse_nonfinite(n_bad, nonfinite)
    return np.cumsum(cells, axis=1)[:, :-1]


def box_means(X, centre, half_width, absolute, *, nonfinite="raise"):
    """The exact per-feature mean of :func:`box_means_sums`'s clipped
    coordinates over the rows of X (one pass, every engine); reads values:
    run it after the charge.

    Returns
    -------
    means : ExactStatistic of shape (n_features,)
        The integer totals over n·2^32.
    """
    total, n_bad = reduce_dense_blocks(
        X,
        box_means_sums,
        np.asarray(centre, dtype=np.float64),
        np.asarray(half_width, dtype=np.float64),
        bool(absolute),
        chunk_values=_CHUNK_VALUES,
    )
    refuse_nonfinite(n_bad, nonfinite)
    return ExactStatistic.of(total, X.shape[0] << BOX_BITS)


def feature_cells(X, edges, *, nonfinite="raise"):
    """Per feature, the count of its values in each cell (edges[k − 1],
    edges[k]] of the public ascending ``edges`` (one pass, every engine; a
    row with a non-finite entry counts as zeros, refused after the pass
    under "raise"); reads values: run it after the charge.

    Returns
    -------
    counts : ndarray of int64, shape (n_features, edges.size + 1)
    """
    cells, n_bad = reduce_dense_blocks(
        X,
        _feature_count_sums,
        np.asarray(edges, dtype=np.float64),
        chunk_values=_CHUNK_VALUES,
    )
    refuse_nonfinite(n_bad, nonfinite)
    return cells
