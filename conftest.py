"""Session set-up shared by the doctests and the test suite."""

import os

# scikit-learn's check_array_api_input (numpy namespace) only runs when SciPy's
# array-API support is switched on before SciPy is imported; without it the check
# is skipped rather than run.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

# A local docs build writes generated sources and copies of the examples under
# docs/; pytest (--doctest-modules, --doctest-glob='*.rst') must not run them.
collect_ignore = [
    "docs/conf.py",
    "docs/_build",
    "docs/auto_examples",
    "docs/generated",
    "docs/sg_execution_times.rst",
]


def pytest_collection_modifyitems(config, items):
    """Keep the full audit opt-in whatever other ``-m`` expression is given.

    A marker expression in ``addopts`` is replaced, not combined, by one on the
    command line, so ``-m "not slow"`` alone would run the seven-minute audit.
    The audit runs only when the expression names it (``-m audit``).
    """
    if "audit" in (config.option.markexpr or ""):
        return
    kept = [item for item in items if item.get_closest_marker("audit") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(
            items=[item for item in items if item.get_closest_marker("audit")]
        )
        items[:] = kept
