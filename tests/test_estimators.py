"""Behaviour of the estimators beyond the common checks."""

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.covariance import empirical_covariance, log_likelihood
from sklearn.exceptions import NotFittedError

from skprivcov import (
    AdaptiveCovariance,
    GaussianCovariance,
    LaplaceCovariance,
    PrivacyAccountant,
    PrivacyCost,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov._fit import bound_quantile
from skprivcov.base import ReleasedCovarianceMixin
from skprivcov.mechanisms import noise_level, scaling_steps
from skprivcov.mechanisms._quantile import (
    norm_grid,
    quantile_epsilon,
    quantile_rank_error,
)
from skprivcov.privacy import zcdp_from_approx_dp
from skprivcov.utils import instances

# Every registered variant that releases a covariance (the registry: a new
# estimator is tested here once it is registered).
ALL = [
    pytest.param(est, id=name) for name, est in instances(kind=ReleasedCovarianceMixin)
]
# Those whose release is positive semi-definite: a PSD mechanism, or the
# default projection onto {PSD, trace ≤ 1} (ZeroCovariance's zeros claim
# neither and are left out).
PSD = [
    param
    for param in ALL
    if getattr(param.values[0], "_psd_release", False)
    or getattr(param.values[0], "projection", None) == "psd-trace"
]


# The papers' setting: a public bound 1 and the second moment (the defaults
# are a private bound and the centred covariance, §18.2, §8.2).
_PAPERS = {"norm_bound": 1.0, "assume_centered": True}


def _ids(est):
    return repr(est)


def _fresh(estimator, seed, **params):
    """A clone with ``params``, seeded if it draws noise (ZeroCovariance reads
    no value and draws none: it has no ``random_state``)."""
    if "random_state" in estimator.get_params():
        params["random_state"] = seed
    return clone(estimator).set_params(**params)


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 4)) * np.array([1.0, 0.7, 0.3, 0.1]) + 0.2
    return X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]


@pytest.mark.parametrize("estimator", ALL, ids=_ids)
def test_norm_bound_rescales_the_release(estimator, data):
    """Fitting B·X with bound B releases B² times the unit-scale release (a
    public per-feature scale, §23, is scaled with the rows instead: the
    bound then applies to the same normalised rows)."""
    unit = _fresh(estimator, 2, norm_bound=1.0).fit(data)
    scaling = estimator.get_params().get("feature_scaling")
    if isinstance(scaling, tuple):
        scaled = _fresh(estimator, 2, norm_bound=1.0).set_params(
            feature_scaling=tuple(8.0 * np.asarray(part) for part in scaling)
        )
    else:
        scaled = _fresh(estimator, 2, norm_bound=8.0)
    scaled.fit(8.0 * data)
    np.testing.assert_allclose(scaled.covariance_, 64.0 * unit.covariance_, rtol=1e-9)


def _in_format(data, fmt, tmp_path):
    """``data`` as the input format ``fmt`` (same values)."""
    if fmt == "memmap":
        np.save(tmp_path / "X.npy", data)
        return np.load(tmp_path / "X.npy", mmap_mode="r")
    if fmt == "fortran":
        return np.asfortranarray(data)
    if fmt in ("csr", "csc"):
        return sparse.csr_matrix(data).asformat(fmt)
    if fmt == "dataframe":
        return pd.DataFrame(data, columns=["a", "b", "c", "d"])
    da = pytest.importorskip("dask.array")
    if fmt == "dask, one block":
        return da.from_array(data, chunks=-1)
    if fmt == "dask of CSR blocks":
        return da.from_array(data, chunks=(70, 2)).map_blocks(sparse.csr_matrix)
    return da.from_array(data, chunks=(70, 2))  # 5 row blocks, columns split


# The same arithmetic as the dense path, so the same bits.
SAME_BITS = ["memmap", "fortran", "dataframe", "dask, one block"]
# Other summation orders: the statistics agree to rounding (entries ≤ 1 at unit
# scale, so a few 1e-16), and so do the releases, whose noise is the same.
SAME_TO_ROUNDING = ["csr", "csc", "dask", "dask of CSR blocks"]


# Every variant as registered: the registry's variants hold the centring
# (each estimator's "second moment" variant, assume_centered=True).
@pytest.mark.parametrize("estimator", ALL, ids=_ids)
@pytest.mark.parametrize("fmt", SAME_BITS + SAME_TO_ROUNDING)
def test_every_input_format_gives_the_dense_release(estimator, fmt, data, tmp_path):
    """Same seed, same values: the same release from every kind of input."""
    # Norms up to 3 against a bound of 1.5: some rows are clipped, the others
    # scaled by 1/1.5, so every path's clipping and scaling are compared.
    data = 3.0 * data
    dense = _fresh(estimator, 1, norm_bound=1.5).fit(data)
    other = _fresh(estimator, 1, norm_bound=1.5)
    other.fit(_in_format(data, fmt, tmp_path))
    assert other.n_features_in_ == 4
    if fmt in SAME_BITS:
        np.testing.assert_array_equal(other.covariance_, dense.covariance_)
        np.testing.assert_array_equal(other.location_, dense.location_)
    else:
        np.testing.assert_allclose(other.covariance_, dense.covariance_, atol=1e-12)
        np.testing.assert_allclose(other.location_, dense.location_, atol=1e-12)
    # AdaptiveCov's private decisions are the same too.
    for decision in ("threshold_", "radius_", "mechanism_"):
        if hasattr(dense, decision):
            assert getattr(other, decision) == getattr(dense, decision)
    if fmt == "dataframe":
        assert list(other.feature_names_in_) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("estimator", ALL, ids=_ids)
def test_float32_input_gives_the_release_of_its_float64_values(estimator, data):
    """float32 X is read chunk by chunk into float64: no copy, no precision lost."""
    single = data.astype(np.float32)
    from_single = _fresh(estimator, 3).fit(single)
    from_double = _fresh(estimator, 3)
    from_double.fit(single.astype(np.float64))
    np.testing.assert_array_equal(from_single.covariance_, from_double.covariance_)
    assert from_single.covariance_.dtype == np.float64


@pytest.mark.parametrize("estimator", PSD, ids=_ids)
@pytest.mark.parametrize("assume_centered", [True, False])
def test_projected_releases_are_psd(estimator, assume_centered, data):
    # A tiny budget makes the noise dominate, the hard case for PSD-ness.
    zcdp = "zcdp" in estimator._notions and not estimator.epsilon
    budget = {"rho": 1e-4} if zcdp else {"epsilon": 0.05}
    est = clone(estimator).set_params(
        random_state=0, assume_centered=assume_centered, norm_bound=2.0, **budget
    )
    cov = est.fit(2.0 * data).covariance_
    assert np.linalg.eigvalsh(cov).min() >= -1e-12
    # B² · (trace bound ≤ 1) with the default projection; CoinPress's release
    # is PSD but not projected onto the trace ball (§18.4).
    if assume_centered and getattr(estimator, "projection", None) == "psd-trace":
        assert np.trace(cov) <= 4.0 + 1e-9


def test_raw_gaussian_release_is_generally_indefinite_at_small_budget(data):
    raw = GaussianCovariance(rho=1e-4, projection=None, random_state=0)
    values = np.linalg.eigvalsh(raw.fit(data).covariance_)
    assert values.min() < -0.1 * values.max()  # the contrast with the default
    default = GaussianCovariance(rho=1e-4, random_state=0).fit(data).covariance_
    assert np.linalg.eigvalsh(default).min() >= -1e-12


def test_private_trace_tightens_the_projection():
    """Data with a small trace: projecting on tr ≤ t̂r beats tr ≤ 1 (§3.7),
    i.e. ProjectionCovariance beats GaussianCovariance's default projection."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 20))
    X *= 0.05 / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    target = X.T @ X / len(X)
    errors = {"public": [], "private": []}
    for seed in range(20):
        for name, est in (
            ("public", GaussianCovariance(rho=0.1, **_PAPERS, random_state=seed)),
            ("private", ProjectionCovariance(rho=0.1, **_PAPERS, random_state=seed)),
        ):
            errors[name].append(np.linalg.norm(est.fit(X).covariance_ - target))
    # Measured: 0.022 without and 0.0052 with the private trace.
    assert np.mean(errors["private"]) < 0.5 * np.mean(errors["public"])


def test_projection_without_a_private_trace_is_deprecated(data):
    """trace_fraction=None is GaussianCovariance() (same noise, same
    projection): it warns, before anything is spent, and gives that release."""
    with pytest.warns(FutureWarning, match="GaussianCovariance"):
        old = ProjectionCovariance(trace_fraction=None, random_state=0).fit(data)
    new = GaussianCovariance(random_state=0).fit(data)
    np.testing.assert_allclose(old.covariance_, new.covariance_, atol=1e-15)


def test_epsilon_delta_budget_is_calibrated(data):
    est = GaussianCovariance(epsilon=1.0, delta=1e-6, random_state=0).fit(data)
    spent = est.privacy_spent_
    assert spent.notion == "zcdp"
    assert spent.rho == zcdp_from_approx_dp(1.0, 1e-6)
    assert spent.delta == 1e-6 and spent.epsilon == pytest.approx(1.0, rel=1e-6)
    # A pure-only mechanism meets (ε, δ) by spending pure ε.
    lap = LaplaceCovariance(epsilon=1.0, delta=1e-6, random_state=0).fit(data)
    assert lap.privacy_spent_ == PrivacyCost.pure(1.0)
    # A mechanism with both notions runs its pure version when delta is 0.
    sep = SeparateCovariance(epsilon=1.0, delta=0.0, random_state=0).fit(data)
    assert sep.privacy_spent_ == PrivacyCost.pure(1.0)


def test_precision_is_the_floored_inverse_computed_on_access(data):
    # The rows as given: one floor for the whole release (with §23's
    # normalisation the floor acts in z's space: tests/test_feature_scaling.py).
    est = SeparateCovariance(rho=0.01, feature_scaling=None, random_state=0).fit(data)
    assert est._precision is None  # not computed during fit
    values, vectors = np.linalg.eigh(est.covariance_)
    floored = np.maximum(values, est.eigenvalue_floor_)
    assert floored.min() > values.min()  # the floor acts on this release
    np.testing.assert_allclose(
        est.precision_, vectors @ np.diag(1 / floored) @ vectors.T
    )
    assert est.precision_ is est.precision_
    with pytest.raises(NotFittedError):
        _ = GaussianCovariance().precision_


def test_score_is_the_gaussian_log_likelihood(data):
    est = ProjectionCovariance(
        rho=10.0, assume_centered=False, feature_scaling=None, random_state=0
    )
    est.fit(data)
    test = data[:50]
    values, vectors = np.linalg.eigh(est.covariance_)
    precision = (
        vectors @ np.diag(1 / np.maximum(values, est.eigenvalue_floor_)) @ vectors.T
    )
    expected = log_likelihood(
        empirical_covariance(test - est.location_, assume_centered=True), precision
    )
    assert est.score(test) == pytest.approx(expected)


def test_error_norm(data):
    est = GaussianCovariance(rho=1.0, random_state=0).fit(data)
    other = np.eye(4)
    diff = other - est.covariance_
    assert est.error_norm(other) == pytest.approx(np.sum(diff**2) / 4)
    assert est.error_norm(other, scaling=False, squared=False) == pytest.approx(
        np.linalg.norm(diff)
    )
    assert est.error_norm(other, norm="spectral", scaling=False) == pytest.approx(
        np.linalg.norm(diff, 2) ** 2
    )
    with pytest.raises(ValueError, match="frobenius"):
        est.error_norm(other, norm="nuclear")


def test_zero_covariance_is_the_trivial_baseline(data):
    small = 1e-3 * data
    zero = ZeroCovariance(assume_centered=True).fit(small)
    gauss = GaussianCovariance(rho=0.1, **_PAPERS, random_state=0).fit(small)
    target = small.T @ small / len(small)
    # With a tiny trace, releasing nothing beats adding noise (DLY22).
    assert np.linalg.norm(zero.covariance_ - target) < np.linalg.norm(
        gauss.covariance_ - target
    )


class _Overspending(GaussianCovariance):
    """A broken mechanism that spends twice its budget."""

    def _release(self, data, budget, rng):
        release = super()._release(data, budget, rng)
        return release._replace(parts=release.parts * 2)


def test_a_mechanism_spending_more_than_its_budget_is_caught(data):
    broken = _Overspending(rho=0.5)
    with pytest.raises(RuntimeError, match="more than the budget"):
        broken.fit(data)
    assert not hasattr(broken, "covariance_")  # the release was not kept
    # Rounding in the parts is tolerated and reported as the budget charged.
    est = ProjectionCovariance(rho=0.3, trace_fraction=0.1, random_state=0).fit(data)
    assert est.privacy_spent_ == PrivacyCost.zcdp(0.3)


@pytest.mark.slow  # long (utility, subprocess or optimiser): CI runs it
def test_the_package_imports_and_fits_without_docstrings():
    """``python -OO`` strips docstrings; the shared docstring texts must cope."""
    import subprocess
    import sys

    code = (
        "import numpy as np, skprivcov, skprivcov.utils;"
        "assert skprivcov.GaussianCovariance.__doc__ is None;"
        "skprivcov.GaussianCovariance(random_state=0).fit(np.eye(3))"
    )
    result = subprocess.run(
        [sys.executable, "-OO", "-c", code], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------------
# The default bound, and a public range for it (docs/algorithms.rst §18.2)


def test_a_public_range_narrows_the_grid_of_the_private_bound(monkeypatch):
    """norm_bound=(low, high) chooses the bound on norm_grid(low, high): the
    bound lies in that grid, and the grid the quantile sees is that one."""
    from skprivcov._fit import _clipped_data as _clipped_data

    grids = []
    original = _clipped_data.private_norm_bound

    def spy(counts, grid, *args, **kwargs):
        grids.append(grid)
        return original(counts, grid, *args, **kwargs)

    monkeypatch.setattr(_clipped_data, "private_norm_bound", spy)
    X = np.random.default_rng(3).normal(size=(4000, 3)) * 5.0 + 20.0
    est = GaussianCovariance(
        rho=1.0, norm_bound=(8.0, 128.0), feature_scaling=None, random_state=0
    ).fit(X)
    (grid,) = grids
    np.testing.assert_array_equal(grid, norm_grid(8.0, 128.0))
    assert est.norm_bound_ in grid
    # The largest norm is about 45: a high quantile, not the range's top.
    norms = np.linalg.norm(X, axis=1)
    assert np.quantile(norms, 0.99) <= est.norm_bound_ <= 2 * norms.max()
    assert est.privacy_parts_[0].step == "norm bound"


@pytest.mark.parametrize(
    "bad",
    [(1.0, 1.0), (2.0, 1.0), (0.0, 1.0), (1.0, np.inf), (True, 2.0), (1.0, 2.0, 3.0)],
    ids=["empty", "reversed", "zero", "infinite", "bool", "three"],
)
def test_a_bad_range_is_refused_before_the_charge(bad):
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError, match="norm_bound"):
        GaussianCovariance(rho=0.5, norm_bound=bad, accountant=accountant).fit(
            np.ones((50, 2))
        )
    assert accountant.spent.parameter == 0


def test_the_default_bound_and_centring_are_stated_in_the_parts():
    # Bound-free and centred by default: the per-feature normalisation's
    # steps first (§23), then the bound's 1/16 of the rest, and the release
    # carries a private mean.
    X = np.random.default_rng(0).normal(size=(3000, 2)) * [30.0, 3.0] + 100.0
    est = GaussianCovariance(rho=1.0, random_state=0).fit(X)
    assert est.get_params()["norm_bound"] == "auto"
    assert est.get_params()["assume_centered"] is False
    assert [p.step for p in est.privacy_parts_] == [
        *scaling_steps(True),
        "norm bound",
        "noisy matrix",
    ]
    np.testing.assert_allclose(est.location_, X.mean(axis=0), atol=5.0)
    truth = np.cov(X.T, bias=True)
    zero = np.linalg.norm(truth)
    assert np.linalg.norm(est.covariance_ - truth) < 0.2 * zero


def test_a_fixed_bound_mechanism_aims_at_the_measured_quantile(monkeypatch):
    """§18.2: a mechanism that clips at the bound aims at min(n − r, 0.6·n)
    where its release is noisy (noise level × d ≥ 0.25), else at n − r;
    AdaptiveCov and Auto always at n − r (their own search runs inside)."""
    from skprivcov.mechanisms import _quantile

    targets = []
    original = _quantile.private_quantile

    def spy(counts, target, *args):
        targets.append(float(target))
        return original(counts, target, *args)

    monkeypatch.setattr(_quantile, "private_quantile", spy)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 64)) * np.linspace(4.0, 0.5, 64)
    grid = norm_grid()
    seen = set()
    # Noisy at ρ ≤ 1 (0.6·n rules), quiet at ρ ≥ 10 (n − r rules).
    for n, rho in ((3000, 1.0), (3000, 0.1), (3000, 10.0), (3000, 100.0)):
        budget = PrivacyCost.zcdp(rho)
        margin = quantile_rank_error(
            grid.size, quantile_epsilon(PrivacyCost.zcdp(rho / 16)), 1e-6
        )
        noisy = noise_level(n, 64, PrivacyCost.zcdp(rho * 15 / 16)) * 64 >= 0.25
        seen.add(noisy)
        # The bound of the rows as given (without §23's normalisation).
        GaussianCovariance(rho=rho, feature_scaling=None, random_state=0).fit(X[:n])
        expected = min(n - margin, 0.6 * n) if noisy else n - margin
        assert targets.pop() == pytest.approx(expected), (n, rho)
        AdaptiveCovariance(rho=rho, feature_scaling=None, random_state=0).fit(X[:n])
        assert targets.pop() == pytest.approx(n - margin)
        assert bound_quantile(n, 64, budget.scaled(15 / 16)) == (0.6 if noisy else None)
    assert seen == {True, False}
