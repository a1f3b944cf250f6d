"""CoinPress against the fixed-bound mechanisms at their best oracle bound.

Gaussian data N(μ, Σ), d = 10, n = 20 000, with ‖μ‖ ∈ {0, 1e4} (a random
direction) and condition number κ ∈ {1, 1e3} (eigenvalues log-spaced from 1
to κ, random eigenvectors), at ρ ∈ {0.1, 1}. Errors in the metric of Σ:

* covariance: the Mahalanobis error ‖Σ^{−1/2} Σ̂ Σ^{−1/2} − I‖_F;
* mean: ‖Σ^{−1/2}(μ̂ − μ)‖₂.

Estimators (all ``assume_centered=False``, the same total budget):

* ``CoinPressCovariance(rho=ρ)`` with no bound given (its private scales);
* GaussianCovariance, AdaptiveCovariance and AutoCovariance, each at the best
  of 9 bounds read from the data (an oracle: the quantiles 50%, 90%, 99% and
  the maximum of the row norms, times 1, 1.5 and 2: the first 9 distinct,
  ``_oracle_bounds``), the best chosen per cell on the median error;
* the non-private sample mean and covariance, for reference.

The outlier detector of issue 33 (part 4) on breast cancer is
benchmarks/bench_envelope_auc.py.

Prints medians over repetitions. Run:
``python benchmarks/bench_coinpress.py [--reps 5]``.
"""

import argparse

import numpy as np
from sklearn.covariance import EmpiricalCovariance

from skprivcov import (
    AdaptiveCovariance,
    AutoCovariance,
    CoinPressCovariance,
    GaussianCovariance,
)

D, N = 10, 20_000
MEAN_NORMS = (0.0, 1e4)
CONDITIONS = (1.0, 1e3)
RHOS = (0.1, 1.0)
FIXED = {
    "Gaussian": GaussianCovariance,
    "Adaptive": AdaptiveCovariance,
    "Auto": AutoCovariance,
}


def gaussian_problem(seed, mean_norm, condition, d=D, n=N):
    """(X, μ, Σ) for one repetition."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.normal(size=(d, d)))
    values = np.logspace(0.0, np.log10(condition), d)
    sigma = (basis * values) @ basis.T
    direction = rng.normal(size=d)
    mu = mean_norm * direction / np.linalg.norm(direction)
    X = rng.multivariate_normal(mu, sigma, size=n)
    return X, mu, sigma


def errors(sigma, mu, covariance, location):
    """(Mahalanobis error of the covariance, of the mean)."""
    values, vectors = np.linalg.eigh(sigma)
    root = (vectors / np.sqrt(values)) @ vectors.T
    d = sigma.shape[0]
    cov_error = np.linalg.norm(root @ covariance @ root - np.eye(d))
    return float(cov_error), float(np.linalg.norm(root @ (location - mu)))


def _oracle_bounds(X):
    norms = np.linalg.norm(X, axis=1)
    quantiles = np.quantile(norms, [0.5, 0.9, 0.99])
    base = np.append(quantiles, norms.max())
    return np.unique(np.outer(base, [1.0, 1.5, 2.0]).ravel())[:9]


def gaussian_table(reps):
    rows = []
    for mean_norm in MEAN_NORMS:
        for condition in CONDITIONS:
            problems = [
                gaussian_problem(seed, mean_norm, condition) for seed in range(reps)
            ]
            for rho in RHOS:
                row = {"‖μ‖": mean_norm, "κ": condition, "ρ": rho}
                found = []
                for seed, (X, mu, sigma) in enumerate(problems):
                    est = CoinPressCovariance(
                        rho=rho, assume_centered=False, random_state=seed
                    ).fit(X)
                    found.append(errors(sigma, mu, est.covariance_, est.location_))
                row["CoinPress"] = np.median(found, axis=0)
                for name, cls in FIXED.items():
                    best = None
                    for bound in _oracle_bounds(problems[0][0]):
                        found = []
                        for seed, (X, mu, sigma) in enumerate(problems):
                            est = cls(
                                rho=rho,
                                norm_bound=float(bound),
                                assume_centered=False,
                                random_state=seed,
                            ).fit(X)
                            found.append(
                                errors(sigma, mu, est.covariance_, est.location_)
                            )
                        median = np.median(found, axis=0)
                        if best is None or median[0] < best[0]:
                            best = median
                    row[name] = best
                found = []
                for X, mu, sigma in problems:
                    ref = EmpiricalCovariance().fit(X)
                    found.append(errors(sigma, mu, ref.covariance_, ref.location_))
                row["non-private"] = np.median(found, axis=0)
                rows.append(row)
                print(_format(row), flush=True)
    return rows


def _format(row):
    head = f"‖μ‖={row['‖μ‖']:<7g} κ={row['κ']:<6g} ρ={row['ρ']:<4g}"
    cells = [
        f"{name} {row[name][0]:.3g}/{row[name][1]:.2g}"
        for name in ("CoinPress", *FIXED, "non-private")
    ]
    return head + " | " + " | ".join(cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    print(
        f"d={D} n={N}: median Mahalanobis error covariance/mean over {args.reps} "
        "repetitions (fixed-bound mechanisms at their best of 9 oracle bounds)"
    )
    gaussian_table(args.reps)


if __name__ == "__main__":
    main()
