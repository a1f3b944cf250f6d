"""What the models built on one release share: take it, or make it."""

from sklearn.base import clone
from sklearn.utils.validation import validate_data

from skprivcov._data import check_public as public_checks
from skprivcov._data import (
    check_spark_dataframe,
    is_spark_dataframe,
    spark_refusal,
)
from skprivcov.covariance._auto import AutoCovariance
from skprivcov.covariance._release import CovarianceRelease
from skprivcov.privacy import PrivacyCost

__all__ = ["ReleaseConsumerMixin"]


class ReleaseConsumerMixin:
    """The shared fit of the models built on one release: take it, or make it.

    For a model with ``covariance`` (a release), ``estimator`` (to make one) and
    ``random_state`` parameters (PrivatePCA, PrivateEllipticEnvelope).

    :meth:`_obtain_release` returns the release and sets ``privacy_spent_``,
    ``privacy_parts_``, ``n_features_in_`` (and ``feature_names_in_``,
    ``estimator_`` when the release is made here).

    See Also
    --------
    CovarianceRelease : The release a consumer takes.
    skprivcov.decomposition.PrivatePCA : A consumer.

    Examples
    --------
    >>> from skprivcov.covariance import (
    ...     PrivateEllipticEnvelope,
    ...     ReleaseConsumerMixin,
    ... )
    >>> issubclass(PrivateEllipticEnvelope, ReleaseConsumerMixin)
    True
    """

    # fit takes a Spark DataFrame: the release is made by a covariance
    # estimator, which reads it in its partitions (docs/clusters.rst), or X
    # is read for its schema only. What returns a value per row (transform,
    # predict) refuses it.
    _spark_input = True

    def _refuse_spark_rows(self, X, method):
        """Refuse Spark input to ``method`` (fit_transform, fit_predict)
        before the fit charges anything: it would then read every row."""
        if is_spark_dataframe(X):
            raise spark_refusal(
                type(self).__name__,
                reason=f"{method} returns a value computed from each row",
            )

    def __sklearn_clone__(self):
        # A release is published data, not a model: cloning a fitted covariance
        # estimator would unfit it (and a refit would spend privacy again).
        return super().__sklearn_clone__().set_params(covariance=self.covariance)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _obtain_release(self, X, *, check_public=None):
        """The release given as ``covariance`` (X read for its shape and names
        only; nothing spent), or one of X made by a clone of ``estimator``
        (default :meth:`_default_estimator`) with ``assume_centered=False`` and this
        ``random_state``; ``check_public(n_features)`` runs before its charge.
        """
        owner = type(self).__name__
        for stale in ("estimator_", "feature_names_in_"):
            self.__dict__.pop(stale, None)  # from an earlier fit
        if self.covariance is not None:
            if self.estimator is not None:
                raise ValueError(
                    "Give either covariance (a release) or estimator (to make one), "
                    "not both."
                )
            release = CovarianceRelease.of(self.covariance, owner=owner)
            if X is not None and is_spark_dataframe(X):
                # Its schema and count only: no value of X is read.
                public_checks(
                    self,
                    X,
                    reset=True,
                    accept_spark=True,
                    ensure_min_samples=1,
                    ensure_min_features=1,
                )
            elif X is not None:
                # Only the shape and column names: no value of X is read.
                validate_data(self, X, reset=True, skip_check_array=True)
            if X is not None:
                if self.n_features_in_ != release.n_columns:
                    raise ValueError(
                        f"X has {self.n_features_in_} features, but the release "
                        f"has {release.n_columns}."
                    )
            else:
                self.n_features_in_ = release.n_columns
            if check_public is not None:
                check_public(release.n_columns)
            self.privacy_spent_ = PrivacyCost.zero()
            self.privacy_parts_ = ()
            return release
        if X is None:
            raise ValueError(
                f"{owner} without covariance releases X in fit: give X (or a "
                "release as covariance=...)."
            )
        estimator = self._release_estimator()
        if is_spark_dataframe(X):
            # Its schema and count, once: the estimator's fit takes the
            # validated rows, and the shape is known for the checks below.
            X = check_spark_dataframe(
                X, ensure_min_samples=1, ensure_min_features=1, owner=owner
            )
        if check_public is not None:
            shape = getattr(X, "shape", None)
            if shape is not None and len(shape) == 2 and shape[1] >= 1:
                check_public(shape[1])  # else the estimator's own checks say
        # Its fit checks X's public facts and charges its accountant before
        # reading any value (docs/algorithms.rst §13.2).
        estimator.fit(X)
        self.estimator_ = estimator
        self.n_features_in_ = estimator.n_features_in_
        if hasattr(estimator, "feature_names_in_"):
            self.feature_names_in_ = estimator.feature_names_in_
        self.privacy_spent_ = estimator.privacy_spent_
        self.privacy_parts_ = estimator.privacy_parts_
        return CovarianceRelease.from_estimator(estimator)

    def _planned_charges(self):
        """The charges one fit makes: none from a given release, else those of
        the release it makes (``skprivcov.model_selection.planned_charges``)."""
        if self.covariance is not None:
            return []
        estimator = self._release_estimator()
        return [(estimator.accountant, estimator.fit_cost())]

    def _default_estimator(self):
        """What makes the release when ``estimator`` is None."""
        return AutoCovariance()

    def _release_estimator(self):
        """A fresh clone of ``estimator`` (never the user's instance)."""
        estimator = self.estimator
        if estimator is None:
            estimator = self._default_estimator()
        return clone(estimator).set_params(
            assume_centered=False, random_state=self.random_state
        )
