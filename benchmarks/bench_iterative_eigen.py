"""IterativeEigenCovariance (ADK19 EMCov) and the KT baseline: speed and accuracy.

Three parts:

1. Fit time at n = 4000 on the DLY22 trace-1 data (``make_zipf_norms``) for
   d ∈ {50, 200, 400, 800}, divided by the non-private floor (the Gram matrix plus
   one eigendecomposition) and by the algorithm's own floor (the d
   eigendecompositions of sizes d, d−1, ..., 1 that EMCov cannot avoid).
   PRODUCT.md §2.2: d = 200 in seconds, d = 800 under a minute on 2 cores. The
   KT baseline (``update="deflate"``) does d eigendecompositions of size d; it is
   timed up to ``--deflate-max-d``.
2. Bingham proposals per draw at high concentration (a_j = 1e8) against the
   limit of ALGORITHMS.md §5.3.
3. Frobenius error ‖Σ̂ − Σ‖_F, pure DP, ε = 1, d = 30, n ∈ {1e4, 1e5}, trace 1
   and trace 0.04 (rows scaled by 0.2): the setting of ALGORITHMS.md §9.7, where
   EMCov measured 0.644 / 0.029 / 0.201; then EMCov as ε grows (n = 1e4, trace 1;
   §9.7: 0.62 at ε = 1 to 0.0022 at ε = 1e5).

    python benchmarks/bench_iterative_eigen.py [--repeats 20] [--max-d 800]
"""

import argparse
import time

import numpy as np
from joblib import Parallel, delayed
from scipy.linalg import blas
from threadpoolctl import threadpool_limits

from skprivcov import IterativeEigenCovariance, LaplaceCovariance, SeparateCovariance
from skprivcov.datasets import make_zipf_norms
from skprivcov.mechanisms import (
    eigh_descending,
    high_concentration_trials,
    sample_bingham,
)


def seconds(function, repeats=1):
    """Best wall time of ``repeats`` calls (the floors, which are short, take
    the best of 3 against timer noise and warm-up)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


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
        floor = seconds(lambda X=X: blas.dsyrk(1.0, X.T), 3) + seconds(
            lambda m=second_moment: eigh_descending(m), 3
        )
        with threadpool_limits(1):
            own_floor = sum(
                seconds(lambda q=q, m=second_moment: eigh_descending(m[:q, :q]), 3)
                for q in range(d, 0, -1)
            )
        emcov = seconds(
            lambda X=X: IterativeEigenCovariance(epsilon=1.0, random_state=0).fit(X)
        )
        kt = "—"
        if d <= deflate_max_d:
            kt = "{:.2f}".format(
                seconds(
                    lambda X=X: IterativeEigenCovariance(
                        epsilon=1.0, update="deflate", random_state=0
                    ).fit(X)
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


ESTIMATORS = {
    "LapCov": lambda eps, s: LaplaceCovariance(epsilon=eps, random_state=s),
    "SeparateLapCov": lambda eps, s: SeparateCovariance(epsilon=eps, random_state=s),
    "EMCov (paper: c=1/4, uniform)": lambda eps, s: IterativeEigenCovariance(
        epsilon=eps, random_state=s
    ),
    "EMCov adaptive": lambda eps, s: IterativeEigenCovariance(
        epsilon=eps, budget_split="adaptive", random_state=s
    ),
    "EMCov c=1/2 adaptive": lambda eps, s: IterativeEigenCovariance(
        epsilon=eps, budget_split="adaptive", em_coefficient=0.5, random_state=s
    ),
    "KT (deflate)": lambda eps, s: IterativeEigenCovariance(
        epsilon=eps, update="deflate", random_state=s
    ),
    "KT adaptive": lambda eps, s: IterativeEigenCovariance(
        epsilon=eps, update="deflate", budget_split="adaptive", random_state=s
    ),
}


def _error(make, epsilon, seed, X, target):
    with threadpool_limits(1):
        return np.linalg.norm(make(epsilon, seed).fit(X).covariance_ - target)


def mean_error(make, epsilon, X, repeats):
    target = X.T @ X / len(X)
    errors = Parallel(n_jobs=-1)(
        delayed(_error)(make, epsilon, seed, X, target) for seed in range(repeats)
    )
    return float(np.mean(errors))


def accuracy(repeats):
    settings = [
        ("n=1e4, tr=1", 10_000, 1.0),
        ("n=1e4, tr=0.04", 10_000, 0.2),
        ("n=1e5, tr=1", 100_000, 1.0),
    ]
    print(f"\n## Frobenius error, pure ε = 1, d = 30, mean of {repeats}\n")
    print("| estimator | " + " | ".join(label for label, _, _ in settings) + " |")
    print("|---|" + "---|" * len(settings))
    data = [scale * make_zipf_norms(n, 30, random_state=1) for _, n, scale in settings]
    for name, make in ESTIMATORS.items():
        cells = [f"{mean_error(make, 1.0, X, repeats):.4f}" for X in data]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)

    print("\n## EMCov (paper's settings) as ε grows, n = 1e4, tr = 1, d = 30\n")
    epsilons = (1.0, 10.0, 100.0, 1e3, 1e4, 1e5)
    print("| ε | " + " | ".join(f"{e:g}" for e in epsilons) + " |")
    print("|---|" + "---|" * len(epsilons))
    make = ESTIMATORS["EMCov (paper: c=1/4, uniform)"]
    cells = [f"{mean_error(make, e, data[0], repeats):.4f}" for e in epsilons]
    print("| error | " + " | ".join(cells) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--max-d", type=int, default=800)
    parser.add_argument("--deflate-max-d", type=int, default=200)
    args = parser.parse_args()
    timing(args.max_d, args.deflate_max_d)
    trials()
    accuracy(args.repeats)


if __name__ == "__main__":
    main()
