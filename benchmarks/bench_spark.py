"""GaussianCovariance on a Spark DataFrame against the same rows in memory.

The DataFrame (``--n`` rows of ``--d`` uniform columns, ``spark.range`` and
seeded ``rand`` columns in ``--partitions`` partitions) is generated in Spark
on ``local[2]``, cached and counted; then it is collected into a C-ordered
float64 array. Each fit is timed on both (the fastest of ``--repeats``):

* ``public bound``: ``norm_bound=1.0``, one statistics pass (one Spark job,
  plus the count of the public checks, a cached DataFrame's);
* ``private bound``: the default ``norm_bound="auto"``, two passes (the
  row-norm counts of the private bound, then the Gram matrix).

It prints the throughput of each fit (rows/s), the ratio of the Spark fit's
time to the numpy fit's, and whether the two releases are bitwise equal (the
exact statistics of docs/algorithms.rst §19 make them so). The floor of a pass
is printed first: a ``mapInArrow`` job that only counts the rows of its Arrow
batches, i.e. Spark's cost of handing the rows to Python.

    python benchmarks/bench_spark.py [--n 1000000] [--d 50] [--partitions 4]
        [--repeats 3]
"""

import argparse
import sys
import time

import numpy as np

from skprivcov import GaussianCovariance


def _session():
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("skprivcov-bench-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.pyspark.python", sys.executable)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _frame(spark, n, d, partitions):
    from pyspark.sql import functions as F

    columns = [(F.rand(seed=j) - 0.5).alias(f"x{j}") for j in range(d)]
    frame = spark.range(n, numPartitions=partitions).select(*columns).cache()
    frame.count()  # materialised in the cache before any timing
    return frame


def _collected(frame):
    """The rows of ``frame`` in its order, as a C-ordered float64 array."""
    table = frame.toArrow()
    return np.column_stack([column.to_numpy() for column in table.columns]).astype(
        np.float64, order="C"
    )


def _arrow_floor(frame):
    """A pass that reads every Arrow batch and does nothing with it."""
    import pyarrow as pa

    def count(batches):
        rows = sum(batch.num_rows for batch in batches)
        yield pa.RecordBatch.from_pydict({"rows": [rows]})

    return frame.mapInArrow(count, "rows long").collect()


def _best(function, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    spark = _session()
    start = time.perf_counter()
    frame = _frame(spark, args.n, args.d, args.partitions)
    generated = time.perf_counter() - start
    start = time.perf_counter()
    X = _collected(frame)
    collected = time.perf_counter() - start
    print(
        f"n = {args.n}, d = {args.d}, {args.partitions} partitions on local[2]: "
        f"generated and cached in {generated:.1f} s, collected in {collected:.1f} s"
    )
    print(
        f"{'fit':<15} {'Spark s':>8} {'rows/s':>11} {'numpy s':>8} {'rows/s':>11} "
        f"{'ratio':>6}  bitwise"
    )
    floor, _ = _best(lambda: _arrow_floor(frame), args.repeats)
    print(f"{'Arrow pass':<15} {floor:8.2f} {args.n / floor:11.3g}")
    for label, bound in (("public bound", 1.0), ("private bound", "auto")):
        estimator = GaussianCovariance(rho=1.0, norm_bound=bound, random_state=0)
        on_spark, from_spark = _best(lambda e=estimator: e.fit(frame), args.repeats)
        from_spark = from_spark.covariance_.copy()
        in_memory, from_numpy = _best(lambda e=estimator: e.fit(X), args.repeats)
        same = np.array_equal(from_spark, from_numpy.covariance_)
        print(
            f"{label:<15} {on_spark:8.2f} {args.n / on_spark:11.3g} "
            f"{in_memory:8.2f} {args.n / in_memory:11.3g} "
            f"{on_spark / in_memory:6.2f}  {same}"
        )
    spark.stop()


if __name__ == "__main__":
    main()
