"""The projection mechanism with a private trace: GaussCov onto {PSD, tr ≤ t̂r}."""

import warnings
from numbers import Real

from skprivcov._compat import Interval
from skprivcov._fit import SHARE, fill_shared_docs
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.mechanisms import projection_covariance

__all__ = ["ProjectionCovariance"]


@fill_shared_docs
class ProjectionCovariance(BasePrivateCovariance):
    """Private covariance by the projection mechanism with a private trace.

    Releases the Frobenius projection of GaussCov onto
    K_t = {{Y ⪰ 0, tr Y ≤ t}}, with t a private upper bound on the trace
    bought with ``trace_fraction`` of the budget (DLY22 App. E, trace-sensitive
    variant; docs/algorithms.rst §3.7). The release is positive semi-definite
    and its error is at most √(2t‖Z‖_op) in Frobenius norm, Z the Gaussian
    noise: it follows the trace of the data, not the public bound B².

    Every estimator's release is projected onto K_t with t = B² by default
    (``projection="psd-trace"``), so the projection onto the public bound
    alone is ``GaussianCovariance()``; what this class adds is the private
    trace.

    Parameters
    ----------
    {budget_parameters}

    trace_fraction : float in (0, 1), default=0.125
        The share of the budget that buys the private upper bound on the trace
        (Gaussian mechanism, shifted up so it holds with probability
        1 − ``beta``); GaussCov gets the rest. The default is the share
        AdaptiveCovariance spends on its trace (docs/algorithms.rst §3.6).
        None (deprecated) gives t = B²: that is ``GaussianCovariance()``, and
        it warns.

    beta : float in (0, 1), default=0.05
        Failure probability of the private trace bound (utility only).

    {release_parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    GaussianCovariance : The same release projected onto the public bound.
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
        trace_fraction=0.125,
        beta=0.05,
        norm_bound="auto",
        feature_scaling="auto",
        assume_centered=False,
        projection="psd-trace",
        nonfinite="raise",
        noise="hardened",
        random_state=None,
        accountant=None,
    ):
        super().__init__(
            rho=rho,
            epsilon=epsilon,
            delta=delta,
            norm_bound=norm_bound,
            feature_scaling=feature_scaling,
            assume_centered=assume_centered,
            projection=projection,
            nonfinite=nonfinite,
            noise=noise,
            random_state=random_state,
            accountant=accountant,
        )
        self.trace_fraction = trace_fraction
        self.beta = beta

    def _check_parameters(self, X):
        if self.trace_fraction is None:
            warnings.warn(
                "ProjectionCovariance(trace_fraction=None) projects onto the public "
                "trace bound, which every estimator now does by default: use "
                "GaussianCovariance() instead. trace_fraction=None will be removed.",
                FutureWarning,
                stacklevel=3,
            )

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
