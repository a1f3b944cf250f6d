"""Private ridge on diabetes: the penalty set from the privacy level.

Test MSE (mean over repetitions of a random 75/25 split and a fresh release)
of ``PrivateRidge`` with ``alpha`` fixed at 1e-3 and 0.1, with
``alpha="auto"`` (docs/algorithms.rst §16) for several factors c, of
``PrivateRidgeCV`` with ``alphas="auto"`` and with its former grid, and of the
private-mean predictor (the same release's private mean of y, i.e. an infinite
penalty), against the non-private ``RidgeCV``. Public bounds as in
``examples/plot_private_ridge.py``. Issue 20's acceptance: at ρ ∈ {0.1, 1},
"auto" ≤ 1.05 × the private-mean predictor; at ρ = 10, ≤ 1.05 × the best of
alpha ∈ {1e-3, 0.1}.

    python benchmarks/bench_ridge_alpha.py [--repeats 20]
"""

import argparse

import numpy as np
from _settings import markdown_table
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import train_test_split

from skprivcov import GaussianCovariance
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV, _penalty
from skprivcov.preprocessing import FeatureBoundsScaler

LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]
Y_BOUND = (0.0, 400.0)
FACTORS = (0.25, 0.5, 1.0, 2.0)
# PrivateRidgeCV's candidates before alphas="auto" became its default.
OLD_GRID = (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0)


def one_split(seed, rho):
    X, y = load_diabetes(return_X_y=True, scaled=False)
    scaler = FeatureBoundsScaler(lower=LOWER, upper=UPPER)
    X = scaler.transform(X)
    settings = {"X_norm_bound": scaler.row_norm_bound(), "y_bound": Y_BOUND}
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed
    )

    def mse(model):
        return float(np.mean((model.predict(X_test) - y_test) ** 2))

    def private(alpha):
        return PrivateRidge(
            alpha=alpha,
            estimator=GaussianCovariance(rho=rho),
            random_state=seed,
            **settings,
        ).fit(X_train, y_train)

    row = {
        "private mean": mse(private(1e12)),
        "alpha=1e-3": mse(private(1e-3)),
        "alpha=0.1": mse(private(0.1)),
    }
    default = _penalty.PENALTY_FACTOR
    for factor in FACTORS:
        _penalty.PENALTY_FACTOR = factor
        row[f"auto c={factor:g}"] = mse(private("auto"))
    _penalty.PENALTY_FACTOR = default
    for name, alphas in (("CV auto", "auto"), ("CV grid", OLD_GRID)):
        row[name] = mse(
            PrivateRidgeCV(
                alphas=alphas,
                estimator=GaussianCovariance(rho=rho),
                random_state=seed,
                **settings,
            ).fit(X_train, y_train)
        )
    row["non-private RidgeCV"] = mse(
        RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X_train, y_train)
    )
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    rows, ratio_rows = [], []
    for rho in (0.1, 1.0, 10.0):
        runs = [one_split(seed, rho) for seed in range(args.repeats)]
        means = {name: float(np.mean([run[name] for run in runs])) for name in runs[0]}
        rows.append([rho, *means.values()])
        fixed = min(means["alpha=1e-3"], means["alpha=0.1"])
        ratio_rows.append(
            [rho]
            + [means[f"auto c={f:g}"] / means["private mean"] for f in FACTORS]
            + [means[f"auto c={f:g}"] / fixed for f in FACTORS]
        )
    names = list(runs[0])
    print(f"\ntest MSE on diabetes, mean of {args.repeats} splits\n")
    print(markdown_table(["rho", *names], rows))
    print("\nauto / private mean, and auto / best fixed alpha\n")
    header = ["rho"] + [f"c={f:g} / mean" for f in FACTORS]
    header += [f"c={f:g} / fixed" for f in FACTORS]
    print(markdown_table(header, ratio_rows))


if __name__ == "__main__":
    main()
