"""CoinPressCovariance (docs/algorithms.rst §18.4): scales, split, refusals,
sensitivities and utility."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn import datasets
from sklearn.metrics import roc_auc_score

from skprivcov import (
    AdaptiveCovariance,
    AutoCovariance,
    CoinPressCovariance,
    GaussianCovariance,
    PrivacyAccountant,
    PrivacyCost,
)
from skprivcov.covariance import PrivateEllipticEnvelope
from skprivcov.covariance._coinpress import _clipped, _transformed
from skprivcov.mechanisms import split_budget
from skprivcov.mechanisms._coinpress import covariance_step_scale, mean_step_scale
from skprivcov.mechanisms.noise._record import recorded_noise
from skprivcov.privacy import compose_parts


def _gaussian(seed, n=4000, d=4, mean_norm=0.0, condition=10.0):
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.normal(size=(d, d)))
    values = np.logspace(0.0, np.log10(condition), d)
    sigma = (basis * values) @ basis.T
    direction = rng.normal(size=d)
    mu = mean_norm * direction / np.linalg.norm(direction)
    return rng.multivariate_normal(mu, sigma, size=n), mu, sigma


def _errors(sigma, mu, covariance, location):
    values, vectors = np.linalg.eigh(sigma)
    root = (vectors / np.sqrt(values)) @ vectors.T
    cov_error = np.linalg.norm(root @ covariance @ root - np.eye(len(sigma)))
    return cov_error, np.linalg.norm(root @ (location - mu))


# ---------------------------------------------------------------------------
# The noise of each step against its stated σ, on both paths.


def _expected_scale(record, n_rows):
    """σ of §18.4 for the record's site and budget, from the rows it reads."""
    rho = record.budget.rho
    if record.site == "mean":
        return 2.0 / n_rows / math.sqrt(2.0 * rho)
    rows = n_rows // 2 if record.site == "pair second moment" else n_rows
    return math.sqrt(2.0) / rows / math.sqrt(2.0 * rho)


def _deviation(record, expected, seed):
    draws = np.concatenate(
        [record.noise, record.redraw(20_000, np.random.default_rng(seed))]
    )
    return float(np.sqrt(np.mean((draws / expected) ** 2)))


@pytest.mark.parametrize("noise", ["hardened", "float"])
@pytest.mark.parametrize("centred", [True, False])
def test_every_step_draws_its_stated_scale(noise, centred):
    X, _, _ = _gaussian(0, n=501)
    est = CoinPressCovariance(
        rho=0.7, assume_centered=centred, noise=noise, random_state=3
    )
    with recorded_noise() as records:
        est.fit(X)
    additive = [p for p in est.privacy_parts_ if "step" in p.step]
    assert len(records) == len(additive)
    # 20 000 draws: the deviation's standard error is 0.5%; 4% is 8 of them,
    # so a scale 10% off fails and the right one passes.
    for index, (record, part) in enumerate(zip(records, additive, strict=True)):
        assert record.hardened == (noise == "hardened")
        assert record.budget == part.cost
        ratio = _deviation(record, _expected_scale(record, 501), seed=index)
        assert ratio == pytest.approx(1.0, abs=0.04), (part.step, ratio)
        # A scale 10% off is caught by the same comparison.
        assert abs(ratio * 1.1 - 1.0) > 0.04 and abs(ratio / 1.1 - 1.0) > 0.04
    sites = [record.site for record in records]
    if centred:
        assert set(sites) == {"second moment"}
    else:
        # The shrinking steps read pairs, the mean the rows, the last step
        # the rows around the private mean.
        assert sites[0] == "pair second moment" and sites[-1] == "second moment"
        assert "mean" in sites


def test_the_scale_formulas():
    assert covariance_step_scale(100, 0.5) == pytest.approx(1 / (100 * math.sqrt(0.5)))
    assert mean_step_scale(100, 0.5) == pytest.approx(2 / 100)


# ---------------------------------------------------------------------------
# The split, and refusals before the charge.


@pytest.mark.parametrize("centred", [True, False])
@pytest.mark.parametrize("steps", [(1, 1), (2, 3), (4, 3), (10, 10)])
@pytest.mark.parametrize("auto", [True, False])
def test_the_split_composes_to_the_budget(centred, steps, auto):
    budget = PrivacyCost.zcdp(0.37)
    parts = split_budget(
        "coinpress",
        budget,
        centred=centred,
        n_covariance_steps=steps[0],
        n_mean_steps=steps[1],
        scale_auto=auto,
        radius_auto=auto,
    )
    assert compose_parts(parts).parameter == pytest.approx(0.37, rel=1e-12)
    names = [p.step for p in parts]
    assert len(names) == len(set(names))
    cov = [p for p in parts if p.step.startswith("covariance step")]
    assert len(cov) == steps[0]
    # The paper's split: the last step 3/4 of the estimator's (non-scale) share.
    share = (1.0 if centred else 0.75) * (15 / 16 if auto else 1.0)
    last = cov[-1].cost.parameter / 0.37
    assert last == pytest.approx(share * (0.75 if steps[0] > 1 else 1.0))
    if centred:
        assert not any(p.step.startswith("mean") for p in parts)


def test_fit_publishes_the_split():
    X, _, _ = _gaussian(1, n=600)
    est = CoinPressCovariance(rho=0.3, assume_centered=False, random_state=0).fit(X)
    names = [p.step for p in est.privacy_parts_]
    assert names == [
        "covariance scale",
        "covariance step 1",
        "covariance step 2",
        "covariance step 3",
        "mean scale",
        "mean step 1",
        "mean step 2",
        "mean step 3",
        "covariance step 4",
    ]
    assert est.privacy_spent_ == PrivacyCost.zcdp(0.3)
    public = CoinPressCovariance(
        rho=0.3, norm_bound=50.0, radius=10.0, assume_centered=False, random_state=0
    ).fit(X)
    assert not any("scale" in p.step for p in public.privacy_parts_)
    assert public.norm_bound_ == 50.0


@pytest.mark.parametrize(
    "params",
    [
        {"center": [0.0, 1.0]},
        {"center": [np.nan, 0, 0, 0]},
        {"center": [1e40, 0, 0, 0]},
        {"epsilon": 1.0},
    ],
)
def test_bad_parameters_are_refused_before_the_charge(params):
    accountant = PrivacyAccountant(rho=10.0)
    est = CoinPressCovariance(accountant=accountant, **params)
    with pytest.raises(Exception):  # noqa: B017 - any refusal
        est.fit(np.ones((40, 4)))
    assert accountant.history() == []


def test_too_few_rows_for_pairs_are_refused_before_the_charge():
    accountant = PrivacyAccountant(rho=10.0)
    est = CoinPressCovariance(rho=0.1, assume_centered=False, accountant=accountant)
    with pytest.raises(ValueError, match="4 rows"):
        est.fit(np.ones((3, 2)))
    assert accountant.history() == []


def test_a_public_centre_is_used():
    X, _, _ = _gaussian(2, n=2000, mean_norm=0.0)
    shifted = X + 1e6
    est = CoinPressCovariance(
        rho=1e6, center=np.full(4, 1e6), assume_centered=True, random_state=0
    ).fit(shifted)
    np.testing.assert_array_equal(est.location_, np.full(4, 1e6))
    np.testing.assert_allclose(est.covariance_, X.T @ X / len(X), rtol=1e-3, atol=1e-3)


# ---------------------------------------------------------------------------
# Sensitivities: the statistics a step noises, under an adversarial search.


def _step_statistics(rows, whitening, centre, radius, pairs):
    """(second moment, mean) of the unit-ball rows of one step."""
    if pairs:
        first, second = rows[0::2], rows[1::2]
        y, scale = _transformed(
            first, second, whitening / radius, np.zeros(rows.shape[1])
        )
    else:
        y, scale = _transformed(rows, None, whitening / radius, centre)
    z = _clipped(y, scale)
    return z.T @ z / len(z), z.mean(axis=0)


@pytest.mark.parametrize("pairs", [False, True])
def test_sensitivities_hold_under_adversarial_search(pairs):
    """Replace one row (rows 0 and 1 form a pair): the second moment moves by
    at most √2/m in Frobenius norm and the mean by at most 2/m in ℓ2, m the
    rows (or pairs) the statistic reads, whatever the replacement."""
    rng = np.random.default_rng(7)
    d, n = 3, 10
    rows = rng.normal(size=(n, d))
    whitening = rng.normal(size=(d, d))
    centre, radius = rng.normal(size=d), 1.7
    m = n // 2 if pairs else n
    base_moment, base_mean = _step_statistics(rows, whitening, centre, radius, pairs)

    def gap(point, which):
        other = rows.copy()
        other[0] = point
        moment, mean = _step_statistics(other, whitening, centre, radius, pairs)
        if which == "moment":
            return -np.linalg.norm(moment - base_moment) * m
        return -np.linalg.norm(mean - base_mean) * m

    for which, bound in (("moment", math.sqrt(2.0)), ("mean", 2.0)):
        best = 0.0
        for _ in range(12):  # restarts from 0.1 to 1000 times the rows' scale
            x0 = rng.normal(size=d) * 10.0 ** rng.uniform(-1, 3)
            result = minimize(gap, x0, args=(which,), method="Nelder-Mead")
            best = max(best, -result.fun)
        assert best <= bound * (1 + 1e-9)
        if pairs or which == "moment":
            assert best > 0.5 * bound  # the search does reach the scale


def test_the_second_moment_bound_is_attained():
    """Orthogonal unit rows reach √2 exactly: the bound is tight."""
    z, w = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    assert np.linalg.norm(z.T @ z - w.T @ w) == pytest.approx(math.sqrt(2.0))


# ---------------------------------------------------------------------------
# Nothing can overflow: extreme rows are clipped, not refused.


def test_extreme_finite_rows_do_not_fail():
    X, _, _ = _gaussian(3, n=300)
    X[5] = 1e300
    X[6] = -1e308
    est = CoinPressCovariance(rho=0.5, assume_centered=False, random_state=0).fit(X)
    assert np.isfinite(est.covariance_).all() and np.isfinite(est.location_).all()


# ---------------------------------------------------------------------------
# Utility.


def test_it_finds_a_far_mean_and_an_ill_conditioned_covariance():
    X, mu, sigma = _gaussian(4, n=20_000, d=4, mean_norm=1e4, condition=1e3)
    est = CoinPressCovariance(rho=1.0, assume_centered=False, random_state=0).fit(X)
    cov_error, mean_error = _errors(sigma, mu, est.covariance_, est.location_)
    assert cov_error < 0.2
    assert mean_error < 0.1


def _oracle_error(cls, X, mu, sigma, rho):
    norms = np.linalg.norm(X, axis=1)
    base = np.append(np.quantile(norms, [0.5, 0.9, 0.99]), norms.max())
    bounds = np.unique(np.outer(base, [1.0, 1.5, 2.0]).ravel())[:9]
    found = []
    for bound in bounds:
        est = cls(
            rho=rho, norm_bound=float(bound), assume_centered=False, random_state=0
        ).fit(X)
        found.append(_errors(sigma, mu, est.covariance_, est.location_))
    return min(found)


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.1, 1.0])
@pytest.mark.parametrize(
    ("mean_norm", "condition"), [(0.0, 1e3), (1e4, 1e3), (1e4, 1.0)]
)
def test_coinpress_beats_every_fixed_bound_at_its_oracle_bound(
    rho, mean_norm, condition
):
    """The issue's acceptance, smaller (one data set per cell; the full table
    is benchmarks/bench_coinpress.py): d = 10, n = 20 000."""
    X, mu, sigma = _gaussian(
        5, n=20_000, d=10, mean_norm=mean_norm, condition=condition
    )
    est = CoinPressCovariance(rho=rho, assume_centered=False, random_state=1).fit(X)
    ours = _errors(sigma, mu, est.covariance_, est.location_)
    for cls in (GaussianCovariance, AdaptiveCovariance, AutoCovariance):
        theirs = _oracle_error(cls, X, mu, sigma, rho)
        assert ours[0] < theirs[0], (cls.__name__, ours, theirs)
        if mean_norm > 0:
            # At μ = 0 every mean is at the sampling floor √(d/n) ≈ 0.022;
            # CoinPress's, at 1/4 of the budget, measures 0.023–0.026 there
            # against 0.021–0.024 (not claimed: see docs/coinpress.rst).
            assert ours[1] < theirs[1], (cls.__name__, ours, theirs)


def test_breast_cancer_outliers_with_no_bound_given():
    """Issue 33, part 4: the 357 benign rows of breast cancer as shipped (30
    features on scales from 1e-3 to 1e3, no scaling, no bound given),
    released at ρ = 1; ``-decision_function`` scores all 569 rows and the
    malignant ones (the positive class) come out with a median AUC ≥ 0.9
    over 10 seeds (non-private Mahalanobis: 0.977).

    The bar is raised to the AUC of the raw norm ‖x‖ (0.962), which is what
    a release of nothing (mean 0, covariance 0, an isotropic floor) scores
    by on this data: the release must be of the data (its scale bought, its
    top eigenvalue within 2× of the sample's). Before issue 33's fixes to
    the shrinking steps' radius and to the floor, 0.94 with seeds at 0.53
    (the ellipsoid grew at every step: 300× the covariance)."""
    data = datasets.load_breast_cancer()
    malignant = data.target == 0
    benign = data.data[~malignant]
    sample_top = np.linalg.eigvalsh(np.cov(benign.T))[-1]
    aucs = []
    for seed in range(10):
        detector = PrivateEllipticEnvelope(
            estimator=CoinPressCovariance(rho=1.0), random_state=seed
        ).fit(benign)
        aucs.append(roc_auc_score(malignant, -detector.decision_function(data.data)))
        release = detector.estimator_
        assert release.norm_bound_ > 1.0
        top = np.linalg.eigvalsh(release.covariance_)[-1]
        assert 0.5 < top / sample_top < 2.0
    nothing = roc_auc_score(malignant, np.linalg.norm(data.data, axis=1))
    assert np.median(aucs) >= 0.9, aucs
    assert np.median(aucs) > nothing, (aucs, nothing)
