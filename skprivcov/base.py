"""What a private estimator is built from (docs/algorithms.rst §13.2).

:class:`PrivateFitMixin` holds the one fit of every private estimator, in the
order that carries the privacy argument: the public checks (no value read) →
the budget → the public rules of the plan → :func:`charge` the accountant →
the generator → the values read → the private bounds → the release → its
parts checked against the budget → storage → ``privacy_spent_`` and
``privacy_parts_``. A family writes hooks (``_check_public``, ``_open``,
``_choose_bounds``, ``_release``, ``_store``, …), never the order:
``tests/test_fit_template.py`` fails if an estimator charges, or checks its
parts, anywhere else. The hooks run on a staging copy of the estimator, and
what they set is kept only once the parts are within the budget: an
overspent or failed fit stores nothing.

:class:`Release` is what a ``_release`` hook returns, :class:`ClippedData`
the only access a mechanism has to the rows, and
:class:`ReleasedCovarianceMixin` what every fitted covariance release offers.
This is the one module through which a package uses another's fit machinery
(``tests/test_layering.py``; docs/developers.rst).
"""

import copy
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from sklearn.covariance import empirical_covariance, log_likelihood
from sklearn.utils.validation import check_is_fitted

from skprivcov._data import check_input, check_public
from skprivcov._fit import (
    ClippedData,
    collected_warnings,
    floored_inverse,
    issue_warnings,
    public_parameters,
)
from skprivcov.mechanisms.noise import release_generator
from skprivcov.privacy import (
    BudgetPart,
    PrivacyAccountant,
    PrivacyCost,
    check_within,
    compose_parts,
)

__all__ = [
    "ClippedData",
    "FitHooks",
    "PrivateFitMixin",
    "Release",
    "ReleasedCovarianceMixin",
    "charge",
]


class Release(NamedTuple):
    """What an estimator's mechanism hands back to the fit: the one protocol.

    The fit scales it, post-processes it and checks its parts against the
    budget charged (docs/algorithms.rst §13.2).

    Parameters
    ----------
    matrix : ndarray of shape (n_columns, n_columns) or None
        A covariance estimator's release at unit scale (rows scaled into the
        unit ball by ``scale``); the fit multiplies it by the square of
        ``scale``. Families whose release is not one matrix (the classifiers,
        the ridge models, the fold releases) leave it None and hand their
        fitted values in ``extras``.
    parts : tuple of BudgetPart
        The parts of the budget spent, from the mechanism's split
        (``skprivcov.mechanisms.SPLITS``); public.
    scale : float, default=1.0
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

    matrix: np.ndarray | None
    parts: tuple[BudgetPart, ...]
    scale: float = 1.0
    extras: dict[str, Any] | None = None


# Fitted state without scikit-learn's trailing underscore: caches and the
# counts scikit-learn's mixins read.
_PRIVATE_FITTED = frozenset({"_precision", "_mean_noise", "_n_features_out"})


def _fitted_names(estimator):
    """The names of an estimator's fitted state: its attributes ending in
    ``_`` (scikit-learn's convention) and the private ones of
    ``_PRIVATE_FITTED``; never a parameter, nor what scikit-learn's own
    machinery keeps on the estimator during a fit."""
    parameters = estimator.get_params(deep=False)
    return [
        name
        for name in vars(estimator)
        if name not in parameters
        and (
            name in _PRIVATE_FITTED
            or (name.endswith("_") and not name.startswith("__"))
        )
    ]


@runtime_checkable
class FitHooks(Protocol):
    """The hooks a family of private estimators writes, with their types.

    :class:`PrivateFitMixin` calls them in its one order (its docstring says
    when and what each may do); ``tests/test_fit_template.py`` checks that
    every registered estimator's hooks take these parameters. ``facts`` and
    ``data`` are the family's own (a named tuple of public facts; the rows
    as its mechanism reads them: :class:`ClippedData` for the covariance
    estimators); ``rest`` is the budget left for the release once the bounds
    are paid for.

    Parameters
    ----------
    *args : tuple
        Not used: a protocol is a type, never instantiated.
    **kwargs : dict
        Not used.

    See Also
    --------
    PrivateFitMixin : The template that calls the hooks.
    Release : What ``_release`` returns.

    Examples
    --------
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.base import FitHooks
    >>> isinstance(GaussianCovariance(), FitHooks)
    True
    """

    def _check_public(self, X: Any, y: Any) -> Any: ...

    def _fit_cost(self, facts: Any) -> PrivacyCost: ...

    def _check_plan(self, facts: Any, cost: PrivacyCost) -> None: ...

    def _accountant(self, facts: Any) -> PrivacyAccountant | None: ...

    def _owner(self, facts: Any) -> Any: ...

    def _charge_details(self, facts: Any) -> dict[str, Any]: ...

    def _generator(self, facts: Any) -> np.random.Generator: ...

    def _open(self, facts: Any, cost: PrivacyCost, rng: np.random.Generator) -> Any: ...

    def _choose_bounds(
        self, data: Any, cost: PrivacyCost, rng: np.random.Generator
    ) -> tuple[Any, tuple[BudgetPart, ...], PrivacyCost]: ...

    def _release(
        self, data: Any, rest: PrivacyCost, rng: np.random.Generator
    ) -> Release: ...

    def _store(self, release: Release, data: Any, rest: PrivacyCost) -> None: ...


class PrivateFitMixin:
    """The one fit of every private estimator (docs/algorithms.rst §13.2).

    :meth:`_fit_privately` runs the order below; a family implements the
    hooks. Each hook runs on a staging copy of the estimator (its parameters,
    none of its fitted state), which it may set attributes on freely; the
    copy's state replaces the estimator's whole, and only after the parts
    spent are checked within the budget charged. A fit that raises stores
    nothing of itself (an earlier fit's release, paid for, stays whole).

    1. ``_check_public(X, y) -> facts``: the public checks (shape, dtype kind,
       sparse format, parameters against them); no value read.
    2. ``_fit_cost(facts) -> PrivacyCost``: what the fit spends (default:
       ``fit_cost()``).
    3. ``_check_plan(facts, cost)``: public rules of the plan refused before
       the charge (a share too small to hand down, a threshold above n).
    4. :func:`charge` of ``_accountant(facts)`` (default ``accountant``),
       recorded under ``_owner(facts)`` (default the estimator) with
       ``_charge_details(facts)``.
    5. ``_generator(facts) -> rng``: the only source of noise (default
       ``release_generator(random_state, noise=noise)``).
    6. ``_open(facts, cost, rng) -> data``: the values, read from here on.
    7. ``_choose_bounds(data, cost, rng) -> (data, parts, rest)``: the private
       bounds or normalisation at their parts, on the same rows (sequential
       composition; default: none), and the data as the release reads it
       (rows mapped into a box or a normalised space, say).
    8. ``_release(data, rest, rng) -> Release``: the mechanism.
    9. the parts (7 and 8) checked within ``cost``.
    10. ``_store(release, data, rest)``: post-processing and the fitted
        attributes.
    11. ``privacy_spent_`` = ``cost``, ``privacy_parts_`` = the parts.

    See Also
    --------
    Release : What ``_release`` returns.
    ClippedData : A mechanism's only access to the rows.

    Examples
    --------
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.base import PrivateFitMixin
    >>> isinstance(GaussianCovariance(), PrivateFitMixin)
    True
    """

    def _fit_privately(self, X, y=None):
        """The fit, in its one order (the class docstring); returns self.

        A fit that raises stores nothing of itself: an earlier fit's release
        (already paid for) stays whole.
        """
        # The fit's warnings are held until its release is kept: under
        # warnings-as-errors a paid-for release is not lost to them (§23).
        with collected_warnings() as pending:
            work = self._fit_staged(X, y)
        self._keep(work)
        issue_warnings(pending)
        return self

    def _fit_staged(self, X, y):
        """The order, on a staging copy; returns the copy, fitted."""
        work = self._staging()
        facts = work._check_public(X, y)
        cost = work._fit_cost(facts)
        work._check_plan(facts, cost)
        charge(
            work._accountant(facts),
            cost,
            work._owner(facts),
            **work._charge_details(facts),
        )
        # Values are read from here on (§13.2).
        rng = work._generator(facts)
        data = work._open(facts, cost, rng)
        data, bound_parts, rest = work._choose_bounds(data, cost, rng)
        release = work._release(data, rest, rng)
        parts = (*bound_parts, *release.parts)
        # Nothing of the fit is kept before this line: an overspent release
        # is never stored.
        check_within(compose_parts(parts), cost)
        work._store(release, data, rest)
        work.privacy_spent_ = cost
        work.privacy_parts_ = parts
        return work

    def _staging(self):
        """A shallow copy with the parameters and none of the fitted state."""
        work = copy.copy(self)
        for name in _fitted_names(work):
            delattr(work, name)
        return work

    def _keep(self, work):
        """The staging copy's fitted state replaces this estimator's."""
        for name in _fitted_names(self):
            delattr(self, name)
        for name in _fitted_names(work):
            setattr(self, name, getattr(work, name))

    # The hooks' defaults (the types: FitHooks).

    def _fit_cost(self, facts: Any) -> PrivacyCost:
        return self.fit_cost()

    def _check_plan(self, facts: Any, cost: PrivacyCost) -> None:
        """Public rules of the plan, refused before the charge; none here."""

    def _accountant(self, facts: Any) -> PrivacyAccountant | None:
        return self.accountant

    def _owner(self, facts: Any) -> Any:
        return self

    def _charge_details(self, facts: Any) -> dict[str, Any]:
        return {}

    def _generator(self, facts: Any) -> np.random.Generator:
        return release_generator(self.random_state, noise=self.noise)

    def _choose_bounds(
        self, data: Any, cost: PrivacyCost, rng: np.random.Generator
    ) -> tuple[Any, tuple[BudgetPart, ...], PrivacyCost]:
        return data, (), cost

    def _store(self, release: Release, data: Any, rest: PrivacyCost) -> None:
        for name, value in (release.extras or {}).items():
            setattr(self, name, value)


def charge(
    accountant: PrivacyAccountant | None,
    cost: PrivacyCost,
    owner: Any,
    **details: Any,
) -> None:
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

    def _set_release(self, covariance, location):
        self.covariance_ = covariance
        self.location_ = location
        self._precision = None

    @property
    def precision_(self):
        check_is_fitted(self, ("covariance_", "eigenvalue_floor_"))
        if self._precision is None:
            scale = getattr(self, "feature_scale_", None)
            if scale is None:
                self._precision = floored_inverse(
                    self.covariance_, self.eigenvalue_floor_
                )
            else:
                # Floored where the noise is isotropic: in the normalised
                # space z = (x − c)/s, at its own level (§23), then mapped.
                outer = np.outer(scale, scale)
                floor = self.eigenvalue_floor_ / float(np.max(scale)) ** 2
                self._precision = (
                    floored_inverse(self.covariance_ / outer, floor) / outer
                )
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
