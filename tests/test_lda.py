"""PrivateLinearDiscriminantAnalysis: one release per class (§15)."""

import math

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from skprivcov import PrivacyAccountant, PrivacyCost
from skprivcov._data._statistics import unit_ball_statistics
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis, _lda


def _blobs(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[-0.4, 0.0], [0.4, 0.1], [0.0, 0.45]])
    y = rng.integers(0, 3, n)
    return centres[y] + 0.08 * rng.normal(size=(n, 2)), y


def _spy(monkeypatch):
    """The class sums given Gaussian noise (zCDP budgets), as they are noised."""
    calls = []
    original = _lda._noisy_class_sum

    def spy(moment, n_samples, budget, rng, *args):
        if budget.notion == "zcdp":
            calls.append((moment.copy(), n_samples, budget))
        return original(moment, n_samples, budget, rng, *args)

    monkeypatch.setattr(_lda, "_noisy_class_sum", spy)
    return calls


def test_each_class_sum_gets_one_release_of_noise_at_the_whole_budget(monkeypatch):
    """§15: the sums are released jointly at one release's cost: every class's
    Σ_{i∈c} a aᵀ/n (augmented rows, exactly) gets GaussCov at the whole ρ."""
    X, y = _blobs()
    calls = _spy(monkeypatch)
    # At a public bound (the default's private bound takes 1/16 first).
    clf = PrivateLinearDiscriminantAnalysis(
        classes=[0, 1, 2],
        rho=0.5,
        norm_bound=1.0,
        covariance="full",
        noise="float",
        random_state=0,
    ).fit(X, y)
    assert len(calls) == 3
    for label, (moment, n_samples, budget) in zip(clf.classes_, calls, strict=True):
        rows = X[y == label]
        stats = unit_ball_statistics(rows, 1.0, with_mean=True)
        share = len(rows) / len(X)
        assert n_samples == len(X) and budget == PrivacyCost.zcdp(0.5)
        np.testing.assert_allclose(moment[:2, :2], stats.second_moment * share / 2)
        np.testing.assert_allclose(moment[:2, 2], stats.mean * share / 2)
        assert moment[2, 2] == pytest.approx(share / 2)
    assert clf.privacy_spent_ == PrivacyCost.zcdp(0.5)
    assert [p.step for p in clf.privacy_parts_] == ["per-class sums"]


def test_the_joint_sensitivity_is_that_of_one_release(monkeypatch):
    """Replace one row by one of another class and value: the stacked class
    moments move by at most √2/n in Frobenius norm (§15), the sensitivity
    GaussCov is calibrated for."""
    X, y = _blobs(n=200)
    calls = _spy(monkeypatch)
    for swap in range(20):
        X2, y2 = X.copy(), y.copy()
        X2[swap] = np.array([0.6, -0.8]) * (swap % 3 + 1) / 3
        y2[swap] = (y[swap] + 1 + swap % 2) % 3
        calls.clear()
        PrivateLinearDiscriminantAnalysis(
            rho=1.0, covariance="full", noise="float", random_state=0
        ).fit(X, y)
        first = np.array([moment for moment, _, _ in calls])
        calls.clear()
        PrivateLinearDiscriminantAnalysis(
            rho=1.0, covariance="full", noise="float", random_state=0
        ).fit(X2, y2)
        second = np.array([moment for moment, _, _ in calls])
        assert np.linalg.norm(first - second) <= math.sqrt(2) / len(X) * (1 + 1e-12)


def _upper_l1(moments):
    rows, cols = np.triu_indices(moments.shape[-1])
    return np.abs(moments[:, rows, cols]).sum()


def _class_moments(X, y, classes):
    """Σ_{i∈c} a aᵀ / n of the augmented rows a = (x/√2, 1/√2), per class."""
    A = np.hstack([X, np.ones((len(X), 1))]) / math.sqrt(2)
    return np.array([A[y == c].T @ A[y == c] for c in classes]) / len(X)


def test_the_joint_l1_sensitivity_holds_and_is_attained():
    """The pure path's Δ₁ = ((√d+1)²/2 + 1)/n (§15): no replacement of one
    row (value and class) moves the stacked upper triangles further, in a
    random search over unit-ball rows, and moving x = 1/√d to another class
    attains it. A Δ₁ 10% too small fails the second check."""
    from skprivcov.mechanisms import per_class_sums_l1_sensitivity

    rng = np.random.default_rng(0)
    n, d, classes = 50, 4, (0, 1, 2)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = rng.integers(0, 3, n)
    bound = per_class_sums_l1_sensitivity(d, n)
    base = _class_moments(X, y, classes)
    worst = 0.0
    for _ in range(2000):
        X2, y2 = X.copy(), y.copy()
        i = rng.integers(n)
        row = rng.normal(size=d) * rng.choice([1.0, 0.0, 1e3])
        X2[i] = row / max(1.0, np.linalg.norm(row))
        y2[i] = rng.integers(0, 3)
        worst = max(worst, _upper_l1(_class_moments(X2, y2, classes) - base))
    assert worst <= bound * (1 + 1e-12)
    X2, y2 = X.copy(), y.copy()
    X[0] = X2[0] = np.full(d, 1 / math.sqrt(d))
    y[0], y2[0] = 0, 1
    moved = _upper_l1(_class_moments(X2, y2, classes) - _class_moments(X, y, classes))
    assert moved == pytest.approx(bound, rel=1e-12)


def test_a_pure_budget_adds_laplace_noise_at_the_joint_scale(monkeypatch):
    """Under pure ε every class sum gets symmetric Laplace noise of scale
    Δ₁/ε, Δ₁ the joint ℓ1 sensitivity (§15), and the fit costs ε. The mean
    absolute upper-triangle noise estimates the scale b: 400 fits × 3 classes
    × 6 entries, 4.5 standard errors (|L| has mean b and sd b) are 3.1%."""
    from skprivcov.mechanisms import per_class_sums_l1_sensitivity
    from skprivcov.mechanisms.noise import _source as _noise_source

    X, y = _blobs(n=300)
    noises = []
    original = _noise_source.symmetric_noise

    def spy(*args, **kwargs):
        noise = original(*args, **kwargs)
        noises.append(noise)
        return noise

    monkeypatch.setattr(_noise_source, "symmetric_noise", spy)
    calls = _spy(monkeypatch)
    for seed in range(400):
        clf = PrivateLinearDiscriminantAnalysis(
            classes=[0, 1, 2],
            epsilon=0.5,
            norm_bound=1.0,
            covariance="full",
            noise="float",
            random_state=seed,
        )
        clf.fit(X, y)
    assert calls == []  # no Gaussian noise
    assert clf.privacy_spent_ == PrivacyCost.pure(0.5)
    rows, cols = np.triu_indices(3)
    draws = np.abs(np.array(noises)[:, rows, cols]).ravel()
    assert draws.size == 400 * 3 * 6
    scale = per_class_sums_l1_sensitivity(2, 300) / 0.5
    assert np.mean(draws) == pytest.approx(scale, rel=4.5 / math.sqrt(draws.size))
    # Symmetric: the lower triangle mirrors the upper.
    assert all(np.array_equal(noise, noise.T) for noise in noises[:10])


def test_an_accountant_is_charged_once_for_all_classes():
    X, y = _blobs()
    accountant = PrivacyAccountant(rho=1.0)
    PrivateLinearDiscriminantAnalysis(
        classes=[0, 1, 2], rho=0.4, accountant=accountant
    ).fit(X, y)
    assert accountant.spent.rho == pytest.approx(0.4)
    assert len(accountant.history()) == 1


def test_public_problems_are_refused_before_spending():
    X, y = _blobs()
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        PrivateLinearDiscriminantAnalysis(
            rho=1.0, epsilon=1.0, accountant=accountant
        ).fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        PrivateLinearDiscriminantAnalysis(
            classes=[0, 1, 2], n_components=3, accountant=accountant
        ).fit(X, y)
    assert accountant.history() == []


def test_no_label_in_the_public_classes_can_make_the_fit_fail():
    """The kind of labels is checked on the public ``classes`` before the
    charge; afterwards y is checked only for membership. Whether some row has
    a listed label must not decide whether the fit succeeds (§13.2)."""
    X, y = _blobs(n=300)
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError, match="label type"):
        PrivateLinearDiscriminantAnalysis(
            classes=[0, 0.5, 1], rho=0.1, accountant=accountant
        ).fit(X, np.minimum(y, 1))
    assert accountant.history() == []
    for labels in (y.astype(float), np.where(y == 2, 1, y).astype(float)):
        clf = PrivateLinearDiscriminantAnalysis(classes=[0, 1, 2], rho=0.1)
        assert list(clf.fit(X, labels).classes_) == [0, 1, 2]


def test_labels_outside_the_public_classes_are_refused_after_the_charge():
    X, y = _blobs()
    accountant = PrivacyAccountant(rho=1.0)
    clf = PrivateLinearDiscriminantAnalysis(
        classes=[0, 1], rho=0.1, accountant=accountant
    )
    with pytest.raises(ValueError, match="not in classes") as refused:
        clf.fit(X, y)
    assert "2" not in str(refused.value)  # no label value in the message
    assert accountant.spent.rho == pytest.approx(0.1)
    # A public class that y lacks is kept (its count is released as ~0).
    clf = PrivateLinearDiscriminantAnalysis(classes=[0, 1, 2, 3], rho=1.0).fit(X, y)
    assert list(clf.classes_) == [0, 1, 2, 3]
    assert clf.priors_[3] < 0.05


def test_the_classifier_learns_and_transforms():
    X, y = _blobs()
    clf = PrivateLinearDiscriminantAnalysis(rho=1.0, random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.95
    np.testing.assert_allclose(clf.predict_proba(X[:10]).sum(axis=1), 1.0)
    np.testing.assert_allclose(clf.priors_, np.bincount(y) / len(y), atol=0.02)
    np.testing.assert_allclose(
        clf.means_, [X[y == c].mean(axis=0) for c in range(3)], atol=0.03
    )
    assert clf.transform(X).shape == (len(X), 2)
    one = PrivateLinearDiscriminantAnalysis(rho=1.0, n_components=1, random_state=0)
    assert one.fit(X, y).transform(X).shape == (len(X), 1)


def test_digits_accuracy_follows_the_budget():
    """Digits (10 classes, d = 64, rows scaled into the unit ball): test
    accuracy rises with ρ and approaches the non-private LDA's (0.96)."""
    data = load_digits()
    X = data.data / 128
    X_train, X_test, y_train, y_test = train_test_split(
        X, data.target, test_size=0.3, random_state=0, stratify=data.target
    )
    accuracy = {
        rho: np.mean(
            [
                PrivateLinearDiscriminantAnalysis(rho=rho, random_state=seed)
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(3)
            ]
        )
        for rho in (0.1, 10.0)
    }
    assert accuracy[0.1] < accuracy[10.0]
    assert accuracy[10.0] > 0.85


def test_in_a_pipeline_and_a_grid_search_every_fit_is_charged():
    """In a Pipeline behind a public-bounds scaler and in a GridSearchCV over
    the budget split by n_components: every fold fit and the refit charge the
    shared accountant (2 candidates × 3 folds + 1 refit), and the refitted
    model classifies."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    from skprivcov.preprocessing import FeatureBoundsScaler

    X, y = _blobs(n=1500)
    accountant = PrivacyAccountant(rho=10.0)
    pipeline = make_pipeline(
        FeatureBoundsScaler(lower=[-1, -1], upper=[1, 1]),
        PrivateLinearDiscriminantAnalysis(
            classes=[0, 1, 2], rho=0.5, norm_bound=2.0, accountant=accountant
        ),
    )
    search = GridSearchCV(
        pipeline,
        {"privatelineardiscriminantanalysis__n_components": [1, 2]},
        cv=3,
    ).fit(X, y)
    assert len(accountant.history()) == 7
    assert accountant.spent.rho == pytest.approx(3.5)
    assert search.score(X, y) > 0.9
