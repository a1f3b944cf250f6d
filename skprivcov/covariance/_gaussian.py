"""GaussCov: the Gaussian mechanism on the second moment."""

from skprivcov._fit import fill_shared_docs
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.mechanisms import gaussian_covariance

__all__ = ["GaussianCovariance"]


@fill_shared_docs
class GaussianCovariance(BasePrivateCovariance):
    """Private covariance by the Gaussian mechanism (GaussCov).

    Releases Σ + (B²/(√ρ n))·W, where Σ is the second moment of the rows
    clipped to ``norm_bound`` B and W is a symmetric matrix with independent
    N(0, 1) entries on and above the diagonal (DLY22; docs/algorithms.rst §3.1).

    Parameters
    ----------
    {budget_parameters}

    {release_parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    SeparateCovariance : Noisy eigenvalues and eigenvectors; better when the
        spectrum decays.
    ProjectionCovariance : GaussCov projected onto {{PSD, trace ≤ 1}}.
    LaplaceCovariance : The pure ε-DP analogue.

    Notes
    -----
    ρ-zCDP (default ρ = 0.1); an (ε, δ) budget is converted to the largest
    feasible ρ. {neighbours} The Frobenius sensitivity of Σ is √2/n (the
    ℓ2 norm of its upper triangle is at most that), so the noise
    σ = Δ/√(2ρ) = 1/(√ρ n) gives ρ-zCDP by Bun & Steinke (2016, Prop. 1.6).
    The release is symmetric but not necessarily positive semi-definite.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> scales = np.array([1.0, 0.5, 0.25])
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(20000, 3)) * scales
    >>> est = GaussianCovariance(rho=1.0, random_state=0).fit(X)
    >>> np.diag(est.covariance_).round(2)
    array([0.08, 0.02, 0.01])
    >>> print(est.privacy_spent_)
    1-zCDP
    """

    def _release(self, data, budget, rng):
        return self._release_at_norm_bound(gaussian_covariance, data, budget, rng)
