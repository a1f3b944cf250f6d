"""PrivateRidge: ridge regression from a released second moment."""

import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy import sparse
from sklearn.utils.validation import validate_data

from skprivcov._compat import Interval, StrOptions, fit_context
from skprivcov._data import as_numeric, compute_array, is_dask_array, refuse_nonfinite
from skprivcov._fit import budget_parameters, check_handed_down, describe
from skprivcov.base import PrivateFitMixin, Release, ReleasedCovarianceMixin
from skprivcov.covariance import CovarianceRelease
from skprivcov.linear_model._adassp import (
    SMALLEST_EIGENVALUE_SHARE,
    private_smallest_eigenvalue,
)
from skprivcov.linear_model._base import BasePrivateRidge
from skprivcov.linear_model._boost import boosted_parts, boosted_ridge, n_rounds
from skprivcov.linear_model._fold_rows import SupervisedFolds
from skprivcov.linear_model._penalty import alpha_from_noise
from skprivcov.linear_model._private_bounds import (
    choose_bounds,
    feature_box_affordable,
    finite_rows,
    mean_budget,
    private_target_mean,
    release_budget,
)
from skprivcov.linear_model._rows import feature_map, penalty_scales, target_map
from skprivcov.linear_model._solve import fit_ridge_path, heldout_losses
from skprivcov.mechanisms.noise import bounds_generator, release_generator
from skprivcov.privacy import BudgetPart, PrivacyCost

__all__ = ["PrivateRidge"]


def as_release(covariance):
    """A CovarianceRelease from what ``PrivateRidge(covariance=...)`` accepts."""
    return CovarianceRelease.of(covariance, owner="PrivateRidge", arrays=True)


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


class _Rows(NamedTuple):
    """What PrivateRidge's hooks pass on: the rows and targets, the detached
    covariance estimator of the release, the target's name, the route."""

    X: object
    y: object
    estimator: object
    target_name: str
    route: str | None = None


class PrivateRidge(PrivateFitMixin, BasePrivateRidge):
    """Ridge regression fit from a released (private) second moment.

    With ``covariance`` given, ``fit`` reads no data values: the coefficients
    are post-processing of that release, for any target column, any feature
    subset and any ``alpha``, and ``privacy_spent_`` is zero. Without it,
    ``fit(X, y)`` first releases the second moment of the bounded rows
    ``[x, y]`` (and the constant column for the intercept) with ``estimator``,
    and that release's cost is ``privacy_spent_``.

    Parameters
    ----------
    alpha : float >= 0, "auto" or "adassp", default="auto"
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
        "adassp" (without ``covariance`` only): AdaSSP's private smallest
        eigenvalue (Wang 2018, §16): λ̃, a private lower bound of λ_min of
        the (centred) second moment of the bounded feature rows, at 1/8 of
        the budget left after the private bounds (the part ``"smallest
        eigenvalue"``), and 2α = max(0, c·ℓ − λ̃) in the release's units:
        "auto"'s penalty, lowered for data that are already well
        conditioned. With ``boosting_rounds`` it sets the rounds' penalty the
        same way.

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

    boosting_rounds : int >= 0 or "auto", default=0
        Without ``covariance``: the number of boosting rounds (Tang et al.
        2023, §16; 0: one release of [x, y], as before). With T > 0 the fit
        releases the second moment of the bounded feature rows with
        ``estimator`` at 1/4 of the budget left after the private bounds,
        then runs T rounds, each releasing the noisy mean of the features
        times the clipped residuals of the current model (the parts
        ``"residual round t"``, equal shares of the rest) and adding the
        penalised Newton step it gives. The released second moment only
        preconditions the rounds, so its noise does not bias the model.
        "auto": 10 rounds for a zCDP budget, 3 for a pure one (a public rule
        measured on diabetes, docs/ridge.rst). With ``covariance`` it must
        be 0 or "auto" (nothing is boosted: the fit is post-processing).

    residual_bound : float in (0, 1], default=0.25
        With ``boosting_rounds``: the bound R the residuals are clipped at in
        each round, as a fraction of the target's half-width (of ``y_bound``
        or its private box): a round's sensitivity is proportional to R, and
        clipped residuals still point the model the right way (the rounds
        fit a Huber-type loss of threshold R).

    learning_rate : float in (0, 1], default=1.0
        With ``boosting_rounds``: the shrinkage η of each round's step.

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
        units); inf when the model predicts its private mean. With
        ``boosting_rounds``, the penalty of the rounds' normal equations in
        the same units (c_b·ℓ of the feature release, ``alpha="adassp"``
        lowering it by λ̃, or ``alpha``).

    intercept_ : float
        The intercept (0.0 without ``fit_intercept``).

    release_ : CovarianceRelease
        The release the model was fit from, with its cost, source and
        fingerprint (in the units of [X, y] when made by ``fit``). Absent
        when the model predicts its private mean, and with
        ``boosting_rounds`` (no release of [x, y] is made: see
        ``estimator_``).

    estimator_ : skprivcov covariance estimator
        Only when ``fit`` made the release: the fitted estimator (its
        ``covariance_`` is in the units of the bounded rows), without the
        accountant, which was charged by ``fit`` itself. With
        ``boosting_rounds``, the release of the bounded feature rows alone.

    privacy_spent_ : PrivacyCost
        Zero when fit from ``covariance``; else the cost of the release made.

    privacy_parts_ : tuple of BudgetPart
        Empty when fit from ``covariance``; else the parts of the private
        bounds ("auto": ``"X box"``, ``"y bound"``), then the release's split
        (``estimator_.privacy_parts_``), then ``"smallest eigenvalue"``
        (``alpha="adassp"``) and ``"residual round 1"``, … (boosting); or,
        for the private mean, ``"y bound"`` and ``"y mean"``. They compose
        to ``privacy_spent_`` (sequential composition; the rounds adaptively).

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

    # The folds of its rows [x, y], for FoldReleases with y (§14).
    _fold_strategy = SupervisedFolds
    # Its held-out scores from a release (higher is better), the default
    # first: what ``skprivcov.model_selection.release_scorer`` computes.
    _heldout_metrics = ("neg_mean_squared_error",)

    _parameter_constraints: dict = {
        **BasePrivateRidge._parameter_constraints,
        "alpha": [
            Interval(Real, 0, None, closed="left"),
            StrOptions({"auto", "adassp"}),
        ],
        "covariance": [ReleasedCovarianceMixin, CovarianceRelease, "array-like", None],
        "target": [Interval(Integral, None, None, closed="neither"), str, None],
        "features": ["array-like", None],
        "boosting_rounds": [
            Interval(Integral, 0, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "residual_bound": [Interval(Real, 0, 1, closed="right")],
        "learning_rate": [Interval(Real, 0, 1, closed="right")],
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
        boosting_rounds=0,
        residual_bound=0.25,
        learning_rate=1.0,
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
        self.boosting_rounds = boosting_rounds
        self.residual_bound = residual_bound
        self.learning_rate = learning_rate
        self.random_state = random_state

    def __sklearn_clone__(self):
        # A release is published data, not a model: cloning a fitted covariance
        # estimator would unfit it (and a refit would spend privacy again).
        return super().__sklearn_clone__().set_params(covariance=self.covariance)

    @fit_context(prefer_skip_nested_validation=False)
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
        return self._fit_privately(X, y)

    # The hooks of the fit template (skprivcov.base.PrivateFitMixin). Three
    # routes, chosen by a public rule of n, d, the budget and the parameters
    # (:meth:`_route`): the private mean of y ("mean", §18.5), rounds or
    # AdaSSP's smallest eigenvalue beside one release of the feature rows
    # ("penalty", §16), or one release of the bounded rows [x, y] ("release").

    def _check_public(self, X, y):
        if self.target is not None or self.features is not None:
            raise ValueError(
                "target and features select columns of a given release; without "
                "covariance, the target is y and the features are X's columns."
            )
        target_name = str(getattr(y, "name", None) or "y")
        X, y = self._validate_training_data(X, y)
        return _Rows(X, y, self._release_estimator(), target_name)

    def _fit_cost(self, rows):
        return rows.estimator.fit_cost()

    def _check_plan(self, rows, cost):
        check_handed_down(type(self).__name__, *self._handed_down(rows.X.shape, cost))

    def _accountant(self, rows):
        return rows.estimator.accountant

    def _charge_details(self, rows):
        return {"release": describe(rows.estimator)}

    def _route(self, shape, cost):
        """The route of the fit: a public rule (see the class's Notes)."""
        if self._predicts_the_mean(shape, cost):
            return "mean"
        _, rest = release_budget(cost, self.X_norm_bound, self.y_bound)
        if n_rounds(self.boosting_rounds, rest.notion) or self.alpha == "adassp":
            return "penalty"
        return "release"

    def _generator(self, rows):
        """(the generator of the bounds' and the rounds' draws, the release's
        own seed): the same seed as the user gave PrivateRidge (None: fresh
        entropy) for a lone release; with private bounds or rounds before it,
        a stream of their own and a seed drawn from it (§13.4)."""
        cost = rows.estimator.fit_cost()
        route = self._route(rows.X.shape, cost)
        noise = rows.estimator.noise
        if route == "mean":
            return release_generator(self.random_state, noise=noise), None
        bound_parts, _ = release_budget(cost, self.X_norm_bound, self.y_bound)
        if route == "penalty" or bound_parts:
            return bounds_generator(self.random_state, noise)
        return None, self.random_state

    def _open(self, rows, cost, rng):
        # The release runs detached: its cost was charged once, above.
        rows.estimator.set_params(accountant=None)
        X = rows.X
        if is_dask_array(X):
            # Dask blocks are read here, after the charge (§13.1).
            X = compute_array(X)
        return rows._replace(X=X, route=self._route(rows.X.shape, cost))

    def _choose_bounds(self, rows, cost, rng):
        """The private bounds at their parts (§18.5), published as
        ``X_norm_bound_`` and ``y_bound_``; the rest for the release, on
        the same rows. The private mean chooses its own box (its release)."""
        if rows.route == "mean":
            return rows, (), cost
        bound_parts, rest = release_budget(cost, self.X_norm_bound, self.y_bound)
        if bound_parts:
            rows.estimator.set_params(**budget_parameters(rest))
            self.X_norm_bound_, self.y_bound_ = choose_bounds(
                as_numeric(rows.X),
                as_numeric(rows.y, "y"),
                bound_parts,
                self.X_norm_bound,
                self.y_bound,
                nonfinite=rows.estimator.nonfinite,
                rng=rng[0],
                centred=self.fit_intercept,
            )
        return rows, bound_parts, rest

    def _release(self, rows, budget, rng):
        if rows.route == "mean":
            return self._fit_mean(rows, budget, rng[0])
        if rows.route == "penalty":
            return self._fit_private_penalty(rows, budget, rng)
        estimator = rows.estimator
        estimator.set_params(random_state=rng[1])
        estimator.fit(self._bounded_rows(rows.X, rows.y))
        n_samples, n_features = rows.X.shape
        release = self._release_of(estimator, n_samples, rows.target_name)
        # The release states the noise level of its feature block in the units
        # of X (the bounded rows carry x/B_x: B_x² times the estimator's, §16),
        # so a model refit from ``release_`` chooses the same alpha="auto"
        # (with a box per feature, §18.5, the model's own penalty is in the
        # box's units: see ``alpha_``). The target is the last column.
        self._set_model(
            release,
            list(range(n_features)),
            n_features,
            n_features,
            release.noise_level,
            penalty_scales(self._fitted_bounds()[0]),
        )
        self.estimator_ = estimator
        return Release(None, estimator.privacy_parts_)

    def _store(self, release, rows, budget):
        if rows.route != "mean":
            self.X_norm_bound_, self.y_bound_ = self._fitted_bounds()

    def _handed_down(self, shape, cost):
        """The budgets the fit will give its covariance estimator, from
        public values (the route of ``fit``): none for the private mean, the
        rest after the private bounds, the feature release of the boosting
        rounds, or the release beside AdaSSP's smallest eigenvalue."""
        if self._predicts_the_mean(shape, cost):
            return ()
        bound_parts, rest = release_budget(cost, self.X_norm_bound, self.y_bound)
        rounds = n_rounds(self.boosting_rounds, rest.notion)
        if rounds:
            release_cost, _, _ = boosted_parts(rest, rounds, self.alpha == "adassp")
            return (release_cost,)
        if self.alpha == "adassp":
            return (rest.scaled(1.0 - SMALLEST_EIGENVALUE_SHARE),)
        return (rest,) if bound_parts else ()

    def _fit_private_penalty(self, rows, rest, generator):
        """The fits that read the data beyond one release (after the charge,
        at the parts of ``rest``): ``alpha="adassp"`` (a private smallest
        eigenvalue, docs/algorithms.rst §16) and ``boosting_rounds`` (rounds
        on clipped residuals, §16). Both draw from the bounds' stream; the
        release from a seed of its own (§13.4). Returns their Release."""
        rng, seed = generator
        estimator, target_name = rows.estimator, rows.target_name
        rounds = n_rounds(self.boosting_rounds, rest.notion)
        bounded = self._bounded_rows(rows.X, rows.y)
        bounded = bounded.toarray() if sparse.issparse(bounded) else bounded
        # The estimator's rule for a row with a non-finite entry, applied once
        # for every statistic: refused (after the whole pass), or a row of
        # zeros (a public rule per row, §13.2).
        bad = ~np.isfinite(bounded).all(axis=1)
        refuse_nonfinite(int(np.count_nonzero(bad)), estimator.nonfinite)
        bounded[bad] = 0.0
        n_samples, n_features = rows.X.shape
        features = bounded[:, :n_features]
        _, _, _, scales, bound = feature_map(self._fitted_bounds()[0])
        # z-units → the units of the model's penalty (§18.5): ℓ_data = F·ℓ_z.
        units = (bound * float(np.max(scales))) ** 2
        adassp = self.alpha == "adassp"
        if rounds:
            release_cost, smallest_part, round_parts = boosted_parts(
                rest, rounds, adassp
            )
            estimator.set_params(
                norm_bound=1.0, random_state=seed, **budget_parameters(release_cost)
            )
            estimator.fit(features)
            penalty = (
                self.alpha
                if isinstance(self.alpha, str)
                else 2.0 * float(self.alpha) / units
            )
            theta, intercept, penalty = boosted_ridge(
                features,
                bounded[:, n_features],
                estimator,
                round_parts,
                penalty=penalty,
                fit_intercept=self.fit_intercept,
                residual_bound=self.residual_bound,
                learning_rate=self.learning_rate,
                rng=rng,
                lambda_part=smallest_part,
            )
            self._set_boosted(theta, intercept, penalty * units / 2.0)
            parts = (
                *estimator.privacy_parts_,
                *((smallest_part,) if adassp else ()),
                *round_parts,
            )
        else:
            smallest_part = BudgetPart(
                "smallest eigenvalue", rest.scaled(SMALLEST_EIGENVALUE_SHARE)
            )
            estimator.set_params(
                random_state=seed,
                **budget_parameters(rest.scaled(1.0 - SMALLEST_EIGENVALUE_SHARE)),
            )
            estimator.fit(bounded)
            smallest = private_smallest_eigenvalue(
                features, self.fit_intercept, smallest_part.cost, rng
            )
            release = self._release_of(estimator, n_samples, target_name)
            # AdaSSP (§16): 2α = max(0, c·ℓ − λ̃_min) in the release's units,
            # c·ℓ the public penalty of alpha="auto".
            level = 2.0 * alpha_from_noise(release.noise_level)
            alpha = max(0.0, level - units * smallest) / 2.0
            self._set_model(
                release,
                list(range(n_features)),
                n_features,
                n_features,
                release.noise_level,
                penalty_scales(self._fitted_bounds()[0]),
                alpha=alpha,
            )
            parts = (*estimator.privacy_parts_, smallest_part)
        self.estimator_ = estimator
        return Release(None, parts)

    def _set_boosted(self, theta, intercept, alpha):
        """coef_ and intercept_ in the units of (X, y) from (θ, b) in those of
        the bounded rows: y = h·(θᵀz + b) + c with z_j = (x_j − c_j)/(s_j·B)
        (docs/algorithms.rst §18.5; post-processing)."""
        X_norm_bound, y_bound = self._fitted_bounds()
        _, _, shift, scale = target_map(y_bound, self.fit_intercept)
        _, _, shifts, scales, bound = feature_map(X_norm_bound)
        coef = scale * theta / (np.asarray(scales, dtype=np.float64) * bound)
        coef = np.broadcast_to(coef, theta.shape).astype(np.float64)
        self.coef_ = coef
        self.intercept_ = (
            float(
                scale * intercept + shift - coef @ np.broadcast_to(shifts, coef.shape)
            )
            if self.fit_intercept
            else 0.0
        )
        self.alpha_ = float(alpha)
        self.n_features_in_ = theta.shape[0]

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

    def _fit_mean(self, rows, cost, rng):
        """The fallback of §18.5: the whole budget on a private mean of the
        target (its box, then its noisy mean), predicted for every row: the
        ridge model of infinite penalty (coef_ = 0). Of X only which rows are
        finite is read (the estimator's ``nonfinite`` rule, after the charge).
        Returns its Release."""
        X, y = as_numeric(rows.X), as_numeric(rows.y, "y")
        parts = mean_budget(cost, self.y_bound)
        y_bound, mean = private_target_mean(
            y,
            parts,
            self.y_bound,
            rng=rng,
            finite=finite_rows(X, y),
            nonfinite=rows.estimator.nonfinite,
        )
        self.alpha_ = math.inf
        self.coef_ = np.zeros(self.n_features_in_)
        self.intercept_ = mean
        self.X_norm_bound_ = None
        self.y_bound_ = y_bound
        return Release(None, parts)

    def _fit_from_release(self, X):
        if self.boosting_rounds not in (0, "auto") or self.alpha == "adassp":
            raise ValueError(
                "boosting_rounds and alpha='adassp' read the training rows "
                "(residuals, a private smallest eigenvalue): fit with X and y "
                "(without covariance), or use alpha='auto' or a number."
            )
        if self.estimator is not None:
            raise ValueError(
                "Give either covariance (a release to fit from) or estimator (to "
                "make a release), not both."
            )
        release = as_release(self.covariance)
        for stale in ("estimator_", "feature_names_in_", "X_norm_bound_", "y_bound_"):
            self.__dict__.pop(stale, None)  # from an earlier fit
        features, target = self._columns(release)
        if self.features is not None:
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
        self,
        release,
        features,
        n_features,
        target,
        noise,
        penalty_scales=None,
        alpha=None,
    ):
        # ``alpha`` given: set by a private step (alpha="adassp").
        if alpha is None and self.alpha == "auto":
            if noise is None:
                raise ValueError(
                    "alpha='auto' sets the penalty from the release's noise "
                    "level, which this release does not state: give the fitted "
                    "skprivcov estimator (or CovarianceRelease(..., noise_level=)) "
                    "as covariance, or a number for alpha."
                )
            alpha = alpha_from_noise(noise)
        elif alpha is None:
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

    def _heldout_score(self, release, metric):
        """−(1/n) Σ (y − wᵀx − b)² on the rows behind ``release`` (§8.2), for
        ``metric="neg_mean_squared_error"``: post-processing of the release."""
        features, target = self._columns(self.release_)
        losses = heldout_losses(
            release,
            features,
            target,
            np.asarray(self.coef_, float)[:, None],
            np.array([self.intercept_], float),
        )
        return -float(losses[0])

    def _columns(self, release):
        """(feature columns, target column) of ``release`` that ``features``
        and ``target`` name (all columns but the target by default)."""
        target = _column_index(
            release, -1 if self.target is None else self.target, "target"
        )
        if self.features is None:
            return [j for j in range(release.n_columns) if j != target], target
        columns = [_column_index(release, c, "feature") for c in self.features]
        return columns, target
