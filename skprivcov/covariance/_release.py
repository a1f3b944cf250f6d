"""A released second moment as a value: what post-processing may read."""

import hashlib
from dataclasses import dataclass, replace

import numpy as np
from sklearn.utils.validation import check_is_fitted

from skprivcov._fit import describe
from skprivcov.privacy import PrivacyCost

__all__ = ["CovarianceRelease"]


def _read_only(array):
    array = np.array(array, dtype=np.float64, copy=True)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class CovarianceRelease:
    """A published second moment, with the metadata post-processing needs.

    Everything computed from a release (ridge for any target, feature subset
    and alpha; a centred covariance; a precision) is post-processing and costs
    no further privacy. Build one from a fitted skprivcov estimator with
    :meth:`from_estimator`, or directly from matrices released elsewhere.

    Parameters
    ----------
    second_moment : array-like of shape (n_columns, n_columns)
        The released uncentred second moment (1/n) Σ x xᵀ of the rows, per
        row (divided by n). Must be symmetric (up to rounding, then it is
        symmetrised) and finite. It need not be positive semi-definite.

    mean : array-like of shape (n_columns,), default=None
        The released mean of the rows, if one was released (needed for an
        intercept or a centred covariance); None otherwise.

    feature_names : sequence of str, default=None
        The names of the columns, if known.

    privacy_spent : PrivacyCost, default=None
        What the release cost, if known; a record only.

    n_samples : int, default=None
        The (public) number of rows, if known; a record only.

    source : str, default="array"
        Who made the release (an estimator and its public parameters).

    noise_level : float >= 0, default=None
        The spectral noise level of the release in its units, if known
        (the ``eigenvalue_floor_`` of the estimator that made it: public n, d
        and budget times the release's published scale; see
        docs/algorithms.rst §15). ``PrivateRidge(alpha="auto")`` sets its
        penalty from it (§16).

    Attributes
    ----------
    covariance : ndarray of shape (n_columns, n_columns)
        The centred covariance ``second_moment − mean meanᵀ`` (requires
        ``mean``).

    fingerprint : str
        SHA-256 of the released values: which release a model was fit from.

    See Also
    --------
    skprivcov.linear_model.PrivateRidge : A model fit from a release.
    skprivcov.decomposition.PrivatePCA : Another.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import CovarianceRelease
    >>> release = CovarianceRelease(np.eye(2), mean=np.array([0.5, 0.0]))
    >>> release.covariance
    array([[0.75, 0.  ],
           [0.  , 1.  ]])
    """

    second_moment: np.ndarray
    mean: np.ndarray | None = None
    feature_names: tuple | None = None
    privacy_spent: PrivacyCost | None = None
    n_samples: int | None = None
    source: str = "array"
    noise_level: float | None = None

    def __post_init__(self):
        moment = np.asarray(self.second_moment)
        if moment.ndim != 2 or moment.shape[0] != moment.shape[1]:
            raise ValueError(
                "A released second moment must be a square matrix; got shape "
                f"{moment.shape}."
            )
        if moment.shape[0] < 2:
            raise ValueError(
                "A release for a model needs at least 2 columns (features and a "
                f"target); got shape {moment.shape}."
            )
        if not np.issubdtype(moment.dtype, np.number):
            raise ValueError(f"A release must be numeric; got dtype {moment.dtype}.")
        moment = moment.astype(np.float64)
        if not np.all(np.isfinite(moment)):
            raise ValueError("A released second moment must be finite (no NaN/inf).")
        scale = max(float(np.abs(moment).max()), np.finfo(float).tiny)
        if np.abs(moment - moment.T).max() > 1e-8 * scale:
            raise ValueError("A released second moment must be symmetric.")
        object.__setattr__(self, "second_moment", _read_only((moment + moment.T) / 2))
        if self.mean is not None:
            mean = np.asarray(self.mean, dtype=np.float64)
            if mean.shape != (moment.shape[0],):
                raise ValueError(
                    f"The mean must have shape ({moment.shape[0]},) to match the "
                    f"second moment; got shape {mean.shape}."
                )
            if not np.all(np.isfinite(mean)):
                raise ValueError("A released mean must be finite (no NaN/inf).")
            object.__setattr__(self, "mean", _read_only(mean))
        if self.feature_names is not None:
            names = tuple(str(name) for name in self.feature_names)
            if len(names) != moment.shape[0]:
                raise ValueError(
                    f"{len(names)} feature names for a release of "
                    f"{moment.shape[0]} columns."
                )
            object.__setattr__(self, "feature_names", names)
        if self.noise_level is not None:
            level = float(self.noise_level)
            if not (np.isfinite(level) and level >= 0):
                raise ValueError("noise_level must be a finite number >= 0.")
            object.__setattr__(self, "noise_level", level)
        if self.privacy_spent is not None and not isinstance(
            self.privacy_spent, PrivacyCost
        ):
            raise TypeError(
                f"privacy_spent must be a PrivacyCost, got {self.privacy_spent!r}."
            )

    @classmethod
    def from_estimator(cls, estimator, *, n_samples=None):
        """The release of a fitted skprivcov covariance estimator.

        Reads only its released values: ``covariance_``, ``location_`` (a mean
        only if the estimator was fitted with ``assume_centered=False``), its
        feature names and ``privacy_spent_``.

        Parameters
        ----------
        estimator : fitted skprivcov covariance estimator
            The fitted estimator.

        n_samples : int, default=None
            The number of rows it was fitted on, to record.

        Returns
        -------
        release : CovarianceRelease
            Its release.
        """
        check_is_fitted(estimator, ("covariance_", "privacy_spent_"))
        covariance = np.asarray(estimator.covariance_)
        if estimator.assume_centered:
            second_moment, mean = covariance, None
        else:
            mean = np.asarray(estimator.location_)
            second_moment = covariance + np.outer(mean, mean)
        return cls(
            second_moment=second_moment,
            mean=mean,
            feature_names=getattr(estimator, "feature_names_in_", None),
            privacy_spent=estimator.privacy_spent_,
            n_samples=n_samples,
            source=describe(estimator),
            noise_level=getattr(estimator, "eigenvalue_floor_", None),
        )

    @classmethod
    def pooled(cls, releases, *, privacy_spent=None, source="pooled"):
        """The release of the union of the rows behind ``releases``.

        Second moments and means are averaged with weights n_k / Σ n_k, so
        every release needs ``n_samples``. Post-processing; what the pool cost
        depends on how the rows were split (for disjoint rows, the largest of
        the costs: parallel composition), so give it as ``privacy_spent``.

        Parameters
        ----------
        releases : sequence of CovarianceRelease
            The releases, of disjoint sets of rows.
        privacy_spent : PrivacyCost, default=None
            The cost of the pooled release; None for the composition of the releases'
            costs.
        source : str, default="pooled"
            A name for the pooled release.

        Returns
        -------
        release : CovarianceRelease
            The pooled release.
        """
        if any(release.n_samples is None for release in releases):
            raise ValueError("Pooling releases needs the n_samples of each.")
        counts = np.array([release.n_samples for release in releases], float)
        weights = counts / counts.sum()
        second_moment = sum(
            w * release.second_moment
            for w, release in zip(weights, releases, strict=True)
        )
        with_mean = all(release.mean is not None for release in releases)
        mean = (
            sum(w * release.mean for w, release in zip(weights, releases, strict=True))
            if with_mean
            else None
        )
        levels = [release.noise_level for release in releases]
        # Independent noises averaged with weights w_k: variances add (w_k²).
        noise_level = (
            None
            if any(level is None for level in levels)
            else float(np.sqrt(np.sum((weights * np.asarray(levels)) ** 2)))
        )
        return cls(
            second_moment=second_moment,
            mean=mean,
            feature_names=releases[0].feature_names,
            privacy_spent=privacy_spent,
            n_samples=int(counts.sum()),
            source=source,
            noise_level=noise_level,
        )

    @classmethod
    def of(cls, covariance, *, owner, arrays=False):
        """The release behind what a model's ``covariance=`` parameter accepts.

        Parameters
        ----------
        covariance : CovarianceRelease, fitted skprivcov estimator or array
            A CovarianceRelease is returned as it is; a fitted skprivcov
            covariance estimator gives :meth:`from_estimator` (an unfitted one
            is refused: fitting it would spend privacy); with ``arrays``, an
            array is taken as an uncentred second moment without a mean.
        owner : str
            The model's name, for the messages.
        arrays : bool, default=False
            Whether an array is accepted.

        Returns
        -------
        release : CovarianceRelease
            The release.
        """
        if isinstance(covariance, cls):
            return covariance
        if hasattr(covariance, "fit"):
            if not hasattr(covariance, "covariance_"):
                raise ValueError(
                    f"covariance={type(covariance).__name__}(...) is not fitted. "
                    "Give a fitted estimator (or its "
                    "CovarianceRelease.from_estimator(...)); "
                    f"{owner} never fits it, since that would spend privacy."
                )
            return cls.from_estimator(covariance)
        if arrays:
            return cls(second_moment=np.asarray(covariance))
        raise TypeError(
            "covariance must be a fitted skprivcov estimator or a "
            f"CovarianceRelease; got {type(covariance).__name__}."
        )

    @property
    def n_columns(self):
        return self.second_moment.shape[0]

    @property
    def covariance(self):
        if self.mean is None:
            raise ValueError(
                "This release has no mean (the estimator assumed centred data), "
                "so it gives no centred covariance."
            )
        return self.second_moment - np.outer(self.mean, self.mean)

    @property
    def fingerprint(self):
        digest = hashlib.sha256(self.second_moment.tobytes())
        if self.mean is not None:
            digest.update(self.mean.tobytes())
        return digest.hexdigest()

    def affine_transformed(self, scales, shifts=None, *, feature_names=None):
        """The release of the rows D x + s, D = diag(scales) (post-processing).

        m' = D m + s and S' = D S D + (D m) sᵀ + s (D m)ᵀ + s sᵀ; a shift
        needs the mean.

        Parameters
        ----------
        scales : array-like of shape (n_columns,)
            The diagonal of D.
        shifts : array-like of shape (n_columns,), default=None
            The shift s; None for zero.
        feature_names : sequence of str, default=None
            Names of the new columns.

        Returns
        -------
        release : CovarianceRelease
            The release of the transformed rows, with the same cost.
        """
        scales = np.asarray(scales, dtype=np.float64)
        second_moment = self.second_moment * np.outer(scales, scales)
        mean = None if self.mean is None else scales * self.mean
        if shifts is not None and np.any(shifts):
            if mean is None:
                raise ValueError("Shifting a release needs its mean.")
            shifts = np.asarray(shifts, dtype=np.float64)
            cross = np.outer(mean, shifts)
            second_moment = second_moment + cross + cross.T + np.outer(shifts, shifts)
            mean = mean + shifts
        # The noise level scales with the square of a common scale; with
        # different scales per column it is no longer one number.
        same = scales.size and np.all(scales == scales[0])
        noise_level = (
            None
            if self.noise_level is None or not same
            else self.noise_level * float(scales[0]) ** 2
        )
        return replace(
            self,
            second_moment=second_moment,
            mean=mean,
            feature_names=feature_names,
            noise_level=noise_level,
        )

    def augmented(self):
        """The second moment [[S, m], [mᵀ, 1]] of the rows with a constant 1 appended.

        See docs/algorithms.rst §8.2; the constant's entry is public.

        Returns
        -------
        augmented : ndarray of shape (n_columns + 1, n_columns + 1)
            The augmented second moment.
        """
        if self.mean is None:
            raise ValueError("This release has no mean; it cannot be augmented.")
        p = self.n_columns
        augmented = np.empty((p + 1, p + 1))
        augmented[:p, :p] = self.second_moment
        augmented[:p, p] = augmented[p, :p] = self.mean
        augmented[p, p] = 1.0
        return augmented

    def __deepcopy__(self, memo):
        # Immutable: clone() of a model holding a release shares it.
        return self

    def __repr__(self):
        return (
            f"CovarianceRelease(n_columns={self.n_columns}, "
            f"mean={'yes' if self.mean is not None else 'no'}, "
            f"source={self.source!r}, privacy_spent={self.privacy_spent}, "
            f"fingerprint={self.fingerprint[:12]!r})"
        )
