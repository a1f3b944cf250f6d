"""A short demonstration on a dataset bundled with scikit-learn (no download)."""

import numpy as np
from sklearn.datasets import load_digits

from skprivcov.covariance import (
    GaussianCovariance,
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)

__all__ = ["run_demo"]

# load_digits: 8×8 images with pixel values in 0..16, a range published with the
# dataset. A row therefore has norm at most 16·8 = 128; a data curator who accepts
# clipping the rare brightest images may choose a smaller bound. Both are public
# choices, not read from the data.
_NORM_BOUND = 80.0
_RHOS = (0.1, 1.0, 10.0)


def _estimators(rho, seed):
    """One estimator per mechanism at a common zCDP footing (pure ε = √(2ρ))."""
    common = {"norm_bound": _NORM_BOUND, "assume_centered": False, "random_state": seed}
    epsilon = float(np.sqrt(2.0 * rho))
    return {
        "GaussianCovariance": GaussianCovariance(rho=rho, **common),
        "SeparateCovariance": SeparateCovariance(rho=rho, **common),
        "ProjectionCovariance": ProjectionCovariance(rho=rho, **common),
        "LaplaceCovariance (ε=√2ρ)": LaplaceCovariance(epsilon=epsilon, **common),
        "SeparateCovariance (ε=√2ρ)": SeparateCovariance(epsilon=epsilon, **common),
        "IterativeEigenCovariance (ε=√2ρ)": IterativeEigenCovariance(
            epsilon=epsilon, **common
        ),
        "NuclearLaplaceCovariance (ε=√2ρ)": NuclearLaplaceCovariance(
            epsilon=epsilon, **common
        ),
        "ZeroCovariance": ZeroCovariance(assume_centered=False),
    }


def run_demo(print_fn=print, n_repeats=5):
    """Print the relative Frobenius error of every mechanism against ρ.

    The reference is the non-private covariance of the clipped rows; the error
    is averaged over ``n_repeats`` seeds.
    """
    X = load_digits().data
    norms = np.linalg.norm(X, axis=1)
    clipped = X * np.minimum(1.0, _NORM_BOUND / norms)[:, None]
    reference = np.cov(clipped, rowvar=False, bias=True)
    scale = np.linalg.norm(reference)
    print_fn(
        f"load_digits: n={X.shape[0]}, d={X.shape[1]}, public norm bound "
        f"{_NORM_BOUND:g}; relative Frobenius error of the centred covariance "
        f"(mean of {n_repeats} seeds)"
    )
    header = f"{'estimator':<34}" + "".join(f"{f'rho={rho:g}':>12}" for rho in _RHOS)
    print_fn(header)
    rows = {}
    for rho in _RHOS:
        for seed in range(n_repeats):
            for name, estimator in _estimators(rho, seed).items():
                error = np.linalg.norm(estimator.fit(X).covariance_ - reference)
                rows.setdefault(name, {}).setdefault(rho, []).append(error / scale)
    for name, errors in rows.items():
        print_fn(
            f"{name:<34}" + "".join(f"{np.mean(errors[rho]):>12.3f}" for rho in _RHOS)
        )
    return rows
