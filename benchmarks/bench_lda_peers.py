"""Private LDA against diffprivlib's GaussianNB and LogisticRegression.

Test accuracy (30% held out, stratified; mean of 20 splits and seeds) on wine, breast
cancer and digits, features mapped to [0, 1] by their ranges (digits: its
public pixel range [0, 16]) and rows divided by √d, at ε ∈ {0.5, 1, 4}.
PrivateLinearDiscriminantAnalysis runs at pure ε (Laplace noise at the joint
ℓ1 sensitivity, §15), the guarantee of diffprivlib's models, and at the ρ
calibrated to (ε, 10⁻⁶)-DP (Gaussian noise, a weaker guarantee). Peers are
benchmark extras (see ``bench_pca_peers.py``).

    python benchmarks/bench_lda_peers.py
"""

import warnings

import numpy as np
from _settings import BUNDLED, PUBLIC_RANGES, bounded_rows, markdown_table
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import train_test_split

from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis

EPSILONS = (0.5, 1.0, 4.0)
REPEATS = 20


def models(epsilon, d, seed, n_classes):
    from diffprivlib.models import GaussianNB, LogisticRegression

    return {
        # The datasets' labels are public (classes=, docs/algorithms.rst §25).
        "skprivcov LDA ε": PrivateLinearDiscriminantAnalysis(
            classes=range(n_classes), epsilon=epsilon, random_state=seed
        ),
        "skprivcov LDA (ε, 1e-6)": PrivateLinearDiscriminantAnalysis(
            classes=range(n_classes), epsilon=epsilon, delta=1e-6, random_state=seed
        ),
        "diffprivlib GaussianNB": GaussianNB(
            epsilon=epsilon, bounds=(0.0, 1.0 / np.sqrt(d)), random_state=seed
        ),
        "diffprivlib LogisticRegression": LogisticRegression(
            epsilon=epsilon, data_norm=1.0, random_state=seed
        ),
    }


def main():
    warnings.simplefilter("ignore")
    rows = []
    for label in ("wine", "breast cancer", "digits"):
        data = BUNDLED[label]()
        X = bounded_rows(data.data, PUBLIC_RANGES.get(label))
        y = data.target
        for epsilon in EPSILONS:
            scores = {}
            for seed in range(REPEATS):
                X_train, X_test, y_train, y_test = train_test_split(
                    X, y, test_size=0.3, random_state=seed, stratify=y
                )
                for name, model in models(
                    epsilon, X.shape[1], seed, data.target_names.size
                ).items():
                    model.fit(X_train, y_train)
                    scores.setdefault(name, []).append(model.score(X_test, y_test))
                scores.setdefault("non-private LDA", []).append(
                    LinearDiscriminantAnalysis()
                    .fit(X_train, y_train)
                    .score(X_test, y_test)
                )
            rows.append([label, epsilon, *(float(np.mean(s)) for s in scores.values())])
            print(rows[-1], flush=True)
    print(f"\ntest accuracy, mean of {REPEATS} splits\n")
    print(markdown_table(["data", "ε", *scores], rows))


if __name__ == "__main__":
    main()
