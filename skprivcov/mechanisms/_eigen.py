"""Eigen-decomposition helpers with the descending pairing of §3.2
(docs/algorithms.rst)."""

import numpy as np
from scipy import linalg
from scipy.linalg import blas

from skprivcov._data import mirror_upper

__all__ = ["eigh_descending", "eigvalsh_descending", "from_eigenpairs"]


def eigh_descending(matrix):
    """Compute the eigenvalues in descending order and their eigenvectors.

    Uses ``eigh`` (never ``svd``: SVD orders by ``|λ|`` and flips the sign of
    negative eigenvalues' vectors, the reference code's erratum, §3.2).

    Parameters
    ----------
    matrix : ndarray of shape (d, d)
        A symmetric matrix.

    Returns
    -------
    values : ndarray of shape (d,)
        The eigenvalues, descending.
    vectors : ndarray of shape (d, d)
        The eigenvectors, as columns paired with ``values``.
    """
    if matrix.shape[0] == 1:
        return _one_by_one(matrix), np.ones((1, 1))
    values, vectors = linalg.eigh(matrix, driver="evd", check_finite=False)
    return values[::-1], vectors[:, ::-1]


def eigvalsh_descending(matrix):
    """Compute the eigenvalues only, in descending order.

    Cheaper than :func:`eigh_descending`.

    Parameters
    ----------
    matrix : ndarray of shape (d, d)
        A symmetric matrix.

    Returns
    -------
    values : ndarray of shape (d,)
        The eigenvalues, descending.
    """
    if matrix.shape[0] == 1:
        return _one_by_one(matrix)
    return linalg.eigh(matrix, eigvals_only=True, driver="evd", check_finite=False)[
        ::-1
    ]


def _one_by_one(matrix):
    # LAPACK's divide-and-conquer driver refuses a 1 × 1 matrix before SciPy
    # 1.11 (a workspace check); its eigenpair is (the entry, 1) exactly, which
    # is what later versions return.
    return np.asarray(matrix, dtype=np.float64).reshape(1).copy()


def from_eigenpairs(values, vectors):
    """P diag(values) Pᵀ, exactly symmetric.

    By symmetric rank-k updates: (P₊√λ₊)(P₊√λ₊)ᵀ − (P₋√|λ₋|)(P₋√|λ₋|)ᵀ, where
    P₊ (P₋) holds the vectors of the positive (negative) values. That is half
    the flops of a general product, and zero values cost nothing (after a PSD
    projection, the negative half of the spectrum). Uses SciPy's BLAS, like
    the ``eigh`` before it, never NumPy's second OpenBLAS, whose threads
    contend with SciPy's (docs/developers.rst, measurements).

    Parameters
    ----------
    values : ndarray of shape (k,)
        The eigenvalues.
    vectors : ndarray of shape (d, k)
        The eigenvectors, as columns.

    Returns
    -------
    matrix : ndarray of shape (d, d)
        P diag(values) Pᵀ, exactly symmetric.
    """
    d = vectors.shape[0]
    matrix = np.zeros((d, d), order="F")
    for sign in (1.0, -1.0):
        kept = sign * values > 0
        if kept.any():
            factor = vectors[:, kept] * np.sqrt(sign * values[kept])
            # factor.T is Fortran-ordered: BLAS reads it in place (trans=1
            # gives factor·factorᵀ).
            matrix = blas.dsyrk(
                sign, factor.T, beta=1.0, c=matrix, trans=1, overwrite_c=1
            )
    return mirror_upper(matrix)
