"""Releases on scikit-learn's bundled datasets: scores, searches and outliers.

1. A ``GridSearchCV`` over {mechanism × norm_bound × ρ}, with the estimators'
   own ``score`` (Gaussian log-likelihood under the floored precision) and
   with ``skprivcov.metrics.covariance_error_score``, on
   wine, diabetes and breast cancer (rows bounded as in ``_settings``): are
   all scores finite, and how far is the pick's held-out Frobenius error
   ‖Σ̂_train − Σ_test‖_F (each configuration's mean over 10 fresh releases)
   from the best configuration's (issue 20: within 10%)?
2. Mahalanobis outlier detection on breast cancer at ρ = 1: each zCDP
   mechanism's centred release of the benign rows, and the AUC of the
   distances of all rows (the malignant ones are the positives), against the
   non-private covariance (issue 20: ≥ 0.9 for every zCDP mechanism).

    python benchmarks/bench_real_data.py [--repeats 20]
"""

import argparse
import itertools

import numpy as np
from _settings import BUNDLED, PUBLIC_RANGES, bounded_rows, markdown_table
from sklearn.covariance import EmpiricalCovariance
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline

from skprivcov import (
    AdaptiveCovariance,
    AutoCovariance,
    GaussianCovariance,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov.metrics import covariance_error_score

REFITS = 10
ZCDP = {
    "Gauss": GaussianCovariance,
    "Separate": SeparateCovariance,
    "Projection": ProjectionCovariance,
    "Adaptive": AdaptiveCovariance,
    "Auto": AutoCovariance,
}


def grid_search(label, seed, scoring=None):
    data = BUNDLED[label]()
    X = bounded_rows(data.data, PUBLIC_RANGES.get(label))
    train, test = train_test_split(X, test_size=0.3, random_state=seed)
    candidates = [cls(random_state=seed) for cls in ZCDP.values()] + [ZeroCovariance()]
    grid = [
        {"cov": candidates[:-1], "cov__norm_bound": [0.5, 1.0], "cov__rho": [0.1, 1.0]},
        {"cov": candidates[-1:]},
    ]
    search = GridSearchCV(Pipeline([("cov", candidates[0])]), grid, scoring=scoring)
    search.fit(train)
    scores = search.cv_results_["mean_test_score"]
    target = test.T @ test / len(test)
    # Each configuration's held-out error in expectation (mean over fresh
    # releases): one release's error is too noisy to rank by (a minimum over
    # single draws is biased low).
    errors = []
    for params in search.cv_results_["params"]:
        model = Pipeline([("cov", candidates[0])]).set_params(**params)
        draws = []
        for refit_seed in range(REFITS):
            if "random_state" in model[-1].get_params():
                model[-1].set_params(random_state=1000 + refit_seed)
            draws.append(np.linalg.norm(model.fit(train)[-1].covariance_ - target))
        errors.append(np.mean(draws))
    errors = np.array(errors)
    return bool(np.all(np.isfinite(scores))), errors[search.best_index_] / errors.min()


def outlier_auc(seed):
    data = BUNDLED["breast cancer"]()
    X = bounded_rows(data.data)
    malignant = data.target == 0
    aucs = {}
    for name, cls in ZCDP.items():
        est = cls(rho=1.0, assume_centered=False, random_state=seed)
        aucs[name] = roc_auc_score(malignant, est.fit(X[~malignant]).mahalanobis(X))
    non_private = EmpiricalCovariance().fit(X[~malignant])
    aucs["non-private"] = roc_auc_score(malignant, non_private.mahalanobis(X))
    return aucs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--outliers-only", action="store_true")
    args = parser.parse_args()
    rows = []
    labels = () if args.outliers_only else ("wine", "diabetes", "breast cancer")
    scorings = {
        "score (log-likelihood)": None,
        "covariance_error_score": covariance_error_score,
    }
    for (scoring_name, scoring), label in itertools.product(scorings.items(), labels):
        runs = [grid_search(label, seed, scoring) for seed in range(args.repeats)]
        finite = all(run[0] for run in runs)
        ratios = np.array([run[1] for run in runs])
        rows.append(
            [
                scoring_name,
                label,
                "yes" if finite else "NO",
                float(np.mean(ratios)),
                float(np.max(ratios)),
                f"{np.mean(ratios <= 1.1):.0%}",
            ]
        )
        print(label, "done", flush=True)
    print(f"\nGridSearchCV over mechanism × norm_bound × ρ, {args.repeats} splits\n")
    header = [
        "scoring",
        "dataset",
        "all scores finite",
        "pick/best mean",
        "max",
        "≤ 1.1×",
    ]
    print(markdown_table(header, rows))
    aucs = [outlier_auc(seed) for seed in range(args.repeats)]
    names = list(aucs[0])
    print("\nMahalanobis outlier AUC on breast cancer at ρ = 1 (mean, min)\n")
    print(
        markdown_table(
            ["estimator", "mean AUC", "min AUC"],
            [
                [
                    n,
                    float(np.mean([a[n] for a in aucs])),
                    float(np.min([a[n] for a in aucs])),
                ]
                for n in names
            ],
        )
    )


if __name__ == "__main__":
    main()
