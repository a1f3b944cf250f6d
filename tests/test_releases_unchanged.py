"""Same seed, same release: every registered variant.

``tests/data/release_digests.json`` holds what every variant in the registry
publishes (``covariance_`` and ``location_``; a ridge model's coefficients; a
transformer's output) for ``random_state=0`` on one fixed dataset, as exact
floats (``float.hex``) and as a SHA-256, with the environment that computed
them (NumPy, SciPy, their OpenBLAS builds and CPU kernels). A change that
means to leave the releases alone (a refactoring) must leave them as they are:

* in the recorded environment, bit for bit;
* elsewhere (another CPU kernel, another BLAS), to 1e−9 of the release's
  largest entry: rounding in a different BLAS moves a release by about 1e−15
  of it, while any change of a noise scale, a split or a draw moves it by far
  more. (Relative to the release, not absolute: some releases are tiny, e.g.
  AdaptiveCovariance's default on this data is about 1e−155.)

The comparison carries the marker ``release_digests``, so that a run under
other library versions, like the dependency floors of ``.ci/run``, can leave
it out: there the releases are the same in law but not in value. LAPACK may
return an eigenvector with the other sign (SciPy 1.10's flips two of this
dataset's four), and the Bingham draws of IterativeEigenCovariance are made
in that basis; NumPy's log and arccosh may differ in the last bit, and the
slice sampler of NuclearLaplaceCovariance's spectrum amplifies that. The
other tests of this file run everywhere. Regenerate the file only in a change
that means to alter releases, and say so in that change::

    python tests/test_releases_unchanged.py --regenerate

A new variant fails here until it is added the same way.

The float path's releases from before hardened noise (issue 24) were kept
in ``tests/data/release_digests_float.json`` until issue 34 put every
statistic on the grid 2^−20 of docs/algorithms.rst §19, which changes every
release of every path by design; the file is gone with them.
"""

import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy
import scipy.linalg  # loads SciPy's BLAS, for threadpool_info
from threadpoolctl import threadpool_info

from skprivcov.utils import instances

DIGESTS = Path(__file__).parent / "data" / "release_digests.json"
VARIANTS = instances()


def environment():
    """What decides the rounding of a release: library builds and CPU kernels."""
    blas = sorted(
        f"{lib['prefix']} {lib['version']} {lib.get('architecture')}"
        for lib in threadpool_info()
        if lib["user_api"] == "blas"
    )
    return {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "machine": platform.machine(),
        "blas": blas,
    }


def _rows():
    rng = np.random.default_rng(123)
    X = rng.normal(size=(200, 4))
    return 0.9 * X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]


def published(estimator):
    """What ``estimator`` publishes, fitted with seed 0, as one float array."""
    X = _rows()
    params = estimator.get_params(deep=False)
    if "random_state" in params:
        estimator.set_params(random_state=0)
    if "classes" in params:  # a classifier: labels from the first column
        estimator.fit(X, (X[:, 0] > 0).astype(int))
        if hasattr(estimator, "coef_"):
            arrays = [estimator.coef_, estimator.intercept_, estimator.means_]
        else:  # naive Bayes
            arrays = [estimator.theta_, estimator.var_, estimator.class_prior_]
    elif "alpha" in params or "alphas" in params:
        estimator.fit(X[:, :3], X[:, 3])
        arrays = [estimator.coef_, np.atleast_1d(estimator.intercept_)]
    elif hasattr(estimator, "fold_releases_") or "n_folds" in params:
        estimator.fit(X)  # FoldReleases: the pooled release of its folds
        arrays = [estimator.release_.second_moment]
    elif hasattr(estimator, "transform") and not hasattr(estimator, "score"):
        arrays = [estimator.fit(X).transform(X[:25])]
    else:
        estimator.fit(X)
        arrays = [estimator.covariance_, estimator.location_]
    return np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])


def matches(values, expected, same_environment):
    """Whether ``values`` is the recorded release ``expected``: bit for bit in
    the recorded environment, to 1e−9 of its largest entry elsewhere."""
    if same_environment:
        return _record(values)["sha256"] == expected["sha256"]
    reference = np.array([float.fromhex(v) for v in expected["values"]])
    if values.shape != reference.shape:
        return False
    tolerance = 1e-9 * np.max(np.abs(reference), initial=0.0)
    return bool(np.all(np.abs(values - reference) <= tolerance))


def _record(values):
    return {
        "sha256": hashlib.sha256(values.tobytes()).hexdigest(),
        "values": [float(v).hex() for v in values],
    }


@pytest.fixture(scope="module")
def recorded():
    return json.loads(DIGESTS.read_text())


@pytest.mark.release_digests
@pytest.mark.parametrize(("name", "estimator"), VARIANTS, ids=[n for n, _ in VARIANTS])
def test_the_release_of_every_variant_is_unchanged(name, estimator, recorded):
    assert name in recorded["releases"], f"no record of {name}: regenerate"
    expected = recorded["releases"][name]
    same_environment = recorded["environment"] == environment()
    assert matches(published(estimator), expected, same_environment), (
        f"{name}'s release changed"
    )


def test_every_record_is_of_a_registered_variant(recorded):
    """A renamed or removed variant leaves no record that nothing checks."""
    assert set(recorded["releases"]) == {name for name, _ in VARIANTS}


@pytest.mark.parametrize("same_environment", [True, False])
def test_one_changed_bit_fails(recorded, same_environment):
    """The comparison itself: the smallest change of any release entry, in
    either environment, is a change (the tiny releases included)."""
    for expected in recorded["releases"].values():
        values = np.array([float.fromhex(v) for v in expected["values"]])
        assert matches(values, expected, same_environment)
        # The last bit of the largest entry flipped (of 0.0 too).
        flipped = values.copy()
        # (np.uint64(1): NumPy < 2 casts uint64 ^ int to float64 and refuses.)
        flipped.view(np.uint64)[np.argmax(np.abs(values))] ^= np.uint64(1)
        if same_environment:
            assert not matches(flipped, expected, same_environment)
        # Off the recorded environment a change of 1e-6 of the scale fails.
        moved = values.copy()
        moved[np.argmax(np.abs(values))] += 1e-6 * max(np.max(np.abs(values)), 1e-300)
        assert not matches(moved, expected, same_environment)


if __name__ == "__main__" and sys.argv[1:] == ["--regenerate"]:
    table = {
        "environment": environment(),
        "releases": {name: _record(published(est)) for name, est in VARIANTS},
    }
    DIGESTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
