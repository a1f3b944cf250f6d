"""The fit machinery every private estimator shares (docs/algorithms.rst §13.2).

The template of a fit: resolve the budget → the public checks of X (shape,
dtype kind, sparse format; no value read) → :func:`charge` the accountant →
convert values → generator (:func:`skprivcov.mechanisms.noise.release_generator`)
→
the estimator's mechanism, which reads the data only through
:class:`ClippedData` (where the values are checked) and draws its noise only
through the noise source of :mod:`skprivcov.mechanisms` → the parts it spent
checked against the budget → post-processing and storage →
``privacy_spent_`` and ``privacy_parts_``. An estimator never draws noise
itself. The covariance estimators run this template in
``BasePrivateCovariance.fit``, the classifiers in
``BasePrivateClassifier.fit`` (``skprivcov/_models/_classifier.py``), the ridge
models in ``BasePrivateRidge``; all of them charge through :func:`charge`.

This is the one module through which a package uses another's fit
machinery: ``tests/test_layering.py`` refuses a private import across
packages, and any import from a higher floor (docs/developers.rst).
"""

from typing import NamedTuple

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator
from sklearn.covariance import empirical_covariance, log_likelihood
from sklearn.utils.validation import check_is_fitted

from skprivcov._data import check_input, check_public
from skprivcov._fit import BUDGET_RANGE, ClippedData, is_auto
from skprivcov.mechanisms import (
    FIXED_BOUND_QUANTILE,
    NOISY_AT,
    noise_level,
    split_budget,
)
from skprivcov.mechanisms.noise import seed_description
from skprivcov.privacy import resolve_budget

__all__ = [
    "ClippedData",
    "Release",
    "ReleasedCovarianceMixin",
    "auto_norm_bound",
    "bound_quantile",
    "bound_range",
    "budget_parameters",
    "charge",
    "check_handed_down",
    "describe",
    "eigenvalue_floor",
    "estimator_budget",
    "floored_inverse",
    "is_private_bound",
    "public_parameters",
]


class Release(NamedTuple):
    """What an estimator's mechanism hands back to the fit: the one protocol.

    The fit scales it, post-processes it and checks its parts against the
    budget charged (docs/algorithms.rst §13.2).

    Parameters
    ----------
    matrix : ndarray of shape (n_columns, n_columns)
        The release at unit scale (rows scaled into the unit ball by
        ``scale``); the fit multiplies it by the square of ``scale``.
    parts : tuple of BudgetPart
        The parts of the budget spent, from the mechanism's split
        (``skprivcov.mechanisms.SPLITS``); public.
    scale : float
        The clipping bound: ``norm_bound``, or a threshold chosen by a stated
        private step.
    extras : dict or None, default=None
        Fitted attributes the mechanism publishes (outputs of its stated
        private steps, in the units of X), or None; each is on the attribute
        allow-list of ``tests/test_threat_model.py``.

    See Also
    --------
    ClippedData : The mechanism's only access to the data.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.base import Release
    >>> release = Release(np.eye(2) / 2, parts=(), scale=3.0)
    >>> release.matrix * release.scale**2
    array([[4.5, 0. ],
           [0. , 4.5]])
    """

    matrix: np.ndarray
    parts: tuple
    scale: float
    extras: dict | None = None


def auto_norm_bound(data, budget, rng, **options):
    """Spend the part ``"norm bound"`` on a private bound (``norm_bound="auto"``).

    The part ``"norm bound"`` of ``budget`` (``SPLITS["norm bound auto"]``) is
    spent on a private upper bound on the row norms of ``data``
    (docs/algorithms.rst §18.2).

    Parameters
    ----------
    data : ClippedData
        The data, read through one pass of counts.
    budget : PrivacyCost
        The fit's budget, of which the bound spends its part.
    rng : numpy.random.Generator
        The only source of noise.
    **options : dict
        Passed to ``mechanisms.private_norm_bound`` (through
        :meth:`ClippedData.private_norm_bound`).

    Returns
    -------
    parts : tuple of BudgetPart
        The bound's part.
    rest : PrivacyCost
        What is left for the release, on the same rows.
    bound : float
        The private bound.
    """
    bound_part, rest = split_budget("norm bound auto", budget)
    bound = data.private_norm_bound(bound_part.cost, rng, **options)
    return (bound_part,), rest.cost, bound


def bound_quantile(n_samples, n_features, budget, clips_at_bound=True):
    """The quantile ``norm_bound="auto"`` aims at (docs/algorithms.rst §18.2).

    From public values only: ``FIXED_BOUND_QUANTILE`` for a mechanism that
    clips at the bound when the release's noise level (``noise_level`` at
    ``budget``) times d is at least ``NOISY_AT``; otherwise None (the high
    rank n − r), and always None for a mechanism that searches its own
    threshold inside the bound (``clips_at_bound=False``).

    Parameters
    ----------
    n_samples : int
        The public number of rows.
    n_features : int
        The public number of features d.
    budget : PrivacyCost
        The release's budget.
    clips_at_bound : bool, default=True
        Whether the mechanism clips at the bound.

    Returns
    -------
    quantile : float or None
        ``FIXED_BOUND_QUANTILE``, or None for the high rank.
    """
    if not clips_at_bound:
        return None
    noisy = noise_level(n_samples, n_features, budget) * n_features >= NOISY_AT
    return FIXED_BOUND_QUANTILE if noisy else None


def is_private_bound(norm_bound):
    """Whether a ``norm_bound`` parameter asks for a private bound.

    It does when it is "auto", or a public range (low, high) to choose it in
    (§18.2).

    Parameters
    ----------
    norm_bound : "auto", float or tuple (low, high)
        The parameter.

    Returns
    -------
    private : bool
        True for "auto" or a range.
    """
    return isinstance(norm_bound, tuple) or is_auto(norm_bound)


def bound_range(norm_bound):
    """The public range a private bound is chosen in.

    Parameters
    ----------
    norm_bound : "auto" or tuple (low, high)
        The parameter.

    Returns
    -------
    bound_range : tuple of float or None
        The pair given, or None (the default grid) for "auto".
    """
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

    Parameters
    ----------
    n_samples : int
        The public number of rows.
    n_features : int
        The public number of features d.
    budget : PrivacyCost
        The budget of the release.

    Returns
    -------
    floor : float
        The floor at unit scale.
    """
    return min(noise_level(n_samples, n_features, budget), 1.0 / n_features)


def floored_inverse(covariance, floor):
    """Inverse of a release with its eigenvalues floored (post-processing).

    V diag(1/max(λ, floor)) Vᵀ for covariance = V diag(λ) Vᵀ; finite.

    Parameters
    ----------
    covariance : ndarray of shape (n_features, n_features)
        The symmetric release.
    floor : float
        The floor of the eigenvalues, > 0.

    Returns
    -------
    precision : ndarray of shape (n_features, n_features)
        The floored inverse.
    """
    values, vectors = linalg.eigh(covariance, check_finite=False)
    values = np.maximum(values, floor)
    return (vectors / values) @ vectors.T


def budget_parameters(cost):
    """The budget parameters that make an estimator spend ``cost``.

    Parameters
    ----------
    cost : PrivacyCost
        A zCDP or pure cost.

    Returns
    -------
    parameters : dict
        ``rho``, ``epsilon`` and ``delta``, for ``set_params``.
    """
    if cost.notion == "zcdp":
        return {"rho": cost.parameter, "epsilon": None, "delta": None}
    return {"epsilon": cost.parameter, "rho": None, "delta": None}


def check_handed_down(owner, *budgets):
    """Refuse, before the charge, a budget too small to hand to a step.

    A fit that splits its budget and hands a share to an inner estimator
    (a ridge model's covariance release after its private bounds, a fold
    release) checks every share first: the inner estimator takes budgets in
    [1e-30, 1e30] only (``_constraints.BUDGET_RANGE``, the range in which no
    computation can overflow or underflow), and a share below it would be
    refused after the charge (docs/algorithms.rst §13.2). The shares are
    public: functions of the parameters and the shape.

    Parameters
    ----------
    owner : str
        The estimator that splits, for the message.
    *budgets : PrivacyCost
        The shares it will hand down.

    Raises
    ------
    ValueError
        If a share is below the smallest budget an estimator takes.
    """
    low = BUDGET_RANGE[0]
    for budget in budgets:
        if budget.parameter < low:
            raise ValueError(
                f"{owner}: the budget is too small to split among the fit's "
                f"steps: one step would get {budget}, below {low:g}, the "
                "smallest budget an estimator takes (docs/algorithms.rst "
                "§13.2). Give a larger budget."
            )


def estimator_budget(estimator):
    """The budget one fit of ``estimator`` spends, from its parameters alone.

    ``rho``, ``epsilon`` and ``delta`` by the budget rule
    (:func:`skprivcov.privacy.resolve_budget`), among the notions the
    estimator offers (``_notions``), or its ``_default_budget`` when none is
    given; no data is read.

    Parameters
    ----------
    estimator : estimator instance
        A private estimator with ``rho``, ``epsilon`` and ``delta`` parameters
        and the class attributes ``_notions`` and ``_default_budget``.

    Returns
    -------
    cost : PrivacyCost
        The budget of one fit.
    """
    return resolve_budget(
        rho=estimator.rho,
        epsilon=estimator.epsilon,
        delta=estimator.delta,
        notions=estimator._notions,
        default=estimator._default_budget,
        owner=type(estimator).__name__,
    )


def charge(accountant, cost, owner, **details):
    """Spend ``cost`` from ``accountant`` (if any): the one charge of a fit.

    It comes before any value of the data is read (docs/algorithms.rst §13.2).
    The ledger records ``owner``'s class name, its public parameters and
    ``details`` (public facts only).

    Parameters
    ----------
    accountant : PrivacyAccountant or None
        The accountant; None charges nothing.
    cost : PrivacyCost
        The cost of the fit.
    owner : estimator
        The estimator that spends.
    **details : dict
        Public facts recorded with the charge.

    Raises
    ------
    BudgetExceededError
        When the budget does not admit the cost (nothing is recorded).
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

    Parameters
    ----------
    estimator : estimator
        The estimator.

    Returns
    -------
    parameters : dict
        Its public parameters, by name.
    """
    parameters = estimator.get_params(deep=False)
    parameters.pop("accountant", None)
    if "random_state" in parameters:
        parameters["random_state"] = seed_description(parameters["random_state"])
    return {name: _public_value(value) for name, value in parameters.items()}


def describe(estimator):
    """``Name(parameter=value, ...)`` with the public parameters only.

    Parameters
    ----------
    estimator : estimator
        The estimator.

    Returns
    -------
    description : str
        Its class name and :func:`public_parameters`.
    """
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

    See Also
    --------
    sklearn.covariance.EmpiricalCovariance : The same methods, non-private.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.base import ReleasedCovarianceMixin
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(1000, 2))
    >>> est = GaussianCovariance(rho=1.0, random_state=0).fit(X)
    >>> isinstance(est, ReleasedCovarianceMixin)
    True
    >>> est.mahalanobis(X[:3]).shape
    (3,)
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
            The observations.

        Returns
        -------
        dist : ndarray of shape (n_samples,)
            Squared Mahalanobis distances of the observations.
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
            Not used, present for API consistency by convention.

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
            The norm of the difference.
        scaling : bool, default=True
            Divide the squared norm by n_features.
        squared : bool, default=True
            Return the squared norm, else the norm.

        Returns
        -------
        result : float
            The (squared, scaled) norm of ``comp_cov − covariance_``.
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
