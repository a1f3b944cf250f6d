"""Linear models fit from released (private) second moments."""

from skprivcov.linear_model._ridge import PrivateRidge
from skprivcov.linear_model._ridge_cv import PrivateRidgeCV

__all__ = ["PrivateRidge", "PrivateRidgeCV"]
