"""The data as a mechanism sees it: statistics of clipped rows, never the rows.

A mechanism of an estimator (``_release``) reads the training data only
through this object: the second moment (and exact trace) of the rows
x / max(‖x‖, bound) — augmented with the constant column of docs/algorithms.rst §8.2
when the estimator centres — and the histogram of their norm exponents. Each
call is one pass over the data (docs/large_data.rst).
"""

from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from skprivcov._data import (
    CONSTANT_SQUARE,
    FEATURE_SQUARE,
    ExactStatistic,
    NormalisedRows,
    NormProfile,
    box_means,
    feature_cells,
    norm_profile,
    row_norm_counts,
    unit_ball_statistics,
)
from skprivcov.mechanisms import norm_grid, private_norm_bound
from skprivcov.privacy import PrivacyCost

__all__ = ["ClippedData", "Target", "bound_grid"]


def bound_grid(bound_range=None):
    """The public candidates of a private norm bound (§18.2): those of
    ``bound_range`` (low, high), by default 2^-32..2^32."""
    return norm_grid() if bound_range is None else norm_grid(*bound_range)


class Target(NamedTuple):
    """What a mechanism perturbs: the (augmented) second moment of the
    unit-ball rows and its trace, exact (see ``SufficientStatistics.trace``)."""

    matrix: np.ndarray
    trace: Fraction


class ClippedData:
    """The passes a mechanism may make over the (already charged) data.

    Each method is one pass over the rows, clipped into the unit ball; the values are
    checked by the first pass (the rule ``nonfinite``).

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The training data, its values not yet checked (the first pass does).
    augmented : bool
        Whether rows get the constant column (estimators that centre).
    nonfinite : {"raise", "zero"}
        The rule for rows with a non-finite entry (docs/algorithms.rst §13.2).

    Attributes
    ----------
    n_samples : int
        The public number of rows.
    n_features : int
        The public number of features.
    n_columns : int
        The dimension of the matrix a mechanism releases.

    See Also
    --------
    Release : What the mechanism hands back to the fit.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.base import ClippedData
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4]])
    >>> data = ClippedData(X, augmented=False, nonfinite="raise")
    >>> np.asarray(data.target(1.0).matrix).round(3)
    array([[0.225, 0.3  ],
           [0.3  , 0.4  ]])
    """

    def __init__(self, X: Any, *, augmented: bool, nonfinite: str) -> None:
        self._X = X
        self.augmented = augmented
        self._nonfinite = nonfinite
        self.n_samples = X.shape[0]
        self.n_features = X.shape[1]
        self.n_columns = X.shape[1] + (1 if augmented else 0)
        self._targets = {}

    def target(self, bound: float) -> Target:
        """Second moment and exact trace of the rows clipped at ``bound``.

        The rows are x / max(‖x‖, ``bound``), augmented if the estimator
        centres (docs/algorithms.rst §8.2). Computed once per bound (a pass may
        serve two steps of one fit).

        Parameters
        ----------
        bound : float
            The clipping bound.

        Returns
        -------
        target : Target
            The (augmented) second moment of the unit-ball rows and its exact
            trace.
        """
        if bound not in self._targets:
            self._targets[bound] = self._target(bound)
        return self._targets[bound]

    def _target(self, bound: float) -> Target:
        stats = unit_ball_statistics(
            self._X, bound, with_mean=self.augmented, nonfinite=self._nonfinite
        )
        if not self.augmented:
            return Target(stats.second_moment, stats.trace)
        # tr M = c_x²·tr S + c_0² for the augmented rows, exactly (c² = ½).
        trace = FEATURE_SQUARE * stats.trace + CONSTANT_SQUARE
        return Target(stats.augmented(), trace)

    def private_norm_bound(
        self,
        budget: PrivacyCost,
        rng: np.random.Generator,
        *,
        bound_range: tuple[float, float] | None = None,
        **options: Any,
    ) -> float:
        """Private upper bound on the row norms as given (before any clipping).

        ``skprivcov.mechanisms.private_norm_bound`` (and its ``options``) on
        the counts of one pass (§18.2), on the grid of the public
        ``bound_range`` (low, high), by default 2^-32..2^32.

        Parameters
        ----------
        budget : PrivacyCost
            The budget of the bound.
        rng : numpy.random.Generator
            The only source of noise.
        bound_range : tuple (low, high) or None, default=None
            The public range of the grid; None for the default grid.
        **options : dict
            Passed to ``skprivcov.mechanisms.private_norm_bound``.

        Returns
        -------
        bound : float
            The private bound, a point of the grid.
        """
        grid = bound_grid(bound_range)
        counts = row_norm_counts(self._X, grid, nonfinite=self._nonfinite)
        return private_norm_bound(counts, grid, self.n_samples, budget, rng, **options)

    def normalised(
        self,
        centre: np.ndarray,
        scale: np.ndarray,
        limit: np.ndarray | None = None,
    ) -> "ClippedData":
        """The same rows mapped to z = (x − centre)/scale (§23, step 2).

        Every later pass reads z, mapped block by block where the rows live;
        ``centre`` and ``scale`` must be public (given, or released).

        Parameters
        ----------
        centre, scale : ndarray of shape (n_features,)
            The public centre and positive scale.
        limit : ndarray of shape (n_features,), default=None
            Where each feature's z is clipped, ±limit (None: ±4 for all).

        Returns
        -------
        data : ClippedData
            The passes over the mapped rows.
        """
        rows = NormalisedRows(self._X, centre, scale, limit)
        return ClippedData(rows, augmented=self.augmented, nonfinite=self._nonfinite)

    def feature_cells(self, edges: np.ndarray) -> np.ndarray:
        """Count every feature's values in each cell of ``edges`` (one pass).

        The cells of §23, step 1: cell k holds (edges[k − 1], edges[k]].

        Parameters
        ----------
        edges : ndarray
            The public ascending cell edges.

        Returns
        -------
        counts : ndarray of int64, shape (n_features, edges.size + 1)
            The counts; a row with a non-finite entry counts as zeros (the
            rule ``nonfinite``).
        """
        return feature_cells(self._X, edges, nonfinite=self._nonfinite)

    def box_means(
        self, centre: np.ndarray, half_width: np.ndarray, absolute: bool
    ) -> ExactStatistic:
        """Average every feature's coordinates clipped to its box (one pass).

        The exact mean of clip((x − m)/r, −1, 1), or with ``absolute`` of
        min(abs(x − m)/r, 1), on the grid 2^−32 (§23, step 1).

        Parameters
        ----------
        centre, half_width : ndarray of shape (n_features,)
            The public box (m, r) of every feature.
        absolute : bool
            Whether the mean is of the absolute deviations.

        Returns
        -------
        means : ExactStatistic of shape (n_features,)
            The exact means (integers over n·2^32).
        """
        return box_means(
            self._X, centre, half_width, absolute, nonfinite=self._nonfinite
        )

    def norm_profile(self, bound: float) -> NormProfile:
        """Histogram of the norm exponents of the rows scaled by 1/``bound``.

        See ``skprivcov._data._statistics.norm_profile``.

        Parameters
        ----------
        bound : float
            The public ℓ2 bound B on the rows.

        Returns
        -------
        profile : NormProfile
            The histogram of the exponents of min(‖x‖/B, 1).
        """
        return norm_profile(self._X, bound, nonfinite=self._nonfinite)
