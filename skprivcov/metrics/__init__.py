"""Scores of releases on held-out data."""

from skprivcov.metrics._scorers import covariance_error_score

__all__ = ["covariance_error_score"]
