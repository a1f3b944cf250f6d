"""Gaussian naive Bayes from private per-class blocks (docs/algorithms.rst §21)."""

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from skprivcov._data import check_input
from skprivcov._fit import fill_shared_docs
from skprivcov._models import (
    BasePrivateClassifier,
    class_estimates,
    release_blocks,
)

__all__ = ["PrivateGaussianNB"]


@fill_shared_docs
class PrivateGaussianNB(BasePrivateClassifier):
    """Gaussian naive Bayes from private per-class counts, sums and squares.

    Rows x are brought into the unit ball by ``norm_bound`` B (z = x /
    max(‖x‖, B), clipped) and put on the exact grid of every other estimator
    (docs/algorithms.rst §19). Three blocks are released, each for all classes
    at once, each with its own part of the budget (basic composition; the
    split is the public rule of §21, ``privacy_parts_``):

    * ``"class counts"``: (n_c/n)_c, sensitivity ℓ1 2/n, ℓ2 √2/n;
    * ``"class totals"``: (Σ_{i∈c} z_i/n)_c, ℓ1 2√d/n, ℓ2 2/n;
    * ``"class squares"``: (Σ_{i∈c} z_i⊙z_i/n)_c, ℓ1 2/n, ℓ2 √2/n.

    Under replace-one neighbours a row may change class, moving two classes'
    statistics; the sensitivities above cover that (derived in §21). Pure
    ε-DP budgets get Laplace noise, ρ-zCDP (and (ε, δ), through ρ) Gaussian
    noise. Priors (the noisy counts shrunk toward uniform by a public weight),
    means, per-class variances (floored at a public level derived from the
    noise) and the classifier are post-processing.

    diffprivlib's ``GaussianNB(epsilon=ε)`` releases each class's means and
    variances at ε and counts its classes by parallel composition, which
    holds for add/remove neighbours; under replace-one neighbours (the notion
    of this library, and of diffprivlib's own bounded sensitivities) a row
    changing class changes two classes' statistics, so it really spends 2ε.
    Compare it at ``epsilon=ε/2`` with this estimator at ε.

    Parameters
    ----------
    {classes_parameter}

    rho : float in [1e-30, 1e30], default=None
        Budget as ρ-zCDP (default ρ = 0.1).

    epsilon : float in [1e-30, 1e30], default=None
        Budget as pure ε-DP (Laplace noise), or with ``delta > 0`` an (ε, δ)
        budget, calibrated to the largest ρ that meets it (Gaussian noise).

    delta : float in [0, 1), default=None
        The δ of an (ε, δ) budget.

    norm_bound : "auto", float in [1e-30, 1e30] or tuple (low, high), \
default="auto"
        Bound on the ℓ2 norm of a row of X; longer rows are clipped. "auto":
        a private upper bound at 1/16 of the budget (the part ``"norm
        bound"``, docs/algorithms.rst §18.2), published as ``norm_bound_``; a
        pair (low, high) chooses it on the grid of that public range. A
        number is a public bound.

    feature_bounds : tuple (lower, upper) of arrays of shape (n_features,) \
or floats, default=None
        A public box of the features. Rows are clipped to it and centred at
        its centre (a public per-row rule); the bound is then half its
        diagonal, or a smaller numeric ``norm_bound`` (nothing is spent on a
        bound), and the means and variances are clipped to what the box allows
        (§21). X is then densified.

    nonfinite : {"raise", "zero"}, default="raise"
        Rows with a NaN, infinite or non-number entry: refused (after the
        charge) or taken as zero rows.

    noise : {"hardened", "float"}, default="hardened"
        Exact discrete noise on the exact integer statistics (§17, §19), or
        numpy's continuous samplers.

    random_state : int in [0, 2**63) or None, default=None
        The only source of the noise. None draws fresh OS entropy.

    accountant : PrivacyAccountant, default=None
        Charged once per fit, before any value of X or y is read.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    class_count_ : ndarray of shape (n_classes,)
        Private class sizes (n times the shrunk shares).

    class_prior_ : ndarray of shape (n_classes,)
        Private class proportions.

    theta_ : ndarray of shape (n_classes, n_features)
        Private class means.

    var_ : ndarray of shape (n_classes, n_features)
        Private per-class variances, floored.

    privacy_spent_ : PrivacyCost
        The budget charged.

    privacy_parts_ : tuple of BudgetPart
        The blocks (after the part ``"norm bound"`` with "auto").

    norm_bound_ : float
        The bound the rows were clipped at.

    n_features_in_ : int
        Number of features.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when known.

    See Also
    --------
    skprivcov.discriminant_analysis.PrivateLinearDiscriminantAnalysis :
        Shared (pooled) variances or a full covariance.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.naive_bayes import PrivateGaussianNB
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack(
    ...     [rng.normal(-0.3, 0.1, (2000, 2)), rng.normal(0.3, 0.1, (2000, 2))]
    ... )
    >>> y = np.repeat([0, 1], 2000)
    >>> clf = PrivateGaussianNB(
    ...     classes=[0, 1], epsilon=1.0, norm_bound=1.0, random_state=0
    ... )
    >>> clf.fit(X, y).predict([[-0.3, -0.2], [0.25, 0.35]])
    array([0, 1])
    >>> print(clf.privacy_spent_)
    1-DP (pure)
    >>> [part.step for part in clf.privacy_parts_]
    ['class counts', 'class totals', 'class squares']
    """

    def __init__(
        self,
        *,
        classes=None,
        rho=None,
        epsilon=None,
        delta=None,
        norm_bound="auto",
        feature_bounds=None,
        nonfinite="raise",
        noise="hardened",
        random_state=None,
        accountant=None,
    ):
        self.classes = classes
        self.rho = rho
        self.epsilon = epsilon
        self.delta = delta
        self.norm_bound = norm_bound
        self.feature_bounds = feature_bounds
        self.nonfinite = nonfinite
        self.noise = noise
        self.random_state = random_state
        self.accountant = accountant

    def _release_classes(self, X, y, bound, budget, rng, *, box, centre):
        """Release the per-class counts, sums and squares and set the model
        from them (the hook of the classifiers' fit template)."""
        n_samples = X.shape[0]
        half_widths = None if box is None else (box[1] - box[0]) / 2.0 / bound
        blocks, block_parts = release_blocks(
            X,
            y,
            self.classes_,
            bound,
            budget,
            rng,
            pooled=False,
            nonfinite=self.nonfinite,
        )
        estimates = class_estimates(blocks, n_samples, budget.notion, half_widths)
        # The quadratic term's expectation carries the means' noise (§21).
        self._mean_noise = estimates.mean_noise * bound**2
        self.class_prior_ = estimates.shares
        self.class_count_ = estimates.shares * n_samples
        self.theta_ = estimates.means * bound + (0.0 if centre is None else centre)
        self.var_ = estimates.variances * bound**2
        return block_parts

    def _joint_log_likelihood(self, X):
        check_is_fitted(self, "theta_")
        X = check_input(self, X, reset=False, accept_sparse=("csr", "csc"))
        if not isinstance(X, np.ndarray):
            X = X.toarray()
        precision = 1.0 / self.var_
        # −½ Σ_j [log 2πσ²_cj + (x_j − μ_cj)²/σ²_cj], expanded as products.
        constant = -0.5 * (
            np.log(2.0 * np.pi * self.var_).sum(axis=1)
            + ((self.theta_**2 - self._mean_noise) * precision).sum(axis=1)
        )
        quadratic = -0.5 * (X**2) @ precision.T + X @ (self.theta_ * precision).T
        return quadratic + constant + np.log(self.class_prior_)

    def predict(self, X):
        """The most probable class of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            The predicted classes.
        """
        scores = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_log_proba(self, X):
        """Compute the logarithms of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            The log-probabilities of the classes.
        """
        scores = self._joint_log_likelihood(X)
        return scores - logsumexp(scores, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Class probabilities under the fitted model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The probabilities of the classes.
        """
        return np.exp(self.predict_log_proba(X))
