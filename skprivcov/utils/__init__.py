"""Utilities."""

from skprivcov.utils._audit import clopper_pearson, epsilon_lower_bound
from skprivcov.utils._discovery import all_estimators

__all__ = ["all_estimators", "clopper_pearson", "epsilon_lower_bound"]
