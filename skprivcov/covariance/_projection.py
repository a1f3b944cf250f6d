"""The projection mechanism: GaussCov projected onto {PSD, trace ≤ t}."""

from numbers import Real

from sklearn.utils._param_validation import Interval

from skprivcov._constraints import SHARE
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.covariance._docstrings import fill_shared_docs
from skprivcov.mechanisms import projection_covariance

__all__ = ["ProjectionCovariance"]


@fill_shared_docs
class ProjectionCovariance(BasePrivateCovariance):
    """Private covariance by the projection mechanism.

    Releases the Frobenius projection of GaussCov onto
    K_t = {{Y ⪰ 0, tr Y ≤ t}}, with t = B² (the public trace bound) or, with
    ``trace_fraction``, a private upper bound on the trace (DLY22 App. E;
    docs/algorithms.rst §3.7). The release is positive semi-definite and its error
    is at most √(2t‖Z‖_op) in Frobenius norm, Z the Gaussian noise.

    Parameters
    ----------
    {budget_parameters}

    trace_fraction : float in (0, 1), default=None
        If given, this share of the budget buys a private upper bound on the
        trace (Gaussian mechanism, shifted up so it holds with probability
        1 − ``beta``) and the projection uses it; GaussCov gets the rest.
        Helps when the trace is well below B².

    beta : float in (0, 1), default=0.05
        Failure probability of the private trace bound (utility only).

    {common_parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    GaussianCovariance : The unprojected release.
    SeparateCovariance : Noisy eigenvalues and eigenvectors.

    Notes
    -----
    ρ-zCDP (default ρ = 0.1). {neighbours} GaussCov at (1 − f)ρ and the trace
    bound at fρ (sensitivity 1/n at unit scale, σ = 1/(n√(2fρ))) compose to ρ;
    the projection reads only released values (post-processing).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import ProjectionCovariance
    >>> scales = np.array([1.0, 0.5, 0.25])
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(20000, 3)) * scales
    >>> est = ProjectionCovariance(rho=1.0, random_state=0).fit(X)
    >>> np.diag(est.covariance_).round(2)
    array([0.08, 0.02, 0.01])
    >>> print(est.privacy_spent_)
    1-zCDP
    """

    _parameter_constraints: dict = {
        **BasePrivateCovariance._parameter_constraints,
        "trace_fraction": [*SHARE, None],
        "beta": [Interval(Real, 0, 1, closed="neither")],
    }
    _psd_release = True

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        trace_fraction=None,
        beta=0.05,
        norm_bound=1.0,
        assume_centered=True,
        nonfinite="raise",
        random_state=None,
        accountant=None,
    ):
        super().__init__(
            rho=rho,
            epsilon=epsilon,
            delta=delta,
            norm_bound=norm_bound,
            assume_centered=assume_centered,
            nonfinite=nonfinite,
            random_state=random_state,
            accountant=accountant,
        )
        self.trace_fraction = trace_fraction
        self.beta = beta

    def _release(self, data, budget, rng):
        return self._release_at_norm_bound(
            projection_covariance,
            data,
            budget,
            rng,
            exact_trace=True,
            trace_fraction=self.trace_fraction,
            beta=self.beta,
        )
