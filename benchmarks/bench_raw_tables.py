"""Raw tables in, a useful covariance out? (issue 46, docs/algorithms.rst §23)

Every table as users have it (raw numeric columns, no bounds given), at
ρ ∈ {0.1, 1, 10} and ε ∈ {1, 4}, ``--repeats`` seeds per cell. For each
cell, the mean relative Frobenius error of the release against the table's
covariance (1.0 = the zero matrix) of:

* ``auto``: ``AutoCovariance()`` at its defaults (the private per-feature
  normalisation of §23 in front);
* ``auto raw``: the same with ``feature_scaling=None`` (the rows as given:
  the defaults before §23);
* ``gauss``: ``GaussianCovariance()`` (or ``LaplaceCovariance()`` for the
  pure budgets) at its defaults;
* ``coinpress``: ``CoinPressCovariance()`` (zCDP only);
* ``oracle``: AutoCovariance with a public oracle normalisation (the table's
  own mean and deviation, ``feature_scaling=(mean, std)``: not private, the
  yardstick of §23's acceptance);

and for ``auto`` the correlation read from the release against the
identity's (``corr``: the error of the release's correlation over the
identity's; below 1 is better than the identity) and the share of fits that
warned ``NoiseDominatedWarning``.

    python benchmarks/bench_raw_tables.py [--repeats 20]

The tables: scikit-learn's iris, wine, diabetes (raw), breast cancer and
digits; a synthetic table (20 000 rows, offsets up to 1e4, scales 1e-3…1e3);
palmerpenguins and statsmodels' fair, randhie, anes96, star98 and
modechoice (``pip install statsmodels palmerpenguins``; a missing package's
tables are left out and said so).
"""

import argparse
import warnings

import numpy as np
from _settings import RAW_TABLE_BUDGETS, markdown_table
from sklearn import datasets

from skprivcov import (
    AutoCovariance,
    CoinPressCovariance,
    GaussianCovariance,
    LaplaceCovariance,
)
from skprivcov.privacy import NoiseDominatedWarning

BUDGETS = RAW_TABLE_BUDGETS


def _offset_table(seed=0):
    """20 000 correlated Gaussian rows, d = 8, scales 1e-3…1e3, offsets
    up to 1e4."""
    rng = np.random.default_rng(seed)
    d = 8
    mixing = rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d)
    return (rng.normal(size=(20_000, d)) @ mixing) * np.logspace(-3, 3, d) + (
        np.logspace(0, 4, d)
    )


def tables():
    found = {
        "iris": datasets.load_iris().data,
        "wine": datasets.load_wine().data,
        "diabetes": datasets.load_diabetes(scaled=False).data,
        "breast cancer": datasets.load_breast_cancer().data,
        "digits": datasets.load_digits().data,
        "offsets 1e4, scales 1e-3..1e3": _offset_table(),
    }
    try:
        import palmerpenguins

        penguins = palmerpenguins.load_penguins().select_dtypes("number").dropna()
        found["penguins"] = penguins.to_numpy(dtype=float)
    except ImportError:
        print("(palmerpenguins not installed: its table is left out)")
    try:
        import statsmodels.api as sm

        for name in ("fair", "randhie", "anes96", "star98", "modechoice"):
            data = getattr(sm.datasets, name).load_pandas().data
            found[name] = data.select_dtypes("number").dropna().to_numpy(dtype=float)
    except ImportError:
        print("(statsmodels not installed: its tables are left out)")
    return found


def _budget(kind, value):
    return {kind: value}


def _estimators(kind, value, X):
    budget = _budget(kind, value)
    public = (X.mean(axis=0), np.maximum(X.std(axis=0), 1e-30))
    pure = kind == "epsilon"
    found = {
        "auto": AutoCovariance(**budget),
        "auto raw": AutoCovariance(**budget, feature_scaling=None),
        "gauss": (LaplaceCovariance if pure else GaussianCovariance)(**budget),
        "oracle": AutoCovariance(**budget, feature_scaling=public),
    }
    if not pure:
        found["coinpress"] = CoinPressCovariance(**budget)
    return found


def _correlation_ratio(release, truth_correlation):
    deviations = np.sqrt(np.clip(np.diag(release), 1e-300, None))
    correlation = release / np.outer(deviations, deviations)
    identity = np.linalg.norm(np.eye(len(release)) - truth_correlation)
    return np.linalg.norm(correlation - truth_correlation) / max(identity, 1e-300)


def run(repeats):
    rows = []
    for name, X in tables().items():
        truth = np.cov(X.T, bias=True)
        scale = np.linalg.norm(truth)
        deviations = np.sqrt(np.diag(truth))
        kept = deviations > 0
        truth_correlation = truth[np.ix_(kept, kept)] / np.outer(
            deviations[kept], deviations[kept]
        )
        for kind, value in BUDGETS:
            errors, warned, correlations = {}, 0, []
            for seed in range(repeats):
                for label, estimator in _estimators(kind, value, X).items():
                    estimator.set_params(random_state=seed)
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        estimator.fit(X)
                    error = np.linalg.norm(estimator.covariance_ - truth) / scale
                    errors.setdefault(label, []).append(error)
                    if label == "auto":
                        warned += any(
                            issubclass(w.category, NoiseDominatedWarning)
                            for w in caught
                        )
                        release = estimator.covariance_[np.ix_(kept, kept)]
                        correlations.append(
                            _correlation_ratio(release, truth_correlation)
                        )
            means = {label: float(np.mean(v)) for label, v in errors.items()}
            best = min(means.get("coinpress", np.inf), means["oracle"])
            rows.append(
                [
                    name,
                    f"{X.shape[0]}×{X.shape[1]}",
                    f"{'ρ' if kind == 'rho' else 'ε'} = {value:g}",
                    *(
                        f"{means[label]:.3f}" if label in means else "–"
                        for label in ("auto", "auto raw", "gauss", "coinpress")
                    ),
                    f"{means['oracle']:.3f}",
                    f"{means['auto'] / best:.2f}",
                    f"{np.mean(correlations):.2f}",
                    f"{warned}/{repeats}",
                    f"{int(np.sum(np.array(errors['auto']) > 1.0))}/{repeats}",
                ]
            )
            print(" | ".join(rows[-1]), flush=True)
    print()
    print(
        markdown_table(
            [
                "table",
                "n×d",
                "budget",
                "auto",
                "auto raw",
                "gauss",
                "coinpress",
                "oracle",
                "auto / best",
                "corr",
                "warned",
                "auto > zero",
            ],
            rows,
        )
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    run(parser.parse_args().repeats)


if __name__ == "__main__":
    main()
