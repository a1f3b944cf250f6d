"""PrivateRidgeCV: the choice of alpha as post-processing of one release per fold."""

from numbers import Integral

import numpy as np
from scipy.stats import rankdata

from skprivcov._compat import Interval, StrOptions, fit_context
from skprivcov._models import BaseFoldReleases, leave_one_fold_out, pool_releases
from skprivcov.linear_model._base import BasePrivateRidge
from skprivcov.linear_model._fold_rows import SupervisedFolds
from skprivcov.linear_model._penalty import alpha_from_noise
from skprivcov.linear_model._rows import penalty_scales
from skprivcov.linear_model._solve import fit_ridge_path, heldout_losses

__all__ = ["PrivateRidgeCV"]

# alphas="auto": multiples of the penalty set from the privacy level (§16).
AUTO_FACTORS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def _check_alphas(alphas):
    alphas = np.asarray(alphas, dtype=np.float64).ravel()
    if alphas.size == 0 or not np.all(np.isfinite(alphas)) or np.any(alphas < 0):
        raise ValueError(
            f"alphas must be a non-empty list of finite numbers >= 0; got {alphas}."
        )
    return alphas


class PrivateRidgeCV(BasePrivateRidge):
    """Ridge regression with alpha chosen privately by K-fold cross-validation.

    The rows are split into ``cv`` disjoint folds at random (the split does not
    depend on the data). Each fold's bounded rows [x, y] get one release by
    ``estimator``. For each fold k, ridge is fit for every alpha on the pooled
    releases of the other folds, and scored by its mean squared error on fold
    k computed from fold k's release alone, uᵀ P(M̂_k) u with u = (−w, 1, −b),
    P the PSD projection (docs/algorithms.rst §8.2). The alpha with the best mean
    score is refit on the pooled releases of all folds. Everything after the releases is
    post-processing, and the releases are of disjoint rows, so the whole
    search costs what one release costs (parallel composition). The releases
    are those of :class:`~skprivcov.model_selection.FoldReleases` with the
    same parameters (docs/algorithms.rst §14): a search over other
    post-processing parameters (a feature subset, …) runs on them with
    :class:`~skprivcov.model_selection.ReleaseModel`.

    Parameters
    ----------
    alphas : array-like of float >= 0 or "auto", default="auto"
        The candidates, per row (the convention of :class:`PrivateRidge`).
        "auto": the multiples 1/8, 1/4, …, 8 of the penalty that
        ``PrivateRidge(alpha="auto")`` sets from the privacy level
        (docs/algorithms.rst §16), each fold's computed from the public noise
        level of its training releases; ``alpha_`` is the chosen multiple of
        the penalty for the pooled release of all folds. From public values
        and the releases' published scales only.

    cv : int >= 2, default=3
        Number of folds. Every fold release is of fewer rows as ``cv`` grows:
        the pooled release of all folds is about √cv times noisier than one
        release of all rows, and each held-out score noisier too. On diabetes
        3 folds did as well as 2 and better than 5 (docs/ridge.rst).

    fit_intercept : bool, default=True
        Fit an unpenalised intercept.

    estimator : skprivcov covariance estimator, default=None
        The (unfitted) estimator cloned for each fold; its budget is the cost
        of the whole search. None: :class:`~skprivcov.GaussianCovariance` with
        its default budget (ρ = 0.1). Its accountant, if any, is charged once,
        before any value of X or y is read.

    X_norm_bound : float > 0 or "auto", default="auto"
        Public bound on the ℓ2 norm of each row of X; longer rows are clipped.
        "auto": a private box per feature, chosen once on all the rows before
        the folds are released (the part ``"X box"``, 1/8 of the budget;
        docs/algorithms.rst §18.5), as in
        :class:`~skprivcov.model_selection.FoldReleases`; the candidates are
        then penalised in the box's units and ``predict`` clips each feature
        into the box. Published as ``X_norm_bound_``.

    y_bound : float > 0, (lower, upper) or "auto", default="auto"
        Public bounds of the target; a number B means [−B, B]. "auto": the
        private box of the target's 1% and 99% quantiles on all the rows (the
        part ``"y bound"``, 1/8), published as ``y_bound_``.

    random_state : int in [0, 2**63) or None, default=None
        Seeds the folds and, independently, each fold's release (the
        estimator's own ``random_state`` is replaced: folds must never share
        noise). None draws fresh OS entropy for the split and for every fold:
        use it for real releases. A numpy Generator or RandomState is refused.

    Attributes
    ----------
    alpha_ : float
        The chosen alpha.

    best_score_ : float
        Its mean held-out score (negative mean squared error, from releases).

    cv_results_ : dict of ndarray
        As in :class:`~sklearn.model_selection.GridSearchCV`: ``params``,
        ``param_alpha``, ``split{k}_test_score``, ``mean_test_score``,
        ``std_test_score`` and ``rank_test_score``; scores are negative mean
        squared errors computed from the held-out folds' releases (so they are
        noisy).

    coef_ : ndarray of shape (n_features,)
        The coefficients at ``alpha_``, from the pooled release.

    intercept_ : float
        The intercept (0.0 without ``fit_intercept``).

    release_ : CovarianceRelease
        The pooled release of all folds, in the units of [X, y], with the
        noise level of its feature block (so ``PrivateRidge(covariance=
        release_)`` can set ``alpha="auto"``).

    fold_releases_ : list of CovarianceRelease
        Each fold's release (``FoldReleases.fold_releases_``).

    privacy_spent_ : PrivacyCost
        The budget: the private bounds once, then one release's cost
        (parallel composition over disjoint folds).

    privacy_parts_ : tuple of BudgetPart
        The parts of the private bounds (spent once, on all the rows), then
        the split of each fold's release (the same for every fold).

    X_norm_bound_ : float or (lower, upper) arrays
        ``X_norm_bound``, or the private box per feature of "auto".

    y_bound_ : float or (lower, upper)
        ``y_bound``, or the private box of "auto".

    n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    PrivateRidge : Ridge from one release, for a fixed alpha.
    skprivcov.model_selection.FoldReleases : The fold releases, for any grid
        over post-processing parameters.

    Notes
    -----
    Privacy: neighbouring datasets differ in one row (x, y), n is public. The
    fold assignment depends only on n and ``random_state``, so changing one
    row changes the rows of exactly one fold, and only that fold's release;
    each release costs the estimator's budget, so the search costs that
    budget once (parallel composition; e.g. McSherry 2009, Thm. 4). The
    private bounds of "auto" (the defaults) are chosen once on all the rows
    before the folds, at their parts, the folds at the rest (sequential
    composition; docs/algorithms.rst §18.5). Every fold release uses
    independent noise.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.linear_model import PrivateRidgeCV
    >>> from skprivcov import GaussianCovariance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(50000, 3))
    >>> y = X @ np.array([0.5, -0.25, 0.0]) + 0.05 * rng.normal(size=50000)
    >>> model = PrivateRidgeCV(
    ...     alphas=[1e-4, 1e-2, 1.0], estimator=GaussianCovariance(rho=1.0),
    ...     random_state=0,
    ... ).fit(X, y)
    >>> model.alpha_, model.coef_.round(2) + 0.0
    (0.0001, array([ 0.49, -0.25,  0.  ]))
    >>> print(model.privacy_spent_)
    1-zCDP
    """

    _parameter_constraints: dict = {
        **BasePrivateRidge._parameter_constraints,
        "alphas": ["array-like", StrOptions({"auto"})],
        "cv": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(
        self,
        *,
        alphas="auto",
        cv=3,
        fit_intercept=True,
        estimator=None,
        X_norm_bound="auto",
        y_bound="auto",
        random_state=None,
    ):
        self.alphas = alphas
        self.cv = cv
        self.fit_intercept = fit_intercept
        self.estimator = estimator
        self.X_norm_bound = X_norm_bound
        self.y_bound = y_bound
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Release each fold, choose alpha from the releases, refit on them all.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; rows are clipped to ``X_norm_bound``.
        y : array-like of shape (n_samples,)
            Targets; clipped to ``y_bound``.

        Returns
        -------
        self : object
            The fitted regressor.
        """
        auto = isinstance(self.alphas, str)
        alphas = np.asarray(AUTO_FACTORS) if auto else _check_alphas(self.alphas)
        target_name = str(getattr(y, "name", None) or "y")
        X, y = self._validate_training_data(X, y)
        n_samples, n_features = X.shape
        if n_samples < 2 * self.cv:
            raise ValueError(
                f"cv={self.cv} folds need at least {2 * self.cv} rows (2 per fold); "
                f"got {n_samples}."
            )
        # The fold releases (docs/algorithms.rst §14): public checks, one
        # charge recorded under this model's name, then one release per fold.
        folds = BaseFoldReleases(
            estimator=self.estimator,
            n_folds=self.cv,
            X_norm_bound=self.X_norm_bound,
            y_bound=self.y_bound,
            assume_centered=not self.fit_intercept,
            random_state=self.random_state,
        )._release_folds(
            X, y, owner=self, strategy=SupervisedFolds, target_name=target_name
        )
        fold_releases = folds.fold_releases_
        # With a box per feature, every candidate is penalised in its units
        # (§18.5); None for one row-norm bound.
        scales = penalty_scales(folds.X_norm_bound_)

        def candidates(release):
            """The alphas for a pool of fold releases."""
            if not auto:
                return alphas
            # The pool's noise level: independent noises averaged with
            # weights, variances add (§16).
            return alphas * alpha_from_noise(release.noise_level)

        features, target = list(range(n_features)), n_features
        losses = np.empty((self.cv, alphas.size))
        for train, (k,) in leave_one_fold_out(self.cv):
            training = pool_releases(fold_releases[j] for j in train)
            coefficients, intercepts = fit_ridge_path(
                training,
                features,
                target,
                candidates(training),
                fit_intercept=self.fit_intercept,
                penalty_scales=scales,
            )
            losses[k] = heldout_losses(
                fold_releases[k], features, target, coefficients, intercepts
            )
        scores = -losses
        mean_scores = scores.mean(axis=0)
        best = int(np.argmax(mean_scores))

        release = folds.release_
        final = candidates(release)
        coefficients, intercepts = fit_ridge_path(
            release,
            features,
            target,
            [final[best]],
            fit_intercept=self.fit_intercept,
            penalty_scales=scales,
        )
        self.alpha_ = float(final[best])
        self.best_score_ = float(mean_scores[best])
        self.cv_results_ = {
            "params": [{"alpha": float(alpha)} for alpha in final],
            "param_alpha": np.array(final, dtype=float),
            **{f"split{k}_test_score": scores[k] for k in range(self.cv)},
            "mean_test_score": mean_scores,
            "std_test_score": scores.std(axis=0),
            "rank_test_score": rankdata(-mean_scores, method="min").astype(np.int32),
        }
        self.coef_ = coefficients[:, 0]
        self.intercept_ = float(intercepts[0])
        self.release_ = release
        self.fold_releases_ = fold_releases
        self.X_norm_bound_ = folds.X_norm_bound_
        self.y_bound_ = folds.y_bound_
        self.privacy_spent_ = folds.privacy_spent_
        # The bounds' parts once, then every fold's release's split, in
        # parallel (disjoint rows).
        self.privacy_parts_ = folds.privacy_parts_
        return self
