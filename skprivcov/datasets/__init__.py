"""Data generators of the papers' experiments."""

from skprivcov.datasets._synthetic import adk19_normalize, make_adk19, make_zipf_norms

__all__ = ["adk19_normalize", "make_adk19", "make_zipf_norms"]
