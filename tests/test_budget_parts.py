"""Budget splits are data: every fit publishes ``privacy_parts_``, which comes
from the one table (``skprivcov.mechanisms.SPLITS``), composes to
``privacy_spent_`` and does not depend on the data."""

import numpy as np
import pytest
from sklearn.base import clone

from skprivcov import (
    AdaptiveCovariance,
    AutoCovariance,
    IterativeEigenCovariance,
    NuclearLaplaceCovariance,
    PrivacyCost,
    ProjectionCovariance,
    SeparateCovariance,
)
from skprivcov.covariance import BasePrivateCovariance
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.mechanisms import SPLITS, scaling_steps, split_budget
from skprivcov.mechanisms._splits import FEATURE_SCALING_SHARE
from skprivcov.privacy import BudgetPart, compose_parts
from skprivcov.utils import instances

SPLIT_VARIANTS = instances(kind=BasePrivateCovariance)


def _rows(seed, n=120, d=3, scale=0.5):
    rng = np.random.default_rng(seed)
    return rng.uniform(-scale, scale, size=(n, d))


def _name(estimator):
    return type(estimator).__name__


@pytest.mark.parametrize(
    ("name", "estimator"), SPLIT_VARIANTS, ids=[name for name, _ in SPLIT_VARIANTS]
)
def test_parts_compose_to_the_budget_and_ignore_the_data(name, estimator):
    first = clone(estimator).set_params(random_state=0).fit(_rows(1))
    # Other data, other size, other scale: the same public parameters.
    second = clone(estimator).set_params(random_state=1).fit(_rows(2, n=90, scale=3))
    parts = first.privacy_parts_
    choosing = _name(estimator) == "AutoCovariance" and (
        estimator.allow_zero or first.privacy_spent_.notion == "pure"
    )
    if choosing:
        # Its parts name the mechanism it chose (§3.9): a function of its
        # private trace estimate, not of the parameters alone. The parts up
        # to the estimate's are the same (the per-feature normalisation's
        # and the bound's first, with norm_bound="auto": §23, §18.2).
        steps = [part.step for part in parts]
        leading = steps.index("trace estimate") + 1
        assert parts[:leading] == second.privacy_parts_[:leading]
        expected = (
            ("feature cells", "norm bound") if estimator.norm_bound == "auto" else ()
        )
        assert [s for s in steps[: leading - 1] if not s[-1].isdigit()] == list(
            expected
        )
    else:
        assert parts == second.privacy_parts_
    for fitted in (first, second):
        parts = fitted.privacy_parts_
        assert parts and all(isinstance(part, BudgetPart) for part in parts)
        total = compose_parts(parts)
        assert total.notion == fitted.privacy_spent_.notion
        spent = fitted.privacy_spent_.parameter
        assert total.parameter == pytest.approx(spent, rel=1e-12)
        assert set(total.caveats) == set(fitted.privacy_spent_.caveats)


# The splits of the specification, written out (docs/algorithms.rst §3.2, §3.6–3.8,
# §5.2, §6.6): steps and shares of the budget.
EXPECTED_SHARES = [
    (SeparateCovariance(rho=0.8), [("eigenvalues", 0.5), ("noisy matrix", 0.5)]),
    (
        SeparateCovariance(epsilon=2.0, eigenvalue_share=0.25),
        [("eigenvalues", 0.25), ("noisy matrix", 0.75)],
    ),
    (
        ProjectionCovariance(rho=0.8),
        [("trace bound", 0.125), ("noisy matrix", 0.875)],
    ),
    (
        ProjectionCovariance(rho=0.8, trace_fraction=0.25),
        [("trace bound", 0.25), ("noisy matrix", 0.75)],
    ),
    (
        AdaptiveCovariance(rho=0.8, radius="private"),
        [
            ("radius", 1 / 8),
            ("trace bound", 1 / 8),
            ("threshold search", 1 / 4),
            ("final", 1 / 2),
        ],
    ),
    (
        AdaptiveCovariance(epsilon=2.0, radius="private"),
        [
            ("radius", 1 / 8),
            ("trace bound", 1 / 8),
            ("threshold search", 1 / 8),
            ("final", 5 / 8),
        ],
    ),
    # §3.6a: without the radius step, ρ/16 + ρ/16 + 7ρ/8 (zCDP) ...
    (
        AdaptiveCovariance(rho=0.8, radius="norm_bound"),
        [("trace bound", 1 / 16), ("threshold search", 1 / 16), ("final", 7 / 8)],
    ),
    # ... and ε/8 + ε/8 + 3ε/4 (pure, §3.8).
    (
        AdaptiveCovariance(epsilon=2.0, radius="norm_bound"),
        [("trace bound", 1 / 8), ("threshold search", 1 / 8), ("final", 3 / 4)],
    ),
    # radius="auto" on few rows (§3.6a): the radius step is skipped.
    (
        AdaptiveCovariance(rho=0.8),
        [("trace bound", 1 / 16), ("threshold search", 1 / 16), ("final", 7 / 8)],
    ),
    (
        # §3.9: on these rows the noise is well below the trace: AdaptiveCov
        # (radius skipped) at 7/8, then its shrinkage at 1/16 (§3.9a).
        AutoCovariance(rho=0.8),
        [
            ("trace estimate", 1 / 16),
            ("trace bound", 7 / 128),
            ("threshold search", 7 / 128),
            ("final", 49 / 64),
            ("shrinkage", 1 / 16),
        ],
    ),
    (
        IterativeEigenCovariance(epsilon=2.0),
        [("eigenvalues", 0.5), ("eigenvectors", 0.5)],
    ),
    (
        NuclearLaplaceCovariance(epsilon=2.0, n_sweeps=5),
        [("noise", 1.0)],
    ),
    (
        NuclearLaplaceCovariance(
            epsilon=2.0, trace_bound="private", projection="nuclear", n_sweeps=5
        ),
        [("noise", 1 / 2), ("nuclear radius", 1 / 5), ("unspent (dON Alg. 2)", 0.3)],
    ),
]


@pytest.mark.parametrize(
    ("estimator", "shares"), EXPECTED_SHARES, ids=lambda x: getattr(x, "__name__", "")
)
def test_parts_are_the_specified_split(estimator, shares):
    # The mechanism's own split: at a public bound (the default "auto" adds
    # its part first; test_the_default_bound_part_comes_first).
    est = clone(estimator).set_params(random_state=0, norm_bound=1.0).fit(_rows(3))
    whole = est.privacy_spent_.parameter
    assert [part.step for part in est.privacy_parts_] == [step for step, _ in shares]
    for part, (_, share) in zip(est.privacy_parts_, shares, strict=True):
        assert part.cost.notion == est.privacy_spent_.notion
        assert part.cost.parameter == pytest.approx(share * whole, rel=1e-15)


@pytest.mark.parametrize(
    ("estimator", "shares"), EXPECTED_SHARES, ids=lambda x: getattr(x, "__name__", "")
)
def test_the_default_bound_part_comes_first(estimator, shares):
    # norm_bound="auto" is the default (§18.2), and with it the private
    # per-feature normalisation (§23): its steps at FEATURE_SCALING_SHARE
    # first, then the bound's 1/16 of the rest, then the mechanism's split
    # (AutoCovariance's choice may differ at the other bound, so only the
    # leading parts and the total are checked).
    est = clone(estimator).set_params(random_state=0).fit(_rows(3))
    whole = est.privacy_spent_.parameter
    steps = scaling_steps(not est.assume_centered)
    leading = est.privacy_parts_[: len(steps)]
    assert [part.step for part in leading] == list(steps)
    scaling = sum(part.cost.parameter for part in leading)
    assert scaling == pytest.approx(FEATURE_SCALING_SHARE * whole, rel=1e-12)
    first = est.privacy_parts_[len(steps)]
    assert first.step == "norm bound"
    rest = (1 - FEATURE_SCALING_SHARE) * whole
    assert first.cost.parameter == pytest.approx(rest / 16, rel=1e-12)
    # The parts add up to the charge up to the rounding of their products
    # (check_within's tolerance, §13.2): one unit in the last place.
    composed = compose_parts(est.privacy_parts_)
    assert composed.notion == est.privacy_spent_.notion
    assert composed.parameter == pytest.approx(whole, rel=4e-16, abs=0)


def test_every_split_in_the_table_is_used_by_a_variant(monkeypatch):
    # A split nobody uses is dead data: each key is reached by the fit of some
    # registered variant (recorded where split_budget reads the table).
    used = set()
    for key, shares in list(SPLITS.items()):

        def recording(*args, _key=key, _shares=shares, **kwargs):
            used.add(_key)
            return _shares(*args, **kwargs)

        monkeypatch.setitem(SPLITS, key, recording)
    for _, estimator in SPLIT_VARIANTS:
        clone(estimator).set_params(random_state=0).fit(_rows(4))
    # The ridge models' private bounds and their fallback (§18.5): their
    # defaults, tested in tests/test_private_bounds.py.
    ridge = {"ridge bounds auto", "ridge mean"}
    assert set(SPLITS) - ridge <= used, set(SPLITS) - ridge - used
    assert used <= set(SPLITS)


def test_split_budget_keeps_the_notion_and_the_caveats():
    budget = PrivacyCost.pure(1.0).with_caveats(["mcmc-noise"])
    parts = split_budget("separate", budget, eigenvalue_share=0.3)
    assert [part.cost for part in parts] == [budget.scaled(0.3), budget.scaled(0.7)]
    assert all(part.cost.caveats == ("mcmc-noise",) for part in parts)


def test_ridge_models_publish_their_releases_parts():
    X = _rows(4, d=3)
    y = X @ np.array([0.2, -0.1, 0.3])
    bounds = {"X_norm_bound": 1.0, "y_bound": 1.0}  # public: no bound parts
    ridge = PrivateRidge(estimator=SeparateCovariance(), random_state=0, **bounds).fit(
        X, y
    )
    assert ridge.privacy_parts_ == ridge.estimator_.privacy_parts_
    assert [part.step for part in ridge.privacy_parts_] == [
        "eigenvalues",
        "noisy matrix",
    ]
    from_release = PrivateRidge(covariance=ridge.release_).fit()
    assert from_release.privacy_parts_ == ()
    cv = PrivateRidgeCV(cv=2, random_state=0).fit(X, y)
    assert compose_parts(cv.privacy_parts_) == cv.privacy_spent_
