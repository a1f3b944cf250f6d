"""The base class of the private covariance estimators.

It runs the template of every fit (docs/algorithms.rst §13.2; the shared
pieces are in :mod:`skprivcov.base`) around the estimator's one hook,
``_release``, which reads the data only through
:class:`skprivcov.base.ClippedData` and calls its mechanism.
"""

from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator

from skprivcov._compat import fit_context
from skprivcov._data import as_numeric, center
from skprivcov._fit import (
    BUDGET,
    DELTA,
    FEATURE_SCALING,
    NOISE,
    NONFINITE,
    PROJECTION,
    RELEASE_NORM_BOUND,
    RELEASE_SEED,
    auto_norm_bound,
    bound_quantile,
    bound_range,
    check_feature_scaling,
    choose_feature_scaling,
    eigenvalue_floor,
    estimator_budget,
    fill_shared_docs,
    is_private_bound,
    scaling_mode,
    signal_to_noise,
    to_raw_units,
    warn_if_noise_dominated,
)
from skprivcov.base import (
    ClippedData,
    PrivateFitMixin,
    Release,
    ReleasedCovarianceMixin,
)
from skprivcov.mechanisms import (
    project_psd,
    project_psd_trace_ball,
    split_budget,
)
from skprivcov.privacy import (
    PrivacyAccountant,
    PrivacyCost,
)

__all__ = ["BasePrivateCovariance"]


@fill_shared_docs
class BasePrivateCovariance(
    PrivateFitMixin, ReleasedCovarianceMixin, BaseEstimator, metaclass=ABCMeta
):
    """Base class of the estimators that release a noisy second moment.

    A subclass implements the one hook :meth:`_release` (most call
    :meth:`_release_at_norm_bound` with their mechanism), and states the
    notions it offers, its default budget and caveats; the fit does the rest.

    Parameters
    ----------
    {budget_parameters}

    {release_parameters}

    See Also
    --------
    GaussianCovariance : A subclass: the Gaussian mechanism.
    skprivcov.base.ReleasedCovarianceMixin : The methods of a fitted release.

    Examples
    --------
    >>> from skprivcov.covariance import BasePrivateCovariance, GaussianCovariance
    >>> issubclass(GaussianCovariance, BasePrivateCovariance)
    True
    """

    _parameter_constraints: dict = {
        "rho": BUDGET,
        "epsilon": BUDGET,
        "delta": DELTA,
        "norm_bound": RELEASE_NORM_BOUND,
        "feature_scaling": FEATURE_SCALING,
        "assume_centered": ["boolean"],
        "projection": PROJECTION,
        "nonfinite": NONFINITE,
        "noise": NOISE,
        "random_state": RELEASE_SEED,
        "accountant": [PrivacyAccountant, None],
    }
    # Notions the mechanism offers, and the budget when none is given.
    _notions = ("zcdp",)
    _default_budget = PrivacyCost.zcdp(0.1)
    # Caveats of the mechanism's guarantee, recorded with every charge.
    _caveats = ()
    # Whether the mechanism's release is PSD, so the centred one is kept PSD.
    _psd_release = False
    # Whether the mechanism clips at norm_bound="auto"'s bound (§18.2), or
    # searches its own threshold inside it (AdaptiveCov: False), which decides
    # the quantile the bound aims at (:func:`bound_quantile`).
    _clips_at_bound = True

    def __init__(
        self,
        *,
        rho=None,
        epsilon=None,
        delta=None,
        norm_bound="auto",
        feature_scaling="auto",
        assume_centered=False,
        projection="psd-trace",
        nonfinite="raise",
        noise="hardened",
        random_state=None,
        accountant=None,
    ):
        self.rho = rho
        self.epsilon = epsilon
        self.delta = delta
        self.norm_bound = norm_bound
        self.feature_scaling = feature_scaling
        self.assume_centered = assume_centered
        self.projection = projection
        self.nonfinite = nonfinite
        self.noise = noise
        self.random_state = random_state
        self.accountant = accountant

    def fit_cost(self):
        """What one fit will spend, from the parameters alone (no data).

        Returns
        -------
        cost : PrivacyCost
            The budget given by ``rho``, ``epsilon`` and ``delta`` (or the
            default), with the caveats of the mechanism.
        """
        return self._resolve_budget()

    def _resolve_budget(self):
        return estimator_budget(self).with_caveats(self._caveats)

    def _check_parameters(self, X):
        """Checks of parameter combinations (and of parameters against the
        shape of X) that a subclass needs; run before the accountant is
        charged. None here."""

    @abstractmethod
    def _release(self, data, budget, rng):
        """The estimator's mechanism on the charged data.

        Parameters
        ----------
        data : ClippedData
            The only access to the data: statistics of clipped rows.
        budget : PrivacyCost
            The budget charged for this fit (with the mechanism's caveats).
        rng : numpy.random.Generator
            The only source of noise.

        Returns
        -------
        release : Release
        """

    def _release_at_norm_bound(
        self, mechanism, data, budget, rng, *, exact_trace=False, **options
    ):
        """The one-pass case of :meth:`_release`: ``mechanism`` (a function of
        ``skprivcov.mechanisms`` taking ``(second_moment, n_samples, budget,
        rng, **options)`` and returning ``(release, parts)``) on the rows
        clipped at ``norm_bound_``. With ``exact_trace`` it also gets
        ``trace=``, the exact trace of the target (docs/algorithms.rst §13.6)."""
        bound = self.norm_bound_
        target = data.target(bound)
        if exact_trace:
            options["trace"] = target.trace
        matrix, parts = mechanism(target.matrix, data.n_samples, budget, rng, **options)
        return Release(matrix, parts, bound)

    def _post_process(self, matrix):
        """(covariance, location) at unit scale from the mechanism's release.

        With ``projection="psd-trace"`` (the default) the covariance is the
        Frobenius projection onto {PSD, trace ≤ 1} (docs/algorithms.rst §4.2),
        a closed convex set that contains the covariance of any unit-ball rows
        (centred or not: tr(S − m mᵀ) ≤ tr S ≤ 1), so its Frobenius error is
        never larger than the mechanism's; the mean of augmented rows is
        projected onto the unit ball for the same reason. With None, the
        mechanism's own output (as its paper defines it; the centred one of a
        PSD mechanism kept PSD).
        """
        if self.assume_centered:
            covariance, location = matrix, np.zeros(matrix.shape[0])
        else:
            covariance, location = center(matrix)
        if self.projection == "psd-trace":
            # A PSD mechanism's uncentred release of trace ≤ 1 is in the set
            # already (projecting again would only cost an eigendecomposition).
            inside = self.assume_centered and self._psd_release
            if not (inside and np.trace(covariance) <= 1.0):
                covariance = project_psd_trace_ball(covariance, 1.0)
            location = location / max(1.0, float(np.linalg.norm(location)))
        elif not self.assume_centered and self._psd_release:
            covariance = project_psd(covariance)
        return covariance, location

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release a private covariance of X.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, Spark DataFrame} of shape \
                (n_samples, n_features)
            Training data; rows beyond ``norm_bound`` are clipped. Arrays and
            memmaps (float64 or float32), CSR and CSC matrices and dask arrays
            are read chunk by chunk and never copied whole (docs/large_data.rst);
            a ``pyspark.sql.DataFrame`` in its partitions (docs/clusters.rst).
            Its values (numbers, finiteness) are checked after the budget is
            charged; see ``nonfinite``.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_privately(X)

    # The hooks of the fit template (skprivcov.base.PrivateFitMixin).

    def _check_public(self, X, y):
        X = self._validate_input(X)
        self._check_parameters(X)
        # A public centre and scale are checked before the charge (§23).
        self._public_scaling = check_feature_scaling(
            getattr(self, "feature_scaling", None),
            self.n_features_in_,
            self.assume_centered,
        )
        return X

    def _fit_cost(self, facts):
        return self._resolve_budget()

    def _open(self, X, cost, rng):
        return ClippedData(
            as_numeric(X), augmented=not self.assume_centered, nonfinite=self.nonfinite
        )

    def _choose_bounds(self, data, cost, rng):
        # §23: the rows mapped to z = (x − c)/s first (a private c and s at
        # their parts, or public ones), then the norm bound chosen for z.
        data, scaling_parts, cost, centre, scale = choose_feature_scaling(
            scaling_mode(self.feature_scaling, self.norm_bound),
            self._public_scaling,
            data,
            cost,
            rng,
            centred=not self.assume_centered,
        )
        # No centre is released for rows taken as centred (§23).
        self.feature_location_ = None if self.assume_centered else centre
        self.feature_scale_ = scale
        bound_parts, rest = self._choose_norm_bound(data, cost, rng)
        return data, (*scaling_parts, *bound_parts), rest

    def _store(self, release, data, budget):
        # Post-processing of the release only; back to the scale of the data
        # (of z, when the rows were mapped: §23), then to the rows' units.
        covariance, location = self._post_process(release.matrix)
        scale = release.scale**2
        covariance, location = covariance * scale, location * release.scale
        # The noise level of what the release spent (without the bound's part).
        floor = scale * eigenvalue_floor(data.n_samples, self.n_features_in_, budget)
        # How much of the release is noise (§23): post-processing of the
        # release and public facts, warned about when it is most of it.
        self.signal_to_noise_ = signal_to_noise(
            covariance,
            release.scale,
            data.n_samples,
            self.n_features_in_,
            budget,
        )
        feature_scale = self.feature_scale_
        centre = self.feature_location_
        if centre is None and feature_scale is not None:
            centre = np.zeros(self.n_features_in_)
        self._set_release(*to_raw_units(covariance, location, centre, feature_scale))
        # In the rows' units the noise's spectral level is at most the
        # largest scale² times its level in z's space (§23).
        largest = 1.0 if feature_scale is None else float(np.max(feature_scale)) ** 2
        self.eigenvalue_floor_ = floor * largest
        for name, value in (release.extras or {}).items():
            setattr(self, name, value)
        if self.signal_to_noise_ == 0.0 and hasattr(self, "mechanism_"):
            self.mechanism_ = "zero"  # nothing was released (§23)
        warn_if_noise_dominated(
            type(self).__name__, self.signal_to_noise_, data.n_samples, budget
        )

    def _choose_norm_bound(self, data, budget, rng):
        """Set ``norm_bound_``; return (the parts spent on it, what is left
        for the release). A public bound costs nothing; "auto" spends the
        part ``"norm bound"`` on a private high quantile of the row norms
        (docs/algorithms.rst §18.2), and the release the rest, on the same
        rows (sequential composition)."""
        if not is_private_bound(self.norm_bound):
            self.norm_bound_ = float(self.norm_bound)
            return (), budget
        _, rest = split_budget("norm bound auto", budget)
        quantile = bound_quantile(
            data.n_samples, self.n_features_in_, rest.cost, self._clips_at_bound
        )
        parts, rest, self.norm_bound_ = auto_norm_bound(
            data,
            budget,
            rng,
            owner=type(self).__name__,
            bound_range=bound_range(self.norm_bound),
            quantile=quantile,
        )
        return parts, rest
