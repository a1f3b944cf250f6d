"""Utilities."""

from skprivcov.utils._audit import clopper_pearson, epsilon_lower_bound
from skprivcov.utils._discovery import all_estimators
from skprivcov.utils._registry import RegistryEntry, instances, registry

__all__ = [
    "RegistryEntry",
    "all_estimators",
    "clopper_pearson",
    "epsilon_lower_bound",
    "instances",
    "registry",
]
