"""Session set-up shared by the doctests and the test suite."""

import os

# scikit-learn's check_array_api_input (numpy namespace) only runs when SciPy's
# array-API support is switched on before SciPy is imported; without it the check
# is skipped rather than run.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
