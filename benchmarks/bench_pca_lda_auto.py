"""Raw digits: PrivatePCA(30) + PrivateLinearDiscriminantAnalysis with the
quickstart's hand-chosen bound 32, with ``norm_bound="auto"``, and with the
library's defaults (bound 1), at the quickstart's budget (ρ = 0.5 each, 1 in
all). Prints the median test accuracy over seeds (issue 33).

Run: ``python benchmarks/bench_pca_lda_auto.py [--seeds 10]``.
"""

import argparse

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skprivcov import AutoCovariance
from skprivcov.decomposition import PrivatePCA
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis


def _pipeline(bound, seed):
    settings = {} if bound is None else {"norm_bound": bound}
    return make_pipeline(
        PrivatePCA(
            n_components=30,
            estimator=AutoCovariance(rho=0.5, allow_zero=False, **settings),
            random_state=2 * seed,
        ),
        # The digits 0-9: a public label set (docs/algorithms.rst §25).
        PrivateLinearDiscriminantAnalysis(
            classes=range(10), rho=0.5, random_state=2 * seed + 1, **settings
        ),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args(argv)
    X, y = load_digits(return_X_y=True)
    X_a, X_b, y_a, y_b = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    for label, bound in (
        ("hand-chosen bound 32", 32.0),
        ("auto", "auto"),
        ("defaults", None),
    ):
        scores = [
            _pipeline(bound, seed).fit(X_a, y_a).score(X_b, y_b)
            for seed in range(args.seeds)
        ]
        print(f"{label:22s} median accuracy {np.median(scores):.3f}")


if __name__ == "__main__":
    main()
