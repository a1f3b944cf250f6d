"""A symmetric rank-k update that releases the GIL.

The exact statistics pass (docs/algorithms.rst §19) runs on several threads,
each putting its own blocks of rows on the grid and multiplying them on one
core. SciPy's ``blas.dsyrk`` keeps the GIL while it runs, so the other threads
could not put their rows on the grid meanwhile; the same BLAS routine called
through ``ctypes`` (SciPy's ``cython_blas`` exports its address) releases it.
It is the library the rest of skprivcov uses, so no second OpenBLAS's threads
contend with SciPy's.
"""

import ctypes

import numpy as np
from scipy.linalg import cython_blas

__all__ = ["syrk_upper"]


def _address(name):
    """The address of SciPy's ``cython_blas`` function ``name``."""
    capsule = cython_blas.__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, get_name(capsule))


_INT = ctypes.POINTER(ctypes.c_int)
_DOUBLE = ctypes.POINTER(ctypes.c_double)
# dsyrk(uplo, trans, n, k, alpha, a, lda, beta, c, ldc), every argument by
# reference (the Fortran interface); a ctypes call releases the GIL.
_DSYRK = ctypes.CFUNCTYPE(
    None,
    ctypes.c_char_p,
    ctypes.c_char_p,
    _INT,
    _INT,
    _DOUBLE,
    ctypes.c_void_p,
    _INT,
    _DOUBLE,
    ctypes.c_void_p,
    _INT,
)(_address("dsyrk"))


def syrk_upper(rows, out, beta):
    """``out ← rowsᵀ·rows + beta·out`` in the upper triangle of ``out``.

    Parameters
    ----------
    rows : ndarray of shape (k, d), C-ordered float64
        Read in place (its transpose is Fortran-ordered).
    out : ndarray of shape (d, d), Fortran-ordered float64
        Updated in place; its strict lower triangle is not touched.
    beta : {0.0, 1.0}
        0 overwrites ``out``'s upper triangle, 1 adds to it.
    """
    k, d = rows.shape
    if not (
        rows.dtype == np.float64
        and rows.flags.c_contiguous
        and out.dtype == np.float64
        and out.flags.f_contiguous
        and out.shape == (d, d)
        and 0 < d < 2**31
        and 0 < k < 2**31
    ):
        raise ValueError("syrk_upper takes C-ordered rows and a Fortran (d, d) out.")
    n_features = ctypes.c_int(d)
    n_rows = ctypes.c_int(k)
    _DSYRK(
        b"U",
        b"N",
        ctypes.byref(n_features),
        ctypes.byref(n_rows),
        ctypes.byref(ctypes.c_double(1.0)),
        rows.ctypes.data,
        ctypes.byref(n_features),
        ctypes.byref(ctypes.c_double(beta)),
        out.ctypes.data,
        ctypes.byref(n_features),
    )
    return out
