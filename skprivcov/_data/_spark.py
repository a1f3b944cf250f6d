"""pyspark.sql.DataFrame input: detection, public checks, partition reductions.

docs/algorithms.rst §20 (docs/clusters.rst): the statistics pass is one pure
function of a block of rows (``_stats``), and Spark is a thin adapter around
it. Each partition turns its Arrow record batches into float64 blocks, calls
the kernel on every block and adds the results; only that partial sum leaves
the partition (pickled, in one binary column), never a row. The driver adds the
partials in the order of the partition index, and the noise is drawn and the
ledger charged there, once per fit (never noise per partition).

pyspark is optional (the ``spark`` extra). Nothing here imports it unless X
already is a Spark DataFrame, so it is never a dependency of the other inputs.

What is public (read before the charge, §13.2): the schema (column names and
types, and the vector length a column's metadata declares) and the number of
rows, ``df.count()``, public under replace-one neighbours as ``len(X)`` is.
The length of a vector column is never read from a row: a row is data, and a
row of another length must not decide the shape. A row that is not a vector
of that length (or holds a null) becomes a row of NaN, for the estimator's
``nonfinite`` rule after the charge, as an entry that is not a number does.
"""

import builtins
import math
import pickle
import re
import sys

import numpy as np

__all__ = [
    "SparkRows",
    "check_spark_dataframe",
    "is_spark_dataframe",
    "is_spark_rows",
    "reduce_partitions",
    "spark_refusal",
]

# Spark SQL types read as numbers (each cast to double in the plan; a cast
# from these types never fails, so it cannot refuse a value).
_NUMERIC_TYPES = (
    "BooleanType",
    "ByteType",
    "ShortType",
    "IntegerType",
    "LongType",
    "FloatType",
    "DoubleType",
    "DecimalType",
)
_VECTOR = "vector"
_ARRAY = "array"
_COLUMNS = "columns"

# Rows per Arrow batch, at most: about 32 MiB of float64 per block
# (spark.sql.execution.arrow.maxRecordsPerBatch is lowered to this during a
# pass when it is larger, and batches are sliced to it). The kernel cuts a
# block into its own exact blocks of 8 192 rows (§19).
_BLOCK_VALUES = 1 << 22
_MAX_BLOCK_ROWS = 1 << 16
_BATCH_CONF = "spark.sql.execution.arrow.maxRecordsPerBatch"
# A partition's pickled partial travels in pieces of at most 64 MiB, one
# row each (a Spark binary value and an Arrow binary array stay below 2 GiB).
_PIECE_BYTES = 1 << 26


def is_spark_dataframe(X):
    """Whether X is a ``pyspark.sql.DataFrame`` (classic or Spark Connect);
    False when pyspark is not imported."""
    for name in ("pyspark.sql", "pyspark.sql.connect.dataframe"):
        module = sys.modules.get(name)
        frame = getattr(module, "DataFrame", None)
        if frame is not None and isinstance(X, frame):
            return True
    return False


def is_spark_rows(X):
    """Whether X is validated Spark input (:class:`SparkRows`)."""
    return isinstance(X, SparkRows)


class SparkRows:
    """A Spark DataFrame after its public checks: what a fit may know of it.

    Only public facts: the number of rows (the engine's count), the number of
    features (the schema), the feature names (numeric columns) and the plan
    that reads the rows as float64 (``frame``). No value has been read. The
    statistics passes reduce it with :func:`reduce_partitions`.

    Attributes
    ----------
    frame : pyspark.sql.DataFrame
        The selected columns, numeric ones cast to double, a vector column
        as it is, an array column cast to array<double>.
    kind : {"columns", "vector", "array"}
    shape : tuple of int
        (n_samples, n_features).
    feature_names : ndarray of str or None
        The column names of numeric columns; None for a vector column.
    """

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, frame, kind, n_samples, n_features, feature_names):
        self.frame = frame
        self.kind = kind
        self.shape = (int(n_samples), int(n_features))
        self.feature_names = feature_names

    def __repr__(self):
        return f"SparkRows(shape={self.shape}, kind={self.kind!r})"


def spark_refusal(owner, name="X", reason=None):
    """The TypeError of a path that would read the rows of a Spark DataFrame
    themselves (outside the statistics passes), raised before any charge."""
    reason = reason or (
        "it reads the rows themselves, not only the statistics that skprivcov "
        "computes inside the partitions"
    )
    return TypeError(
        f"{owner} does not take a Spark DataFrame as {name}: {reason} "
        "(docs/clusters.rst). Nothing was charged. Collect the rows first if "
        f"they fit in memory ({name}.toPandas()), or fit a covariance "
        "estimator, PrivatePCA or PrivateEllipticEnvelope on the DataFrame "
        "and use its release (covariance=...)."
    )


def _quoted(name):
    """A column reference that Spark reads literally (dots, spaces)."""
    return "`" + name.replace("`", "``") + "`"


def _vector_length(field, owner):
    """The length a vector or array column declares in its metadata (Spark
    ML's ``ml_attr.num_attrs``: VectorAssembler, VectorSizeHint and
    ``df.withMetadata`` set it), never a row's length."""
    attributes = field.metadata.get("ml_attr", {}) if field.metadata else {}
    length = attributes.get("num_attrs") if isinstance(attributes, dict) else None
    if not isinstance(length, int) or isinstance(length, bool) or length < 0:
        raise ValueError(
            f"{owner} needs the length of the vector column {field.name!r} from "
            "its schema, and its metadata declares none. The length of a row "
            "is data, so it is not read from one: declare it with "
            f"pyspark.ml.feature.VectorSizeHint(inputCol={field.name!r}, size=d) "
            f"or df.withMetadata({field.name!r}, "
            "{'ml_attr': {'num_attrs': d}}) (VectorAssembler declares it)."
        )
    return length


def _schema_kind(frame, owner):
    """(kind, selected frame, n_features, feature names) from the schema."""
    from pyspark.sql import functions as F

    fields = list(frame.schema.fields)
    if not fields:
        raise ValueError(f"{owner} needs at least one column; the DataFrame has none.")
    kinds = [type(field.dataType).__name__ for field in fields]
    vectors = [
        field
        for field, kind in zip(fields, kinds, strict=True)
        if kind == "VectorUDT"
        or (
            kind == "ArrayType"
            and type(field.dataType.elementType).__name__ in _NUMERIC_TYPES
        )
    ]
    if vectors:
        if len(fields) != 1:
            raise ValueError(
                f"{owner} takes either numeric columns or exactly one vector "
                f"column; the DataFrame has {len(fields)} columns with the "
                f"vector column {vectors[0].name!r}. Select the one you fit."
            )
        (field,) = fields
        column = F.col(_quoted(field.name))
        if kinds[0] == "VectorUDT":
            kind, selected = _VECTOR, column
        else:
            kind, selected = _ARRAY, column.cast("array<double>")
        n_features = _vector_length(field, owner)
        return kind, frame.select(selected.alias(field.name)), n_features, None
    for field, kind in zip(fields, kinds, strict=True):
        if kind not in _NUMERIC_TYPES:
            raise ValueError(
                f"{owner} needs numbers; the column {field.name!r} of the "
                f"DataFrame has type {field.dataType.simpleString()}. Select "
                "numeric columns, or assemble them into one vector column."
            )
    columns = [F.col(_quoted(field.name)).cast("double") for field in fields]
    names = np.asarray([field.name for field in fields], dtype=object)
    return _COLUMNS, frame.select(*columns), len(fields), names


def check_spark_dataframe(X, *, ensure_min_samples, ensure_min_features, owner):
    """The checks of ``sklearn.utils.check_array`` for a Spark DataFrame,
    without reading a value (docs/algorithms.rst §13.2, §20).

    The schema decides the features: numeric columns (boolean, integer,
    decimal, float, double: each a feature, cast to double), or exactly one
    vector column (``pyspark.ml.linalg.VectorUDT``, or an array of numbers)
    whose length its metadata declares. The number of rows is ``X.count()``,
    one Spark job: public under replace-one neighbours (the library's notion),
    as ``len(X)`` is for an array. The values are checked in the first
    statistics pass, after the charge.

    X may also be SparkRows already (a model that made them for the
    covariance estimator it fits): then only the minimums are checked, and
    nothing is counted again.

    Returns
    -------
    rows : SparkRows
    """
    if is_spark_rows(X):
        kind, frame, names = X.kind, X.frame, X.feature_names
        n_samples, n_features = X.shape
    else:
        kind, frame, n_features, names = _schema_kind(X, owner)
        n_samples = None
    if n_features < ensure_min_features:
        raise ValueError(
            f"Found a DataFrame with {n_features} feature(s) while a minimum of "
            f"{ensure_min_features} is required by {owner}."
        )
    if n_samples is None:
        n_samples = _run(frame.count, what="counting the rows of")
    if n_samples < ensure_min_samples:
        raise ValueError(
            f"Found a DataFrame with {n_samples} sample(s) while a minimum of "
            f"{ensure_min_samples} is required by {owner}."
        )
    if is_spark_rows(X):
        return X
    return SparkRows(frame, kind, n_samples, n_features, names)


# What a failing partition of ours says (its error's type only), and how the
# driver finds that type in Spark's report of it.
_PASS_FAILED = "skprivcov's statistics pass failed in a partition"
_OUR_FAILURE = re.compile(re.escape(_PASS_FAILED) + r" \(([A-Za-z]\w*)\)")


def _failure_name(error):
    """The type of a failed job's error: for a failure in our partition code,
    the type it reported, if that is the name of a built-in exception (so
    that nothing of a message can pass for it); else the type seen here."""
    found = _OUR_FAILURE.search(str(error))
    if found is not None:
        name = found.group(1)
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            return f"{type(error).__name__}: {name} in the partition"
    return type(error).__name__


def _run(action, *args, what):
    """``action(*args)``, with a failure reported by its type only.

    A Spark job fails with the message of whatever failed in the plan (an
    ANSI cast quotes the value it could not cast, a user function may quote
    its input): no message may name a value of X (docs/algorithms.rst §13.1).
    The error is raised outside the ``except`` block, so it does not carry
    the original as its context either."""
    failure = None
    try:
        return action(*args)
    except Exception as error:
        failure = _failure_name(error)
    raise RuntimeError(
        f"Spark failed {what} the DataFrame X ({failure}); the message is not "
        "shown, since it may quote a value of X. Run the DataFrame's plan by "
        "hand (for example X.limit(10).collect()) to see it."
    )


def _block_rows(n_features):
    return max(1, min(_MAX_BLOCK_ROWS, _BLOCK_VALUES // max(n_features, 1)))


def _doubles(array):
    """A float64 Arrow array as numpy, nulls as NaN (the ``nonfinite`` rule)."""
    if array.null_count:
        array = array.fill_null(math.nan)
    return array.to_numpy(zero_copy_only=False)


def _column_block(batch, n_features):
    block = np.empty((batch.num_rows, n_features))
    for j, column in enumerate(batch.columns):
        block[:, j] = _doubles(column)
    return block


def _dense_rows(lists, valid, n_features):
    """(m, d) rows from an Arrow list<double> array: the rows whose list is
    valid and of length d; every other row is NaN."""
    offsets = lists.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    lengths = np.diff(offsets)
    good = valid & (lengths == n_features)
    m = len(lists)
    if good.all() and m and offsets[-1] - offsets[0] == m * n_features:
        # Every row a d-vector, stored one after the other: one reshape.
        values = _doubles(lists.values[offsets[0] : offsets[-1]])
        return values.reshape(m, n_features)
    block = np.full((m, n_features), math.nan)
    if good.any():
        values = _doubles(lists.values)
        block[good] = values[offsets[:-1][good, None] + np.arange(n_features)]
    return block


def _ranges(offsets, rows):
    """The positions offsets[r]..offsets[r + 1] of the given rows, one after
    the other, and the number of positions of each row."""
    starts, lengths = offsets[rows], offsets[rows + 1] - offsets[rows]
    before = np.cumsum(lengths) - lengths
    return np.repeat(starts - before, lengths) + np.arange(lengths.sum()), lengths


def _vector_block(batch, n_features):
    """(m, d) rows from a VectorUDT column (Arrow: struct of type, size,
    indices, values; type 1 dense, 0 sparse). A null, a vector of another
    length or a sparse index out of range gives a row of NaN; duplicate sparse
    indices are summed, as scipy sums duplicate entries (§13.3)."""
    vectors = batch.column(0)
    valid = vectors.is_valid().to_numpy(zero_copy_only=False)
    kinds = vectors.field("type").fill_null(-1).to_numpy(zero_copy_only=False)
    values = vectors.field("values")
    block = _dense_rows(values, valid & (kinds == 1), n_features)
    rows = np.flatnonzero(valid & (kinds == 0))
    if rows.size == 0:
        return block
    sizes = vectors.field("size").fill_null(-1).to_numpy(zero_copy_only=False)
    indices = vectors.field("indices")
    index_offsets = indices.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    value_offsets = values.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    both = indices.is_valid().to_numpy(zero_copy_only=False)
    both &= values.is_valid().to_numpy(zero_copy_only=False)
    same = np.diff(index_offsets) == np.diff(value_offsets)
    rows = rows[(sizes[rows] == n_features) & both[rows] & same[rows]]
    where, lengths = _ranges(index_offsets, rows)
    columns = indices.values.fill_null(-1).to_numpy(zero_copy_only=False)[where]
    stored = _doubles(values.values)[_ranges(value_offsets, rows)[0]]
    owner = np.repeat(np.arange(rows.size), lengths)
    outside = (columns < 0) | (columns >= n_features)
    inside = np.bincount(owner[outside], minlength=rows.size) == 0
    keep = inside[owner]
    cells = np.bincount(
        owner[keep] * n_features + columns[keep].astype(np.int64),
        weights=stored[keep],
        minlength=rows.size * n_features,
    )
    # Rows with an index out of range stay NaN.
    block[rows[inside]] = cells.reshape(rows.size, n_features)[inside]
    return block


def _array_block(batch, n_features):
    lists = batch.column(0)
    valid = lists.is_valid().to_numpy(zero_copy_only=False)
    return _dense_rows(lists, valid, n_features)


_CONVERTERS = {_COLUMNS: _column_block, _VECTOR: _vector_block, _ARRAY: _array_block}


def _add(left, right):
    """Element-wise sum of two tuples of partial sums (None stays None)."""
    return tuple(None if a is None else a + b for a, b in zip(left, right, strict=True))


def _partition_sums(kind, n_features, function, args):
    """The function mapInArrow runs on each partition: Σ of ``function(block,
    *args)`` over its blocks, pickled, with the partition index and the number
    of rows read. Raises only an error of its own, naming no value."""
    convert = _CONVERTERS[kind]
    block_rows = _block_rows(n_features)

    def partition(batches):
        import pyarrow as pa
        from pyspark import TaskContext

        failure = None
        try:
            total, n_rows = None, 0
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                rows = convert(batch, n_features)
                for start in range(0, len(rows), block_rows):
                    block = np.ascontiguousarray(rows[start : start + block_rows])
                    part = function(block, *args)
                    total = part if total is None else _add(total, part)
                n_rows += batch.num_rows
            payload = b"" if total is None else pickle.dumps(total, protocol=5)
            index = TaskContext.get().partitionId()
        except Exception as error:
            failure = type(error).__name__
        if failure is not None:
            # Outside the except block: no context that could carry a value
            # (the worker's traceback is the cluster's log; §13.1).
            raise RuntimeError(f"{_PASS_FAILED} ({failure}).")
        if n_rows == 0:
            return
        # One piece per batch: an Arrow binary array holds less than 2 GiB,
        # and the partial of a wide Gram matrix (16·d² bytes) can be more.
        for piece, start in enumerate(range(0, len(payload), _PIECE_BYTES)):
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([index], pa.int32()),
                    pa.array([piece], pa.int32()),
                    pa.array([n_rows], pa.int64()),
                    pa.array([payload[start : start + _PIECE_BYTES]], pa.binary()),
                ],
                names=["partition", "piece", "rows", "partial"],
            )

    return partition


_PARTIALS_SCHEMA = "partition int, piece int, rows long, partial binary"


class _BatchSize:
    """Lowers spark.sql.execution.arrow.maxRecordsPerBatch to ``rows`` for
    the duration of a pass when it is larger (or unlimited), then restores
    it: batches of wide rows stay about 32 MiB."""

    def __init__(self, session, rows):
        self._conf = session.conf
        self._rows = rows
        self._old = None
        self._changed = False

    def __enter__(self):
        self._old = self._conf.get(_BATCH_CONF, None)
        current = int(self._old) if self._old is not None else 10_000
        if current <= 0 or current > self._rows:
            self._conf.set(_BATCH_CONF, str(self._rows))
            self._changed = True
        return self

    def __exit__(self, *exc):
        if self._changed:
            if self._old is None:
                self._conf.unset(_BATCH_CONF)
            else:
                self._conf.set(_BATCH_CONF, self._old)


def reduce_partitions(rows, function, *args):
    """Σ over the rows of ``function(block, *args)`` (a tuple of partial sums),
    computed in the partitions of a Spark DataFrame: one Spark job.

    Each partition converts its Arrow batches to C-ordered float64 blocks
    (nulls and malformed vectors as NaN rows), adds ``function``'s results
    over its blocks and sends that one partial sum, pickled; the driver adds
    the partials in the order of the partition index (docs/algorithms.rst
    §20). A failure anywhere is reported by its type only (§13.1).

    Parameters
    ----------
    rows : SparkRows
    function : callable
        ``function(block, *args)`` → tuple of arrays or ints (None entries
        stay None), added element-wise; a module-level function, so that the
        workers import it (skprivcov must be installed on them).
    *args
        Public arguments, shipped to the workers.

    Returns
    -------
    total : tuple
    """
    n_samples, n_features = rows.shape
    partials = rows.frame.mapInArrow(
        _partition_sums(rows.kind, n_features, function, args), _PARTIALS_SCHEMA
    )
    with _BatchSize(rows.frame.sparkSession, _block_rows(n_features)):
        collected = _run(partials.collect, what="computing the statistics of")
    pieces = {}
    counts = {}
    for row in collected:
        pieces.setdefault(row.partition, {})[row.piece] = row.partial
        counts[row.partition] = row.rows
    if sum(counts.values()) != n_samples:
        # The sensitivity of every statistic assumes the n rows counted
        # before the charge, each read once (a plan that gives other rows
        # at each read, an unseeded rand(), would break it).
        raise RuntimeError(
            "The Spark DataFrame X gave another number of rows in a statistics "
            "pass than when it was counted: it must give the same rows at every "
            "read. Cache it (X.cache()) or use a deterministic plan."
        )
    total = None
    for index in sorted(pieces):
        parts = pieces[index]
        part = pickle.loads(b"".join(parts[k] for k in sorted(parts)))
        total = part if total is None else _add(total, part)
    return total
