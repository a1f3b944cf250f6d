"""The fitted attributes each registered estimator may publish, and why.

tests/test_threat_model.py fails on any fitted attribute of any variant that
is not listed here with its reason (docs/algorithms.rst §13.1): a new
attribute is reviewed here before it ships.
"""

__all__ = ["RELEASE_ATTRIBUTES", "published"]


# What the fit of a covariance estimator may publish, with the reason it may
# (docs/algorithms.rst §13.1). An estimator that publishes more names each
# extra attribute and its reason in ``_BY_ESTIMATOR``.
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
    "signal_to_noise_": (
        "the release's largest eigenvalue over B² times the noise level of its "
        "budget: post-processing of covariance_ and public values (n, d, the "
        "budget, norm_bound_) (docs/algorithms.rst §23)"
    ),
    "feature_location_": (
        "the public centre of feature_scaling, or the output of the private "
        "steps 'feature cells', 'feature means …' (docs/algorithms.rst §23); None "
        "when the rows are left as given or taken as centred"
    ),
    "feature_scale_": (
        "the public scale of feature_scaling, or the output of the private "
        "steps 'feature cells', 'feature means …', 'feature spreads …' (§23); "
        "None when the rows are left as given"
    ),
    "_precision": "a cache of the floored inverse of covariance_: post-processing",
}


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


_BY_ESTIMATOR = {
    "AdaptiveCovariance": {
        **RELEASE_ATTRIBUTES,
        "threshold_": "output of the private threshold search (§3.5 step 6)",
        "radius_": "output of PrivRadius (§3.5 step 1), or the public bound",
        "mechanism_": "the choice of step 7, made from private outputs only",
    },
    "AutoCovariance": {
        **RELEASE_ATTRIBUTES,
        "mechanism_": "the choice: private trace estimate and public values",
        # covariance_'s scale and eigenvalue_floor_ follow the chosen
        # mechanism's published threshold τ̃ (AdaptiveCov) or the bound.
        "trace_estimate_": "output of the private trace step (§3.9)",
        "shrinkage_": "output of the private shrinkage step (§3.9)",
    },
    "PrivateRidge": {
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
    "PrivateEllipticEnvelope": {
        "location_": "the release's private mean",
        "covariance_": "the release",
        "precision_": "post-processing of the release",
        "offset_": "public: the χ² quantile at the significance",
        "release_": "the release and its public description",
        "estimator_": "the fitted covariance estimator (checked recursively)",
        **_MODEL_PUBLIC,
    },
    "PrivateLinearDiscriminantAnalysis": {
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
    "PrivateGaussianNB": {
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
    "PrivatePCA": {
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
    "PrivateRidgeCV": {
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
    "FoldReleases": {
        "fold_releases_": "the releases of disjoint folds (parallel composition)",
        "tokens_": "the fold releases, as an array",
        "release_": "the pooled release (post-processing)",
        "X_norm_bound_": _X_BOUND_PUBLIC,
        "y_bound_": _Y_BOUND_PUBLIC,
        **_MODEL_PUBLIC,
    },
    "RowNormClipper": _TRANSFORMER_PUBLIC,
    "FeatureBoundsScaler": _TRANSFORMER_PUBLIC,
    "PrivateFeatureScaler": {
        "lower_": "the output of the private step 'feature quantiles' (§18.3)",
        "upper_": "the output of the private step 'feature quantiles' (§18.3)",
        **_MODEL_PUBLIC,
    },
}


def published(name):
    """The fitted attributes an estimator may publish, each with its reason.

    Parameters
    ----------
    name : str
        A registered estimator's class name.

    Returns
    -------
    attributes : dict
        An attribute's name → why a fit may publish it; ``RELEASE_ATTRIBUTES``
        for an estimator that publishes no more than a covariance release.
    """
    return dict(_BY_ESTIMATOR.get(name, RELEASE_ATTRIBUTES))
