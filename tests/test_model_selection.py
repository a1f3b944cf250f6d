"""The cost of a search or a cross-validation, known before it starts, and
searches refused before their first fit (skprivcov.model_selection)."""

import numpy as np
import pytest
from sklearn import model_selection as sk
from sklearn.compose import TransformedTargetRegressor
from sklearn.pipeline import make_pipeline

from skprivcov import (
    AutoCovariance,
    BudgetExceededError,
    GaussianCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov.decomposition import PrivatePCA
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.linear_model import PrivateRidge
from skprivcov.model_selection import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_validate,
    cross_validation_cost,
    planned_charges,
    search_cost,
)
from skprivcov.preprocessing import RowNormClipper

RNG = np.random.default_rng(0)
X = RNG.uniform(-0.5, 0.5, size=(300, 3))
Y_REG = X @ [0.3, -0.2, 0.1] + 0.05 * RNG.normal(size=300)
Y_CLASS = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)


def _spent(accountant):
    return accountant.spent.rho


def test_a_grid_of_equal_costs_is_charged_exactly_what_was_planned():
    """3 candidates × 4 folds + the refit = 13 charges of ρ = 0.05 each."""
    accountant = PrivacyAccountant(rho=1.0)
    search = GridSearchCV(
        GaussianCovariance(rho=0.05, accountant=accountant),
        {"norm_bound": [0.5, 1.0, 2.0]},
        cv=4,
    )
    cost = search_cost(search, X)
    assert cost.n_fits == 13
    assert cost.total.rho == pytest.approx(13 * 0.05)
    search.fit(X)
    assert len(accountant.history()) == 13
    assert _spent(accountant) == pytest.approx(cost.total.rho)
    assert search.search_cost_ == cost


def test_the_refit_is_counted_at_the_most_expensive_candidate():
    """Candidates of different costs: the refit's is not known in advance, so
    the plan counts the largest; what is spent is the plan minus the gap
    between it and the candidate chosen."""
    accountant = PrivacyAccountant(rho=5.0)
    rhos = [0.01, 0.1, 0.3]
    search = GridSearchCV(
        GaussianCovariance(accountant=accountant), {"rho": rhos}, cv=3
    )
    cost = search_cost(search, X)
    assert cost.total.rho == pytest.approx(3 * sum(rhos) + max(rhos))
    search.fit(X)
    chosen = search.best_params_["rho"]
    assert _spent(accountant) == pytest.approx(cost.total.rho - max(rhos) + chosen)


def test_pipelines_and_nested_models_are_costed_by_their_releases():
    accountant = PrivacyAccountant(rho=10.0)
    ridge = make_pipeline(
        RowNormClipper(norm_bound=1.0),
        PrivateRidge(
            estimator=GaussianCovariance(rho=0.2, accountant=accountant),
            random_state=None,
        ),
    )
    assert [cost for _, cost in planned_charges(ridge)] == [PrivacyCost.zcdp(0.2)]
    wrapped = TransformedTargetRegressor(regressor=ridge[-1])
    assert [cost for _, cost in planned_charges(wrapped)] == [PrivacyCost.zcdp(0.2)]
    # Two private steps: both charges, with their accountants.
    classifier = make_pipeline(
        PrivatePCA(
            n_components=2,
            estimator=AutoCovariance(rho=0.1, allow_zero=False, accountant=accountant),
        ),
        PrivateLinearDiscriminantAnalysis(
            classes=[0, 1, 2], rho=0.3, accountant=accountant
        ),
    )
    charges = planned_charges(classifier)
    assert [cost for _, cost in charges] == [
        PrivacyCost.zcdp(0.1),
        PrivacyCost.zcdp(0.3),
    ]
    assert all(held is accountant for held, _ in charges)
    before = _spent(accountant)
    cost = cross_validation_cost(classifier, X, Y_CLASS, cv=3)
    cross_validate(classifier, X, Y_CLASS, cv=3)
    assert _spent(accountant) - before == pytest.approx(cost.total.rho)
    assert cost.total.rho == pytest.approx(3 * 0.4)


def test_a_model_fit_from_a_release_costs_nothing():
    release = GaussianCovariance(rho=0.5, random_state=0).fit(np.c_[X, Y_REG])
    assert planned_charges(PrivateRidge(covariance=release)) == []
    assert planned_charges(PrivatePCA(covariance=release)) == []
    search = GridSearchCV(
        PrivateRidge(covariance=release), {"alpha": [0.01, 0.1]}, cv=3
    )
    assert search_cost(search, X, Y_REG).total == PrivacyCost.zero()


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.FitFailedWarning",
    "ignore:One or more of the test scores are non-finite",
)
def test_a_search_that_cannot_finish_is_refused_before_its_first_fit():
    """scikit-learn's own GridSearchCV spends part of the budget and then fails
    with no model; skprivcov's refuses before spending anything."""
    grid = {"norm_bound": [0.5, 1.0]}
    accountant = PrivacyAccountant(rho=0.5)
    with pytest.raises(BudgetExceededError):
        sk.GridSearchCV(
            GaussianCovariance(rho=0.1, accountant=accountant), grid, cv=3
        ).fit(X)
    assert 0 < len(accountant.history()) < 7  # part of it spent, nothing returned
    accountant = PrivacyAccountant(rho=0.5)
    with pytest.raises(BudgetExceededError, match="7 fits") as refused:
        GridSearchCV(
            GaussianCovariance(rho=0.1, accountant=accountant), grid, cv=3
        ).fit(X)
    assert "Nothing was fitted" in str(refused.value)
    assert accountant.history() == []
    with pytest.raises(BudgetExceededError):
        cross_validate(GaussianCovariance(rho=0.2, accountant=accountant), X, cv=3)
    assert accountant.history() == []


def test_the_check_sums_charges_exactly_as_the_ledger_does():
    """Seven charges of ρ = 0.1 fill a budget of 0.7 exactly (a float sum
    would be 0.7000000000000001 and refuse it)."""
    accountant = PrivacyAccountant(rho=0.7)
    search = GridSearchCV(
        GaussianCovariance(accountant=accountant), {"rho": [0.1]}, cv=6
    ).fit(X)
    assert len(accountant.history()) == 7
    assert accountant.remaining == PrivacyCost.zcdp(0.0)
    assert search.best_estimator_.privacy_spent_ == PrivacyCost.zcdp(0.1)


def test_every_accountant_is_checked_for_its_own_share(tmp_path):
    """Accountants on one ledger file are one budget; another accountant is
    checked on its own."""
    path = tmp_path / "ledger.sqlite"
    first = PrivacyAccountant(rho=0.35, path=path)
    second = PrivacyAccountant(path=path)
    other = PrivacyAccountant(rho=10.0)
    pipeline = make_pipeline(
        PrivatePCA(
            n_components=2,
            estimator=AutoCovariance(rho=0.05, allow_zero=False, accountant=first),
        ),
        PrivateLinearDiscriminantAnalysis(
            classes=[0, 1, 2], rho=0.05, accountant=second
        ),
    )
    cost = cross_validation_cost(pipeline, X, Y_CLASS, cv=4)
    assert len(cost.by_accountant) == 1
    assert cost.by_accountant[0][1].rho == pytest.approx(0.4)
    with pytest.raises(BudgetExceededError):
        cross_validate(pipeline, X, Y_CLASS, cv=4)
    assert first.history() == []
    pipeline[-1].set_params(accountant=other)
    cost = cross_validation_cost(pipeline, X, Y_CLASS, cv=4)
    assert sorted(total.rho for _, total in cost.by_accountant) == pytest.approx(
        [0.2, 0.2]
    )
    cross_validate(pipeline, X, Y_CLASS, cv=4)
    assert len(first.history()) == 4 and len(other.history()) == 4


def test_a_randomized_search_needs_a_known_list_of_candidates():
    accountant = PrivacyAccountant(rho=5.0)
    distributions = {"rho": [0.01, 0.02, 0.05, 0.1]}
    search = RandomizedSearchCV(
        GaussianCovariance(accountant=accountant), distributions, n_iter=2, cv=3
    )
    with pytest.raises(ValueError, match="int random_state"):
        search.fit(X)
    assert accountant.history() == []
    search.set_params(random_state=0)
    cost = search_cost(search, X)
    sampled = list(sk.ParameterSampler(distributions, n_iter=2, random_state=0))
    planned = 3 * sum(p["rho"] for p in sampled) + max(p["rho"] for p in sampled)
    assert cost.total.rho == pytest.approx(planned)
    search.fit(X)
    assert _spent(accountant) <= cost.total.rho + 1e-12


def test_a_search_inside_a_search_is_refused():
    inner = GridSearchCV(GaussianCovariance(), {"rho": [0.1]}, cv=2)
    with pytest.raises(TypeError, match="inside a search"):
        planned_charges(inner)


def test_private_steps_inside_unions_and_column_transformers_are_counted():
    """FeatureUnion and ColumnTransformer hold their steps in lists of tuples:
    a private step there is counted (a plan lower than the spend would let a
    search start and run out part-way)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import FeatureUnion

    accountant = PrivacyAccountant(rho=10.0)

    def pca(rho):
        return PrivatePCA(
            n_components=1,
            estimator=AutoCovariance(rho=rho, allow_zero=False, accountant=accountant),
        )

    union = make_pipeline(
        FeatureUnion([("a", pca(0.1)), ("b", pca(0.2))]), LinearRegression()
    )
    columns = make_pipeline(
        ColumnTransformer([("a", pca(0.3), [0, 1]), ("rest", "drop", [2])]),
        LinearRegression(),
    )
    for model, expected in ((union, 0.3), (columns, 0.3)):
        cost = cross_validation_cost(model, X, Y_REG, cv=3)
        before = _spent(accountant)
        cross_validate(model, X, Y_REG, cv=3)
        assert _spent(accountant) - before == pytest.approx(cost.total.rho)
        assert cost.total.rho == pytest.approx(3 * expected)


def test_a_one_shot_iterator_of_folds_is_refused_before_anything_runs():
    accountant = PrivacyAccountant(rho=1.0)
    splits = iter(sk.KFold(3).split(X))
    search = GridSearchCV(
        GaussianCovariance(rho=0.01, accountant=accountant),
        {"norm_bound": [1.0]},
        cv=splits,
    )
    with pytest.raises(TypeError, match="one-shot iterator"):
        search.fit(X)
    assert accountant.history() == []
    search.set_params(cv=list(sk.KFold(3).split(X))).fit(X)
    assert len(accountant.history()) == 4


def test_meta_estimators_that_may_refit_a_private_model_are_refused():
    """One-vs-rest fits one model per class, bagging one per member: their
    cost is not that of one fit, so the plan refuses them rather than
    undercount; without a private model inside they cost nothing."""
    from sklearn.ensemble import BaggingRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.multiclass import OneVsRestClassifier

    lda = PrivateLinearDiscriminantAnalysis(rho=0.1)
    with pytest.raises(TypeError, match="OneVsRestClassifier may fit"):
        planned_charges(OneVsRestClassifier(lda))
    with pytest.raises(TypeError, match="BaggingRegressor may fit"):
        planned_charges(BaggingRegressor(PrivateRidge()))
    assert planned_charges(BaggingRegressor(LinearRegression())) == []


def test_private_ridge_cv_is_one_charge_per_fit():
    """PrivateRidgeCV releases one moment per inner fold at one release's cost
    (parallel composition): one charge per fit of it."""
    from skprivcov.linear_model import PrivateRidgeCV

    accountant = PrivacyAccountant(rho=5.0)
    model = PrivateRidgeCV(
        estimator=GaussianCovariance(rho=0.2, accountant=accountant), cv=2
    )
    cost = cross_validation_cost(model, X, Y_REG, cv=3)
    assert cost.total.rho == pytest.approx(0.6)
    cross_validate(model, X, Y_REG, cv=3)
    assert _spent(accountant) == pytest.approx(cost.total.rho)
    assert len(accountant.history()) == 3


def test_every_refit_candidate_must_fit_under_an_approximate_budget():
    """Under an (ε, δ) budget a pure candidate with the smaller ρ can cost
    more ε than a zCDP one: the check tries every candidate the refit may
    spend on, not the one with the largest ρ (found by review: the search
    passed the check and ran out at the refit, 6 of 7 fits charged)."""
    from sklearn.pipeline import Pipeline

    from skprivcov import LaplaceCovariance

    accountant = PrivacyAccountant(epsilon=29.05, delta=1e-3)
    accountant.spend(PrivacyCost.pure(2.0))
    accountant.spend(PrivacyCost.zcdp(10.0))
    laplace = LaplaceCovariance(epsilon=0.37916666666666665, accountant=accountant)
    gauss = GaussianCovariance(rho=0.10225316455696203, accountant=accountant)
    search = GridSearchCV(
        Pipeline([("cov", gauss)]),
        {"cov": [laplace, gauss]},
        cv=3,
        refit=lambda results: 0,  # refits the Laplace candidate
    )
    cost = search_cost(search, X)
    folds = [c for _, c in cost.charges]
    assert accountant.can_spend(*folds, PrivacyCost.zcdp(gauss.rho))
    assert not accountant.can_spend(*folds, PrivacyCost.pure(laplace.epsilon))
    with pytest.raises(BudgetExceededError, match="Nothing was fitted"):
        search.fit(X)
    assert len(accountant.history()) == 2


def test_links_to_one_ledger_file_are_one_budget(tmp_path):
    """A symbolic link to the ledger is the same budget (found by review: each
    path passed alone, together they overspent)."""
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import FeatureUnion

    real = PrivacyAccountant(rho=0.3, path=tmp_path / "ledger.sqlite")
    (tmp_path / "link.sqlite").symlink_to(tmp_path / "ledger.sqlite")
    linked = PrivacyAccountant(path=tmp_path / "link.sqlite")

    def pca(accountant):
        return PrivatePCA(
            n_components=1,
            estimator=AutoCovariance(rho=0.05, allow_zero=False, accountant=accountant),
        )

    union = make_pipeline(
        FeatureUnion([("a", pca(real)), ("b", pca(linked))]), LinearRegression()
    )
    cost = cross_validation_cost(union, X, Y_REG, cv=4)
    assert len(cost.by_accountant) == 1
    with pytest.raises(BudgetExceededError):
        cross_validate(union, X, Y_REG, cv=4)
    assert real.history() == []
