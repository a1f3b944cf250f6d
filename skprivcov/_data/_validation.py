"""Input validation in two steps: public facts before the charge, values after.

docs/algorithms.rst §13.2 (docs/threat_model.rst): before any privacy is spent, only
public facts of the input may be checked: the kind of container, the shape,
the dtype kind, the sparse format and the column names. Whatever reads values
runs after the charge: converting an object array to numbers here
(:func:`as_numeric`, where an entry that is not a number becomes NaN), and the
finiteness check, which lives in the first statistics pass (``_stats``) and
applies the estimator's ``nonfinite`` rule to NaN, infinite and non-number
entries alike. A refusal that depends on values is then paid for and cannot
be repeated for free. The public checks cast in silence: a cast that
overflows (float128 beyond float64) gives inf, found after the charge, and
never a warning that would tell, for free, that a value is huge.

No message names a value of the input (§13.1). scikit-learn's ``check_array``
prints the array for 1-D and complex input and the offending cell for strings,
so those cases are refused here first, in words of our own, and the
conversions that could fail on a value are done here with messages that name
only the problem.
"""

import math
import warnings

import numpy as np
from scipy import sparse
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_array, validate_data

from skprivcov._data._dask import check_dask_array, compute_array, is_dask_array
from skprivcov._data._row_norms import canonical_sparse
from skprivcov._data._spark import (
    check_spark_dataframe,
    is_spark_dataframe,
    is_spark_rows,
    spark_refusal,
)

__all__ = [
    "as_numeric",
    "check_finite",
    "check_input",
    "check_per_row",
    "check_public",
    "check_target",
    "check_training_rows",
]

_NUMERIC_KINDS = "biuf"


def _is_dataframe(X):
    return hasattr(X, "dtypes") and hasattr(X, "columns") and hasattr(X, "iloc")


def _refuse_kind(kind, dtype, name, owner):
    """Refuse a dtype kind that is not a number (public: the kind, not a value)."""
    if kind == "c":
        raise ValueError(
            f"Complex data not supported: {owner} needs real numbers; {name} has "
            f"dtype {dtype}."
        )
    if kind not in _NUMERIC_KINDS + "O":
        raise ValueError(f"{owner} needs numbers; {name} has dtype {dtype}.")


def _check_shape(shape, name, owner, ensure_min_samples, ensure_min_features):
    if len(shape) != 2:
        got = "scalar" if len(shape) == 0 else f"{len(shape)}D"
        raise ValueError(
            f"Expected 2D array, got {got} array instead (shape {shape}); {owner} "
            f"needs {name} of shape (n_samples, n_features). Reshape your data "
            "either using array.reshape(-1, 1) if it has a single feature or "
            "array.reshape(1, -1) if it contains a single sample."
        )
    n_samples, n_features = shape
    if n_samples < ensure_min_samples:
        raise ValueError(
            f"Found array with {n_samples} sample(s) (shape={shape}) while a "
            f"minimum of {ensure_min_samples} is required by {owner}."
        )
    if n_features < ensure_min_features:
        raise ValueError(
            f"Found array with {n_features} feature(s) (shape={shape}) while a "
            f"minimum of {ensure_min_features} is required by {owner}."
        )


def _public_sparse(X, accept_sparse, name, owner):
    if not accept_sparse:
        raise TypeError(
            f"{owner} does not accept sparse {name}: dense data is required "
            f"(convert it with {name}.toarray() if it fits in memory)."
        )
    _refuse_kind(X.dtype.kind, X.dtype, name, owner)
    if X.dtype.kind == "O":
        raise ValueError(f"{owner} needs numbers; sparse {name} has dtype object.")
    if X.format not in accept_sparse:
        # The conversion sums duplicates: in float64, as the CSR and CSC paths
        # sum them (§13.3; review of issue 34: float32 COO summed in float32).
        X = X.astype(np.float64).asformat(accept_sparse[0])
    if X.dtype not in (np.float64, np.float32):
        X = X.astype(np.float64)  # silent: see check_public's np.errstate
    return X


def _public_dense(X, name, owner):
    """A numeric ndarray (kept in place when float32/64), or an object array
    whose values are converted after the charge."""
    # Every cast here is silent (check_public's np.errstate): a float128 beyond
    # float64 becomes inf, to be found after the charge.
    if _is_dataframe(X):
        kinds = {getattr(dtype, "kind", "O") for dtype in X.dtypes}
        for kind in kinds - set(_NUMERIC_KINDS + "O"):
            _refuse_kind(kind, "of kind " + repr(kind), name, owner)
        if kinds <= set(_NUMERIC_KINDS):
            return check_array(
                X,
                dtype=(np.float64, np.float32),
                ensure_all_finite=False,
                ensure_min_samples=0,
                ensure_min_features=0,
            )
        return X.to_numpy(dtype=object)
    if hasattr(X, "dtype") and hasattr(X, "shape"):
        X = np.asarray(X)
        _refuse_kind(X.dtype.kind, X.dtype, name, owner)
        if X.dtype.kind in "biu":
            return X.astype(np.float64)
        if X.dtype.kind == "f" and X.dtype not in (np.float64, np.float32):
            return X.astype(np.float64)
        return X
    # Lists and other sequences: whether their entries are numbers is a fact
    # about the values, found after the charge.
    try:
        return np.asarray(X, dtype=object)
    except (ValueError, TypeError):
        raise ValueError(
            f"{owner} could not read {name} as an array: its rows must all have "
            "the same length."
        ) from None


def check_public(
    estimator,
    X,
    *,
    reset,
    accept_sparse=("csr", "csc"),
    ensure_min_samples=2,
    ensure_min_features=2,
    name="X",
    accept_spark=False,
):
    """The public checks of X: what may run before the budget is charged.

    Checks the container, the shape (2-D, enough rows and columns), the dtype
    kind and the sparse format, and records ``n_features_in_`` and
    ``feature_names_in_`` (or checks them, ``reset=False``). Reads no value.

    A Spark DataFrame is taken only with ``accept_spark`` (fits that read X
    through the statistics passes of ``_stats`` alone, docs/clusters.rst);
    every other caller refuses it here, before anything is charged.

    Returns
    -------
    X : ndarray (float32/64, or object pending :func:`as_numeric`), CSR/CSC
        matrix (float32/64), dask array or SparkRows
        Arrays and memmaps of float32 or float64 are returned as they are (no
        copy); sparse matrices keep their format when it is accepted.
    """
    with np.errstate(all="ignore"):
        return _check_public(
            estimator,
            X,
            reset=reset,
            accept_sparse=accept_sparse,
            ensure_min_samples=ensure_min_samples,
            ensure_min_features=ensure_min_features,
            name=name,
            accept_spark=accept_spark,
        )


# The exact integer statistics (docs/algorithms.rst §19) hold sums of up to 2^50
# rows (Gram entries below 2^91, denominators n·2^41 exact in float64).
MAX_ROWS = 2**50


def _check_rows(n_samples, name, owner):
    if n_samples > MAX_ROWS:
        raise ValueError(
            f"{owner} accepts at most 2**50 rows of {name} (the exact integer "
            "statistics hold sums of up to 2**50 rows), got more."
        )


def _record_spark_features(estimator, rows, reset):
    """``n_features_in_`` and ``feature_names_in_`` of Spark input (the
    column names of numeric columns; none for a vector column): scikit-learn
    reads names from the dataframes it knows, and a Spark DataFrame is not
    one of them."""
    validate_data(estimator, rows, reset=reset, skip_check_array=True)
    names = rows.feature_names
    if reset:
        if names is not None:
            estimator.feature_names_in_ = names
        return
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is not None and (names is None or list(names) != list(fitted)):
        raise ValueError(
            "The feature names of the Spark DataFrame X should match those "
            "that were passed during fit."
        )


def _check_spark(
    estimator, X, *, reset, ensure_min_samples, ensure_min_features, name, owner
):
    """The public checks of a Spark DataFrame (docs/algorithms.rst §20): the
    schema, then the engine's count of rows (public under replace-one
    neighbours); no value is read."""
    rows = check_spark_dataframe(
        X,
        ensure_min_samples=ensure_min_samples,
        ensure_min_features=ensure_min_features,
        owner=owner,
    )
    _check_rows(rows.shape[0], name, owner)
    _record_spark_features(estimator, rows, reset)
    return rows


def _check_public(
    estimator,
    X,
    *,
    reset,
    accept_sparse,
    ensure_min_samples,
    ensure_min_features,
    name,
    accept_spark,
):
    owner = type(estimator).__name__
    original = X
    if is_spark_dataframe(X) or is_spark_rows(X):
        if not accept_spark:
            raise spark_refusal(owner, name)
        return _check_spark(
            estimator,
            X,
            reset=reset,
            ensure_min_samples=ensure_min_samples,
            ensure_min_features=ensure_min_features,
            name=name,
            owner=owner,
        )
    if is_dask_array(X):
        if not accept_sparse and sparse.issparse(getattr(X, "_meta", None)):
            # A dask array of sparse blocks is refused here, before the charge,
            # as a sparse matrix is (review of issue 34: it was charged, then
            # failed in the pass).
            _public_sparse(X._meta, accept_sparse, name, owner)
        X = check_dask_array(
            X,
            ensure_min_samples=ensure_min_samples,
            ensure_min_features=ensure_min_features,
            owner=owner,
        )
        _check_rows(X.shape[0], name, owner)
        validate_data(estimator, X, reset=reset, skip_check_array=True)
        return X
    if sparse.issparse(X):
        X = _public_sparse(X, accept_sparse, name, owner)
    else:
        X = _public_dense(X, name, owner)
    _check_shape(X.shape, name, owner, ensure_min_samples, ensure_min_features)
    _check_rows(X.shape[0], name, owner)
    # The names and the number of features, from the caller's object.
    validate_data(estimator, original, reset=reset, skip_check_array=True)
    return X


def _entry_as_float(value):
    # A complex number is not a real number (float() of a numpy complex would
    # drop its imaginary part, with a warning). Whatever fails to convert
    # (including an object whose __float__ raises an error of its own, whose
    # message could quote it) is not a number either.
    if isinstance(value, complex | np.complexfloating):
        return math.nan
    try:
        return float(value)
    except Exception:
        return math.nan


# Entry by entry in C (a ufunc over Python objects): an object array holds
# Python objects, so each needs its own float() anyway.
_AS_FLOAT = np.frompyfunc(_entry_as_float, 1, 1)


def as_numeric(X, name="X"):
    """An object array (from :func:`check_public`) converted to float64; any
    other input unchanged. Reads values: run it after the charge.

    An entry that is not a number (a string that does not parse, ``None``,
    ``pd.NA``, an int beyond float64) becomes NaN, so the estimator's
    ``nonfinite`` rule treats it as it treats NaN and infinity: one paid
    refusal for every kind of bad entry with ``"raise"``, a zero row with
    ``"zero"`` (docs/algorithms.rst §13.2). Every object array takes this one path,
    whatever its entries. ``name`` is kept for the callers' symmetry.
    """
    if not (isinstance(X, np.ndarray) and X.dtype == object):
        return X
    # In silence: float() of some entries warns (np.ma.masked: "converting a
    # masked element to nan"), and a warning that depends on an entry would
    # tell what the entry is, before the charge on a transformer's input.
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _AS_FLOAT(X).astype(np.float64)


def check_finite(X, name="X"):
    """Refuse NaN or infinite values (data that no budget protects: test data,
    a transformer's input). The message names no value."""
    if sparse.issparse(X):
        values = canonical_sparse(X).data
    else:
        values = X
    if not np.isfinite(values).all():
        raise ValueError(
            f"Input {name} contains NaN or infinity (or an entry that is not a number)."
        )
    return X


def check_training_rows(estimator, X, *, reset=False, name="X", **public):
    """The public checks and the conversion, for training rows that pass
    through a transformer on their way to a private estimator: no value is
    refused (a refusal before the estimator's charge would be free), and an
    entry that is not a number becomes NaN for the estimator's own
    ``nonfinite`` rule."""
    public.setdefault("ensure_min_samples", 1)
    public.setdefault("ensure_min_features", 1)
    X = check_public(estimator, X, reset=reset, name=name, **public)
    if is_dask_array(X):
        X = compute_array(X)
    return as_numeric(X, name)


def check_input(estimator, X, *, reset=False, name="X", **public):
    """Every check at once, for data that no budget protects (the rows given
    to ``score``, ``predict`` or a stateless transformer): the public checks,
    the conversion and finiteness."""
    public.setdefault("ensure_min_samples", 1)
    public.setdefault("ensure_min_features", 1)
    X = check_public(estimator, X, reset=reset, name=name, **public)
    if is_dask_array(X):
        X = compute_array(X)
    return check_finite(as_numeric(X, name), name)


def check_target(y, n_samples, owner):
    """Public checks of a regression target: present, one value per row, a
    numeric (or object) dtype kind. Returns a 1-D array, object arrays pending
    :func:`as_numeric`."""
    if y is None:
        raise ValueError(
            f"{owner} requires y to be passed, but the target y is None; give the "
            "targets (or a release, covariance=...)."
        )
    if is_spark_dataframe(y):
        raise spark_refusal(owner, "y")
    with np.errstate(all="ignore"):  # silent casts, as in check_public
        y = _public_dense(y, "y", owner)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it is "
            "used as y.ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{owner} needs y of shape (n_samples,); got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"y has {y.shape[0]} values but X has {n_samples} rows; they must match."
        )
    return y


def check_per_row(values, n_rows, what):
    """``values`` as they enter a private statistic: exactly one term per row,
    a 1-D array of ``n_rows`` entries (docs/algorithms.rst §13.7).

    A sensitivity bound counts one term per row; a (n, 1) column against an
    (n,) vector would broadcast to n × n terms, each row then moving n of
    them (review of issue 32: a column-vector target scored at 1.99× the
    stated sensitivity). Shapes are public, so this never depends on a value;
    callers check their inputs' shapes before the charge, and this guard
    makes the statistic itself refuse any other shape.
    """
    values = np.asarray(values)
    if values.shape != (n_rows,):
        raise ValueError(
            f"{what} must hold one value per row, shape ({n_rows},); got shape "
            f"{values.shape}."
        )
    return values
