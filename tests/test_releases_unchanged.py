"""Same seed, same release: every registered variant, bit for bit.

``tests/data/release_digests.json`` holds the SHA-256 of what every variant in
the registry publishes (``covariance_`` and ``location_``; a ridge model's
coefficients; a transformer's output) for ``random_state=0`` on one fixed
dataset. A change that means to leave the releases alone (a refactoring) must
leave every digest as it is. Regenerate the file only in a change that means
to alter releases, and say so in that change::

    python tests/test_releases_unchanged.py --regenerate

A new variant fails here until its digest is added the same way.
"""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from skprivcov.utils import instances

DIGESTS = Path(__file__).parent / "data" / "release_digests.json"
VARIANTS = instances()


def _rows():
    rng = np.random.default_rng(123)
    X = rng.normal(size=(200, 4))
    return 0.9 * X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]


def published(estimator):
    """The SHA-256 of what ``estimator`` publishes, fitted with seed 0."""
    X = _rows()
    params = estimator.get_params(deep=False)
    if "random_state" in params:
        estimator.set_params(random_state=0)
    if hasattr(estimator, "coef_") or "alpha" in params or "alphas" in params:
        estimator.fit(X[:, :3], X[:, 3])
        arrays = [estimator.coef_, np.atleast_1d(estimator.intercept_)]
    elif hasattr(estimator, "transform") and not hasattr(estimator, "score"):
        arrays = [estimator.fit(X).transform(X)]
    else:
        estimator.fit(X)
        arrays = [estimator.covariance_, estimator.location_]
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize(("name", "estimator"), VARIANTS, ids=[n for n, _ in VARIANTS])
def test_the_release_of_every_variant_is_unchanged(name, estimator):
    digests = json.loads(DIGESTS.read_text())
    assert name in digests, f"no digest for {name}: regenerate (see the docstring)"
    assert published(estimator) == digests[name]


if __name__ == "__main__" and sys.argv[1:] == ["--regenerate"]:
    table = {name: published(estimator) for name, estimator in VARIANTS}
    DIGESTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
