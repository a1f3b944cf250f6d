"""ADK19's iterative eigenvector sampler (EMCov) and the Kapralov–Talwar baseline."""

from numbers import Integral, Real

from skprivcov._compat import Interval, StrOptions
from skprivcov._fit import SHARE, fill_shared_docs
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.mechanisms import iterative_eigen_covariance
from skprivcov.privacy import PrivacyCost

__all__ = ["IterativeEigenCovariance"]


@fill_shared_docs
class IterativeEigenCovariance(BasePrivateCovariance):
    """Private covariance by iterative eigenvector sampling (ADK19), pure ε-DP.

    Releases noisy eigenvalues (Laplace mechanism, or Gaussian under zCDP;
    sorted and projected), then
    draws the eigenvectors one at a time with the exponential mechanism on the
    sphere, density ∝ exp(c·ε_i·uᵀXᵀXu), each in the orthogonal complement of
    the ones before (Amin, Dick, Kulesza, Muñoz Medina & Vassilvitskii 2019,
    Algorithm 1; docs/algorithms.rst §5). Each draw is exact, by the Kent–Ganeiber–
    Mardia rejection sampler for the Bingham law with the three errata of the
    paper's Algorithm 2 fixed (§5.3). The release Σ_i λ̂_i θ_i θ_iᵀ is positive
    semi-definite, of rank ``n_components``. Its error follows the eigenvalues
    of the data: on data of small trace it is about 3x more accurate than
    LaplaceCovariance, at trace 1 far less (docs/iterative.rst).

    Parameters
    ----------
    {budget_parameters}

    n_components : int >= 1, default=None
        Rank k of the release: the k largest eigenvalues and k eigenvectors.
        None for all of them (the number of features, plus one without
        ``assume_centered``). At most the number of features.

    update : {{"project", "deflate"}}, default="project"
        "project" is ADK19's algorithm: draw i is from the data restricted to
        the orthogonal complement of θ_1..θ_{{i−1}}. "deflate" is the
        Kapralov–Talwar style baseline of the paper's experiments (§5.4):
        every draw is on the whole sphere, from XᵀX − Σ_{{j<i}} nλ̂_j θ_jθ_jᵀ,
        and the θ_i are not orthogonal. It costs one d×d eigendecomposition per
        draw, and is there for comparison.

    budget_split : {{"uniform", "adaptive"}}, default="adaptive"
        How the eigenvectors' budget is divided between the draws. "uniform":
        equally. "adaptive": ADK19 Corollary 1, ε_i ∝ √(λ̂_i + τ) from the
        released eigenvalues (post-processing; τ bounds their noise with
        probability 1 − ``beta``); under zCDP ε_i ∝ (λ̂_i + τ)^{{1/3}}, which
        minimises the same error bound at a fixed Σ ε_i². Halved the error at
        trace 1 in the benchmark (0.31 against 0.69 at ε = 4, n = 4000,
        d = 50), hence the default; "uniform" is ADK19's Algorithm 1 as
        printed.

    em_coefficient : float in (0, 0.5], default=0.25
        The c in the sampling density ∝ exp(c·ε_i·uᵀXᵀXu). The paper's 1/4 treats
        the utility's sensitivity as 2; its true sensitivity is 1 (for unit
        rows (u·x)² − (u·x')² ∈ [−1, 1], §5.1), so any c ≤ 1/2 is ε_i-DP and
        1/2 is the tight choice: more accurate at the same ε. The default keeps
        the paper's constant, for comparisons with it.

    eigenvalue_share : float in (0, 1), default=0.5
        Share of the budget spent on the eigenvalues (the paper's ε_0 = ε/2);
        the draws share the rest. Privacy-neutral.

    eigenvalue_projection : {{"simplex", "clip"}}, default="simplex"
        Post-processing of the sorted noisy eigenvalues λ̂ (of XᵀX/n at unit
        scale): "simplex" projects them onto {{λ ≥ 0, Σλ ≤ 1}}, the set the true
        ones lie in (it never moves them further from the truth); "clip"
        clips each to [0, 1], as in the paper (§4). The two gave the same
        error to 4 digits on the benchmark's settings, where the eigenvectors
        dominate it.

    beta : float in (0, 1), default=0.05
        Failure probability of τ in the adaptive split. Utility only.

    {release_parameters}

    Attributes
    ----------
    {fitted_attributes}

    See Also
    --------
    LaplaceCovariance : One noisy matrix, pure ε-DP; better for flat spectra
        and large n.
    SeparateCovariance : With ``delta=0``, noisy eigenvalues with the
        eigenvectors of a noisy matrix.

    Notes
    -----
    When not to use it: on small real datasets (the bundled ones, n ≤ 1797,
    rows bounded by public feature ranges) at ε ≤ 4 its eigenvectors are
    about as good as random ones, and its error is above the zero matrix's
    (digits ε = 1: 0.230 against 0.165; wine: 0.245 against 0.180;
    ``benchmarks/bench_auto.py``). There use ``AutoCovariance`` (which never
    picks it) or ``AdaptiveCovariance(epsilon=...)``. It is competitive at
    large n and for a few top directions (``n_components``), the setting of
    ADK19.

    Pure ε-DP (default ε = 1), or ρ-zCDP with ``rho``. {neighbours}

    * Eigenvalues: the k largest of Σ = XᵀX/n plus Lap(2/(nε_0)) (their ℓ1
      sensitivity is 2/n, ADK19 Thm 1) at ε_0 = vε, v = ``eigenvalue_share``.
      Under zCDP, Gaussian noise of σ = √2/(n√(2ρ_0)) at ρ_0 = vρ (ℓ2
      sensitivity √2/n; §5.2).
    * Draw i is the exponential mechanism with utility uᵀXᵀXu, sensitivity 1,
      at c·ε_i with c ≤ 1/2: ε_i-DP, which is (ε_i²/2)-zCDP. The ε_i add up
      to (1 − v)ε (pure) or their squares to 2(1 − v)ρ (zCDP, so ε_i = √(ρ/d)
      for the uniform split of §5.2).
    * With all d vectors and ``update="project"`` the last draw is on the
      0-sphere {{±1}} of a line fixed by the earlier draws, with a law that does
      not depend on the data: it is free and the others share its budget.
    * Composition gives the total; sorting, projecting and the adaptive split
      read released values only.

    The rejection sampler runs a number of iterations that depends on the data
    (about √(e·q/2) proposals per draw at high concentration): a timing side
    channel, like every rejection sampler. Cost: one eigendecomposition per
    draw, O(d⁴) in all, about 25 s at d = 800 on 2 cores
    (``benchmarks/bench_iterative_eigen.py``).

    References
    ----------
    K. Amin, T. Dick, A. Kulesza, A. Muñoz Medina, S. Vassilvitskii.
    Differentially Private Covariance Estimation. NeurIPS 2019.

    J. T. Kent, A. M. Ganeiber, K. V. Mardia. A new unified approach for the
    simulation of a wide class of directional distributions. JCGS 27(2), 2018.

    M. Kapralov, K. Talwar. On differentially private low rank approximation.
    SODA 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import IterativeEigenCovariance
    >>> scales = np.array([1.0, 0.5, 0.25])
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(20000, 3)) * scales
    >>> est = IterativeEigenCovariance(epsilon=5.0, random_state=0).fit(X)
    >>> np.diag(est.covariance_).round(2)
    array([0.08, 0.02, 0.01])
    >>> print(est.privacy_spent_)
    5-DP (pure)
    """

    _parameter_constraints: dict = {
        **BasePrivateCovariance._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "update": [StrOptions({"project", "deflate"})],
        "budget_split": [StrOptions({"uniform", "adaptive"})],
        "em_coefficient": [Interval(Real, 0, 0.5, closed="right")],
        "eigenvalue_share": SHARE,
        "eigenvalue_projection": [StrOptions({"simplex", "clip"})],
        "beta": [Interval(Real, 0, 1, closed="neither")],
    }
    _notions = ("pure", "zcdp")
    _default_budget = PrivacyCost.pure(1.0)
    _psd_release = True

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        n_components=None,
        update="project",
        budget_split="adaptive",
        em_coefficient=0.25,
        eigenvalue_share=0.5,
        eigenvalue_projection="simplex",
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
        self.n_components = n_components
        self.update = update
        self.budget_split = budget_split
        self.em_coefficient = em_coefficient
        self.eigenvalue_share = eigenvalue_share
        self.eigenvalue_projection = eigenvalue_projection
        self.beta = beta

    def _check_parameters(self, X):
        if self.n_components is not None and self.n_components > X.shape[1]:
            raise ValueError(
                f"n_components={self.n_components} is more than the "
                f"{X.shape[1]} features of X."
            )

    def _release(self, data, budget, rng):
        return self._release_at_norm_bound(
            iterative_eigen_covariance,
            data,
            budget,
            rng,
            n_components=self.n_components,
            update=self.update,
            budget_split=self.budget_split,
            em_coefficient=self.em_coefficient,
            eigenvalue_share=self.eigenvalue_share,
            eigenvalue_projection=self.eigenvalue_projection,
            beta=self.beta,
        )
