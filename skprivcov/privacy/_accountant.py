"""A total privacy budget and the durable ledger of what was spent against it."""

import json
import math
import multiprocessing
import os
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from numbers import Real

from skprivcov.privacy._budget import budget_kind
from skprivcov.privacy._conversions import cks_epsilon
from skprivcov.privacy._cost import (
    PrivacyCost,
    approximate_epsilon,
    remaining_delta,
)
from skprivcov.privacy._exceptions import (
    BudgetExceededError,
    UnsupportedPrivacyNotionError,
)
from skprivcov.privacy._ledger import SqliteLedger, decimal
from skprivcov.privacy._renyi import RENYI_ORDERS, envelope_epsilon, rdp_epsilon

# The orders as exact fractions (each is a binary fraction, exact as a float).
_ORDERS = tuple(Fraction(order) for order in RENYI_ORDERS)

__all__ = ["PrivacyAccountant"]

_BISECTION_STEPS = 200


def _ceil(fraction):
    """The nearest float whose decimal (what it prints as) is not below an
    exact fraction: never under-reports, and a total of typed decimals prints
    as itself (25 × 0.01 as 0.25)."""
    value = float(fraction)
    while decimal(value) < fraction:
        value = math.nextafter(value, math.inf)
    return value


def _floor(fraction):
    """The nearest float whose decimal is not above an exact fraction ≥ 0: a
    remaining amount that, spent as printed, is admitted."""
    value = float(fraction)
    while decimal(value) > fraction:
        value = math.nextafter(value, 0.0)
    return value


def _curve(totals, rho):
    """The exact Rényi curve of the Rényi records plus ρ-zCDP (ε(λ) = ρλ), as
    fractions at RENYI_ORDERS (§14)."""
    return [
        total + rho * order for total, order in zip(totals.renyi, _ORDERS, strict=True)
    ]


def _spent_epsilon(totals, delta):
    """Smallest ε with (ε, δ)-DP for the composition of the recorded spends.

    Two valid routes, docs/algorithms.rst §7: everything through zCDP (a pure ε counts
    as ε²/2) and the Canonne–Kamath–Steinke conversion; or the pure spends by
    basic composition (Σε, 0) plus the zCDP spends converted on their own.
    With Rényi records (§14), the same two routes on the curve: everything as
    one curve (zCDP and pure parts as ρλ), or the pure spends by basic
    composition plus the rest as one curve, each converted by CKS20 Prop. 12
    over real orders (§22). A ledger whose one record is a private selection
    also has the selection's privacy-profile bound (§22). δ₀-approximate
    records (§25) have spent Σδ₀ of δ already: the routes convert at
    δ − Σδ₀ (none left: no ε, ``inf``) and add log(1/(1 − Σδ₀)).
    """
    if totals.approximate_delta:
        left = remaining_delta(delta, totals.approximate_delta)
        if left is None:
            return math.inf
        exact = totals._replace(approximate_delta=Fraction(0))
        return approximate_epsilon(
            _spent_epsilon(exact, left), _ceil(totals.approximate_delta)
        )
    epsilon = _composed_epsilon(totals, delta)
    if totals.selection is not None and totals.n_records == 1 and epsilon > 0.0:
        # The ledger's one record is a private selection: its privacy-profile
        # bound (§22) is a third valid route; composed with anything, only the
        # curves count.
        epsilon = min(epsilon, totals.selection.to_approx_dp(delta, epsilon))
    return epsilon


def _composed_epsilon(totals, delta):
    if totals.n_renyi:
        whole = _curve(totals, totals.pure_rho + totals.zcdp_rho)
        rest = _curve(totals, totals.zcdp_rho)
        routes = [
            rdp_epsilon([_ceil(value) for value in whole], delta),
            _ceil(totals.pure_epsilon)
            + rdp_epsilon([_ceil(value) for value in rest], delta),
        ]
        if totals.renyi_envelope is not None:
            # Every Rényi record has a closed form: the same two routes over
            # every real order (§22), zCDP and pure parts entering as ρλ.
            a, b, c = totals.renyi_envelope
            for rho, pure in (
                (totals.pure_rho + totals.zcdp_rho, Fraction(0)),
                (totals.zcdp_rho, totals.pure_epsilon),
            ):
                envelope = (_ceil(a + rho), _ceil(b), _ceil(c))
                routes.append(_ceil(pure) + envelope_epsilon(envelope, delta))
        return min(routes)
    through_zcdp = cks_epsilon(_ceil(totals.pure_rho + totals.zcdp_rho), delta)
    pure_then_zcdp = _ceil(totals.pure_epsilon) + cks_epsilon(
        _ceil(totals.zcdp_rho), delta
    )
    return min(through_zcdp, pure_then_zcdp)


@dataclass(frozen=True)
class _TotalBudget:
    """ρ-zCDP (kind "zcdp"), pure ε-DP ("pure") or (ε, δ)-DP ("approx")."""

    kind: str
    rho: float | None = None
    epsilon: float | None = None
    delta: float | None = None

    @classmethod
    def from_parameters(cls, rho, epsilon, delta):
        kind = budget_kind(
            rho=rho, epsilon=epsilon, delta=delta, owner="PrivacyAccountant"
        )
        if kind is None:
            return None
        if kind == "zcdp":
            _check_positive("rho", rho)
            return cls("zcdp", rho=float(rho))
        _check_positive("epsilon", epsilon)
        if kind == "pure":
            return cls("pure", epsilon=float(epsilon))
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must lie in [0, 1), got {delta!r}.")
        return cls("approx", epsilon=float(epsilon), delta=float(delta))

    def admits(self, totals):
        # Exact comparisons of decimals for ρ and pure ε budgets. A Rényi
        # curve is admitted by an (ε, δ) budget only (§14): known at the
        # grid's orders alone, it can never be shown to stay under ρλ for
        # every λ > 1.
        # A δ₀-approximate spend (§25) is admitted by an (ε, δ) budget only.
        if self.kind == "zcdp":
            return (
                totals.n_renyi == 0
                and totals.approximate_delta == 0
                and self.rho_left(totals) >= 0
            )
        if self.kind == "pure":
            return (
                totals.approximate_delta == 0
                and totals.n_zcdp == 0
                and totals.n_renyi == 0
                and totals.pure_epsilon <= decimal(self.epsilon)
            )
        return _spent_epsilon(totals, self.delta) <= self.epsilon

    def rho_left(self, totals):
        """For a ρ budget: the exact ρ left (negative if already over)."""
        return decimal(self.rho) - totals.pure_rho - totals.zcdp_rho

    def remaining(self, totals, notion):
        """The exact largest further spend of ``notion`` for a ρ or pure ε
        budget (None for an (ε, δ) budget, found by bisection instead)."""
        if self.kind == "zcdp":
            left = self.rho_left(totals)
            if left <= 0:
                return Fraction(0)
            # A pure spend ε costs ε²/2: the largest decimal ε with ε² ≤ 2·left.
            return left if notion == "zcdp" else _sqrt_floor(2 * left)
        if self.kind == "pure":
            if notion != "pure" or totals.n_zcdp or totals.n_renyi:
                return Fraction(0)
            return max(decimal(self.epsilon) - totals.pure_epsilon, Fraction(0))
        return None

    def largest_single(self):
        """An upper bound on the parameter of any one admissible spend."""
        scale = self.rho if self.kind == "zcdp" else self.epsilon
        return max(scale, math.sqrt(2.0 * scale))

    def __str__(self):
        if self.kind == "zcdp":
            return f"{self.rho:.6g}-zCDP"
        if self.kind == "pure":
            return f"{self.epsilon:.6g}-DP (pure)"
        return f"({self.epsilon:.6g}, {self.delta:.3g})-DP"


def _sqrt_floor(value):
    """A fraction s ≤ √value (for a remaining ε under a ρ budget), within a few
    ulps of it."""
    root = Fraction(math.sqrt(value))
    while root * root > value:
        root = Fraction(math.nextafter(float(root), 0.0))
    return root


# Set in every child made by fork (os.fork included, which multiprocessing
# does not see): such a child is a worker too.
_FORKED = False


def _mark_forked():
    global _FORKED
    _FORKED = True


os.register_at_fork(after_in_child=_mark_forked)


def _in_a_worker():
    """Whether this process is a worker of another: a multiprocessing or loky
    child, or any child made by fork."""
    return _FORKED or multiprocessing.parent_process() is not None


def _check_positive(name, value):
    if not (isinstance(value, Real) and math.isfinite(value) and value > 0):
        raise ValueError(
            f"The budget's {name} must be a finite number > 0, got {value!r}."
        )


class PrivacyAccountant:
    """A total privacy budget shared by fits, clones and processes.

    Give one to any skprivcov estimator (``accountant=``): before its fit reads
    any data value, the estimator asks the accountant to spend the fit's cost.
    The check and the record are one atomic transaction of an SQLite ledger, so
    a fit that would exceed the budget raises :class:`BudgetExceededError`, and
    nothing is computed or recorded. Post-processing of a release (precision,
    scores, anything computed from ``covariance_``) is never charged.

    Parameters
    ----------
    rho : float > 0, default=None
        A total budget in ρ-zCDP; every spend counts its ρ (pure ε as ε²/2).
        A Rényi spend (private selection) is refused: a curve known at a grid
        of orders is not a zCDP guarantee (docs/algorithms.rst §14).
    epsilon : float > 0, default=None
        A total budget in ε. With ``delta`` None or 0 the budget is pure ε-DP
        and only pure spends are admitted, adding their ε. With ``delta > 0``
        a spend is admitted while the composition of all spends is still
        (ε, δ)-DP by the better of two valid routes: all through zCDP (or
        through the Rényi curve, once a Rényi spend is recorded) with the
        Canonne–Kamath–Steinke conversion, or pure spends by basic
        composition plus the converted rest. A pure budget admits pure
        spends only.
    delta : float in [0, 1), default=None
        The δ of an (ε, δ) budget.
    path : str or os.PathLike, default=None
        The ledger file, created if missing. Every accountant opened on one
        path, in any process, spends from one budget. Without ``rho`` or
        ``epsilon`` the budget stored in the file is used; with them, they
        must equal it. None keeps the ledger in memory: it is shared by the
        clones of an estimator in this process but cannot be sent to worker
        processes, nor spent from in a forked copy, nor created in a worker
        process (each refused with an error that asks for a file).

    Attributes
    ----------
    path : str or None
        The ledger file.

    See Also
    --------
    PrivacyCost : What one fit spends.

    Notes
    -----
    Neighbouring datasets differ in one row (replace-one). Composition is
    basic: zCDP costs add their ρ (Bun & Steinke 2016, Lemma 2.3), pure costs
    their ε, and a pure ε enters zCDP as ε²/2 (BS16 Prop. 1.4). The ledger
    keeps, per spend, the time, the cost, the estimator and its parameters:
    nothing derived from the data. A spend is recorded before the data is read
    and is never refunded: a fit that fails or is killed afterwards has still
    spent its budget.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance, PrivacyAccountant
    >>> accountant = PrivacyAccountant(rho=0.5)
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(1000, 3))
    >>> est = GaussianCovariance(rho=0.2, accountant=accountant).fit(X)
    >>> print(accountant.spent)
    0.2-zCDP
    >>> print(accountant.remaining)
    0.3-zCDP
    >>> round(accountant.remaining_rho(), 6)
    0.3
    >>> est.set_params(rho=0.4).fit(X)
    Traceback (most recent call last):
    ...
    skprivcov.privacy._exceptions.BudgetExceededError: GaussianCovariance ...
    """

    def __init__(self, *, rho=None, epsilon=None, delta=None, path=None):
        requested = _TotalBudget.from_parameters(rho, epsilon, delta)
        if path is None and _in_a_worker():
            # A worker (multiprocessing, joblib's loky or multiprocessing
            # backends) that builds its own in-memory accountant, e.g. by
            # importing a module that defines one, would get a full budget that
            # no other process sees (docs/algorithms.rst §13.5).
            raise RuntimeError(
                "An in-memory PrivacyAccountant cannot be created in a worker "
                "process: its budget would be a fresh one that the parent and the "
                "other workers never see. Give every process the same ledger "
                "file: PrivacyAccountant(..., path=...)."
            )
        self._ledger = SqliteLedger(path)
        stored = self._ledger.settle_budget(
            None if requested is None else json.dumps(asdict(requested))
        )
        if stored is None:
            raise ValueError(
                "A PrivacyAccountant needs a budget: give rho, or epsilon (and "
                f"delta); the ledger {self._ledger.path!r} has none stored."
            )
        self._budget = _TotalBudget(**json.loads(stored))
        if requested is not None and requested != self._budget:
            raise ValueError(
                f"The ledger {self._ledger.path!r} holds the budget {self._budget}, "
                f"not the requested {requested}; open it without a budget to use it."
            )

    @property
    def path(self):
        return self._ledger.path

    @property
    def budget(self):
        """The total budget, as a text such as ``'0.5-zCDP'``."""
        return str(self._budget)

    def spend(self, cost, *, source="", details=None):
        """Record ``cost`` if the budget admits it, atomically.

        Parameters
        ----------
        cost : PrivacyCost
            What is about to be spent.
        source : str, default=""
            Who spends it (an estimator's class name).
        details : dict, default=None
            JSON-serialisable public facts (an estimator's parameters).

        Raises
        ------
        BudgetExceededError
            The composition of the recorded spends and ``cost`` would exceed
            the budget; nothing is recorded.
        UnsupportedPrivacyNotionError
            A zCDP cost against a pure ε-DP budget.
        """
        if not isinstance(cost, PrivacyCost):
            raise TypeError(f"cost must be a PrivacyCost, got {cost!r}.")
        if self._budget.kind == "pure" and cost.notion != "pure":
            raise UnsupportedPrivacyNotionError(
                f"{source or 'This spend'} costs {cost}, but the accountant's budget "
                f"{self._budget} admits pure ε-DP spends only."
            )
        if self._budget.kind == "zcdp" and cost.notion == "renyi":
            raise UnsupportedPrivacyNotionError(
                f"{source or 'This spend'} costs a Rényi-DP curve, which is not a "
                f"zCDP guarantee, and the accountant's budget is {self._budget}. "
                "Give the accountant an (epsilon, delta) budget."
            )
        if self._budget.kind != "approx" and cost.approximate_delta > 0.0:
            raise UnsupportedPrivacyNotionError(
                f"{source or 'This spend'} costs {cost}: a δ₀ (docs/algorithms.rst "
                f"§25, e.g. a label set released privately) that the accountant's "
                f"budget {self._budget} has no δ to pay for. Give the accountant "
                "an (epsilon, delta) budget, or make the spend exact (for a "
                "classifier: give classes, or a categorical y)."
            )
        spent, before = self._ledger.spend_if(
            cost, source, details or {}, self._budget.admits
        )
        if not spent:
            raise BudgetExceededError(
                f"{source or 'This spend'} would spend {cost}, but the accountant "
                f"has spent {self._cost_of(before)} of its budget {self._budget}; "
                f"remaining: ρ {self._largest(before, 'zcdp'):.6g} or pure ε "
                f"{self._largest(before, 'pure'):.6g}. Nothing was recorded."
            )

    def can_spend(self, *costs):
        """Whether ``costs``, spent one after another, would all be admitted now.

        Nothing is recorded. Each is summed exactly, as the ledger sums the spends it
        records.

        Parameters
        ----------
        *costs : PrivacyCost
            The costs.

        Returns
        -------
        admitted : bool
            True if the budget admits them all.
        """
        if self._budget.kind == "pure" and any(c.notion != "pure" for c in costs):
            return False
        if self._budget.kind == "zcdp" and any(c.notion == "renyi" for c in costs):
            return False
        totals = self._ledger.totals()
        for cost in costs:
            totals = totals.plus(
                cost.notion,
                cost.parameter,
                cost.caveats,
                cost.curve,
                cost.selection,
                cost.envelope,
                cost.approximate_delta,
            )
        return self._budget.admits(totals)

    @staticmethod
    def _cost_of(totals):
        if totals.n_renyi:
            curve = _curve(totals, totals.pure_rho + totals.zcdp_rho)
            cost = PrivacyCost.renyi([_ceil(value) for value in curve])
        elif totals.n_zcdp == 0:
            cost = PrivacyCost.pure(_ceil(totals.pure_epsilon))
        else:
            cost = PrivacyCost.zcdp(_ceil(totals.pure_rho + totals.zcdp_rho))
        if totals.selection is not None and totals.n_records == 1:
            # One record, a private selection: it keeps its profile (§22).
            cost = replace(cost, selection=totals.selection)
        if totals.approximate_delta:
            cost = replace(cost, approximate_delta=_ceil(totals.approximate_delta))
        return cost.with_caveats(totals.caveats)

    @property
    def spent(self):
        """The composition of every recorded spend, as a PrivacyCost.

        Pure if every spend was pure (their ε added), else zCDP (ρ added, pure
        ε as ε²/2); a Rényi curve once a Rényi spend (private selection) is
        recorded (curves added, zCDP and pure parts as ρλ, §14). It carries
        the caveats of every spend.
        """
        return self._cost_of(self._ledger.totals())

    def spent_epsilon(self, delta):
        """The ε of (ε, δ)-DP that the recorded spends compose to, at δ.

        Parameters
        ----------
        delta : float in (0, 1)
            The δ.

        Returns
        -------
        epsilon : float
            The ε of the composition at δ.
        """
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}.")
        return _spent_epsilon(self._ledger.totals(), delta)

    def _largest(self, totals, notion):
        """Largest parameter of one more ``notion`` spend that the budget admits."""
        exact = self._budget.remaining(totals, notion)
        if exact is not None:
            return _floor(exact)
        low, high = 0.0, self._budget.largest_single()
        if not self._budget.admits(totals.plus(notion, low)):
            return 0.0
        for _ in range(_BISECTION_STEPS):
            middle = 0.5 * (low + high)
            if middle in (low, high):
                break
            if self._budget.admits(totals.plus(notion, middle)):
                low = middle
            else:
                high = middle
        return low

    @property
    def remaining(self):
        """The largest one more spend that the budget admits, as a PrivacyCost.

        A property, like :attr:`spent`. In the budget's own notion: ρ-zCDP for a ρ
        budget, pure ε for a pure one; for an (ε, δ) budget, the largest zCDP spend
        (what most estimators charge; :meth:`remaining_epsilon` gives the pure one).

        In the budget's own notion: ρ-zCDP for a ρ budget, pure ε for a pure
        one; for an (ε, δ) budget, the largest zCDP spend (what most
        estimators charge; :meth:`remaining_epsilon` gives the pure one).
        """
        if self._budget.kind == "pure":
            return PrivacyCost.pure(self.remaining_epsilon())
        return PrivacyCost.zcdp(self.remaining_rho())

    def remaining_rho(self):
        """The largest ρ of one more zCDP spend that the budget admits.

        Returns
        -------
        rho : float
            The ρ.
        """
        return self._largest(self._ledger.totals(), "zcdp")

    def remaining_epsilon(self):
        """The largest ε of one more pure spend that the budget admits.

        Returns
        -------
        epsilon : float
            The ε.
        """
        return self._largest(self._ledger.totals(), "pure")

    def history(self):
        """Every recorded spend, oldest first.

        Returns
        -------
        records : list of SpendRecord
            Named tuples (id, created_at, notion, parameter, source, details,
            process).
        """
        return self._ledger.history()

    def __repr__(self):
        where = "in memory" if self.path is None else f"path={self.path!r}"
        return f"PrivacyAccountant(budget={self._budget}, {where})"

    # An accountant is shared, never duplicated: clone() deep-copies the
    # parameters of an estimator, and a copy would be a second, separate budget.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        if self.path is None:
            raise TypeError(
                "An in-memory PrivacyAccountant cannot be sent to another process: "
                "its spends there would not be counted here. Give it a path (an "
                "SQLite file) to share one budget across processes."
            )
        return (_reopen, (self.path,))


def _reopen(path):
    """Unpickling: open the same ledger, with the budget stored in it."""
    return PrivacyAccountant(path=path)
