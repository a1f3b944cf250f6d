"""Private ridge closer to the non-private model (issue 35 part 3; docs/ridge.rst).

Test MSE, mean ± standard error over random 70/30 splits (seeds 0..R−1, one
fresh release per split, the split's seed as ``random_state``), of
``PrivateRidge`` with its penalty set three ways, against the non-private
``RidgeCV`` and ``LinearRegression`` and the training mean:

* ``auto``: ``alpha="auto"``, one release of [x, y], the penalty from the
  public noise level (docs/algorithms.rst §16, the rule before issue 35);
* ``adassp``: ``alpha="adassp"``, the same release at 7/8 and AdaSSP's
  private smallest eigenvalue at 1/8 (Wang 2018);
* ``boosted``: ``boosting_rounds="auto"`` (Tang et al. 2023): the
  features' release at 1/4, then 10 rounds (zCDP; 3 for a pure budget) on
  residuals clipped at 1/4 of the target's half-width, each at an equal
  share of the rest (``alpha="auto"``);
* ``boosted+adassp``: both.

Settings: diabetes with the quickstart's public clinical bounds
(FeatureBoundsScaler to [−1, 1], ``X_norm_bound=√10``, ``y_bound=(0, 400)``);
raw diabetes with the defaults (``X_norm_bound="auto"``, ``y_bound="auto"``:
private boxes inside the budget); and diabetes as ``_settings`` brings the
bundled data into the unit ball (features to [0, 1] by their range, rows
divided by √d, ``X_norm_bound=1``, ``y_bound=(0, 400)``). Budgets: ρ-zCDP
(GaussianCovariance) and pure ε (LaplaceCovariance).

    python benchmarks/bench_ridge_frontier.py [--repeats 20] [--n-jobs 2]
"""

import argparse
import math
import warnings

import numpy as np
from _settings import bounded_rows, markdown_table
from joblib import Parallel, delayed
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression, RidgeCV
from sklearn.model_selection import train_test_split

from skprivcov import GaussianCovariance, LaplaceCovariance
from skprivcov.linear_model import PrivateRidge
from skprivcov.preprocessing import FeatureBoundsScaler

LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]
BUDGETS = [("rho", 0.01), ("rho", 0.1), ("rho", 1.0)]
BUDGETS += [("epsilon", 0.3), ("epsilon", 1.0), ("epsilon", 3.0)]
VARIANTS = {
    "auto": {"alpha": "auto", "boosting_rounds": 0},
    "adassp": {"alpha": "adassp", "boosting_rounds": 0},
    "boosted": {"alpha": "auto", "boosting_rounds": "auto"},
    "boosted+adassp": {"alpha": "adassp", "boosting_rounds": "auto"},
}


def _settings():
    X, y = load_diabetes(return_X_y=True, scaled=False)
    clinical = FeatureBoundsScaler(lower=LOWER, upper=UPPER).transform(X)
    return {
        "clinical bounds": (clinical, {"X_norm_bound": math.sqrt(10)}, y),
        "raw, defaults": (X, {"X_norm_bound": "auto", "y_bound": "auto"}, y),
        "unit ball (_settings)": (bounded_rows(X), {"X_norm_bound": 1.0}, y),
    }


def _estimator(notion, value):
    if notion == "rho":
        return GaussianCovariance(rho=value)
    return LaplaceCovariance(epsilon=value)


def one_split(setting, notion, value, seed):
    warnings.simplefilter("ignore")
    X, bounds, y = _settings()[setting]
    bounds = {"y_bound": (0.0, 400.0), **bounds}
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed
    )

    def mse(prediction):
        return float(np.mean((prediction - y_test) ** 2))

    row = {}
    for name, params in VARIANTS.items():
        model = PrivateRidge(
            estimator=_estimator(notion, value),
            random_state=seed,
            **bounds,
            **params,
        ).fit(X_train, y_train)
        row[name] = mse(model.predict(X_test))
    row["sklearn RidgeCV"] = mse(
        RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X_train, y_train).predict(X_test)
    )
    row["sklearn LinearRegression"] = mse(
        LinearRegression().fit(X_train, y_train).predict(X_test)
    )
    row["mean"] = mse(np.full(y_test.size, y_train.mean()))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument(
        "--settings", default=";".join(_settings()), help="names, ';'-separated"
    )
    args = parser.parse_args()
    for setting in args.settings.split(";"):
        table, names = [], None
        for notion, value in BUDGETS:
            runs = Parallel(n_jobs=args.n_jobs)(
                delayed(one_split)(setting, notion, value, seed)
                for seed in range(args.repeats)
            )
            names = list(runs[0])
            cells = {
                name: np.array([run[name] for run in runs], dtype=float)
                for name in names
            }
            best = min(
                cells["sklearn RidgeCV"].mean(),
                cells["sklearn LinearRegression"].mean(),
            )
            mean = cells["mean"].mean()
            row = [f"{'ρ' if notion == 'rho' else 'ε'} = {value:g}"]
            for name in names:
                values = cells[name]
                se = values.std(ddof=1) / math.sqrt(values.size)
                row.append(f"{values.mean():.0f} ± {se:.0f}")
            row += [
                f"{cells[name].mean() / best:.2f} / {cells[name].mean() / mean:.2f}"
                for name in VARIANTS
            ]
            table.append(row)
        print(
            f"\n### {setting}: test MSE, mean ± SE of {args.repeats} random "
            "70/30 splits\n"
        )
        header = ["budget", *names]
        header += [f"{name}: ÷ non-private / ÷ mean" for name in VARIANTS]
        print(markdown_table(header, table))


if __name__ == "__main__":
    main()
