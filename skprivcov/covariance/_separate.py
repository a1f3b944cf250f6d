"""SeparateCov: noisy eigenvalues and noisy eigenvectors, released separately."""

from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.covariance._docstrings import fill_shared_docs
from skprivcov.mechanisms import separate_covariance

__all__ = ["SeparateCovariance"]


@fill_shared_docs
class SeparateCovariance(BasePrivateCovariance):
    """Private covariance from separately privatised eigenvalues and vectors.

    Half the budget adds noise to the eigenvalues of Σ, half releases a noisy Σ
    whose eigenvectors (paired by descending eigenvalue) carry the noisy
    eigenvalues, sorted and projected onto {{u ≥ 0, Σu ≤ 1}} (DLY22
    SeparateCov; ALGORITHMS.md §3.2). With ``epsilon`` and ``delta`` 0 or None
    it runs the pure version with Laplace noise (SeparateLapCov, §3.8). The
    release is positive semi-definite.

    Parameters
    ----------
    {budget_parameters}

    {common_parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    GaussianCovariance : One noisy matrix; better for flat spectra.
    ProjectionCovariance : GaussCov projected onto {{PSD, trace ≤ 1}}.

    Notes
    -----
    ρ-zCDP (default ρ = 0.1): eigenvalues + N(0, 2/(ρn²)) each at ρ/2 (their
    ℓ2 sensitivity is √2/n, DLY22 Lemma 10) and GaussCov at ρ/2. Pure ε-DP:
    eigenvalues + Lap(4/(εn)) at ε/2 (ℓ1 sensitivity 2/n, ADK19 Thm 1) and
    LapCov at ε/2. Composition gives the total. {neighbours} Sorting and
    projecting use only the public facts λ ≥ 0 and Σλ ≤ 1: post-processing.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import SeparateCovariance
    >>> scales = np.array([1.0, 0.5, 0.25])
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(20000, 3)) * scales
    >>> est = SeparateCovariance(rho=1.0, random_state=0).fit(X)
    >>> np.diag(est.covariance_).round(2)
    array([0.08, 0.02, 0.01])
    >>> print(est.privacy_spent_)
    1-zCDP
    """

    _mechanism = staticmethod(separate_covariance)
    _notions = ("zcdp", "pure")
    _psd_release = True
