"""A candidate's public checks, run before a meta-estimator's charge.

A meta-estimator that charges once for many fits (``PrivateRandomSearch``)
must not charge and then fail for a reason its public inputs settled: a
covariance candidate given one feature, a training share of one row, a
container a candidate does not take (docs/algorithms.rst §13.2). Every fit in
skprivcov checks the public facts of its input before its own charge, and
reads no value before it; so fitting a clone of the candidate on a *stand-in*
of the rows it will get (the same container, shape and dtype, every value zero)
with an accountant that stops at the first charge runs exactly the candidate's
public checks and nothing else. Nothing of the data is read: the stand-in holds
no value of it.
"""

import warnings

import numpy as np
from scipy import sparse
from sklearn.base import clone

from skprivcov._data import is_dask_array
from skprivcov._fit import silenced_warnings
from skprivcov.privacy import PrivacyAccountant

__all__ = ["check_public_facts"]


class _ChargeReached(BaseException):
    """The probe reached a charge: the public checks before it passed.

    A BaseException, so that no ``except Exception`` on the way can swallow
    it."""


class _StopAtCharge(PrivacyAccountant):
    """An accountant whose every charge stops the fit (never a real ledger)."""

    def __init__(self):  # no ledger: nothing is ever recorded
        pass

    @property
    def path(self):
        return None

    @property
    def budget(self):
        return "a probe of the public checks"

    def can_spend(self, *costs):
        return True

    def spend(self, cost, *, source="", details=None):
        raise _ChargeReached

    def __repr__(self):
        return "_StopAtCharge()"


_PROBE = _StopAtCharge()


def _stand_in_rows(X, n_rows):
    """Rows like the first ``n_rows`` of X (container, dtype, format, chunks),
    every value zero."""
    if is_dask_array(X):
        # Zeros with X's column chunks and no dependency on X's graph: even a
        # check that computed the stand-in would load nothing of X.
        from dask import array

        rows = max(1, min(X.chunksize[0], n_rows))
        return array.zeros(
            (n_rows, X.shape[1]), dtype=X.dtype, chunks=(rows, X.chunks[1])
        )
    if sparse.issparse(X):
        return sparse.csr_matrix((n_rows, X.shape[1]), dtype=X.dtype).asformat(X.format)
    return np.zeros((n_rows, *X.shape[1:]), dtype=X.dtype)


def _stand_in_target(y, n_rows):
    if y is None:
        return None
    if is_dask_array(y):
        from dask import array

        return array.zeros(
            n_rows, dtype=y.dtype, chunks=max(1, min(y.chunksize[0], n_rows))
        )
    return np.zeros(n_rows, dtype=y.dtype)


def check_public_facts(model, X, y, n_rows):
    """Run ``model``'s public checks on a stand-in of ``n_rows`` rows like X
    (and y), stopping at its first charge; any error they raise is raised here.

    Parameters
    ----------
    model : estimator
        A candidate (a skprivcov estimator or a pipeline of them); it is cloned,
        never fitted.
    X : ndarray, sparse matrix or dask array
        The rows, after the meta-estimator's own public checks (only their
        container, dtype and width are used).
    y : ndarray, dask array or None
        The target, 1-D (only its dtype is used).
    n_rows : int
        How many rows the candidate will be given.
    """
    probe = clone(model)
    names = [
        name
        for name in probe.get_params(deep=True)
        if name == "accountant" or name.endswith("__accountant")
    ]
    probe.set_params(**dict.fromkeys(names, _PROBE))
    with warnings.catch_warnings(), silenced_warnings():
        warnings.simplefilter("ignore")
        try:
            probe.fit(_stand_in_rows(X, n_rows), _stand_in_target(y, n_rows))
        except _ChargeReached:
            pass
