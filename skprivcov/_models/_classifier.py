"""The private classifiers' hooks of the fit template (§13.2, §21, §25).

The order is :class:`skprivcov.base.PrivateFitMixin`'s; the classifiers'
hooks: the public checks of X, y, the public label set and the box → the
budget (with the private label set's δ₀ when the labels are not public, §25)
→ the threshold's public rule → (the charge, the generator) → the values →
the label set (public labels checked, or released privately) and the rows
clipped (a private bound at its part, or a public one or box) → the
classifier's one hook, ``_release_classes``, which releases its blocks
through the noise source and fits from them → (the parts checked) → the
bound stored. A classifier never draws noise itself.
"""

from abc import ABCMeta, abstractmethod
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from skprivcov._compat import fit_context
from skprivcov._data import as_numeric
from skprivcov._fit import estimator_budget
from skprivcov._models._class_blocks import (
    CLASSIFIER_CONSTRAINTS,
    check_feature_bounds,
    check_labels_public,
    check_public_labels,
    clipping_rows,
    private_label_set,
)
from skprivcov._models._class_labels import check_label_release, label_budget
from skprivcov.base import PrivateFitMixin, Release
from skprivcov.privacy import PrivacyCost

__all__ = ["BasePrivateClassifier"]


class _Rows(NamedTuple):
    """What the classifiers' hooks pass on: the rows, their labels, the
    public classes (or None), the public box (or None), and once bounded,
    the bound and the box's centre."""

    X: object
    y: np.ndarray
    public: np.ndarray | None
    box: tuple | None
    bound: float | None = None
    centre: np.ndarray | None = None


class BasePrivateClassifier(
    PrivateFitMixin, ClassifierMixin, BaseEstimator, metaclass=ABCMeta
):
    """Base class of the classifiers fit from private per-class blocks.

    A subclass implements :meth:`_release_classes` (and, if it has
    parameters that depend on the number of classes, :meth:`_check_classes`);
    the fit does the rest.
    """

    _parameter_constraints: dict = {**CLASSIFIER_CONSTRAINTS}
    # Notions the classifiers offer, and the budget when none is given.
    _notions = ("zcdp", "pure")
    _default_budget = PrivacyCost.zcdp(0.1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True  # noisy by design
        return tags

    def fit_cost(self):
        """What one fit spends, from the parameters alone (no data).

        With ``classes=None`` the label set is released privately unless y
        is categorical (docs/algorithms.rst §25): the cost then carries the
        step's δ₀ (``approximate_delta``), which a fit on a categorical y
        does not spend.

        Returns
        -------
        cost : PrivacyCost
            The budget given by ``rho``, ``epsilon`` and ``delta`` (or the
            default, ρ = 0.1), δ₀-approximate with ``classes=None``.
        """
        return self._fit_budget(private_labels=self.classes is None)

    def _fit_budget(self, *, private_labels):
        budget = estimator_budget(self)
        if not private_labels:
            return budget
        return label_budget(
            budget,
            epsilon=self.epsilon,
            delta=self.delta,
            owner=type(self).__name__,
        )

    def _check_classes(self, n_classes, n_features):
        """Checks of parameters against the number of classes: on the public
        classes before the charge, and on the observed ones after it. None
        here."""

    @abstractmethod
    def _release_classes(self, X, y, bound, budget, rng, *, box, centre):
        """Release the per-class blocks and fit the classifier from them.

        Parameters
        ----------
        X : ndarray or sparse matrix
            The rows, centred in the public box if any (``centre``).
        y : ndarray
            The labels, checked against ``classes_``.
        bound : float
            The rows are clipped to this ℓ2 norm.
        budget : PrivacyCost
            What is left for the release after the bound's part.
        rng : numpy.random.Generator
            The only source of noise.
        box : (lower, upper) or None
            The public box of ``feature_bounds``.
        centre : ndarray or None
            Its centre, to add back to the fitted means.

        Returns
        -------
        parts : tuple of BudgetPart
            The parts of ``budget`` spent.
        """

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Release the per-class blocks and fit the classifier from them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; rows beyond ``norm_bound`` are clipped. Its values
            are checked after the budget is charged; see ``nonfinite``.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        return self._fit_privately(X, y)

    # The hooks of the fit template (skprivcov.base.PrivateFitMixin).

    def _check_public(self, X, y):
        X, y, public = check_labels_public(self, X, y)
        box = check_feature_bounds(self.feature_bounds, X.shape[1])
        if public is not None:
            self._check_classes(np.unique(public).size, X.shape[1])
        return _Rows(X, y, public, box)

    def _fit_cost(self, rows):
        return self._fit_budget(private_labels=rows.public is None)

    def _check_plan(self, rows, cost):
        if rows.public is None:
            check_label_release(
                cost, rows.X.shape[0], self.noise == "hardened", type(self).__name__
            )

    def _open(self, rows, cost, rng):
        if rows.public is not None:
            self.classes_ = check_public_labels(rows.y, rows.public)
            self._check_classes(self.classes_.size, rows.X.shape[1])
        return rows._replace(X=as_numeric(rows.X))

    def _choose_bounds(self, rows, cost, rng):
        """The private label set (§25) and the row bound (§18.2) at their
        parts, or public ones (a box, §21) at none; the release the rest, on
        the same rows. Rows whose label is not released count in no class."""
        label_parts = ()
        if rows.public is None:
            self.classes_, label_parts, cost = private_label_set(rows.y, cost, rng)
            self._check_classes(self.classes_.size, rows.X.shape[1])
        X, bound, parts, rest, centre = clipping_rows(self, rows.X, cost, rng, rows.box)
        rows = rows._replace(X=X, bound=bound, centre=centre)
        return rows, (*label_parts, *parts), rest

    def _release(self, rows, budget, rng):
        parts = self._release_classes(
            rows.X, rows.y, rows.bound, budget, rng, box=rows.box, centre=rows.centre
        )
        return Release(None, parts, extras={"norm_bound_": rows.bound})
