"""Edges users hit (issue 45, "What to build" part 5).

* ``PrivateFeatureScaler.transform`` refuses non-finite input (rows the caller
  holds), while a pipeline's fit, which passes the training rows through
  ``fit_transform``, refuses nothing between two charges;
* the suite runs Spark's workers with this interpreter unless the user chose
  one (tests/conftest.py);
* scikit-learn's own ``GridSearchCV`` over a pipeline with a charged step
  spends the budget fold by fold, then scores NaN and still picks a
  ``best_params_``; skprivcov's refuses it before its first fit, and stops on
  a fit the ledger refuses part-way whatever ``error_score``;
* the fold sweep's chosen model predicts on the full table.
"""

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn import model_selection as sk
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import check_estimators_nan_inf

from skprivcov import (
    BudgetExceededError,
    GaussianCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov.decomposition import PrivatePCA
from skprivcov.linear_model import PrivateRidge
from skprivcov.model_selection import (
    CovarianceErrorScore,
    FoldReleases,
    GridSearchCV,
    PrivateRandomSearch,
    ReleaseModel,
    search_cost,
)
from skprivcov.preprocessing import PrivateFeatureScaler
from skprivcov.utils._test_common.instance_generator import expected_failed_checks

ROOT = Path(__file__).resolve().parents[1]
SECRET = 123456.789


def _rows(n=600, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


# --------------------------------------------------------------------------------
# PrivateFeatureScaler.transform and non-finite values.


def test_scikit_learns_nan_inf_check_passes_and_is_no_expected_failure():
    check_estimators_nan_inf("PrivateFeatureScaler", PrivateFeatureScaler())
    check_estimators_nan_inf("PrivateFeatureScaler", PrivateFeatureScaler(epsilon=1.0))
    for estimator in (PrivateFeatureScaler(), PrivateFeatureScaler(epsilon=1.0)):
        assert "check_estimators_nan_inf" not in expected_failed_checks(estimator)


@pytest.mark.parametrize("poison", [np.nan, np.inf, -np.inf, "not a number"])
@pytest.mark.parametrize("method", ["transform", "inverse_transform"])
def test_transform_refuses_a_nonfinite_entry_and_names_no_value(poison, method):
    scaler = PrivateFeatureScaler(rho=1.0, random_state=0).fit(_rows())
    rows = np.full((4, 3), SECRET, dtype=object)
    rows[2, 1] = poison
    with pytest.raises(ValueError, match="NaN or infinity") as refused:
        getattr(scaler, method)(rows)
    assert "123456" not in str(refused.value)
    # Finite rows are mapped.
    finite = np.full((4, 3), SECRET)
    assert np.all(np.isfinite(getattr(scaler, method)(finite)))


def test_transform_with_nonfinite_zero_passes_a_row_of_nan_on():
    scaler = PrivateFeatureScaler(rho=1.0, nonfinite="zero", random_state=0)
    scaler.fit(_rows())
    rows = _rows(n=4, seed=1)
    rows[1, 2] = np.inf
    out = scaler.transform(rows)
    assert np.all(np.isnan(out[1]))
    assert np.all(np.isfinite(np.delete(out, 1, axis=0)))
    assert np.all(np.isnan(scaler.inverse_transform(out)[1]))


def test_fit_transform_refuses_nothing_after_its_own_fit():
    """The training rows: the fit applies the rule after its charge; the map
    passes a bad row on as NaN (for the next estimator, after its charge)."""
    X = _rows()
    X[7, 0] = np.nan
    accountant = PrivacyAccountant(rho=1.0)
    scaler = PrivateFeatureScaler(rho=0.1, nonfinite="zero", accountant=accountant)
    out = scaler.fit_transform(X)
    assert np.all(np.isnan(out[7])) and np.all(np.isfinite(np.delete(out, 7, 0)))
    assert len(accountant.history()) == 1
    # The default refuses in its fit, after its charge (paid for).
    with pytest.raises(ValueError, match="NaN or infinity"):
        PrivateFeatureScaler(rho=0.1, accountant=accountant).fit_transform(X)
    assert len(accountant.history()) == 2


def test_a_pipeline_refuses_a_training_row_only_after_a_charge():
    """No refusal between the scaler's charge and the next estimator's: with
    nonfinite="zero" on the scaler, a refusal of the row is the covariance
    estimator's, after its own charge; with "zero" on both, no refusal."""
    X = _rows()
    X[11] = [SECRET, np.nan, SECRET]
    for rule, refused in (("raise", True), ("zero", False)):
        accountant = PrivacyAccountant(rho=1.0)
        pipeline = Pipeline(
            [
                (
                    "scale",
                    PrivateFeatureScaler(
                        rho=0.1, nonfinite="zero", accountant=accountant
                    ),
                ),
                (
                    "cov",
                    GaussianCovariance(
                        rho=0.1, norm_bound=2.0, nonfinite=rule, accountant=accountant
                    ),
                ),
            ]
        )
        if refused:
            with pytest.raises(ValueError, match="NaN") as info:
                pipeline.fit(X)
            assert "123456" not in str(info.value)
        else:
            pipeline.fit(X)
            assert np.all(np.isfinite(pipeline[-1].covariance_))
        sources = [record.source for record in accountant.history()]
        assert sources == ["PrivateFeatureScaler", "GaussianCovariance"]


def test_a_frozen_scaler_with_nonfinite_zero_refuses_nothing_before_a_charge():
    """A fitted scaler frozen in a pipeline maps the next fit's training rows
    with ``transform``. With the default, its refusal comes before the next
    estimator's charge (the composition ``nonfinite``'s documentation warns
    against); with "zero" it passes a bad row on, and the refusal is the next
    estimator's, after its charge."""
    from sklearn.frozen import FrozenEstimator

    X = _rows()
    scaler = PrivateFeatureScaler(rho=0.1, random_state=0).fit(X)
    X[3, 2] = np.nan
    for rule, charges in (("raise", 0), ("zero", 1)):
        accountant = PrivacyAccountant(rho=1.0)
        frozen = FrozenEstimator(scaler.set_params(nonfinite=rule))
        release = GaussianCovariance(rho=0.1, norm_bound=2.0, accountant=accountant)
        with pytest.raises(ValueError, match="NaN"):
            Pipeline([("scale", frozen), ("cov", release)]).fit(X)
        assert len(accountant.history()) == charges


@pytest.mark.slow
def test_a_private_selection_over_a_scaler_with_nonfinite_zero_never_refuses():
    """CovarianceErrorScore passes the scored rows through the pipeline's
    transform: a scaler with nonfinite="zero" passes a bad row on as NaN, which
    the score counts as zeros."""
    X = _rows(n=400)
    X[5, 1] = np.nan
    accountant = PrivacyAccountant(epsilon=20.0, delta=1e-6)
    pipeline = Pipeline(
        [
            ("scale", PrivateFeatureScaler(rho=0.1, nonfinite="zero")),
            ("cov", GaussianCovariance(rho=0.1, nonfinite="zero")),
        ]
    )
    search = PrivateRandomSearch(
        pipeline,
        {"cov__norm_bound": [1.0, 2.0]},
        scoring=CovarianceErrorScore(norm_bound=2.0),
        accountant=accountant,
        random_state=0,
    ).fit(X)
    assert np.all(np.isfinite(search.best_estimator_[-1].covariance_))
    assert len(accountant.history()) == 1


def test_the_covariance_score_passes_a_bad_held_out_row_as_zeros():
    """Whatever the steps' nonfinite rule: a held-out row that is not finite
    enters the pipeline's transform as a row of zeros (a public rule per
    row), so a scaler at its default "raise" refuses nothing in the score."""
    X = _rows(n=400)
    X[[5, 300], 1] = np.nan
    pipeline = Pipeline(
        [
            ("scale", PrivateFeatureScaler(rho=0.1)),
            ("cov", GaussianCovariance(rho=0.1, nonfinite="zero")),
        ]
    ).fit(np.nan_to_num(X))
    score = CovarianceErrorScore(norm_bound=2.0)
    zeroed = X.copy()
    zeroed[[5, 300]] = 0.0
    assert score.statistic(pipeline, X) == score.statistic(pipeline, zeroed)


# --------------------------------------------------------------------------------
# Spark's workers run this interpreter, unless the user chose one.


@pytest.mark.parametrize("given", [None, "/opt/some/other/python"])
def test_the_suite_sets_pysparks_python_without_overriding_the_users(given):
    code = (
        "import os, runpy; runpy.run_path('tests/conftest.py'); "
        "print(os.environ['PYSPARK_PYTHON']); "
        "print(os.environ['PYSPARK_DRIVER_PYTHON'])"
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")
    }
    if given is not None:
        env["PYSPARK_PYTHON"] = given
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    workers, driver = result.stdout.split()
    assert workers == (given or sys.executable)
    assert driver == sys.executable


# --------------------------------------------------------------------------------
# scikit-learn's GridSearchCV over a pipeline with a charged step.


def _regression(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(scale=0.1, size=(n, 3))
    return X, X @ [1.0, -1.0, 0.5] + 0.01 * rng.normal(size=n)


def _charged_pipeline(accountant):
    """A pipeline whose ridge makes its own release: ρ = 0.25 a fit."""
    release = GaussianCovariance(rho=0.25, accountant=accountant)
    return Pipeline([("ridge", PrivateRidge(estimator=release))])


GRID = {"ridge__alpha": [1e-3, 1e-1]}  # 2 candidates × 3 folds: ρ = 1.5 > 1


@pytest.mark.filterwarnings("ignore:One or more of the test scores:UserWarning")
def test_scikit_learns_search_burns_the_budget_then_scores_nan():
    """The scenario, as scikit-learn runs it: the budget is spent fold by
    fold; the refused fits score NaN and a best_params_ is still returned
    (refit=False), or the refit is refused after the budget is gone."""
    X, y = _regression()
    accountant = PrivacyAccountant(rho=1.0)
    search = sk.GridSearchCV(_charged_pipeline(accountant), GRID, cv=3, refit=False)
    with pytest.warns(FitFailedWarning, match="BudgetExceededError"):
        search.fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores[0]) and np.isnan(scores[1])
    assert search.best_params_ == {"ridge__alpha": 1e-3}
    assert accountant.spent == PrivacyCost.zcdp(1.0)  # all of it
    assert len(accountant.history()) == 4

    accountant = PrivacyAccountant(rho=1.0)
    search = sk.GridSearchCV(_charged_pipeline(accountant), GRID, cv=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(BudgetExceededError):
            search.fit(X, y)
    assert accountant.spent == PrivacyCost.zcdp(1.0)


def test_skprivcovs_search_prices_it_and_refuses_it_before_its_first_fit():
    X, y = _regression()
    accountant = PrivacyAccountant(rho=1.0)
    search = GridSearchCV(_charged_pipeline(accountant), GRID, cv=3)
    cost = search_cost(search, X, y)
    assert cost.n_fits == 7 and cost.total == PrivacyCost.zcdp(1.75)
    with pytest.raises(BudgetExceededError, match="Nothing was fitted"):
        search.fit(X, y)
    assert accountant.history() == []
    assert not hasattr(search, "best_params_")
    # A budget that pays for every fold and the refit: the search runs.
    accountant = PrivacyAccountant(rho=1.75)
    search = GridSearchCV(_charged_pipeline(accountant), GRID, cv=3).fit(X, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    assert accountant.spent == PrivacyCost.zcdp(1.75)


class _SpendsMeanwhile(KFold):
    """Folds whose listing spends from the accountant: another process
    spending from the same ledger after the search was admitted."""

    def __init__(self, accountant, cost, n_splits=3):
        super().__init__(n_splits=n_splits)
        self.accountant = accountant
        self.cost = cost

    def split(self, X, y=None, groups=None):
        self.accountant.spend(self.cost, source="another process")
        yield from super().split(X, y, groups)


@pytest.mark.parametrize(
    "error_score",
    [np.nan, pytest.param(-1.0, marks=pytest.mark.slow), "raise"],
)
def test_a_fit_the_ledger_refuses_part_way_stops_skprivcovs_search(error_score):
    X, y = _regression()
    accountant = PrivacyAccountant(rho=2.0)
    cv = _SpendsMeanwhile(accountant, PrivacyCost.zcdp(1.0))
    search = GridSearchCV(
        _charged_pipeline(accountant), GRID, cv=cv, error_score=error_score
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitFailedWarning)
        with pytest.raises(BudgetExceededError):
            search.fit(X, y)
    assert not hasattr(search, "best_params_")
    assert accountant.spent == PrivacyCost.zcdp(2.0)


@pytest.mark.filterwarnings("ignore:One or more of the test scores:UserWarning")
def test_other_failures_still_follow_error_score():
    """Only the ledger's refusal is made loud: a candidate refused for its
    parameters scores error_score, as in scikit-learn."""
    X, y = _regression()
    accountant = PrivacyAccountant(rho=5.0)
    grid = {"ridge__alpha": [1e-3, -1.0]}
    search = GridSearchCV(_charged_pipeline(accountant), grid, cv=3)
    with pytest.warns(FitFailedWarning):
        search.fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores[0]) and np.isnan(scores[1])
    assert search.best_params_ == {"ridge__alpha": 1e-3}


def test_the_readme_prices_its_charged_search_with_skprivcovs_tools():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    tuning = text.split("## Tuning privately", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", tuning, flags=re.S)
    assert "from sklearn.model_selection import GridSearchCV" not in block
    assert re.search(
        r"from skprivcov\.model_selection import \([^)]*GridSearchCV", block
    )
    assert "search_cost(charged, X, y)" in block
    assert "GridSearchCV over a model holding a release is free" not in text


# --------------------------------------------------------------------------------
# The fold sweep's chosen model predicts on the full table.


@pytest.fixture(scope="module")
def regression_folds():
    rng = np.random.default_rng(3)
    X = rng.normal(scale=0.2, size=(6000, 5))
    y = X @ [1.0, -1.0, 0.5, 0.0, 0.0] + 0.01 * rng.normal(size=6000)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=2.0), y_bound=2.0, random_state=0
    ).fit(X, y)
    return X, y, folds


def test_the_chosen_feature_subset_predicts_on_the_full_table(regression_folds):
    X, _, folds = regression_folds
    subsets = [[0, 1], [0, 1, 2], [3, 4]]  # the best is a strict subset
    search = sk.GridSearchCV(
        ReleaseModel(PrivateRidge()), {"estimator__features": subsets}, cv=folds
    ).fit(folds.tokens_)
    chosen = search.best_params_["estimator__features"]
    assert chosen == [0, 1, 2]
    model = search.best_estimator_.estimator_
    expected = X[:, chosen] @ model.coef_ + model.intercept_
    np.testing.assert_allclose(search.best_estimator_.predict(X), expected)
    np.testing.assert_allclose(search.predict(X), expected)
    # Every column of the release (the target's is not read).
    rows = np.column_stack([X, np.full(len(X), np.nan)])
    np.testing.assert_allclose(search.predict(rows), expected)
    # The chosen columns alone are not the table.
    with pytest.raises(ValueError, match="5 or 6 columns"):
        search.predict(X[:, chosen])


def test_a_chosen_subset_reads_its_columns_by_position_and_name(regression_folds):
    pd = pytest.importorskip("pandas")
    X, y, _ = regression_folds
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=2.0), y_bound=2.0, random_state=0
    ).fit(frame, pd.Series(y, name="t"))
    model = ReleaseModel(PrivateRidge(features=["c", "a"])).fit(folds.tokens_)
    inner = model.estimator_
    expected = X[:, [2, 0]] @ inner.coef_ + inner.intercept_
    np.testing.assert_allclose(model.predict(frame), expected)
    with pytest.warns(UserWarning, match="feature names"):
        np.testing.assert_allclose(model.predict(X), expected)


def test_a_target_inside_the_release_is_skipped_in_the_table():
    """Folds of X alone, a ridge of column 0 on column 2: the table is X
    (its column 0 not read) or X without column 0."""
    rng = np.random.default_rng(4)
    X = rng.normal(scale=0.2, size=(6000, 3))
    X[:, 0] = 0.8 * X[:, 2] + 0.01 * rng.normal(size=6000)
    folds = FoldReleases(
        estimator=GaussianCovariance(rho=2.0), X_norm_bound=2.0, random_state=0
    ).fit(X)
    model = ReleaseModel(PrivateRidge(target=0, features=[2])).fit(folds.tokens_)
    inner = model.estimator_
    expected = X[:, [2]] @ inner.coef_ + inner.intercept_
    np.testing.assert_allclose(model.predict(X), expected)
    np.testing.assert_allclose(model.predict(X[:, 1:]), expected)


def test_a_model_of_every_column_is_unchanged(regression_folds):
    X, _, folds = regression_folds
    ridge = ReleaseModel(PrivateRidge()).fit(folds.tokens_)
    np.testing.assert_array_equal(ridge.predict(X), ridge.estimator_.predict(X))
    X_only = FoldReleases(X_norm_bound=2.0, random_state=0).fit(X)
    pca = ReleaseModel(PrivatePCA(n_components=2)).fit(X_only.tokens_)
    np.testing.assert_array_equal(pca.transform(X), pca.estimator_.transform(X))
