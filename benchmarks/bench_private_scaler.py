"""PrivateFeatureScaler on raw diabetes (issue 33, part 3; docs/algorithms.rst §18.3).

Median test MSE over 20 seeds (a 75/25 split and a release seed each), total
budget ρ = 1, of:

* the hand-bounded route of docs/quickstart.rst: FeatureBoundsScaler with
  clinical ranges, PrivateRidge(GaussianCovariance(ρ = 1)), X_norm_bound √10,
  y_bound (0, 400);
* the scaler pipeline: PrivateFeatureScaler(ρ_s) then PrivateRidge at 1 − ρ_s,
  X_norm_bound √10 (the scaler's box is [−1, 1]^10), the same public y_bound;
* the mean predictor (the training mean, non-private: a floor to beat).

Run: ``python benchmarks/bench_private_scaler.py``.
"""

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skprivcov.covariance import GaussianCovariance
from skprivcov.linear_model import PrivateRidge
from skprivcov.model_selection import pipeline_spent
from skprivcov.preprocessing import FeatureBoundsScaler, PrivateFeatureScaler

LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]
RHO = 1.0
SEEDS = range(20)
SCALER_SHARES = (0.0625, 0.125, 0.25)


def _ridge(rho, seed):
    return PrivateRidge(
        estimator=GaussianCovariance(rho=rho),
        X_norm_bound=10**0.5,
        y_bound=(0.0, 400.0),
        random_state=seed,
    )


def main():
    X, y = load_diabetes(return_X_y=True, scaled=False)
    results = {}
    for seed in SEEDS:
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, random_state=seed
        )

        def mse(model, X_test=X_test, y_test=y_test):
            return float(np.mean((model.predict(X_test) - y_test) ** 2))

        routes = {
            "hand-bounded (quickstart)": make_pipeline(
                FeatureBoundsScaler(lower=LOWER, upper=UPPER), _ridge(RHO, seed)
            )
        }
        for share in SCALER_SHARES:
            routes[f"scaler pipeline (scaler at {share:g} of rho)"] = make_pipeline(
                PrivateFeatureScaler(rho=share * RHO, random_state=seed),
                _ridge((1 - share) * RHO, seed),
            )
        for name, model in routes.items():
            model.fit(X_train, y_train)
            assert abs(pipeline_spent(model).parameter - RHO) < 1e-9
            results.setdefault(name, []).append(mse(model))
        results.setdefault("mean predictor", []).append(
            float(np.mean((y_train.mean() - y_test) ** 2))
        )
    print(f"raw diabetes, rho = {RHO:g} in total, {len(SEEDS)} seeds")
    print(f"{'route':48s} {'median test MSE':>16s}")
    for name, values in results.items():
        print(f"{name:48s} {np.median(values):16.0f}")
    print(f"{'y_bound=auto':48s} {'not implemented':>16s}")


if __name__ == "__main__":
    main()
