"""A private box per feature: a releasing transformer (docs/algorithms.rst §18.3).

``fit`` spends its own budget: for every feature j two private quantiles of the
column x_·j on a public signed grid (§18.1), by the library's exact exponential
mechanism (:func:`skprivcov.mechanisms._quantile.private_quantile`);
``transform`` maps [lower_j, upper_j] onto [−1, 1] and clips, public
post-processing of the two releases, applied to rows the caller holds: with
``nonfinite="raise"`` it refuses a non-finite entry (a refusal about the rows
given, in no private fit); inside a pipeline's fit the training rows go
through ``fit_transform``, which refuses nothing after its own fit.
"""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from skprivcov._compat import fit_context
from skprivcov._data import (
    as_numeric,
    check_public,
    check_training_rows,
    feature_counts,
    is_spark_dataframe,
    spark_refusal,
)
from skprivcov._fit import (
    BUDGET,
    DELTA,
    NOISE,
    NONFINITE,
    RELEASE_SEED,
    estimator_budget,
)
from skprivcov.base import PrivateFitMixin, Release
from skprivcov.mechanisms import NORM_RANGE, private_box, quantile_epsilon, signed_grid
from skprivcov.preprocessing._base import _nonfinite_rows_as_nan
from skprivcov.privacy import (
    BudgetPart,
    PrivacyAccountant,
    PrivacyCost,
)

__all__ = ["PrivateFeatureScaler"]

# The step of the private part (one for all 2·d quantiles, §18.1).
QUANTILE_STEP = "feature quantiles"


class PrivateFeatureScaler(
    PrivateFitMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Scale each feature into [−1, 1] by a private box, inside a budget.

    ``fit`` spends its own budget (it charges ``accountant`` and records
    ``privacy_spent_``): for every feature j, two private quantiles (by
    default the 2% and 98% ones) of the column on a public signed grid
    (docs/algorithms.rst §18.1, §18.3), by the exact exponential mechanism.
    ``transform`` maps [``lower_[j]``, ``upper_[j]``] affinely onto [−1, 1]
    and clips: every output row then has norm at most √d, and the downstream
    private estimator needs no knowledge of the features' scales. Transforming
    is post-processing of the two releases: it reads only the rows it is
    given, and refuses a non-finite entry (``nonfinite="raise"``) or passes
    its row on as a row of NaN (``nonfinite="zero"``).

    Parameters
    ----------
    rho : float, default=None
        The ρ-zCDP budget of the fit. Give ``rho``, or ``epsilon`` (with optional
        ``delta``); neither: ρ = 0.1.

    epsilon : float, default=None
        Pure ε-DP budget (with ``delta`` None or 0), or the ε of an (ε, δ)
        target with ``delta > 0`` (then spent as the largest ρ that meets it).

    delta : float, default=None
        The δ of an (ε, δ) target.

    quantiles : tuple (low, high), default=(0.02, 0.98)
        The quantile levels of the box, 0 < low < high < 1 (public).

    bound_range : tuple (low, high), default=(2**-32, 2**32)
        The public range of the magnitudes on the grid: candidates are 0 and
        ±low·2^{k/4} up to the first at or above high. Narrow it when you know
        more: a shorter grid costs less rank error.

    nonfinite : {"raise", "zero"}, default="raise"
        What a row with a NaN, infinite or non-number entry does in ``fit``:
        refuse the fit (after the charge: the budget is spent) or count as a
        row of zeros. In ``transform`` and ``inverse_transform`` (rows the
        caller holds, not the training rows): refuse them with ValueError, or
        map such a row to a row of NaN, for the next estimator's own
        ``nonfinite`` rule (give ``"zero"`` to a scaler whose ``transform``
        feeds training rows to another private fit, e.g. a fitted scaler
        frozen in a pipeline: a refusal there would come before that fit's
        charge).

    noise : {"hardened", "float"}, default="hardened"
        The source of the words of the sampler: the OS CSPRNG (hardened,
        unseeded) or the seeded generator. The choice is exact on both.

    random_state : int or None, default=None
        None: fresh OS entropy every fit. An int makes fits reproducible (and
        two fits with the same int make the same choice).

    accountant : PrivacyAccountant, default=None
        Charged once per fit, before any value of X is read.

    Attributes
    ----------
    lower_ : ndarray of shape (`n_features_in_`,)
        The private lower quantile of each feature (a grid point).

    upper_ : ndarray of shape (`n_features_in_`,)
        The private upper quantile of each feature, above ``lower_``. Both are
        the outer edges of the chosen grid cells (post-processing; a pair
        chosen in the wrong order is swapped).

    privacy_spent_ : PrivacyCost
        The budget charged.

    privacy_parts_ : tuple of BudgetPart
        One part, ``"feature quantiles"``: the 2·d quantiles, each at
        1/(2d) of the budget (sequential composition on the same rows).

    n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    FeatureBoundsScaler : The same map with public bounds, at no cost.

    Notes
    -----
    Utility: with probability at least 1 − β each quantile's rank is within
    2·ln(K/β)/ε_j rows of its target, with ε_j = ε/(2d) (pure) or √(8ρ/(2d))
    (zCDP), K the grid's size (515 by default); the target ranks q·n are moved
    inward to at least that many rows from either end (a public rule, see
    ``target_ranks``), so with little budget or few rows the box is that of
    less extreme quantiles. Fitting the scaler and the estimator
    after it on the same rows is sequential composition: a pipeline spends
    the sum (:func:`skprivcov.privacy.pipeline_spent`). Sparse input is
    refused (the affine map does not keep zeros); dask arrays are counted
    block by block.

    Non-finite values (docs/algorithms.rst §13.2): a pipeline's fit passes
    the training rows through ``fit_transform``, whose fit, after its charge,
    either refuses them (``"raise"``) or counts them as zeros (``"zero"``);
    its transform then refuses nothing, and a row that is not finite comes
    out as a row of NaN, for the next estimator's rule after that
    estimator's charge. ``transform`` alone is for rows the caller holds
    (test rows, new rows): it refuses them under ``"raise"``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.preprocessing import PrivateFeatureScaler
    >>> X = np.random.default_rng(0).normal(100.0, 10.0, size=(2000, 2))
    >>> scaler = PrivateFeatureScaler(rho=1.0, random_state=0).fit(X)
    >>> bool(np.all(scaler.lower_ < 100) and np.all(scaler.upper_ > 100))
    True
    >>> print(scaler.privacy_spent_)
    1-zCDP
    """

    _parameter_constraints: dict = {
        "rho": BUDGET,
        "epsilon": BUDGET,
        "delta": DELTA,
        "quantiles": [tuple],
        "bound_range": [tuple],
        "nonfinite": NONFINITE,
        "noise": NOISE,
        "random_state": RELEASE_SEED,
        "accountant": [PrivacyAccountant, None],
    }
    _notions = ("pure", "zcdp")
    _default_budget = PrivacyCost.zcdp(0.1)
    # fit reads X only through the counting pass of ``_stats``
    # (feature_counts), which a Spark DataFrame runs in its partitions
    # (docs/clusters.rst); transform refuses it.
    _spark_input = True

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        quantiles=(0.02, 0.98),
        bound_range=NORM_RANGE,
        nonfinite="raise",
        noise="hardened",
        random_state=None,
        accountant=None,
    ):
        self.rho = rho
        self.epsilon = epsilon
        self.delta = delta
        self.quantiles = quantiles
        self.bound_range = bound_range
        self.nonfinite = nonfinite
        self.noise = noise
        self.random_state = random_state
        self.accountant = accountant

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # With nonfinite="raise" (the default), fit refuses NaN after the
        # charge and transform refuses it in the rows it is given.
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.non_deterministic = False
        return tags

    def fit_cost(self):
        """What one fit will spend, from the parameters alone (no data).

        Returns
        -------
        cost : PrivacyCost
            The cost of one fit.
        """
        return estimator_budget(self)

    def _check_public_parameters(self):
        """(q_low, q_high, grid) from the public parameters; no data read."""
        quantiles = self.quantiles
        if len(quantiles) != 2 or not all(
            isinstance(q, Real) and not isinstance(q, bool) for q in quantiles
        ):
            raise ValueError(
                f"quantiles must be two numbers (low, high); got {quantiles!r}."
            )
        low, high = (float(q) for q in quantiles)
        if not 0.0 < low < high < 1.0:
            raise ValueError(
                f"quantiles must satisfy 0 < low < high < 1; got {quantiles!r}."
            )
        bound_range = self.bound_range
        if len(bound_range) != 2 or not all(
            isinstance(b, Real) and not isinstance(b, bool) for b in bound_range
        ):
            raise ValueError(
                f"bound_range must be two numbers (low, high); got {bound_range!r}."
            )
        small, large = (float(b) for b in bound_range)
        # The safe range of a norm bound (skprivcov._fit._constraints), and at most
        # 2^12 candidates per sign.
        if not (1e-30 <= small < large <= 1e30 and math.log2(large / small) <= 1024):
            raise ValueError(
                "bound_range must satisfy 1e-30 <= low < high <= 1e30; got "
                f"{bound_range!r}."
            )
        return low, high, signed_grid((small, large))

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose the private box of every feature.

        Parameters
        ----------
        X : {array-like, dask array, Spark DataFrame} of shape (n_samples, \
n_features)
            Training data. Its values are read after the budget is charged;
            see ``nonfinite``. A Spark DataFrame is counted in its partitions
            (docs/clusters.rst); ``transform`` then takes rows you hold.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted transformer.
        """
        return self._fit_privately(X)

    # The hooks of the fit template (skprivcov.base.PrivateFitMixin).

    def _check_public(self, X, y):
        X = check_public(
            self,
            X,
            reset=True,
            accept_sparse=False,
            ensure_min_features=1,
            accept_spark=self._spark_input,
        )
        return X, *self._check_public_parameters()

    def _open(self, facts, cost, rng):
        X, q_low, q_high, grid = facts
        X = as_numeric(X)
        counts = feature_counts(X, grid, nonfinite=self.nonfinite)
        return X.shape, counts, (q_low, q_high), grid

    def _release(self, data, budget, rng):
        (n_samples, n_features), counts, quantiles, grid = data
        # 2d quantiles on the same rows compose (§18.1): each gets 1/(2d).
        epsilon = quantile_epsilon(budget.scaled(1.0 / (2 * n_features)))
        lower = np.empty(n_features)
        upper = np.empty(n_features)
        for j in range(n_features):
            lower[j], upper[j] = private_box(
                counts[j], grid, quantiles, n_samples, epsilon, rng
            )
        parts = (BudgetPart(QUANTILE_STEP, budget),)
        return Release(None, parts, extras={"lower_": lower, "upper_": upper})

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then map X: the training rows, as a pipeline's fit passes them on.

        The fit applies ``nonfinite`` to the rows after its charge (refuses
        them, or counts a bad row as zeros); the map then refuses nothing (a
        refusal there would come before the next estimator's charge): a row
        with a non-finite entry comes out as a row of NaN, for the next
        estimator's own rule. Otherwise ``fit(X).transform(X)``.

        A Spark DataFrame is refused before anything is charged: the mapped
        rows are the rows themselves (fit on it, then transform rows you
        hold, or apply ``lower_`` and ``upper_`` in Spark).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training data.
        y : Ignored
            Not used, present for API consistency by convention.
        **fit_params : dict
            Passed to :meth:`fit`.

        Returns
        -------
        X_out : ndarray of shape (n_samples, n_features)
            The mapped data, in [−1, 1] (a row of NaN for a row that is not
            finite, with ``nonfinite="zero"``).
        """
        if is_spark_dataframe(X):
            raise spark_refusal(
                type(self).__name__, reason="fit_transform returns the rows mapped"
            )
        # The training rows, after the fit's charge: the fit has applied the
        # nonfinite rule to them (refused, or counted as zeros); the map
        # refuses none of them (a refusal here would come before the next
        # estimator's charge), a row that is not finite coming out as NaN.
        self.fit(X, y, **fit_params)
        return self._map(self._validate_rows(X))

    def _validate_rows(self, X):
        check_is_fitted(self, ("lower_", "upper_"))
        return check_training_rows(self, X, reset=False, accept_sparse=False)

    def _held_rows(self, X, method):
        """Rows the caller holds, validated; refused if one is not finite
        under ``nonfinite="raise"``. The message names no value."""
        X = self._validate_rows(X)
        if self.nonfinite == "raise" and not np.isfinite(X).all():
            raise ValueError(
                f"{type(self).__name__}.{method}: X contains NaN or infinity (or "
                "an entry that is not a number). Remove or impute those rows, or "
                "give nonfinite='zero' to map such a row to a row of NaN instead."
            )
        return X

    def transform(self, X):
        """Map each feature's box onto [−1, 1] and clip.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data: rows the caller holds (in a pipeline's fit, the
            training rows go through ``fit_transform`` instead).

        Returns
        -------
        X_out : ndarray of shape (n_samples, n_features)
            In the dtype of X (float32 or float64). With
            ``nonfinite="zero"``, a row with a non-finite entry comes out as a
            row of NaN (for the next estimator's ``nonfinite`` rule).

        Raises
        ------
        ValueError
            With ``nonfinite="raise"`` (the default), if X holds a NaN,
            infinite or non-number entry.
        """
        return self._map(self._held_rows(X, "transform"))

    def _map(self, X):
        """The box's affine map onto [−1, 1], clipped; a row that is not
        finite comes out as a row of NaN. X is validated."""
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
        with np.errstate(all="ignore"):
            X64 = np.asarray(X, dtype=np.float64)
            out = 2.0 * (np.clip(X64, self.lower_, self.upper_) - self.lower_)
            out = out / (self.upper_ - self.lower_) - 1.0
            out = np.clip(out, -1.0, 1.0).astype(dtype, copy=False)
            return _nonfinite_rows_as_nan(X, out)

    def inverse_transform(self, X):
        """Map [−1, 1] back onto each feature's box (the affine inverse).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data in [−1, 1].

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The data mapped back onto the boxes. With ``nonfinite="zero"``, a
            row with a non-finite entry comes out as a row of NaN.

        Raises
        ------
        ValueError
            With ``nonfinite="raise"`` (the default), if X holds a NaN,
            infinite or non-number entry.
        """
        X = self._held_rows(X, "inverse_transform")
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
        with np.errstate(all="ignore"):
            X64 = np.asarray(X, dtype=np.float64)
            out = self.lower_ + (X64 + 1.0) * ((self.upper_ - self.lower_) / 2.0)
            return _nonfinite_rows_as_nan(X, out.astype(dtype, copy=False))
