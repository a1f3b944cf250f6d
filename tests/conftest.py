"""Which of scikit-learn's checks on the registry's *variants* run in the fast loop.

(An expected failure, on a default or a variant, runs with the slow tests.)

The fast loop (``python -m pytest -m "not slow"``, README: under two minutes on
two cores) runs every scikit-learn check on every estimator as constructed
without arguments (``test_common.py::test_sklearn_compatible``). On the other
registered variants, and on PrivateRidge's extra option sets in
``test_ridge_frontier.py``, it runs the checks of fit and publish behaviour
below; their other checks (sparse input, array API, dtypes, the regressor and
pipeline checks: about 40% of the fast loop's CPU time) are marked ``slow``
here and run in CI with the full suite (``.ci/run``). Each variant keeps its
other fast fit checks too: ``test_common.py``'s privacy checks and
``test_noise_calibration_registry.py``, which fits every variant on both noise
paths.

On the defaults, ``check_estimator_sparse_matrix`` is slow: it is
``check_estimator_sparse_array``'s body (``_check_estimator_sparse_container``)
on the ``csr_matrix`` container instead of ``csr_array``, the same seven sparse
formats through the same validation, and the latter stays fast.
"""

import os
import sys

import pytest

# PySpark starts its workers with $PYSPARK_PYTHON ("python3" on the PATH when
# unset, which may not have skprivcov, or even numpy); the session's
# spark.pyspark.python setting does not reach a driver started from Python. The
# suite runs its workers (and any driver it starts) with this interpreter,
# unless the user chose another.
for _variable in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"):
    os.environ.setdefault(_variable, sys.executable)

# The checks of fit and publish behaviour kept in the fast loop for the variants.
FAST_VARIANT_CHECKS = frozenset(
    {
        "check_fit_idempotent",  # the same seed, the same release
        "check_dont_overwrite_parameters",  # fit publishes only name_ attributes
        "check_n_features_in_after_fitting",  # the published n_features_in_
    }
)
# (file name, test function) of the scikit-learn checks on variants.
VARIANT_CHECKS = {
    ("test_common.py", "test_sklearn_compatible_variants"),
    ("test_ridge_frontier.py", "test_sklearn_compatible"),
}
# (file name, test function) of the checks on the defaults, and the slow ones.
DEFAULT_CHECKS = ("test_common.py", "test_sklearn_compatible")
SLOW_DEFAULT_CHECKS = frozenset({"check_estimator_sparse_matrix"})


def _check_name(item):
    check = item.callspec.params.get("check")
    name = getattr(getattr(check, "func", check), "__name__", "")
    if getattr(check, "keywords", None):  # e.g. the readonly_memmap=True run
        return f"{name}({check.keywords})"
    return name


def _expected_to_fail(item):
    """Whether scikit-learn's check is an expected failure of this instance
    (the registry's table, with its reason)."""
    return item.get_closest_marker("xfail") is not None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` the variants' checks not in FAST_VARIANT_CHECKS, the
    defaults' SLOW_DEFAULT_CHECKS, and every expected failure of a check
    (before ``-m`` deselects). An expected failure tells the fast loop
    nothing it needs (its reason is reviewed in the registry), and reporting
    one costs pytest a quarter of a second to format the check's traceback:
    the classifiers' 90 expected failures at the default budget (their label
    set, docs/algorithms.rst §25) added 25 s to the fast loop."""
    for item in items:
        test = (item.path.name, getattr(item, "originalname", None))
        if test in VARIANT_CHECKS:
            slow = _check_name(item) not in FAST_VARIANT_CHECKS
        elif test == DEFAULT_CHECKS:
            slow = _check_name(item) in SLOW_DEFAULT_CHECKS
        else:
            continue
        if slow or _expected_to_fail(item):
            item.add_marker(pytest.mark.slow)
