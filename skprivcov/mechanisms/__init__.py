"""Mechanisms: pure functions on sufficient statistics; the rng is passed in.

Nothing here knows about scikit-learn or reads raw data. See docs/algorithms.rst for
the specification each function cites.
"""

from skprivcov.mechanisms._adaptive import (
    AdaptivePlan,
    adaptive_covariance,
    adaptive_plan,
    adaptive_release,
    radius_step_runs,
)
from skprivcov.mechanisms._bingham import bingham_envelope, sample_bingham
from skprivcov.mechanisms._coinpress import (
    CoinPressPasses,
    coinpress,
)
from skprivcov.mechanisms._covariance import (
    eigenvalue_noise_scale,
    gaussian_covariance,
    laplace_covariance,
    noisy_covariance,
    noisy_eigenvalues,
    nuclear_laplace_covariance,
    projection_covariance,
    separate_covariance,
)
from skprivcov.mechanisms._eigen import (
    eigh_descending,
)
from skprivcov.mechanisms._feature_scaling import (
    FeatureScaling,
    cell_edges,
    private_feature_scaling,
)
from skprivcov.mechanisms._iterative import (
    iterative_eigen_covariance,
)
from skprivcov.mechanisms._nuclear import NoiseDiagnostics, nuclear_chain_diagnostics
from skprivcov.mechanisms._projections import (
    project_nuclear_ball,
    project_psd,
    project_psd_trace_ball,
)
from skprivcov.mechanisms._quantile import (
    FIXED_BOUND_QUANTILE,
    NOISY_AT,
    NORM_RANGE,
    norm_grid,
    private_box,
    private_norm_bound,
    private_quantile,
    quantile_epsilon,
    quantile_rank_error,
    signed_grid,
)
from skprivcov.mechanisms._selection import (
    draw_runs,
    runs_pmf,
    selection_cost,
    stopping_law,
)
from skprivcov.mechanisms._sensitivity import (
    class_counts_sensitivity,
    class_squares_sensitivity,
    class_sums_sensitivity,
    eigenvalues_l1_sensitivity,
    eigenvalues_l2_sensitivity,
    gaussian_scale,
    laplace_scale,
    per_class_sums_l1_sensitivity,
    second_moment_l1_sensitivity,
    second_moment_l2_sensitivity,
    second_moment_nuclear_sensitivity,
    trace_sensitivity,
)
from skprivcov.mechanisms._shrinkage import (
    private_shrinkage,
)
from skprivcov.mechanisms._splits import (
    SPLITS,
    scaling_steps,
    split_budget,
)
from skprivcov.mechanisms._trace import (
    private_trace_upper_bound,
)
from skprivcov.mechanisms.noise._hardened import (
    eigenvalue_error_bound,
)
from skprivcov.mechanisms.noise._level import (
    noise_level,
)

__all__ = [
    "FIXED_BOUND_QUANTILE",
    "NOISY_AT",
    "NORM_RANGE",
    "SPLITS",
    "AdaptivePlan",
    "CoinPressPasses",
    "FeatureScaling",
    "NoiseDiagnostics",
    "adaptive_covariance",
    "adaptive_plan",
    "adaptive_release",
    "bingham_envelope",
    "cell_edges",
    "class_counts_sensitivity",
    "class_squares_sensitivity",
    "class_sums_sensitivity",
    "coinpress",
    "draw_runs",
    "eigenvalue_error_bound",
    "eigenvalue_noise_scale",
    "eigenvalues_l1_sensitivity",
    "eigenvalues_l2_sensitivity",
    "eigh_descending",
    "gaussian_covariance",
    "gaussian_scale",
    "iterative_eigen_covariance",
    "laplace_covariance",
    "laplace_scale",
    "noise_level",
    "noisy_covariance",
    "noisy_eigenvalues",
    "norm_grid",
    "nuclear_chain_diagnostics",
    "nuclear_laplace_covariance",
    "per_class_sums_l1_sensitivity",
    "private_box",
    "private_feature_scaling",
    "private_norm_bound",
    "private_quantile",
    "private_shrinkage",
    "private_trace_upper_bound",
    "project_nuclear_ball",
    "project_psd",
    "project_psd_trace_ball",
    "projection_covariance",
    "quantile_epsilon",
    "quantile_rank_error",
    "radius_step_runs",
    "runs_pmf",
    "sample_bingham",
    "scaling_steps",
    "second_moment_l1_sensitivity",
    "second_moment_l2_sensitivity",
    "second_moment_nuclear_sensitivity",
    "selection_cost",
    "separate_covariance",
    "signed_grid",
    "split_budget",
    "stopping_law",
    "trace_sensitivity",
]
