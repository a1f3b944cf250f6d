"""The zero matrix: the trivial, free baseline."""

import numpy as np
from sklearn.base import BaseEstimator

from skprivcov._compat import fit_context
from skprivcov._fit import NORM_BOUND, eigenvalue_floor
from skprivcov.base import PrivateFitMixin, Release, ReleasedCovarianceMixin
from skprivcov.privacy import PrivacyAccountant, PrivacyCost

__all__ = ["ZeroCovariance"]


class ZeroCovariance(PrivateFitMixin, ReleasedCovarianceMixin, BaseEstimator):
    """Releases the zero matrix, reading nothing but the shape of X.

    The trace-sensitive baseline of DLY22: when the trace of the data is tiny,
    no mechanism should do worse than releasing zero. Its error is ‖Σ‖_F.

    Parameters
    ----------
    norm_bound : float in [1e-30, 1e30], default=1.0
        Public bound B on the ℓ2 norm of a row. Only sets ``precision_``:
        with nothing released, the isotropic guess of trace B², (B²/d)·I, is
        the floor of every eigenvalue (so ``score`` and ``mahalanobis`` are
        finite, as for the other estimators).

    assume_centered : bool, default=True
        Only decides the meaning of ``location_`` (always zero here), for a
        drop-in comparison with the other estimators.

    accountant : PrivacyAccountant, default=None
        If given, each fit is recorded in its ledger at zero cost.

    Attributes
    ----------
    covariance_ : ndarray of shape (n_features, n_features)
        Zeros.

    location_ : ndarray of shape (n_features,)
        Zeros.

    precision_ : ndarray of shape (n_features, n_features)
        (d/B²)·I: the inverse of ``covariance_`` with its eigenvalues floored
        at ``eigenvalue_floor_``.

    eigenvalue_floor_ : float
        B²/d.

    privacy_spent_ : PrivacyCost
        Zero: only the public n and d are read.

    privacy_parts_ : tuple
        Empty: nothing is spent.

    n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    AutoCovariance : Chooses it when releasing nothing is the most accurate.
    GaussianCovariance : A release that reads the data.

    Notes
    -----
    It reads no value of X at all, only its shape, dtype kind and column names
    (public facts), so it is 0-DP and cannot be used to learn anything about
    the values: NaN, infinite or non-numeric entries are not even looked at
    (docs/algorithms.rst §13.2).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import ZeroCovariance
    >>> est = ZeroCovariance().fit(np.ones((5, 2)))
    >>> est.covariance_
    array([[0., 0.],
           [0., 0.]])
    >>> print(est.privacy_spent_)
    0-DP (pure)
    """

    _parameter_constraints: dict = {
        "norm_bound": NORM_BOUND,
        "assume_centered": ["boolean"],
        "accountant": [PrivacyAccountant, None],
    }

    def __init__(self, *, norm_bound=1.0, assume_centered=True, accountant=None):
        self.norm_bound = norm_bound
        self.assume_centered = assume_centered
        self.accountant = accountant

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # No value is read, so none is refused.
        tags.input_tags.allow_nan = True
        return tags

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release the zero matrix.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; only its shape is used.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_privately(X)

    # The hooks of the fit template (skprivcov.base.PrivateFitMixin): a free
    # release, whose values are never read.

    def _check_public(self, X, y):
        return self._validate_input(X).shape

    def _fit_cost(self, facts):
        return PrivacyCost.zero()

    def _generator(self, facts):
        return None  # nothing is drawn

    def _open(self, shape, cost, rng):
        return shape

    def _release(self, shape, budget, rng):
        n_features = shape[1]
        return Release(np.zeros((n_features, n_features)), (), self.norm_bound)

    def _store(self, release, shape, budget):
        n_samples, n_features = shape
        self._set_release(release.matrix, np.zeros(n_features))
        self.eigenvalue_floor_ = self.norm_bound**2 * eigenvalue_floor(
            n_samples, n_features, PrivacyCost.zero()
        )
        return self
