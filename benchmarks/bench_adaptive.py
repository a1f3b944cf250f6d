"""AdaptiveCovariance against GaussCov, SeparateCov and the zero matrix.

Mean Frobenius error ‖Σ̂ − Σ‖_F (Σ = XᵀX/n) over seeded repetitions on DLY22's
four synthetic settings at ρ = 0.1, the tiny-trace setting, and scikit-learn's
four bundled datasets (rows bounded as in ``_settings``) at ρ ∈ {0.1, 1}.
Every estimator at its defaults (releases projected onto {PSD, tr ≤ B²}),
except the columns that name an option. The acceptance of issue 20: defaults
≤ 1.15 × min(Gauss, Separate) and ``radius="norm_bound"`` ≤ 1.05 × on DLY22;
≤ 1.1 × min(Gauss, Separate) and ≤ the zero matrix on the bundled datasets.

    python benchmarks/bench_adaptive.py [--repeats 20] [--n-jobs 2]
"""

import argparse
import time

from _settings import BUNDLED, DLY22, TINY_TRACE, markdown_table, mean_errors

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    SeparateCovariance,
    ZeroCovariance,
)


def estimators(rho):
    return {
        "Zero": ZeroCovariance(),
        "Gauss": GaussianCovariance(rho=rho),
        "Separate": SeparateCovariance(rho=rho),
        "Adaptive": AdaptiveCovariance(rho=rho),
        "Adaptive norm_bound": AdaptiveCovariance(rho=rho, radius="norm_bound"),
        "Adaptive private": AdaptiveCovariance(rho=rho, radius="private"),
        "Adaptive v=1/2": AdaptiveCovariance(rho=rho, eigenvalue_share=0.5),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="settings to run (labels)")
    args = parser.parse_args()

    cells = [(label, 0.1) for label in [*DLY22, *TINY_TRACE]]
    cells += [(label, rho) for label in BUNDLED for rho in (0.1, 1.0)]
    if args.only:
        cells = [cell for cell in cells if cell[0] in args.only]
    rows, ratio_rows = [], []
    for label, rho in cells:
        start = time.perf_counter()
        means = mean_errors(
            label, estimators(rho), repeats=args.repeats, n_jobs=args.n_jobs
        )
        print(f"{label} rho={rho}: {time.perf_counter() - start:.1f}s", flush=True)
        rows.append([label, rho, *means.values()])
        best = min(means["Gauss"], means["Separate"])
        adaptive = [name for name in means if name.startswith("Adaptive")]
        ratio_rows.append(
            [label, rho]
            + [means[name] / best for name in adaptive]
            + [means["Adaptive"] / means["Zero"]]
        )
    names = list(estimators(1.0))
    print(f"\nmean Frobenius error, {args.repeats} repetitions\n")
    print(markdown_table(["setting", "rho", *names], rows))
    adaptive = [name for name in names if name.startswith("Adaptive")]
    print("\nAdaptiveCovariance / min(Gauss, Separate), and default / Zero\n")
    print(markdown_table(["setting", "rho", *adaptive, "Adaptive/Zero"], ratio_rows))


if __name__ == "__main__":
    main()
