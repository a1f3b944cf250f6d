"""Per-class exact statistics in one pass over all rows (§19, §21; §13 threat
model: class sizes are private).

Every row is put on the grid once (the integers of the statistics pass:
:class:`skprivcov._data._statistics._DenseGrid` for dense rows,
``_integer_csr_block`` for sparse ones), block by block over all n rows, and
the per-class statistics are taken from the block's integers:

* :func:`class_sums_squares`: counts, Σ_{i∈c} a_i and Σ_{i∈c} a_i⊙a_i by a
  one-hot (C × m) product with the block's rows and their squares: no d × d
  Gram matrix, C·m·d work per block whatever the split;
* :func:`class_grams`: the augmented Gram [[Σ aaᵀ, 2^k Σ a], [2^k Σ aᵀ,
  n_c·2^{2k}]] of every class: the rows of each product grouped by class
  (a stable argsort of the labels), each class's segment followed by one row
  of zeros, and one symmetric rank-k product per class for every class, so
  that every product makes C calls multiplying m + C rows in all, whatever
  the split (an empty class: one row of zeros).

The work of a pass depends on n, d, C and, for sparse input, the non-zeros;
the sparse per-class Gram products (int64 sparse matrix products) also on how
the non-zeros' patterns fall into the classes. The integers are those of the
per-class passes they replace (each a function of its row alone), added
exactly (:class:`~skprivcov._data._exact.ExactTotal`).
"""

import numpy as np
from scipy import sparse

from skprivcov._data._blas import syrk_upper
from skprivcov._data._exact import (
    BLOCK_ROWS,
    FRACTION_BITS,
    UNIT,
    ExactStatistic,
    ExactTotal,
)
from skprivcov._data._row_norms import tile_rows, tiles
from skprivcov._data._statistics import (
    _SPARSE_BLOCK_ROWS,
    _blas_controller,
    _block_spans,
    _check_rule,
    _csr_block,
    _DenseGrid,
    _integer_csr_block,
    _product_rows,
    _sparse_blocks,
    refuse_nonfinite,
)

__all__ = ["class_grams", "class_sums_squares", "exact_mean"]


def _label_indices(y, classes):
    """The index in ``classes`` (sorted, as np.unique gives) of each label,
    or ``len(classes)`` for a label outside them: a row left out of every
    class (its label was not released, docs/algorithms.rst §25). Its
    statistics go to one more class that is never returned, so the work does
    not depend on how many rows are left out."""
    classes = np.asarray(classes)
    y = np.asarray(y)
    size = len(classes)
    index = np.minimum(np.searchsorted(classes, y), max(size - 1, 0))
    kept = classes[index] == y
    return np.where(kept, index, size).astype(np.intp)


def _without_left_out(total, size):
    """The first ``size`` classes of an ExactTotal of shape (size + 1, d)."""
    high, low = total.normalised()
    return ExactTotal.from_parts(high[:size], low[:size])


def _dense_spans(X, with_constant):
    """(grid, row buffer, the blocks' spans, rows per product) of a dense X."""
    n, d = X.shape
    block_rows = max(1, min(BLOCK_ROWS, n))
    spans = _block_spans(n, block_rows, 1)
    block_rows = max((stop - start for start, stop in spans), default=1)
    per_tile = max(2, min(tile_rows(d), block_rows // 4))
    product_rows = _product_rows(d, block_rows, per_tile)
    grid = _DenseGrid(d, per_tile, UNIT if with_constant else None)
    # tiles() may end a product with a tile of per_tile + 1 rows; one more
    # row, of zeros, for the padding of the class segments.
    rows = np.zeros((product_rows + 2, d + with_constant))
    return grid, rows, spans, product_rows


def _dense_products(X, bound, grid, rows, spans, product_rows):
    """For each product of a dense X: (block index, first row, the product's
    integer rows (a view of ``rows``), its non-finite rows)."""
    for index, (block_start, block_stop) in enumerate(spans):
        for start, stop in tiles(block_stop - block_start, product_rows):
            part = rows[: stop - start]
            first = block_start + start
            n_bad = 0
            for low, high in tiles(stop - start, grid.per_tile):
                n_bad += grid.integers(
                    X[first + low : first + high], bound, part[low:high]
                )
            yield index, first, part, n_bad


def _sparse_products(X, bound):
    """For each block of a sparse X: (first row, its int64 CSR integer rows,
    its non-finite rows)."""
    # Each block is made canonical (duplicates summed) in float64 as it is
    # read (``_csr_block``), as the per-class passes read it (§13.3).
    X = X.tocsr()
    for start, stop in _sparse_blocks(X.indptr, _SPARSE_BLOCK_ROWS):
        integers, n_bad = _integer_csr_block(_csr_block(X, start, stop), bound)
        yield start, integers, n_bad


def _one_hot(labels, n_classes, dtype):
    """The (C × m) one-hot matrix of ``labels``: m ones, whatever the split."""
    m = labels.size
    return sparse.csr_matrix(
        (np.ones(m, dtype=dtype), labels, np.arange(m + 1)), shape=(m, n_classes)
    ).T.tocsr()


def _class_product(one_hot, values):
    """Σ over each class's rows of ``values``: one (C × m)·(m × d) product."""
    return one_hot @ values


def class_sums_squares(X, y, classes, bound, nonfinite):
    """Per class: the count n_c (int64), Σ a and Σ a⊙a (ExactTotals of shape
    (C, d), units 2^−k and 2^−2k) of the grid rows a of X (§19), in one pass
    over all rows. With ``nonfinite="raise"`` a row with a non-finite entry
    is refused after the whole pass."""
    _check_rule(nonfinite)
    d = X.shape[1]
    kept = len(classes)
    labels = _label_indices(y, classes)
    # One more class: the rows whose label is not among ``classes`` (§25).
    size = kept + 1
    counts = np.bincount(labels, minlength=size).astype(np.int64)[:kept]
    sums = ExactTotal((size, d))
    squares = ExactTotal((size, d))
    n_bad = 0
    if sparse.issparse(X):
        for start, integers, block_bad in _sparse_products(X, bound):
            n_bad += block_bad
            m = integers.shape[0]
            one_hot = _one_hot(labels[start : start + m], size, np.int64)
            # int64 sparse products, exact: below m·2^{2k} ≤ 2^61.
            sums.add(_class_product(one_hot, integers).toarray(), m << FRACTION_BITS)
            integers.data *= integers.data
            squares.add(
                _class_product(one_hot, integers).toarray(), m << (2 * FRACTION_BITS)
            )
        refuse_nonfinite(n_bad, nonfinite)
        return counts, _without_left_out(sums, kept), _without_left_out(squares, kept)
    grid, rows, spans, product_rows = _dense_spans(X, with_constant=False)
    block_sums = np.zeros((size, d))
    block_squares = np.zeros((size, d))
    current = 0
    for index, first, part, block_bad in _dense_products(
        X, bound, grid, rows, spans, product_rows
    ):
        if index != current:
            _flush(sums, squares, block_sums, block_squares, spans[current])
            current = index
        n_bad += block_bad
        m = len(part)
        one_hot = _one_hot(labels[first : first + m], size, np.float64)
        # Float64 sums of integers, every partial sum below 2^53 within a
        # block of at most BLOCK_ROWS rows (a_j² ≤ 2^{2k}): exact (§19).
        block_sums += _class_product(one_hot, part)
        # The squares in place: the buffer is rewritten by the next product.
        np.multiply(part, part, out=part)
        block_squares += _class_product(one_hot, part)
    if spans:
        _flush(sums, squares, block_sums, block_squares, spans[current])
    refuse_nonfinite(n_bad, nonfinite)
    return counts, _without_left_out(sums, kept), _without_left_out(squares, kept)


def _flush(sums, squares, block_sums, block_squares, span):
    """Add a block's exact float sums to the integer totals; zero them."""
    count = span[1] - span[0]
    sums.add(block_sums, count << FRACTION_BITS)
    squares.add(block_squares, count << (2 * FRACTION_BITS))
    block_sums[...] = 0.0
    block_squares[...] = 0.0


def _grouped(labels, n_classes):
    """(source, bounds): ``source`` takes the rows of a product grouped by
    class (stable), each class's segment followed by one padding row (index
    −1, a row of zeros); ``bounds[c]:bounds[c + 1]`` is class c's segment with
    its padding row. m + C rows, C segments, whatever the split."""
    order = np.argsort(labels, kind="stable")
    counts = np.bincount(labels, minlength=n_classes)
    bounds = np.zeros(n_classes + 1, dtype=np.intp)
    np.cumsum(counts + 1, out=bounds[1:])
    source = np.full(labels.size + n_classes, -1, dtype=np.intp)
    source[np.arange(labels.size) + labels[order]] = order
    return source, bounds


def _segment_product(segment, out, beta):
    """One class's rank-k update of its block accumulator (k ≥ 1 rows)."""
    syrk_upper(segment, out, beta)


def class_grams(X, y, classes, bound, nonfinite):
    """The augmented Gram of every class, [[Σ aaᵀ, 2^k Σ a], [2^k Σ aᵀ,
    n_c·2^{2k}]] (units 2^−2k) of its grid rows a (§19), as a list of C
    ExactTotals of shape (d + 1, d + 1), in one pass over all rows. With
    ``nonfinite="raise"`` a row with a non-finite entry is refused after the
    whole pass."""
    _check_rule(nonfinite)
    d = X.shape[1]
    kept = len(classes)
    labels = _label_indices(y, classes)
    # One more class: the rows whose label is not among ``classes`` (§25).
    size = kept + 1
    totals = [ExactTotal((d + 1, d + 1)) for _ in range(size)]
    n_bad = 0
    if sparse.issparse(X):
        for start, integers, block_bad in _sparse_products(X, bound):
            n_bad += block_bad
            m = integers.shape[0]
            block_labels = labels[start : start + m]
            order = np.argsort(block_labels, kind="stable")
            bounds = np.zeros(size + 1, dtype=np.intp)
            np.cumsum(np.bincount(block_labels, minlength=size), out=bounds[1:])
            grouped = integers[order]
            part = np.empty((d + 1, d + 1), dtype=np.int64)
            for index, total in enumerate(totals):
                segment = grouped[bounds[index] : bounds[index + 1]]
                part[:d, :d] = _class_product(segment.T, segment).toarray()
                column = np.asarray(segment.sum(axis=0)).ravel() << FRACTION_BITS
                part[:d, d] = part[d, :d] = column
                part[d, d] = (bounds[index + 1] - bounds[index]) << (2 * FRACTION_BITS)
                total.add(part, m << (2 * FRACTION_BITS))
        refuse_nonfinite(n_bad, nonfinite)
        return totals[:kept]
    grid, rows, spans, product_rows = _dense_spans(X, with_constant=True)
    width = d + 1
    grouped = np.empty((product_rows + 1 + size, width))
    blocks = [np.zeros((width, width), order="F") for _ in range(size)]
    integers = np.empty((width, width), dtype=np.int64, order="F")
    zero_row = rows.shape[0] - 1  # stays zero, the constant column too
    current, beta = 0, 0.0
    products = _dense_products(X, bound, grid, rows, spans, product_rows)
    # One BLAS thread: the per-class updates are small (about product_rows/C
    # rows each), and OpenBLAS's threads, spinning between them, made the
    # pass several times slower on two cores (measured at n = 40 000,
    # d = 300).
    with _blas_controller().limit(limits=1, user_api="blas"):
        for index, first, part, block_bad in products:
            if index != current:
                _flush_grams(totals, blocks, integers, spans[current])
                current, beta = index, 0.0
            n_bad += block_bad
            m = len(part)
            source, bounds = _grouped(labels[first : first + m], size)
            source[source < 0] = zero_row
            out = grouped[: m + size]
            np.take(rows, source, axis=0, out=out)
            for label, block in enumerate(blocks):
                segment = out[bounds[label] : bounds[label + 1]]
                _segment_product(segment, block, beta)
            beta = 1.0
    if spans:
        _flush_grams(totals, blocks, integers, spans[current])
    refuse_nonfinite(n_bad, nonfinite)
    return totals[:kept]


def _flush_grams(totals, blocks, integers, span):
    """Add each class's exact block accumulator (upper triangle) to its
    integer total, mirrored."""
    count = span[1] - span[0]
    for total, block in zip(totals, blocks, strict=True):
        np.copyto(integers, block, casting="unsafe")
        # The upper triangle to both.
        upper = np.triu(integers)
        total.add(upper + np.triu(integers, 1).T, count << (2 * FRACTION_BITS))


def exact_mean(X, bound, nonfinite):
    """(1/n) Σ z of the grid rows of X (§19) as an ExactStatistic, the mean of
    ``unit_ball_statistics(X, bound, with_mean=True)`` without its d × d Gram
    matrix: the pass of :func:`class_sums_squares` with one class."""
    labels = np.zeros(X.shape[0], dtype=np.intp)
    _, sums, _ = class_sums_squares(X, labels, np.array([0]), bound, nonfinite)
    high, low = sums.normalised()
    total = ExactTotal.from_parts(high[0], low[0])
    return ExactStatistic.of(total, X.shape[0] << FRACTION_BITS)
