"""Linear discriminant analysis from one private release per class (§15)."""

from numbers import Integral

import numpy as np
from scipy import linalg
from scipy.special import log_expit, log_softmax
from sklearn.base import (
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from skprivcov._compat import Interval, StrOptions
from skprivcov._data import (
    CONSTANT_SQUARE,
    CONSTANT_WEIGHT,
    FEATURE_WEIGHT,
    FRACTION_BITS,
    ExactStatistic,
    check_input,
    class_grams,
)
from skprivcov._fit import eigenvalue_floor, fill_shared_docs, floored_inverse
from skprivcov._models import (
    BasePrivateClassifier,
    class_estimates,
    release_blocks,
)
from skprivcov.mechanisms import (
    noise_level,
    per_class_sums_l1_sensitivity,
    project_psd_trace_ball,
    second_moment_l2_sensitivity,
)
from skprivcov.mechanisms.noise import noisy_second_moment
from skprivcov.privacy import (
    BudgetPart,
)

__all__ = ["PrivateLinearDiscriminantAnalysis", "auto_structure"]


def _noisy_class_sum(moment, n_samples, budget, rng, n_classes, joint):
    """One class's sum with the noise of the joint release (§15).

    zCDP: jointly the sums have the Frobenius sensitivity of one release, so
    each gets GaussCov's noise at the whole ρ and the total cost is ρ (not one
    budget per class). Pure: symmetric Laplace noise at the joint ℓ1
    sensitivity of all classes' upper triangles, at the whole ε.
    """
    d = moment.shape[0] - 1
    if budget.notion == "zcdp":
        sensitivity = second_moment_l2_sensitivity(n_samples)
    else:
        sensitivity = per_class_sums_l1_sensitivity(d, n_samples)
    # Hardened (§17, §19): each class's integers over the denominator of all
    # n rows, noised jointly (the rounding, if any, of every class's
    # coordinates counts: n_releases).
    return noisy_second_moment(
        moment,
        n_samples,
        sensitivity,
        budget,
        rng,
        site="class sums",
        n_releases=n_classes,
        joint=joint,
    )


# The smallest eigenvalue the within-class covariance is floored at before it
# is inverted for the discriminant directions, at unit scale: far below any
# noise level worth a release, and large enough that 1/√λ and the whitened
# between-class scatter (entries at most 1 in the unit ball) stay finite.
_WITHIN_FLOOR = 1e-100


def _discriminant_directions(between, within, floor):
    """The generalised eigenpairs of (between, within + floor·I) by whitening:
    W = V diag(λ) Vᵀ with λ floored at max(floor, _WITHIN_FLOOR), then the
    eigenpairs (μ, u) of W^{−1/2} B W^{−1/2} and the directions W^{−1/2} u
    (so that their Wᵀ-inner products are the identity, as scipy's
    ``eigh(B, W)``). Two symmetric eigendecompositions of finite matrices:
    unlike a Cholesky factorisation of W, nothing here can fail on a
    release that is numerically singular (all-zero rows at a huge budget),
    so no fit fails after the charge (§13.2). Post-processing only."""
    values, vectors = linalg.eigh((within + within.T) / 2.0, check_finite=False)
    values = np.maximum(values + floor, max(floor, _WITHIN_FLOOR))
    whitening = vectors / np.sqrt(values)
    whitened = whitening.T @ between @ whitening
    mu, u = linalg.eigh((whitened + whitened.T) / 2.0, check_finite=False)
    return mu, whitening @ u


# §21: "auto" takes the full (shrunk) scatter where one second-moment
# release's noise level times d is at most this, the shared diagonal
# variances elsewhere (measured: docs/classification.rst).
FULL_AT_NOISE = 0.15


def auto_structure(n_samples, n_features, n_classes, budget):
    """``covariance="auto"``: the structure chosen from public values only
    (docs/algorithms.rst §21, measured in docs/classification.rst).

    "shrunk" where d·L ≤ 0.15, L = ``noise_level(n, d, budget)`` the
    spectral noise of one release of the second moment at ``budget``: the
    full scatter's d² numbers are then resolved well enough to beat shared
    diagonal variances; "diagonal" elsewhere (every cell of the acceptance
    table: small n, pure ε ≤ 3). The number of classes does not move the
    rule (the blocks' and the full release's noise do not grow with it).

    Parameters
    ----------
    n_samples, n_features, n_classes : int
    budget : PrivacyCost
        The budget of the release (after a private bound's part).

    Returns
    -------
    structure : {"shrunk", "diagonal"}
    """
    del n_classes  # measured: no effect on the choice
    level = noise_level(n_samples, n_features, budget) * n_features
    return "shrunk" if level <= FULL_AT_NOISE else "diagonal"


@fill_shared_docs
class PrivateLinearDiscriminantAnalysis(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BasePrivateClassifier
):
    """Linear discriminant analysis from private per-class releases.

    ``covariance`` chooses what is released (docs/algorithms.rst §21):
    ``"diagonal"`` releases per class the count and the sum of the rows, and
    the sum of the rows' squares over all classes, three blocks at public
    shares of the budget (5% / 85% / 10%), from which the class means and the
    within-class variance of every feature (shared by the classes) follow;
    ``"full"`` releases the per-class second moments below; ``"shrunk"`` is
    ``"full"`` with the within-class covariance shrunk toward (tr/d)·I by the
    release's public noise level; ``"auto"`` (the default) takes
    ``"shrunk"`` where d times that noise level is at most 0.15 and
    ``"diagonal"`` elsewhere (measured: docs/classification.rst).

    The full release: the class label partitions the rows. For each class c
    the sum of the augmented rows' outer products S_c = Σ_{i∈c} a_i a_iᵀ,
    a_i = (x_i/√2, 1/√2) with x_i clipped to ``norm_bound``, is released with
    Gaussian noise.
    Replacing one row changes at most two of the sums (its old and new class),
    and the joint Frobenius sensitivity of (S_1, …, S_C) is still √2, that of
    one release (docs/algorithms.rst §15): noise at one release's scale on
    every S_c costs one release's ρ in total. Under pure ε-DP every S_c gets
    symmetric Laplace noise at the joint ℓ1 sensitivity ((√d + 1)²/2 + 1)/n
    of the stacked upper triangles (derived in §15), which costs ε in
    total. The class counts (twice the
    constant entry), priors, class means and the pooled within-class
    covariance are post-processing, and so is the classifier.

    Parameters
    ----------
    {classes_parameter}

    rho : float in [1e-30, 1e30], default=None
        Budget as ρ-zCDP (default ρ = 0.1).

    epsilon : float in [1e-30, 1e30], default=None
        Budget as pure ε-DP (``delta`` 0 or None: the Laplace noise above), or
        with ``delta > 0`` an (ε, δ) budget, calibrated to the largest ρ that
        meets it (Gaussian noise).

    delta : float in [0, 1), default=None
        The δ of an (ε, δ) budget.

    norm_bound : "auto", float in [1e-30, 1e30] or tuple (low, high), \
default="auto"
        Bound on the ℓ2 norm of a row of X; longer rows are clipped. "auto"
        (the default): a private upper bound on the row norms at 1/16 of the
        budget (the part ``"norm bound"``; docs/algorithms.rst §18.2),
        published as ``norm_bound_``; a pair (low, high) chooses it on the
        grid of that public range. A number is a public bound (nothing spent
        on it).

    feature_bounds : tuple (lower, upper) of arrays of shape (n_features,) \
or floats, default=None
        A public box of the features. Rows are clipped to it and centred at
        its centre (a public per-row rule); the bound is then half its
        diagonal, or a smaller numeric ``norm_bound`` (nothing is spent on a
        bound), and the "diagonal" structure's means and variances are
        clipped to what the box allows (§21). X is then densified.

    covariance : {"auto", "full", "diagonal", "shrunk"}, default="auto"
        The structure of the release, above.

    n_components : int >= 1, default=None
        Dimensions kept by ``transform`` (at most min(n_classes − 1,
        n_features)); None keeps that many.

    nonfinite : {"raise", "zero"}, default="raise"
        Rows with a NaN, infinite or non-number entry: refused (after the
        charge) or taken as zero rows, as in the covariance estimators.

    noise : {"hardened", "float"}, default="hardened"
        How additive noise is drawn, as in the covariance estimators
        (docs/algorithms.rst §17): exact discrete noise on a grid, or numpy's
        continuous samplers.

    random_state : int in [0, 2**63) or None, default=None
        The only source of the noise. None draws fresh OS entropy: use it for
        real releases.

    accountant : PrivacyAccountant, default=None
        Charged once per fit, before any value of X or y is read.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    priors_ : ndarray of shape (n_classes,)
        Private class proportions (from the released counts).

    means_ : ndarray of shape (n_classes, n_features)
        Private class means.

    covariance_ : ndarray of shape (n_features, n_features)
        Private pooled within-class covariance (PSD).

    coef_ : ndarray of shape (n_classes, n_features) or (1, n_features)
        Weights of the linear decision function (one row for two classes).

    intercept_ : ndarray of shape (n_classes,) or (1,)
        Its intercepts.

    scalings_ : ndarray of shape (n_features, n_components)
        The discriminant directions used by ``transform``.

    xbar_ : ndarray of shape (n_features,)
        The private overall mean, subtracted by ``transform``.

    n_components_ : int
        Dimensions kept by ``transform``.

    privacy_spent_ : PrivacyCost
        The budget charged.

    privacy_parts_ : tuple of BudgetPart
        The per-class sums, released jointly ("full", "shrunk"), or the
        blocks ``"class counts"``, ``"class totals"`` and ``"pooled
        squares"`` ("diagonal"), after the part ``"norm bound"`` with
        ``norm_bound="auto"``.

    covariance_structure_ : {"full", "diagonal", "shrunk"}
        The structure released: ``covariance``, or the choice of "auto".

    norm_bound_ : float
        The bound the rows were clipped at: ``norm_bound``, or with "auto" its
        private choice.

    n_features_in_ : int
        Number of features.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when known.

    See Also
    --------
    skprivcov.naive_bayes.PrivateGaussianNB : The per-class diagonal model.
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : The non-private model.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack(
    ...     [rng.normal(-0.3, 0.1, (2000, 2)), rng.normal(0.3, 0.1, (2000, 2))]
    ... )
    >>> y = np.repeat([0, 1], 2000)
    >>> clf = PrivateLinearDiscriminantAnalysis(rho=1.0, random_state=0).fit(X, y)
    >>> clf.predict([[-0.3, -0.2], [0.25, 0.35]])
    array([0, 1])
    >>> print(clf.privacy_spent_)  # the labels released privately (§25)
    1-zCDP up to δ₀ = 1e-09
    >>> clf.covariance_structure_
    'shrunk'
    >>> small = PrivateLinearDiscriminantAnalysis(
    ...     classes=[0, 1], epsilon=0.3, random_state=0
    ... )
    >>> small.fit(X[::20], y[::20]).covariance_structure_
    'diagonal'
    """

    _parameter_constraints: dict = {
        **BasePrivateClassifier._parameter_constraints,
        "covariance": [StrOptions({"auto", "full", "diagonal", "shrunk"})],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        classes=None,
        rho=None,
        epsilon=None,
        delta=None,
        norm_bound="auto",
        feature_bounds=None,
        covariance="auto",
        n_components=None,
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
        self.covariance = covariance
        self.n_components = n_components
        self.nonfinite = nonfinite
        self.noise = noise
        self.random_state = random_state
        self.accountant = accountant

    def _class_moments(self, X, y, classes, bound):
        """Σ_{i∈c} a aᵀ / n of each class's augmented unit-ball rows: the
        class's sum, in the units of one release (zeros for a class without
        rows), an exact statistic: the class's integers over the denominator
        of all n rows (§19), so hardened noise needs no float-error term.
        One pass over all rows for every class
        (:func:`skprivcov._data._class_statistics.class_grams`), whose work does not
        depend on the class sizes (§13: they are private); an empty class's
        exact zeros are noised as every other class is (review of issue 34)."""
        totals = class_grams(X, y, classes, bound, self.nonfinite)
        # The class's denominator was 2·n_c·2^{2k}; the release's is 2·n·2^{2k}.
        denominator = X.shape[0] << (2 * FRACTION_BITS + 1)
        return [ExactStatistic.of(total, denominator) for total in totals]

    def _class_moment(self, X, members, bound):
        """The statistic of :meth:`_class_moments` of the one class whose
        rows are ``members`` (a boolean mask), from the same pass over all
        rows (the members and the others as two classes)."""
        labels = np.asarray(members, dtype=bool).astype(np.intp)
        return self._class_moments(X, labels, np.array([0, 1]), bound)[1]

    def _check_classes(self, n_classes, n_features):
        if self.n_components is not None:
            self._check_n_components(n_classes, n_features)

    def _release_classes(self, X, y, bound, budget, rng, *, box, centre):
        """Release the per-class sums (or the diagonal blocks) and fit the
        discriminant from them (the hook of the classifiers' fit template)."""
        classes = self.classes_
        n_samples = X.shape[0]
        half_widths = None if box is None else (box[1] - box[0]) / 2.0 / bound
        structure = self._structure(n_samples, X.shape[1], classes.size, budget)
        if structure == "diagonal":
            # §21: per class [count, Σx] and the pooled Σx⊙x, block by block.
            blocks, release_parts = release_blocks(
                X, y, classes, bound, budget, rng, pooled=True, nonfinite=self.nonfinite
            )
            estimates = class_estimates(blocks, n_samples, budget.notion, half_widths)
            within = np.diag(estimates.variances[0])
            self._fit_classifier(
                estimates.shares,
                estimates.means,
                np.diag(1.0 / estimates.variances[0]),
                within,
                0.0,
                bound,
                mean_noise=estimates.mean_noise,
            )
            self._recentre(centre)
        else:
            # Every class's statistics first, then their noise (§15).
            moments = self._class_moments(X, y, classes, bound)
            joint = object()  # the classes spend one budget together (§15)
            releases = [
                _noisy_class_sum(moment, n_samples, budget, rng, classes.size, joint)
                for moment in moments
            ]
            self._fit_from_releases(
                np.array(releases), n_samples, budget, bound, structure == "shrunk"
            )
            self._recentre(centre)
            release_parts = (BudgetPart("per-class sums", budget),)
        self.covariance_structure_ = structure
        return release_parts

    def _recentre(self, centre):
        """Back from rows centred in the public box to the units of X."""
        if centre is None:
            return
        self.means_ = self.means_ + centre
        self.xbar_ = self.xbar_ + centre
        self.intercept_ = self.intercept_ - self.coef_ @ centre

    def _check_n_components(self, n_classes, n_features):
        limit = min(n_classes - 1, n_features)
        if self.n_components > limit:
            raise ValueError(
                f"n_components={self.n_components} is more than min(n_classes − 1, "
                f"n_features) = {limit}."
            )

    def _structure(self, n_samples, n_features, n_classes, budget):
        """The covariance structure: the parameter, or for "auto" the public
        rule of docs/algorithms.rst §21 (:func:`auto_structure`)."""
        if self.covariance != "auto":
            return self.covariance
        return auto_structure(n_samples, n_features, n_classes, budget)

    def _fit_from_releases(self, releases, n_samples, budget, bound, shrunk):
        """Priors, means, pooled covariance and the classifier (post-processing)."""
        d = releases.shape[1] - 1
        # Shares n_c/n (constant entry / c0²) and sums Σ x/n (cross / (c_x c_0)).
        shares = np.maximum(releases[:, d, d] / float(CONSTANT_SQUARE), 1.0 / n_samples)
        sums = releases[:, :d, d] / (FEATURE_WEIGHT * CONSTANT_WEIGHT)
        means = sums / shares[:, None]
        # Rows lie in the unit ball, so their means do too (projection, free).
        means /= np.maximum(1.0, np.linalg.norm(means, axis=1))[:, None]
        scatter = releases[:, :d, :d].sum(axis=0) / FEATURE_WEIGHT**2
        within = scatter - np.einsum("c,ci,cj->ij", shares, means, means)
        within = project_psd_trace_ball((within + within.T) / 2, 1.0)
        floor = eigenvalue_floor(n_samples, d, budget)
        if shrunk:
            # §21: toward (tr/d)·I, with the weight L/(L + tr/d) of the public
            # noise level L of the release (post-processing).
            level = noise_level(n_samples, d, budget)
            target = max(np.trace(within) / d, floor)
            weight = level / (level + target)
            within = (1.0 - weight) * within + weight * target * np.eye(d)
        precision = floored_inverse(within, floor)
        self._fit_classifier(shares, means, precision, within, floor, bound)

    def _fit_classifier(
        self, shares, means, precision, within, floor, bound, mean_noise=None
    ):
        """The linear classifier and the discriminant directions of class
        shares, means and a within-class covariance (and its floored
        inverse), at unit scale (post-processing). ``mean_noise``: the public
        variance of each coordinate of each class mean's noise, subtracted
        from the quadratic term μᵀPμ (its expectation is μᵀPμ + v·tr P, §21)."""
        d = means.shape[1]
        priors = shares / shares.sum()

        coefficients = means @ precision  # per class, at unit scale
        quadratic = np.einsum("ci,ci->c", coefficients, means)
        if mean_noise is not None:
            quadratic = quadratic - mean_noise @ np.diagonal(precision)
        intercepts = -0.5 * quadratic + np.log(priors)
        # Back to the units of X: x/B at unit scale.
        coefficients = coefficients / bound
        if len(self.classes_) == 2:
            self.coef_ = (coefficients[1] - coefficients[0])[None, :]
            self.intercept_ = np.array([intercepts[1] - intercepts[0]])
        else:
            self.coef_, self.intercept_ = coefficients, intercepts
        self.priors_ = priors
        self.means_ = means * bound
        self.covariance_ = within * bound**2

        # Discriminant directions: between-class scatter against the within.
        overall = priors @ means
        centred = means - overall
        between = (centred.T * priors) @ centred
        values, vectors = _discriminant_directions(between, within, floor)
        order = np.argsort(values)[::-1]
        limit = min(len(self.classes_) - 1, d)
        kept = limit if self.n_components is None else self.n_components
        self.scalings_ = vectors[:, order[:kept]] / bound
        self.xbar_ = overall * bound
        self.n_components_ = kept
        self._n_features_out = kept

    def decision_function(self, X):
        """Compute the scores of the linear discriminants.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The scores (of the second class, with two classes).
        """
        check_is_fitted(self, "coef_")
        X = check_input(self, X, reset=False, accept_sparse=("csr", "csc"))
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

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
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """Class probabilities under the fitted Gaussian model.

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
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return log_softmax(scores, axis=1)

    def transform(self, X):
        """Project X on the discriminant directions.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            The projections of X.
        """
        check_is_fitted(self, "scalings_")
        X = check_input(self, X, reset=False, accept_sparse=("csr", "csc"))
        return np.asarray(X @ self.scalings_) - self.xbar_ @ self.scalings_
