"""The private row-norm bound of ``norm_bound="auto"`` (docs/algorithms.rst §18.2)."""

from skprivcov._fit._clipped_data import bound_grid
from skprivcov._fit._constraints import is_auto
from skprivcov._fit._diagnostics import warn_if_bound_on_grid_edge
from skprivcov.mechanisms import (
    FIXED_BOUND_QUANTILE,
    NOISY_AT,
    noise_level,
    split_budget,
)

__all__ = ["auto_norm_bound", "bound_quantile", "bound_range", "is_private_bound"]


def auto_norm_bound(data, budget, rng, *, owner=None, **options):
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
    owner : str or None, default=None
        The estimator's name: a bound on the edge of its grid is then warned
        about (:class:`~skprivcov.privacy.NoiseDominatedWarning`,
        docs/algorithms.rst §23).
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
    if owner is not None:
        grid = bound_grid(options.get("bound_range"))
        warn_if_bound_on_grid_edge(owner, bound, grid)
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
