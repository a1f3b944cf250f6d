"""skprivcov: differentially private covariance estimation for scikit-learn."""

from skprivcov.covariance import (
    AdaptiveCovariance,
    AutoCovariance,
    CoinPressCovariance,
    CovarianceRelease,
    GaussianCovariance,
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov.naive_bayes import PrivateGaussianNB
from skprivcov.privacy import (
    BudgetExceededError,
    PrivacyAccountant,
    PrivacyCost,
    UnsupportedPrivacyNotionError,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "AdaptiveCovariance",
    "AutoCovariance",
    "BudgetExceededError",
    "CoinPressCovariance",
    "CovarianceRelease",
    "GaussianCovariance",
    "IterativeEigenCovariance",
    "LaplaceCovariance",
    "NuclearLaplaceCovariance",
    "PrivacyAccountant",
    "PrivacyCost",
    "PrivateGaussianNB",
    "ProjectionCovariance",
    "SeparateCovariance",
    "UnsupportedPrivacyNotionError",
    "ZeroCovariance",
    "__version__",
]
