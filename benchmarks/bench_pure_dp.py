"""Every pure ε-DP mechanism on the setting of docs/algorithms.rst §9.7, and the cost
of nuclear-Laplace sampling.

Frobenius error ‖Σ̂ − Σ‖_F, ε = 1, d = 30, n ∈ {1e4, 1e5}, DLY22 synthetic data
(``make_zipf_norms``) at trace 1 and at trace 0.04 (rows scaled by 0.2), mean of
``--repeats`` seeds (joblib-parallel). Then EMCov (the paper's settings) as ε
grows, and the time of one nuclear-Laplace noise draw (200 sweeps) for
d ∈ {50, 100, 200, 400}.

    python benchmarks/bench_pure_dp.py [--repeats 20] [--max-d 400]
"""

import argparse
import time

import numpy as np
from _settings import in_papers_setting
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from skprivcov import (
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    SeparateCovariance,
)
from skprivcov.datasets import make_zipf_norms
from skprivcov.mechanisms._nuclear import nuclear_laplace_noise

ESTIMATORS = {
    "LapCov": lambda: LaplaceCovariance(),
    "SeparateLapCov": lambda: SeparateCovariance(epsilon=1.0),
    "EMCov (paper: c=1/4, uniform)": lambda: IterativeEigenCovariance(),
    "EMCov adaptive": lambda: IterativeEigenCovariance(budget_split="adaptive"),
    "EMCov c=1/2 adaptive": lambda: IterativeEigenCovariance(
        budget_split="adaptive", em_coefficient=0.5
    ),
    "KT (deflate)": lambda: IterativeEigenCovariance(update="deflate"),
    "KT adaptive": lambda: IterativeEigenCovariance(
        update="deflate", budget_split="adaptive"
    ),
    "NucLap general, raw (dON Alg 1)": lambda: NuclearLaplaceCovariance(
        variant="general", projection=None
    ),
    "NucLap symmetric, raw": lambda: NuclearLaplaceCovariance(projection=None),
    "NucLap general + PSD-tr ≤ 1": lambda: NuclearLaplaceCovariance(variant="general"),
    "NucLap symmetric + PSD-tr ≤ 1 (default)": lambda: NuclearLaplaceCovariance(),
    "dON Alg 2 (general, nuclear ball)": lambda: NuclearLaplaceCovariance(
        variant="general", projection="nuclear", trace_bound="private"
    ),
    "dON Alg 2 radius + symmetric + PSD-tr": lambda: NuclearLaplaceCovariance(
        trace_bound="private"
    ),
}


def _error(make, epsilon, seed, X, target):
    with threadpool_limits(1):
        estimator = in_papers_setting(make()).set_params(
            epsilon=epsilon, random_state=seed
        )
        return np.linalg.norm(estimator.fit(X).covariance_ - target)


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
        ("n=1e5, tr=0.04", 100_000, 0.2),
    ]
    print(f"## Frobenius error, pure ε = 1, d = 30, mean of {repeats}\n")
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


def sampling_cost(max_d):
    print("\n## One nuclear-Laplace noise draw, 200 sweeps (seconds)\n")
    print("| d | symmetric | general | d·max w (general) | ‖Z‖_op/(rd) (general) |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for d in (50, 100, 200, 400):
        if d > max_d:
            continue
        times = {}
        for symmetric in (True, False):
            start = time.perf_counter()
            noise, _ = nuclear_laplace_noise(d, 1.0, rng, symmetric=symmetric)
            times[symmetric] = time.perf_counter() - start
        singular = np.linalg.svd(noise, compute_uv=False)  # of the general draw
        print(
            f"| {d} | {times[True]:.2f} | {times[False]:.2f} "
            f"| {d * singular.max() / singular.sum():.3f} "
            f"| {singular.max() / d:.3f} |",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--max-d", type=int, default=400)
    args = parser.parse_args()
    sampling_cost(args.max_d)
    accuracy(args.repeats)


if __name__ == "__main__":
    main()
