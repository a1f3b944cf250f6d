"""d'Orsi–Novikov's nuclear-Laplace mechanism and its projection variants."""

from numbers import Integral

from skprivcov._compat import Interval, StrOptions
from skprivcov._fit import fill_shared_docs
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.mechanisms import nuclear_laplace_covariance
from skprivcov.privacy import MCMC_NOISE, PrivacyCost

__all__ = ["NuclearLaplaceCovariance"]


@fill_shared_docs
class NuclearLaplaceCovariance(BasePrivateCovariance):
    """Private covariance by nuclear-norm Laplace noise (d'Orsi & Novikov).

    Releases Σ + Z, where Z has density ∝ exp(−‖Z‖_*/r) and r = 2B²/(εn). This
    is the K-norm mechanism for the nuclear norm, in which Σ has sensitivity
    2/n (docs/algorithms.rst §6.1). The release is symmetric, and can be projected
    for accuracy. On the papers' synthetic settings it is the most accurate
    pure-DP mechanism here (§9.7; not on every dataset), but part of its noise
    comes from a Markov chain, so its pure-DP guarantee holds only up to the
    error of that chain (see Notes).

    Parameters
    ----------
    {budget_parameters}

    variant : {{"symmetric", "general"}}, default="symmetric"
        "general" is dON's mechanism: noise on all d×d matrices, and then the
        release is symmetrised (the Frobenius projection onto symmetric
        matrices, free). "symmetric" draws the noise on the symmetric matrices
        directly, with the same ε and r. The privacy proof is unchanged, and the
        Frobenius error is about 29% lower (§6.1, §6.4).

    projection : {{"psd-trace", "nuclear"}} or None, default="psd-trace"
        Post-processing of the noisy matrix. Neither projection can increase
        the Frobenius error, since both sets contain Σ.

        - "psd-trace" is the Frobenius projection onto {{Y ⪰ 0, tr Y ≤ t}}
          (§4.2, §6.6's alternative). It gives the projection-mechanism gain,
          ‖P − Σ‖_F² ≤ 2t‖Z‖_op.
        - "nuclear" is the projection onto the nuclear ball ‖Y‖_* ≤ t
          (dON Algorithm 2, §4.1).
        - None is dON Algorithm 1, the plain perturbation.

    trace_bound : {{"public", "private"}}, default="public"
        The radius t of the projection.

        - "public" uses t = B², the public bound on the trace, and all of ε goes
          to the noise.
        - "private" uses dON Algorithm 2's split. The noise gets ε/2, and
          t = 2·tr Σ + Lap(10B²/(εn)) gets ε/5 (the sensitivity of 2·tr Σ is
          2/n). The value is then clipped to [0, B²], which is post-processing.
          The remaining 0.3ε is left unspent, as in the paper, but it is still
          charged. This option helps when the trace is well below B², and
          needs a projection.

    n_sweeps : int >= 1, default=200
        Sweeps of the Markov chain that draws the normalised singular values of
        Z (B of §6.3). From its equilibrium start the chain measured as
        stationary within the first sweeps up to d = 400, with an
        autocorrelation time of 1–5 sweeps. To check it at your d, run
        :func:`skprivcov.mechanisms.nuclear_chain_diagnostics`, which runs
        independent chains (never the one that drew a release's noise).

    {common_parameters}

    Attributes
    ----------
    {release_attributes}

    privacy_spent_ : PrivacyCost
        The budget charged, pure ε, with the caveat ``"mcmc-noise"``. Pure ε
        is the guarantee of the mechanism with exactly sampled noise. The
        radius and the orthogonal factors of the noise are exact, but its
        normalised singular values come from a Markov chain run for
        ``n_sweeps`` sweeps. If that chain's law is at total variation η from
        the exact one, the release is (ε, (1 + e^ε)·η)-DP, and η is not
        certified (docs/algorithms.rst §6.3). The caveat travels with the cost into
        the accountant's ledger and the command line's record. Use an
        estimator listed under See Also when the pure-DP claim must hold
        exactly.

    {parts_attribute}

    {input_attributes}

    See Also
    --------
    LaplaceCovariance : Pure ε-DP with exactly sampled Laplace noise.
    SeparateCovariance : With ``delta=0``, the exact pure-DP SeparateLapCov.
    IterativeEigenCovariance : Pure ε-DP with an exact Bingham sampler.

    Notes
    -----
    Pure ε-DP for the exact noise law (default ε = 1). A ``rho`` budget is
    refused; an (ε, δ) budget is met by spending pure ε. {neighbours}

    By the K-norm argument, the density of the release at any Y changes by at
    most a factor exp(‖Σ − Σ'‖_*/r) ≤ e^ε (Hardt & Talwar 2010). In the
    symmetric variant the same argument runs on the vector space of symmetric
    matrices.

    What is sampled exactly, and what is not (§6.2–6.3):

    - The radius R = ‖Z‖_* ~ Gamma(D, r) is exact, with D = d² (general) or
      d(d+1)/2 (symmetric).
    - The Haar orthogonal factors are exact (QR with the sign fix).
    - The normalised singular values w (eigenvalues in the symmetric variant),
      density ∝ Π_{{i<j}}|w_i² − w_j²| (∝ Π_{{i<j}}|w_i − w_j|), come from Gibbs
      sweeps of exact-invariance slice updates on the ordered chamber, where
      the target is log-concave. The chain starts at the large-d equilibrium.

    No exact practical sampler for w is known. Its spectral norm is about
    π·r·d, not the 1.1·r·d of dON's Theorem 4.4 (§6.4).

    Floating-point noise and the data-independent running time of the chain are
    as for the other mechanisms (the chain never reads the data). Nothing about
    the chain is published: its final state *is* the direction of the noise,
    so any statistic of it (a convergence diagnostic, say) would let anyone
    holding the release test which of two neighbouring datasets produced it
    (docs/algorithms.rst §13.1).

    References
    ----------
    T. d'Orsi, G. Novikov. On Purely Private Covariance Estimation.

    M. Hardt, K. Talwar. On the geometry of differential privacy. STOC 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import NuclearLaplaceCovariance
    >>> scales = np.array([1.0, 0.5, 0.25])
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(20000, 3)) * scales
    >>> est = NuclearLaplaceCovariance(epsilon=1.0, random_state=0).fit(X)
    >>> np.diag(est.covariance_).round(2)
    array([0.08, 0.02, 0.01])
    >>> print(est.privacy_spent_)
    1-DP (pure) [caveat: mcmc-noise]
    """

    _parameter_constraints: dict = {
        **BasePrivateCovariance._parameter_constraints,
        "variant": [StrOptions({"symmetric", "general"})],
        "projection": [StrOptions({"psd-trace", "nuclear"}), None],
        "trace_bound": [StrOptions({"public", "private"})],
        "n_sweeps": [Interval(Integral, 1, None, closed="left")],
    }
    _notions = ("pure",)
    _default_budget = PrivacyCost.pure(1.0)
    _caveats = (MCMC_NOISE,)

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        variant="symmetric",
        projection="psd-trace",
        trace_bound="public",
        n_sweeps=200,
        norm_bound="auto",
        feature_scaling="auto",
        assume_centered=False,
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
        self.variant = variant
        self.trace_bound = trace_bound
        self.n_sweeps = n_sweeps

    @property
    def _psd_release(self):
        return self.projection == "psd-trace"

    def _check_parameters(self, X):
        # A private radius without a projection would spend ε/5 on nothing.
        if self.trace_bound == "private" and self.projection is None:
            raise ValueError(
                "trace_bound='private' buys the radius of a projection; give "
                "projection='nuclear' or 'psd-trace', or trace_bound='public'."
            )

    def _release(self, data, budget, rng):
        return self._release_at_norm_bound(
            nuclear_laplace_covariance,
            data,
            budget,
            rng,
            exact_trace=True,
            symmetric=self.variant == "symmetric",
            projection=self.projection,
            trace_bound=self.trace_bound,
            n_sweeps=self.n_sweeps,
        )
