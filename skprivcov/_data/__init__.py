"""The training rows: data engines, exact statistics and the public checks of
containers (docs/algorithms.rst §13, §19–20). The only code that reads the
values of X.
"""

from skprivcov._data._augmented import (
    CONSTANT_SQUARE,
    CONSTANT_WEIGHT,
    FEATURE_SQUARE,
    FEATURE_WEIGHT,
    augment,
    center,
)
from skprivcov._data._class_statistics import (
    class_grams,
    class_sums_squares,
    exact_mean,
)
from skprivcov._data._dask import (
    compute_array,
    is_dask_array,
)
from skprivcov._data._exact import (
    FRACTION_BITS,
    ExactStatistic,
    ExactTotal,
)
from skprivcov._data._normalised import Z_LIMIT, NormalisedRows
from skprivcov._data._row_norms import (
    canonical_sparse,
    row_norms,
    unit_ball_factors,
)
from skprivcov._data._spark import (
    check_spark_dataframe,
    is_spark_dataframe,
    spark_refusal,
)
from skprivcov._data._statistics import (
    NONFINITE_RULES,
    UNIT_BITS,
    NormProfile,
    SufficientStatistics,
    box_means,
    feature_cells,
    feature_counts,
    floored_unit_sum,
    norm_profile,
    refuse_nonfinite,
    row_norm_counts,
    unit_ball_statistics,
)
from skprivcov._data._symmetric import (
    mirror_upper,
    row_blocks,
    symmetrize,
)
from skprivcov._data._validation import (
    as_numeric,
    check_input,
    check_per_row,
    check_public,
    check_target,
    check_training_rows,
)

__all__ = [
    "CONSTANT_SQUARE",
    "CONSTANT_WEIGHT",
    "FEATURE_SQUARE",
    "FEATURE_WEIGHT",
    "FRACTION_BITS",
    "NONFINITE_RULES",
    "UNIT_BITS",
    "Z_LIMIT",
    "ExactStatistic",
    "ExactTotal",
    "NormProfile",
    "NormalisedRows",
    "SufficientStatistics",
    "as_numeric",
    "augment",
    "box_means",
    "canonical_sparse",
    "center",
    "check_input",
    "check_per_row",
    "check_public",
    "check_spark_dataframe",
    "check_target",
    "check_training_rows",
    "class_grams",
    "class_sums_squares",
    "compute_array",
    "exact_mean",
    "feature_cells",
    "feature_counts",
    "floored_unit_sum",
    "is_dask_array",
    "is_spark_dataframe",
    "mirror_upper",
    "norm_profile",
    "refuse_nonfinite",
    "row_blocks",
    "row_norm_counts",
    "row_norms",
    "spark_refusal",
    "symmetrize",
    "unit_ball_factors",
    "unit_ball_statistics",
]
