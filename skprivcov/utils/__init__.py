"""Utilities."""

from skprivcov.utils._discovery import all_estimators

__all__ = ["all_estimators"]
