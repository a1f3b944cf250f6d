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
from skprivcov.mechanisms._bingham import (
    bingham_envelope,
    high_concentration_trials,
    sample_bingham,
)
from skprivcov.mechanisms._coinpress import CoinPressPasses, coinpress
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
from skprivcov.mechanisms._discrete import discrete_gaussian, discrete_laplace
from skprivcov.mechanisms._eigen import (
    eigh_descending,
    eigvalsh_descending,
    from_eigenpairs,
)
from skprivcov.mechanisms._hardened import (
    eigenvalue_error_bound,
    gram_error_bound,
    hardened_noise,
    is_hardened,
    noise_plan,
)
from skprivcov.mechanisms._iterative import (
    draw_epsilons,
    iterative_eigen_covariance,
    sample_top_eigenvector,
)
from skprivcov.mechanisms._noise import additive_noise, symmetric_noise
from skprivcov.mechanisms._noise_level import noise_level
from skprivcov.mechanisms._noise_source import (
    exact_noise_law,
    noisy_second_moment,
    noisy_vector,
    plain_scale,
)
from skprivcov.mechanisms._nuclear import (
    NoiseDiagnostics,
    equilibrium_start,
    haar_orthogonal,
    nuclear_chain_diagnostics,
    nuclear_laplace_noise,
    sample_normalised_spectrum,
)
from skprivcov.mechanisms._projections import (
    project_capped_simplex,
    project_l1_ball,
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
from skprivcov.mechanisms._radius import private_radius_exponent
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
    noisy_inner_product,
    private_shrinkage,
    shrinkage_factor,
    shrinkage_from,
    shrinkage_scale,
    spectral_spread,
)
from skprivcov.mechanisms._splits import SPLITS, split_budget
from skprivcov.mechanisms._svt import above_threshold
from skprivcov.mechanisms._trace import private_trace_upper_bound

__all__ = [
    "FIXED_BOUND_QUANTILE",
    "NOISY_AT",
    "NORM_RANGE",
    "SPLITS",
    "AdaptivePlan",
    "CoinPressPasses",
    "NoiseDiagnostics",
    "above_threshold",
    "adaptive_covariance",
    "adaptive_plan",
    "adaptive_release",
    "additive_noise",
    "bingham_envelope",
    "class_counts_sensitivity",
    "class_squares_sensitivity",
    "class_sums_sensitivity",
    "coinpress",
    "discrete_gaussian",
    "discrete_laplace",
    "draw_epsilons",
    "eigenvalue_error_bound",
    "eigenvalue_noise_scale",
    "eigenvalues_l1_sensitivity",
    "eigenvalues_l2_sensitivity",
    "eigh_descending",
    "eigvalsh_descending",
    "equilibrium_start",
    "exact_noise_law",
    "from_eigenpairs",
    "gaussian_covariance",
    "gaussian_scale",
    "gram_error_bound",
    "haar_orthogonal",
    "hardened_noise",
    "high_concentration_trials",
    "is_hardened",
    "iterative_eigen_covariance",
    "laplace_covariance",
    "laplace_scale",
    "noise_level",
    "noise_plan",
    "noisy_covariance",
    "noisy_eigenvalues",
    "noisy_inner_product",
    "noisy_second_moment",
    "noisy_vector",
    "norm_grid",
    "nuclear_chain_diagnostics",
    "nuclear_laplace_covariance",
    "nuclear_laplace_noise",
    "per_class_sums_l1_sensitivity",
    "plain_scale",
    "private_box",
    "private_norm_bound",
    "private_quantile",
    "private_radius_exponent",
    "private_shrinkage",
    "private_trace_upper_bound",
    "project_capped_simplex",
    "project_l1_ball",
    "project_nuclear_ball",
    "project_psd",
    "project_psd_trace_ball",
    "projection_covariance",
    "quantile_epsilon",
    "quantile_rank_error",
    "radius_step_runs",
    "sample_bingham",
    "sample_normalised_spectrum",
    "sample_top_eigenvector",
    "second_moment_l1_sensitivity",
    "second_moment_l2_sensitivity",
    "second_moment_nuclear_sensitivity",
    "separate_covariance",
    "shrinkage_factor",
    "shrinkage_from",
    "shrinkage_scale",
    "signed_grid",
    "spectral_spread",
    "split_budget",
    "symmetric_noise",
    "trace_sensitivity",
]
