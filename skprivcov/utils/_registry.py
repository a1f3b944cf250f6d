"""The one registry of skprivcov's estimators, their variants and their roles.

Everything that enumerates estimators reads this table: the command line's
``--mechanism`` choices, the demo, the privacy audit, the common tests (the
scikit-learn checks and the privacy checks run on every variant), the
threat-model allow-list of published attributes, the release-regression
digests and the API reference. Adding an estimator means
adding its entry here (docs/developers.rst, "Adding a mechanism").

A *variant* is a set of parameters that takes a different code path of the
estimator (a notion, an option of the mechanism, centring); the first variant
of every entry, ``"default"``, is the estimator as constructed without
arguments.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from sklearn.base import clone

from skprivcov._models import label_threshold
from skprivcov.covariance import (
    AdaptiveCovariance,
    AutoCovariance,
    CoinPressCovariance,
    GaussianCovariance,
    IterativeEigenCovariance,
    LaplaceCovariance,
    NuclearLaplaceCovariance,
    PrivateEllipticEnvelope,
    ProjectionCovariance,
    SeparateCovariance,
    ZeroCovariance,
)
from skprivcov.decomposition import PrivatePCA
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.model_selection import FoldReleases
from skprivcov.naive_bayes import PrivateGaussianNB
from skprivcov.preprocessing import (
    FeatureBoundsScaler,
    PrivateFeatureScaler,
    RowNormClipper,
)
from skprivcov.privacy import UnsupportedPrivacyNotionError

__all__ = ["RELEASE_ATTRIBUTES", "AuditSpec", "RegistryEntry", "instances", "registry"]

# What the fit of a covariance estimator may publish, with the reason it may
# (docs/algorithms.rst §13.1). An entry that publishes more names each extra
# attribute and its reason in ``published``; tests/test_threat_model.py fails
# on any fitted attribute not listed there, so a new one is reviewed here.
RELEASE_ATTRIBUTES = {
    "covariance_": "the release",
    "location_": "the release (its private mean) or zero",
    "privacy_spent_": "the budget charged: public parameters",
    "privacy_parts_": "its split by step: public parameters (mechanisms.SPLITS)",
    "norm_bound_": (
        "the public norm_bound, or with 'auto' the output of the private step "
        "'norm bound' (docs/algorithms.rst §18.2)"
    ),
    "n_features_in_": "public: the shape of X",
    "feature_names_in_": "public: the column names of X",
    "eigenvalue_floor_": (
        "B²·min(noise level, 1/d): public n, d, budget, and the release's scale B"
        " (the bound, or a published private threshold τ̃)"
    ),
    "_precision": "a cache of the floored inverse of covariance_: post-processing",
}


@dataclass(frozen=True)
class AuditSpec:
    """How the empirical privacy audit runs one variant (see ``_audit``).

    Parameters
    ----------
    variant : str
        The variant audited (its parameters, with the audit's budget).
    budget : dict
        The budget of the audited fits (``rho`` or ``epsilon``).
    statistic : str
        The name of the scalar statistic of a release.
    planted_bug : tuple
        (noise scale function, factor): the bug multiplies that scale.
    bug_label : str
        What the planted bug is, for reports.
    """

    variant: str
    budget: dict
    statistic: str
    planted_bug: tuple
    bug_label: str


@dataclass(frozen=True)
class RegistryEntry:
    """One estimator and what the rest of the library needs to know of it.

    The registry (:func:`registry`) holds one entry per public estimator; the
    common tests, the threat-model tests, the noise calibration, the release
    digests, the command line, the demo and the audits read their lists of
    estimators and variants from it (docs/developers.rst, "The registry").

    Parameters
    ----------
    estimator : type
        The class.
    variants : dict
        Name → parameters; ``"default"`` (no parameters) comes first.
    cli_name : str or None
        Its name for ``skprivcov release --mechanism``, if it has one.
    demo_budgets : tuple of str
        How the demo runs it: ``"zcdp"`` (at ρ), ``"pure"`` (at ε = √(2ρ)),
        ``"free"`` (no budget); empty to leave it out.
    audits : dict
        Name → AuditSpec: the empirical audits of its claim.
    expected_failed_checks : dict
        A scikit-learn check → why the estimator is expected to fail it.
    published : dict
        Fitted attribute → why a fit may publish it (§13.1); by default
        ``RELEASE_ATTRIBUTES``, what every covariance estimator publishes.
    instance_checks : callable or None
        For failures that depend on an instance's parameters: estimator →
        dict of further expected failures (:meth:`failed_checks`).

    See Also
    --------
    registry : Every entry, by estimator name.
    instances : Fresh instances of every registered variant.

    Examples
    --------
    >>> from skprivcov.utils import registry
    >>> entry = registry()["GaussianCovariance"]
    >>> entry.name, next(iter(entry.variants))
    ('GaussianCovariance', 'default')
    >>> entry.make(rho=0.5).rho
    0.5
    """

    estimator: type
    variants: dict
    cli_name: str | None = None
    demo_budgets: tuple = ()
    audits: dict = field(default_factory=dict)
    expected_failed_checks: dict = field(default_factory=dict)
    published: dict = field(default_factory=lambda: dict(RELEASE_ATTRIBUTES))
    instance_checks: Callable | None = None

    @property
    def name(self):
        return self.estimator.__name__

    def failed_checks(self, estimator):
        """The scikit-learn checks an instance is expected to fail, and why.

        Parameters
        ----------
        estimator : estimator instance
            The instance under test, of this entry's class.

        Returns
        -------
        checks : dict
            A check's name → why it is expected to fail.
        """
        extra = {} if self.instance_checks is None else self.instance_checks(estimator)
        return {**self.expected_failed_checks, **extra}

    def make(self, variant="default", **params):
        """A new instance of ``variant``, with ``params`` on top.

        Cloned, so that an estimator given as a parameter (a ridge model's
        covariance estimator) is never shared between two instances.

        Parameters
        ----------
        variant : str, default="default"
            The name of a variant (a key of ``variants``).
        **params : dict
            Parameters set on top of the variant's.

        Returns
        -------
        estimator : estimator instance
            The new, unfitted estimator.
        """
        return clone(self.estimator(**{**self.variants[variant], **params}))


# The default releases the centred covariance (assume_centered=False, as
# scikit-learn's EmpiricalCovariance); the papers' second moment is a variant.
_SECOND_MOMENT = {"second moment": {"assume_centered": True}}
# The audits compare releases of two neighbouring datasets; a zCDP claim at
# ρ = 0.5 is compared at δ = 0.01, a pure claim at ε = 1 (see ``_audit``).
_ZCDP, _PURE = {"rho": 0.5}, {"epsilon": 1.0}
_HALVED_SIGMA = {
    "planted_bug": ("gaussian_scale", 0.5),
    "bug_label": "Gaussian σ halved",
}
_HALVED_B = {"planted_bug": ("laplace_scale", 0.5), "bug_label": "Laplace b halved"}
_NOT_A_NUMBER_IS_NAN = (
    "An entry that is not a number (here a dict) is treated like NaN, by the "
    "estimator's nonfinite rule after the charge (docs/algorithms.rst §13.2): one "
    "ValueError for every kind of bad entry, or a zero row, never a TypeError "
    "of its own that would tell one kind from another."
)
_REFUSES_NO_VALUE = (
    "Training rows pass through it before a private estimator's charge, so it "
    "refuses no value (docs/algorithms.rst §13.2): a row with an entry that is not a "
    "number comes out as NaN, for the estimator's nonfinite rule."
)
_READS_NO_VALUE = (
    "ZeroCovariance reads no value of X (docs/algorithms.rst §13.2), so it cannot "
    "refuse an entry that is not a number."
)
_PRIVATE_CHECKS = {"check_dtype_object": _NOT_A_NUMBER_IS_NAN}
# scikit-learn's checks that fit a classifier on a few rows per class, with
# numpy labels (no public label set): with classes=None the label set is
# released privately (docs/algorithms.rst §25), and a class of a few rows
# cannot reach its threshold at the default budget, nor can a pure budget
# pay for it. The variant "private labels" (a budget whose threshold is
# below 2 rows) passes them all.
_SMALL_CLASS_CHECKS = (
    "check_array_api_input",
    "check_classifier_data_not_an_array",
    "check_classifiers_classes",
    "check_decision_proba_consistency",
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag",
    "check_estimators_dtypes",
    "check_estimators_fit_returns_self",
    "check_estimators_nan_inf",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit2d_1feature",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
    "check_supervised_y_2d",
    "check_transformer_data_not_an_array",
    "check_transformer_general",
    "check_transformer_preserve_dtypes",
)
# With a pure budget, the checks whose classes are large too (every fit is
# refused).
_ANY_FIT_CHECKS = ("check_classifiers_regression_target", "check_classifiers_train")
# The smallest class a private label set must release for those checks, and
# a budget that does (its threshold is 1.19 rows).
_SMALL_CLASS_ROWS = 2
_PRIVATE_LABELS = {"rho": 1e4}


def _label_set_checks(estimator):
    """The checks of ``_SMALL_CLASS_CHECKS`` that a classifier instance is
    expected to fail: every one, unless its label set is public (``classes``)
    or a private one releases a class of ``_SMALL_CLASS_ROWS`` rows."""
    if estimator.classes is not None:
        return {}
    try:
        cost = estimator.fit_cost()
    except UnsupportedPrivacyNotionError:
        reason = (
            "A pure ε budget cannot pay for a private label set (it needs a δ, "
            "docs/algorithms.rst §25) and the check's y gives no public one "
            "(classes, or a categorical y): every fit is refused before the charge."
        )
        checks = (*_SMALL_CLASS_CHECKS, *_ANY_FIT_CHECKS)
        return dict.fromkeys(checks, reason)
    else:
        threshold = label_threshold(cost, estimator.noise == "hardened")
        if threshold <= _SMALL_CLASS_ROWS:
            return {}
        reason = (
            "The check's classes hold a few rows each, below the threshold "
            f"({threshold:.3g} rows) at which this budget releases a label "
            "privately (docs/algorithms.rst §25; with classes=None the labels "
            "present in y are data): the fit is refused before the charge, or "
            "drops the small classes. With classes given, a categorical y, or "
            "the variant 'private labels', the check passes."
        )
    return dict.fromkeys(_SMALL_CLASS_CHECKS, reason)


_TOO_FEW_FOR_THE_BOUND = (
    "The check's 300 rows are too few for the default private bound at the "
    "default ρ = 0.1: its 1/16 cannot buy an accurate quantile, so the bound "
    "falls back to the smallest candidate and the release is about zero "
    "(docs/algorithms.rst §18.2); every row is then an inlier. With a public "
    "bound (the 'gaussian' variant) the check passes."
)
_MODEL_PUBLIC = {
    "privacy_spent_": "public",
    "privacy_parts_": "public: the release's split (or none)",
    "n_features_in_": "public",
    "feature_names_in_": "public",
}
_TRANSFORMER_PUBLIC = {"n_features_in_": "public", "feature_names_in_": "public"}
# The ridge models' and FoldReleases' fitted bounds (§18.5).
_X_BOUND_PUBLIC = (
    "X_norm_bound, or with 'auto' the output of the private step 'X box' (a "
    "box per feature) or 'norm bound' (without y); None when a ridge model "
    "predicts its private mean (§18.5)"
)
_Y_BOUND_PUBLIC = "y_bound, or with 'auto' the output of the private step 'y bound'"

_ENTRIES = (
    RegistryEntry(
        GaussianCovariance,
        # (ε, δ) is calibrated through ρ-zCDP (docs/privacy.rst): a budget path
        # of its own, shared by every zCDP mechanism.
        {
            "default": {},
            "(epsilon, delta)": {"epsilon": 1.0, "delta": 1e-6},
            # The paper's GaussCov as it is, not projected (indefinite).
            "raw": {"projection": None},
            # numpy's continuous noise instead of the hardened default (§17).
            "float noise": {"noise": "float"},
            # The papers' setting: a public bound (the default is a private
            # one inside the budget, §18.2) and the second moment.
            "papers' setting": {"norm_bound": 1.0, "assume_centered": True},
            **_SECOND_MOMENT,
        },
        cli_name="gaussian",
        demo_budgets=("zcdp",),
        audits={
            # The mechanism in the papers' setting: the statistic is built for
            # the second moment of rows at norm 1 (the default's private bound
            # moves the scale).
            "GaussianCovariance": AuditSpec(
                "papers' setting", _ZCDP, "diagonal_gap", **_HALVED_SIGMA
            )
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        LaplaceCovariance,
        {
            "default": {},
            "float noise": {"noise": "float"},
            "papers' setting": {"norm_bound": 1.0, "assume_centered": True},
            **_SECOND_MOMENT,
        },
        cli_name="laplace",
        demo_budgets=("pure",),
        audits={
            "LaplaceCovariance": AuditSpec(
                "papers' setting", _PURE, "clipped_gap", **_HALVED_B
            )
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        SeparateCovariance,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "eigenvalue share": {"eigenvalue_share": 0.25},
            **_SECOND_MOMENT,
        },
        cli_name="separate",
        demo_budgets=("zcdp", "pure"),
        audits={
            # The eigenvalues (at half the budget) carry this pair's change:
            # halving their noise is not enough to show, quartering it is.
            "SeparateCovariance (zCDP)": AuditSpec(
                "default",
                _ZCDP,
                "eigenvalue_gap",
                ("gaussian_scale", 0.25),
                "Gaussian σ ÷ 4",
            ),
            "SeparateCovariance (pure)": AuditSpec(
                "pure",
                _PURE,
                "eigenvalue_gap",
                ("laplace_scale", 0.25),
                "Laplace b ÷ 4",
            ),
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        AdaptiveCovariance,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "public radius": {"radius": "norm_bound"},
            "private radius": {"radius": "private"},
            "pure, public radius": {"epsilon": 1.0, "radius": "norm_bound"},
            **_SECOND_MOMENT,
        },
        cli_name="adaptive",
        demo_budgets=("zcdp",),
        published={
            **RELEASE_ATTRIBUTES,
            "threshold_": "output of the private threshold search (§3.5 step 6)",
            "radius_": "output of PrivRadius (§3.5 step 1), or the public bound",
            "mechanism_": "the choice of step 7, made from private outputs only",
        },
        audits={
            # Only its final release (ρ/2) is observed, as for SeparateCov.
            "AdaptiveCovariance": AuditSpec(
                "default",
                _ZCDP,
                "eigenvalue_gap",
                ("gaussian_scale", 0.25),
                "final Gaussian σ ÷ 4",
            )
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        AutoCovariance,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "no zero": {"allow_zero": False},
            "public bound": {"norm_bound": 1.0},
            **_SECOND_MOMENT,
        },
        cli_name="auto",
        demo_budgets=("zcdp", "pure"),
        published={
            **RELEASE_ATTRIBUTES,
            "mechanism_": "the choice: private trace estimate and public values",
            # covariance_'s scale and eigenvalue_floor_ follow the chosen
            # mechanism's published threshold τ̃ (AdaptiveCov) or the bound.
            "trace_estimate_": "output of the private trace step (§3.9)",
            "shrinkage_": "output of the private shrinkage step (§3.9)",
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        ProjectionCovariance,
        {"default": {}, "private trace": {"trace_fraction": 0.2}, **_SECOND_MOMENT},
        cli_name="projection",
        demo_budgets=("zcdp",),
        audits={
            "ProjectionCovariance": AuditSpec(
                "default", _ZCDP, "diagonal_gap", **_HALVED_SIGMA
            )
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        IterativeEigenCovariance,
        {
            "default": {},
            "zcdp": {"rho": 0.5},
            "rank 2": {"n_components": 2},
            "KT, adaptive split": {"update": "deflate", "budget_split": "adaptive"},
            "clipped eigenvalues": {"eigenvalue_projection": "clip"},
            **_SECOND_MOMENT,
        },
        cli_name="iterative",
        demo_budgets=("pure",),
        audits={
            # Its claim has slack on every pair: only a bug that more than
            # doubles the loss can show; this one quarters the eigenvalues' noise.
            "IterativeEigenCovariance": AuditSpec(
                "default",
                _PURE,
                "clipped_gap",
                ("laplace_scale", 0.25),
                "eigenvalue Laplace b ÷ 4",
            )
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        NuclearLaplaceCovariance,
        {
            "default": {},
            "general": {"variant": "general", "n_sweeps": 20},
            "private radius, nuclear ball": {
                "trace_bound": "private",
                "projection": "nuclear",
                "n_sweeps": 20,
            },
            "nuclear ball": {"projection": "nuclear", "n_sweeps": 20},
            "unprojected": {"projection": None},
            **_SECOND_MOMENT,
        },
        cli_name="nuclear",
        demo_budgets=("pure",),
        audits={
            # Audited without its projection (post-processing can only hide
            # loss): the raw release's nuclear log-ratio is then exact.
            "NuclearLaplaceCovariance": AuditSpec(
                "unprojected",
                _PURE,
                "nuclear_log_ratio",
                ("laplace_scale", 0.5),
                "nuclear r halved",
            )
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
    RegistryEntry(
        ZeroCovariance,
        {"default": {}, **_SECOND_MOMENT},
        cli_name="zero",
        demo_budgets=("free",),
        expected_failed_checks={"check_dtype_object": _READS_NO_VALUE},
    ),
    RegistryEntry(
        PrivateRidge,
        {
            "default": {},
            "separate, no intercept": {
                "estimator": SeparateCovariance(),
                "fit_intercept": False,
            },
            # Private bounds inside the budget (§18.5): the defaults, given.
            "auto bounds": {"X_norm_bound": "auto", "y_bound": "auto"},
            "public bounds": {"X_norm_bound": 1.0, "y_bound": 1.0},
            # A pure budget too small for a box per feature: the fallback of
            # §18.5 (a private mean of the target, predicted).
            "pure, predicts a private mean": {
                "estimator": LaplaceCovariance(epsilon=1.0)
            },
            # Boosting rounds on clipped residuals (§16, Tang et al. 2023):
            # a feature release, then ten rounds of a noisy mean.
            "boosted": {"boosting_rounds": "auto"},
            # AdaSSP's private smallest eigenvalue lowers the penalty (§16).
            "adassp": {"alpha": "adassp"},
        },
        expected_failed_checks=_PRIVATE_CHECKS,
        published={
            "coef_": "post-processing of the release",
            "intercept_": "post-processing of the release",
            "alpha_": (
                "alpha, or the penalty of the release's noise level, lowered "
                "by the private smallest eigenvalue with alpha='adassp' (§16)"
            ),
            "release_": "the release and its public description",
            "estimator_": "the fitted covariance estimator (checked recursively)",
            "X_norm_bound_": _X_BOUND_PUBLIC,
            "y_bound_": _Y_BOUND_PUBLIC,
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        PrivateEllipticEnvelope,
        {
            "default": {},
            # A public bound: the checks' 300 rows are too few for the
            # private bound's 1/16 at ρ = 1 (it falls back to the smallest
            # candidate, and every row is an inlier).
            "gaussian": {"estimator": GaussianCovariance(rho=1.0, norm_bound=1.0)},
        },
        expected_failed_checks={
            **_PRIVATE_CHECKS,
            "check_outliers_train": _TOO_FEW_FOR_THE_BOUND,
            "check_outliers_fit_predict": _TOO_FEW_FOR_THE_BOUND,
        },
        published={
            "location_": "the release's private mean",
            "covariance_": "the release",
            "precision_": "post-processing of the release",
            "offset_": "public: the χ² quantile at the significance",
            "release_": "the release and its public description",
            "estimator_": "the fitted covariance estimator (checked recursively)",
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        PrivateLinearDiscriminantAnalysis,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "public bound": {"norm_bound": 1.0},
            "(epsilon, delta), 1 component": {
                "epsilon": 2.0,
                "delta": 1e-6,
                "n_components": 1,
            },
            # §21: the structures, each a code path of its own.
            "full": {"covariance": "full"},
            "diagonal": {"covariance": "diagonal"},
            "shrunk, pure": {"covariance": "shrunk", "epsilon": 1.0},
            "diagonal, pure, public box": {
                "covariance": "diagonal",
                "epsilon": 1.0,
                "feature_bounds": (-3.0, 3.0),
            },
            # §25: a budget whose private label set releases a class of 2
            # rows, so that scikit-learn's small-class checks run the
            # private route.
            "private labels": _PRIVATE_LABELS,
        },
        expected_failed_checks=_PRIVATE_CHECKS,
        instance_checks=_label_set_checks,
        published={
            "classes_": (
                "public: the classes parameter or a categorical y's categories; "
                "else the output of the private step 'label set' (§25)"
            ),
            "norm_bound_": (
                "the public norm_bound, or with 'auto' the output of the private "
                "step 'norm bound' (§18.2)"
            ),
            "priors_": "post-processing of the per-class releases",
            "means_": "post-processing of the per-class releases",
            "covariance_": "post-processing of the per-class releases",
            "coef_": "post-processing of the per-class releases",
            "intercept_": "post-processing of the per-class releases",
            "scalings_": "post-processing of the per-class releases",
            "xbar_": "post-processing of the per-class releases",
            "covariance_structure_": (
                "the covariance parameter, or with 'auto' its public rule of n, d, "
                "the classes and the budget (§21)"
            ),
            "n_components_": "public: parameters and the number of classes",
            "_n_features_out": "public: parameters and the number of classes",
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        PrivateGaussianNB,
        {
            "default": {},
            "pure": {"epsilon": 1.0},
            "public bound": {"norm_bound": 1.0},
            "pure, public box": {"epsilon": 1.0, "feature_bounds": (-3.0, 3.0)},
            "private labels": _PRIVATE_LABELS,
        },
        expected_failed_checks=_PRIVATE_CHECKS,
        instance_checks=_label_set_checks,
        published={
            "classes_": (
                "public: the classes parameter or a categorical y's categories; "
                "else the output of the private step 'label set' (§25)"
            ),
            "norm_bound_": (
                "the public norm_bound (or the box's radius), or with 'auto' the "
                "output of the private step 'norm bound' (§18.2)"
            ),
            "class_count_": "post-processing of the per-class blocks (§21)",
            "class_prior_": "post-processing of the per-class blocks (§21)",
            "theta_": "post-processing of the per-class blocks (§21)",
            "var_": "post-processing of the per-class blocks (§21)",
            "_mean_noise": (
                "post-processing: the blocks' public noise scales over the "
                "private shares (§21)"
            ),
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        PrivatePCA,
        {
            "default": {},
            "whiten, fraction": {"whiten": True, "n_components": 0.8},
            # ADK19's rank-k EMCov: the budget spent on the top directions only.
            "rank-k EMCov": {
                "n_components": 1,
                "estimator": IterativeEigenCovariance(epsilon=1.0),
            },
        },
        expected_failed_checks=_PRIVATE_CHECKS,
        published={
            "components_": "post-processing of the release",
            "explained_variance_": "post-processing of the release",
            "explained_variance_ratio_": "post-processing of the release",
            "mean_": "the release's private mean",
            "n_components_": "post-processing of the release",
            "_n_features_out": "post-processing of the release",
            "_whitening": "post-processing of the release and its noise level",
            "release_": "the release and its public description",
            "estimator_": "the fitted covariance estimator (checked recursively)",
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        PrivateRidgeCV,
        {
            "default": {},
            "two folds": {"cv": 2},
            "separate": {"estimator": SeparateCovariance()},
            "public bounds": {"X_norm_bound": 1.0, "y_bound": 1.0},
        },
        expected_failed_checks=_PRIVATE_CHECKS,
        published={
            "alpha_": "post-processing of the fold releases",
            "best_score_": "post-processing of the fold releases",
            "cv_results_": "post-processing of the fold releases",
            "coef_": "post-processing of the releases",
            "intercept_": "post-processing of the releases",
            "release_": "the pooled release (post-processing)",
            "fold_releases_": "the releases of disjoint folds (parallel composition)",
            "X_norm_bound_": _X_BOUND_PUBLIC,
            "y_bound_": _Y_BOUND_PUBLIC,
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        FoldReleases,
        {
            "default": {},
            "with a target": {"y_bound": 2.0},
            "public bounds": {"X_norm_bound": 1.0, "y_bound": 1.0},
        },
        expected_failed_checks=_PRIVATE_CHECKS,
        published={
            "fold_releases_": "the releases of disjoint folds (parallel composition)",
            "tokens_": "the fold releases, as an array",
            "release_": "the pooled release (post-processing)",
            "X_norm_bound_": _X_BOUND_PUBLIC,
            "y_bound_": _Y_BOUND_PUBLIC,
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        RowNormClipper,
        {"default": {}, "scaled": {"scale": True}},
        expected_failed_checks={"check_dtype_object": _REFUSES_NO_VALUE},
        published=_TRANSFORMER_PUBLIC,
    ),
    RegistryEntry(
        FeatureBoundsScaler,
        {"default": {}},
        expected_failed_checks={"check_dtype_object": _REFUSES_NO_VALUE},
        published=_TRANSFORMER_PUBLIC,
    ),
    RegistryEntry(
        PrivateFeatureScaler,
        {"default": {}, "pure": {"epsilon": 1.0}},
        expected_failed_checks=_PRIVATE_CHECKS,
        published={
            "lower_": "the output of the private step 'feature quantiles' (§18.3)",
            "upper_": "the output of the private step 'feature quantiles' (§18.3)",
            **_MODEL_PUBLIC,
        },
    ),
    RegistryEntry(
        CoinPressCovariance,
        {
            "default": {},
            # numpy's continuous noise instead of the hardened default (§17).
            "float noise": {"noise": "float"},
            # The mean steps and the pair differences (§18.4).
            **_SECOND_MOMENT,
        },
        expected_failed_checks=_PRIVATE_CHECKS,
    ),
)


def registry():
    """Every registered estimator, by class name.

    Returns
    -------
    entries : dict of str to RegistryEntry
        In the order of the table.
    """
    return {entry.name: entry for entry in _ENTRIES}


def instances(*, variants=True, kind=None):
    """New instances of the registered estimators, with their ids.

    Parameters
    ----------
    variants : bool, default=True
        Every variant, or only the defaults.
    kind : type, default=None
        Only estimators that are subclasses of ``kind``.

    Returns
    -------
    instances : list of (str, estimator)
        ``("Name", est)`` for defaults, ``("Name[variant]", est)`` otherwise.
    """
    found = []
    for entry in _ENTRIES:
        if kind is not None and not issubclass(entry.estimator, kind):
            continue
        for variant in entry.variants if variants else ("default",):
            name = entry.name if variant == "default" else f"{entry.name}[{variant}]"
            found.append((name, clone(entry.make(variant))))
    return found
