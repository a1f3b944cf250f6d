"""PrivateRidge's private penalty steps (issue 35 part 3, docs/algorithms.rst §16):
AdaSSP's private smallest eigenvalue (``alpha="adassp"``) and the boosted
rounds on clipped residuals (``boosting_rounds``).

* the noise of λ̃_min and of every round at the scale the specification
  gives, on both noise paths (a scale 10% off fails);
* the sensitivity of λ_min under replace-one, in the units of the model's
  bounded rows and of its release, by adversarial search;
* the accounting: the parts compose to ``privacy_spent_``, the draws' budgets
  to the parts, the accountant is charged once with the total;
* the threat model (§13): no data value in a message, the hardened path
  taken by default and not skippable, the charge before any value is read;
* scikit-learn's checks on both options.
"""

import math

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from skprivcov import GaussianCovariance, LaplaceCovariance, PrivacyAccountant
from skprivcov.linear_model import PrivateRidge
from skprivcov.linear_model._adassp import (
    SMALLEST_EIGENVALUE_SHARE,
    smallest_eigenvalue,
    smallest_eigenvalue_sensitivity,
)
from skprivcov.linear_model._boost import FEATURE_SHARE
from skprivcov.linear_model._rows import bounded_rows
from skprivcov.mechanisms.noise import _hardened as _hardened
from skprivcov.mechanisms.noise._record import recorded_noise
from skprivcov.privacy import BudgetExceededError, compose_parts
from skprivcov.utils._test_common.instance_generator import expected_failed_checks
from skprivcov.utils._test_common.published import published

N_SAMPLES, N_FEATURES = 400, 4
N_DRAWS = 8192
N_SE = 4.5
LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(N_SAMPLES, N_FEATURES))
    y = X @ np.array([0.5, -0.3, 0.2, 0.0]) + 0.1 * rng.normal(size=N_SAMPLES)
    return X, y


def _model(notion, path, **params):
    if notion == "zcdp":
        estimator = GaussianCovariance(rho=0.5, noise=path)
    else:
        estimator = LaplaceCovariance(epsilon=2.0, noise=path)
    settings = {"X_norm_bound": 2.0, "y_bound": 2.0, "random_state": 3}
    return PrivateRidge(estimator=estimator, **{**settings, **params})


def _ratio(record, expected, seed):
    """(the record's scale in units of ``expected``, the tolerance): the
    deviation for Gaussian noise, the mean absolute value for Laplace."""
    rng = np.random.default_rng(seed)
    draws = np.concatenate([record.noise, record.redraw(N_DRAWS, rng)]) / expected
    if record.budget.notion == "zcdp":
        return float(np.sqrt(np.mean(draws**2))), N_SE / math.sqrt(2.0 * draws.size)
    return float(np.mean(np.abs(draws))), N_SE / math.sqrt(draws.size)


def _scale(sensitivity, budget):
    if budget.notion == "zcdp":
        return sensitivity / math.sqrt(2.0 * budget.parameter)
    return sensitivity / budget.parameter


# ----------------------------------------------------------------------------
# Noise scales.


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
@pytest.mark.parametrize("path", ["hardened", "float"])
@pytest.mark.parametrize("intercept", [True, False])
def test_smallest_eigenvalue_noise_has_the_stated_scale(notion, path, intercept):
    """λ̃_min: Δ = 4(n − 1)/n² centred (1/n without an intercept) at the
    part "smallest eigenvalue", 1/8 of the budget; Gaussian σ = Δ/√(2ρ),
    Laplace b = Δ/ε (written out here, not read from the library)."""
    X, y = _data()
    model = _model(notion, path, alpha="adassp", fit_intercept=intercept)
    with recorded_noise() as records:
        model.fit(X, y)
    (record,) = [r for r in records if r.site == "smallest eigenvalue"]
    assert record.hardened == (path == "hardened")
    total = 0.5 if notion == "zcdp" else 2.0
    assert record.budget.parameter == pytest.approx(total / 8, rel=1e-12)
    n = N_SAMPLES
    sensitivity = 4.0 * (n - 1) / n**2 if intercept else 1.0 / n
    ratio, tolerance = _ratio(record, _scale(sensitivity, record.budget), seed=1)
    assert tolerance < 0.06
    assert ratio == pytest.approx(1.0, abs=tolerance)


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
@pytest.mark.parametrize("path", ["hardened", "float"])
def test_every_round_has_the_stated_scale(notion, path):
    """Each round noises the mean of n rows in the unit ball of R^{d+1}:
    Δ = 2/n in ℓ2 (zCDP), 2√(d + 1)/n in ℓ1 (pure), at its part."""
    X, y = _data()
    rounds = 3
    model = _model(notion, path, boosting_rounds=rounds)
    with recorded_noise() as records:
        model.fit(X, y)
    means = [r for r in records if r.site == "mean"]
    assert len(means) == rounds
    total = 0.5 if notion == "zcdp" else 2.0
    n, columns = N_SAMPLES, N_FEATURES + 1
    sensitivity = 2.0 / n if notion == "zcdp" else 2.0 * math.sqrt(columns) / n
    for index, record in enumerate(means):
        assert record.hardened == (path == "hardened")
        assert record.noise.size == columns
        share = (1.0 - FEATURE_SHARE) / rounds
        assert record.budget.parameter == pytest.approx(total * share, rel=1e-12)
        ratio, tolerance = _ratio(
            record, _scale(sensitivity, record.budget), seed=index
        )
        assert ratio == pytest.approx(1.0, abs=tolerance)


# ----------------------------------------------------------------------------
# Sensitivity of λ_min under replace-one, by adversarial search.


def _lambda_min(X, centred, bound):
    """λ_min in the release's units: the model's bounded feature rows (one
    row-norm bound B: z = x/max(‖x‖, B)), times B² (x = B·z)."""
    rows = bounded_rows(
        X, np.zeros(X.shape[0]), X_norm_bound=bound, y_bound=1.0, fit_intercept=True
    )[:, :-1]
    value, error = smallest_eigenvalue(rows, centred)
    return bound**2 * value, bound**2 * error


@pytest.mark.parametrize("centred", [True, False])
def test_smallest_eigenvalue_sensitivity_holds_under_adversarial_search(centred):
    """Replace one row, chosen to move λ_min the most (random restarts and
    coordinate moves, rows far beyond the bound included): the change never
    exceeds B²·Δ (plus the float error on both sides), and the extreme
    neighbours of d = 1 attain at least 95% of it (the bound is tight)."""
    bound, n = 3.0, 12
    limit = bound**2 * smallest_eigenvalue_sensitivity(n, centred)
    rng = np.random.default_rng(7)
    worst = 0.0
    for d in (1, 2, 3):
        for _ in range(8):
            base = rng.normal(size=(n, d)) * rng.choice([0.3, 3.0, 30.0])
            if rng.random() < 0.5:  # clustered rows: small variance
                base = base * 0.01 + rng.normal(size=d) * bound
            reference, error = _lambda_min(base, centred, bound)
            row = rng.normal(size=d) * bound
            for step in (3.0, 1.0, 0.3, 0.1):
                for _ in range(10):
                    candidate = row + rng.normal(size=d) * step * bound
                    neighbour = base.copy()
                    neighbour[0] = candidate
                    changed, _ = _lambda_min(neighbour, centred, bound)
                    gap = abs(changed - reference)
                    assert gap <= limit + 2 * error, (d, gap, limit)
                    if gap > worst:
                        worst, row = gap, candidate
    # The extreme pair (d = 1): n − 1 rows at one end, the last at the same
    # end or the other (centred); all at 0 or one at the bound (uncentred).
    base = np.full((n, 1), -bound if centred else 0.0)
    neighbour = base.copy()
    neighbour[0] = bound
    attained = abs(
        _lambda_min(neighbour, centred, bound)[0] - _lambda_min(base, centred, bound)[0]
    )
    assert attained >= 0.95 * limit
    assert attained <= limit * (1 + 1e-9)


# ----------------------------------------------------------------------------
# Accounting.


@pytest.mark.parametrize("notion", ["zcdp", "pure"])
@pytest.mark.parametrize("alpha", ["auto", "adassp"])
def test_boosted_parts_compose_to_the_spend_and_to_the_draws(notion, alpha):
    X, y = _data()
    rounds = 4
    model = _model(notion, "hardened", boosting_rounds=rounds, alpha=alpha)
    with recorded_noise() as records:
        model.fit(X, y)
    total = 0.5 if notion == "zcdp" else 2.0
    spent = model.privacy_spent_
    assert spent.notion == notion and spent.parameter == pytest.approx(total)
    composed = compose_parts(model.privacy_parts_)
    assert composed.parameter == pytest.approx(spent.parameter, rel=1e-12)
    steps = [part.step for part in model.privacy_parts_]
    expected_rounds = [f"residual round {t}" for t in range(1, rounds + 1)]
    assert steps[-rounds:] == expected_rounds
    assert ("smallest eigenvalue" in steps) == (alpha == "adassp")
    # Public bounds: every part is additive noise; the draws spend exactly
    # the parts (sequential composition, nothing noised twice or skipped).
    drawn = sum(record.budget.parameter for record in records)
    assert drawn == pytest.approx(spent.parameter, rel=1e-12)
    shares = {part.step: part.cost.parameter / total for part in model.privacy_parts_}
    if alpha == "adassp":
        assert shares["smallest eigenvalue"] == pytest.approx(SMALLEST_EIGENVALUE_SHARE)


def test_the_accountant_is_charged_once_with_the_total():
    X, y = _data()
    accountant = PrivacyAccountant(rho=1.0)
    model = PrivateRidge(
        estimator=GaussianCovariance(rho=0.4, accountant=accountant),
        boosting_rounds=5,
        alpha="adassp",
        random_state=0,
    ).fit(X, y)
    # One charge of the total (two would have spent more).
    assert accountant.spent.rho == pytest.approx(0.4)
    assert compose_parts(model.privacy_parts_).parameter == pytest.approx(0.4)
    # Private bounds (the defaults) first, then the release and the rounds.
    assert [p.step for p in model.privacy_parts_][:2] == ["X box", "y bound"]


# ----------------------------------------------------------------------------
# Threat model (§13).


@pytest.mark.parametrize("params", [{"alpha": "adassp"}, {"boosting_rounds": 2}])
def test_the_charge_comes_before_any_value_is_read(params):
    """A non-finite value is refused only after the charge: with too little
    budget the refusal is the budget's; with enough, the spend is recorded
    and then the data are refused (a refusal paid for, §13.2)."""
    X, y = _data()
    X[5, 1] = np.nan
    poor = PrivacyAccountant(rho=0.1)
    model = PrivateRidge(
        estimator=GaussianCovariance(rho=0.4, accountant=poor),
        X_norm_bound=2.0,
        y_bound=2.0,
        random_state=0,
        **params,
    )
    with pytest.raises(BudgetExceededError):
        model.fit(X, y)
    rich = PrivacyAccountant(rho=1.0)
    model.set_params(estimator=GaussianCovariance(rho=0.4, accountant=rich))
    with pytest.raises(ValueError, match="after the budget is charged"):
        model.fit(X, y)
    assert rich.spent.rho == pytest.approx(0.4)


SENTINEL = 31415.926535


@pytest.mark.parametrize("params", [{"alpha": "adassp"}, {"boosting_rounds": 2}])
def test_no_message_holds_a_data_value(params):
    X, y = _data()
    X[0] = [SENTINEL, np.nan, SENTINEL, SENTINEL]
    y[1] = SENTINEL
    model = PrivateRidge(estimator=GaussianCovariance(rho=0.4), **params)
    with pytest.raises(ValueError) as raised:
        model.fit(X, y)
    for text in (str(raised.value), repr(raised.value)):
        assert "31415" not in text and "3.1415" not in text


@pytest.mark.parametrize("params", [{"alpha": "adassp"}, {"boosting_rounds": 2}])
def test_the_hardened_path_is_the_default_and_is_not_skipped(params, monkeypatch):
    """By default (GaussianCovariance's noise="hardened") every draw is
    hardened; and the fit goes through the hardened sampler (a broken one
    breaks the fit, so no branch bypasses it)."""
    X, y = _data()
    with recorded_noise() as records:
        PrivateRidge(random_state=0, **params).fit(X, y)
    assert records and all(record.hardened for record in records)

    def broken(*args, **kwargs):
        raise RuntimeError("hardened sampler called")

    monkeypatch.setattr(_hardened, "discrete_gaussian", broken)
    with pytest.raises(RuntimeError, match="hardened sampler called"):
        PrivateRidge(random_state=0, X_norm_bound=2.0, y_bound=2.0, **params).fit(X, y)


def test_options_need_the_rows():
    """Both options read the training rows: refused from a given release
    (a public check; nothing is read)."""
    X, y = _data()
    release = GaussianCovariance(rho=1.0, assume_centered=False).fit(
        np.column_stack([X / 2.0, y / 4.0])
    )
    for params in ({"alpha": "adassp"}, {"boosting_rounds": 3}):
        with pytest.raises(ValueError, match="read the training rows"):
            PrivateRidge(covariance=release, **params).fit()


def test_fitted_attributes_are_public_or_released():
    """What a boosted fit publishes: the coefficients and the penalty
    (post-processing), the feature release's estimator, the bounds, the
    spend; no release_ of [x, y] (there is none)."""
    X, y = _data()
    model = PrivateRidge(boosting_rounds=3, random_state=0).fit(X, y)
    fitted = {name for name in vars(model) if name.endswith("_")}
    allowed = set(published("PrivateRidge")) | {
        "privacy_spent_",
        "privacy_parts_",
        "n_features_in_",
    }
    assert fitted <= allowed, fitted - allowed
    assert "release_" not in fitted


# ----------------------------------------------------------------------------
# scikit-learn's checks.


@parametrize_with_checks(
    [
        PrivateRidge(alpha="adassp", random_state=0),
        PrivateRidge(boosting_rounds=3, random_state=0),
        PrivateRidge(
            boosting_rounds=2,
            alpha="adassp",
            estimator=LaplaceCovariance(epsilon=4.0),
            fit_intercept=False,
            random_state=0,
        ),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------
# Utility (issue 35's acceptance; slow).


@pytest.mark.slow
def test_boosted_ridge_meets_the_acceptance_on_diabetes():
    """Diabetes with the quickstart's public clinical bounds, 20 random 70/30
    splits: the boosted model's mean test MSE ≤ 1.15× LinearRegression's at
    ρ = 1 and ≤ 0.9× the training mean's at ρ = 0.1."""
    from skprivcov.preprocessing import FeatureBoundsScaler

    X, y = load_diabetes(return_X_y=True, scaled=False)
    X = FeatureBoundsScaler(lower=LOWER, upper=UPPER).transform(X)
    errors = {"1": [], "0.1": [], "ols": [], "mean": []}
    for seed in range(20):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, random_state=seed
        )
        for rho in (1.0, 0.1):
            model = PrivateRidge(
                estimator=GaussianCovariance(rho=rho),
                X_norm_bound=math.sqrt(10),
                y_bound=(0.0, 400.0),
                boosting_rounds=10,
                random_state=seed,
            ).fit(X_train, y_train)
            errors[f"{rho:g}"].append(np.mean((model.predict(X_test) - y_test) ** 2))
        ols = LinearRegression().fit(X_train, y_train).predict(X_test)
        errors["ols"].append(np.mean((ols - y_test) ** 2))
        errors["mean"].append(np.mean((y_train.mean() - y_test) ** 2))
    means = {key: float(np.mean(values)) for key, values in errors.items()}
    assert means["1"] <= 1.15 * means["ols"], means
    assert means["0.1"] <= 0.9 * means["mean"], means
