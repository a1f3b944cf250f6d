"""Every noised step of every registered variant, on both noise paths, draws
noise at the scale docs/algorithms.rst states (issue 32, part 4).

Generated from the registry (``skprivcov.utils.registry``): each variant is
fitted once with hardened noise and once with float noise, with every additive
noise draw recorded (``skprivcov.mechanisms.noise._record``). For each record:

* the path is the one asked for (a removed hardened branch fails here);
* its scale, measured on the draw and on 8 192 more draws by the same sampler at
  the same scale, is the one the specification gives for that statistic (§0.2
  and §15, written out below independently of the library's own functions)
  at the budget the record was drawn for, with the rows the statistic reads
  (a fold's rows for fold releases, the held-out rows for a held-out score);
* the records' budgets, with the parts that draw no additive noise (Bingham
  and nuclear-chain draws, dON's unspent share), compose to exactly the budget
  the fit charged, in the parts ``privacy_parts_`` names (an over-spent split,
  or a step noised at the whole budget, fails here);
* every part of ``privacy_parts_`` that is additive has a record.

The tolerance is 4.5 standard errors of the scale estimate from 8 192 draws:
3.5% for a Gaussian deviation, 5% for a Laplace mean absolute value, so a
scale 10% off fails with a wide margin. A behaviour test, not a stored digest.
"""

import math

import numpy as np
import pytest
from _labels import declare_labels
from sklearn.base import is_classifier

from skprivcov import GaussianCovariance, LaplaceCovariance, PrivacyCost
from skprivcov.linear_model import PrivateRidge
from skprivcov.mechanisms.noise._record import SITES, recorded_noise
from skprivcov.model_selection import (
    CovarianceErrorScore,
    PredictionLossScore,
    PrivateRandomSearch,
)
from skprivcov.utils import registry

# 420 rows split evenly into 2, 3, 4, 5, 6 or 7 folds.
N_SAMPLES, N_FEATURES = 420, 4
N_DRAWS = 8192
N_SE = 4.5
PATHS = ("hardened", "float")

# Which statistic an additive part of ``privacy_parts_`` noises, and the parts
# that draw no additive noise (their cost is checked by the accounting only).
ADDITIVE_PARTS = {
    "noisy matrix": "second moment",
    "final": "second moment",
    "per-class sums": "class sums",
    "eigenvalues": "eigenvalues",
    "trace bound": "trace",
    "trace estimate": "trace",
    "radius": "svt threshold",
    "threshold search": "svt threshold",
    "nuclear radius": "nuclear radius",
    # AutoCovariance's shrinkage (§3.9a): q = ⟨R, C⟩/(λ·ν), sensitivity 1/n.
    "shrinkage": "shrinkage",
}
# norm_bound="auto" (§18.2) is the exponential mechanism: no additive noise.
OTHER_PARTS = {
    "eigenvectors",
    "noise",
    "unspent (dON Alg. 2)",
    "norm bound",
    "X norm bound",
    "y bound",
    # A ridge model's box per feature (§18.5): 2·d private quantiles.
    "X box",
    # AutoCovariance's mechanism share when it releases the zero matrix
    # (§3.9): charged, nothing drawn.
    "unspent (zero released)",
}
# A ridge model's fallback (§18.5): the mean of the targets clipped to their
# box, of sensitivity (upper − lower)/n.
ADDITIVE_PARTS["y mean"] = "target mean"
# PrivateFeatureScaler (§18.3): 2·d private quantiles by the exponential
# mechanism, which draws no additive noise.
OTHER_PARTS |= {"feature quantiles"}
# CoinPress (§18.4): each covariance step noises the second moment of its
# unit-ball rows (the rows, or with the mean the m = ⌊n/2⌋ pair differences,
# site "pair second moment"), each mean step the mean of the n unit-ball rows;
# its first scales are exponential-mechanism quantiles (no additive noise).
ADDITIVE_PARTS.update(
    {f"covariance step {t}": "second moment" for t in range(1, 11)}
    | {f"mean step {t}": "mean" for t in range(1, 11)}
)
_COINPRESS_PAIRS = "pair second moment"
# The classifiers' blocks (§21): each part noises the statistic of its name.
ADDITIVE_PARTS.update(
    {
        step: step
        for step in ("class counts", "class totals", "class squares", "pooled squares")
    }
)
OTHER_PARTS |= {"covariance scale", "mean scale"}
# A boosted ridge model's rounds (§16): each noises the mean of the rows
# (r/R)·(z, 1)/√2 in the unit ball, ℓ2 sensitivity 2/n (site "mean").
ADDITIVE_PARTS.update({f"residual round {t}": "mean" for t in range(1, 11)})
# AdaSSP's private smallest eigenvalue (§16).
ADDITIVE_PARTS["smallest eigenvalue"] = "smallest eigenvalue"
# A classifier's private label set (§25): the noisy count of every label.
ADDITIVE_PARTS["label set"] = "label set"
# The private per-feature normalisation (§23): the cells' counts, then per
# round the box-clipped coordinates' means and their absolute deviations.
ADDITIVE_PARTS["feature cells"] = "feature cells"
ADDITIVE_PARTS.update(
    {f"feature means {t}": "feature means" for t in range(1, 11)}
    | {f"feature spreads {t}": "feature spreads" for t in range(1, 11)}
)


def _upper_dimension(coordinates):
    """D with D(D + 1)/2 = coordinates (a symmetric statistic's size)."""
    dimension = round((math.sqrt(8 * coordinates + 1) - 1) / 2)
    assert dimension * (dimension + 1) // 2 == coordinates
    return dimension


def _sensitivity(site, n_rows, coordinates, gaussian):
    """The statistic's sensitivity (ℓ2 for Gaussian noise, ℓ1 for Laplace)
    over the rows it reads, as docs/algorithms.rst §0.2 and §15 state it."""
    if site in ("second moment", "class sums"):
        if gaussian:
            return math.sqrt(2.0) / n_rows  # §0.2; §15: jointly, one release's
        dimension = _upper_dimension(coordinates)
        if site == "class sums":
            # §15, derived in _sensitivity: ((√d + 1)²/2 + 1)/n for the
            # augmented rows of d features (D = d + 1).
            features = dimension - 1
            return ((math.sqrt(features) + 1.0) ** 2 / 2.0 + 1.0) / n_rows
        return min(math.sqrt(dimension * (dimension + 1)), dimension / 2**0.5 + 1) / (
            n_rows
        )
    if site in ("class counts", "class squares", "pooled squares"):
        # §21: a change of class moves two entries by one (counts) or two
        # blocks by x⊙x and y⊙y; ℓ1 2/n, ℓ2 √2/n.
        return (math.sqrt(2.0) if gaussian else 2.0) / n_rows
    if site == "class totals":
        # §21: ‖x − y‖ ≤ 2 within a class; ℓ1 2√d/n.
        return (2.0 if gaussian else 2.0 * math.sqrt(N_FEATURES)) / n_rows
    if site == "label set":
        # §25: a replaced row moves two labels' counts by one (in counts,
        # not divided by n); Gaussian only (a pure budget cannot pay δ₀).
        assert gaussian
        return math.sqrt(2.0)
    if site == "feature cells":
        # §23: a replaced row moves one count down and one up in each of the
        # d features' histograms (in counts, not divided by n).
        return math.sqrt(2.0 * N_FEATURES) if gaussian else 2.0 * N_FEATURES
    if site in ("feature means", "feature spreads"):
        # §23: each clipped coordinate moves by at most 2 (u in [−1, 1]) or
        # 1 (|u| in [0, 1]).
        per_feature = 2.0 if site == "feature means" else 1.0
        if gaussian:
            return per_feature * math.sqrt(N_FEATURES) / n_rows
        return per_feature * N_FEATURES / n_rows
    if site == "smallest eigenvalue":
        # §16: λ_min of the centred second moment of unit-ball rows (the
        # registry's variant fits an intercept) moves by 4(n − 1)/n².
        return 4.0 * (n_rows - 1) / n_rows**2
    if site == "eigenvalues":
        return (math.sqrt(2.0) if gaussian else 2.0) / n_rows
    if site in ("trace", "shrinkage"):
        # §3.9a: the shrinkage statistic is normalised by λ·ν to sensitivity 1/n.
        return 1.0 / n_rows
    if site == "pair second moment":
        return math.sqrt(2.0) / (n_rows // 2)  # §18.4: one pair per row
    if site == "mean":
        return 2.0 / n_rows  # §18.4: ‖z − z'‖ ≤ 2 in the unit ball
    if site == "nuclear radius":
        return 2.0 / n_rows  # 2·tr Σ (§6.6)
    # §1: AboveThreshold's queries have sensitivity 1; its threshold gets
    # Lap(2/ε) and each query Lap(4/ε).
    return {"svt threshold": 2.0, "svt queries": 4.0}[site]


def _scale(sensitivity, budget):
    """σ = Δ/√(2ρ) for a zCDP budget, b = Δ/ε for a pure one (§0.1)."""
    if budget.notion == "zcdp":
        return sensitivity / math.sqrt(2.0 * budget.parameter)
    return sensitivity / budget.parameter


def _measured_ratio(record, expected, seed):
    """The record's noise and N_DRAWS more of its law, in units of the
    expected scale: (estimate, tolerance). The estimate is the deviation for
    Gaussian noise and the mean absolute value for Laplace noise (both 1 at
    the right scale)."""
    rng = np.random.default_rng(seed)
    draws = np.concatenate([record.noise, record.redraw(N_DRAWS, rng)]) / expected
    if record.budget.notion == "zcdp":
        # sd of a normal sample: relative standard error 1/√(2N).
        return float(np.sqrt(np.mean(draws**2))), N_SE / math.sqrt(2.0 * draws.size)
    # |Lap(1)| has mean 1 and sd 1.
    return float(np.mean(np.abs(draws))), N_SE / math.sqrt(draws.size)


def _in_notion(cost, notion):
    """A part's parameter in the fit's notion: a pure ε step inside a zCDP
    budget spends ε²/2 (the sparse vector steps, BS16 Prop. 1.4)."""
    if cost.notion == notion:
        return cost.parameter
    assert cost.notion == "pure" and notion == "zcdp", (cost, notion)
    return cost.parameter**2 / 2.0


def _spent(records, notion):
    """What the records' draws spent, composed: draws sharing a token spend
    one budget together."""
    seen, total = set(), 0.0
    for record in records:
        if record.joint is not None:
            if id(record.joint) in seen:
                continue
            seen.add(id(record.joint))
        total += _in_notion(record.budget, notion)
    return total


def _data():
    rng = np.random.default_rng(20)
    X = rng.normal(size=(N_SAMPLES, N_FEATURES)) * np.array([0.5, 0.3, 0.2, 0.1])
    y_regression = X @ np.array([0.4, -0.3, 0.2, 0.0]) + 0.05 * rng.normal(
        size=N_SAMPLES
    )
    y_classes = np.digitize(X[:, 0], [-0.2, 0.2])
    return X, y_regression, y_classes


def _configured(entry, variant, path):
    """The variant with ``noise=path`` in every step and an int seed in every
    step. A model that makes its release with a default estimator (its
    ``estimator`` left None) draws hardened noise, the library's default; for
    the float path that default is made explicit: ``_default_estimator()``
    where the model has one (PCA, the envelope), else GaussianCovariance (the
    documented default of the ridge models and of FoldReleases)."""
    estimator = entry.make(variant)
    params = estimator.get_params(deep=False)
    if path == "float" and "estimator" in params and params["estimator"] is None:
        default = getattr(estimator, "_default_estimator", GaussianCovariance)
        estimator.set_params(estimator=default())
    params = estimator.get_params(deep=True)
    settings = {name: path for name in params if name.split("__")[-1] == "noise"}
    noised = bool(settings) or "estimator" in params
    seeds = [name for name in params if name.split("__")[-1] == "random_state"]
    settings.update({name: 11 + i for i, name in enumerate(seeds)})
    return estimator.set_params(**settings), noised


def _folds(estimator):
    """How many disjoint folds the fit releases (1 for one release)."""
    params = estimator.get_params(deep=False)
    return int(params.get("n_folds") or params.get("cv") or 1)


def _cases():
    for name, entry in registry().items():
        for variant in entry.variants:
            for path in PATHS:
                yield pytest.param(name, variant, path, id=f"{name}-{variant}-{path}")


@pytest.mark.parametrize(("name", "variant", "path"), list(_cases()))
def test_every_noised_step_has_the_stated_scale(name, variant, path):
    entry = registry()[name]
    estimator, noised = _configured(entry, variant, path)
    X, y_regression, y_classes = _data()
    y = y_classes if is_classifier(estimator) else y_regression
    # A pure budget cannot pay for a private label set (§25): declared public.
    estimator = declare_labels(estimator, y)
    with recorded_noise() as records:
        estimator.fit(X, y)
    parts = getattr(estimator, "privacy_parts_", None) or ()
    if not noised:  # a transformer or the zero release: nothing is noised
        assert records == [] and all(p.cost.parameter == 0 for p in parts)
        return
    folds = _folds(estimator)
    n_rows = N_SAMPLES // folds
    hardened = path == "hardened"

    # The path asked for, at every step (§17).
    assert all(record.hardened == hardened for record in records)
    assert {record.site for record in records} <= set(SITES)

    # Every additive part has its draws; every part is known to this test.
    steps = [part.step for part in parts]
    unknown = set(steps) - set(ADDITIVE_PARTS) - OTHER_PARTS
    assert not unknown, f"add the new steps {unknown} to this test"
    sites = {record.site for record in records}
    for step in steps:
        if step in ADDITIVE_PARTS:
            wanted = {ADDITIVE_PARTS[step]}
            if wanted == {"second moment"}:
                wanted.add(_COINPRESS_PAIRS)
            assert wanted & sites, f"no noise drawn for {step!r}"

    # The draws' budgets and the non-additive parts compose to the charge
    # (each disjoint fold pays it once: parallel composition).
    notion = estimator.privacy_spent_.notion
    others = sum(_in_notion(p.cost, notion) for p in parts if p.step in OTHER_PARTS)
    charged = estimator.privacy_spent_.parameter
    assert _spent(records, notion) == pytest.approx(
        folds * (charged - others), rel=1e-9
    )

    # Each draw's scale, against the specification's.
    for index, record in enumerate(records):
        gaussian = record.budget.notion == "zcdp"
        if record.site == "target mean":
            # §18.5: the clipped targets' mean moves by (upper − lower)/n.
            lower, upper = estimator.y_bound_
            sensitivity = (upper - lower) / n_rows
        else:
            sensitivity = _sensitivity(record.site, n_rows, record.noise.size, gaussian)
        if record.site.startswith("svt"):
            assert record.budget.notion == "pure"
        ratio, tolerance = _measured_ratio(
            record, _scale(sensitivity, record.budget), seed=index
        )
        assert tolerance < 0.06
        assert ratio == pytest.approx(1.0, abs=tolerance), (record.site, ratio)


def _search_cases():
    for path in PATHS:
        yield pytest.param("same rows", "zcdp", path, id=f"same-rows-zcdp-{path}")
        yield pytest.param("same rows", "pure", path, id=f"same-rows-pure-{path}")
        yield pytest.param("held out", "zcdp", path, id=f"held-out-zcdp-{path}")


@pytest.mark.parametrize(("rows", "notion", "path"), list(_search_cases()))
def test_the_private_scores_of_a_search_have_the_stated_scale(rows, notion, path):
    """Each run's score is noised for the rows it reads: all of them (the
    covariance error, at score_fraction of the largest candidate's budget),
    or the held-out share (the prediction loss, at the largest candidate's
    budget), §14."""
    X, y, _ = _data()
    n = X.shape[0]
    if rows == "same rows":
        budget = {"zcdp": {"rho": 0.4}, "pure": {"epsilon": 0.8}}[notion]
        # The second moment: the score's sensitivity below is for it.
        model = (GaussianCovariance if notion == "zcdp" else LaplaceCovariance)(
            **budget, assume_centered=True, noise=path
        )
        search = PrivateRandomSearch(
            model,
            {"norm_bound": [0.5, 1.0]},
            scoring=CovarianceErrorScore(norm_bound=1.5),
            validation_fraction=None,
            score_fraction=0.25,
            gamma=0.3,
            noise=path,
            random_state=3,
        )
        n_scored = n
        # §14: √2·B²/n for an uncentred release (B the score's bound).
        sensitivity = math.sqrt(2.0) * 1.5**2 / n_scored
        largest = next(iter(budget.values()))
        expected_budget = (
            PrivacyCost.zcdp(0.25 * largest)
            if notion == "zcdp"
            else PrivacyCost.pure(0.25 * largest)
        )
    else:
        search = PrivateRandomSearch(
            PrivateRidge(estimator=GaussianCovariance(rho=0.3, noise=path)),
            {"alpha": [1e-3, 1e-1]},
            scoring=PredictionLossScore(clip=4.0),
            validation_fraction=0.3,
            gamma=0.3,
            noise=path,
            random_state=3,
        )
        n_scored = round(0.3 * n)
        sensitivity = 4.0 / n_scored  # c/n_val (§14)
        expected_budget = PrivacyCost.zcdp(0.3)
    with recorded_noise() as records:
        search.fit(X, y)
    scores = [record for record in records if record.site == "score"]
    assert scores, "no score was noised"
    assert {record.hardened for record in records} == {path == "hardened"}
    for index, record in enumerate(scores):
        assert record.budget.notion == expected_budget.notion
        assert record.budget.parameter == pytest.approx(expected_budget.parameter)
        ratio, tolerance = _measured_ratio(
            record, _scale(sensitivity, expected_budget), seed=index
        )
        assert ratio == pytest.approx(1.0, abs=tolerance), ratio
