"""IterativeEigenCovariance (ADK19 EMCov) and the KT baseline: speed and sampler cost.

Two parts (the accuracy of every pure-DP mechanism, EMCov and KT included, is
in ``bench_pure_dp.py``):

1. Fit time at n = 4000 on the DLY22 trace-1 data (``make_zipf_norms``) for
   d ∈ {50, 200, 400, 800}, divided by the non-private floor (the Gram matrix plus
   one eigendecomposition) and by the algorithm's own floor (the d
   eigendecompositions of sizes d, d−1, ..., 1 that EMCov cannot avoid).
   PRODUCT.md §2.2: d = 200 in seconds, d = 800 under a minute on 2 cores. The
   KT baseline (``update="deflate"``) does d eigendecompositions of size d; it is
   timed up to ``--deflate-max-d``.
2. Bingham proposals per draw at high concentration (a_j = 1e8) against the
   limit of docs/algorithms.rst §5.3.

    python benchmarks/bench_iterative_eigen.py [--max-d 800] [--deflate-max-d 200]
"""

import argparse

import numpy as np

# The fit-time benchmark's best-of-n timer (the scripts run from this folder).
from bench_fit_time import best_time
from scipy.linalg import blas
from threadpoolctl import threadpool_limits

from skprivcov import IterativeEigenCovariance
from skprivcov.datasets import make_zipf_norms
from skprivcov.mechanisms import eigh_descending
from skprivcov.mechanisms._bingham import high_concentration_trials, sample_bingham


def timing(max_d, deflate_max_d):
    print("## Fit time, n = 4000, pure ε = 1 (seconds; ratios to the floors)\n")
    print(
        "| d | EMCov | non-private floor | ratio | EMCov's own floor | ratio "
        "| KT baseline |"
    )
    print("|---|---|---|---|---|---|---|")
    for d in (50, 200, 400, 800):
        if d > max_d:
            continue
        X = make_zipf_norms(4000, d, random_state=d)
        second_moment = X.T @ X / len(X)
        floor = best_time(lambda X=X: blas.dsyrk(1.0, X.T), 3) + best_time(
            lambda m=second_moment: eigh_descending(m), 3
        )
        with threadpool_limits(1):
            own_floor = sum(
                best_time(lambda q=q, m=second_moment: eigh_descending(m[:q, :q]), 3)
                for q in range(d, 0, -1)
            )
        emcov = best_time(
            lambda X=X: IterativeEigenCovariance(epsilon=1.0, random_state=0).fit(X),
            1,
        )
        kt = "—"
        if d <= deflate_max_d:
            kt = "{:.2f}".format(
                best_time(
                    lambda X=X: IterativeEigenCovariance(
                        epsilon=1.0, update="deflate", random_state=0
                    ).fit(X),
                    1,
                )
            )
        print(
            f"| {d} | {emcov:.2f} | {floor:.3f} | {emcov / floor:.0f} "
            f"| {own_floor:.2f} | {emcov / own_floor:.2f} | {kt} |",
            flush=True,
        )


def trials():
    print("\n## Bingham proposals per draw at a_j = 1e8 (3000 draws)\n")
    print("| q | mean | §5.3 limit |")
    print("|---|---|---|")
    rng = np.random.default_rng(0)
    for q in (2, 5, 10, 50, 200):
        a = np.r_[0.0, np.full(q - 1, 1e8)]
        counts = [sample_bingham(a, rng, return_trials=True)[1] for _ in range(3000)]
        print(f"| {q} | {np.mean(counts):.2f} | {high_concentration_trials(q):.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-d", type=int, default=800)
    parser.add_argument("--deflate-max-d", type=int, default=200)
    args = parser.parse_args()
    timing(args.max_d, args.deflate_max_d)
    trials()


if __name__ == "__main__":
    main()
