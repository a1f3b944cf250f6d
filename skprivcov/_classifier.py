"""The fit template of the private classifiers (docs/algorithms.rst §13.2, §21).

The template of the covariance estimators
(:class:`skprivcov.covariance.BasePrivateCovariance`) with labels: resolve
the budget → the public checks of X, y and the parameters (no value read) →
:func:`skprivcov.base.charge` → the labels' values checked → values
converted → the generator → the rows clipped (a private bound at its part,
or a public one or box) → the classifier's one hook, ``_release_classes``,
which releases its blocks through the noise source of
:mod:`skprivcov.mechanisms` and fits from them → the parts checked against
the budget → ``privacy_spent_`` and ``privacy_parts_``. A classifier never
draws noise itself.
"""

from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context

from skprivcov._class_blocks import (
    CLASSIFIER_CONSTRAINTS,
    charge_and_check_labels,
    check_feature_bounds,
    check_labels_public,
    clipping_rows,
)
from skprivcov._random import release_generator
from skprivcov._validation import as_numeric
from skprivcov.base import estimator_budget
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

        Returns
        -------
        cost : PrivacyCost
            The budget given by ``rho``, ``epsilon`` and ``delta`` (or the
            default, ρ = 0.1).
        """
        return estimator_budget(self)

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
        budget = cost = self.fit_cost()
        X, y, public_classes = check_labels_public(self, X, y)
        box = check_feature_bounds(self.feature_bounds, X.shape[1])
        if public_classes is not None:
            self._check_classes(np.unique(public_classes).size, X.shape[1])
        classes = charge_and_check_labels(self, budget, y, public_classes)

        # Values from here on (docs/algorithms.rst §13.2).
        self._check_classes(classes.size, X.shape[1])
        X = as_numeric(X)
        rng = release_generator(self.random_state, noise=self.noise)
        # §18.2: with "auto" a private row-norm bound at its part, the release
        # at the rest (sequential composition on the same rows); with a
        # public box, rows centred in it (§21).
        X, bound, parts, budget, centre = clipping_rows(self, X, budget, rng, box)
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
