"""No silent empty release (docs/algorithms.rst §23; issue 46, part 3).

Every covariance release publishes ``signal_to_noise_``, its largest
eigenvalue over the public noise level of its budget, and warns
:class:`NoiseDominatedWarning` below ``NOISE_DOMINATED_RATIO``; a zero release
says ``mechanism_ == "zero"``; a private bound on the edge of its grid warns.
All of it is post-processing of the release and public values: checked here
by recomputing it from the published attributes alone.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn import datasets

from skprivcov import AutoCovariance, GaussianCovariance, LaplaceCovariance
from skprivcov._fit import NOISE_DOMINATED_RATIO
from skprivcov.base import ReleasedCovarianceMixin
from skprivcov.mechanisms import noise_level
from skprivcov.privacy import NoiseDominatedWarning, PrivacyAccountant, compose_parts
from skprivcov.utils import instances


def _fit_recording(estimator, X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X)
    return [w for w in caught if issubclass(w.category, NoiseDominatedWarning)]


def _rows(n=400, d=4, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d)) * [1.0, 0.5, 0.3, 0.2][:d]


COVARIANCES = [
    (name, est)
    for name, est in instances(kind=ReleasedCovarianceMixin)
    if "signal_to_noise_" in type(est).__doc__
]


def test_the_registry_has_releases_with_the_diagnostic():
    assert len(COVARIANCES) >= 20


@pytest.mark.parametrize(
    ("name", "estimator"), COVARIANCES, ids=[n for n, _ in COVARIANCES]
)
def test_the_ratio_is_post_processing_of_published_values(name, estimator):
    """Recomputed from covariance_, n, d, the parts of the release and the
    scale of the release as eigenvalue_floor_ publishes it (B²·min(level,
    1/d): the bound, or the private threshold AdaptiveCov chose, which
    AutoCovariance does not publish on its own): nothing else enters it."""
    est = estimator.set_params(random_state=0)
    X = _rows()
    _fit_recording(est, X)
    # The release's own parts: not the bound's, nor the per-feature
    # normalisation's (§23), whose scale s maps the release of z = (x − c)/s
    # back (covariance_ = diag(s) Σ_z diag(s); eigenvalue_floor_ is z's
    # times max s²).
    release = [
        p
        for p in est.privacy_parts_
        if p.step != "norm bound" and not p.step.startswith("feature ")
    ]
    budget = compose_parts(release)
    unit = noise_level(X.shape[0], X.shape[1], budget)
    scale = est.feature_scale_
    covariance, floor = est.covariance_, est.eigenvalue_floor_
    if scale is not None:
        covariance = covariance / np.outer(scale, scale)
        floor = floor / np.max(scale) ** 2
    squared_scale = floor / min(unit, 1.0 / X.shape[1])
    level = squared_scale * unit
    expected = np.linalg.norm(covariance, 2) / level
    assert est.signal_to_noise_ == pytest.approx(expected, rel=1e-6, abs=1e-12)


@pytest.mark.parametrize(
    ("estimator", "budget"),
    [(GaussianCovariance, {"rho": 1.0}), (LaplaceCovariance, {"epsilon": 1.0})],
)
def test_a_release_of_noise_alone_has_a_ratio_near_one(estimator, budget):
    """Rows of zeros, unprojected: the release is the noise, and its largest
    eigenvalue is the noise level (2√d times the entry deviation, the
    semicircle's edge less its Tracy–Widom shift at d = 50, about 4%): the
    mean over 20 seeds lies in [0.92, 1.04], which a noise level 10% off in
    either direction leaves (0.87 or 1.06)."""
    X = np.zeros((1000, 50))
    ratios = [
        estimator(
            norm_bound=1.0,
            assume_centered=True,
            projection=None,
            random_state=s,
            **budget,
        )
        .fit(X)
        .signal_to_noise_
        for s in range(20)
    ]
    assert 0.92 <= np.mean(ratios) <= 1.04


def test_a_noise_dominated_release_warns_and_says_what_would_change_it():
    X = _rows(n=60)
    est = GaussianCovariance(rho=0.005, norm_bound=2.0, random_state=0)
    caught = _fit_recording(est, X)
    assert est.signal_to_noise_ < NOISE_DOMINATED_RATIO
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "mostly noise" in message and "rows" in message and "budget" in message
    # The warning points at the caller's fit, not into the library.
    assert caught[0].filename == __file__
    # The rows it names: n·4/ratio, the noise level falling as 1/n.
    rows = int(np.ceil(60 * NOISE_DOMINATED_RATIO / est.signal_to_noise_))
    assert f"{rows} rows" in message


def test_a_clear_release_does_not_warn():
    X = _rows(n=20_000)
    est = GaussianCovariance(rho=10.0, norm_bound=3.0, random_state=0)
    assert _fit_recording(est, X) == []
    assert est.signal_to_noise_ > NOISE_DOMINATED_RATIO


def test_a_zero_release_says_zero_and_warns():
    """Raw iris at ρ = 0.1: AutoCovariance releases the zero matrix, and says
    so in mechanism_, signal_to_noise_ and the warning."""
    X = datasets.load_iris().data
    est = AutoCovariance(rho=0.1, random_state=0)
    caught = _fit_recording(est, X)
    assert not np.any(est.covariance_)
    assert est.mechanism_ == "zero" and est.signal_to_noise_ == 0.0
    assert any("released the zero matrix" in str(w.message) for w in caught)


def test_a_private_bound_on_the_edge_of_its_grid_warns():
    # Rows far below the grid's lowest positive candidate (2^-32): the bound
    # is that candidate, for the rows as given.
    X = _rows(n=400) * 1e-12
    est = GaussianCovariance(rho=1.0, feature_scaling=None, random_state=0)
    caught = _fit_recording(est, X)
    assert est.norm_bound_ == 2.0**-32
    assert any("lowest candidate" in str(w.message) for w in caught)
    # With the default per-feature normalisation (§23) the rows are brought
    # to unit scale first: the bound is well inside its grid.
    caught = _fit_recording(GaussianCovariance(rho=1.0, random_state=0), X)
    assert not any("candidate of its grid" in str(w.message) for w in caught)
    # Rows well inside the grid at a good budget: no edge.
    caught = _fit_recording(GaussianCovariance(rho=10.0, random_state=0), _rows(5000))
    assert not any("candidate of its grid" in str(w.message) for w in caught)


def _release_raw_iris(tmp_path, *python_options):
    """``skprivcov release`` of raw iris at ρ = 0.1 (the default mechanism,
    auto), run by ``python *python_options -m skprivcov``."""
    np.save(tmp_path / "rows.npy", datasets.load_iris().data)
    command = [sys.executable, *python_options, "-m", "skprivcov", "release"]
    arguments = [str(tmp_path / "rows.npy"), "--output", str(tmp_path / "out.npy")]
    budget = ["--rho", "0.1", "--seed", "0"]
    return subprocess.run(
        [*command, *arguments, *budget], capture_output=True, text=True
    )


def test_the_command_line_says_it_released_zeros(tmp_path):
    result = _release_raw_iris(tmp_path)
    assert result.returncode == 0
    assert "of zeros: nothing" in result.stdout
    assert "NoiseDominatedWarning" in result.stderr


def test_the_largest_eigenvalue_by_lanczos_is_the_full_decompositions(monkeypatch):
    """From d = 256 on, Lanczos iterations (O(d²) each); when they do not
    converge, the full decomposition: a paid-for release is never lost to
    its diagnostic."""
    from scipy.sparse.linalg import ArpackNoConvergence

    from skprivcov._fit import _diagnostics

    rng = np.random.default_rng(0)
    A = rng.normal(size=(300, 300))
    A = (A + A.T) / 2
    exact = np.abs(np.linalg.eigvalsh(A)).max()
    assert _diagnostics._largest_magnitude(A) == pytest.approx(exact, rel=1e-9)

    def not_converging(*args, **kwargs):
        raise ArpackNoConvergence("no convergence", np.empty(0), np.empty((0, 0)))

    monkeypatch.setattr(_diagnostics, "eigsh", not_converging)
    assert _diagnostics._largest_magnitude(A) == pytest.approx(exact, rel=1e-12)


def test_warnings_as_errors_keep_the_paid_for_release():
    """The fit's warnings are issued after its release is kept: an error
    filter raises then, and the release it paid for stays (§13.2)."""
    accountant = PrivacyAccountant(rho=1.0)
    est = GaussianCovariance(
        rho=0.005, norm_bound=2.0, accountant=accountant, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoiseDominatedWarning)
        with pytest.raises(NoiseDominatedWarning):
            est.fit(_rows(n=60))
    assert est.covariance_.shape == (4, 4) and est.signal_to_noise_ < 4
    assert len(accountant.history()) == 1


def test_the_command_line_writes_its_release_before_warning(tmp_path):
    result = _release_raw_iris(tmp_path, "-W", "error::UserWarning")
    assert "NoiseDominatedWarning" in result.stderr
    assert (tmp_path / "out.npy").is_file()
    assert (tmp_path / "out.npy.json").is_file()


@pytest.mark.slow
def test_searches_in_threads_never_let_a_run_warn():
    """Four private searches in threads, five times: a run's warning would
    tell how many runs there were and a losing candidate's release (§14).
    The runs are silenced by a per-thread flag, not by the process-wide
    filters another thread restores meanwhile (15 escaped before, in the
    review of issue 46)."""
    import threading

    from skprivcov.model_selection import PrivateRandomSearch

    escaped = []
    X = _rows(n=2000)

    def show(message, category, *args, **kwargs):
        if issubclass(category, NoiseDominatedWarning):
            escaped.append(str(message))

    def search(seed):
        PrivateRandomSearch(
            GaussianCovariance(rho=0.01, norm_bound=3.0),
            {"norm_bound": [1.0, 3.0, 10.0]},
            random_state=seed,
        ).fit(X)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        for _ in range(5):
            threads = [threading.Thread(target=search, args=(s,)) for s in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    assert escaped == []
    # The hook sees what it is there for: a fit outside a search warns.
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        GaussianCovariance(rho=0.001, norm_bound=3.0, random_state=0).fit(X[:50])
    assert len(escaped) == 1
