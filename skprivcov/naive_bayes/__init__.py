"""Naive Bayes classifiers from private per-class releases."""

from skprivcov.naive_bayes._gaussian_nb import PrivateGaussianNB

__all__ = ["PrivateGaussianNB"]
