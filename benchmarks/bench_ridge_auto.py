"""Bound-free ridge on raw diabetes: the defaults against the hand-bounded
route and the mean (issue 33; docs/algorithms.rst §18.5, docs/ridge.rst).

For every budget (ρ-zCDP with GaussianCovariance, pure ε with
LaplaceCovariance), the median test MSE over random 70/30 splits of:

* ``auto``: ``PrivateRidge(estimator=...)`` with no bound given (the
  defaults ``X_norm_bound="auto"`` and ``y_bound="auto"``);
* ``hand``: the README quickstart's route, FeatureBoundsScaler with the
  clinical ranges, ``X_norm_bound=√10``, ``y_bound=(0, 400)``;
* ``mean``: the training mean (non-private, a floor to beat);
* ``private mean``: a private mean of y at the same budget, two ways, by the
  same mechanisms as the fallback of §18.5 but independent of the model:
  the private box of the 1%/99% quantiles at 3/4 of the budget then the
  noisy mean of the clipped targets, and the private median (one quantile at
  the whole budget, its cell's upper edge).

Run: ``python benchmarks/bench_ridge_auto.py [--repeats 20]``.
"""

import argparse
import math

import numpy as np
from _settings import markdown_table
from joblib import Parallel, delayed
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skprivcov import GaussianCovariance, LaplaceCovariance, PrivacyCost
from skprivcov._data._statistics import feature_counts
from skprivcov.linear_model import PrivateRidge
from skprivcov.linear_model._private_bounds import private_target_mean
from skprivcov.mechanisms import quantile_epsilon
from skprivcov.mechanisms._quantile import private_quantile, signed_grid
from skprivcov.mechanisms._splits import split_budget
from skprivcov.preprocessing import FeatureBoundsScaler

LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]
BUDGETS = [("rho", 0.1), ("rho", 1.0), ("rho", 10.0)]
BUDGETS += [("epsilon", 0.5), ("epsilon", 1.0), ("epsilon", 4.0)]


def _estimator(notion, value):
    if notion == "rho":
        return GaussianCovariance(rho=value)
    return LaplaceCovariance(epsilon=value)


def _cost(notion, value):
    return PrivacyCost.zcdp(value) if notion == "rho" else PrivacyCost.pure(value)


def one_split(seed, notion, value):
    X, y = load_diabetes(return_X_y=True, scaled=False)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed
    )

    def mse(prediction):
        return float(np.mean((prediction - y_test) ** 2))

    row = {}
    model = PrivateRidge(estimator=_estimator(notion, value), random_state=seed).fit(
        X_train, y_train
    )
    row["auto"] = mse(model.predict(X_test))
    row["auto predicts the mean"] = float(model.X_norm_bound_ is None)
    hand = make_pipeline(
        FeatureBoundsScaler(lower=LOWER, upper=UPPER),
        PrivateRidge(
            estimator=_estimator(notion, value),
            X_norm_bound=math.sqrt(10),
            y_bound=(0.0, 400.0),
            random_state=seed,
        ),
    ).fit(X_train, y_train)
    row["hand"] = mse(hand.predict(X_test))
    row["mean"] = mse(np.full(y_test.size, y_train.mean()))
    rng = np.random.default_rng(10_000 + seed)
    cost = _cost(notion, value)
    parts = split_budget("ridge mean", cost, y_auto=True)
    _, mean = private_target_mean(y_train, parts, "auto", nonfinite="raise", rng=rng)
    row["private mean"] = mse(np.full(y_test.size, mean))
    grid = signed_grid()
    counts = feature_counts(y_train[:, None], grid)
    index = private_quantile(counts[0], y_train.size // 2, quantile_epsilon(cost), rng)
    row["private median"] = mse(np.full(y_test.size, grid[index]))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=-1)
    args = parser.parse_args()
    table = []
    for notion, value in BUDGETS:
        rows = Parallel(n_jobs=args.n_jobs)(
            delayed(one_split)(seed, notion, value) for seed in range(args.repeats)
        )
        median = {name: float(np.median([r[name] for r in rows])) for name in rows[0]}
        fallback = np.mean([r["auto predicts the mean"] for r in rows])
        table.append(
            [
                f"{'ρ' if notion == 'rho' else 'ε'} = {value:g}",
                median["auto"],
                median["hand"],
                median["mean"],
                median["private mean"],
                median["private median"],
                median["auto"] / median["hand"],
                median["auto"] / median["private mean"],
                median["auto"] / median["private median"],
                f"{fallback:.0%}",
            ]
        )
    print(
        f"raw diabetes, {args.repeats} random 70/30 splits: median test MSE "
        "(PrivateRidge with no bounds given)"
    )
    print(
        markdown_table(
            [
                "budget",
                "auto",
                "hand-bounded",
                "mean",
                "private mean",
                "private median",
                "auto / hand",
                "auto / private mean",
                "auto / private median",
                "auto predicts its mean",
            ],
            table,
        )
    )


if __name__ == "__main__":
    main()
