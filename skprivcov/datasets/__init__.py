"""Data generators of the papers' experiments."""

from skprivcov.datasets._synthetic import make_zipf_norms

__all__ = ["make_zipf_norms"]
