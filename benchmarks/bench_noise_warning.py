"""Does the noise warning fire where the release is empty, and only there?

docs/algorithms.rst §23 ("No silent empty release"), issue 46 part 3: every
covariance release publishes ``signal_to_noise_`` (its largest eigenvalue over
the public noise level of its budget) and warns ``NoiseDominatedWarning``
below ``NOISE_DOMINATED_RATIO``. On raw tables as users have them (no bounds
given, library defaults: AutoCovariance and GaussianCovariance; LaplaceCovariance
for the pure budgets), at ρ ∈ {0.1, 1, 10} and ε ∈ {1, 4}, each cell over
``--repeats`` seeds: the mean relative Frobenius error of the release against
the table's covariance (1.0 = the zero matrix), the share of fits that warned,
and the two counts the warning must keep at zero: fits whose error reached
0.9 of the zero matrix's without a warning, and fits whose error was at most
0.5 with one.

    python benchmarks/bench_noise_warning.py [--repeats 20]
"""

import argparse
import warnings

import numpy as np
from _settings import RAW_TABLE_BUDGETS, markdown_table
from sklearn import datasets

from skprivcov import AutoCovariance, GaussianCovariance, LaplaceCovariance
from skprivcov.privacy import NoiseDominatedWarning

BUDGETS = RAW_TABLE_BUDGETS


def _offset_table(seed=0):
    """20 000 Gaussian rows, d = 8, scales 1e-3…1e3, offsets up to 1e4."""
    rng = np.random.default_rng(seed)
    scales = np.logspace(-3, 3, 8)
    offsets = np.logspace(0, 4, 8)
    return rng.normal(size=(20_000, 8)) * scales + offsets


def tables():
    found = {
        "iris": datasets.load_iris().data,
        "wine": datasets.load_wine().data,
        "diabetes": datasets.load_diabetes().data,
        "breast cancer": datasets.load_breast_cancer().data,
        "digits": datasets.load_digits().data,
        "offsets 1e4, scales 1e-3..1e3": _offset_table(),
    }
    try:
        import palmerpenguins

        penguins = palmerpenguins.load_penguins().select_dtypes("number").dropna()
        found["penguins"] = penguins.drop(columns="year").to_numpy(dtype=float)
    except ImportError:
        print("(palmerpenguins not installed: its table is left out)")
    return found


def _estimators(kind, value):
    if kind == "rho":
        return {
            "Auto": AutoCovariance(rho=value),
            "Gaussian": GaussianCovariance(rho=value),
        }
    return {
        "Auto": AutoCovariance(epsilon=value),
        "Laplace": LaplaceCovariance(epsilon=value),
    }


def _fit(estimator, X, seed):
    estimator.set_params(random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X)
    warned = any(issubclass(w.category, NoiseDominatedWarning) for w in caught)
    return estimator, warned


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    rows, missed, false_alarms, fits = [], 0, 0, 0
    cell_missed, cell_false = 0, 0
    for label, X in tables().items():
        truth = np.cov(X, rowvar=False, bias=True)
        scale = np.linalg.norm(truth)
        for kind, value in BUDGETS:
            for name, estimator in _estimators(kind, value).items():
                errors, warned = [], []
                for seed in range(args.repeats):
                    fitted, w = _fit(estimator, X, seed)
                    errors.append(np.linalg.norm(fitted.covariance_ - truth) / scale)
                    warned.append(w)
                errors, warned = np.array(errors), np.array(warned)
                fits += errors.size
                missed += int(np.sum((errors >= 0.9) & ~warned))
                false_alarms += int(np.sum((errors <= 0.5) & warned))
                mean = errors.mean()
                share = warned.mean()
                cell_missed += mean >= 0.9 and share < 0.5
                cell_false += mean <= 0.5 and share >= 0.5
                rows.append(
                    [
                        label,
                        X.shape[0],
                        f"{kind}={value:g}",
                        name,
                        f"{mean:.3f}",
                        f"{share:.2f}",
                    ]
                )
                print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print()
    print(
        markdown_table(
            ["table", "n", "budget", "estimator", "error (1 = zero)", "warned"], rows
        )
    )
    print()
    print(f"fits: {fits}; error >= 0.9 without a warning: {missed}; ")
    print(f"error <= 0.5 with a warning: {false_alarms}")
    print(
        f"cells (mean error, warned in at least half the fits): error >= 0.9 "
        f"not warned: {cell_missed}; error <= 0.5 warned: {cell_false}"
    )


if __name__ == "__main__":
    main()
