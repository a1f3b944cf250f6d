"""Breast cancer outliers with no bound given (issue 33, part 4).

scikit-learn's ``load_breast_cancer`` as shipped (569 rows, 30 features on
scales from 1e-3 to 1e3, no scaling, no bound given). A
``PrivateEllipticEnvelope`` is fitted on benign rows only and scores rows
with ``-decision_function`` (its squared Mahalanobis distance); the ROC AUC
is that of the malignant label (the positive class). Two protocols:

* ``benign``: fit on all 357 benign rows, score all 569 rows;
* ``held-out``: fit on a random 70% of the benign rows (one split per seed),
  score the other 30% and the 212 malignant rows.

Routes, each at a total budget of ρ = 1 unless said:

* the envelope's default estimator (``AutoCovariance()``, ρ = 0.1);
* ``estimator=`` AutoCovariance, GaussianCovariance, CoinPressCovariance at
  ρ = 1 (each with its defaults: private scales, no bound given);
* the pipeline ``PrivateFeatureScaler(rho=0.1)`` (a private box per feature)
  then the envelope at ρ = 0.9 (its ``transform`` clips the scored rows into
  the box too, malignant ones included);
* non-private references: the Mahalanobis distance under the benign rows'
  sample mean and covariance (``EmpiricalCovariance``), the Euclidean
  distance to their mean, and the raw norm ‖x‖: what a release of nothing
  (mean 0, covariance 0, an isotropic floor) scores by. On this data ‖x‖
  alone gives 0.962, so an AUC near it says nothing about the release: the
  envelope's default at ρ = 0.1 releases nothing (its private bound falls
  back, docs/algorithms.rst §18.2), and so does CoinPress where its private
  first scale cannot be bought (ρ = 0.1, or the 249 training rows of the
  held-out protocol at ρ = 1).

Prints the median and the minimum AUC over the seeds. Run:
``python benchmarks/bench_envelope_auc.py [--seeds 20]``.
"""

import argparse
import warnings

import numpy as np
from sklearn.covariance import EmpiricalCovariance
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skprivcov import AutoCovariance, CoinPressCovariance, GaussianCovariance
from skprivcov.covariance import PrivateEllipticEnvelope
from skprivcov.preprocessing import PrivateFeatureScaler

SCALER_RHO = 0.1


def _envelope(estimator, seed):
    return PrivateEllipticEnvelope(estimator=estimator, random_state=seed)


def _scaled(estimator, seed):
    return make_pipeline(
        PrivateFeatureScaler(rho=SCALER_RHO, random_state=seed),
        _envelope(estimator, seed),
    )


ROUTES = {
    "envelope default (Auto, rho=0.1)": lambda s: _envelope(None, s),
    "Auto (rho=1)": lambda s: _envelope(AutoCovariance(rho=1.0), s),
    "Gaussian (rho=1)": lambda s: _envelope(GaussianCovariance(rho=1.0), s),
    "CoinPress (rho=1)": lambda s: _envelope(CoinPressCovariance(rho=1.0), s),
    "Scaler 0.1 + Auto 0.9": lambda s: _scaled(AutoCovariance(rho=0.9), s),
    "Scaler 0.1 + Gaussian 0.9": lambda s: _scaled(GaussianCovariance(rho=0.9), s),
    "Scaler 0.1 + CoinPress 0.9": lambda s: _scaled(CoinPressCovariance(rho=0.9), s),
}


def problem(protocol, seed):
    """(training rows, scored rows, malignant label of the scored rows)."""
    data = load_breast_cancer()
    X, malignant = data.data, data.target == 0
    benign = X[~malignant]
    if protocol == "benign":
        return benign, X, malignant
    train, test = train_test_split(benign, test_size=0.3, random_state=seed)
    scored = np.vstack([test, X[malignant]])
    labels = np.r_[np.zeros(len(test), bool), np.ones(int(malignant.sum()), bool)]
    return train, scored, labels


def route_aucs(make, protocol, seeds):
    """The AUC of one route on each seed (the seed of the split and release)."""
    aucs = []
    for seed in seeds:
        train, scored, labels = problem(protocol, seed)
        detector = make(seed).fit(train)
        aucs.append(roc_auc_score(labels, -detector.decision_function(scored)))
    return np.array(aucs)


def reference_aucs(protocol, seeds):
    """Non-private Mahalanobis and Euclidean distances, per seed."""
    found = {
        "non-private Mahalanobis": [],
        "non-private Euclidean": [],
        "norm ||x|| (a release of nothing)": [],
    }
    for seed in seeds:
        train, scored, labels = problem(protocol, seed)
        reference = EmpiricalCovariance().fit(train)
        found["non-private Mahalanobis"].append(
            roc_auc_score(labels, reference.mahalanobis(scored))
        )
        euclidean = np.linalg.norm(scored - train.mean(axis=0), axis=1)
        found["non-private Euclidean"].append(roc_auc_score(labels, euclidean))
        norms = np.linalg.norm(scored, axis=1)
        found["norm ||x|| (a release of nothing)"].append(roc_auc_score(labels, norms))
    return {name: np.array(aucs) for name, aucs in found.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    seeds = range(args.seeds)
    warnings.filterwarnings("ignore", category=UserWarning)
    for protocol in ("benign", "held-out"):
        print(f"{protocol}: AUC median / min over {args.seeds} seeds")
        results = {
            name: route_aucs(make, protocol, seeds) for name, make in ROUTES.items()
        }
        results.update(reference_aucs(protocol, seeds))
        for name, aucs in results.items():
            print(f"  {name:34s} {np.median(aucs):.3f} / {aucs.min():.3f}", flush=True)


if __name__ == "__main__":
    main()
