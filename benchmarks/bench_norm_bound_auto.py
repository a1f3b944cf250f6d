"""``norm_bound="auto"`` against fixed bounds, on the raw bundled datasets.

For each dataset (wine, diabetes, breast cancer, digits: X as scikit-learn
ships it, no scaling) and budget, the Frobenius error of the release against
the non-private covariance (``assume_centered=False``), in the data's units,
for:

* the estimator with ``norm_bound="auto"`` (1/16 of the budget on the bound);
* the same estimator at each of 9 fixed bounds, the quantiles 10%, 20%, …,
  90%, 100% of the row norms times 1, 2 (an oracle's grid: it reads the data);
  the best of them is the oracle's choice at the same total budget;
* the zero matrix (releasing nothing: the error is ‖Σ‖_F).

Prints the median over repetitions of each, and the ratios auto/oracle and
auto/zero. Run: ``python benchmarks/bench_norm_bound_auto.py [--reps 20]``.
"""

import argparse

import numpy as np
from sklearn import datasets

from skprivcov import AutoCovariance, GaussianCovariance, LaplaceCovariance

DATASETS = {
    "wine": datasets.load_wine,
    "diabetes": datasets.load_diabetes,
    "breast cancer": datasets.load_breast_cancer,
    "digits": datasets.load_digits,
}
BUDGETS = [
    ("rho", 0.01),
    ("rho", 0.1),
    ("rho", 1.0),
    ("epsilon", 0.5),
    ("epsilon", 1.0),
    ("epsilon", 4.0),
]


def _errors(make, X, truth, reps):
    errors = []
    for seed in range(reps):
        release = make(seed).fit(X).covariance_
        errors.append(np.linalg.norm(release - truth))
    return float(np.median(errors))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--estimator", default="auto", choices=["auto", "fixed"])
    args = parser.parse_args(argv)
    print(
        f"{'data':14s} {'budget':12s} {'estimator':20s} {'auto':>10s} "
        f"{'oracle':>10s} {'zero':>10s} {'auto/oracle':>11s} {'auto/zero':>9s}"
    )
    for name, load in DATASETS.items():
        X = load().data
        truth = np.cov(X.T, bias=True)
        norms = np.linalg.norm(X, axis=1)
        fixed = np.quantile(norms, [0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0]).tolist()
        fixed.append(2.0 * norms.max())
        zero = float(np.linalg.norm(truth))
        for notion, value in BUDGETS:
            if args.estimator == "auto":
                model = AutoCovariance
            else:
                model = GaussianCovariance if notion == "rho" else LaplaceCovariance

            def make(bound, model=model, notion=notion, value=value):
                return lambda seed: model(
                    **{notion: value},
                    norm_bound=bound,
                    assume_centered=False,
                    random_state=seed,
                )

            auto = _errors(make("auto"), X, truth, args.reps)
            oracle = min(_errors(make(b), X, truth, args.reps) for b in fixed)
            print(
                f"{name:14s} {notion + '=' + str(value):12s} {model.__name__:20s} "
                f"{auto:10.4g} {oracle:10.4g} {zero:10.4g} {auto / oracle:11.2f} "
                f"{auto / zero:9.2f}"
            )


if __name__ == "__main__":
    main()
