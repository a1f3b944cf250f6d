"""The value object that says what a release spent."""

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from skprivcov.privacy._caveats import CAVEATS
from skprivcov.privacy._conversions import cks_epsilon, pure_to_zcdp
from skprivcov.privacy._profiles import SelectionProfile
from skprivcov.privacy._renyi import (
    RENYI_ORDERS,
    envelope_epsilon,
    pure_curve,
    rdp_epsilon,
    zcdp_curve,
)

__all__ = ["PrivacyCost"]

_NOTIONS = ("pure", "zcdp", "renyi")


@dataclass(frozen=True)
class PrivacyCost:
    """An immutable privacy cost: pure ε-DP, ρ-zCDP or a Rényi-DP curve.

    Build one with :meth:`pure`, :meth:`zcdp`, :meth:`renyi` or :meth:`zero`
    rather than with the constructor. Costs compose with ``+`` (basic
    composition): pure costs add their ε; pure and zCDP costs add ρ, a pure
    part entering as ε²/2 (Bun & Steinke 2016, Prop. 1.4); anything involving
    a Rényi curve adds curves order by order, a zCDP part entering as ρλ and a
    pure part as its sharp curve (docs/algorithms.rst §14). ``sum(costs)``
    works.

    A Rényi curve is what private selection costs
    (:class:`~skprivcov.model_selection.PrivateRandomSearch`): it is stored at
    the public orders :data:`~skprivcov.privacy.RENYI_ORDERS`, never rounded
    down, and converted to (ε, δ) by :meth:`to_approx_dp`.

    Neighbouring datasets differ by the replacement of one row throughout
    skprivcov.

    Parameters
    ----------
    notion : {"pure", "zcdp", "renyi"}
        The privacy notion the guarantee is stated in.
    parameter : float or None
        The ε for ``"pure"``, ρ for ``"zcdp"``; finite and non-negative. None for
        ``"renyi"``.
    reference_delta : float or None, default=None
        For a zCDP cost calibrated from an (ε, δ) target: that δ, so that
        :attr:`epsilon` reports the ε it implies. ``None`` otherwise.
    caveats : tuple of str, default=()
        Codes of the caveats that weaken the guarantee (keys of
        :data:`skprivcov.privacy.CAVEATS`), e.g. ``"mcmc-noise"`` for noise
        partly drawn by a Markov chain. Composition keeps every caveat of
        every part.
    curve : tuple of float or None, default=None
        For ``"renyi"``: ε(λ) at each order of ``RENYI_ORDERS``, in order.
    envelope : tuple of 3 float or None, default=None
        For ``"renyi"``: (a, b, c) ≥ 0 with ε(λ) ≤ a·λ + b + c/(λ − 1) at
        every real order λ > 1 (the selection curve of zCDP candidates has
        this form), so that :meth:`to_approx_dp` converts over all real
        orders, beyond the stored ones (docs/algorithms.rst §22).
    selection : SelectionProfile or None, default=None
        For the cost of a private selection (``"pure"`` or ``"renyi"``): its
        candidates and law of runs, so that :meth:`to_approx_dp` also bounds
        it by privacy profiles and reports the smaller ε (§22). Composition
        keeps the curve and drops this.
    approximate_delta : float in [0, 1), default=0.0
        The δ₀ of a δ₀-approximate guarantee (docs/algorithms.rst §25): on
        every pair of neighbouring datasets, each output law puts at least
        1 − δ₀ of its mass on a part (a sub-probability) whose normalised
        laws meet the stated guarantee (ε-DP, ρ-zCDP or the curve) against
        each other; the rest is arbitrary (a private label set released by a
        threshold). Composition adds δ₀; :meth:`to_approx_dp` at δ converts
        the guarantee at δ − δ₀ and adds log(1/(1 − δ₀)) to the ε. A cost
        with δ₀ > 0 has no Rényi curve (:meth:`rdp` refuses), so a private
        selection cannot run over it, and a ρ or pure ε budget cannot pay
        for it.

    Attributes
    ----------
    rho : float or None
        The ρ-zCDP guarantee (for a pure cost, the implied ε²/2; None for a
        Rényi curve, which in general implies no zCDP guarantee).
    epsilon : float or None
        For a pure cost its ε; for a zCDP cost with a reference δ the ε of
        (ε, δ)-DP it implies by the Canonne–Kamath–Steinke conversion; else None.
    delta : float or None
        δ₀ (0 unless approximate) for a pure cost, the reference δ for a zCDP
        cost (or None).

    See Also
    --------
    PrivacyAccountant : Spends costs from a budget.
    BudgetPart : A step of a mechanism and its cost.

    Examples
    --------
    >>> from skprivcov import PrivacyCost
    >>> cost = PrivacyCost.zcdp(0.05) + PrivacyCost.zcdp(0.05)
    >>> cost.rho
    0.1
    >>> round(cost.to_approx_dp(1e-5), 3)
    1.914
    >>> PrivacyCost.pure(0.5) + PrivacyCost.pure(0.5)
    PrivacyCost(notion='pure', parameter=1.0, reference_delta=None)
    """

    notion: str
    parameter: float
    reference_delta: float | None = None
    caveats: tuple = field(default=())
    curve: tuple | None = None
    envelope: tuple | None = None
    selection: SelectionProfile | None = None
    approximate_delta: float = 0.0

    def __post_init__(self):
        if self.notion not in _NOTIONS:
            raise ValueError(f"notion must be one of {_NOTIONS}, got {self.notion!r}.")
        if self.notion == "renyi":
            self._check_curve()
        elif self.curve is not None:
            raise ValueError("Only a 'renyi' cost has a curve.")
        else:
            self._check_parameter()
        self._check_extras()
        self._check_approximate_delta()
        caveats = tuple(sorted(set(self.caveats)))
        for code in caveats:
            if code not in CAVEATS:
                raise ValueError(
                    f"Unknown caveat {code!r}; known caveats: {sorted(CAVEATS)}."
                )
        object.__setattr__(self, "caveats", caveats)

    def _check_curve(self):
        if self.parameter is not None:
            raise ValueError("A Rényi cost has no parameter; give its curve.")
        curve = np.asarray(self.curve, dtype=np.float64)
        if curve.shape != (len(RENYI_ORDERS),) or not np.all(
            np.isfinite(curve) & (curve >= 0.0)
        ):
            raise ValueError(
                f"A Rényi curve must hold {len(RENYI_ORDERS)} finite values >= 0, "
                "one per order of RENYI_ORDERS."
            )
        object.__setattr__(self, "curve", tuple(float(v) for v in curve))
        if self.reference_delta is not None:
            self._check_reference_delta()

    def _check_extras(self):
        if self.envelope is not None:
            if self.notion != "renyi":
                raise ValueError("Only a 'renyi' cost has an envelope.")
            envelope = tuple(float(value) for value in self.envelope)
            if len(envelope) != 3 or not all(
                math.isfinite(value) and value >= 0.0 for value in envelope
            ):
                raise ValueError("An envelope is three finite numbers >= 0.")
            object.__setattr__(self, "envelope", envelope)
        if self.selection is not None:
            if not isinstance(self.selection, SelectionProfile):
                raise ValueError("selection must be a SelectionProfile.")
            self._check_selection()

    def _check_approximate_delta(self):
        delta = float(self.approximate_delta)
        if not (math.isfinite(delta) and 0.0 <= delta < 1.0):
            raise ValueError(
                "approximate_delta must be a number in [0, 1), got "
                f"{self.approximate_delta!r}."
            )
        if delta > 0.0 and self.selection is not None:
            raise ValueError(
                "A private selection's cost is not approximate: its candidates "
                "must have Rényi curves (docs/algorithms.rst §14, §25)."
            )
        object.__setattr__(self, "approximate_delta", delta)

    def _check_selection(self):
        # The profile route is reported only for the cost of the selection it
        # describes: the cost must be the Rényi route of the same candidates
        # and law (§14, §22), so that a profile cannot ride on another cost.
        if not self.selection.describes(self.notion, self.parameter, self.curve):
            raise ValueError(
                "This cost is not what a selection of its candidates costs "
                "(docs/algorithms.rst §14): its selection profile does not "
                "describe it."
            )

    def _check_reference_delta(self):
        if not 0.0 < self.reference_delta < 1.0:
            raise ValueError(
                f"reference_delta must lie in (0, 1), got {self.reference_delta!r}."
            )

    def _check_parameter(self):
        parameter = float(self.parameter)
        if not (math.isfinite(parameter) and parameter >= 0.0):
            raise ValueError(
                f"A privacy parameter must be finite and >= 0, got {self.parameter!r}."
            )
        object.__setattr__(self, "parameter", parameter)
        if self.reference_delta is not None:
            if self.notion == "pure":
                raise ValueError("A pure ε-DP cost has δ = 0; give no reference_delta.")
            self._check_reference_delta()

    @classmethod
    def pure(cls, epsilon, *, approximate_delta=0.0):
        """A pure ε-DP cost, or (ε, δ₀)-DP with ``approximate_delta``.

        Parameters
        ----------
        epsilon : float
            The ε ≥ 0.
        approximate_delta : float in [0, 1), default=0.0
            The δ₀ of a δ₀-approximate guarantee (§25).

        Returns
        -------
        cost : PrivacyCost
            The cost.
        """
        return cls("pure", epsilon, approximate_delta=approximate_delta)

    @classmethod
    def zcdp(cls, rho, *, reference_delta=None, approximate_delta=0.0):
        """A ρ-zCDP cost, optionally reported as (ε, δ) at ``reference_delta``.

        Parameters
        ----------
        rho : float
            The ρ ≥ 0.
        reference_delta : float or None, default=None
            The δ at which :attr:`epsilon` reports the cost.
        approximate_delta : float in [0, 1), default=0.0
            The δ₀ of a δ₀-approximate guarantee (§25): δ₀-approximate ρ-zCDP.

        Returns
        -------
        cost : PrivacyCost
            The cost.
        """
        return cls("zcdp", rho, reference_delta, approximate_delta=approximate_delta)

    @classmethod
    def renyi(cls, curve, *, reference_delta=None, envelope=None):
        """A Rényi-DP cost: ``curve[i]`` is ε(λ) at ``RENYI_ORDERS[i]``.

        Parameters
        ----------
        curve : sequence of float
            The ε(λ) at each order of ``RENYI_ORDERS``.
        reference_delta : float or None, default=None
            The δ at which :attr:`epsilon` reports the cost.
        envelope : tuple of 3 float or None, default=None
            (a, b, c) with ε(λ) ≤ a·λ + b + c/(λ − 1) at every order λ > 1,
            when known in that closed form.

        Returns
        -------
        cost : PrivacyCost
            The cost.
        """
        return cls(
            "renyi", None, reference_delta, curve=tuple(curve), envelope=envelope
        )

    def rdp(self):
        """The curve ε(λ) at every order of ``RENYI_ORDERS``, as an array (§14).

        ρλ for a zCDP cost, the sharp curve of pure ε-DP for a pure cost
        (docs/algorithms.rst §7.3), the stored curve for a Rényi cost.

        Returns
        -------
        curve : ndarray of shape (n_orders,)
            The ε(λ).
        """
        if self.approximate_delta > 0.0:
            raise ValueError(
                f"{self} is δ₀-approximate (docs/algorithms.rst §25): it has no "
                "Rényi curve, so it cannot be a candidate of a private selection "
                "nor be spent from a budget that holds curves only."
            )
        return self._curve()

    def _curve(self):
        """The curve of the guarantee's part that meets it (all of it unless
        the cost is approximate)."""
        if self.notion == "renyi":
            return np.array(self.curve)
        if self.notion == "zcdp":
            return zcdp_curve(self.parameter)
        return pure_curve(self.parameter)

    def with_caveats(self, caveats):
        """The same cost with ``caveats`` added to its own.

        Parameters
        ----------
        caveats : iterable of str
            Codes of the caveats (keys of :data:`skprivcov.privacy.CAVEATS`).

        Returns
        -------
        cost : PrivacyCost
            The cost with the caveats.
        """
        return replace(self, caveats=(*self.caveats, *caveats))

    @classmethod
    def zero(cls):
        """The cost of pure post-processing: nothing (ε = 0)."""
        return cls("pure", 0.0)

    @property
    def rho(self):
        if self.notion == "renyi":
            return None
        if self.notion == "pure":
            return pure_to_zcdp(self.parameter)
        return self.parameter

    @property
    def epsilon(self):
        if self.notion == "pure":
            return self.parameter
        if self.reference_delta is None:
            return None
        return self.to_approx_dp(self.reference_delta)

    @property
    def delta(self):
        return self.approximate_delta if self.notion == "pure" else self.reference_delta

    def to_approx_dp(self, delta):
        """The ε such that this cost implies (ε, δ)-DP at the given δ ∈ (0, 1).

        A zCDP cost uses the tight Canonne–Kamath–Steinke conversion
        (docs/algorithms.rst §7.1). A pure cost reports its own ε (going through its
        implied ε²/2-zCDP would give more whenever log(1/δ) > 1/2). A Rényi
        cost uses the same conversion (CKS20 Prop. 12, §14) over real orders:
        between its stored orders by the convexity of (λ − 1)·ε(λ), beyond
        them through its envelope when it has one (§22). The cost of a
        private selection is also bounded through privacy profiles (§22),
        and the smaller of the two valid values is reported.

        A δ₀-approximate cost (§25) converts its guarantee at δ − δ₀ (δ₀ of
        the failure is spent already) and adds log(1/(1 − δ₀)) to the ε (the
        conditioning on the mixture's good part); at a δ no larger than δ₀
        (below it, for a pure cost) no ε holds and the result is ``inf``.

        Parameters
        ----------
        delta : float in (0, 1)
            The δ.

        Returns
        -------
        epsilon : float
            The ε.
        """
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}.")
        if self.approximate_delta > 0.0:
            exact = replace(self, approximate_delta=0.0)
            if self.notion == "pure" and delta >= self.approximate_delta:
                return approximate_epsilon(exact.parameter, self.approximate_delta)
            left = remaining_delta(delta, self.approximate_delta)
            if left is None:
                return math.inf
            return approximate_epsilon(exact.to_approx_dp(left), self.approximate_delta)
        if self.notion == "zcdp":
            return cks_epsilon(self.parameter, delta)
        if self.notion == "pure":
            epsilon = self.parameter
        else:
            epsilon = rdp_epsilon(self.curve, delta)
            if self.envelope is not None:
                epsilon = min(epsilon, envelope_epsilon(self.envelope, delta))
        if self.selection is not None and epsilon > 0.0:
            epsilon = min(epsilon, self.selection.to_approx_dp(delta, epsilon))
        return epsilon

    def scaled(self, fraction):
        """The same notion with its parameter multiplied by ``fraction``.

        Used to split a budget into the parts of a composed mechanism; the parts
        add back up to the whole. A Rényi curve has no parameter to split.

        Parameters
        ----------
        fraction : float
            The factor of the parameter.

        Returns
        -------
        cost : PrivacyCost
            The scaled cost.
        """
        if self.notion == "renyi":
            raise ValueError("A Rényi cost cannot be split into parts.")
        if self.approximate_delta > 0.0:
            raise ValueError(
                "A δ₀-approximate cost cannot be split into parts: its δ₀ "
                "belongs to one step (docs/algorithms.rst §25)."
            )
        return replace(self, parameter=self.parameter * fraction, selection=None)

    def __add__(self, other):
        if not isinstance(other, PrivacyCost):
            return NotImplemented
        total = self._compose(other)
        # δ₀-approximate parts (§25): their weights add (a union bound on the
        # mixtures' other parts), rounded up.
        first, second = self.approximate_delta, other.approximate_delta
        if first and second:
            total = replace(
                total, approximate_delta=math.nextafter(first + second, math.inf)
            )
        elif first or second:
            total = replace(total, approximate_delta=first or second)
        return total

    def _compose(self, other):
        # A composition is no longer a selection: its profile bound is
        # dropped, and the curves (or parameters) compose (§22).
        caveats = (*self.caveats, *other.caveats)
        if self.notion == other.notion == "pure":
            return PrivacyCost.pure(self.parameter + other.parameter).with_caveats(
                caveats
            )
        deltas = {d for d in (self.reference_delta, other.reference_delta) if d}
        reference_delta = deltas.pop() if len(deltas) == 1 else None
        if "renyi" in (self.notion, other.notion):
            # Curves add order by order; the float sum is moved one ulp up so
            # that it is never below the exact one.
            curve = np.nextafter(self._curve() + other._curve(), np.inf)
            total = PrivacyCost.renyi(
                curve,
                reference_delta=reference_delta,
                envelope=_envelope_sum(self, other),
            )
            return total.with_caveats(caveats)
        total = PrivacyCost.zcdp(self.rho + other.rho, reference_delta=reference_delta)
        return total.with_caveats(caveats)

    def __radd__(self, other):
        # Lets sum() start from its default 0.
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    def __repr__(self):
        if self.notion == "renyi":
            text = f"PrivacyCost.renyi(<curve at {len(self.curve)} orders>"
            if self.reference_delta is not None:
                text += f", reference_delta={self.reference_delta!r}"
            if self.caveats:
                text += f", caveats={self.caveats!r}"
            if self.envelope is not None:
                text += f", envelope={self.envelope!r}"
            return text + self._selection_repr() + self._approximate_repr() + ")"
        # Without caveats, the repr of a plain cost (unchanged since 0.1).
        text = (
            f"PrivacyCost(notion={self.notion!r}, parameter={self.parameter!r}, "
            f"reference_delta={self.reference_delta!r}"
        )
        if self.caveats:
            text += f", caveats={self.caveats!r}"
        return text + self._selection_repr() + self._approximate_repr() + ")"

    def _approximate_repr(self):
        if self.approximate_delta == 0.0:
            return ""
        return f", approximate_delta={self.approximate_delta!r}"

    def _selection_repr(self):
        # Two costs that print alike compare alike: a selection says so.
        return "" if self.selection is None else f", selection={self.selection!r}"

    def __str__(self):
        approximate = self.approximate_delta
        if self.notion == "pure":
            text = (
                f"({self.parameter:.6g}, {approximate:.3g})-DP (approximate)"
                if approximate
                else f"{self.parameter:.6g}-DP (pure)"
            )
        elif self.notion == "renyi":
            delta = self.reference_delta or max(1e-6, 2.0 * approximate)
            text = "Rényi-DP curve"
            if approximate:
                text += f" up to δ₀ = {approximate:.3g}"
            text += f" (implies ({self.to_approx_dp(delta):.6g}, {delta:.3g})-DP)"
        else:
            text = f"{self.parameter:.6g}-zCDP"
            if approximate:
                text += f" up to δ₀ = {approximate:.3g}"
            if self.reference_delta is not None:
                text += (
                    f" (implies ({self.epsilon:.6g}, {self.reference_delta:.3g})-DP)"
                )
        if self.caveats:
            text += f" [caveat: {', '.join(self.caveats)}]"
        return text


def approximate_epsilon(epsilon, approximate):
    """ε + log(1/(1 − δ₀)), rounded up: the ε of a δ₀-approximate guarantee
    whose part that meets it converts to ε (§25)."""
    return math.nextafter(epsilon - math.log1p(-float(approximate)), math.inf)


def remaining_delta(delta, spent):
    """δ − δ₀ rounded down to a float (a smaller δ can only raise the ε it
    converts to), or None when nothing is left. Each amount counts as the
    decimal it prints as, as the ledger counts them (a δ₀ equal to the δ
    leaves nothing); ``spent`` may be an exact Fraction (a ledger's sum)."""
    if not isinstance(spent, Fraction):
        spent = Fraction(repr(float(spent)))
    left = Fraction(repr(float(delta))) - spent
    if left <= 0:
        return None
    value = float(left)
    if Fraction(value) > left:
        value = math.nextafter(value, 0.0)
    return value if value > 0.0 else None


def _envelope(cost):
    """(a, b, c) of a cost's closed-form Rényi bound, or None: ρ-zCDP is
    (ρ, 0, 0); a pure cost has none here (its sharp curve is not of the
    form)."""
    if cost.notion == "zcdp":
        return (cost.parameter, 0.0, 0.0)
    if cost.notion == "renyi":
        return cost.envelope
    return None


def _envelope_sum(first, second):
    """Envelopes add as the curves do; rounded up, as the curves are."""
    one, two = _envelope(first), _envelope(second)
    if one is None or two is None:
        return None
    return tuple(math.nextafter(a + b, math.inf) for a, b in zip(one, two, strict=True))
