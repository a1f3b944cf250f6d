"""Base classes of the private covariance estimators.

The template of every fit (docs/algorithms.rst §13.2): resolve the budget → the
public checks of X (shape, dtype kind, sparse format; no value read) → charge
the accountant → convert values → generator → the estimator's one hook,
``_release``, which reads the data only through :class:`ClippedData` (where
the values are checked) and calls its mechanism → the parts it spent checked
against the budget → post-processing and storage → ``privacy_spent_`` and
``privacy_parts_``. An estimator never draws noise itself.
"""

from abc import ABCMeta, abstractmethod
from typing import NamedTuple

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, _fit_context
from sklearn.covariance import empirical_covariance, log_likelihood
from sklearn.utils.validation import check_is_fitted

from skprivcov._centering import center
from skprivcov._constraints import (
    BUDGET,
    DELTA,
    NOISE,
    NONFINITE,
    PROJECTION,
    RELEASE_NORM_BOUND,
    RELEASE_SEED,
)
from skprivcov._random import release_generator, seed_description
from skprivcov._validation import as_numeric, check_input, check_public
from skprivcov.covariance._clipped_data import ClippedData
from skprivcov.mechanisms import (
    FIXED_BOUND_QUANTILE,
    NOISY_AT,
    noise_level,
    project_psd,
    project_psd_trace_ball,
    split_budget,
)
from skprivcov.privacy import (
    PrivacyAccountant,
    PrivacyCost,
    check_within,
    compose_parts,
    resolve_budget,
)

__all__ = [
    "BasePrivateCovariance",
    "Release",
    "ReleasedCovarianceMixin",
    "auto_norm_bound",
    "bound_quantile",
    "bound_range",
    "charge",
    "describe",
    "eigenvalue_floor",
    "floored_inverse",
    "is_private_bound",
    "public_parameters",
]


class Release(NamedTuple):
    """What an estimator's mechanism hands back to the fit: the one protocol.

    matrix : the release at unit scale (rows scaled into the unit ball by
        ``scale``); the fit multiplies it by ``scale``².
    parts : the parts of the budget spent (tuple of BudgetPart), from the
        mechanism's split (``skprivcov.mechanisms.SPLITS``); public.
    scale : the clipping bound: ``norm_bound``, or a threshold chosen by a
        stated private step.
    extras : fitted attributes the mechanism publishes (outputs of its stated
        private steps, in the units of X), or None; each is on the attribute
        allow-list of ``tests/test_threat_model.py``.
    """

    matrix: np.ndarray
    parts: tuple
    scale: float
    extras: dict | None = None


def auto_norm_bound(data, budget, rng, **options):
    """``norm_bound="auto"`` (docs/algorithms.rst §18.2): the part
    ``"norm bound"`` of ``budget`` (``SPLITS["norm bound auto"]``) spent on a
    private upper bound on the row norms of ``data`` (a ClippedData;
    ``options`` go to ``mechanisms.private_norm_bound``).

    Returns
    -------
    parts : tuple of BudgetPart
        The bound's part.
    rest : PrivacyCost
        What is left for the release, on the same rows.
    bound : float
    """
    bound_part, rest = split_budget("norm bound auto", budget)
    bound = data.private_norm_bound(bound_part.cost, rng, **options)
    return (bound_part,), rest.cost, bound


def bound_quantile(n_samples, n_features, budget, clips_at_bound=True):
    """The quantile ``norm_bound="auto"`` aims at (docs/algorithms.rst §18.2),
    from public values only: ``FIXED_BOUND_QUANTILE`` for a mechanism that
    clips at the bound when the release's noise level (``noise_level`` at
    ``budget``) times d is at least ``NOISY_AT``; otherwise None (the high
    rank n − r), and always None for a mechanism that searches its own
    threshold inside the bound (``clips_at_bound=False``)."""
    if not clips_at_bound:
        return None
    noisy = noise_level(n_samples, n_features, budget) * n_features >= NOISY_AT
    return FIXED_BOUND_QUANTILE if noisy else None


def is_private_bound(norm_bound):
    """Whether a ``norm_bound`` parameter asks for a private bound: "auto",
    or a public range (low, high) to choose it in (§18.2)."""
    return isinstance(norm_bound, tuple) or norm_bound == "auto"


def bound_range(norm_bound):
    """The public range a private bound is chosen in: the pair given, or None
    (the default grid) for "auto"."""
    return (
        tuple(float(v) for v in norm_bound) if isinstance(norm_bound, tuple) else None
    )


def eigenvalue_floor(n_samples, n_features, budget):
    """The public floor of the eigenvalues behind ``precision_``, at unit scale.

    min(noise_level, 1/d) (docs/algorithms.rst §15): eigenvalues of a release
    below the noise level of its budget (:func:`skprivcov.mechanisms.noise_level`)
    carry no information, and 1/d, the mean eigenvalue of a covariance of trace
    1, is the largest an uninformed guess needs (a release of nothing gets the
    isotropic precision d·I). From public values only (n, d, budget).
    """
    return min(noise_level(n_samples, n_features, budget), 1.0 / n_features)


def floored_inverse(covariance, floor):
    """V diag(1/max(λ, floor)) Vᵀ for covariance = V diag(λ) Vᵀ: the inverse of
    the release with its eigenvalues floored (post-processing, finite)."""
    values, vectors = linalg.eigh(covariance, check_finite=False)
    values = np.maximum(values, floor)
    return (vectors / values) @ vectors.T


def charge(accountant, cost, owner, **details):
    """The one charge of a fit: spend ``cost`` from ``accountant`` (if any)
    before any value of the data is read (docs/algorithms.rst §13.2).

    The ledger records ``owner``'s class name, its public parameters and
    ``details`` (public facts only). Raises BudgetExceededError, recording
    nothing, when the budget does not admit the cost.
    """
    if accountant is None:
        return
    accountant.spend(
        cost,
        source=type(owner).__name__,
        details={**public_parameters(owner), **details},
    )


def public_parameters(estimator):
    """The parameters of ``estimator`` that may be published with its release.

    Never the seed: with it and the release, anyone could regenerate the noise
    and subtract it; only whether one was fixed (then releases with the same
    seed share their noise). Nor the accountant (not a parameter of the
    release). A nested estimator is described by its own public parameters,
    an array by its shape only; other values by their repr.
    """
    parameters = estimator.get_params(deep=False)
    parameters.pop("accountant", None)
    if "random_state" in parameters:
        parameters["random_state"] = seed_description(parameters["random_state"])
    return {name: _public_value(value) for name, value in parameters.items()}


def describe(estimator):
    """``Name(parameter=value, ...)`` with the public parameters only."""
    arguments = ", ".join(
        f"{name}={value!r}" for name, value in public_parameters(estimator).items()
    )
    return f"{type(estimator).__name__}({arguments})"


def _public_value(value):
    if isinstance(value, bool | int | float | str | None):
        return value
    if isinstance(value, BaseEstimator):
        return describe(value)
    if isinstance(value, np.ndarray):
        return f"<array of shape {value.shape}>"
    return repr(value)


class ReleasedCovarianceMixin:
    """What every fitted covariance release offers: precision, score, errors.

    Everything here reads only ``covariance_`` and ``location_`` (released
    values) or data passed by the caller: it is post-processing.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # Whether fit takes a Spark DataFrame: it reads X only through the
    # statistics passes of ``_stats`` (ClippedData), which run inside the
    # partitions (docs/algorithms.rst §20, docs/clusters.rst).
    _spark_input = True

    def _validate_input(self, X):
        """The public checks of the training data (before the charge): X kept
        in place (arrays and memmaps of float32 or float64 are not copied, CSR
        and CSC stay sparse, dask arrays stay lazy, a Spark DataFrame becomes
        its public facts); no value is read."""
        return check_public(self, X, reset=True, accept_spark=self._spark_input)

    def _charge(self, cost):
        """Spend ``cost`` with the accountant, if any, before data is read."""
        charge(self.accountant, cost, self)

    def _set_release(self, covariance, location):
        self.covariance_ = covariance
        self.location_ = location
        self._precision = None

    @property
    def precision_(self):
        check_is_fitted(self, ("covariance_", "eigenvalue_floor_"))
        if self._precision is None:
            self._precision = floored_inverse(self.covariance_, self.eigenvalue_floor_)
        return self._precision

    def mahalanobis(self, X):
        """Squared Mahalanobis distances of the rows of X under the release.

        (x − ``location_``)ᵀ ``precision_`` (x − ``location_``), as
        :meth:`sklearn.covariance.EmpiricalCovariance.mahalanobis`; finite for
        every release (``precision_`` floors the eigenvalues at
        ``eigenvalue_floor_``). Post-processing of the release; it reads X
        (private only with respect to the training data).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        dist : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "covariance_")
        X = check_input(self, X, name="X")
        centred = X - self.location_
        return np.einsum("ij,ij->i", centred @ self.precision_, centred)

    def score(self, X_test, y=None):
        """Gaussian log-likelihood of ``X_test`` under the released covariance.

        As :meth:`sklearn.covariance.EmpiricalCovariance.score`. It reads
        ``X_test``; it is private only with respect to the training data.

        Parameters
        ----------
        X_test : array-like of shape (n_samples, n_features)
            Test data, centred by ``location_``.
        y : Ignored

        Returns
        -------
        res : float
            The log-likelihood under ``precision_``: finite for every release,
            its eigenvalues being floored at ``eigenvalue_floor_``.
        """
        check_is_fitted(self, "covariance_")
        X_test = check_input(self, X_test, name="X_test")
        test_covariance = empirical_covariance(
            X_test - self.location_, assume_centered=True
        )
        return log_likelihood(test_covariance, self.precision_)

    def error_norm(self, comp_cov, norm="frobenius", scaling=True, squared=True):
        """Error between ``comp_cov`` and the released covariance.

        Parameters
        ----------
        comp_cov : array-like of shape (n_features, n_features)
            The covariance to compare with.
        norm : {"frobenius", "spectral"}, default="frobenius"
        scaling : bool, default=True
            Divide the squared norm by n_features.
        squared : bool, default=True
            Return the squared norm, else the norm.

        Returns
        -------
        result : float
        """
        check_is_fitted(self, "covariance_")
        error = np.asarray(comp_cov) - self.covariance_
        if norm == "frobenius":
            squared_norm = float(np.sum(error**2))
        elif norm == "spectral":
            squared_norm = float(np.linalg.norm(error, 2) ** 2)
        else:
            raise ValueError(f"norm must be 'frobenius' or 'spectral', got {norm!r}.")
        if scaling:
            squared_norm /= error.shape[0]
        return squared_norm if squared else float(np.sqrt(squared_norm))


class BasePrivateCovariance(ReleasedCovarianceMixin, BaseEstimator, metaclass=ABCMeta):
    """Base class of the estimators that release a noisy second moment.

    A subclass implements the one hook :meth:`_release` (most call
    :meth:`_release_at_norm_bound` with their mechanism), and states the
    notions it offers, its default budget and caveats; the fit does the rest.
    """

    _parameter_constraints: dict = {
        "rho": BUDGET,
        "epsilon": BUDGET,
        "delta": DELTA,
        "norm_bound": RELEASE_NORM_BOUND,
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
        budget = resolve_budget(
            rho=self.rho,
            epsilon=self.epsilon,
            delta=self.delta,
            notions=self._notions,
            default=self._default_budget,
            owner=type(self).__name__,
        )
        return budget.with_caveats(self._caveats)

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

    @_fit_context(prefer_skip_nested_validation=True)
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

        Returns
        -------
        self : object
            The fitted estimator.
        """
        budget = self._resolve_budget()
        X = self._validate_input(X)
        self._check_parameters(X)
        self._charge(budget)
        X = as_numeric(X)
        rng = release_generator(self.random_state, noise=self.noise)
        data = ClippedData(
            X, augmented=not self.assume_centered, nonfinite=self.nonfinite
        )
        bound_parts, release_budget = self._choose_norm_bound(data, budget, rng)
        release = self._release(data, release_budget, rng)
        parts = (*bound_parts, *release.parts)
        # Checked before anything is stored: an overspent release is never kept.
        check_within(compose_parts(parts), budget)

        # Post-processing of the release only; back to the scale of the data.
        covariance, location = self._post_process(release.matrix)
        scale = release.scale**2
        self._set_release(covariance * scale, location * release.scale)
        # The noise level of what the release spent (without the bound's part).
        self.eigenvalue_floor_ = scale * eigenvalue_floor(
            X.shape[0], X.shape[1], release_budget
        )
        for name, value in (release.extras or {}).items():
            setattr(self, name, value)
        # What the accountant recorded, and how the mechanism divided it.
        self.privacy_spent_ = budget
        self.privacy_parts_ = parts
        return self

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
            bound_range=bound_range(self.norm_bound),
            quantile=quantile,
        )
        return parts, rest
