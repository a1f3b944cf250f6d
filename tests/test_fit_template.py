"""The fit order is written once (issue 50, part 1).

:class:`skprivcov.base.PrivateFitMixin` holds the order that carries the
privacy argument (docs/algorithms.rst §13.2): public checks → budget → public
rules of the plan → charge → generator → values → bounds → release → parts
checked → storage. Every family writes hooks. Checked two ways:

* over the code: the charge, the check of the parts against the budget and
  the accountant's spend are called only from the template (a second copy of
  the order would have to call them);
* by behaviour: a family of recording hooks sees them in that order, a hook
  that fails leaves nothing of its fit stored (an earlier fit's state stays
  whole), and a refit replaces the fitted state whole.
"""

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from skprivcov import GaussianCovariance, PrivacyAccountant, PrivacyCost
from skprivcov.base import FitHooks, PrivateFitMixin, Release
from skprivcov.privacy import BudgetPart
from skprivcov.utils import all_estimators

PACKAGE = Path(__file__).resolve().parent.parent / "skprivcov"
# Where the order may call them: the template; the accounting itself; a
# mechanism checking its own draws against its share.
TEMPLATE = PACKAGE / "base.py"
ALLOWED = {
    "charge": {TEMPLATE},
    "check_within": {TEMPLATE, PACKAGE / "mechanisms" / "_iterative.py"},
    "spend": {TEMPLATE},
}


def _calls(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else getattr(func, "id", None)
            )
            if name in ALLOWED:
                yield name, node.lineno


def test_the_order_is_written_once():
    copies = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "privacy" not in path.relative_to(PACKAGE).parts
        for name, line in _calls(path)
        if path not in ALLOWED[name]
    ]
    assert copies == []


def test_every_estimator_that_charges_runs_the_template():
    # An estimator with a cost of its own fits through the template, or
    # makes its releases with estimators that do (the models built on a
    # release, the consumers of a covariance estimator).
    for name, cls in all_estimators():
        estimator = cls()
        if "fit_cost" in vars(cls) or any("fit_cost" in vars(b) for b in cls.__mro__):
            assert isinstance(estimator, PrivateFitMixin), name


def _hook_names():
    return [
        name
        for name, member in vars(FitHooks).items()
        if name.startswith("_") and not name.startswith("__") and callable(member)
    ]


def _parameters(function):
    return [
        (p.name, p.kind)
        for p in inspect.signature(function).parameters.values()
        if p.name != "self"
    ]


def test_every_template_estimator_implements_the_typed_hooks():
    # The types a contributor implements (skprivcov.base.FitHooks): every
    # hook of every estimator on the template takes as many parameters (a
    # family may name them for what they hold: ``rows`` for ``data``), so a
    # hook written with a wrong signature fails here, not in a user's fit.
    assert len(_hook_names()) == 11
    checked = 0
    for name, cls in all_estimators():
        if not issubclass(cls, PrivateFitMixin):
            continue
        assert isinstance(cls(), FitHooks), name
        for hook in _hook_names():
            expected = [n for n, _ in _parameters(getattr(FitHooks, hook))]
            assert len(_parameters(getattr(cls, hook))) == len(expected), (
                name,
                hook,
            )
        checked += 1
    assert checked >= 15


class _Recorder(PrivateFitMixin, BaseEstimator):
    """A family whose hooks record the order; ``fail_at`` raises there."""

    def __init__(self, *, fail_at=None, accountant=None, random_state=0):
        self.fail_at = fail_at
        self.accountant = accountant
        self.random_state = random_state

    noise = "float"

    def fit_cost(self):
        return PrivacyCost.zcdp(0.1)

    def _hook(self, name):
        self.calls_ = [*getattr(self, "calls_", []), name]
        if name == self.fail_at:
            raise ValueError(f"failed at {name}")

    def _check_public(self, X, y):
        self._hook("check_public")
        self.n_features_in_ = np.shape(X)[1]
        return X

    def _check_plan(self, facts, cost):
        self._hook("check_plan")

    def _charge_details(self, facts):
        self._hook("charge")
        return {}

    def _generator(self, facts):
        self._hook("generator")
        return super()._generator(facts)

    def _open(self, facts, cost, rng):
        self._hook("open")
        return np.asarray(facts)

    def _choose_bounds(self, data, cost, rng):
        self._hook("choose_bounds")
        return data, (BudgetPart("bound", cost.scaled(0.25)),), cost.scaled(0.75)

    def _release(self, data, budget, rng):
        self._hook("release")
        self.seen_ = float(data.sum())
        return Release(None, (BudgetPart("release", budget),), extras={"x_": 1})

    def _store(self, release, data, budget):
        self._hook("store")
        super()._store(release, data, budget)


ORDER = [
    "check_public",
    "check_plan",
    "charge",
    "generator",
    "open",
    "choose_bounds",
    "release",
    "store",
]


def test_the_hooks_run_in_the_order():
    accountant = PrivacyAccountant(rho=1.0)
    est = _Recorder(accountant=accountant).fit_private(np.ones((3, 2)))
    assert est.calls_ == ORDER
    assert est.privacy_spent_ == PrivacyCost.zcdp(0.1)
    assert [p.step for p in est.privacy_parts_] == ["bound", "release"]
    assert est.x_ == 1 and est.seen_ == 6.0
    assert accountant.spent == PrivacyCost.zcdp(0.1)


@pytest.mark.parametrize("hook", ORDER)
def test_a_fit_that_fails_keeps_nothing_of_itself(hook):
    accountant = PrivacyAccountant(rho=1.0)
    est = _Recorder(accountant=accountant).fit_private(np.ones((3, 2)))
    earlier = dict(vars(est))
    est.set_params(fail_at=hook)
    with pytest.raises(ValueError, match=hook):
        est.fit_private(2 * np.ones((3, 2)))
    # The earlier fit's state, whole: nothing the failed hooks set.
    assert {n: v for n, v in vars(est).items() if n != "fail_at"} == {
        n: v for n, v in earlier.items() if n != "fail_at"
    }
    # The charge comes after the public checks and before every value.
    charged = ORDER.index(hook) > ORDER.index("charge")
    assert len(accountant.history()) == 1 + charged


def test_an_overspent_release_is_never_stored():
    class Overspending(_Recorder):
        def _release(self, data, budget, rng):
            return Release(None, (BudgetPart("release", budget.scaled(2.0)),))

    est = Overspending()
    with pytest.raises(RuntimeError, match="more than the budget"):
        est.fit_private(np.ones((3, 2)))
    assert [name for name in vars(est) if name.endswith("_")] == []
    # The hooks ran and set attributes: on the staging copy only.


def test_the_estimators_fit_state_is_replaced_whole():
    # A refit keeps no attribute of the earlier fit that it does not set.
    est = GaussianCovariance(rho=1.0, random_state=0).fit(np.eye(3) * 0.5)
    est.stale_ = "from elsewhere"
    est.fit(np.eye(3) * 0.5)
    assert not hasattr(est, "stale_")


def _fit_private(self, X, y=None):
    return self._fit_privately(X, y)


_Recorder.fit_private = _fit_private
