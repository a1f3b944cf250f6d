"""PrivateEllipticEnvelope: Mahalanobis outlier detection on a private release."""

from numbers import Real

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils.validation import check_is_fitted

from skprivcov._compat import Interval, fit_context
from skprivcov._data import check_input
from skprivcov._fit import RELEASE_SEED, fill_shared_docs, floored_inverse
from skprivcov.base import ReleasedCovarianceMixin
from skprivcov.covariance._base import BasePrivateCovariance
from skprivcov.covariance._consumer import ReleaseConsumerMixin
from skprivcov.covariance._release import CovarianceRelease

__all__ = ["PrivateEllipticEnvelope"]


@fill_shared_docs
class PrivateEllipticEnvelope(ReleaseConsumerMixin, OutlierMixin, BaseEstimator):
    """Outlier detection by Mahalanobis distance under a private covariance.

    A row is an outlier when its squared Mahalanobis distance under a released
    (private) mean and covariance exceeds the χ² quantile of a Gaussian at the
    public ``significance`` (docs/algorithms.rst §15). The threshold depends on
    public values only: unlike scikit-learn's ``EllipticEnvelope``, there is
    no ``contamination`` (its offset is a quantile of the training rows'
    scores, which would read the data outside the release). The precision has
    its eigenvalues floored at the release's public noise level, so distances
    are finite and directions the release cannot resolve do not dominate.

    Parameters
    ----------
    covariance : fitted skprivcov covariance estimator or CovarianceRelease, \
default=None
        The release to use (with a mean: ``assume_centered=False``). ``fit``
        then reads X, if given, only for its shape and names, and spends
        nothing; ``clone`` keeps it.

    estimator : skprivcov covariance estimator, default=None
        Without ``covariance``: the (unfitted) estimator that releases the
        mean and covariance of X in ``fit`` (a clone with
        ``assume_centered=False`` and this ``random_state``); its budget is
        spent. None: ``AutoCovariance()`` (ρ = 0.1).

    significance : float in (0, 1), default=0.01
        The share of Gaussian inliers flagged: the threshold on the squared
        distance is the (1 − significance) quantile of χ² with d degrees of
        freedom. Public.

    random_state : int in [0, 2**63) or None, default=None
        Without ``covariance``: seeds the release. None draws fresh OS
        entropy: use it for real releases.

    Attributes
    ----------
    location_ : ndarray of shape (n_features,)
        The private mean.

    covariance_ : ndarray of shape (n_features, n_features)
        The private covariance.

    precision_ : ndarray of shape (n_features, n_features)
        Its inverse, eigenvalues floored at the release's noise level.

    offset_ : float
        Minus the χ² threshold: ``decision_function = score_samples − offset_``.

    release_ : CovarianceRelease
        The release used.

    {consumer_attributes}

    See Also
    --------
    sklearn.covariance.EllipticEnvelope : The non-private detector.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.covariance import PrivateEllipticEnvelope
    >>> rng = np.random.default_rng(0)
    >>> X = 0.1 * rng.normal(size=(5000, 2))
    >>> release = GaussianCovariance(
    ...     rho=1.0, assume_centered=False, random_state=0
    ... ).fit(X)
    >>> detector = PrivateEllipticEnvelope(covariance=release).fit()
    >>> detector.predict([[0.0, 0.05], [0.6, -0.6]])
    array([ 1, -1])
    """

    _parameter_constraints: dict = {
        "covariance": [ReleasedCovarianceMixin, CovarianceRelease, None],
        "estimator": [BasePrivateCovariance, None],
        "significance": [Interval(Real, 0, 1, closed="neither")],
        "random_state": RELEASE_SEED,
    }

    def __init__(
        self, *, covariance=None, estimator=None, significance=0.01, random_state=None
    ):
        self.covariance = covariance
        self.estimator = estimator
        self.significance = significance
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X=None, y=None):
        """Take the release, or make one of X.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, Spark DataFrame} of shape \
(n_samples, n_features), default=None
            With ``covariance``: optional, read for its shape and names only.
            Without: the training data (a Spark DataFrame is read in its
            partitions, docs/clusters.rst).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        release = self._obtain_release(X)
        if release.mean is None:
            raise ValueError(
                "Mahalanobis distances need the release's mean: fit the covariance "
                "estimator with assume_centered=False."
            )
        self._set_release(release)
        return self

    def fit_predict(self, X, y=None, **kwargs):
        """Fit, then label the rows of X (``fit(X).predict(X)``).

        A Spark DataFrame is refused before anything is charged: the labels
        read every row (fit on it, then predict rows you hold).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training data.
        y : Ignored
            Not used, present for API consistency by convention.
        **kwargs : dict
            Passed to :meth:`fit`.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            +1 for inliers, −1 for outliers.
        """
        self._refuse_spark_rows(X, "fit_predict")
        return super().fit_predict(X, y, **kwargs)

    def _set_release(self, release):
        self.release_ = release
        self.location_ = np.asarray(release.mean)
        self.covariance_ = release.covariance
        floor = release.noise_level or np.finfo(float).tiny
        self.precision_ = floored_inverse(self.covariance_, floor)
        self.offset_ = -float(
            stats.chi2.ppf(1.0 - self.significance, df=release.n_columns)
        )

    def mahalanobis(self, X):
        """Squared Mahalanobis distances of the rows of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The observations.

        Returns
        -------
        dist : ndarray of shape (n_samples,)
            Squared Mahalanobis distances of the observations.
        """
        check_is_fitted(self, "precision_")
        X = check_input(self, X, reset=False)
        centred = X - self.location_
        return np.einsum("ij,ij->i", centred @ self.precision_, centred)

    def score_samples(self, X):
        """Compute minus the squared Mahalanobis distances (greater is more normal).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The observations.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Minus the squared Mahalanobis distances.
        """
        return -self.mahalanobis(X)

    def decision_function(self, X):
        """``score_samples(X) − offset_``: negative for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The observations.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            The shifted scores, negative for outliers.
        """
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """+1 for inliers, −1 for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The observations.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            +1 for inliers, −1 for outliers.
        """
        return np.where(self.decision_function(X) >= 0, 1, -1)
