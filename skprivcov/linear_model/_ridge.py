"""PrivateRidge: ridge regression from a released second moment."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from skprivcov._dask import compute_array, is_dask_array
from skprivcov._random import release_generator
from skprivcov._validation import as_numeric
from skprivcov.covariance import CovarianceRelease
from skprivcov.covariance._base import ReleasedCovarianceMixin
from skprivcov.covariance._release import release_of
from skprivcov.linear_model._base import BasePrivateRidge
from skprivcov.linear_model._penalty import alpha_from_noise
from skprivcov.linear_model._private_bounds import (
    bounds_generator,
    budget_parameters,
    choose_bounds,
    feature_box_affordable,
    finite_rows,
    mean_budget,
    private_target_mean,
    release_budget,
)
from skprivcov.linear_model._rows import penalty_scales
from skprivcov.linear_model._solve import fit_ridge_path
from skprivcov.privacy import PrivacyCost, check_within, compose_parts

__all__ = ["PrivateRidge"]


def as_release(covariance):
    """A CovarianceRelease from what ``PrivateRidge(covariance=...)`` accepts."""
    return release_of(covariance, "PrivateRidge", arrays=True)


def _column_index(release, column, role):
    """Position of ``column`` (an int, negative allowed, or a name) in the release."""
    n_columns = release.n_columns
    if isinstance(column, str):
        if release.feature_names is None or column not in release.feature_names:
            raise ValueError(
                f"{role} {column!r} is not a column name of the release "
                f"(names: {release.feature_names})."
            )
        return release.feature_names.index(column)
    if not -n_columns <= column < n_columns:
        raise ValueError(
            f"{role} {column} is out of range for a release of {n_columns} columns."
        )
    return int(column) % n_columns


class PrivateRidge(BasePrivateRidge):
    """Ridge regression fit from a released (private) second moment.

    With ``covariance`` given, ``fit`` reads no data values: the coefficients
    are post-processing of that release, for any target column, any feature
    subset and any ``alpha``, and ``privacy_spent_`` is zero. Without it,
    ``fit(X, y)`` first releases the second moment of the bounded rows
    ``[x, y]`` (and the constant column for the intercept) with ``estimator``,
    and that release's cost is ``privacy_spent_``.

    Parameters
    ----------
    alpha : float >= 0 or "auto", default="auto"
        Regularisation strength, per row, as in ADK19 and docs/algorithms.rst §8.1:
        the objective is (1/n) Σ ½(wᵀx − y)² + α‖w‖², so
        w = (S_xx + 2αI)⁻¹ s_xy with S the per-row second moment (centred
        when ``fit_intercept``). This equals scikit-learn's
        ``Ridge(alpha=2·n·alpha)`` on the same rows. Being per row, the same
        alpha suits training sets of any size. "auto" sets it from the privacy
        level (AdaSSP-style, docs/algorithms.rst §16): 2α = c·ℓ, ℓ the noise
        level of the release's feature block (its estimator's
        ``eigenvalue_floor_``, in the units of X: public n, d and budget times
        the release's published scale), c = 1/2; it spends
        nothing, and needs a release that states its noise level: a fitted
        skprivcov estimator, every release a fitted model publishes
        (``PrivateRidge``'s and ``PrivateRidgeCV``'s ``release_`` and
        ``fold_releases_``, ``FoldReleases``' ``release_`` and ``tokens_``),
        or a CovarianceRelease with ``noise_level``; give a number for an
        array. The value used is ``alpha_``. The default
        since issue 20: on diabetes its test MSE was below both the private
        mean's and the fixed alphas' (docs/ridge.rst).

    covariance : fitted skprivcov covariance estimator, CovarianceRelease, \
array-like of shape (n_columns, n_columns) or None, default=None
        The release to fit from. A fitted estimator (or a
        :class:`~skprivcov.CovarianceRelease`) fitted on the columns
        [features..., target...]; an array is taken as an uncentred second
        moment without a mean (so ``fit_intercept=False``; build a
        CovarianceRelease with ``mean`` for an intercept). A fitted estimator
        needs ``assume_centered=False`` for an intercept. ``clone`` keeps the
        release as it is (it is data already published, not a model to refit),
        so ``GridSearchCV`` works. None: make a release in ``fit``.

    target : int or str, default=None
        With ``covariance``: the target's column (an index, or a name if the
        release has names). Default: the last column.

    features : list of int or str, default=None
        With ``covariance``: the feature columns, in order. Default: every
        column but the target.

    fit_intercept : bool, default=True
        Fit an unpenalised intercept (docs/algorithms.rst §8.2).

    estimator : skprivcov covariance estimator, default=None
        Without ``covariance``: the (unfitted) estimator that releases the
        second moment of the bounded rows; its budget is spent, from its
        accountant if it has one (charged once, before any value of X or y is
        read). PrivateRidge fits a clone with ``norm_bound=√2``,
        ``assume_centered=not fit_intercept``, its own ``random_state`` and
        ``projection=None`` (the solver projects the joint block itself; the
        nuclear mechanism keeps its own projection). None: a
        :class:`~skprivcov.GaussianCovariance` with its default budget
        (ρ = 0.1): in our measurements (docs/ridge.rst) its test error was
        the lowest or tied for it among the Gaussian, separate, adaptive and
        projection mechanisms, and it is the cheapest to compute.

    X_norm_bound : float > 0 or "auto", default="auto"
        Without ``covariance``: public bound B on the ℓ2 norm of each row of X;
        longer rows are clipped to it. "auto" (docs/algorithms.rst §18.5): a
        private box per feature, the 2% and 98% quantiles of every column at
        1/8 of the budget (the part ``"X box"``); each feature is mapped onto
        [−1, 1] by its box (symmetric boxes without an intercept; sparse X
        whose boxes need a shift is bounded as dense rows), the model is
        ridge in those units, and ``predict`` clips
        each feature into its box. Published as ``X_norm_bound_``. When the
        budget cannot buy the boxes (a public rule of n, d and the budget),
        a model with an intercept predicts a private mean of y instead (see
        Notes).

    y_bound : float > 0, (lower, upper) or "auto", default="auto"
        Without ``covariance``: public bounds of the target; a number B means
        [−B, B]. Targets outside are clipped. "auto": the private box of the
        target's 1% and 99% quantiles at 1/8 of the budget (the part
        ``"y bound"``; §18.5), published as ``y_bound_``. Public bounds, when
        known, cost nothing and leave their shares to the release
        (docs/choosing_bounds.rst).

    random_state : int in [0, 2**63) or None, default=None
        Without ``covariance``: seeds the release (replacing the estimator's
        own ``random_state``). None draws fresh OS entropy: use it for real
        releases. A numpy Generator or RandomState is refused (``clone`` would
        copy it, and copies would share noise).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The coefficients.

    alpha_ : float
        The regularisation strength used: ``alpha``, or the one "auto" chose
        (from public values and the release's published scale only). With a
        box per feature, feature j is penalised by 2·α·(s_j/max s)² with
        α this value and s_j its box's half-width (ridge in the boxes'
        units); inf when the model predicts its private mean.

    intercept_ : float
        The intercept (0.0 without ``fit_intercept``).

    release_ : CovarianceRelease
        The release the model was fit from, with its cost, source and
        fingerprint (in the units of [X, y] when made by ``fit``). Absent
        when the model predicts its private mean.

    estimator_ : skprivcov covariance estimator
        Only when ``fit`` made the release: the fitted estimator (its
        ``covariance_`` is in the units of the bounded rows), without the
        accountant, which was charged by ``fit`` itself.

    privacy_spent_ : PrivacyCost
        Zero when fit from ``covariance``; else the cost of the release made.

    privacy_parts_ : tuple of BudgetPart
        Empty when fit from ``covariance``; else the parts of the private
        bounds ("auto": ``"X box"``, ``"y bound"``), then the release's split
        (``estimator_.privacy_parts_``); or, for the private mean,
        ``"y bound"`` and ``"y mean"``. They compose to ``privacy_spent_``.

    X_norm_bound_ : float, (lower, upper) arrays or None
        Without ``covariance``: the bound the rows of X were clipped at,
        ``X_norm_bound`` or the private boxes of "auto"; None when the model
        predicts its private mean (X is not bounded).

    y_bound_ : float or (lower, upper)
        Without ``covariance``: ``y_bound``, or the private box of "auto".

    n_features_in_ : int
        Number of features.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when known.

    See Also
    --------
    PrivateRidgeCV : Private choice of alpha by cross-validation on releases.
    skprivcov.preprocessing.RowNormClipper : Clip rows to a public bound.

    Notes
    -----
    Privacy: fitting from a release is post-processing (it reads neither X nor
    y; X, if given, only for its number of columns and their names). Fitting
    without one is exactly as private as ``estimator`` on the rows
    z = (x/max(‖x‖, B_x), (clip(y) − c)/h) with ‖z‖ ≤ √2 (neighbouring datasets
    differ in one row (x, y); n is public), after the private bounds of
    "auto" at their parts (sequential composition: the parts sum to the
    estimator's budget, charged once; docs/algorithms.rst §18.5).

    Without bounds (the defaults) the fit takes a private mean of y instead
    when n·ε_j < 4·ln(K/4), ε_j the exponential mechanism's ε of each of
    the 2d quantiles of the boxes at 1/8 of the budget and K = 515 the grid's
    candidates (a public rule: the choice reveals nothing): the target's box
    at 3/4 of the budget, the noisy mean of the clipped targets at 1/4;
    ``coef_`` is then 0 and ``intercept_`` that mean.

    The released block of the features and the target may be indefinite
    (noise). It is projected onto the PSD cone (negative eigenvalues set to
    zero) before solving, so the system is never indefinite and the fitted
    model never explains more variance than the target has (wᵀS_xx w ≤ s_yy),
    however small ``alpha`` is; a null direction with ``alpha=0`` gets the
    minimum-norm solution. Scoring this model on raw validation data (for
    example in ``GridSearchCV``) reads that data and is not private with
    respect to it; use :class:`PrivateRidgeCV` or public validation data.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.linear_model import PrivateRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(50000, 3))
    >>> y = X @ np.array([0.5, -0.25, 0.0]) + 0.1
    >>> rows = np.column_stack([X, y])
    >>> release = GaussianCovariance(
    ...     rho=1.0, norm_bound=2.0, assume_centered=False, random_state=0
    ... ).fit(rows)
    >>> model = PrivateRidge(alpha=0.0, covariance=release).fit()
    >>> model.coef_.round(2) + 0.0, round(model.intercept_, 2)
    (array([ 0.5 , -0.25,  0.  ]), 0.1)
    >>> print(model.privacy_spent_)
    0-DP (pure)
    """

    _parameter_constraints: dict = {
        **BasePrivateRidge._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "covariance": [ReleasedCovarianceMixin, CovarianceRelease, "array-like", None],
        "target": [Interval(Integral, None, None, closed="neither"), str, None],
        "features": ["array-like", None],
    }

    def __init__(
        self,
        *,
        alpha="auto",
        covariance=None,
        target=None,
        features=None,
        fit_intercept=True,
        estimator=None,
        X_norm_bound="auto",
        y_bound="auto",
        random_state=None,
    ):
        self.alpha = alpha
        self.covariance = covariance
        self.target = target
        self.features = features
        self.fit_intercept = fit_intercept
        self.estimator = estimator
        self.X_norm_bound = X_norm_bound
        self.y_bound = y_bound
        self.random_state = random_state

    def __sklearn_clone__(self):
        # A release is published data, not a model: cloning a fitted covariance
        # estimator would unfit it (and a refit would spend privacy again).
        return super().__sklearn_clone__().set_params(covariance=self.covariance)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X=None, y=None):
        """Fit the coefficients from the release, or from a release of (X, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), \
default=None
            With ``covariance``: optional, read only for its number of columns
            and their names, which must match the release's features. Without:
            the training data (rows clipped to ``X_norm_bound``).

        y : array-like of shape (n_samples,), default=None
            With ``covariance``: ignored. Without: the targets (clipped to
            ``y_bound``).

        Returns
        -------
        self : object
            The fitted regressor.
        """
        if self.covariance is not None:
            return self._fit_from_release(X)
        if self.target is not None or self.features is not None:
            raise ValueError(
                "target and features select columns of a given release; without "
                "covariance, the target is y and the features are X's columns."
            )
        target_name = str(getattr(y, "name", None) or "y")
        X, y = self._validate_training_data(X, y)
        cost, estimator = self._charge(self._release_estimator())
        for stale in ("X_norm_bound_", "y_bound_", "estimator_", "release_"):
            self.__dict__.pop(stale, None)  # from an earlier fit
        # Dask blocks are read here, after the charge (§13.1).
        rows = compute_array(X) if is_dask_array(X) else X
        if self._predicts_the_mean(X.shape, cost):
            return self._fit_mean(as_numeric(rows), as_numeric(y, "y"), cost, estimator)
        bound_parts, rest = release_budget(cost, self.X_norm_bound, self.y_bound)
        # The same seed (None: fresh entropy) as the user gave PrivateRidge.
        seed = self.random_state
        if bound_parts:
            # Private bounds first, at their parts; the release at the rest,
            # on the same rows (§18.5), from a stream of its own.
            rng, seed = bounds_generator(self.random_state, estimator.noise)
            estimator.set_params(**budget_parameters(rest))
            self.X_norm_bound_, self.y_bound_ = choose_bounds(
                as_numeric(rows),
                as_numeric(y, "y"),
                bound_parts,
                self.X_norm_bound,
                self.y_bound,
                nonfinite=estimator.nonfinite,
                rng=rng,
                centred=self.fit_intercept,
            )
        estimator.set_params(random_state=seed)
        estimator.fit(self._bounded_rows(rows, y))
        release = self._release_of(estimator, X.shape[0], target_name)
        self.estimator_ = estimator
        # The release states the noise level of its feature block in the units
        # of X (the bounded rows carry x/B_x: B_x² times the estimator's, §16),
        # so a model refit from ``release_`` chooses the same alpha="auto"
        # (with a box per feature, §18.5, the model's own penalty is in the
        # box's units: see ``alpha_``). The target is the last column.
        self._set_model(
            release,
            list(range(X.shape[1])),
            X.shape[1],
            X.shape[1],
            release.noise_level,
            penalty_scales(self._fitted_bounds()[0]),
        )
        parts = (*bound_parts, *estimator.privacy_parts_)
        check_within(compose_parts(parts), cost)
        self.X_norm_bound_, self.y_bound_ = self._fitted_bounds()
        self.privacy_spent_ = cost if bound_parts else estimator.privacy_spent_
        self.privacy_parts_ = parts
        return self

    def _predicts_the_mean(self, shape, cost):
        """Whether the fit takes the fallback of §18.5: a private box per
        feature asked for (``X_norm_bound="auto"``) that the budget cannot
        buy (a public rule of n, d and the budget), with an intercept to
        predict."""
        n_samples, n_features = shape
        return (
            self.fit_intercept
            and isinstance(self.X_norm_bound, str)
            and not feature_box_affordable(n_samples, n_features, cost)
        )

    def _fit_mean(self, X, y, cost, estimator):
        """The fallback of §18.5: the whole budget on a private mean of the
        target (its box, then its noisy mean), predicted for every row: the
        ridge model of infinite penalty (coef_ = 0). Of X only which rows are
        finite is read (the estimator's ``nonfinite`` rule, after the charge)."""
        parts = mean_budget(cost, self.y_bound)
        check_within(compose_parts(parts), cost)
        rng = release_generator(self.random_state, noise=estimator.noise)
        y_bound, mean = private_target_mean(
            y,
            parts,
            self.y_bound,
            rng=rng,
            finite=finite_rows(X, y),
            nonfinite=estimator.nonfinite,
        )
        self.alpha_ = math.inf
        self.coef_ = np.zeros(self.n_features_in_)
        self.intercept_ = mean
        self.X_norm_bound_ = None
        self.y_bound_ = y_bound
        self.privacy_spent_ = cost
        self.privacy_parts_ = parts
        return self

    def _fit_from_release(self, X):
        if self.estimator is not None:
            raise ValueError(
                "Give either covariance (a release to fit from) or estimator (to "
                "make a release), not both."
            )
        release = as_release(self.covariance)
        for stale in ("estimator_", "feature_names_in_", "X_norm_bound_", "y_bound_"):
            self.__dict__.pop(stale, None)  # from an earlier fit
        target = _column_index(
            release, -1 if self.target is None else self.target, "target"
        )
        if self.features is None:
            features = [j for j in range(release.n_columns) if j != target]
        else:
            features = [
                _column_index(release, column, "feature") for column in self.features
            ]
            if not features or len(set(features)) != len(features):
                raise ValueError(
                    f"features must be distinct columns, got {self.features!r}."
                )
            if target in features:
                raise ValueError("The target column cannot also be a feature.")
        if self.fit_intercept and release.mean is None:
            raise ValueError(
                "fit_intercept=True needs a release with a mean: fit the covariance "
                "estimator with assume_centered=False (or give a CovarianceRelease "
                "with mean), or set fit_intercept=False."
            )
        selected = (
            None
            if release.feature_names is None
            else np.asarray([release.feature_names[j] for j in features], object)
        )
        if X is not None:
            # Only the shape and column names: no value of X is read.
            validate_data(self, X, reset=True, skip_check_array=True)
            if self.n_features_in_ != len(features):
                raise ValueError(
                    f"X has {self.n_features_in_} features, but the release's "
                    f"feature subset has {len(features)}."
                )
            names = getattr(self, "feature_names_in_", None)
            if names is not None and selected is not None:
                if list(names) != list(selected):
                    raise ValueError(
                        f"X's columns {list(names)} are not the release's features "
                        f"{list(selected)}."
                    )
        elif selected is not None:
            self.feature_names_in_ = selected
        self._set_model(release, features, len(features), target, self._release_noise())
        self.privacy_spent_ = PrivacyCost.zero()
        self.privacy_parts_ = ()
        return self

    def _release_noise(self):
        """The noise level of the given release, if it is known."""
        return as_release(self.covariance).noise_level

    def _set_model(
        self, release, features, n_features, target, noise, penalty_scales=None
    ):
        if self.alpha == "auto":
            if noise is None:
                raise ValueError(
                    "alpha='auto' sets the penalty from the release's noise "
                    "level, which this release does not state: give the fitted "
                    "skprivcov estimator (or CovarianceRelease(..., noise_level=)) "
                    "as covariance, or a number for alpha."
                )
            alpha = alpha_from_noise(noise)
        else:
            alpha = float(self.alpha)
        coefficients, intercepts = fit_ridge_path(
            release,
            features,
            target,
            [alpha],
            fit_intercept=self.fit_intercept,
            penalty_scales=penalty_scales,
        )
        self.alpha_ = alpha
        self.coef_ = coefficients[:, 0]
        self.intercept_ = float(intercepts[0])
        self.release_ = release
        self.n_features_in_ = n_features
