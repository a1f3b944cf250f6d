"""Eigen-decomposition helpers with the descending pairing of ALGORITHMS.md §3.2."""

import numpy as np
from scipy import linalg
from scipy.linalg import blas

__all__ = ["eigh_descending", "eigvalsh_descending", "from_eigenpairs"]


def eigh_descending(matrix):
    """Eigenvalues in descending order and the eigenvectors paired with them.

    Uses ``eigh`` (never ``svd``: SVD orders by |λ| and flips the sign of
    negative eigenvalues' vectors, the reference code's erratum, §3.2).
    """
    values, vectors = linalg.eigh(matrix, driver="evd", check_finite=False)
    return values[::-1], vectors[:, ::-1]


def eigvalsh_descending(matrix):
    """Eigenvalues only, in descending order (cheaper than :func:`eigh_descending`)."""
    return linalg.eigh(matrix, eigvals_only=True, driver="evd", check_finite=False)[
        ::-1
    ]


def from_eigenpairs(values, vectors):
    """P diag(values) Pᵀ, made exactly symmetric.

    Uses SciPy's BLAS, like the ``eigh`` before it: following SciPy's OpenBLAS
    with NumPy's (a second OpenBLAS whose threads contend with the first one's)
    measured 1.7x slower at d = 1000 on 2 cores.
    """
    vectors = np.asfortranarray(vectors)
    matrix = blas.dgemm(1.0, vectors * values, vectors, trans_b=True)
    return 0.5 * (matrix + matrix.T)
