"""AutoCovariance: the mechanism chosen for the regime, from public values and
one cheap private statistic."""

import math
from fractions import Fraction

import numpy as np

from skprivcov._data import (
    CONSTANT_SQUARE,
    CONSTANT_WEIGHT,
    FEATURE_SQUARE,
    FEATURE_WEIGHT,
    augment,
)
from skprivcov._fit import fill_shared_docs
from skprivcov.base import Release
from skprivcov.covariance._adaptive import AdaptiveCovariance
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.covariance._nuclear import NuclearLaplaceCovariance
from skprivcov.mechanisms import (
    gaussian_scale,
    laplace_scale,
    noise_level,
    private_shrinkage,
    private_trace_upper_bound,
    second_moment_nuclear_sensitivity,
    split_budget,
    trace_sensitivity,
)
from skprivcov.mechanisms.noise import gram_error_bound
from skprivcov.privacy import MCMC_NOISE, BudgetPart, compose_parts

__all__ = ["AutoCovariance", "choice_noise_level", "choose_mechanism"]

# The rule's constants (docs/algorithms.rst §3.9), set from the measurements of
# benchmarks/bench_auto.py: release nothing when the noise level of the choice
# (:func:`choice_noise_level`) exceeds this multiple of the trace estimate (per
# notion: the levels are of different mechanisms); under a pure budget, data of
# trace below ADAPTIVE_BELOW (rows well inside the bound) go to AdaptiveCov,
# whose threshold search clips them, and the rest to the nuclear-Laplace
# mechanism.
NOTHING_ABOVE = {"zcdp": 2.0, "pure": 0.66}
ADAPTIVE_BELOW = 0.15


def choose_mechanism(
    n_samples, n_features, budget, trace, trace_deviation=0.0, *, allow_zero=True
):
    """The mechanism AutoCovariance runs (docs/algorithms.rst §3.9).

    Parameters
    ----------
    n_samples, n_features : int
        Public.
    budget : PrivacyCost
        What the mechanism would get.
    trace : float
        A private estimate of tr Σ at unit scale (already released).
    trace_deviation : float, default=0.0
        The (public) standard deviation of that estimate's noise. The choice
        of nothing compares the noise level with the estimate minus one
        deviation, so that an estimate made of noise (few rows, tiny budget)
        leans towards releasing nothing.
    allow_zero : bool, default=True
        Whether releasing nothing is a candidate.

    Returns
    -------
    mechanism : {"zero", "adaptive", "nuclear-laplace"}
        "zero" when the noise level of ``budget`` (:func:`choice_noise_level`)
        is above ``NOTHING_ABOVE[notion]`` × ``trace`` (2 under zCDP, 0.66 under
        pure DP): then no mechanism's release is expected to beat releasing
        nothing. Otherwise AdaptiveCov under a zCDP budget; under a pure one,
        AdaptiveCov for ``trace`` below ``ADAPTIVE_BELOW`` and the
        nuclear-Laplace mechanism above.
    """
    if allow_zero and _nothing_beats(
        n_samples, n_features, budget, trace - trace_deviation
    ):
        return "zero"
    if budget.notion == "zcdp" or trace < ADAPTIVE_BELOW:
        return "adaptive"
    return "nuclear-laplace"


def choice_noise_level(n_samples, n_features, budget):
    """The noise level the choice compares with the trace (§3.9).

    Under zCDP, ``mechanisms.noise_level`` (the Gaussian mechanism's
    ‖Z‖_op ≈ 2√d·σ). Under pure DP, the symmetric nuclear-Laplace noise's
    ‖Z‖_op ≈ (π/2)·r·d, r = Δ_*/ε with Δ_* = 2/n (docs/algorithms.rst §6.4),
    about 2√d/π times smaller than the Laplace mechanism's. Public values only.
    """
    if budget.notion == "zcdp" or budget.parameter == 0:
        return noise_level(n_samples, n_features, budget)
    radius = second_moment_nuclear_sensitivity(n_samples) / budget.parameter
    return math.pi / 2 * radius * n_features


def estimate_deviation(n_samples, budget):
    """Standard deviation of the trace estimate's noise (public): the Gaussian
    σ = Δ/√(2ρ) or the Laplace √2·Δ/ε, Δ = 1/n (§3.5 step 4, §3.8)."""
    sensitivity = trace_sensitivity(n_samples)
    if budget.notion == "zcdp":
        return gaussian_scale(sensitivity, budget.rho)
    return math.sqrt(2.0) * laplace_scale(sensitivity, budget.parameter)


def _centred_trace(target, n_samples):
    """(tr C exactly as far as the float mean allows, its sensitivity factor
    f, the float error bound) for the covariance C = S − μμᵀ of the unit-ball
    rows, from the augmented target (§3.9, centred; §8.2).

    The choice of a centred release is about C, not S: on raw data far from
    the origin tr S is mostly ‖μ‖², and a choice made from it runs a
    mechanism where C is too small for one (issue 33). tr C = (1/n)Σ‖z_i‖² −
    ‖z̄‖²: replacing a row moves the first term by at most 1/n and ‖z̄‖² by
    at most 2‖z̄‖·‖δ‖ + ‖δ‖² ≤ 4/n + 4/n² (δ = the mean's change, ‖δ‖ ≤ 2/n),
    so f = 5 + 4/n. tr S is exact (``Target.trace``); the float mean μ̃ read
    from the augmented matrix is within e = ‖M̃ − M‖_F/(c_x c_0) of μ
    (``gram_error_bound``), so |‖μ̃‖² − ‖μ‖²| ≤ e(2 + e)."""
    matrix = target.matrix
    d = matrix.shape[0] - 1
    second = (target.trace - CONSTANT_SQUARE) / FEATURE_SQUARE
    mean = matrix[:d, d] / (FEATURE_WEIGHT * CONSTANT_WEIGHT)
    squared_mean = sum((Fraction(float(v)) ** 2 for v in mean), Fraction(0))
    # (+ 2^−50 for the rounding of the division by c_x c_0 itself.)
    deviation = (
        gram_error_bound(n_samples, d + 1) / (FEATURE_WEIGHT * CONSTANT_WEIGHT)
        + 2.0**-50
    )
    factor = 5 + Fraction(4, n_samples)
    return second - squared_mean, factor, deviation * (2.0 + deviation)


def _nothing_beats(n_samples, n_features, budget, trace):
    """Whether releasing nothing is expected to beat any mechanism (§3.9)."""
    level = choice_noise_level(n_samples, n_features, budget)
    return level > NOTHING_ABOVE[budget.notion] * trace


@fill_shared_docs
class AutoCovariance(BasePrivateCovariance):
    """Private covariance by the mechanism expected to be best for the data.

    Use it when unsure. It spends 1/16 of the budget on a private estimate of
    the trace of the (clipped) second moment, then chooses, from that estimate
    and public values only (n, d, the notion and size of the budget), between
    releasing nothing, AdaptiveCov and the nuclear-Laplace mechanism, and runs
    the choice with the rest of the budget (docs/algorithms.rst §3.9). The rule
    was set from measurements over DLY22's settings and scikit-learn's bundled
    datasets at ρ ∈ {0.01, 0.1, 1} and pure ε ∈ {0.5, 1, 4}
    (``benchmarks/bench_auto.py``; docs/choosing.rst). With ``allow_zero``
    (the default) the mechanism's release R is then shrunk towards zero by a
    private factor c ∈ [0, 1] (1/16 of the budget): c·R, the multiple of R
    nearest the data's covariance up to the noise of c, is expected never to
    be much worse than releasing nothing, in Frobenius error
    (docs/algorithms.rst §3.9a).

    Parameters
    ----------
    {budget_parameters}

    beta : float in (0, 1), default=0.1
        Failure probability of AdaptiveCov's utility guarantees, when it runs.

    allow_zero : bool, default=True
        Whether releasing nothing is a candidate. It is the best release of a
        covariance (in Frobenius error) when the noise would dominate, but it
        carries no direction: for uses that need directions (principal
        components; :class:`~skprivcov.decomposition.PrivatePCA` sets False)
        a noisy release's eigenvectors are never worse than an arbitrary
        basis, so False always runs a mechanism (docs/algorithms.rst §3.9).
        Under zCDP that mechanism is always AdaptiveCov: then no trace
        estimate is made and AdaptiveCov gets the whole budget.

    {release_parameters}

    Attributes
    ----------
    {fitted_attributes}

    mechanism_ : {{"zero", "adaptive", "nuclear-laplace"}}
        The mechanism chosen (a function of private outputs and public values).
        With ``assume_centered=False`` the choice is made from the trace of
        the covariance, not of the second moment (which includes the squared
        mean, and made this choice run a mechanism on data whose spread is
        small next to their mean).

    shrinkage_ : float or None
        The private shrink factor c ∈ [0, 1] the mechanism's release was
        multiplied by (a function of the release and of a noisy inner
        product with the data's statistic, docs/algorithms.rst §3.9a). None
        when no mechanism ran (``mechanism_ == "zero"``) or without the
        zero candidate (``allow_zero=False``, which keeps the release's
        directions unshrunk).

    trace_estimate_ : float or None
        The private estimate, in the units of X², that the choice was made
        from: of the trace of the second moment, or with
        ``assume_centered=False`` of the covariance it releases (its
        sensitivity is then (5 + 4/n)/n instead of 1/n; docs/algorithms.rst
        §3.9). None when no choice was needed (``allow_zero=False`` under
        zCDP).

    See Also
    --------
    AdaptiveCovariance : The zCDP choice.
    NuclearLaplaceCovariance : The pure choice on data near the bound.
    ZeroCovariance : What is released when the noise would dominate.

    Notes
    -----
    ρ-zCDP (default ρ = 0.1) or, with ``epsilon`` and ``delta`` 0 or None, pure
    ε-DP. {neighbours} The trace estimate is the Gaussian (Laplace) mechanism
    on the exact trace (sensitivity 1/n at unit scale) at 1/16 of the budget;
    the chosen mechanism gets 7/8 and publishes its own parts, and the
    shrinkage step 1/16 (the Gaussian or Laplace mechanism on ⟨R, C⟩, whose
    sensitivity given R is ‖R‖_op/n for a PSD R, or 4‖R‖_op/n for the
    covariance C of a centring fit; λ₊ + λ₋ for ‖R‖_op if R is indefinite;
    the site "shrinkage" of a noise record); "zero" leaves 15/16 unspent (still
    charged). With ``allow_zero=False`` there is no shrinkage step and the
    mechanism gets 15/16. A pure budget carries the nuclear
    mechanism's caveat, since the choice is private. The choice is
    post-processing of the estimate, so the total is the budget.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import AutoCovariance
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(5000, 3))
    >>> est = AutoCovariance(rho=1.0, random_state=0).fit(X)
    >>> est.mechanism_
    'adaptive'
    >>> print(*est.privacy_parts_, sep="\\n")
    feature cells: 0.125-zCDP
    feature means 1: 0.015625-zCDP
    feature spreads 1: 0.015625-zCDP
    feature means 2: 0.015625-zCDP
    feature spreads 2: 0.015625-zCDP
    feature means 3: 0.03125-zCDP
    feature spreads 3: 0.03125-zCDP
    norm bound: 0.046875-zCDP
    trace estimate: 0.0439453-zCDP
    trace bound: 0.0384521-zCDP
    threshold search: 0.0384521-zCDP
    final: 0.53833-zCDP
    shrinkage: 0.0439453-zCDP
    """

    _parameter_constraints: dict = {
        **BasePrivateCovariance._parameter_constraints,
        "beta": AdaptiveCovariance._parameter_constraints["beta"],
        "allow_zero": ["boolean"],
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
        beta=0.1,
        allow_zero=True,
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
        self.beta = beta
        self.allow_zero = allow_zero

    def _resolve_budget(self):
        budget = super()._resolve_budget()
        # The nuclear mechanism may run under a pure budget (a private choice).
        return budget.with_caveats((MCMC_NOISE,)) if budget.notion == "pure" else budget

    def _release(self, data, budget, rng):
        bound = self.norm_bound_
        if not self.allow_zero and budget.notion == "zcdp":
            # Nothing left to choose (§3.9): without the zero candidate a zCDP
            # budget always goes to AdaptiveCov, so no trace estimate is made
            # and the whole budget is its.
            release = self._chosen("adaptive")._release(data, budget, rng)
            extras = {
                "mechanism_": "adaptive",
                "trace_estimate_": None,
                "shrinkage_": None,
            }
            return Release(release.matrix, release.parts, release.scale, extras)
        # The shrinkage step (§3.9a) when releasing nothing is a candidate: a
        # public option, so the split is public.
        trace_part, rest, *shrink = split_budget(
            "auto", budget, shrinkage=self.allow_zero
        )
        target = data.target(bound)
        target_trace, factor, error = target.trace, 1, 0.0
        if data.augmented:
            target_trace, factor, error = _centred_trace(target, data.n_samples)
        # An estimate, not a bound: no upward shift (β = None). A statistic of
        # sensitivity f/n is estimated as f times the estimate of itself / f
        # at sensitivity 1/n (the same noise, scaled).
        scaled, _ = private_trace_upper_bound(
            target_trace / factor,
            data.n_samples,
            trace_part.cost,
            None,
            rng,
            trace_error=error / float(factor),
        )
        estimate = float(factor) * scaled
        deviation = float(factor) * estimate_deviation(data.n_samples, trace_part.cost)
        choice = choose_mechanism(
            data.n_samples,
            data.n_columns,
            rest.cost,
            estimate,
            deviation,
            allow_zero=self.allow_zero,
        )
        extras = {
            "mechanism_": choice,
            "trace_estimate_": estimate * bound**2,
            "shrinkage_": None,
        }
        if choice == "zero":
            # Built from the public shape alone: a product of the target with
            # 0.0 would keep the signs of its entries (-0.0) and publish them.
            zero = np.zeros((data.n_columns, data.n_columns))
            if data.augmented:  # the constant's entry is public
                zero[-1, -1] = float(CONSTANT_SQUARE)
            unspent = compose_parts((rest, *shrink))
            parts = (trace_part, BudgetPart("unspent (zero released)", unspent))
            return Release(zero, parts, bound, extras)
        chosen = self._chosen(choice)
        release = chosen._release(data, rest.cost, rng)
        parts = (trace_part, *release.parts, *shrink)
        if not shrink:
            return Release(release.matrix, parts, release.scale, extras)
        matrix, extras["shrinkage_"] = self._shrunk(release, data, shrink[0].cost, rng)
        return Release(matrix, parts, release.scale, extras)

    def _shrunk(self, release, data, budget, rng):
        """(the release shrunk by the private factor c of §3.9a, c): c·R for
        R the post-processed release, as a matrix the fit's post-processing
        maps to c·R (and the released mean, when centring)."""
        covariance, location = self._post_process(release.matrix)
        # The rows the chosen mechanism clipped (AdaptiveCov may clip at its
        # private threshold), at unit scale as the release is.
        target = data.target(release.scale)
        n = data.n_samples
        error = gram_error_bound(n, data.n_columns)
        if not data.augmented:
            factor = private_shrinkage(
                covariance, target.matrix, n, budget, rng, second_moment_error=error
            )
            return factor * covariance, factor
        d = data.n_columns - 1
        matrix = target.matrix
        # S̃ and μ̃ read from the augmented M̃ as ``center`` reads them, within
        # ‖M̃ − M‖_F/c_x² and ‖M̃ − M‖_F/(c_x c_0) of S and μ (+ 2^−50 for
        # the divisions' rounding), as in _centred_trace.
        second = matrix[:d, :d] / FEATURE_WEIGHT**2
        mean = matrix[:d, d] / (FEATURE_WEIGHT * CONSTANT_WEIGHT)
        factor = private_shrinkage(
            covariance,
            second,
            n,
            budget,
            rng,
            mean=mean,
            second_moment_error=error / FEATURE_WEIGHT**2 + 2.0**-50,
            mean_error=error / (FEATURE_WEIGHT * CONSTANT_WEIGHT) + 2.0**-50,
        )
        # The augmented matrix whose centring is c·R with the released mean
        # (post-processing of c and the release).
        shrunk = factor * covariance + np.outer(location, location)
        return augment(shrunk, location), factor

    def _chosen(self, choice):
        common = {
            "norm_bound": self.norm_bound_,
            "assume_centered": self.assume_centered,
            "nonfinite": self.nonfinite,
        }
        if choice == "adaptive":
            chosen = AdaptiveCovariance(beta=self.beta, **common)
        else:
            chosen = NuclearLaplaceCovariance(**common)
        # Its _release runs inside this fit, at this fit's bound.
        chosen.norm_bound_ = self.norm_bound_
        return chosen
