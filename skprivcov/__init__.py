"""skprivcov: differentially private covariance estimation for scikit-learn.

The package's face (docs/developers.rst, "Public surfaces"): the face of
:mod:`skprivcov.covariance`, whole (a new covariance estimator is exported
here by being exported there), and the accounting (the accountant, the cost
and the two exceptions). Every other estimator is imported from the
subpackage scikit-learn gives its kind (``skprivcov.naive_bayes``,
``skprivcov.linear_model``, ...).
"""

from skprivcov import covariance as _covariance
from skprivcov.covariance import *  # noqa: F403 (the face of covariance, whole)
from skprivcov.privacy import (
    BudgetExceededError,
    PrivacyAccountant,
    PrivacyCost,
    UnsupportedPrivacyNotionError,
)

__version__ = "0.1.0.dev0"

__all__ = [
    *_covariance.__all__,
    "BudgetExceededError",
    "PrivacyAccountant",
    "PrivacyCost",
    "UnsupportedPrivacyNotionError",
    "__version__",
]
