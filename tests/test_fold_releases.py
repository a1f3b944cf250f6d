"""FoldReleases and ReleaseModel: a grid over post-processing parameters for the
cost of one release (docs/algorithms.rst §14, "Free sweeps over post-processing")."""

import pickle

import numpy as np
import pytest
from sklearn import model_selection as sk
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.linear_model import Ridge

from skprivcov import (
    BudgetExceededError,
    GaussianCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov.decomposition import PrivatePCA
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.model_selection import (
    FoldReleases,
    GridSearchCV,
    ReleaseModel,
    cross_validate,
    release_scorer,
    search_cost,
)

HUGE = 1e14  # ρ at which the noise is far below the tolerances


def _regression(seed=0, n=3000, coef=(1.0, -1.0, 0.5, 0.0, 0.0), noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.4, 0.4, size=(n, len(coef)))
    return X, X @ np.asarray(coef) + noise * rng.normal(size=n)


def _low_rank(seed=0, n=20000, d=6):
    """Rank 2 plus a little isotropic noise: PCA's right dimension is 2."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, d)))[0][:, :2]
    signal = rng.normal(size=(n, 2)) * [0.4, 0.25] @ basis.T
    return signal + 0.03 * rng.normal(size=(n, d))


def _folds_of(n, n_folds, seed):
    """The documented split: a permutation drawn from the seed alone."""
    return np.array_split(np.random.default_rng(seed).permutation(n), n_folds)


# --- One release for the whole grid ------------------------------------------------


GRIDS = {
    "ridge alpha": (PrivateRidge(), {"estimator__alpha": [1e-4, 1e-2, 1.0]}, True),
    "ridge features": (
        PrivateRidge(alpha=1e-3),
        {"estimator__features": [[0], [0, 1], [2, 3, 4], [0, 1, 2, 3, 4]]},
        True,
    ),
    "pca n_components": (
        PrivatePCA(),
        {"estimator__n_components": [1, 2, 3, 4, 5]},
        False,
    ),
}


@pytest.mark.parametrize("grid", list(GRIDS), ids=str)
@pytest.mark.parametrize("search", [GridSearchCV, sk.GridSearchCV], ids=["ours", "sk"])
def test_the_whole_grid_costs_one_release(grid, search):
    model, params, supervised = GRIDS[grid]
    X, y = _regression()
    accountant = PrivacyAccountant(rho=1.0)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=0.4, accountant=accountant),
        y_bound=2.0,
        random_state=0,
    ).fit(X, y if supervised else None)
    (record,) = accountant.history()
    assert record.source == "FoldReleases"
    assert accountant.spent.rho == pytest.approx(0.4)
    assert folds.privacy_spent_ == PrivacyCost.zcdp(0.4)
    assert folds.release_.privacy_spent == PrivacyCost.zcdp(0.4)
    fitted = search(ReleaseModel(model), params, cv=folds).fit(folds.tokens_)
    assert len(accountant.history()) == 1  # the grid, its folds and refit: free
    assert fitted.best_estimator_.privacy_spent_ == PrivacyCost.zero()
    assert fitted.best_estimator_.estimator_.privacy_spent_ == PrivacyCost.zero()
    cost = search_cost(fitted, folds.tokens_)
    assert cost.total == PrivacyCost.zero() and cost.charges == ()
    assert cost.n_fits == 3 * len(next(iter(params.values()))) + 1
    if search is GridSearchCV:
        assert fitted.search_cost_.total == PrivacyCost.zero()


def test_a_spent_budget_still_admits_the_free_grid():
    """The checked search refuses what cannot be paid; a grid on releases
    costs nothing, so it runs after the budget is gone."""
    X, y = _regression()
    accountant = PrivacyAccountant(rho=0.4)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=0.4, accountant=accountant),
        y_bound=2.0,
        random_state=0,
    ).fit(X, y)
    assert accountant.remaining.rho == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(BudgetExceededError):
        clone(folds).fit(X, y)
    GridSearchCV(
        ReleaseModel(PrivateRidge()), {"estimator__alpha": [1e-3, 1.0]}, cv=folds
    ).fit(folds.tokens_)
    scores = cross_validate(
        ReleaseModel(PrivateRidge(alpha=1e-3)), folds.tokens_, cv=folds
    )["test_score"]
    assert scores.shape == (3,) and len(accountant.history()) == 1


# --- The choice is sensible where the answer is known -----------------------------


@pytest.mark.parametrize("seed", range(4))
def test_ridge_alpha_small_with_signal_large_without(seed):
    alphas = [1e-5, 1e-3, 1e-1, 10.0]
    chosen = {}
    for signal in (True, False):
        X, y = _regression(seed, coef=(1.0, -1.0, 0.5, 0.0, 0.0) if signal else [0] * 5)
        folds = FoldReleases(
            estimator=GaussianCovariance(rho=0.5),
            X_norm_bound=1.0,
            y_bound=1.0,
            random_state=seed,
        ).fit(X, y)
        search = sk.GridSearchCV(
            ReleaseModel(PrivateRidge()), {"estimator__alpha": alphas}, cv=folds
        ).fit(folds.tokens_)
        chosen[signal] = search.best_params_["estimator__alpha"]
    # 2α = 0.2 would shrink features of variance 0.05 to almost nothing.
    assert chosen[True] <= 1e-3
    # A pure-noise target: only heavy shrinkage keeps the release's noise out.
    assert chosen[False] >= 1e-1


@pytest.mark.parametrize("seed", range(4))
def test_ridge_features_choose_the_relevant_ones(seed):
    X, y = _regression(seed, n=4000, coef=(1.0, -1.0, 0.0, 0.0), noise=0.2)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=1.0), y_bound=2.0, random_state=seed
    ).fit(X, y)
    grid = [[0], [2, 3], [0, 1], [1, 2, 3]]
    search = sk.GridSearchCV(
        ReleaseModel(PrivateRidge(alpha=1e-4)),
        {"estimator__features": grid},
        cv=folds,
    ).fit(folds.tokens_)
    assert search.best_params_["estimator__features"] == [0, 1]
    np.testing.assert_allclose(
        search.best_estimator_.estimator_.coef_, [1.0, -1.0], atol=0.2
    )


def test_pca_n_components_finds_the_rank():
    """The log-likelihood on held-out fold releases finds the rank 2 of the
    data in most of 12 seeded repetitions (11 of 12 with float noise, 9 with
    hardened noise, at the same noise level; a rank found by chance, 1 in 5,
    would pass 9 times with probability below 1e−4)."""
    found = 0
    for seed in range(12):
        X = _low_rank(seed)
        folds = FoldReleases(
            estimator=GaussianCovariance(rho=1.0), X_norm_bound=1.0, random_state=seed
        ).fit(X)
        search = sk.GridSearchCV(
            ReleaseModel(PrivatePCA()),
            {"estimator__n_components": [1, 2, 3, 4, 5]},
            cv=folds,
        ).fit(folds.tokens_)
        found += search.best_params_["estimator__n_components"] == 2
    assert found >= 9
    # Captured variance only grows with the dimension: it cannot choose one.
    captured = sk.GridSearchCV(
        ReleaseModel(PrivatePCA()),
        {"estimator__n_components": [1, 2, 3, 4, 5]},
        cv=folds,
        scoring=release_scorer("captured_variance"),
    ).fit(folds.tokens_)
    assert np.all(np.diff(captured.cv_results_["mean_test_score"]) >= 0)


# --- The scores are those of the held-out release ---------------------------------


def _psd(matrix):
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return (vectors * np.maximum(values, 0)) @ vectors.T


def _pooled(releases):
    counts = np.array([r.n_samples for r in releases], float)
    weights = counts / counts.sum()
    moment = sum(w * r.second_moment for w, r in zip(weights, releases, strict=True))
    mean = sum(w * r.mean for w, r in zip(weights, releases, strict=True))
    return moment, mean


def test_ridge_scores_by_hand_from_the_heldout_release():
    X, y = _regression(1, n=900)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=0.3), y_bound=2.0, random_state=1
    ).fit(X, y)
    alphas, features = [1e-3, 0.1], [0, 2]
    search = sk.GridSearchCV(
        ReleaseModel(PrivateRidge(features=features)),
        {"estimator__alpha": alphas},
        cv=folds,
    ).fit(folds.tokens_)
    releases = folds.fold_releases_
    for k in range(3):
        moment, mean = _pooled([r for j, r in enumerate(releases) if j != k])
        columns = [*features, 5]  # the target is the last column
        covariance = _psd((moment - np.outer(mean, mean))[np.ix_(columns, columns)])
        heldout = releases[k]
        augmented = np.block(
            [
                [heldout.second_moment, heldout.mean[:, None]],
                [heldout.mean[None, :], np.ones((1, 1))],
            ]
        )
        augmented = _psd(augmented)
        for a, alpha in enumerate(alphas):
            w = np.linalg.solve(
                covariance[:-1, :-1] + 2 * alpha * np.eye(2), covariance[:-1, -1]
            )
            b = mean[5] - mean[features] @ w
            u = np.zeros(7)
            u[features], u[5], u[6] = -w, 1.0, -b
            expected = -u @ augmented @ u
            score = search.cv_results_[f"split{k}_test_score"][a]
            assert score == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_ridge_scores_are_the_heldout_mse_at_a_huge_budget():
    X, y = _regression(2, n=900)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=HUGE),
        X_norm_bound=1.0,
        y_bound=3.0,
        random_state=2,
    ).fit(X, y)
    model = ReleaseModel(PrivateRidge(alpha=1e-2))
    for train, (k,) in folds.split(folds.tokens_):
        rows = _folds_of(900, 3, 2)
        heldout = rows[k]
        training = np.concatenate([rows[j] for j in train])
        fitted = clone(model).fit(folds.tokens_[train])
        reference = Ridge(alpha=2 * len(training) * 1e-2).fit(X[training], y[training])
        np.testing.assert_allclose(fitted.estimator_.coef_, reference.coef_, atol=1e-6)
        mse = np.mean((reference.predict(X[heldout]) - y[heldout]) ** 2)
        assert fitted.score(folds.tokens_[[k]]) == pytest.approx(-mse, abs=1e-6)


def _pca_score_by_hand(model, heldout, training):
    """PPCA log-likelihood from the releases, written out."""
    covariance = training.second_moment - np.outer(training.mean, training.mean)
    values = np.sort(np.maximum(np.linalg.eigvalsh(covariance), 0))[::-1]
    d, k = values.size, model.n_components_
    floor = max(training.noise_level, 1e-12 * values.sum() / d)
    sigma2 = max(values[k:].mean() if k < d else 0.0, floor)
    lam = np.maximum(values[:k], floor)
    m = model.mean_
    scatter = (
        heldout.second_moment
        - np.outer(heldout.mean, m)
        - np.outer(m, heldout.mean)
        + np.outer(m, m)
    )
    scatter = _psd(scatter)
    V = model.components_.T
    model_covariance = V @ np.diag(lam) @ V.T + sigma2 * (np.eye(d) - V @ V.T)
    _, logdet = np.linalg.slogdet(model_covariance)
    quadratic = np.trace(np.linalg.solve(model_covariance, scatter))
    captured = np.trace(V.T @ scatter @ V)
    return -0.5 * (d * np.log(2 * np.pi) + logdet + quadratic), captured


def test_pca_scores_by_hand_from_the_heldout_release():
    X = _low_rank(3, n=6000)
    folds = FoldReleases(estimator=GaussianCovariance(rho=0.5), random_state=3).fit(X)
    for n_components in (1, 2, 4, 6):
        model = ReleaseModel(PrivatePCA(n_components=n_components))
        for train, test in folds.split(folds.tokens_):
            fitted = clone(model).fit(folds.tokens_[train])
            training = fitted.estimator_.release_
            expected, captured = _pca_score_by_hand(
                fitted.estimator_, folds.tokens_[test[0]], training
            )
            assert fitted.score(folds.tokens_[test]) == pytest.approx(
                expected, rel=1e-9
            )
            scorer = release_scorer("captured_variance")
            assert scorer(fitted, folds.tokens_[test]) == pytest.approx(
                captured, rel=1e-9
            )


def test_pca_log_likelihood_is_sklearns_at_a_huge_budget():
    X = _low_rank(4, n=9000)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=HUGE), X_norm_bound=3.0, random_state=4
    ).fit(X)
    rows = _folds_of(9000, 3, 4)
    for n_components in (1, 2, 3):
        fitted = ReleaseModel(PrivatePCA(n_components=n_components)).fit(
            folds.tokens_[1:]
        )
        reference = PCA(n_components=n_components).fit(X[np.concatenate(rows[1:])])
        # scikit-learn divides by n − 1 where a release divides by n.
        assert fitted.score(folds.tokens_[:1]) == pytest.approx(
            reference.score(X[rows[0]]), rel=1e-3
        )


# --- The splitter --------------------------------------------------------------------


def test_the_splitter_is_leave_one_fold_out():
    X, y = _regression(n=200)
    folds = FoldReleases(n_folds=4, y_bound=1.0, random_state=0).fit(X, y)
    assert folds.get_n_splits() == 4 == len(folds.tokens_)
    splits = list(folds.split(folds.tokens_))
    assert [test.tolist() for _, test in splits] == [[0], [1], [2], [3]]
    for train, (k,) in splits:
        assert train.tolist() == [j for j in range(4) if j != k]
    assert all(t is r for t, r in zip(folds.tokens_, folds.fold_releases_, strict=True))
    assert sorted(r.n_samples for r in folds.fold_releases_) == [50, 50, 50, 50]
    assert sk.check_cv(folds) is folds
    with pytest.raises(ValueError, match="4 fold tokens"):
        list(folds.split(X))


# --- PrivateRidgeCV is this machinery ------------------------------------------------


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_private_ridge_cv_is_a_grid_over_fold_releases(fit_intercept):
    X, y = _regression(5, n=1200)
    alphas = [1e-4, 1e-2, 0.3]
    common = {
        "estimator": GaussianCovariance(rho=0.5),
        "X_norm_bound": 0.8,
        "y_bound": (-2.0, 3.0),
        "random_state": 11,
    }
    cv = PrivateRidgeCV(alphas=alphas, fit_intercept=fit_intercept, **common).fit(X, y)
    folds = FoldReleases(assume_centered=not fit_intercept, **common).fit(X, y)
    for mine, theirs in zip(folds.fold_releases_, cv.fold_releases_, strict=True):
        np.testing.assert_array_equal(mine.second_moment, theirs.second_moment)
        assert mine.noise_level == theirs.noise_level
    search = sk.GridSearchCV(
        ReleaseModel(PrivateRidge(fit_intercept=fit_intercept)),
        {"estimator__alpha": alphas},
        cv=folds,
    ).fit(folds.tokens_)
    for k in range(3):
        np.testing.assert_allclose(
            search.cv_results_[f"split{k}_test_score"],
            cv.cv_results_[f"split{k}_test_score"],
            rtol=1e-10,
        )
    assert search.best_params_["estimator__alpha"] == cv.alpha_
    np.testing.assert_allclose(search.best_estimator_.estimator_.coef_, cv.coef_)
    # "auto" in the grid is the middle multiple of PrivateRidgeCV's auto grid.
    auto = PrivateRidgeCV(fit_intercept=fit_intercept, **common).fit(X, y)
    pooled = ReleaseModel(PrivateRidge(fit_intercept=fit_intercept)).fit(folds.tokens_)
    assert pooled.estimator_.alpha_ == pytest.approx(auto.cv_results_["param_alpha"][3])


# --- Threat model (docs/algorithms.rst §13) ------------------------------------------


def test_folds_never_share_noise():
    X = np.tile([[0.2, -0.1, 0.3]], (400, 1))
    for random_state in (0, None):
        folds = FoldReleases(n_folds=4, random_state=random_state).fit(X)
        moments = [r.second_moment for r in folds.fold_releases_]
        for i in range(4):
            for j in range(i):
                assert not np.allclose(moments[i], moments[j])
    first, again = (FoldReleases().fit(X) for _ in range(2))
    assert not np.allclose(
        first.fold_releases_[0].second_moment, again.fold_releases_[0].second_moment
    )
    same = [FoldReleases(random_state=3).fit(X) for _ in range(2)]
    np.testing.assert_array_equal(
        same[0].release_.second_moment, same[1].release_.second_moment
    )


@pytest.mark.parametrize(
    ("params", "data", "match"),
    [
        ({"n_folds": 5}, "small", "at least 10 rows"),
        ({"random_state": np.random.default_rng(0)}, "xy", "random_state"),
        ({"n_folds": 1}, "xy", "n_folds"),
        ({"y_bound": (2.0, 1.0)}, "xy", "y_bound"),
        ({}, "one column", "minimum of 2"),
    ],
)
def test_public_refusals_spend_nothing(params, data, match):
    X, y = _regression(n=100)
    args = {
        "small": (X[:9],),
        "xy": (X, y),
        "one column": (X[:, :1],),
    }[data]
    if data == "xy" and "y_bound" not in params:
        params = {**params, "y_bound": 1.0}
    accountant = PrivacyAccountant(rho=1.0)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=0.5, accountant=accountant), **params
    )
    with pytest.raises((ValueError, TypeError), match=match):
        folds.fit(*args)
    assert accountant.history() == []


def test_a_bad_value_is_refused_after_the_charge_without_quoting_it():
    X, y = _regression(n=100)
    X[7, 1] = np.nan
    y[3] = 123.456
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError) as error:
        FoldReleases(
            estimator=GaussianCovariance(rho=0.5, accountant=accountant), y_bound=1.0
        ).fit(X, y)
    assert len(accountant.history()) == 1  # paid: no free oracle
    message = str(error.value)
    assert "123" not in message and "0.4" not in message


def test_fitted_attributes_are_the_reviewed_ones():
    X, y = _regression(n=300)
    folds = FoldReleases(y_bound=1.0, random_state=0).fit(X, y)
    fitted = {n for n in vars(folds) if n not in folds.get_params(deep=False)}
    assert fitted == {
        "fold_releases_",
        "tokens_",
        "release_",
        "privacy_spent_",
        "privacy_parts_",
        "n_features_in_",
        "X_norm_bound_",
        "y_bound_",
    }
    model = ReleaseModel(PrivateRidge()).fit(folds.tokens_)
    assert {n for n in vars(model) if n != "estimator"} == {
        "estimator_",
        "privacy_spent_",
    }


def test_release_model_refuses_what_is_not_a_fold_release():
    X, y = _regression(n=300)
    folds = FoldReleases(y_bound=1.0, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="not data rows"):
        ReleaseModel(PrivateRidge()).fit(X)
    with pytest.raises(ValueError, match="twice"):
        ReleaseModel(PrivateRidge()).fit(folds.tokens_[[0, 0]])
    with pytest.raises(ValueError, match="covariance=None"):
        ReleaseModel(PrivateRidge(covariance=folds.release_)).fit(folds.tokens_)
    with pytest.raises(TypeError, match="takes no covariance"):
        ReleaseModel(Ridge()).fit(folds.tokens_)
    fitted = ReleaseModel(PrivateRidge()).fit(folds.tokens_[:2])
    with pytest.raises(ValueError, match="does not score a PrivateRidge"):
        release_scorer("log_likelihood")(fitted, folds.tokens_[2:])
    with pytest.raises(ValueError, match="metric"):
        release_scorer("r2")
    with pytest.raises(TypeError, match="ReleaseModel"):
        release_scorer()(fitted.estimator_, folds.tokens_[2:])
    # Prediction reads new rows only.
    np.testing.assert_allclose(fitted.predict(X[:5]), fitted.estimator_.predict(X[:5]))


@pytest.mark.slow  # worker processes
def test_names_several_metrics_and_workers():
    """Feature names pass to the releases; a dict of release scorers; the
    tokens and scorers travel to worker processes."""
    X, y = _regression(n=600)
    folds = FoldReleases(y_bound=1.0, random_state=0).fit(X, y)
    assert folds.release_.feature_names is None
    PCA_GRID = {"estimator__n_components": [1, 2, 3]}
    X_only = FoldReleases(random_state=0).fit(X)
    search = sk.GridSearchCV(
        ReleaseModel(PrivatePCA()),
        PCA_GRID,
        cv=X_only,
        scoring={
            "ll": release_scorer(),
            "captured": release_scorer("captured_variance"),
        },
        refit="ll",
        n_jobs=2,
    ).fit(X_only.tokens_)
    assert set(search.cv_results_) >= {"mean_test_ll", "mean_test_captured"}
    assert pickle.loads(pickle.dumps(search)).best_params_ == search.best_params_
