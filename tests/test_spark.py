"""pyspark.sql.DataFrame input (docs/algorithms.rst §20, docs/clusters.rst).

One statistics kernel, a thin adapter: every registered estimator whose fit
reads X only through the statistics passes gives, from a Spark DataFrame in
any number of partitions, bitwise the release of the same rows in memory
(exact integer statistics, §19); every other path refuses Spark input before
anything is charged. The partitions send partial sums, never rows; the noise
and the ledger stay on the driver; no error names a value (§13.1).

One SparkSession (local[2]) per test process, shared by the module.
"""

import os
import re
import shutil
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

# CI installs pyspark with the test extra: the module is skipped only where it
# cannot be imported at all (a missing Java or pyarrow fails, loudly).
pytest.importorskip("pyspark")

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov._data._spark import (
    SparkRows,
    check_spark_dataframe,
    is_spark_dataframe,
    is_spark_rows,
    reduce_partitions,
)
from skprivcov.utils import instances, registry

pytestmark = [
    pytest.mark.slow,
    # PySpark's note, on planning any mapInArrow, that it does not yet fully
    # support pandas 3: no pandas conversion of PySpark's is used here.
    pytest.mark.filterwarnings(
        "ignore:PySpark does not yet fully support pandas:FutureWarning"
    ),
]

ROOT = Path(__file__).resolve().parents[1]
PARTITIONS = (1, 2, 7)
COLUMNS = ["a", "b", "c", "d"]
# A value that appears in the data of the leak tests and must appear in no
# message.
SECRET = 123.456789
# The interpreters of Spark's workers and driver (tests/conftest.py).
SPARK_PYTHON = ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("skprivcov-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        # For spark-submit; a driver started from Python runs its workers with
        # $PYSPARK_PYTHON, which tests/conftest.py sets to this interpreter
        # (with skprivcov installed) unless the user set it.
        .config(
            "spark.pyspark.python", os.environ.get("PYSPARK_PYTHON", sys.executable)
        )
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _frame(spark, X, partitions, columns=COLUMNS):
    """X as a cached DataFrame of double columns whose ``partitions``
    partitions hold consecutive rows (the order of X)."""
    rows = [tuple(float(v) for v in row) for row in X]
    schema = ", ".join(f"{name} double" for name in columns)
    frame = spark.sparkContext.parallelize(rows, partitions).toDF(schema).cache()
    assert frame.rdd.getNumPartitions() == partitions
    assert frame.count() == len(X)
    return frame


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)) * np.array([2.0, 1.0, 0.5, 0.1])
    X[np.abs(X) < 0.3] = 0.0
    X[7] = 0.0  # a row of zeros
    X[11] *= 40.0  # a row far beyond any bound
    return X


@pytest.fixture(scope="module")
def frames(spark, data):
    return {k: _frame(spark, data, k) for k in PARTITIONS}


def test_the_workers_run_the_interpreter_of_pyspark_python(spark):
    """The workers run $PYSPARK_PYTHON: this interpreter (tests/conftest.py)
    unless the user set another, never whatever "python3" the PATH finds."""

    def interpreter(_):
        import sys

        yield sys.executable

    (worker,) = set(
        spark.sparkContext.parallelize(range(2), 2).mapPartitions(interpreter).collect()
    )
    expected = os.environ["PYSPARK_PYTHON"]
    assert worker == os.path.abspath(shutil.which(expected) or expected)


# --------------------------------------------------------------------------------
# What takes Spark input: read from the estimators (a class attribute that
# their fit passes to the public checks), never a list written here.


def _seeded(estimator, seed):
    """A clone with ``random_state=seed`` (ZeroCovariance draws nothing)."""
    estimator = clone(estimator)
    if "random_state" in estimator.get_params(deep=False):
        estimator.set_params(random_state=seed)
    return estimator


def _accepts_spark(estimator):
    """Whether fit takes a Spark DataFrame: its own declaration, and that of
    the covariance estimator it makes a release with, if any."""
    if not getattr(estimator, "_spark_input", False):
        return False
    inner = estimator.get_params(deep=False).get("estimator")
    return inner is None or _accepts_spark(inner)


def _needs_target(estimator):
    return estimator.__sklearn_tags__().target_tags.required


ALL = instances(variants=True)
X_ONLY = [(name, est) for name, est in ALL if not _needs_target(est)]
ACCEPTED = [(name, est) for name, est in X_ONLY if _accepts_spark(est)]
REFUSED = [(name, est) for name, est in ALL if not _accepts_spark(est)]


def test_the_scope_is_every_fit_that_reads_x_through_the_statistics_passes():
    """The declarations match docs/clusters.rst: every covariance estimator
    but CoinPress, PCA, the envelope and the private box accept Spark input;
    the supervised models, the folds and the public transformers refuse it."""
    accepted = {type(est).__name__ for _, est in ACCEPTED}
    refused = {type(est).__name__ for _, est in REFUSED}
    assert not accepted & refused
    assert accepted | refused == set(registry())
    assert {"PrivatePCA", "PrivateEllipticEnvelope", "GaussianCovariance"} <= accepted
    assert {"PrivateRidge", "FoldReleases", "RowNormClipper"} <= refused
    assert "CoinPressCovariance" in refused


# --------------------------------------------------------------------------------
# The same release, bitwise.


def _fitted_attributes(estimator):
    return sorted(
        name
        for name in vars(estimator)
        if name.endswith("_") and not name.startswith("_")
    )


def _assert_same(left, right, where):
    """Equal values, recursively; arrays and floats bitwise."""
    if isinstance(left, BaseEstimator):
        names = _fitted_attributes(left)
        assert names == _fitted_attributes(right), where
        for name in names:
            _assert_same(getattr(left, name), getattr(right, name), f"{where}.{name}")
    elif isinstance(left, np.ndarray) and left.dtype != object:
        np.testing.assert_array_equal(left, right, err_msg=where, strict=True)
    elif isinstance(left, dict):
        assert left.keys() == right.keys(), where
        for key in left:
            _assert_same(left[key], right[key], f"{where}[{key!r}]")
    elif isinstance(left, list | tuple) or (
        isinstance(left, np.ndarray) and left.dtype == object
    ):
        assert len(left) == len(right), where
        for i, (a, b) in enumerate(zip(left, right, strict=True)):
            _assert_same(a, b, f"{where}[{i}]")
    elif hasattr(left, "__dict__") and not isinstance(left, type):
        _assert_same(vars(left), vars(right), where)
    elif isinstance(left, float):
        assert np.float64(left).tobytes() == np.float64(right).tobytes(), where
    else:
        assert left == right, where


@pytest.mark.parametrize(
    "estimator", [est for _, est in ACCEPTED], ids=[name for name, _ in ACCEPTED]
)
def test_a_spark_dataframe_gives_the_release_of_the_rows_in_memory(
    estimator, data, frames
):
    """Same seed: bitwise the release of the same rows as a pandas DataFrame
    (the names too), whatever the number of partitions."""
    pd = pytest.importorskip("pandas")
    est = _seeded(estimator, 3)
    expected = clone(est).fit(pd.DataFrame(data, columns=COLUMNS))
    for partitions, frame in frames.items():
        fitted = clone(est).fit(frame)
        _assert_same(expected, fitted, f"{partitions} partitions")


@pytest.mark.parametrize("centred", [True, False])
def test_the_statistics_are_bitwise_those_of_the_rows_in_memory(centred, data, frames):
    from skprivcov._data._statistics import (
        feature_counts,
        norm_profile,
        row_norm_counts,
        unit_ball_statistics,
    )
    from skprivcov._data._validation import check_public

    grid = np.geomspace(0.01, 100.0, 17)
    expected = (
        unit_ball_statistics(data, 1.5, with_mean=not centred),
        norm_profile(data, 1.5),
        row_norm_counts(data, grid),
        feature_counts(data, np.linspace(-3, 3, 13)),
    )
    for frame in frames.values():
        rows = check_public(GaussianCovariance(), frame, reset=True, accept_spark=True)
        got = (
            unit_ball_statistics(rows, 1.5, with_mean=not centred),
            norm_profile(rows, 1.5),
            row_norm_counts(rows, grid),
            feature_counts(rows, np.linspace(-3, 3, 13)),
        )
        moment, profile = got[0], got[1]
        np.testing.assert_array_equal(moment.second_moment, expected[0].second_moment)
        if not centred:
            np.testing.assert_array_equal(moment.mean, expected[0].mean)
        assert moment.trace == expected[0].trace
        _assert_same(tuple(expected[1]), tuple(profile), "norm profile")
        np.testing.assert_array_equal(expected[2], got[2])
        np.testing.assert_array_equal(expected[3], got[3])


# --------------------------------------------------------------------------------
# Input kinds: numeric columns of every type, a vector column, an array column.


def test_numeric_columns_of_every_type_are_read_as_float64(spark):
    from pyspark.sql.types import (
        BooleanType,
        ByteType,
        DecimalType,
        DoubleType,
        FloatType,
        IntegerType,
        LongType,
        ShortType,
        StructField,
        StructType,
    )

    rng = np.random.default_rng(1)
    n = 200
    values = {
        "flag": rng.random(n) < 0.5,
        "byte": rng.integers(-100, 100, n),
        "short": rng.integers(-3000, 3000, n),
        "int": rng.integers(-(2**30), 2**30, n),
        "long": rng.integers(-(2**62), 2**62, n),  # rounded to float64
        "float": rng.normal(size=n).astype(np.float32),
        "double": rng.normal(size=n),
        "decimal": np.round(rng.normal(size=n), 3),
    }
    types = [
        BooleanType(),
        ByteType(),
        ShortType(),
        IntegerType(),
        LongType(),
        FloatType(),
        DoubleType(),
        DecimalType(10, 3),
    ]
    schema = StructType(
        [StructField(name, t) for name, t in zip(values, types, strict=True)]
    )
    rows = [
        (
            bool(values["flag"][i]),
            int(values["byte"][i]),
            int(values["short"][i]),
            int(values["int"][i]),
            int(values["long"][i]),
            float(values["float"][i]),
            float(values["double"][i]),
            Decimal(f"{values['decimal'][i]:.3f}"),
        )
        for i in range(n)
    ]
    frame = spark.createDataFrame(rows, schema).repartition(3).cache()
    X = np.column_stack([np.asarray(v).astype(np.float64) for v in values.values()])
    est = GaussianCovariance(rho=1.0, norm_bound=1e19, random_state=0)
    fitted = clone(est).fit(frame)
    expected = clone(est).fit(X)
    np.testing.assert_array_equal(fitted.covariance_, expected.covariance_)
    np.testing.assert_array_equal(fitted.location_, expected.location_)
    assert list(fitted.feature_names_in_) == list(values)


def _vector_frame(spark, X, partitions, *, sizes=True):
    """X as one VectorUDT column, dense and sparse vectors mixed."""
    from pyspark.ml.linalg import Vectors, VectorUDT
    from pyspark.sql.types import StructField, StructType

    rows = []
    for i, row in enumerate(X):
        if i % 3 == 0:
            nonzero = np.flatnonzero(row)
            rows.append((Vectors.sparse(len(row), nonzero, row[nonzero]),))
        else:
            rows.append((Vectors.dense(row),))
    schema = StructType([StructField("features", VectorUDT())])
    frame = spark.createDataFrame(
        spark.sparkContext.parallelize(rows, partitions), schema
    )
    if sizes:
        from pyspark.ml.feature import VectorSizeHint

        frame = VectorSizeHint(
            inputCol="features", size=X.shape[1], handleInvalid="optimistic"
        ).transform(frame)
    return frame.cache()


@pytest.mark.parametrize("partitions", PARTITIONS)
def test_a_vector_column_gives_the_release_of_the_rows(spark, data, partitions):
    frame = _vector_frame(spark, data, partitions)
    for est in (
        GaussianCovariance(rho=1.0, random_state=0),
        AdaptiveCovariance(rho=1.0, random_state=0),
    ):
        fitted = clone(est).fit(frame)
        expected = clone(est).fit(data)
        np.testing.assert_array_equal(fitted.covariance_, expected.covariance_)
        np.testing.assert_array_equal(fitted.location_, expected.location_)
        assert not hasattr(fitted, "feature_names_in_")
        assert fitted.n_features_in_ == data.shape[1]


def test_an_array_column_with_a_declared_length_gives_the_release(spark, data):
    from pyspark.sql import functions as F

    frame = _frame(spark, data, 2)
    array = frame.select(F.array(*COLUMNS).alias("x")).withMetadata(
        "x", {"ml_attr": {"num_attrs": 4}}
    )
    est = GaussianCovariance(rho=1.0, random_state=0)
    np.testing.assert_array_equal(
        clone(est).fit(array).covariance_, clone(est).fit(data).covariance_
    )


def test_a_vector_length_is_never_read_from_a_row(spark, data):
    """Without a length in the schema the fit is refused before the charge,
    and it says how to declare one."""
    accountant = PrivacyAccountant(rho=10.0)
    frame = _vector_frame(spark, data, 2, sizes=False)
    with pytest.raises(ValueError, match="VectorSizeHint"):
        GaussianCovariance(accountant=accountant).fit(frame)
    assert accountant.history() == []


def test_rows_that_are_not_vectors_of_the_length_follow_the_nonfinite_rule(spark):
    """A null vector, a vector of another length and a sparse index out of
    range are rows that are not numbers: NaN rows for the ``nonfinite`` rule
    (refused after the charge, or rows of zeros), never a refusal of their
    own before it."""
    from pyspark.ml.linalg import Vectors, VectorUDT
    from pyspark.sql.types import StructField, StructType

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    rows = [(Vectors.dense(row),) for row in X]
    bad = {5: None, 17: Vectors.dense([1.0, 2.0]), 30: Vectors.sparse(4, [3], [9.0])}
    for i, vector in bad.items():
        rows[i] = (vector,)
    schema = StructType([StructField("v", VectorUDT())])
    frame = spark.createDataFrame(rows, schema).withMetadata(
        "v", {"ml_attr": {"num_attrs": 3}}
    )
    zeroed = X.copy()
    zeroed[list(bad)] = np.nan
    est = GaussianCovariance(rho=1.0, random_state=0, nonfinite="zero")
    np.testing.assert_array_equal(
        clone(est).fit(frame).covariance_, clone(est).fit(zeroed).covariance_
    )
    accountant = PrivacyAccountant(rho=10.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        clone(est).set_params(nonfinite="raise", accountant=accountant).fit(frame)
    assert len(accountant.history()) == 1


# --------------------------------------------------------------------------------
# Nulls, non-numeric columns, the ledger.


def _with_nulls(spark, data):
    rows = [tuple(float(v) for v in row) for row in data]
    rows[3] = (None, SECRET, 1.0, 2.0)
    rows[50] = (SECRET, None, None, 0.5)
    schema = ", ".join(f"{name} double" for name in COLUMNS)
    return spark.createDataFrame(rows, schema).repartition(2).cache()


def test_nulls_are_refused_after_the_charge_naming_no_value(spark, data):
    accountant = PrivacyAccountant(rho=10.0)
    est = GaussianCovariance(rho=1.0, accountant=accountant, nonfinite="raise")
    with pytest.raises(ValueError, match="NaN or infinity") as refused:
        est.fit(_with_nulls(spark, data))
    assert len(accountant.history()) == 1  # paid for: it read the values
    assert "123.45" not in str(refused.value)


def test_nulls_are_rows_of_zeros_with_nonfinite_zero(spark, data):
    frame = _with_nulls(spark, data)
    X = data.copy()
    X[3] = [np.nan, SECRET, 1.0, 2.0]
    X[50] = [SECRET, np.nan, np.nan, 0.5]
    for est in (
        GaussianCovariance(rho=1.0, random_state=0, nonfinite="zero"),
        AdaptiveCovariance(rho=1.0, random_state=0, nonfinite="zero"),
    ):
        np.testing.assert_array_equal(
            clone(est).fit(frame).covariance_, clone(est).fit(X).covariance_
        )


def test_a_non_numeric_column_is_refused_before_the_charge(spark):
    accountant = PrivacyAccountant(rho=10.0)
    frame = spark.createDataFrame(
        [(1.0, "x", 2.0), (3.0, "y", 4.0), (5.0, "z", 6.0)],
        "a double, s string, b double",
    )
    with pytest.raises(ValueError, match=r"'s'.*string"):
        GaussianCovariance(accountant=accountant).fit(frame)
    mixed = spark.createDataFrame([(1.0, [1.0, 2.0])], "a double, v array<double>")
    with pytest.raises(ValueError, match="exactly one vector column"):
        GaussianCovariance(accountant=accountant).fit(mixed)
    with pytest.raises(ValueError, match="1 sample"):
        GaussianCovariance(accountant=accountant).fit(frame.drop("s").limit(1))
    with pytest.raises(ValueError, match="1 feature"):
        GaussianCovariance(accountant=accountant).fit(frame.select("a"))
    assert accountant.history() == []


def test_the_file_ledger_is_charged_once_on_the_driver(frames, tmp_path):
    """A three-pass fit (a private bound, the norm profile, the Gram matrix:
    three Spark jobs) is one charge, recorded by the driver in the file."""
    path = tmp_path / "budget.sqlite"
    accountant = PrivacyAccountant(rho=2.0, path=path)
    est = AdaptiveCovariance(rho=0.5, accountant=accountant, random_state=0)
    est.fit(frames[7])
    history = PrivacyAccountant(path=path).history()
    assert len(history) == 1
    assert history[0].source == "AdaptiveCovariance"
    # An in-memory ledger works too: nothing of the estimator is shipped.
    memory = PrivacyAccountant(rho=1.0)
    clone(est).set_params(accountant=memory).fit(frames[2])
    assert len(memory.history()) == 1


# --------------------------------------------------------------------------------
# Errors name no value.


def test_a_failing_pass_in_a_worker_names_no_value(spark, frames):
    rows = check_spark_dataframe(
        frames[2], ensure_min_samples=1, ensure_min_features=1, owner="test"
    )

    def fails_on_a_value(block):
        raise ValueError(f"bad value {block[0, 0]!r} {SECRET}")

    with pytest.raises(RuntimeError, match="ValueError") as failed:
        reduce_partitions(rows, fails_on_a_value)
    message = str(failed.value)
    assert "123.45" not in message and "bad value" not in message
    assert failed.value.__context__ is None and failed.value.__cause__ is None


def test_a_failing_plan_names_no_value_and_is_paid_for(spark):
    """An ANSI cast that fails on a value quotes it in Spark's message; the
    fit reports the error's type only (the count before the charge does not
    read the column, so the failure comes in the first pass)."""
    from pyspark.sql import functions as F

    raw = spark.createDataFrame(
        [(str(v), float(v)) for v in range(20)] + [("secret-123.456", 1.0)],
        "s string, b double",
    )
    frame = raw.select(F.col("s").cast("double").alias("a"), "b")
    accountant = PrivacyAccountant(rho=10.0)
    with _ansi(spark):
        with pytest.raises(RuntimeError) as failed:
            GaussianCovariance(norm_bound=1.0, accountant=accountant).fit(frame)
    assert "secret" not in str(failed.value) and "123.456" not in str(failed.value)
    assert failed.value.__context__ is None
    assert len(accountant.history()) == 1


class _ansi:
    """spark.sql.ansi.enabled on for a block (the default since Spark 4)."""

    def __init__(self, spark):
        self._conf = spark.conf

    def __enter__(self):
        self._old = self._conf.get("spark.sql.ansi.enabled", None)
        self._conf.set("spark.sql.ansi.enabled", "true")

    def __exit__(self, *exc):
        if self._old is None:
            self._conf.unset("spark.sql.ansi.enabled")
        else:
            self._conf.set("spark.sql.ansi.enabled", self._old)


def test_every_row_is_read_once_and_the_count_is_checked(frames, data):
    rows = check_spark_dataframe(
        frames[7], ensure_min_samples=1, ensure_min_features=1, owner="test"
    )

    def counted(block):
        return (len(block), block.sum(axis=0))

    n, sums = reduce_partitions(rows, counted)
    assert n == len(data)
    np.testing.assert_allclose(sums, data.sum(axis=0))
    # A plan that gives other rows than were counted (say, an unseeded
    # sample) is refused: each sensitivity assumes the n counted rows.
    wrong = SparkRows(rows.frame, rows.kind, len(data) + 1, 4, rows.feature_names)
    with pytest.raises(RuntimeError, match="same rows at every read"):
        reduce_partitions(wrong, counted)


def test_the_arrow_batches_are_bounded_and_the_setting_restored(spark):
    from skprivcov._data import _spark as _spark

    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    wide = spark.range(50).selectExpr(
        *[f"cast(id * {j} as double) as c{j}" for j in range(40)]
    )
    rows = check_spark_dataframe(
        wide, ensure_min_samples=1, ensure_min_features=1, owner="test"
    )

    def largest(block):
        return (np.bincount([len(block)], minlength=51),)

    old = _spark._BLOCK_VALUES
    try:
        _spark._BLOCK_VALUES = 40 * 7  # 7 rows of 40 features per block
        (sizes,) = reduce_partitions(rows, largest)
    finally:
        _spark._BLOCK_VALUES = old
    assert np.flatnonzero(sizes).max() <= 7
    assert spark.conf.get(key, None) is None


# --------------------------------------------------------------------------------
# Refusals: before anything is charged, saying what to do.


def _with_accountant(estimator, accountant):
    """``estimator`` charging ``accountant``: its own, or its covariance
    estimator's (a default one when it has none)."""
    params = estimator.get_params(deep=False)
    if "accountant" in params:
        return estimator.set_params(accountant=accountant)
    if "estimator" in params:
        inner = params["estimator"]
        inner = GaussianCovariance() if inner is None else clone(inner)
        return estimator.set_params(estimator=inner.set_params(accountant=accountant))
    return estimator


@pytest.mark.parametrize(
    "estimator", [est for _, est in REFUSED], ids=[name for name, _ in REFUSED]
)
def test_fits_that_read_rows_refuse_spark_before_the_charge(estimator, data, frames):
    accountant = PrivacyAccountant(rho=100.0)
    est = _with_accountant(clone(estimator), accountant)
    args = (np.arange(len(data)) % 2,) if _needs_target(est) else ()
    with pytest.raises(TypeError, match="does not take a Spark DataFrame") as refused:
        est.fit(frames[2], *args)
    assert "toPandas" in str(refused.value)
    assert accountant.history() == []


ROW_METHODS = (
    "transform",
    "predict",
    "score",
    "score_samples",
    "decision_function",
    "mahalanobis",
)


@pytest.mark.parametrize(
    "estimator", [est for _, est in ACCEPTED], ids=[name for name, _ in ACCEPTED]
)
def test_methods_that_read_rows_refuse_spark(estimator, data, frames):
    """predict, score, transform and friends on a Spark DataFrame are refused;
    fit_transform and fit_predict before their fit charges anything."""
    accountant = PrivacyAccountant(rho=100.0)
    est = _with_accountant(_seeded(estimator, 0), accountant)
    est.fit(data)
    spent = len(accountant.history())
    for method in ROW_METHODS:
        if hasattr(est, method):
            with pytest.raises(TypeError, match="Spark DataFrame"):
                getattr(est, method)(frames[2])
    for method in ("fit_transform", "fit_predict"):
        if hasattr(est, method):
            with pytest.raises(TypeError, match="Spark DataFrame"):
                getattr(clone(est), method)(frames[2])
    assert len(accountant.history()) == spent


def test_the_searches_refuse_spark_before_any_fit(frames):
    from skprivcov import model_selection

    accountant = PrivacyAccountant(rho=100.0)
    estimator = GaussianCovariance(rho=0.1, accountant=accountant)
    grid = {"norm_bound": [1.0, 2.0]}
    searches = {
        "GridSearchCV": lambda X: model_selection.GridSearchCV(
            estimator, grid, cv=2
        ).fit(X),
        "RandomizedSearchCV": lambda X: model_selection.RandomizedSearchCV(
            estimator, grid, n_iter=2, cv=2, random_state=0
        ).fit(X),
        "cross_validate": lambda X: model_selection.cross_validate(estimator, X, cv=2),
        "PrivateRandomSearch": lambda X: model_selection.PrivateRandomSearch(
            GaussianCovariance(rho=0.1), grid, accountant=accountant, random_state=0
        ).fit(X),
    }
    for name, search in searches.items():
        with pytest.raises(TypeError, match="does not take a Spark DataFrame"):
            search(frames[2])
            pytest.fail(f"{name} took a Spark DataFrame")
    assert accountant.history() == []


def test_a_model_checks_its_parameters_against_the_schema_before_the_charge(frames):
    from skprivcov import CoinPressCovariance
    from skprivcov.decomposition import PrivatePCA

    accountant = PrivacyAccountant(rho=10.0)
    too_many = PrivatePCA(
        n_components=5, estimator=GaussianCovariance(accountant=accountant)
    )
    with pytest.raises(ValueError, match="n_components=5"):
        too_many.fit(frames[2])
    coinpress = PrivatePCA(estimator=CoinPressCovariance(accountant=accountant))
    with pytest.raises(TypeError, match="CoinPressCovariance does not take a Spark"):
        coinpress.fit(frames[2])
    assert accountant.history() == []


def test_a_release_given_takes_the_schema_of_a_spark_dataframe(frames, data):
    from skprivcov.decomposition import PrivatePCA

    release = GaussianCovariance(rho=1.0, random_state=0).fit(data)
    pca = PrivatePCA(covariance=release).fit(frames[2])
    assert list(pca.feature_names_in_) == COLUMNS
    assert pca.privacy_spent_ == PrivacyCost.zero()


# --------------------------------------------------------------------------------
# Detection without importing pyspark.


def test_detection_does_not_import_pyspark():
    code = textwrap.dedent(
        """
        import sys
        import numpy as np
        from skprivcov import GaussianCovariance
        from skprivcov._data._spark import is_spark_dataframe, is_spark_rows
        assert not is_spark_dataframe(np.ones((3, 2)))
        assert not is_spark_rows(np.ones((3, 2)))
        GaussianCovariance(norm_bound=1.0, random_state=0).fit(np.eye(3))
        assert "pyspark" not in sys.modules, "pyspark was imported"
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_validated_rows_are_public_facts_only(frames):
    rows = check_spark_dataframe(
        frames[2], ensure_min_samples=1, ensure_min_features=1, owner="test"
    )
    assert is_spark_dataframe(frames[2]) and not is_spark_dataframe(rows)
    assert is_spark_rows(rows)
    assert rows.shape == (300, 4) and rows.ndim == 2 and rows.dtype == np.float64
    assert list(rows.feature_names) == COLUMNS


# --------------------------------------------------------------------------------
# docs/clusters.rst: its recipes run as written.


def _recipes():
    """The ``.. code-block:: python`` blocks of docs/clusters.rst that are
    scripts (no ``>>>``; the doctests run with the docs' doctests)."""
    text = (ROOT / "docs" / "clusters.rst").read_text(encoding="utf-8")
    blocks = re.findall(
        r"^\.\. code-block:: python\n((?:\n|[ \t]+.*\n)+)", text, flags=re.M
    )
    return [textwrap.dedent(block) for block in blocks if ">>>" not in block]


def test_the_clusters_page_has_its_recipes():
    recipes = _recipes()
    assert len(recipes) == 2
    assert any("SparkSession" in code for code in recipes)
    assert any("LocalCluster" in code for code in recipes)


@pytest.mark.parametrize("engine", ["dask.distributed", "spark"])
def test_the_clusters_page_recipes_run_as_written(engine, tmp_path):
    """Each recipe in a fresh interpreter, as a user runs it (its own
    SparkSession or LocalCluster)."""
    marker = "LocalCluster" if engine == "dask.distributed" else "SparkSession"
    (code,) = [code for code in _recipes() if marker in code]
    script = tmp_path / "recipe.py"
    script.write_text(code, encoding="utf-8")
    # This interpreter for the workers, unless the user chose one.
    python = {name: sys.executable for name in SPARK_PYTHON}
    env = {**python, **os.environ}
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    # Each recipe ends by comparing its release with the rows' in memory.
    assert result.stdout.split()[-1] == "True", result.stdout
