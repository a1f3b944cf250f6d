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
