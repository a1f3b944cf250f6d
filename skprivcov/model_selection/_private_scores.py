"""Scores with a public sensitivity, for private selection (docs/algorithms.rst
§14): each is a statistic of the rows it scores whose change, when one of them
is replaced, is bounded by :meth:`sensitivity` whatever the model. No score
refuses, warns on or quotes a value of those rows (§13): a bad value costs
the score its worst."""

import math
from fractions import Fraction
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.pipeline import Pipeline

from skprivcov._data import (
    UNIT_BITS,
    as_numeric,
    check_per_row,
    floored_unit_sum,
    is_dask_array,
    unit_ball_statistics,
)
from skprivcov._fit import NORM_BOUND_RANGE

__all__ = ["CovarianceErrorScore", "PredictionLossScore"]

_LOSSES = ("squared", "absolute", "zero_one")


def _in_range(name, value, low, high):
    """A public number within [low, high], where nothing computed from it
    overflows (§13.2)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {value!r}.")
    if not low <= value <= high:
        raise ValueError(f"{name} must lie in [{low:g}, {high:g}], got {value!r}.")
    return float(value)


def _numeric(values):
    """float64 values, an entry that is not a number as NaN (never an error
    that could quote it)."""
    values = np.asarray(values)
    if values.dtype.kind in "biuf":
        return values.astype(np.float64)
    return as_numeric(values.astype(object))


def _rows(X):
    """The scored rows as floats, an entry that is not a number as NaN. A
    float array (a memmap too), a sparse matrix or a dask array is passed on
    as it is: the statistics stream it, never copying it whole."""
    if hasattr(X, "iloc"):  # a DataFrame: its values, as the model read them
        X = X.to_numpy()
    if sp.issparse(X) or is_dask_array(X):
        return X
    if isinstance(X, np.ndarray) and X.dtype in (np.float32, np.float64):
        return X
    return _numeric(X)


# The radius, in units of B², to which a release is brought before it is
# scored: the target's ‖C‖_F is at most 1 there, so a release farther than
# this is hopeless anyway, and every number the score computes stays small,
# so its rounding is small too (§13.6).
_RADIUS = 4.0
_UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2


def _within_radius(released):
    """``released`` scaled onto the Frobenius ball of radius _RADIUS if it
    lies outside (a function of the release alone: post-processing)."""
    largest = float(np.max(np.abs(released), initial=0.0))
    if not math.isfinite(largest):
        return None
    if largest == 0.0:
        return released
    norm = largest * float(np.linalg.norm(released / largest))
    return released if norm <= _RADIUS else released * (_RADIUS / norm)


def _final_step(estimator):
    return estimator[-1] if isinstance(estimator, Pipeline) else estimator


class CovarianceErrorScore:
    """Minus the Frobenius distance from a released covariance to the held-out rows'.

    See docs/algorithms.rst §14.

    s(D_val) = −‖Ĉ − C_val‖_F, with Ĉ the model's ``covariance_`` and C_val
    the second moment (the covariance, for a model with
    ``assume_centered=False``) of the held-out rows clipped to ``norm_bound``.
    Replacing one held-out row moves C_val by at most √2·B²/n_val in
    Frobenius norm (‖xxᵀ − x'x'ᵀ‖_F ≤ √2·B² for ‖x‖, ‖x'‖ ≤ B), and the
    centred one by at most (√2 + 4)·B²/n_val (the mean moves by ≤ 2B/n_val and
    ‖μμᵀ − μ'μ'ᵀ‖_F ≤ ‖μ − μ'‖(‖μ‖ + ‖μ'‖)); by the triangle inequality the
    score moves by no more.

    Parameters
    ----------
    norm_bound : float > 0, default=1.0
        The public bound B the held-out rows are clipped to, the same for
        every candidate (a candidate's own ``norm_bound`` is what is being
        chosen, not the yardstick).

    See Also
    --------
    PredictionLossScore : A score of predictions.
    PrivateRandomSearch : Selects privately with such a score.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance
    >>> from skprivcov.model_selection import CovarianceErrorScore
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(600, 2))
    >>> est = GaussianCovariance(rho=1.0, norm_bound=1.0, random_state=0).fit(X)
    >>> score = CovarianceErrorScore(norm_bound=1.0)
    >>> round(float(score.sensitivity(est, 600)), 4)
    0.009
    """

    def __init__(self, norm_bound=1.0):
        self.norm_bound = _in_range("norm_bound", norm_bound, *NORM_BOUND_RANGE)

    def sensitivity(self, estimator, n_samples):
        """The bound on the score's change between neighbouring sets of scored rows.

        Rounding included.

        The exact statistic moves by at most factor·B²/n. Its computed value
        is within u·(R + 1)·(d(n + 2) + d² + 2)·B² of the exact one (the sum
        over n rows of each entry of the target, then the norm of d² entries,
        all of them at most R + 1 = 5 in units of B²; u = 2⁻⁵³), and so is the
        neighbour's: twice that is added (§13.6).

        Parameters
        ----------
        estimator : estimator
            The fitted model (a pipeline ending in a covariance estimator).
        n_samples : int
            The number of scored rows n.

        Returns
        -------
        sensitivity : float
            The bound.
        """
        final = _final_step(estimator)
        centred = not getattr(final, "assume_centered", True)
        factor = math.sqrt(2.0) + (4.0 if centred else 0.0)
        d = np.shape(getattr(final, "covariance_", np.zeros((1, 1))))[0]
        rounding = (
            2.0 * _UNIT_ROUNDOFF * (_RADIUS + 1.0) * (d * (n_samples + 2) + d * d + 2)
        )
        return (factor / n_samples + rounding) * self.norm_bound**2

    def statistic(self, estimator, X, y=None):
        """The exact score of ``estimator`` on the held-out rows ``X``.

        For a pipeline, its final step's ``covariance_`` against the held-out
        rows passed through the steps before it (a row map: each held-out row
        still moves one row, so the sensitivity is unchanged).

        Parameters
        ----------
        estimator : estimator
            The fitted model.
        X : array-like of shape (n_samples, n_features)
            The held-out rows.
        y : None, default=None
            Ignored.

        Returns
        -------
        score : float
            The score, −‖Ĉ − C_val‖_F.
        """
        final = _final_step(estimator)
        if final is not estimator and len(estimator) > 1:
            # A row with an entry that is not a finite number is passed
            # through the steps as a row of zeros (a public rule per row): a
            # step's transform must not refuse on a data value (§13.2).
            X = _rows(X)
            bad = _bad_rows(X)
            if np.any(bad):
                X = _zeroed(X, bad)
            X = estimator[:-1].transform(X)
        estimator = final
        centred = not getattr(estimator, "assume_centered", True)
        # A row with a NaN or infinite entry counts as zeros: the score must
        # not refuse on a data value.
        stats = unit_ball_statistics(
            _rows(X), self.norm_bound, with_mean=centred, nonfinite="zero"
        )
        moment = stats.second_moment
        if centred:
            moment = moment - np.outer(stats.mean, stats.mean)
        # In units of B², where ‖target‖_F ≤ 1; the release is brought within
        # the radius R, so no number computed below exceeds R + 1.
        scale = self.norm_bound**2
        released = _within_radius(
            np.asarray(estimator.covariance_, dtype=np.float64) / scale
        )
        if released is None:  # a release with an infinite entry
            return -math.inf
        return -scale * float(np.linalg.norm(released - moment))

    def __repr__(self):
        return f"CovarianceErrorScore(norm_bound={self.norm_bound!r})"


class PredictionLossScore:
    """Minus a clipped mean loss of the model's predictions on held-out rows.

    See docs/algorithms.rst §14.

    s(D_val) = −(1/n_val) Σ min(ℓ(y_i, ŷ_i), c): each term lies in [0, c], so
    replacing one held-out row moves the score by at most c/n_val.

    Parameters
    ----------
    loss : {"squared", "absolute", "zero_one"}, default="squared"
        The loss per row; "zero_one" (for classifiers) is 1 for a wrong label.
    clip : float > 0, default=1.0
        The public cap c on each row's loss (1 for "zero_one" whatever is
        given). Choose it from the public range of the target: a squared error
        on targets in [−B, B] with predictions clipped there is at most 4B².

    See Also
    --------
    CovarianceErrorScore : A score of released covariances.
    PrivateRandomSearch : Selects privately with such a score.

    Examples
    --------
    >>> from skprivcov.model_selection import PredictionLossScore
    >>> score = PredictionLossScore(loss="squared", clip=4.0)
    >>> score.sensitivity(None, 1000) > 4.0 / 1000
    True
    """

    def __init__(self, loss="squared", clip=1.0):
        if loss not in _LOSSES:
            raise ValueError(f"loss must be one of {_LOSSES}, got {loss!r}.")
        self.loss = loss
        self.clip = 1.0 if loss == "zero_one" else _in_range("clip", clip, 1e-30, 1e30)

    def sensitivity(self, estimator, n_samples):
        """The bound on the score's change between neighbouring held-out sets.

        c/n for the exact mean, plus c·2⁻⁵² for its rounding to a float (the float noise
        path adds noise to the float).

        Parameters
        ----------
        estimator : estimator
            The fitted model (not read).
        n_samples : int
            The number of scored rows n.

        Returns
        -------
        sensitivity : float
            The bound.
        """
        return self.clip / n_samples + self.clip * 2.0**-52

    def statistic(self, estimator, X, y):
        """The exact score of ``estimator`` on the held-out rows, as a Fraction.

        Each row's loss over c floored to a multiple of 2⁻⁵² (a function of that row
        alone) and the integers added exactly, so one row moves it by at most c/n
        whatever the number of rows (§13.6).

        A row with an entry that is not a finite number, in X or y, gets the
        cap c (and is predicted as a row of zeros, so ``predict`` never
        refuses it); so does a prediction that is not a finite number.

        Parameters
        ----------
        estimator : estimator
            The fitted model.
        X : array-like of shape (n_samples, n_features)
            The held-out rows.
        y : array-like of shape (n_samples,)
            Their targets.

        Returns
        -------
        score : Fraction
            The score, −(1/n_val) Σ min(ℓ(y_i, ŷ_i), c).
        """
        rows = _rows(X)
        n_rows = rows.shape[0]
        bad = _bad_rows(rows)
        if np.any(bad):
            rows = _zeroed(rows, bad)
        # One loss per row, never a broadcast of (n,) against (n, 1) (§13.7).
        predicted = check_per_row(estimator.predict(rows), n_rows, "The predictions")
        y = check_per_row(y, n_rows, "The held-out target")
        if self.loss == "zero_one":
            losses = (predicted != y).astype(np.float64)
        else:
            with np.errstate(all="ignore"):
                difference = _numeric(predicted) - _numeric(y)
                losses = difference**2 if self.loss == "squared" else np.abs(difference)
        losses = np.where(np.isfinite(losses), np.minimum(losses, self.clip), self.clip)
        losses[bad] = self.clip
        losses = check_per_row(losses, n_rows, "The losses")
        units = floored_unit_sum(losses / self.clip)  # Σ⌊(loss/c)·2^52⌋, exact
        return -Fraction(units, losses.size << UNIT_BITS) * Fraction(self.clip)

    def __repr__(self):
        return f"PredictionLossScore(loss={self.loss!r}, clip={self.clip!r})"


def _bad_rows(rows):
    """Which rows hold an entry that is not a finite number."""
    if sp.issparse(rows):
        rows = rows.tocsr()
        bad = ~np.isfinite(rows.data)
        owners = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
        return np.bincount(owners[bad], minlength=rows.shape[0]) > 0
    return ~np.all(np.isfinite(rows), axis=1)


def _zeroed(rows, bad):
    """A copy of ``rows`` with the ``bad`` rows set to zeros."""
    if sp.issparse(rows):
        rows = rows.tocsr(copy=True)
        rows.data[np.repeat(bad, np.diff(rows.indptr))] = 0.0
        return rows
    rows = rows.copy()
    rows[bad] = 0.0
    return rows
