"""The fit template of the private classifiers (docs/algorithms.rst §13.2, §21).

The template of the covariance estimators
(:class:`skprivcov.covariance.BasePrivateCovariance`) with labels: the
public checks of X, y and the parameters (no value read) → resolve the
budget (with the private label set's δ₀ when the labels are not public, §25)
→ :func:`skprivcov.base.charge` → the generator → the label set (public
labels checked, or released privately) → values converted → the rows
clipped (a private bound at its part, or a public one or box) → the
classifier's one hook, ``_release_classes``,
which releases its blocks through the noise source of
:mod:`skprivcov.mechanisms` and fits from them → the parts checked against
the budget → ``privacy_spent_`` and ``privacy_parts_``. A classifier never
draws noise itself.
"""

from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context

from skprivcov._data import as_numeric
from skprivcov._models._class_blocks import (
    CLASSIFIER_CONSTRAINTS,
    charge_and_check_labels,
    check_feature_bounds,
    check_labels_public,
    clipping_rows,
)
from skprivcov._models._class_labels import check_label_release, label_budget
from skprivcov.base import estimator_budget
from skprivcov.mechanisms.noise import release_generator
from skprivcov.privacy import PrivacyCost, check_within, compose_parts

__all__ = ["BasePrivateClassifier"]


class BasePrivateClassifier(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
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

    @_fit_context(prefer_skip_nested_validation=True)
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
        X, y, public_classes = check_labels_public(self, X, y)
        budget = cost = self._fit_budget(private_labels=public_classes is None)
        box = check_feature_bounds(self.feature_bounds, X.shape[1])
        if public_classes is not None:
            self._check_classes(np.unique(public_classes).size, X.shape[1])
        else:
            check_label_release(
                cost, X.shape[0], self.noise == "hardened", type(self).__name__
            )
        rng = release_generator(self.random_state, noise=self.noise)
        classes, label_parts, budget = charge_and_check_labels(
            self, cost, y, public_classes, rng
        )

        # Values from here on (docs/algorithms.rst §13.2).
        self._check_classes(classes.size, X.shape[1])
        X = as_numeric(X)
        # §18.2: with "auto" a private row-norm bound at its part, the release
        # at the rest (sequential composition on the same rows); with a
        # public box, rows centred in it (§21). Rows whose label was not
        # released count in no class (§25).
        X, bound, parts, budget, centre = clipping_rows(self, X, budget, rng, box)
        parts = (*label_parts, *parts)
        self.classes_ = classes
        release_parts = self._release_classes(
            X, y, bound, budget, rng, box=box, centre=centre
        )
        parts = (*parts, *release_parts)
        try:
            check_within(compose_parts(parts), cost)
        except Exception:
            # An overspent release is never kept: the hook has stored the
            # fitted model, so every fitted attribute goes (a bug otherwise).
            for name in [name for name in vars(self) if name.endswith("_")]:
                delattr(self, name)
            raise
        self.norm_bound_ = bound
        self.privacy_parts_ = parts
        self.privacy_spent_ = cost
        return self
