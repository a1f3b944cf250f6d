"""The scikit-learn checks each registered estimator is expected to fail.

tests/test_common.py feeds :func:`expected_failed_checks` to
``parametrize_with_checks``: a check listed here runs as an expected failure
with its reason, and one that passes fails the suite (``xfail_strict`` in
pyproject.toml), so the table is exact for every variant. Every
reason cites the rule of docs/algorithms.rst that makes the check's
expectation wrong for a private estimator.
"""

from sklearn.base import is_classifier

from skprivcov._models import label_threshold
from skprivcov.privacy import UnsupportedPrivacyNotionError

__all__ = ["expected_failed_checks"]


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


_TOO_FEW_FOR_THE_BOUND = (
    "The check's 300 rows are too few for the default private bound at the "
    "default ρ = 0.1: its 1/16 cannot buy an accurate quantile, so the bound "
    "falls back to the smallest candidate and the release is about zero "
    "(docs/algorithms.rst §18.2); every row is then an inlier. With a public "
    "bound (the 'gaussian' variant) the check passes."
)


# What every private estimator is expected to fail; the estimators that read
# no value, or refuse none, say so instead.
_PRIVATE_CHECKS = {"check_dtype_object": _NOT_A_NUMBER_IS_NAN}


_BY_ESTIMATOR = {
    "ZeroCovariance": {"check_dtype_object": _READS_NO_VALUE},
    "RowNormClipper": {"check_dtype_object": _REFUSES_NO_VALUE},
    "FeatureBoundsScaler": {"check_dtype_object": _REFUSES_NO_VALUE},
}


def _outlier_checks(estimator):
    """The outlier checks an envelope is expected to fail: those of
    ``_TOO_FEW_FOR_THE_BOUND``, when its covariance estimator draws its
    bound privately (the default)."""
    if type(estimator).__name__ != "PrivateEllipticEnvelope":
        return {}
    inner = estimator.estimator
    if inner is not None and getattr(inner, "norm_bound", "auto") != "auto":
        return {}
    checks = ("check_outliers_train", "check_outliers_fit_predict")
    return dict.fromkeys(checks, _TOO_FEW_FOR_THE_BOUND)


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


# The smallest class a private label set must release for those checks.
_SMALL_CLASS_ROWS = 2


def _label_set_checks(estimator):
    """The checks of ``_SMALL_CLASS_CHECKS`` that a classifier instance is
    expected to fail: every one, unless its label set is public (``classes``)
    or a private one releases a class of ``_SMALL_CLASS_ROWS`` rows."""
    if not is_classifier(estimator) or estimator.classes is not None:
        return {}
    small_class_checks = _SMALL_CLASS_CHECKS
    if not hasattr(estimator, "decision_function"):
        # The check compares decision_function with predict_proba: without
        # one it fits nothing, and passes.
        small_class_checks = tuple(
            check
            for check in small_class_checks
            if check != "check_decision_proba_consistency"
        )
    try:
        cost = estimator.fit_cost()
    except UnsupportedPrivacyNotionError:
        reason = (
            "A pure ε budget cannot pay for a private label set (it needs a δ, "
            "docs/algorithms.rst §25) and the check's y gives no public one "
            "(classes, or a categorical y): every fit is refused before the charge."
        )
        return dict.fromkeys((*small_class_checks, *_ANY_FIT_CHECKS), reason)
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
    return dict.fromkeys(small_class_checks, reason)


def expected_failed_checks(estimator):
    """The scikit-learn checks an instance is expected to fail, and why.

    Parameters
    ----------
    estimator : estimator instance
        A registered estimator (any variant).

    Returns
    -------
    checks : dict
        A check's name → why it is expected to fail.
    """
    fixed = _BY_ESTIMATOR.get(type(estimator).__name__, _PRIVATE_CHECKS)
    return {**fixed, **_outlier_checks(estimator), **_label_set_checks(estimator)}
