"""The value object that says what a release spent."""

import math
from dataclasses import dataclass, field, replace

from skprivcov.privacy._caveats import CAVEATS
from skprivcov.privacy._conversions import cks_epsilon, pure_to_zcdp

__all__ = ["PrivacyCost"]

_NOTIONS = ("pure", "zcdp")


@dataclass(frozen=True)
class PrivacyCost:
    """An immutable privacy cost: pure ε-DP or ρ-zCDP.

    Build one with :meth:`pure`, :meth:`zcdp` or :meth:`zero` rather than with
    the constructor. Costs compose with ``+`` (basic composition): pure costs
    add their ε; anything involving zCDP adds ρ, a pure part entering as ε²/2
    (Bun & Steinke 2016, Prop. 1.4). ``sum(costs)`` works.

    Neighbouring datasets differ by the replacement of one row throughout
    skprivcov.

    Parameters
    ----------
    notion : {"pure", "zcdp"}
        The privacy notion the guarantee is stated in.
    parameter : float
        ε for ``"pure"``, ρ for ``"zcdp"``; finite and non-negative.
    reference_delta : float or None, default=None
        For a zCDP cost calibrated from an (ε, δ) target: that δ, so that
        :attr:`epsilon` reports the ε it implies. ``None`` otherwise.
    caveats : tuple of str, default=()
        Codes of the caveats that weaken the guarantee (keys of
        :data:`skprivcov.privacy.CAVEATS`), e.g. ``"mcmc-noise"`` for noise
        partly drawn by a Markov chain. Composition keeps every caveat of
        every part.

    Attributes
    ----------
    rho : float
        The ρ-zCDP guarantee (for a pure cost, the implied ε²/2).
    epsilon : float or None
        For a pure cost its ε; for a zCDP cost with a reference δ the ε of
        (ε, δ)-DP it implies by the Canonne–Kamath–Steinke conversion; else None.
    delta : float or None
        0 for a pure cost, the reference δ for a zCDP cost (or None).

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

    def __post_init__(self):
        if self.notion not in _NOTIONS:
            raise ValueError(f"notion must be one of {_NOTIONS}, got {self.notion!r}.")
        parameter = float(self.parameter)
        if not (math.isfinite(parameter) and parameter >= 0.0):
            raise ValueError(
                f"A privacy parameter must be finite and >= 0, got {self.parameter!r}."
            )
        object.__setattr__(self, "parameter", parameter)
        if self.reference_delta is not None:
            if self.notion == "pure":
                raise ValueError("A pure ε-DP cost has δ = 0; give no reference_delta.")
            if not 0.0 < self.reference_delta < 1.0:
                raise ValueError(
                    f"reference_delta must lie in (0, 1), got {self.reference_delta!r}."
                )
        caveats = tuple(sorted(set(self.caveats)))
        for code in caveats:
            if code not in CAVEATS:
                raise ValueError(
                    f"Unknown caveat {code!r}; known caveats: {sorted(CAVEATS)}."
                )
        object.__setattr__(self, "caveats", caveats)

    @classmethod
    def pure(cls, epsilon):
        """A pure ε-DP cost."""
        return cls("pure", epsilon)

    @classmethod
    def zcdp(cls, rho, *, reference_delta=None):
        """A ρ-zCDP cost, optionally reported as (ε, δ) at ``reference_delta``."""
        return cls("zcdp", rho, reference_delta)

    def with_caveats(self, caveats):
        """The same cost with ``caveats`` added to its own."""
        return replace(self, caveats=(*self.caveats, *caveats))

    @classmethod
    def zero(cls):
        """The cost of pure post-processing: nothing (ε = 0)."""
        return cls("pure", 0.0)

    @property
    def rho(self):
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
        return 0.0 if self.notion == "pure" else self.reference_delta

    def to_approx_dp(self, delta):
        """The ε such that this cost implies (ε, δ)-DP at the given δ ∈ (0, 1).

        A zCDP cost uses the tight Canonne–Kamath–Steinke conversion
        (docs/algorithms.rst §7.1). A pure cost reports its own ε (going through its
        implied ε²/2-zCDP would give more whenever log(1/δ) > 1/2).
        """
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}.")
        if self.notion == "pure":
            return self.parameter
        return cks_epsilon(self.parameter, delta)

    def scaled(self, fraction):
        """The same notion with its parameter multiplied by ``fraction``.

        Used to split a budget into the parts of a composed mechanism; the parts
        add back up to the whole.
        """
        return replace(self, parameter=self.parameter * fraction)

    def __add__(self, other):
        if not isinstance(other, PrivacyCost):
            return NotImplemented
        caveats = (*self.caveats, *other.caveats)
        if self.notion == other.notion == "pure":
            return PrivacyCost.pure(self.parameter + other.parameter).with_caveats(
                caveats
            )
        deltas = {d for d in (self.reference_delta, other.reference_delta) if d}
        reference_delta = deltas.pop() if len(deltas) == 1 else None
        total = PrivacyCost.zcdp(self.rho + other.rho, reference_delta=reference_delta)
        return total.with_caveats(caveats)

    def __radd__(self, other):
        # Lets sum() start from its default 0.
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    def __repr__(self):
        # Without caveats, the repr of a plain cost (unchanged since 0.1).
        text = (
            f"PrivacyCost(notion={self.notion!r}, parameter={self.parameter!r}, "
            f"reference_delta={self.reference_delta!r}"
        )
        if self.caveats:
            text += f", caveats={self.caveats!r}"
        return text + ")"

    def __str__(self):
        if self.notion == "pure":
            text = f"{self.parameter:.6g}-DP (pure)"
        else:
            text = f"{self.parameter:.6g}-zCDP"
            if self.reference_delta is not None:
                text += (
                    f" (implies ({self.epsilon:.6g}, {self.reference_delta:.3g})-DP)"
                )
        if self.caveats:
            text += f" [caveat: {', '.join(self.caveats)}]"
        return text
