"""
Private ridge regression and private choice of alpha
=====================================================

Test error against the privacy budget ρ on scikit-learn's diabetes data, for

* ``PrivateRidge`` at two fixed alphas (the default 1e-3 and 0.1), each fit
  from one Gaussian release of the bounded rows ``[x, y, 1]``;
* ``PrivateRidgeCV``, which chooses alpha from one release per fold (the whole
  search costs one release);
* non-private ridge (alpha chosen by scikit-learn's ``RidgeCV``), and the
  prediction of the training mean, as references.

The bounds are public: plausible clinical ranges of each raw feature, and
[0, 400] for the disease-progression target, chosen without looking at the
data. Run ``python examples/plot_private_ridge.py`` (needs matplotlib); it
prints a table and writes ``private_ridge.png``.
"""

# %%
# Data, public bounds and a fixed split
# -------------------------------------
import sys

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import train_test_split

from skprivcov import GaussianCovariance
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.preprocessing import FeatureBoundsScaler

# age, sex, bmi, blood pressure, six blood serum measurements
LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]
Y_BOUND = (0.0, 400.0)

X, y = load_diabetes(return_X_y=True, scaled=False)
scaler = FeatureBoundsScaler(lower=LOWER, upper=UPPER)  # each feature to [-1, 1]
X = scaler.transform(X)
X_norm_bound = scaler.row_norm_bound()  # √10: a public bound on every row
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.25, random_state=0
)


def test_mse(model):
    return float(np.mean((model.predict(X_test) - y_test) ** 2))


reference = test_mse(RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(X_train, y_train))
mean_only = float(np.mean((y_train.mean() - y_test) ** 2))

# %%
# Test error against ρ (median over repeated releases)
# ----------------------------------------------------
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 30
rhos = np.logspace(-2, 2, 9)
settings = {"X_norm_bound": X_norm_bound, "y_bound": Y_BOUND}
models = {
    "PrivateRidge (alpha=1e-3)": lambda estimator, seed: PrivateRidge(
        alpha=1e-3, estimator=estimator, random_state=seed, **settings
    ),
    "PrivateRidge (alpha=0.1)": lambda estimator, seed: PrivateRidge(
        alpha=0.1, estimator=estimator, random_state=seed, **settings
    ),
    "PrivateRidgeCV (3 folds)": lambda estimator, seed: PrivateRidgeCV(
        estimator=estimator, random_state=seed, **settings
    ),
}
results = {name: [] for name in models}
for rho in rhos:
    for name, make in models.items():
        errors = [
            test_mse(make(GaussianCovariance(rho=rho), seed).fit(X_train, y_train))
            for seed in range(repeats)
        ]
        results[name].append(float(np.median(errors)))

print(f"n_train = {len(y_train)}, n_test = {len(y_test)}, {repeats} releases per ρ")
print(f"non-private RidgeCV test MSE {reference:.0f}; training mean {mean_only:.0f}")
print("| ρ | " + " | ".join(results) + " |")
print("|---|" + "---|" * len(results))
for i, rho in enumerate(rhos):
    cells = " | ".join(f"{values[i]:.0f}" for values in results.values())
    print(f"| {rho:g} | {cells} |")

# %%
# Plot
# ----
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(6.4, 4.2))
for (name, values), marker in zip(results.items(), "os^", strict=True):
    ax.plot(rhos, values, marker=marker, label=name)
ax.axhline(reference, color="k", linestyle="--", label="non-private RidgeCV")
ax.axhline(mean_only, color="grey", linestyle=":", label="predict the training mean")
ax.set_xscale("log")
ax.set_xlabel("privacy budget ρ (zCDP); the search costs one release")
ax.set_ylabel(f"test MSE (median of {repeats})")
ax.set_title("Private ridge on diabetes (n_train = 331, 10 features)")
ax.legend()
fig.tight_layout()
fig.savefig("private_ridge.png", dpi=120)
