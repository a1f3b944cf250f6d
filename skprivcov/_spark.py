"""pyspark.sql.DataFrame input (placeholder: being built, docs/algorithms.rst §20)."""

__all__ = ["is_spark_rows", "reduce_partitions"]


def is_spark_rows(X):
    """Whether X is validated Spark input."""
    return False


def reduce_partitions(X, function, *args):
    raise NotImplementedError
