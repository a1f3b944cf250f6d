"""Rows mapped feature by feature, z = (x − c)/s, on every engine (§23).

The private per-feature normalisation (docs/algorithms.rst §23) reads the
rows twice in its own passes (the cells of every feature on a signed log
grid, then the clipped coordinates' means), and the release then reads the
rows mapped by its output, z = (x − c)/s. Both go through one dispatcher,
:func:`reduce_dense_blocks`: a dask array block by block on its workers, a
Spark DataFrame partition by partition on its executors, and an array,
memmap or sparse matrix in this process, a bounded number of rows at a time
(a sparse chunk is made dense: the centre makes it so). The map is applied
to each value on its own, so every engine and chunking gives the same z, and
the exact statistics of z (§19) the same integers.
"""

from typing import Any

import numpy as np
from scipy import sparse

from skprivcov._data import _dask, _spark
from skprivcov._data._exact import ExactTotal

__all__ = [
    "NormalisedRows",
    "box_means_sums",
    "reduce_dense_blocks",
]

# Each mapped coordinate is clipped to ±Z_LIMIT (a public rule applied to
# each value): a feature whose released scale is far below the spread of a
# few of its rows (a point mass at zero and rare other values) cannot make
# those rows' norms, and so the private norm bound, arbitrarily large.
Z_LIMIT = 4.0
# The clipped coordinates of the box passes are put on the grid 2^−32: a
# block of fewer than 2^30 rows sums to less than 2^62 in int64.
BOX_BITS = 32
_BOX_UNIT = float(1 << BOX_BITS)


def _in_process_chunks(X, chunk_values):
    """The rows of an array, memmap or sparse matrix (CSR or CSC, sliced
    in place) as dense float64 chunks of at most ``chunk_values`` values (at
    least one row)."""
    n_samples, n_features = X.shape
    rows = max(1, min(chunk_values // max(n_features, 1), 1 << 29))
    # An empty block (a dask array may have one) is one empty chunk: its
    # sums are zeros of the right shapes, not nothing.
    for start in range(0, max(n_samples, 1), rows):
        yield dense_block(X[start : start + rows])


def _chunked_sums(block, sums, chunk_values, *args, threads_of=None):
    """Σ of ``sums`` over the chunks of ``chunk_values`` values of a block
    (a dask block or a Spark batch may be larger than one chunk, and each
    pass's temporaries are the size of what it is given); ``threads_of(chunk)``,
    if given, is passed to ``sums`` as ``threads=``. A module-level function,
    so that Spark's executors can unpickle it."""
    total = None
    for chunk in _in_process_chunks(block, chunk_values):
        options = {} if threads_of is None else {"threads": threads_of(chunk)}
        part = sums(chunk, *args, **options)
        total = part if total is None else _dask._add(total, part)
    return total


def reduce_dense_blocks(X, sums, *args, chunk_values, threads_of=None):
    """Σ of ``sums(block, *args)`` over the rows of X, each block a dense
    float64 array of whole rows of at most ``chunk_values`` values: dask
    blocks on the cluster, Spark partitions on the executors, and in this
    process chunks of an array, memmap or sparse matrix. ``sums`` returns a
    tuple of partial sums that add exactly (ints, int64 counts,
    :class:`ExactTotal`). In this process, ``threads_of(chunk)``, if given,
    is passed to ``sums`` as ``threads=``."""
    if _dask.is_dask_array(X):
        return _dask.reduce_blocks(X, _chunked_sums, sums, chunk_values, *args)
    if _spark.is_spark_rows(X):
        return _spark.reduce_partitions(X, _chunked_sums, sums, chunk_values, *args)
    return _chunked_sums(X, sums, chunk_values, *args, threads_of=threads_of)


def dense_block(block):
    """A block as a dense float64 array (a dask block may be sparse)."""
    if sparse.issparse(block):
        block = block.toarray()
    return np.asarray(block, dtype=np.float64)


def _centred_rows(block, centre, scale):
    """(x − c)/s of a dense block in one new array, a row with a non-finite
    entry taken as the row x = 0, and the count of such rows."""
    bad = ~np.isfinite(block).all(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        rows = np.subtract(block, centre)
        rows[bad] = -centre
        rows /= scale
    return rows, int(np.count_nonzero(bad))


def normalise_block(block, centre, scale, limit):
    """(z, rows with a non-finite entry) of a block: z = clip((x − c)/s,
    −limit, limit) as a dense float64 array (``limit`` per feature: Z_LIMIT,
    or inf for a feature left as given), a row with a non-finite entry
    mapped as the row x = 0 (the rule ``nonfinite="zero"``; the count lets
    the caller refuse it under "raise")."""
    z, n_bad = _centred_rows(dense_block(block), centre, scale)
    np.clip(z, -limit, limit, out=z)
    return z, n_bad


def _normalised_sums(block, sums, centre, scale, limit, *args, **options):
    """``sums`` of a block after the map; a module-level function, so that
    Spark's executors can unpickle it. Every ``sums`` of the statistics
    passes returns its count of non-finite rows last; the rows the map found
    are added to it (they reach ``sums`` as finite rows)."""
    z, n_bad = normalise_block(block, centre, scale, limit)
    *partial, bad_after = sums(z, *args, **options)
    return (*partial, bad_after + n_bad)


class NormalisedRows:
    """The rows of X seen as z = (x − centre)/scale (docs/algorithms.rst §23).

    A stand-in for X in the passes of :mod:`skprivcov._data._statistics`:
    each pass maps the rows block by block where they live and never holds
    them whole.

    Parameters
    ----------
    X : ndarray, memmap, sparse matrix, dask array or Spark rows
        The validated training data (values not yet checked).
    centre, scale : ndarray of shape (n_features,)
        Public (released or given) centre and positive scale.
    limit : ndarray of shape (n_features,), default=None
        Where each feature's z is clipped, ±limit (None: ±Z_LIMIT for all;
        inf leaves a feature unclipped).
    """

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(
        self,
        X: Any,
        centre: np.ndarray,
        scale: np.ndarray,
        limit: np.ndarray | None = None,
    ) -> None:
        self.base = X
        self.centre = np.asarray(centre, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        if limit is None:
            limit = np.full(X.shape[1], Z_LIMIT)
        self.limit = np.asarray(limit, dtype=np.float64)
        self.shape = tuple(X.shape)
        self.size = self.shape[0] * self.shape[1]

    def reduce(self, sums, *args, chunk_values, threads_of=None):
        """Σ of ``sums(z_block, *args)`` over the mapped rows (see
        :func:`reduce_dense_blocks` for ``chunk_values`` and ``threads_of``)."""
        return reduce_dense_blocks(
            self.base,
            _normalised_sums,
            sums,
            self.centre,
            self.scale,
            self.limit,
            *args,
            chunk_values=chunk_values,
            threads_of=threads_of,
        )


# Rows summed at once in float64: |u|·2^32 ≤ 2^32, so 2^20 of them stay
# below 2^53 and their sum is exact in any order.
_EXACT_ROWS = 1 << 20


def box_means_sums(block, centre, half_width, absolute):
    """(Σ of the clipped coordinates on the grid 2^−32, as an ExactTotal of
    shape (d,), rows with a non-finite entry).

    Per value u = clip((x − m)/r, −1, 1), or with ``absolute`` u =
    min(abs(x − m)/r, 1); a row with a non-finite entry counts as the row x = 0
    (the rule ``nonfinite="zero"``; the caller refuses it under "raise").
    Rounded to the grid, u stays in [−1, 1] ([0, 1]): a replaced row moves
    each coordinate's sum by at most 2 (1) units of the statistic."""
    u, n_bad = _centred_rows(dense_block(block), centre, half_width)
    if absolute:
        np.abs(u, out=u)
    np.clip(u, -1.0, 1.0, out=u)
    u *= _BOX_UNIT
    np.rint(u, out=u)
    total = ExactTotal((u.shape[1],))
    for start in range(0, u.shape[0], _EXACT_ROWS):
        rows = u[start : start + _EXACT_ROWS]
        total.add(rows.sum(axis=0), rows.shape[0] << BOX_BITS)
    return total, n_bad
