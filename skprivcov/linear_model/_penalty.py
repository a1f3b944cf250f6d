"""The ridge penalty set from the privacy level (docs/algorithms.rst §16).

AdaSSP (Wang 2018) adds to XᵀX a penalty λ of the order of the spectral norm of
the noise that makes it private, so that the noisy Gram matrix stays well
conditioned and the model does not fit the noise. Per row, with the objective
of docs/algorithms.rst §8.1 ((1/n) Σ ½(wᵀx − y)² + α‖w‖², normal equations
(S + 2αI)w = s), that is 2α = c·ℓ, ℓ the public noise level of the released
feature block (``mechanisms.noise_level`` times the squared bound of the
release: the ``eigenvalue_floor_`` of the estimator that made it, which is
capped at the mean eigenvalue of the bound). No private statistic is spent:
AdaSSP's private λ_min term only lowers the penalty for data that are already
well conditioned, and on the bundled data the public rule measured as well.
"""

__all__ = ["PENALTY_FACTOR", "alpha_from_noise"]

# c, measured on diabetes (benchmarks/bench_ridge_alpha.py).
PENALTY_FACTOR = 0.5


def alpha_from_noise(noise_level):
    """α = c·ℓ/2 for the noise level ℓ of the feature block, in its units."""
    return PENALTY_FACTOR * float(noise_level) / 2.0
