"""Free sweeps over post-processing: one release per disjoint fold, models fit
on the pooled releases of the training folds and scored on the held-out fold's
release (docs/algorithms.rst §14, "Free sweeps over post-processing")."""

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from skprivcov._compat import HasMethods, Interval, StrOptions, fit_context
from skprivcov._data import is_spark_dataframe
from skprivcov._fit import NORM_BOUND, NORM_BOUND_RANGE, RELEASE_SEED
from skprivcov._models import (
    BaseFoldReleases,
    UnsupervisedFolds,
    leave_one_fold_out,
    pool_releases,
)
from skprivcov.covariance import BasePrivateCovariance, CovarianceRelease
from skprivcov.linear_model import PrivateRidge
from skprivcov.privacy import PrivacyCost

__all__ = ["FoldReleases", "ReleaseModel", "release_scorer"]


# --- Held-out scores from a release ------------------------------------------------

# Every held-out score a model built on one release offers (higher is better).
# Each model owns its scores: ``_heldout_metrics`` (its default first) and
# ``_heldout_score(release, metric)`` (PrivateRidge: "neg_mean_squared_error";
# PrivatePCA: "log_likelihood", "captured_variance").
METRICS = ("neg_mean_squared_error", "log_likelihood", "captured_variance")


def _heldout_score(model, release, metric):
    metrics = getattr(type(model), "_heldout_metrics", ())
    if not metrics:
        raise TypeError(
            f"No held-out score from a release for {type(model).__name__}: "
            "supported models are those with held-out scores "
            "(PrivateRidge, PrivatePCA)."
        )
    metric = metrics[0] if metric == "auto" else metric
    if metric not in metrics:
        raise ValueError(
            f"metric={metric!r} does not score a {type(model).__name__}: its "
            f"scores are {list(metrics)}."
        )
    if release.n_columns != model.release_.n_columns:
        raise ValueError(
            f"The held-out release has {release.n_columns} columns; the model's "
            f"training release has {model.release_.n_columns}."
        )
    return model._heldout_score(release, metric)


def _releases_of(X, owner):
    """The CovarianceRelease tokens of X (public values), checked."""
    tokens = np.asarray(X, dtype=object).ravel() if X is not None else None
    if tokens is None or tokens.size == 0:
        raise ValueError(f"{owner} needs a non-empty array of fold releases as X.")
    if not all(isinstance(token, CovarianceRelease) for token in tokens):
        raise TypeError(
            f"{owner} is fit and scored on releases: give X = "
            "FoldReleases(...).fit(...).tokens_ (or a subset), not data rows."
        )
    if len({id(token) for token in tokens}) != tokens.size:
        raise ValueError(f"{owner} was given the same release twice.")
    if len({token.n_columns for token in tokens}) != 1:
        raise ValueError(f"{owner} needs releases with the same number of columns.")
    return list(tokens)


# --- The public objects ------------------------------------------------------------


class FoldReleases(BaseFoldReleases):
    """One private second moment per disjoint fold, for free grid searches.

    A grid search over post-processing parameters for the cost of one release.

    ``fit`` splits the rows into ``n_folds`` disjoint folds at random (the
    split depends only on the number of rows and ``random_state``) and
    releases each fold's second moment with ``estimator``. The folds are
    disjoint, so together the releases cost what one release costs (parallel
    composition), charged once to the estimator's accountant before any data
    value is read. Everything computed from the releases is post-processing
    (docs/algorithms.rst §14, "Free sweeps over post-processing"): a
    :class:`ReleaseModel` is fit on the pooled releases of the training folds
    and scored on the held-out fold's release, and this object is the
    leave-one-fold-out splitter over ``tokens_``. Pass both to
    scikit-learn's ``GridSearchCV`` (or :class:`GridSearchCV`, whose
    :func:`search_cost` then counts nothing for the grid) to search a ridge
    penalty or feature subset, or PCA's number of components, for free.

    Parameters
    ----------
    estimator : skprivcov covariance estimator, default=None
        The (unfitted) estimator cloned for every fold; its budget is the cost
        of all the releases together, charged once to its accountant, if any.
        Its ``norm_bound``, ``assume_centered`` and ``random_state`` are
        replaced; with ``y``, also ``projection`` (set to None, as
        :class:`~skprivcov.linear_model.PrivateRidge` does: the ridge solver
        projects the joint block itself). None:
        :class:`~skprivcov.GaussianCovariance` with its default budget
        (ρ = 0.1).

    n_folds : int >= 2, default=3
        Number of disjoint folds. Each release is of about n/n_folds rows, so
        more folds mean noisier releases (the pool of all folds is about
        √n_folds times noisier than one release of all rows).

    X_norm_bound : float > 0 or "auto", default="auto"
        Public bound on the ℓ2 norm of each row of X; longer rows are clipped.
        "auto" (docs/algorithms.rst §18.5): chosen privately **once, on all
        the rows**, before the folds are released, so its part is spent once
        (sequential composition with the fold releases, which share the rest
        in parallel): with ``y``, a private box per feature (the part
        ``"X box"``, 1/8 of the budget; the rows are mapped into [−1, 1]^d by
        it, as :class:`~skprivcov.linear_model.PrivateRidge` does); without,
        a private row-norm bound (the part ``"norm bound"``, 1/16, §18.2).
        Published as ``X_norm_bound_``.

    y_bound : float > 0, (lower, upper) or "auto", default="auto"
        With ``y``: public bounds of the target (a number B means [−B, B]);
        targets outside are clipped. The rows are then [x, y] bounded as in
        :class:`~skprivcov.linear_model.PrivateRidgeCV` (docs/algorithms.rst
        §8.2), and the releases are in the units of [X, y], the target last.
        "auto": the private box of the target's 1% and 99% quantiles on all
        the rows, once (the part ``"y bound"``, 1/8), published as
        ``y_bound_``. Unused without ``y``.

    assume_centered : bool, default=False
        Release no mean (then no intercept and no centring can be computed
        from the releases). False releases the mean too (§8.2).

    random_state : int in [0, 2**63) or None, default=None
        Seeds the split and, independently, each fold's release. None draws
        fresh OS entropy for the split and for every fold: use it for real
        releases. A numpy Generator or RandomState is refused.

    Attributes
    ----------
    fold_releases_ : list of CovarianceRelease
        Each fold's release, with its ``n_samples`` (public) and, with ``y``,
        the ``noise_level`` of its feature block in the units of X².

    tokens_ : ndarray of object, shape (n_folds,)
        The fold releases as an array: the X to give the search (and
        :class:`ReleaseModel`), which this splitter indexes.

    release_ : CovarianceRelease
        The pooled release of all folds (post-processing), with its cost.

    privacy_spent_ : PrivacyCost
        The cost of one release (parallel composition over disjoint folds).

    privacy_parts_ : tuple of BudgetPart
        The parts of the private bounds ("auto", spent once on all the rows),
        then the split of each fold's release (the same for every fold, in
        parallel): they compose to ``privacy_spent_``.

    X_norm_bound_ : float or (lower, upper) arrays
        The bound the rows of X were clipped at: ``X_norm_bound``, or the
        private one of "auto".

    y_bound_ : float or (lower, upper)
        With ``y``: the target's bounds, ``y_bound`` or the private box of
        "auto".

    n_features_in_ : int
        Number of features of X seen during fit.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    ReleaseModel : A release-based model fit on tokens.
    release_scorer : Held-out scores from the released second moment.
    skprivcov.linear_model.PrivateRidgeCV : The same design, for alpha only.

    Notes
    -----
    Privacy: neighbouring datasets differ in one row, n is public. The fold
    assignment depends only on n and ``random_state``, so changing one row
    changes the rows of one fold, and only that fold's release; each release
    costs the estimator's budget, so all of them cost it once (parallel
    composition; e.g. McSherry 2009, Thm. 4). With "auto" bounds (the
    defaults), the bounds are chosen first, once, from all the rows at their
    parts, and the folds are released at the rest: sequential composition of
    the bounds with the (parallel) fold releases, the parts summing to the
    budget (docs/algorithms.rst §18.5). Every fold draws independent
    noise. A score computed from raw held-out rows instead would not be
    private: here every score is a function of the releases only.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.linear_model import PrivateRidge
    >>> from skprivcov.model_selection import FoldReleases, ReleaseModel
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(60000, 3))
    >>> y = X @ np.array([0.5, -0.25, 0.0]) + 0.05 * rng.normal(size=60000)
    >>> folds = FoldReleases(
    ...     estimator=GaussianCovariance(rho=1.0), y_bound=1.0, random_state=0
    ... ).fit(X, y)
    >>> print(folds.privacy_spent_)
    1-zCDP
    >>> search = GridSearchCV(
    ...     ReleaseModel(PrivateRidge()),
    ...     {"estimator__alpha": [1e-4, 1e-2, 1.0]},
    ...     cv=folds,
    ... ).fit(folds.tokens_)
    >>> search.best_params_
    {'estimator__alpha': 0.0001}
    >>> search.best_estimator_.estimator_.coef_.round(2) + 0.0
    array([ 0.5 , -0.25,  0.  ])
    """

    _parameter_constraints: dict = {
        "estimator": [BasePrivateCovariance, None],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        # "auto": private bounds, chosen once on all the rows (§18.5).
        "X_norm_bound": [*NORM_BOUND, StrOptions({"auto"})],
        "y_bound": [
            Interval(Real, *NORM_BOUND_RANGE, closed="both"),
            tuple,
            StrOptions({"auto"}),
        ],
        "assume_centered": ["boolean"],
        "random_state": RELEASE_SEED,
    }

    # __init__ is BaseFoldReleases': it only stores the parameters above.

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Release the second moment of each of ``n_folds`` disjoint folds.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; rows are clipped to ``X_norm_bound``.
        y : array-like of shape (n_samples,), default=None
            Optional target, appended as the last column [x, y] (clipped to
            ``y_bound``).

        Returns
        -------
        self : object
            The fitted fold releases.
        """
        strategy = UnsupervisedFolds if y is None else PrivateRidge._fold_strategy
        return self._release_folds(X, y, owner=self, strategy=strategy)

    def split(self, X=None, y=None, groups=None):
        """Leave-one-fold-out (train, test) indices over the fold tokens.

        Parameters
        ----------
        X : array-like of shape (n_folds,), default=None
            The tokens (``tokens_``) or any sequence of ``n_folds`` of them;
            only its length is read.
        y : Ignored
            Not used, present for API consistency by convention.
        groups : Ignored
            Not used, present for API consistency by convention.

        Yields
        ------
        train : ndarray of int
            The other folds' indices.
        test : ndarray of int of shape (1,)
            The held-out fold's index.
        """
        if X is not None and len(X) != self.n_folds:
            raise ValueError(
                f"FoldReleases splits its {self.n_folds} fold tokens (tokens_); "
                f"got X of length {len(X)}."
            )
        yield from leave_one_fold_out(self.n_folds)

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of splits: ``n_folds``.

        Parameters
        ----------
        X, y, groups : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        n_splits : int
            The number of folds.
        """
        return self.n_folds


class ReleaseModel(MetaEstimatorMixin, BaseEstimator):
    """A model built on one release, fit and scored on fold releases.

    It is fit on the pooled releases of the fold tokens it is given, and
    scored on a held-out token's release.

    ``fit(tokens)`` pools the releases (weights n_k / Σ n_k, the release of
    the union of their rows) and fits a clone of ``estimator`` with
    ``covariance`` set to the pool; ``score(tokens)`` scores it on the pool
    of the tokens given, from their release alone. Both are post-processing
    of releases: with the tokens of :class:`FoldReleases`, a search over the
    estimator's parameters (``estimator__alpha``, ``estimator__features``,
    ``estimator__n_components`` …) costs nothing beyond the fold releases
    (docs/algorithms.rst §14, "Free sweeps over post-processing").

    Parameters
    ----------
    estimator : PrivateRidge or PrivatePCA
        The (unfitted) model, with ``covariance=None``: ReleaseModel gives it
        the release. Scores (higher is better; see :func:`release_scorer`):
        :class:`~skprivcov.linear_model.PrivateRidge`, the negative mean
        squared error of the held-out rows;
        :class:`~skprivcov.decomposition.PrivatePCA`, their average
        log-likelihood under probabilistic PCA.

    Attributes
    ----------
    estimator_ : estimator
        The fitted clone of ``estimator`` (its ``release_`` is the pool).

    privacy_spent_ : PrivacyCost
        Zero: the fit is post-processing of releases already paid for.

    See Also
    --------
    FoldReleases : The fold releases and their splitter.
    release_scorer : Other held-out scores.

    Notes
    -----
    Privacy: the fit and the score read releases only. Give the tokens of
    one :class:`FoldReleases` fit: pooling releases of overlapping rows (of
    two fits on the same data) is still post-processing, but weighs their
    rows twice.

    ``predict`` and ``transform`` take rows of the table the releases were
    made of, whatever columns the model chose: the X of
    ``FoldReleases.fit(X, y)`` (every column but the target), or every column
    of the release (the target's column is not read). A model over a feature
    subset (``estimator__features``) reads its columns of that table, so the
    ``best_estimator_`` of a search over subsets predicts on the full table.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.decomposition import PrivatePCA
    >>> from skprivcov.model_selection import FoldReleases, ReleaseModel
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30000, 3)) * np.array([0.5, 0.2, 0.05])
    >>> folds = FoldReleases(
    ...     estimator=GaussianCovariance(rho=1.0), X_norm_bound=2.0, random_state=0
    ... ).fit(X)
    >>> model = ReleaseModel(PrivatePCA(n_components=1)).fit(folds.tokens_[1:])
    >>> np.abs(model.estimator_.components_).round(1)
    array([[1., 0., 0.]])
    >>> round(model.score(folds.tokens_[:1]), 2)  # on the held-out fold
    0.31
    """

    _parameter_constraints: dict = {"estimator": [HasMethods(["fit", "get_params"])]}

    def __init__(self, estimator):
        self.estimator = estimator

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Fit the model on the pooled releases of the tokens.

        Parameters
        ----------
        X : array-like of CovarianceRelease, shape (n_tokens,)
            Fold releases (``FoldReleases.tokens_`` or a subset).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted model.
        """
        params = self.estimator.get_params(deep=False)
        if "covariance" not in params:
            raise TypeError(
                f"{type(self.estimator).__name__} takes no covariance=: "
                "ReleaseModel fits models built on one release."
            )
        if params["covariance"] is not None:
            raise ValueError(
                "Leave the estimator's covariance=None: ReleaseModel gives it the "
                "pooled release of the tokens."
            )
        releases = _releases_of(X, type(self).__name__)
        model = clone(self.estimator).set_params(covariance=pool_releases(releases))
        self.estimator_ = model.fit()
        self.privacy_spent_ = PrivacyCost.zero()
        return self

    def score(self, X, y=None):
        """The fitted model's default score on the pooled release of X.

        Negative mean squared error for PrivateRidge, average probabilistic
        PCA log-likelihood for PrivatePCA (see :func:`release_scorer`).

        Parameters
        ----------
        X : array-like of CovarianceRelease, shape (n_tokens,)
            The held-out fold releases.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        score : float
            The score (higher is better).
        """
        return self._score(X, "auto")

    def _score(self, X, metric):
        check_is_fitted(self, "estimator_")
        releases = _releases_of(X, type(self).__name__)
        return _heldout_score(self.estimator_, pool_releases(releases), metric)

    def _planned_charges(self):
        """None: the model is always fit from the tokens' releases
        (``skprivcov.model_selection.planned_charges``)."""
        return []

    def _delegates(name):
        return lambda self: hasattr(self.estimator, name)

    @available_if(_delegates("predict"))
    def predict(self, X):
        """The fitted model's ``predict`` on its columns of the table X.

        Reads X, not the training rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_columns)
            Rows of the table the releases were made of: every column of the
            release but the target (the X of ``FoldReleases.fit(X, y)``), or
            every column of it (the target's is not read). A model over a
            feature subset reads its own columns.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The fitted model's predictions.
        """
        return self.estimator_.predict(self._model_columns(X))

    @available_if(_delegates("transform"))
    def transform(self, X):
        """The fitted model's ``transform`` on its columns of the table X.

        Reads X, not the training rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_columns)
            Rows of the table the releases were made of (see
            :meth:`predict`).

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            The fitted model's transform of X.
        """
        return self.estimator_.transform(self._model_columns(X))

    def _model_columns(self, X):
        """The columns of the table X that the fitted model reads (its
        ``features``), from X's shape alone; X unchanged when the model reads
        every column of the table or chooses none."""
        check_is_fitted(self, "estimator_")
        columns = _chosen_columns(self.estimator_)
        if columns is None or is_spark_dataframe(X):
            return X  # the model's own checks (and refusals) apply
        if not hasattr(X, "shape"):
            X = np.asarray(X, dtype=object)
        if len(X.shape) != 2:
            return X
        n_table = X.shape[1]
        if n_table not in columns:
            features = next(iter(columns.values()))
            raise ValueError(
                f"X has {n_table} columns, but {type(self.estimator_).__name__} "
                "reads the table its releases were made of: "
                f"{' or '.join(str(n) for n in sorted(columns))} columns (without "
                f"or with the target's), of which it reads {len(features)}."
            )
        chosen = columns[n_table]
        if chosen == list(range(n_table)):
            return X
        if hasattr(X, "iloc"):  # a pandas DataFrame keeps its column names
            return X.iloc[:, chosen]
        if sparse.issparse(X):
            return X.tocsr()[:, chosen]
        return X[:, chosen]

    del _delegates


def _chosen_columns(model):
    """{number of columns of a table: the columns of it that ``model`` reads}
    for a model fit from a release on a subset of its columns (PrivateRidge's
    ``features``; None for a model that reads every column).

    The table is the release's columns (n of them, the target's not read), or
    the same without the target's (n − 1: the X whose rows [x, y] were
    released)."""
    select = getattr(model, "_columns", None)
    release = getattr(model, "release_", None)
    if select is None or release is None:
        return None
    features, target = select(release)
    others = [j for j in range(release.n_columns) if j != target]
    position = {j: i for i, j in enumerate(others)}
    return {
        release.n_columns - 1: [position[j] for j in features],
        release.n_columns: list(features),
    }


class _ReleaseScorer:
    """A picklable scorer(estimator, X, y) for a fitted ReleaseModel."""

    def __init__(self, metric):
        self.metric = metric

    def __call__(self, estimator, X, y=None):
        if not isinstance(estimator, ReleaseModel):
            raise TypeError(
                "A release scorer scores a ReleaseModel on fold releases; got "
                f"{type(estimator).__name__}."
            )
        return estimator._score(X, self.metric)

    def __repr__(self):
        return f"release_scorer(metric={self.metric!r})"


def release_scorer(metric="auto"):
    """A scorer of a fitted :class:`ReleaseModel` on held-out fold releases.

    For ``scoring=`` in scikit-learn's searches and ``cross_validate`` (alone
    or in a dict, for several metrics). Every score is computed from the
    held-out tokens' pooled release and the fitted model: post-processing,
    free (docs/algorithms.rst §14). Higher is better.

    Parameters
    ----------
    metric : {"auto", "neg_mean_squared_error", "log_likelihood", \
"captured_variance"}, default="auto"
        - ``"neg_mean_squared_error"`` (PrivateRidge): −(1/n) Σ (y − wᵀx − b)²
          = −uᵀMu with u = (−w, 1, −b) and M the PSD projection of the
          held-out release's augmented second moment (docs/algorithms.rst
          §8.2), as in :class:`~skprivcov.linear_model.PrivateRidgeCV`.
        - ``"log_likelihood"`` (PrivatePCA): the average log-likelihood of the
          held-out rows under probabilistic PCA, as scikit-learn's
          ``PCA.score``: −½(d log 2π + log det C + tr(C⁻¹Σ)), Σ the PSD
          projection of the held-out second moment about the model's mean
          and C = Σ_k λ_k v_k v_kᵀ + σ²(I − Σ_k v_k v_kᵀ), σ² the mean of the
          other eigenvalues of the training release (λ and σ² floored at its
          public noise level). It has a maximum over ``n_components``.
        - ``"captured_variance"`` (PrivatePCA): tr(VΣVᵀ), the held-out
          variance along the components (the total minus the reconstruction
          error). It never decreases with ``n_components``, so it compares
          subspaces of one dimension, not dimensions.
        - ``"auto"``: the first for PrivateRidge, ``"log_likelihood"`` for
          PrivatePCA (what :meth:`ReleaseModel.score` computes).

    Returns
    -------
    scorer : callable
        ``scorer(release_model, tokens, y=None)`` → float.

    Examples
    --------
    >>> from skprivcov.model_selection import release_scorer
    >>> release_scorer("captured_variance")
    release_scorer(metric='captured_variance')
    """
    if not (isinstance(metric, str) and (metric == "auto" or metric in METRICS)):
        raise ValueError(f"metric must be one of {['auto', *METRICS]}; got {metric!r}.")
    return _ReleaseScorer(metric)
