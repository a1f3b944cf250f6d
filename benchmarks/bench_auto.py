"""The automatic choice of mechanism against every fixed mechanism.

Mean Frobenius error ‖Σ̂ − Σ‖_F (Σ = XᵀX/n) over seeded repetitions, on DLY22's
four settings and scikit-learn's four bundled datasets (``_settings``), at
ρ ∈ {0.01, 0.1, 1} (zCDP mechanisms) and pure ε ∈ {0.5, 1, 4} (pure
mechanisms), every estimator at its defaults with the same total budget.
Acceptance of issue 20: AutoCovariance ≤ 1.25 × the best fixed mechanism in
every cell, ≤ 1.10 × on the geometric mean over the grid, and never more than
5% above the zero matrix. Results go to ``--out`` as JSON (``--replot`` prints
the tables again from it).

    python benchmarks/bench_auto.py [--repeats 20] [--n-jobs 2]
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _settings import BUNDLED, DLY22, markdown_table, mean_errors

import skprivcov
from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    SeparateCovariance,
    ZeroCovariance,
)

BUDGETS = [("rho", 0.01), ("rho", 0.1), ("rho", 1.0)]
BUDGETS += [("epsilon", 0.5), ("epsilon", 1.0), ("epsilon", 4.0)]
FIXED = {
    "rho": {
        "Gauss": GaussianCovariance,
        "Separate": SeparateCovariance,
        "Adaptive": AdaptiveCovariance,
    },
    "epsilon": {
        "Laplace": LaplaceCovariance,
        "Separate": SeparateCovariance,
        "Adaptive": AdaptiveCovariance,
        "Nuclear": NuclearLaplaceCovariance,
        "IterativeEigen": IterativeEigenCovariance,
    },
}


def estimators(kind, value, *, auto=True):
    found = {name: cls(**{kind: value}) for name, cls in FIXED[kind].items()}
    found["Zero"] = ZeroCovariance()
    if auto:
        found["Auto"] = skprivcov.AutoCovariance(**{kind: value})
    return found


def print_tables(results):
    rows, ratios = [], []
    for key, means in results.items():
        label, kind, value = key.split("|")
        fixed = {n: m for n, m in means.items() if n not in ("Auto", "Zero")}
        best_name = min(fixed, key=fixed.get)
        rows.append([label, f"{kind}={value}", *(f"{m:.4g}" for m in means.values())])
        ratios.append(
            [
                label,
                f"{kind}={value}",
                best_name,
                means["Auto"] / fixed[best_name],
                means["Auto"] / means["Zero"],
            ]
        )
    print(markdown_table(["setting", "budget", "errors (see JSON for names)"], rows))
    print("\nAutoCovariance against the best fixed mechanism and the zero matrix\n")
    print(
        markdown_table(
            ["setting", "budget", "best fixed", "Auto/best", "Auto/Zero"], ratios
        )
    )
    to_best = np.array([row[3] for row in ratios])
    to_zero = np.array([row[4] for row in ratios])
    print(
        f"\nAuto/best: max {to_best.max():.3f}, geometric mean "
        f"{np.exp(np.mean(np.log(to_best))):.3f}; Auto/Zero: max {to_zero.max():.3f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/results/auto.json")
    parser.add_argument("--replot", action="store_true")
    parser.add_argument("--only", nargs="*", help="settings to run (labels)")
    parser.add_argument("--no-auto", action="store_true", help="fixed ones only")
    args = parser.parse_args()
    out = Path(args.out)
    if args.replot:
        print_tables(json.loads(out.read_text()))
        return
    results = {}
    labels = [*DLY22, *BUNDLED]
    if args.only:
        labels = [label for label in labels if label in args.only]
    for label in labels:
        for kind, value in BUDGETS:
            start = time.perf_counter()
            results[f"{label}|{kind}|{value:g}"] = mean_errors(
                label,
                estimators(kind, value, auto=not args.no_auto),
                repeats=args.repeats,
                n_jobs=args.n_jobs,
            )
            took = time.perf_counter() - start
            print(f"{label} {kind}={value:g}: {took:.1f}s", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    if not args.no_auto:
        print_tables(results)


if __name__ == "__main__":
    main()
