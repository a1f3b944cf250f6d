"""PrivatePCA: principal components of a released covariance (post-processing)."""

from numbers import Integral

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from skprivcov._compat import Interval, RealNotInt, fit_context
from skprivcov._data import check_input
from skprivcov._fit import RELEASE_SEED, fill_shared_docs
from skprivcov.base import ReleasedCovarianceMixin
from skprivcov.covariance import (
    AutoCovariance,
    BasePrivateCovariance,
    CovarianceRelease,
    ReleaseConsumerMixin,
)
from skprivcov.decomposition._heldout import captured_variance, log_likelihood
from skprivcov.mechanisms import eigh_descending

__all__ = ["PrivatePCA"]


def _sign_flip(vectors):
    """Each column's largest-magnitude entry made positive: a deterministic
    sign, as scikit-learn's ``svd_flip`` (post-processing)."""
    rows = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[rows, np.arange(vectors.shape[1])])
    return vectors * np.where(signs == 0, 1.0, signs)


@fill_shared_docs
class PrivatePCA(
    ReleaseConsumerMixin,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    BaseEstimator,
):
    """Principal component analysis of a private covariance release.

    The components are the eigenvectors of a released (private) covariance and
    the explained variances its eigenvalues; the data are centred by the
    release's private mean (docs/algorithms.rst §15). Everything after the
    release is post-processing: with ``covariance`` given, ``fit`` reads no
    value of X and spends nothing, so a search over ``n_components`` or
    ``whiten`` is free. Without it, ``fit(X)`` first makes a release of X
    with ``estimator`` and spends that release's budget.

    Parameters
    ----------
    n_components : int >= 1, float in (0, 1) or None, default=None
        Number of components to keep. A float keeps the fewest components
        whose eigenvalues add up to that fraction of the *released* total
        variance (a function of the release: free). None keeps all.

    covariance : fitted skprivcov covariance estimator or CovarianceRelease, \
default=None
        The release to decompose, fitted on the features X will have. With a
        mean (``assume_centered=False``) the data are centred by it; without,
        ``mean_`` is zero and the components are those of the second moment.
        ``clone`` keeps it as it is (published data, not a model to refit).

    estimator : skprivcov covariance estimator, default=None
        Without ``covariance``: the (unfitted) estimator that releases the
        covariance of X in ``fit``; its budget is spent (from its accountant,
        if it has one, before any value of X is read). PrivatePCA fits a clone
        with ``assume_centered=False`` and its own ``random_state``; an
        estimator with an ``n_components`` parameter left at None (ADK19's
        EMCov, ``IterativeEigenCovariance``) gets the integer
        ``n_components``, so that it spends its budget on those directions
        only. None: ``AutoCovariance(allow_zero=False)`` (ρ = 0.1;
        docs/choosing.rst): the automatic choice without its option of
        releasing nothing, which carries no direction (on digits at ε = 0.5
        it captured half the variance of a random subspace; docs/pca.rst).
        When giving an ``AutoCovariance`` of your own, set
        ``allow_zero=False`` for the same reason.

    whiten : bool, default=False
        Divide the projections by the square roots of the explained variances
        (each floored at the release's public noise level, so that no
        direction the release cannot resolve is blown up).

    random_state : int in [0, 2**63) or None, default=None
        Without ``covariance``: seeds the release (replacing the estimator's
        own ``random_state``). None draws fresh OS entropy: use it for real
        releases.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The principal axes, by decreasing released variance.

    explained_variance_ : ndarray of shape (n_components,)
        The released variance along each axis (eigenvalues of the release).

    explained_variance_ratio_ : ndarray of shape (n_components,)
        Their share of the released total variance.

    mean_ : ndarray of shape (n_features,)
        The release's private mean (zero for a release without one).

    n_components_ : int
        The number of components kept.

    release_ : CovarianceRelease
        The release the decomposition was computed from.

    {consumer_attributes}

    See Also
    --------
    skprivcov.AutoCovariance : The default release.
    skprivcov.IterativeEigenCovariance : ADK19's EMCov; with ``n_components``
        it spends a pure ε-DP budget on the top directions only.

    Notes
    -----
    Privacy: that of the release. With ``covariance`` the fit reads X, if
    given, only for its number of columns and their names; ``transform``
    reads the rows it is given (private only with respect to the training
    data).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.decomposition import PrivatePCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20000, 3)) * np.array([0.5, 0.2, 0.05])
    >>> release = GaussianCovariance(
    ...     rho=1.0, norm_bound=2.0, assume_centered=False, random_state=0
    ... ).fit(X)
    >>> pca = PrivatePCA(n_components=2, covariance=release).fit()
    >>> np.abs(pca.components_).round(1)
    array([[1., 0., 0.],
           [0., 1., 0.]])
    >>> print(pca.privacy_spent_)
    0-DP (pure)
    >>> pca.transform(X[:2]).shape
    (2, 2)
    """

    # Its held-out scores from a release (higher is better), the default
    # first: what ``skprivcov.model_selection.release_scorer`` computes (§14).
    _heldout_metrics = ("log_likelihood", "captured_variance")

    _parameter_constraints: dict = {
        "n_components": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="neither"),
            None,
        ],
        "covariance": [ReleasedCovarianceMixin, CovarianceRelease, None],
        "estimator": [BasePrivateCovariance, None],
        "whiten": ["boolean"],
        "random_state": RELEASE_SEED,
    }

    def __init__(
        self,
        n_components=None,
        *,
        covariance=None,
        estimator=None,
        whiten=False,
        random_state=None,
    ):
        self.n_components = n_components
        self.covariance = covariance
        self.estimator = estimator
        self.whiten = whiten
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X=None, y=None):
        """Decompose the release, or a release of X made here.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, Spark DataFrame} of shape \
(n_samples, n_features), default=None
            With ``covariance``: optional, read only for its number of columns
            and their names. Without: the training data (a Spark DataFrame
            is read in its partitions, docs/clusters.rst).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        release = self._obtain_release(X, check_public=self._check_n_components)
        if self.covariance is not None and X is None and release.feature_names:
            self.feature_names_in_ = np.asarray(release.feature_names, object)
        self._decompose(release)
        return self

    def _check_n_components(self, n_features):
        if isinstance(self.n_components, Integral) and self.n_components > n_features:
            raise ValueError(
                f"n_components={self.n_components} must be at most the number of "
                f"features, {n_features}."
            )

    def _default_estimator(self):
        # A zero release has no eigenvectors to speak of (§3.9, §15).
        return AutoCovariance(allow_zero=False)

    def _release_estimator(self):
        estimator = super()._release_estimator()
        params = estimator.get_params(deep=False)
        if (
            "n_components" in params
            and params["n_components"] is None
            and isinstance(self.n_components, Integral)
        ):
            # ADK19's rank-k EMCov: spend the budget on the top k directions.
            estimator.set_params(n_components=int(self.n_components))
        return estimator

    def _decompose(self, release):
        if release.mean is None:
            covariance, mean = release.second_moment, np.zeros(release.n_columns)
        else:
            covariance, mean = release.covariance, release.mean
        values, vectors = eigh_descending((covariance + covariance.T) / 2)
        values = np.maximum(values, 0.0)
        total = values.sum()
        if self.n_components is None:
            kept = values.size
        elif isinstance(self.n_components, Integral):
            kept = int(self.n_components)
        else:
            # The fewest components reaching the fraction of released variance.
            shares = np.cumsum(values) / total if total > 0 else np.ones(values.size)
            kept = int(np.searchsorted(shares, self.n_components) + 1)
            kept = min(kept, values.size)
        self.components_ = _sign_flip(vectors[:, :kept]).T
        self.explained_variance_ = values[:kept]
        self.explained_variance_ratio_ = (
            values[:kept] / total if total > 0 else np.zeros(kept)
        )
        self.mean_ = mean
        self.n_components_ = kept
        self._n_features_out = kept
        self.release_ = release
        # The smallest variance a whitened direction is divided by: the
        # release's public noise level when it states one.
        floor = release.noise_level or np.finfo(float).tiny
        self._whitening = np.sqrt(np.maximum(self.explained_variance_, floor))

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then project X on the components (``fit(X).transform(X)``).

        A Spark DataFrame is refused before anything is charged: the
        projection reads every row (fit on it, then transform rows you hold).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training data.
        y : Ignored
            Not used, present for API consistency by convention.
        **fit_params : dict
            Passed to :meth:`fit`.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            The projections of X.
        """
        self._refuse_spark_rows(X, "fit_transform")
        return super().fit_transform(X, y, **fit_params)

    def transform(self, X):
        """Project X on the components (centred by the private mean).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            The projections of X.
        """
        check_is_fitted(self, "components_")
        X = check_input(self, X, reset=False, accept_sparse=("csr", "csc"))
        projected = X @ self.components_.T - self.mean_ @ self.components_.T
        if self.whiten:
            projected = projected / self._whitening
        return np.asarray(projected)

    def inverse_transform(self, X):
        """Map projections back to the feature space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Projections on the components.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            The rows they map back to.
        """
        check_is_fitted(self, "components_")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_components_:
            raise ValueError(
                f"X must have shape (n_samples, {self.n_components_}); got {X.shape}."
            )
        if self.whiten:
            X = X * self._whitening
        return X @ self.components_ + self.mean_

    def _heldout_score(self, release, metric):
        """The held-out score ``metric`` (one of ``_heldout_metrics``) of the
        rows behind ``release``: post-processing of the releases."""
        score = log_likelihood if metric == "log_likelihood" else captured_variance
        return score(self, release)
