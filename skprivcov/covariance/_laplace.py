"""LapCov: the Laplace mechanism on the second moment."""

from skprivcov._fit import fill_shared_docs
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.mechanisms import laplace_covariance
from skprivcov.privacy import PrivacyCost

__all__ = ["LaplaceCovariance"]


@fill_shared_docs
class LaplaceCovariance(BasePrivateCovariance):
    """Private covariance by the Laplace mechanism (LapCov), pure ε-DP.

    Releases Σ + (B²Δ₁/ε)·L, where L is symmetric with independent Lap(1)
    entries on and above the diagonal and Δ₁ = min(√(d(d+1)), d/√2 + 1)/n is
    the ℓ1 sensitivity of the upper triangle of Σ (DLY22 §6; docs/algorithms.rst
    §3.8, with the tight sensitivity).

    Parameters
    ----------
    {budget_parameters}

    {release_parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    SeparateCovariance : With ``delta=0``, its pure version (SeparateLapCov).
    GaussianCovariance : The zCDP analogue.

    Notes
    -----
    Pure ε-DP (default ε = 1); a ``rho`` budget is refused, and an (ε, δ)
    budget is met by spending pure ε. {neighbours} For D = xxᵀ − yyᵀ with unit
    rows, ``Σ_{{j≤k}} |D_jk| ≤ ½ d ‖D‖_F + ½ (‖x‖² + ‖y‖²) ≤ d/√2 + 1``, and
    Cauchy–Schwarz over the d(d+1)/2 coordinates gives √(d(d+1)); the smaller
    bound over n is Δ₁, and noise Lap(Δ₁/ε) is ε-DP (Dwork & Roth, Thm 3.6).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import LaplaceCovariance
    >>> scales = np.array([1.0, 0.5, 0.25])
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(20000, 3)) * scales
    >>> est = LaplaceCovariance(epsilon=1.0, random_state=0).fit(X)
    >>> np.diag(est.covariance_).round(2)
    array([0.08, 0.02, 0.01])
    >>> print(est.privacy_spent_)
    1-DP (pure)
    """

    def _release(self, data, budget, rng):
        return self._release_at_norm_bound(laplace_covariance, data, budget, rng)

    _notions = ("pure",)
    _default_budget = PrivacyCost.pure(1.0)
