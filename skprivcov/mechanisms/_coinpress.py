"""CoinPress: private mean and covariance of Gaussian-like data (§18.4).

Biswas, Dong, Kamath and Ullman, "CoinPress: Practical Private Mean and
Covariance Estimation", NeurIPS 2020 (arXiv:2006.06618). The reference code
(twistedcubic/coin-press) was read for the structure of a step; nothing here
is copied from it.

The mechanism never sees a row: it receives the passes over the data as
functions (``CoinPressPasses``), each returning a statistic of rows that the
pass has brought into the unit ball, and it draws every noise itself, on the
path its generator asks for (hardened by default, §17).

Covariance (MVCRec, the paper's Algorithm 2, with a private first scale)
-----------------------------------------------------------------------
The rows y_i are the data rows (``assume_centered=True``) or the differences
of disjoint pairs, y_i = (x_{2i} − x_{2i+1})/√2 ~ N(0, Σ) whatever μ is
(m = ⌊n/2⌋ of them; the pairs are formed by a data-independent random
permutation). The state is a whitening A (d × d, in the data's units) and a
clipping radius r in whitened units. Step t, at budget ρ_t:

1. z_i = clip(A y_i, r)/r (unit ball); S_t = (1/m) Σ z_i z_iᵀ.
2. S̃_t = S_t + N, N a symmetric Gaussian with σ_t = 1/(m√ρ_t) on and above the
   diagonal: the Frobenius sensitivity of S_t is √2/m (§0.2: replacing one
   x changes one y, hence one z, and ‖zzᵀ − z'z'ᵀ‖_F ≤ √2 in the unit
   ball), σ = Δ/√(2ρ_t) gives ρ_t-zCDP (BS16 Prop. 1.6).
3. Ĉ_t = r²·S̃_t estimates the whitened second moment A Σ Aᵀ (clipping aside).
   If t < T: U = Ĉ_t⁺ + η_t I, with η_t the sampling allowance
   (2√(d/m) + d/m)·‖Ĉ_t⁺‖ (the noise's positive part stays in Ĉ_t⁺);
   A ← U^{−1/2} A, r ← min(γ(d, β'), r/√λ_min(U)): the Gaussian tail radius
   (§0.3; under U ⪰ AΣAᵀ a whitened row lies within it with probability
   ≥ 1 − β'), but never beyond the reach of the old region {‖Ay‖ ≤ r} in
   the new coordinates, so that where the noise swamps the whitened scale
   (U ≈ (1 + η)I) the region does not grow from step to step [choice;
   issue 33].
4. At t = T: Σ̂ = A^{−1} Ĉ_T A^{−T}, its eigenvalue floor the typical
   spectral norm r²σ_T·2√d of the noise (§15's level), mapped to the data's
   units along the best-resolved direction (÷‖A‖²).

The first step clips at the public ``norm_bound`` B (A = I/B, r = 1), or at a
private high quantile of ‖y_i‖ on a public log-grid (§18.1, the exponential
mechanism, "covariance scale"), which replaces the paper's public upper
bound κ on Σ.

Mean (MVMRec, the paper's Algorithm 1, in the coordinates of Σ̂)
----------------------------------------------------------------
With W = Σ̂^{−1/2} (eigenvalues floored at a public floor) and centre c
(the public ``center``, 0 by default), step t at budget ρ_t:

1. z_i = clip(W(x_i − c), r)/r; v = (1/n) Σ z_i.
2. ṽ = v + N(0, σ_t² I) with σ_t = 2/(n√(2ρ_t)): the ℓ2 sensitivity of v is
   2/n (‖z − z'‖ ≤ 2), BS16 Prop. 1.6.
3. c ← c + W^{−1}(r·ṽ); the new radius of the ball around the mean is
   √(1/n + (rσ_t)²)·γ(d, β) (sampling plus noise), and the next clip radius
   covers the points around it: r ← r_mean + γ(d, β/n).

The first radius is the public ``radius`` R (‖μ − c‖ ≤ R in the data's
units, whitened: R·‖W‖ + γ), or a private high quantile of ‖W(x_i − c)‖
("mean scale").

Privacy: every step is ρ_t-zCDP given the outputs of the earlier steps (its
transformation A, W, c, r is post-processing of them and of public values),
so the whole is Σρ_t-zCDP by adaptive composition (BS16 Lemma 2.3); the
quantile steps are ε-DP with ε = √(8ρ_t) (ε²/8-zCDP, §18.1).
"""

import math
from typing import NamedTuple

import numpy as np
from scipy import linalg

from skprivcov.mechanisms._quantile import norm_grid, private_norm_bound
from skprivcov.mechanisms._splits import split_budget
from skprivcov.mechanisms.noise._hardened import (
    gram_error_bound,
)
from skprivcov.mechanisms.noise._source import noisy_second_moment, noisy_vector

__all__ = [
    "CoinPressPasses",
    "coinpress",
    "covariance_step_scale",
    "mean_step_scale",
    "tail_radius",
]

# The smallest eigenvalue of a whitening step's U, relative to the whitened
# scale 1 (public): bounds ‖A‖ so that no transformation can overflow.
_SMALLEST_SHRINK = 2.0**-40
# The per-row failure probability of the clipping radii [choice, measured]:
# the reference code's 0.1 for the covariance (the Laurent–Massart radius is
# loose: far fewer than 10% of Gaussian rows lie beyond it) and 0.01 for the
# mean. Radii for all m rows at once (β/m) doubled the noise (r² ∝ log m) and
# measured worse (benchmarks/bench_coinpress.py).
ROW_BETA_COVARIANCE = 0.1
ROW_BETA_MEAN = 0.01


class CoinPressPasses(NamedTuple):
    """The passes over the (charged) data that CoinPress makes.

    The estimator builds them on the rows (each call one pass of the library's
    statistics); :func:`coinpress` reads the data only through them.

    Parameters
    ----------
    n_covariance : int
        The number m of rows y_i of the covariance steps (public).
    n_mean : int
        The number n of rows of the mean steps (public).
    scale_counts : callable(grid) -> counts
        The counts c_k = #{i : ‖y_i‖ ≤ grid[k]}.
    second_moment : callable(A, r) -> (m×m... d×d) array
        (1/m) Σ z zᵀ for z = clip(A y_i, r)/r, by the library's statistics
        pass: an exact statistic (docs/algorithms.rst §19).
    centre_counts : callable(W, c, grid) -> counts
        The counts c_k = #{i : ‖W(x_i − c)‖ ≤ grid[k]}.
    mean : callable(W, c, r) -> array
        (1/n) Σ z for z = clip(W(x_i − c), r)/r.
    centred_second_moment : callable(A, c, r) -> array
        (1/n) Σ z zᵀ for z = clip(A(x_i − c), r)/r.

    See Also
    --------
    coinpress : The mechanism that makes the passes.

    Examples
    --------
    >>> from skprivcov.mechanisms import CoinPressPasses
    >>> passes = CoinPressPasses(100, 100, None, None, None, None, None)
    >>> passes.n_covariance
    100
    """

    n_covariance: int
    n_mean: int
    scale_counts: object
    second_moment: object
    centre_counts: object
    mean: object
    centred_second_moment: object


def tail_radius(d, beta):
    """γ(d, β) = √(d + 2√(d·log(1/β)) + 2·log(1/β)): ‖g‖ ≤ γ with probability
    ≥ 1 − β for g ~ N(0, C), C ⪯ I_d (Laurent–Massart 2000, Lemma 1; §0.3)."""
    log = math.log(1.0 / beta)
    return math.sqrt(d + 2.0 * math.sqrt(d * log) + 2.0 * log)


def covariance_step_scale(n_rows, rho):
    """σ of a covariance step's noise at unit scale: Δ/√(2ρ) with the
    Frobenius sensitivity Δ = √2/m of the second moment of m unit-ball rows
    (§0.2), i.e. 1/(m√ρ)."""
    return math.sqrt(2.0) / n_rows / math.sqrt(2.0 * rho)


def mean_step_scale(n_rows, rho):
    """σ of a mean step's noise at unit scale: Δ/√(2ρ) with the ℓ2 sensitivity
    Δ = 2/n of the mean of n unit-ball rows (replace-one: ‖z − z'‖ ≤ 2)."""
    return 2.0 / n_rows / math.sqrt(2.0 * rho)


def _noisy_second_moment(matrix, n_rows, part, rng, site):
    """S + symmetric Gaussian noise at ``part``'s ρ, √2/m sensitivity (§0.2):
    σ = :func:`covariance_step_scale`."""
    sensitivity = math.sqrt(2.0) / n_rows
    return noisy_second_moment(matrix, n_rows, sensitivity, part.cost, rng, site=site)


def _noisy_mean(mean, n_rows, part, rng):
    """v + N(0, σ²I) at ``part``'s ρ, ℓ2 sensitivity 2/n: σ =
    :func:`mean_step_scale`. The pass's mean is an exact statistic (§19); a
    float one would be within the Gram bound of it in ℓ2."""
    return noisy_vector(
        mean,
        2.0 / n_rows,
        part.cost,
        rng,
        site="mean",
        statistic_error=gram_error_bound(n_rows, mean.size),
    )


def _psd(matrix):
    values, vectors = linalg.eigh(matrix, check_finite=False)
    return values, vectors


def _steps(parts, prefix):
    return [part for part in parts if part.step.startswith(prefix)]


def coinpress(
    passes,
    budget,
    rng,
    *,
    n_features,
    centred,
    n_covariance_steps,
    n_mean_steps,
    norm_bound,
    radius,
    center,
):
    """Mean and covariance by CoinPress (module docstring).

    Parameters
    ----------
    passes : CoinPressPasses
        The only access to the data.
    budget : PrivacyCost
        A zCDP budget, spent in full, split by ``SPLITS["coinpress"]``.
    rng : numpy.random.Generator
        ``release_generator``'s: the path (hardened or float) and the noise.
    n_features : int
        The dimension d.
    centred : bool
        Whether the mean is known to be ``center`` (no mean steps; the
        covariance steps read the rows themselves).
    n_covariance_steps, n_mean_steps : int
        T of each estimator (≥ 1).
    norm_bound : float or "auto"
        The first covariance step's clipping bound on ‖y_i‖, or a private one.
    radius : float or "auto"
        Public R ≥ ‖μ − center‖ in the data's units, or a private first radius.
    center : ndarray of shape (n_features,)
        The public centre c₀.

    Returns
    -------
    covariance : ndarray of shape (d, d)
        The private covariance.
    location : ndarray of shape (d,)
        The private mean (``center`` if ``centred``).
    parts : tuple of BudgetPart
        The parts of the budget spent.
    norm_bound : float
        The first covariance step's bound (public, or the private quantile).
    floor : float
        The public floor of the release's eigenvalues (its noise level).
    """
    d = n_features
    parts = split_budget(
        "coinpress",
        budget,
        centred=centred,
        n_covariance_steps=n_covariance_steps,
        n_mean_steps=n_mean_steps,
        scale_auto=norm_bound == "auto",
        radius_auto=radius == "auto",
    )
    by_name = {part.step: part for part in parts}
    grid = norm_grid()
    m = passes.n_covariance
    n = passes.n_mean
    centre = np.array(center, dtype=float)

    # The first scale: public, or a private high quantile of ‖y_i‖ (§18.2).
    if norm_bound == "auto":
        part = by_name["covariance scale"]
        bound = private_norm_bound(passes.scale_counts(grid), grid, m, part.cost, rng)
    else:
        bound = float(norm_bound)

    # Covariance steps (MVCRec): all but the last shrink the ellipsoid, on
    # the rows y_i (the rows, or the pair differences).
    steps = _steps(parts, "covariance step")
    site = "second moment" if centred else "pair second moment"
    whitening = np.eye(d) / bound
    clip = 1.0
    reach = math.inf
    for part in steps[:-1]:
        moment = passes.second_moment(whitening, clip)
        estimate = clip**2 * _noisy_second_moment(moment, m, part, rng, site)
        values, vectors = _psd(estimate)
        values = np.maximum(values, 0.0)
        # η: the sampling error of a second moment of m Gaussian rows,
        # relative (2√(d/m) + d/m, the paper's η). The noise is not added
        # again: its positive part stays in Ĉ⁺ [choice, as the reference
        # code; adding a bound on its operator norm (§0.3 ν) as well stalled
        # the shrinking, 8× to 200× worse, benchmarks/bench_coinpress.py].
        eta = (2.0 * math.sqrt(d / m) + d / m) * float(values.max(initial=0.0))
        eta = max(eta, _SMALLEST_SHRINK)
        upper = values + eta
        whitening = ((vectors / np.sqrt(upper)) @ vectors.T) @ whitening
        # The next radius: the Gaussian tail γ, but never beyond the reach
        # r/√min(U) of this step's region {‖Ay‖ ≤ r} in the new coordinates
        # [choice; issue 33] (at the reach, the new region just holds the
        # old one). Where the noise r²σ_t·2√d exceeds the whitened scale
        # (few rows for d: n = 357, d = 30 at ρ = 1), U ≈ (1 + η)I and
        # γ ≈ √d alone grew the region at every step (300× the covariance on
        # breast cancer, benchmarks/bench_envelope_auc.py); with many rows
        # min(U) ≈ η and the reach exceeds γ (the paper's step, unchanged).
        reach = clip / math.sqrt(float(upper.min()))
        sigma = covariance_step_scale(m, part.cost.rho)
        clip = min(_row_radius(d, ROW_BETA_COVARIANCE, sigma), reach)

    if not centred:
        # Mean steps (MVMRec) in the coordinates of the current ellipsoid
        # (its whitening A; public: a function of released values).
        centre = _mean_steps(
            passes, parts, by_name, whitening, centre, radius, grid, d, n, rng
        )

    # The last covariance step: with the mean, on the n rows x_i − ĉ around
    # the private mean (all rows: half the noise of the pairs'), else on y.
    last = steps[-1]
    rows = m if centred else n
    sigma = covariance_step_scale(rows, last.cost.rho)
    if len(steps) > 1:
        clip = min(_row_radius(d, ROW_BETA_COVARIANCE, sigma), reach)
    if centred:
        moment = passes.second_moment(whitening, clip)
    else:
        moment = passes.centred_second_moment(whitening, centre, clip)
    last_site = "second moment"
    estimate = clip**2 * _noisy_second_moment(moment, rows, last, rng, last_site)
    # Its negative eigenvalues set to 0 (a projection in the whitened
    # metric), back in the data's units.
    values, vectors = _psd(estimate)
    values = np.maximum(values, 0.0)
    root = np.linalg.inv(whitening) @ (vectors * np.sqrt(values))
    covariance = root @ root.T
    covariance = (covariance + covariance.T) / 2.0
    # The eigenvalue floor of the release: the last step's noise level in
    # whitened units, in the data's units along the best-resolved direction
    # (public values and the released whitening), and never below 2^−80 of
    # the largest eigenvalue or 2^−900. The level is the typical spectral
    # norm 2√d·σ of the noise, as every estimator's floor (§15,
    # ``noise_level``) [choice; issue 33]: the high-probability bound ν(d, β)
    # of §0.3 (4.3× that at d = 30) floored away the directions that the
    # breast cancer envelope needs (median AUC 0.953 against 0.97,
    # benchmarks/bench_envelope_auc.py).
    floor = clip**2 * sigma * 2.0 * math.sqrt(d)
    floor /= float(np.linalg.norm(whitening, 2)) ** 2
    top = float(np.linalg.eigvalsh(covariance).max(initial=0.0))
    floor = max(floor, top * 2.0**-80, 2.0**-900)
    return covariance, centre, parts, bound, floor


def _row_radius(d, beta, sigma):
    """The clipping radius of a step: γ(d, β'), β' = min(β, 10·d·σ) for the
    step's noise σ at unit scale [choice]: a larger radius when the noise is
    small, where clipping a row would cost more than its noise (at a huge
    budget nothing Gaussian-like is clipped)."""
    return tail_radius(d, min(beta, max(10.0 * d * sigma, 2.0**-60)))


def _mean_steps(passes, parts, by_name, whitening, centre, radius, grid, d, n, rng):
    """MVMRec: the private mean in the coordinates z = A(x − c)."""
    unwhitening = np.linalg.inv(whitening)
    if radius == "auto":
        part = by_name["mean scale"]
        counts = passes.centre_counts(whitening, centre, grid)
        clip = private_norm_bound(counts, grid, n, part.cost, rng)
    else:
        clip = float(radius) * float(np.linalg.norm(whitening, 2)) + tail_radius(
            d, ROW_BETA_MEAN
        )
    for part in _steps(parts, "mean step"):
        mean = passes.mean(whitening, centre, clip)
        noisy = _noisy_mean(mean, n, part, rng)
        centre = centre + unwhitening @ (clip * noisy)
        sigma = mean_step_scale(n, part.cost.rho)
        point = _row_radius(d, ROW_BETA_MEAN, sigma)
        ball = math.sqrt(1.0 / n + (clip * sigma) ** 2) * point
        # Rows within γ of a mean within `ball` of the centre (the reference
        # code's radius, with 3 for √(2 log(2/β))).
        clip = min(math.sqrt(ball**2 + 6.0 * ball + point**2), ball + point)
    return centre
