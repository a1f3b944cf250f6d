"""AdaptiveCov: the tail-sensitive estimator of Dong, Liang and Yi."""

from numbers import Real

from skprivcov._compat import Interval, StrOptions
from skprivcov._fit import SHARE, fill_shared_docs
from skprivcov.base import Release
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.mechanisms import adaptive_covariance, radius_step_runs

__all__ = ["AdaptiveCovariance"]


@fill_shared_docs
class AdaptiveCovariance(BasePrivateCovariance):
    """Private covariance that adapts its clipping threshold to the data.

    DLY22 Algorithm 2 (AdaptiveCov; docs/algorithms.rst §2, §3.3–3.6, §3.8): a private
    radius r̃ (PrivRadius), a private upper bound on the trace, a sparse vector
    search over the thresholds τ = r̃·2^{−k} for the one that balances clipping
    bias against noise, then the clipped Gaussian (Laplace) or clipped separate
    mechanism at that threshold, whichever its error bound favours, projected
    onto {{PSD, trace ≤ bound}}. On data whose norms are small or skewed its
    error follows the trace and tail of the data rather than the worst case.

    Parameters
    ----------
    {budget_parameters}

    radius : {{"auto", "private", "norm_bound"}}, default="auto"
        "private" runs PrivRadius for a private dyadic bound r̃ on the row
        norms. "norm_bound" skips it (r̃ = ``norm_bound``); the final mechanism
        then gets 7/8 of a zCDP budget (3/4 of a pure one) instead of 1/2
        (see Notes), and the threshold search still starts at the bound.
        "auto" decides by a public rule on (n, d, budget, ``beta``)
        (docs/algorithms.rst §3.6a, ``mechanisms.radius_step_runs``): it runs
        PrivRadius only when the rows it may leave above r̃ (up to 3α,
        §2.2) are at most 1% of n. Below that (e.g. n < 10⁵ at ρ = 0.1) the
        radius collapses towards 2^{{−256}} and the release towards zero, so
        the step is skipped.

    beta : float in (0, 1), default=0.1
        Failure probability of the utility guarantees (radius, trace bound,
        threshold search). Utility only.

    separate_factor : float > 0, default=0.25
        The factor s_h on the separate mechanism's error bound in the decision
        rule (docs/algorithms.rst §3.4). The paper's worst-case bound (s_h = 1) is
        loose by ×4–6 and then picks the Gaussian mechanism where the separate
        one is better; the default was chosen by measurement on the DLY22
        synthetic settings (see the benchmarks). Utility only.

    eigenvalue_share : float in (0, 1) or "auto", default="auto"
        The separate mechanism's split of the final budget between the
        eigenvalues and the noisy matrix, as in ``SeparateCovariance``; 0.5 is
        the paper's. "auto" chooses the share in [0.05, 0.95] that minimises
        the separate mechanism's error bound given the private trace bound and
        the threshold (docs/algorithms.rst §3.6a): post-processing, free.
        Privacy-neutral either way.

    {release_parameters}

    Attributes
    ----------
    {fitted_attributes}

    threshold_ : float
        The clipping threshold τ̃ (in the units of X) chosen privately.

    radius_ : float
        The private radius r̃ (in the units of X), ``norm_bound`` if skipped.

    mechanism_ : {{"gaussian", "laplace", "separate", "zero"}}
        The final mechanism chosen privately, or "zero" when the release is
        the zero matrix (nothing was released, docs/algorithms.rst §23).

    See Also
    --------
    SeparateCovariance : The separate mechanism at the public bound.
    GaussianCovariance : The Gaussian mechanism at the public bound.
    ZeroCovariance : What AdaptiveCov approaches on data of tiny trace.

    Notes
    -----
    ρ-zCDP (default ρ = 0.1) or, with ``epsilon`` and ``delta`` 0 or None, pure
    ε-DP. {neighbours} Budget (zCDP, docs/algorithms.rst §3.6): PrivRadius ε = √ρ/2
    (ρ/8), Gaussian trace bound ρ/8 (sensitivity r̃²/n), AboveThreshold
    ε = √(ρ/2) (ρ/4) on queries n(Bias − Noise)/r̃² of sensitivity < 1 (buckets
    aligned to r̃), final mechanism ρ/2; without the radius step ρ/16 + ρ/16 +
    7ρ/8 (§3.6a: the authors' code spends ρ/8 + ρ/8 + 3ρ/4; the smaller
    decision shares measured better, ``benchmarks/bench_adaptive.py``).
    Pure (§3.8): ε/8 + ε/8 + ε/8 + 5ε/8, or ε/8 + ε/8 + 3ε/4. The
    noise-bound proxies depend only on public values and the private trace
    bound. PrivRadius is a reconstruction that meets the guarantees of DLY22
    Lemma 9 (docs/algorithms.rst §2, risk R3). The statistics pass reads the row
    norms first and the clipped second moment second.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import AdaptiveCovariance
    >>> rng = np.random.default_rng(0)
    >>> X = 0.01 * rng.uniform(-0.5, 0.5, size=(20000, 3))  # tiny norms
    >>> est = AdaptiveCovariance(rho=1.0, random_state=0).fit(X)
    >>> print(*est.privacy_parts_, sep="\\n")  # n too small to run PrivRadius
    feature cells: 0.125-zCDP
    feature means 1: 0.015625-zCDP
    feature spreads 1: 0.015625-zCDP
    feature means 2: 0.015625-zCDP
    feature spreads 2: 0.015625-zCDP
    feature means 3: 0.03125-zCDP
    feature spreads 3: 0.03125-zCDP
    norm bound: 0.046875-zCDP
    trace bound: 0.0439453-zCDP
    threshold search: 0.0439453-zCDP
    final: 0.615234-zCDP
    >>> # Norms far inside the bound (as given: no per-feature normalisation,
    >>> # which would bring them to unit scale): ask for the private radius.
    >>> est = AdaptiveCovariance(
    ...     rho=1.0, radius="private", feature_scaling=None, random_state=0
    ... ).fit(X)
    >>> est.threshold_ < 0.05
    True
    >>> print(est.privacy_spent_)
    1-zCDP
    >>> print(*est.privacy_parts_, sep="\\n")
    norm bound: 0.0625-zCDP
    radius: 0.117188-zCDP
    trace bound: 0.117188-zCDP
    threshold search: 0.234375-zCDP
    final: 0.46875-zCDP
    """

    _parameter_constraints: dict = {
        **BasePrivateCovariance._parameter_constraints,
        "radius": [StrOptions({"auto", "private", "norm_bound"})],
        "beta": [Interval(Real, 0, 1, closed="neither")],
        "separate_factor": [Interval(Real, 0, 1e6, closed="right")],
        "eigenvalue_share": [*SHARE, StrOptions({"auto"})],
    }
    _notions = ("zcdp", "pure")
    _psd_release = True
    # A loose bound (n − r) inside which its own threshold search runs (§18.2).
    _clips_at_bound = False

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        radius="auto",
        beta=0.1,
        separate_factor=0.25,
        eigenvalue_share="auto",
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
        self.radius = radius
        self.beta = beta
        self.separate_factor = separate_factor
        self.eigenvalue_share = eigenvalue_share

    def _runs_radius_step(self, data, budget):
        """The ``radius`` option resolved; "auto" by a public rule (§3.6a)."""
        if self.radius != "auto":
            return self.radius == "private"
        dimension = data.n_columns
        return radius_step_runs(data.n_samples, dimension, budget, self.beta)

    def _release(self, data, budget, rng):
        bound = self.norm_bound_
        matrix, parts, plan = adaptive_covariance(
            data.norm_profile(bound),
            # The second pass: rows clipped at B·2^e, scaled into the unit ball.
            lambda exponent: data.target(bound * 2.0**exponent).matrix,
            data.n_columns,
            budget,
            rng,
            augmented=data.augmented,
            beta=self.beta,
            separate_factor=self.separate_factor,
            private_radius=self._runs_radius_step(data, budget),
            eigenvalue_share=(
                None if self.eigenvalue_share == "auto" else self.eigenvalue_share
            ),
        )
        threshold = bound * 2.0**plan.threshold_exponent
        if plan.separate:
            mechanism = "separate"
        else:
            mechanism = "gaussian" if budget.notion == "zcdp" else "laplace"
        extras = {
            "threshold_": threshold,
            "radius_": bound * 2.0**plan.radius_exponent,
            "mechanism_": mechanism,
        }
        return Release(matrix, parts, threshold, extras)
