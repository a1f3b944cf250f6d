"""Classifiers from per-class private releases."""

from skprivcov.discriminant_analysis._lda import PrivateLinearDiscriminantAnalysis

__all__ = ["PrivateLinearDiscriminantAnalysis"]
