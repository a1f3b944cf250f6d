"""Differentially private covariance estimators."""

from skprivcov.covariance._adaptive import AdaptiveCovariance
from skprivcov.covariance._auto import AutoCovariance
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.covariance._coinpress import CoinPressCovariance
from skprivcov.covariance._consumer import ReleaseConsumerMixin
from skprivcov.covariance._envelope import PrivateEllipticEnvelope
from skprivcov.covariance._gaussian import GaussianCovariance
from skprivcov.covariance._iterative import IterativeEigenCovariance
from skprivcov.covariance._laplace import LaplaceCovariance
from skprivcov.covariance._nuclear import NuclearLaplaceCovariance
from skprivcov.covariance._projection import ProjectionCovariance
from skprivcov.covariance._release import CovarianceRelease
from skprivcov.covariance._separate import SeparateCovariance
from skprivcov.covariance._zero import ZeroCovariance

__all__ = [
    "AdaptiveCovariance",
    "AutoCovariance",
    "BasePrivateCovariance",
    "CoinPressCovariance",
    "CovarianceRelease",
    "GaussianCovariance",
    "IterativeEigenCovariance",
    "LaplaceCovariance",
    "NuclearLaplaceCovariance",
    "PrivateEllipticEnvelope",
    "ProjectionCovariance",
    "ReleaseConsumerMixin",
    "SeparateCovariance",
    "ZeroCovariance",
]
