"""CoinPress: mean and covariance of Gaussian-like data without tight bounds."""

from numbers import Integral, Real

import numpy as np
from scipy import sparse

from skprivcov._compat import Interval, StrOptions
from skprivcov._data import (
    as_numeric,
    compute_array,
    is_dask_array,
    row_norm_counts,
    row_norms,
    unit_ball_statistics,
)
from skprivcov._fit import (
    BUDGET,
    DELTA,
    NOISE,
    NONFINITE,
    RELEASE_SEED,
    fill_shared_docs,
)
from skprivcov.base import Release
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.mechanisms import CoinPressPasses, coinpress
from skprivcov.privacy import PrivacyAccountant

__all__ = ["CoinPressCovariance"]

# A norm that overflows float64 (a finite row far out) counts above every
# candidate of the public grid (≤ 2^32): capped here, never refused.
_NORM_CAP = 2.0**1000


def _dense(X):
    """X as one C-ordered float64 array (CoinPress makes several passes with
    transformations chosen between them; it holds the data in memory)."""
    if is_dask_array(X):
        # Through compute_array: a failing block's message may quote a value
        # of X (§13.1; review of issue 34).
        X = compute_array(X)
    if sparse.issparse(X):
        X = X.toarray()
    return np.ascontiguousarray(X, dtype=np.float64)


def _transformed(first, second, matrix, centre):
    """(rows, norms): the rows y = M(x − c), or M(a − b)/√2 for pairs, as
    v = y/s with a per-row power of two s (no overflow for any finite row)
    and s, so that y = s·v. A function of each row (pair) alone."""
    peak = np.max(np.abs(first), axis=1)
    if second is not None:
        peak = np.maximum(peak, np.max(np.abs(second), axis=1))
    finite = np.isfinite(first).all(axis=1)
    if second is not None:
        finite &= np.isfinite(second).all(axis=1)
    _, exponent = np.frexp(np.where(finite, peak, 1.0))
    # s = 2^{e−1} ≥ 1 with |x/s| < 2 (e ≤ 1024, so s is finite).
    scale = np.ldexp(1.0, np.maximum(exponent - 1, 0))
    with np.errstate(invalid="ignore", over="ignore"):
        if second is None:
            units = first / scale[:, None] - centre / scale[:, None]
        else:
            units = (first / scale[:, None] - second / scale[:, None]) / np.sqrt(2.0)
        rows = units @ matrix.T
    rows[~finite] = np.nan
    return rows, scale


def _clipped(rows, scale):
    """clip(y, 1) = y/max(‖y‖, 1) = v/max(‖v‖, 1/s), for y = s·v."""
    norms = row_norms(rows)
    with np.errstate(invalid="ignore"):
        return rows / np.maximum(norms, 1.0 / scale)[:, None]


def _norms(rows, scale):
    """‖y‖ = s·‖v‖ as an (n, 1) array, capped at 2^1000 (NaN if non-finite)."""
    with np.errstate(over="ignore"):
        norms = np.minimum(row_norms(rows) * scale, _NORM_CAP)
    return norms[:, None]


class _Passes:
    """The passes of CoinPress over the charged data (docs/algorithms.rst §18.4).

    Every statistic is of rows brought into the unit ball, computed by the
    library's statistics pass (``unit_ball_statistics`` at bound 1, which
    clips again and applies the ``nonfinite`` rule: exact integer statistics,
    §19), or counts of norms (``row_norm_counts``).
    """

    def __init__(self, X, rng, *, centred, nonfinite, centre):
        self._X = X
        # The rows are taken around the public centre; pair differences
        # need none.
        self._centre = centre if centred else np.zeros(X.shape[1])
        self._nonfinite = nonfinite
        n = X.shape[0]
        if centred:
            self._first, self._second = X, None
        else:
            # Disjoint pairs of a data-independent random permutation.
            order = rng.permutation(n)
            m = n // 2
            self._first, self._second = X[order[0 : 2 * m : 2]], X[order[1 : 2 * m : 2]]

    def _y(self, matrix):
        return _transformed(self._first, self._second, matrix, self._centre)

    def scale_counts(self, grid):
        rows, scale = self._y(np.eye(self._X.shape[1]))
        return row_norm_counts(_norms(rows, scale), grid, nonfinite=self._nonfinite)

    def second_moment(self, whitening, radius):
        rows, scale = self._y(whitening / radius)
        stats = unit_ball_statistics(
            _clipped(rows, scale), 1.0, nonfinite=self._nonfinite
        )
        return stats.second_moment

    def centre_counts(self, whitening, centre, grid):
        rows, scale = _transformed(self._X, None, whitening, centre)
        return row_norm_counts(_norms(rows, scale), grid, nonfinite=self._nonfinite)

    def mean(self, whitening, centre, radius):
        rows, scale = _transformed(self._X, None, whitening / radius, centre)
        stats = unit_ball_statistics(
            _clipped(rows, scale), 1.0, with_mean=True, nonfinite=self._nonfinite
        )
        return stats.mean

    def centred_second_moment(self, whitening, centre, radius):
        rows, scale = _transformed(self._X, None, whitening / radius, centre)
        stats = unit_ball_statistics(
            _clipped(rows, scale), 1.0, nonfinite=self._nonfinite
        )
        return stats.second_moment

    def passes(self):
        return CoinPressPasses(
            self._first.shape[0],
            self._X.shape[0],
            self.scale_counts,
            self.second_moment,
            self.centre_counts,
            self.mean,
            self.centred_second_moment,
        )


@fill_shared_docs
class CoinPressCovariance(BasePrivateCovariance):
    """Private mean and covariance of Gaussian-like data by CoinPress.

    Iterative confidence regions (Biswas, Dong, Kamath and Ullman, NeurIPS
    2020; docs/algorithms.rst §18.4): each step clips the rows to the current
    confidence ellipsoid, adds Gaussian noise to the clipped statistic and
    shrinks the ellipsoid around the noisy estimate; the covariance steps
    whiten by the current estimate, so the error is affine-invariant
    (Mahalanobis). It needs only loose public facts: no bound on the data
    beyond the public grid of its private quantiles (2^−32 to 2^32 in the
    data's units), or the bounds you give.

    With ``assume_centered=False`` the covariance is estimated from the
    differences of disjoint random pairs of rows, (x_a − x_b)/√2, which have
    covariance Σ whatever the mean is, then the mean in the coordinates of
    that estimate. With ``assume_centered=True`` the rows themselves give the
    second moment and ``location_`` is ``center`` (0).

    Parameters
    ----------
    {budget_parameters}

    norm_bound : float in [1e-30, 1e30] or "auto", default="auto"
        The first covariance step's clipping bound B on ‖y‖ (y a row, or a
        pair difference): the public fact that replaces the paper's upper
        bound on Σ (tr Σ ≲ B²). "auto": a private high quantile of ‖y‖ on the
        public grid 2^−32·2^{k/4}, …, 2^32, at 1/16 of the covariance's
        budget (the part ``"covariance scale"``); published as ``norm_bound_``.

    radius : float in [1e-30, 1e30] or "auto", default="auto"
        Public R with ‖μ − center‖ ≤ R in the data's units (the paper's
        public ball around the mean). "auto": the first mean step clips at a
        private high quantile of the rows' distances to ``center`` in the
        coordinates of the covariance estimate (the part ``"mean scale"``).
        Unused with ``assume_centered=True``.

    center : array-like of shape (n_features,), default=None
        The public centre c₀ of that ball; None is the origin.

    n_covariance_steps : int in [1, 10], default=4
        T of the covariance estimator: T − 1 shrinking steps share 1/4 of its
        budget, the last step gets 3/4 (the paper's split).

    n_mean_steps : int in [1, 10], default=3
        T of the mean estimator, split the same way.

    assume_centered : bool, default=False
        If False (the default, what the paper estimates, as scikit-learn's
        ``EmpiricalCovariance``), the mean too. If True, the rows are taken to
        be centred at ``center``: only the covariance steps run, on the rows,
        and ``location_`` is ``center``.

    nonfinite : {{"raise", "zero"}}, default="raise"
        As for every estimator: a row with a non-finite entry refuses the
        data after the charge, or counts as a row of zeros (each pass applies
        the rule to the transformed row, a function of the row alone).

    noise : {{"hardened", "float"}}, default="hardened"
        Exact discrete Gaussian noise on a grid (docs/algorithms.rst §17) or
        numpy's continuous noise.

    random_state : int in [0, 2**63) or None, default=None
        The only source of the noise (and of the random pairing). None draws
        fresh OS entropy.

    accountant : PrivacyAccountant, default=None
        Charged before any value of X is read.

    Attributes
    ----------
    covariance_ : ndarray of shape (n_features, n_features)
        The private covariance (positive semi-definite).

    location_ : ndarray of shape (n_features,)
        The private mean, or ``center`` with ``assume_centered=True``.

    norm_bound_ : float
        The first covariance step's bound: ``norm_bound`` or the private one.

    eigenvalue_floor_ : float
        The floor of the eigenvalues behind ``precision_``: the final
        covariance step's noise level mapped to the data's units (public
        values and released ones).

    privacy_spent_ : PrivacyCost
        The budget charged.

    privacy_parts_ : tuple of BudgetPart
        Its split: ``"covariance scale"``, ``"covariance step 1"``, …,
        ``"mean scale"``, ``"mean step 1"``, … (``mechanisms.SPLITS``).

    n_features_in_ : int

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when X has feature names that are all strings.

    See Also
    --------
    AutoCovariance : For data in a known norm ball.

    Notes
    -----
    ρ-zCDP (default ρ = 0.1) under replace-one neighbours. A covariance step
    releases the second moment of unit-ball rows z = clip(A y, r)/r with
    symmetric Gaussian noise σ = 1/(m√ρ_t) (Frobenius sensitivity √2/m, m the
    number of rows y; replacing a row changes one pair, so one y); a mean
    step releases the mean of n unit-ball rows with N(0, σ²I), σ = 2/(n√(2ρ_t))
    (ℓ2 sensitivity 2/n). The transformations (A, r, the centre) are
    functions of earlier releases, so the steps compose adaptively to the
    sum of their parts. The utility is that of Gaussian-like data: for heavy
    tails the confidence regions can clip many rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import CoinPressCovariance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20000, 2)) * [100.0, 1.0] + [5000.0, -300.0]
    >>> est = CoinPressCovariance(rho=1.0, assume_centered=False, random_state=0)
    >>> est = est.fit(X)
    >>> np.round(est.location_, -1)
    array([5000., -300.])
    >>> print(est.privacy_spent_)
    1-zCDP
    """

    _parameter_constraints: dict = {
        "rho": BUDGET,
        "epsilon": BUDGET,
        "delta": DELTA,
        "norm_bound": [
            Interval(Real, 1e-30, 1e30, closed="both"),
            StrOptions({"auto"}),
        ],
        "radius": [Interval(Real, 1e-30, 1e30, closed="both"), StrOptions({"auto"})],
        "center": ["array-like", None],
        "n_covariance_steps": [Interval(Integral, 1, 10, closed="both")],
        "n_mean_steps": [Interval(Integral, 1, 10, closed="both")],
        "assume_centered": ["boolean"],
        "nonfinite": NONFINITE,
        "noise": NOISE,
        "random_state": RELEASE_SEED,
        "accountant": [PrivacyAccountant, None],
    }
    _psd_release = True
    # It holds the rows in memory and transforms them between its passes
    # (pairs of a random permutation of all rows, whitening by earlier
    # releases): more than the statistics passes a Spark partition runs, so a
    # Spark DataFrame is refused before the charge (docs/clusters.rst).
    _spark_input = False

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        norm_bound="auto",
        radius="auto",
        center=None,
        n_covariance_steps=4,
        n_mean_steps=3,
        assume_centered=False,
        nonfinite="raise",
        noise="hardened",
        random_state=None,
        accountant=None,
    ):
        self.rho = rho
        self.epsilon = epsilon
        self.delta = delta
        self.norm_bound = norm_bound
        self.radius = radius
        self.center = center
        self.n_covariance_steps = n_covariance_steps
        self.n_mean_steps = n_mean_steps
        self.assume_centered = assume_centered
        self.nonfinite = nonfinite
        self.noise = noise
        self.random_state = random_state
        self.accountant = accountant

    def _center(self, n_features):
        """The public centre as a finite float vector of length d."""
        if self.center is None:
            return np.zeros(n_features)
        centre = np.asarray(self.center, dtype=np.float64)
        if centre.shape != (n_features,):
            raise ValueError(
                f"center must have shape ({n_features},), got {centre.shape}."
            )
        if not np.all(np.abs(centre) <= 1e30):
            raise ValueError("center must be finite, within [-1e30, 1e30].")
        return centre

    def _check_parameters(self, X):
        """Public checks before the charge: the centre's shape and range, and
        enough rows for the pairs (two, so at least one pair)."""
        self._center(X.shape[1])
        if not self.assume_centered and X.shape[0] < 4:
            raise ValueError(
                "CoinPressCovariance with assume_centered=False needs at least "
                "4 rows (two pairs)."
            )

    def _release(self, data, budget, rng):
        """The mechanism on the charged data (``data``: the dense rows)."""
        X = data
        centre = self._center(X.shape[1])
        passes = _Passes(
            X,
            rng,
            centred=self.assume_centered,
            nonfinite=self.nonfinite,
            centre=centre,
        ).passes()
        covariance, location, parts, bound, floor = coinpress(
            passes,
            budget,
            rng,
            n_features=X.shape[1],
            centred=self.assume_centered,
            n_covariance_steps=self.n_covariance_steps,
            n_mean_steps=self.n_mean_steps,
            norm_bound=self.norm_bound,
            radius=self.radius,
            center=centre,
        )
        extras = {"location_": location, "norm_bound_": bound, "floor": floor}
        return Release(covariance, parts, 1.0, extras)

    # The hooks of the fit template (skprivcov.base.PrivateFitMixin) that
    # differ from the covariance estimators': the rows held densely, no
    # private norm bound before the mechanism (it finds its own scales).

    def _open(self, X, cost, rng):
        X = _dense(as_numeric(X))
        if self.nonfinite == "zero":
            # The public per-row rule on the rows as given (§13.2): a row with
            # a non-finite entry is a row of zeros in every pass.
            bad = ~np.isfinite(X).all(axis=1)
            if bad.any():
                X = X.copy()
                X[bad] = 0.0
        return X

    def _choose_bounds(self, data, cost, rng):
        return data, (), cost

    def _store(self, release, data, budget):
        extras = dict(release.extras)
        self._set_release(release.matrix, extras["location_"])
        self.norm_bound_ = extras["norm_bound_"]
        self.eigenvalue_floor_ = extras["floor"]
