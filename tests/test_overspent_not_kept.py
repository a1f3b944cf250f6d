"""An overspent release is never kept (docs/algorithms.rst §13.2): when the
parts a fit spent do not compose to within its budget (a bug in a split), the
fit raises and publishes nothing of that release, in every fit template
(review of issue 36: the classifiers and the fold releases stored theirs
before the check)."""

import numpy as np
import pytest

from skprivcov import GaussianCovariance
from skprivcov._models import _class_blocks as _class_blocks
from skprivcov._models import _fold_releases as _folds
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.model_selection import FoldReleases
from skprivcov.naive_bayes import PrivateGaussianNB

RNG = np.random.default_rng(5)
X = RNG.normal(size=(240, 3))
y = np.repeat([0, 1], 120)


@pytest.mark.parametrize(
    "classifier",
    [
        PrivateGaussianNB(rho=1.0, norm_bound=3.0, random_state=0),
        PrivateLinearDiscriminantAnalysis(
            rho=1.0, norm_bound=3.0, covariance="diagonal", random_state=0
        ),
    ],
    ids=["GaussianNB", "LDA-diagonal"],
)
def test_a_classifier_keeps_nothing_of_an_overspent_release(monkeypatch, classifier):
    classifier.fit(X, y)  # an earlier fit, paid for: it stays whole
    earlier = {n: v for n, v in vars(classifier).items() if n.endswith("_")}
    shares = dict(_class_blocks.BLOCK_SHARES)
    shares["totals"] *= 2.0  # a split that spends more than the budget
    monkeypatch.setattr(_class_blocks, "BLOCK_SHARES", shares)
    with pytest.raises(RuntimeError):
        classifier.fit(X, y)
    # Nothing of the overspent release: the fitted state is the earlier one,
    # the same objects (the fit template stages every hook's writes).
    now = {n: v for n, v in vars(classifier).items() if n.endswith("_")}
    assert now.keys() == earlier.keys()
    assert all(now[n] is earlier[n] for n in now)


def test_fold_releases_keep_nothing_of_an_overspent_release(monkeypatch):
    honest = _folds.UnsupervisedFolds.bound_parts

    def overspending(self, cost):
        parts, _ = honest(self, cost)
        return parts, cost  # the folds get the whole budget after the bound's part

    monkeypatch.setattr(_folds.UnsupervisedFolds, "bound_parts", overspending)
    folds = FoldReleases(estimator=GaussianCovariance(rho=1.0), random_state=0)
    with pytest.raises(RuntimeError):
        folds.fit(X)
    published = ("fold_releases_", "tokens_", "release_", "privacy_spent_")
    assert [name for name in published if hasattr(folds, name)] == []
