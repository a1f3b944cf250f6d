"""Checks every discovered estimator must pass: scikit-learn's and our own."""

import importlib.util
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.covariance import EmpiricalCovariance
from sklearn.utils.estimator_checks import (
    check_param_validation,
    parametrize_with_checks,
)

import skprivcov
from skprivcov import PrivacyCost, ZeroCovariance
from skprivcov._data._exact import FRACTION_BITS
from skprivcov.base import ReleasedCovarianceMixin
from skprivcov.covariance import BasePrivateCovariance
from skprivcov.utils import all_estimators, instances, registry
from skprivcov.utils._test_common.instance_generator import expected_failed_checks

# Rows are taken on the grid 2^−k (docs/algorithms.rst §19): an entry of a unit
# second moment moves by at most 2·2^−k + 2^−31.
ON_GRID = 2.0 ** (1 - FRACTION_BITS) + 2.0**-31

REGISTRY = registry()
# The estimators as constructed without arguments, and every other registered
# variant (each takes a code path of its own: a notion, an option, centring).
ESTIMATORS = [est for _, est in instances(variants=False)]
VARIANTS = [est for name, est in instances() if "[" in name]
COVARIANCE = [est for est in ESTIMATORS if isinstance(est, ReleasedCovarianceMixin)]
PRIVATE = [est for est in ESTIMATORS if isinstance(est, BasePrivateCovariance)]
# The privacy checks that hold for any budget run on every variant too.
PRIVATE_VARIANTS = instances(kind=BasePrivateCovariance)
COVARIANCE_VARIANTS = instances(kind=ReleasedCovarianceMixin)


def _variants(pairs):
    """Parametrize over ``instances()`` pairs, with the variant names as ids."""
    return pytest.mark.parametrize(
        ("name", "estimator"), pairs, ids=[name for name, _ in pairs]
    )


def _name(estimator):
    return type(estimator).__name__


def test_the_registry_holds_every_estimator():
    assert sorted(REGISTRY) == [name for name, _ in all_estimators()]
    for entry in REGISTRY.values():
        assert next(iter(entry.variants)) == "default"
        assert entry.variants["default"] == {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@parametrize_with_checks(VARIANTS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_variants(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_name)
def test_param_validation(estimator):
    check_param_validation(_name(estimator), estimator)


def _budget_kwargs(estimator):
    """A budget each estimator accepts, in its own notion."""
    if "zcdp" in estimator._notions:
        return {"rho": 0.3}, PrivacyCost.zcdp(0.3)
    return {"epsilon": 0.7}, PrivacyCost.pure(0.7)


@pytest.fixture
def unit_data():
    rng = np.random.default_rng(42)
    X = rng.normal(size=(400, 6)) * np.array([1.0, 0.8, 0.6, 0.4, 0.2, 0.1])
    return X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]


@_variants(COVARIANCE_VARIANTS)
def test_release_is_exactly_symmetric(name, estimator, unit_data):
    est = clone(estimator)
    if isinstance(est, BasePrivateCovariance):
        est.set_params(random_state=0)
    cov = est.fit(unit_data).covariance_
    assert cov.shape == (6, 6)
    np.testing.assert_array_equal(cov, cov.T)


@pytest.mark.parametrize("estimator", PRIVATE, ids=_name)
def test_privacy_spent_is_the_requested_budget(estimator, unit_data):
    kwargs, expected = _budget_kwargs(estimator)
    est = clone(estimator).set_params(random_state=0, **kwargs).fit(unit_data)
    assert isinstance(est.privacy_spent_, PrivacyCost)
    assert est.privacy_spent_.notion == expected.notion
    assert est.privacy_spent_.parameter == pytest.approx(expected.parameter, 1e-12)


@_variants(PRIVATE_VARIANTS)
def test_every_variant_spends_what_it_announces(name, estimator, unit_data):
    est = clone(estimator).set_params(random_state=0)
    announced = est.fit_cost()
    assert est.fit(unit_data).privacy_spent_ == announced


@pytest.mark.parametrize("estimator", PRIVATE, ids=_name)
def test_default_budget_is_private_and_documented(estimator, unit_data):
    est = clone(estimator).set_params(random_state=0).fit(unit_data)
    # ρ = 0.1 for the zCDP mechanisms, ε = 1 for the pure-DP ones (a pure
    # mechanism with a zCDP path, as IterativeEigenCovariance, stays pure).
    expected = type(est)._default_budget
    assert expected in (PrivacyCost.zcdp(0.1), PrivacyCost.pure(1.0))
    assert expected.notion in est._notions
    assert est.privacy_spent_ == expected.with_caveats(type(est)._caveats)
    assert f"{expected.parameter:g}" in type(est).__doc__


def _everything_released(estimator):
    """The release and the private outputs of the steps before it (a release
    of exact zeros, AutoCovariance's shrink factor 0 or its zero choice, is
    the same for every seed; the noisy estimates it came from are not)."""
    values = [estimator.covariance_.ravel(), estimator.location_.ravel()]
    for name in ("trace_estimate_", "shrinkage_", "norm_bound_"):
        value = getattr(estimator, name, None)
        if value is not None:
            values.append(np.atleast_1d(float(value)))
    return np.concatenate(values)


@_variants(PRIVATE_VARIANTS)
def test_same_seed_same_release_other_seed_other(name, estimator, unit_data):
    first = clone(estimator).set_params(random_state=3).fit(unit_data)
    again = clone(estimator).set_params(random_state=3).fit(unit_data)
    other = clone(estimator).set_params(random_state=4).fit(unit_data)
    np.testing.assert_array_equal(
        _everything_released(first), _everything_released(again)
    )
    assert not np.array_equal(_everything_released(first), _everything_released(other))


@_variants(PRIVATE_VARIANTS)
def test_the_seed_is_the_only_noise_source(name, estimator, unit_data):
    releases = []
    for global_seed in (1, 2):
        np.random.seed(global_seed)  # noqa: NPY002 - numpy's global state must not matter
        est = clone(estimator).set_params(random_state=5)
        releases.append(est.fit(unit_data).covariance_)
    np.testing.assert_array_equal(releases[0], releases[1])


@_variants(PRIVATE_VARIANTS)
def test_fit_leaves_parameters_untouched(name, estimator, unit_data):
    est = clone(estimator).set_params(random_state=1, norm_bound=2.0)
    before = est.get_params()
    est.fit(unit_data)
    assert est.get_params() == before


def _huge_budget(estimator):
    if estimator._default_budget.notion == "zcdp":
        return {"rho": 1e14}
    # The exponential mechanism's eigenvector error shrinks like ε^{-1/2} (the
    # Laplace noise's like 1/ε): 1e-6 needs a far larger ε.
    return {"epsilon": 1e18}


@pytest.mark.parametrize("estimator", PRIVATE, ids=_name)
def test_huge_budget_gives_the_non_private_second_moment(estimator, unit_data):
    X = 3.0 * unit_data  # rows within the bound below: nothing is clipped
    est = clone(estimator).set_params(
        random_state=0,
        norm_bound=3.0,
        assume_centered=True,
        **_huge_budget(estimator),
    )
    est.fit(X)
    # The rows on the grid 2^−k (§19): within B²·(2·2^−k + 2^−31) per entry.
    np.testing.assert_allclose(
        est.covariance_, X.T @ X / len(X), atol=9.0 * ON_GRID + 1e-6
    )
    np.testing.assert_array_equal(est.location_, np.zeros(6))


@pytest.mark.parametrize("estimator", PRIVATE, ids=_name)
def test_defaults_at_a_huge_budget_are_empirical_covariance(estimator, unit_data):
    # Bound-free and centred by default (§18.2, §8.2): on raw data far from
    # the origin, with no bound given, a huge budget gives what scikit-learn's
    # EmpiricalCovariance gives (the private bound lands above every row).
    X = 40.0 * unit_data + 300.0
    est = clone(estimator).set_params(random_state=0, **_huge_budget(estimator))
    est.fit(X)
    truth = EmpiricalCovariance().fit(X)
    largest = np.linalg.norm(X, axis=1).max()
    np.testing.assert_allclose(est.location_, truth.location_, rtol=1e-6)
    # At ρ = 1e14 the noise's deviation at unit scale is about 1e-10, times
    # B² ≥ 6e5 in the data's units (B above the largest norm, or nothing would
    # match), and the centring's cancellation (means of 300 against spreads
    # of 40) multiplies it by about 100.
    np.testing.assert_allclose(
        est.covariance_, truth.covariance_, atol=4e-8 * largest**2
    )


@pytest.mark.parametrize("estimator", PRIVATE, ids=_name)
def test_huge_budget_centred_matches_empirical_covariance(estimator, unit_data):
    X = 2.0 * unit_data + 0.5  # shifted mean; norms stay within 5
    est = clone(estimator).set_params(
        random_state=0,
        norm_bound=5.0,
        assume_centered=False,
        **_huge_budget(estimator),
    )
    est.fit(X)
    reference = EmpiricalCovariance().fit(X)
    # B = 5: the grid moves the mean by B·2^−k, the covariance by B²·(3·2^−k)
    # (the second moment, and the mean's square).
    np.testing.assert_allclose(est.location_, reference.location_, atol=5 * ON_GRID)
    np.testing.assert_allclose(
        est.covariance_, reference.covariance_, atol=25 * 1.5 * ON_GRID + 1e-6
    )


def test_zero_covariance_spends_nothing_and_reads_no_values(unit_data):
    est = ZeroCovariance(assume_centered=False).fit(unit_data)
    other = ZeroCovariance(assume_centered=False).fit(unit_data * 1e6 + 3)
    np.testing.assert_array_equal(est.covariance_, other.covariance_)
    np.testing.assert_array_equal(est.covariance_, np.zeros((6, 6)))
    np.testing.assert_array_equal(est.location_, np.zeros(6))
    assert est.privacy_spent_ == PrivacyCost.zero()


def _registry_api():
    """docs/_ext/registry_api.py, the build's list of covariance estimators."""
    path = Path(__file__).parents[1] / "docs" / "_ext" / "registry_api.py"
    spec = importlib.util.spec_from_file_location("registry_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_reference_lists_every_registered_estimator():
    # As the build reads it: the hand lists, and the registered covariance
    # estimators in place of the marker line.
    text = (Path(__file__).parents[1] / "docs" / "api.rst").read_text()
    expanded = _registry_api().expand(text)
    names = re.findall(r"^\s+~?([\w.]+)$", expanded, flags=re.MULTILINE)
    listed = {name.rsplit(".", 1)[-1] for name in names}
    assert set(REGISTRY) <= listed, set(REGISTRY) - listed
    # Listed once: a registered covariance estimator also listed by hand
    # would be a second entry of the same page.
    assert len(names) == len(set(names)), {n for n in names if names.count(n) > 1}


def test_the_api_reference_lists_every_public_class_and_function():
    # Checked from the exports: every callable in the ``__all__`` of a public
    # module (skprivcov.base, skprivcov.mechanisms, ...) has its page, so a new
    # export cannot be left out of the reference.
    text = (Path(__file__).parents[1] / "docs" / "api.rst").read_text()
    expanded = _registry_api().expand(text)
    names = re.findall(r"^\s+~?([\w.]+)$", expanded, flags=re.MULTILINE)
    listed = {name.rsplit(".", 1)[-1] for name in names}
    modules = ["skprivcov"] + [
        info.name
        for info in pkgutil.walk_packages(skprivcov.__path__, "skprivcov.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    missing = {
        f"{module}.{name}"
        for module in modules
        for name in getattr(importlib.import_module(module), "__all__", ())
        if callable(getattr(importlib.import_module(module), name))
        and name not in listed
    }
    assert missing == set()


def test_the_package_root_exports_the_covariance_face_and_the_accounting():
    # The rule of docs/developers.rst, "Public surfaces": the root is the
    # face of skprivcov.covariance, whole, and the accounting; every other
    # estimator is imported from its subpackage.
    covariance = importlib.import_module("skprivcov.covariance")
    accounting = [
        "BudgetExceededError",
        "PrivacyAccountant",
        "PrivacyCost",
        "UnsupportedPrivacyNotionError",
    ]
    assert skprivcov.__all__ == [*covariance.__all__, *accounting, "__version__"]
    for name in covariance.__all__:
        assert getattr(skprivcov, name) is getattr(covariance, name), name
    # Every registered covariance estimator is there.
    estimators = {
        name
        for name, entry in REGISTRY.items()
        if issubclass(entry.estimator, ReleasedCovarianceMixin)
    }
    assert estimators <= set(skprivcov.__all__)
