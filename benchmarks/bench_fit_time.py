"""Fit time of every estimator divided by the non-private floor.

The floor is the work any exact method must do: the Gram matrix XᵀX, plus the
eigendecompositions the mechanism needs (eigenvalues of Σ and a full
eigendecomposition of the noisy matrix for SeparateCovariance, one full
eigendecomposition for ProjectionCovariance; for AdaptiveCovariance, those of the
final mechanism it chose). Times are the best of --repeats runs; the Gram
matrix is timed again before every fit and the floor uses the fastest of all.
PRODUCT.md §2.2 sets the goal ratio ≤ 1.3 at n = 1e5, d = 1000.

The floor's Gram matrix is one symmetric rank-k update (dsyrk) through SciPy's
BLAS, the library the estimators use: NumPy and SciPy each ship an OpenBLAS, and
alternating between the two makes their threads contend, which would blur the
comparison on a small machine.

    python benchmarks/bench_fit_time.py [--n 100000] [--d 1000] [--repeats 5]
        [--dtype float32] [--only Gaussian Separate Projection]

``--only`` keeps the estimators whose name contains one of the words (d = 4000
at n = 20000 for GaussCov, SeparateCov and ProjectionCov is the large case of
PRODUCT.md §2.2).
"""

import argparse
import time

import numpy as np
from scipy.linalg import blas

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov.mechanisms import eigh_descending, eigvalsh_descending


def best_time(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()

    def wanted(name):
        return args.only is None or any(word in name for word in args.only)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.n, args.d))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None] * 1.1
    X = X.astype(args.dtype, copy=False)
    print(f"n={args.n}, d={args.d}, {args.dtype}, best of {args.repeats}", flush=True)

    # The floor's Gram matrix is in float64, as the estimators' (float32 input
    # is converted chunk by chunk; ssyrk would lose precision over n rows).
    X64 = X.astype(np.float64, copy=False)
    gram = best_time(lambda: blas.dsyrk(1.0, X64.T), args.repeats)
    second_moment = X64.T @ X64 / args.n
    eigvals = best_time(lambda: eigvalsh_descending(second_moment), args.repeats)
    eigh = best_time(lambda: eigh_descending(second_moment), args.repeats)
    print(
        f"floor parts: Gram {gram:.3f}s, eigenvalues {eigvals:.3f}s, "
        f"eigendecomposition {eigh:.3f}s"
    )

    cases = [
        ("GaussianCovariance", GaussianCovariance(rho=0.1), 0.0),
        ("LaplaceCovariance", LaplaceCovariance(epsilon=1.0), 0.0),
        (
            "SeparateCovariance (zCDP)",
            SeparateCovariance(rho=0.1),
            eigvals + eigh,
        ),
        (
            "SeparateCovariance (pure)",
            SeparateCovariance(epsilon=1.0),
            eigvals + eigh,
        ),
        ("ProjectionCovariance", ProjectionCovariance(rho=0.1), eigh),
        (
            "ProjectionCovariance (trace)",
            ProjectionCovariance(rho=0.1, trace_fraction=0.125),
            eigh,
        ),
        (
            "GaussianCovariance (centred)",
            GaussianCovariance(rho=0.1, assume_centered=False),
            0.0,
        ),
    ]
    # AdaptiveCov's floor: the Gram matrix and the eigendecompositions of the
    # mechanism it chose: the separate one's, or the one of the projection that
    # follows the Gaussian one.
    adaptive_floor = {"separate": eigvals + eigh, "gaussian": eigh}
    for radius in ("private", "norm_bound"):
        if not wanted("AdaptiveCovariance"):
            break
        estimator = AdaptiveCovariance(rho=0.1, radius=radius, random_state=0)
        mechanism = estimator.fit(X).mechanism_
        name = f"AdaptiveCovariance ({radius}, {mechanism})"
        cases.append((name, estimator, adaptive_floor[mechanism]))
    cases = [case for case in cases if wanted(case[0])]
    fits = {}
    for name, estimator, _ in cases:
        estimator.set_params(random_state=0)
        # The Gram matrix is timed again before every fit: the floor uses the
        # fastest of all its timings, so a slow moment of the machine cannot
        # flatter a ratio.
        times = []
        for _ in range(args.repeats):
            gram = min(gram, best_time(lambda: blas.dsyrk(1.0, X64.T), 1))
            times.append(best_time(lambda est=estimator: est.fit(X), 1))
        fits[name] = min(times)
        print(f"  {name}: {fits[name]:.3f}s", flush=True)
    print(f"fastest Gram matrix of the run: {gram:.3f}s")
    print(f"{'estimator':<40}{'fit [s]':>10}{'floor [s]':>11}{'ratio':>8}")
    for name, _, eigen_floor in cases:
        fit, floor = fits[name], gram + eigen_floor
        print(f"{name:<40}{fit:>10.3f}{floor:>11.3f}{fit / floor:>8.2f}")
    if args.only is None:
        zero = best_time(lambda: ZeroCovariance().fit(X), args.repeats)
        print(f"{'ZeroCovariance':<40}{zero:>10.3f}{'(no floor)':>11}")


if __name__ == "__main__":
    main()
