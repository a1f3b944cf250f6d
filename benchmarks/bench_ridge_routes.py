"""The two ridge routes of the README, measured on diabetes.

Route A (fit from a release of the rows): release the second moment of the
rows ``[x, y]`` with one covariance estimator and one norm bound on the whole
row, then ``PrivateRidge(covariance=release).fit()``. Route B (the model's own
release): ``PrivateRidge(estimator=..., X_norm_bound=..., y_bound=...)``,
which bounds x and y separately, each to a unit share of the row's norm
(docs/ridge.rst, "Fitting with its own release"). ``PrivateRidgeCV`` (route B
with alpha chosen privately) is shown for reference.

Both routes get the same public knowledge (the clinical feature ranges of
``examples/plot_private_ridge.py``, features mapped to [−1, 1], so ‖x‖ ≤ √10,
and the target range [0, 400]), the same Gaussian mechanism and budget, and
``alpha="auto"``. Route A is run twice: with the rows ``[x, y]`` as the
README's recipe writes them (joint bound √(10 + 400²)), and with the target
mapped to [−1, 1] by the same public range first (joint bound √11; the
predictions mapped back).

Median test MSE over random 70/30 splits, one fresh release per split:

    python benchmarks/bench_ridge_routes.py [--repeats 20] [--rho 0.1]
"""

import argparse
import math

import numpy as np
from _settings import markdown_table
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import train_test_split

from skprivcov import GaussianCovariance
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.preprocessing import FeatureBoundsScaler

LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]
Y_LOW, Y_HIGH = 0.0, 400.0


def one_split(seed, rho):
    X, y = load_diabetes(return_X_y=True, scaled=False)
    scaler = FeatureBoundsScaler(lower=LOWER, upper=UPPER)
    X = scaler.transform(X)
    x_bound = scaler.row_norm_bound()  # √10
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed
    )

    def mse(prediction):
        return float(np.mean((prediction - y_test) ** 2))

    def route_a(target, norm_bound):
        release = GaussianCovariance(
            rho=rho, norm_bound=norm_bound, assume_centered=False, random_state=seed
        ).fit(np.column_stack([X_train, target]))
        return PrivateRidge(covariance=release).fit()

    row = {}
    # A, as written: the raw target in the rows, one bound on the whole row.
    model = route_a(y_train, math.hypot(x_bound, Y_HIGH))
    row["A: release of [x, y], then PrivateRidge(covariance=)"] = mse(
        model.predict(X_test)
    )
    # A, with the target mapped to [−1, 1] by its public range first.
    centre, half = (Y_LOW + Y_HIGH) / 2, (Y_HIGH - Y_LOW) / 2
    target = (np.clip(y_train, Y_LOW, Y_HIGH) - centre) / half
    model = route_a(target, math.hypot(x_bound, 1.0))
    row["A': same, target mapped to [-1, 1] first"] = mse(
        centre + half * model.predict(X_test)
    )
    settings = {
        "estimator": GaussianCovariance(rho=rho),
        "X_norm_bound": x_bound,
        "y_bound": (Y_LOW, Y_HIGH),
        "random_state": seed,
    }
    model = PrivateRidge(**settings).fit(X_train, y_train)
    row["B: PrivateRidge(estimator=, X_norm_bound=, y_bound=)"] = mse(
        model.predict(X_test)
    )
    model = PrivateRidgeCV(**settings).fit(X_train, y_train)
    row["B, alpha by PrivateRidgeCV"] = mse(model.predict(X_test))
    row["training mean (reference)"] = mse(np.full(y_test.size, y_train.mean()))
    reference = RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X_train, y_train)
    row["non-private RidgeCV (reference)"] = mse(reference.predict(X_test))
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rho", type=float, default=0.1)
    args = parser.parse_args()
    rows = [one_split(seed, args.rho) for seed in range(args.repeats)]
    print(
        f"diabetes, rho={args.rho:g}, {args.repeats} seeds, 70/30 splits: "
        "median test MSE"
    )
    print(
        markdown_table(
            ["route", "median test MSE"],
            [[name, float(np.median([row[name] for row in rows]))] for name in rows[0]],
        )
    )


if __name__ == "__main__":
    main()
