"""Decompositions of private releases."""

from skprivcov.decomposition._pca import PrivatePCA

__all__ = ["PrivatePCA"]
