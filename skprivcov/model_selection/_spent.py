"""What a fitted pipeline has spent: the composition of its steps' charges."""

from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import VotingClassifier, VotingRegressor
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import FeatureUnion, Pipeline

from skprivcov._compat import BaseSearchCV
from skprivcov.privacy import PrivacyCost

__all__ = ["pipeline_spent"]


def _fitted_children(estimator):
    """The fitted estimators a fitted meta-estimator holds, each fitted once."""
    if isinstance(estimator, Pipeline):
        return [step for _, step in estimator.steps]
    if isinstance(estimator, ColumnTransformer):
        return [transformer for _, transformer, _ in estimator.transformers_]
    if isinstance(estimator, FeatureUnion):
        return [transformer for _, transformer in estimator.transformer_list]
    if isinstance(estimator, TransformedTargetRegressor):
        return [estimator.regressor_, estimator.transformer_]
    if isinstance(estimator, VotingClassifier | VotingRegressor):
        return list(estimator.estimators_)
    return []


def _spent(estimator):
    if estimator is None or isinstance(estimator, str):  # "drop", "passthrough"
        return []
    spent = getattr(estimator, "privacy_spent_", None)
    if spent is not None:
        # An estimator's own total: what it charged, its nested release
        # included (a ridge model's estimator_ is not counted twice).
        return [spent]
    if hasattr(estimator, "fit_cost") or hasattr(estimator, "_planned_charges"):
        raise NotFittedError(
            f"{type(estimator).__name__} spends privacy when fitted but has not "
            "been fitted: fit the pipeline first."
        )
    if isinstance(estimator, BaseSearchCV):
        raise TypeError(
            "A search refits its estimator once per candidate and fold: its "
            "spend is search_cost(search, X, y), or the accountant's ledger."
        )
    children = _fitted_children(estimator)
    if not children and _holds_estimators(estimator):
        # Fail closed (review of issue 33): a meta-estimator this function
        # does not know (MultiOutputRegressor, bagging, stacking, RFE, ...)
        # may hold private fits; counting it as zero would be a false claim.
        raise TypeError(
            f"pipeline_spent does not know how {type(estimator).__name__} fits "
            "the estimators it holds; sum their privacy_spent_ yourself, or read "
            "the accountant's ledger."
        )
    return [cost for child in children for cost in _spent(child)]


def _holds_estimators(estimator):
    """Whether a fitted object holds other estimators (fitted or not)."""
    for value in vars(estimator).values():
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            if isinstance(item, tuple) and len(item) >= 2:
                item = item[1]
            if hasattr(item, "fit") and hasattr(item, "get_params"):
                return True
    return False


def pipeline_spent(estimator):
    """The total privacy a fitted pipeline (or any fitted estimator) spent.

    The sum, by :class:`~skprivcov.PrivacyCost` composition, of the
    ``privacy_spent_`` of every fitted step: each step of a ``Pipeline``
    reads the same rows (the transformer's output is a function of them), so
    their charges compose sequentially (docs/algorithms.rst §18.3). It walks
    ``Pipeline``, ``FeatureUnion``, ``ColumnTransformer``,
    ``TransformedTargetRegressor`` and the voting ensembles; an estimator
    with ``privacy_spent_`` counts once, with whatever it released inside
    (a ridge model's covariance estimator is not counted again). Steps that
    spend nothing add nothing. Public: the charges depend on parameters only.

    Parameters
    ----------
    estimator : fitted estimator instance
        The fitted estimator or pipeline.

    Returns
    -------
    spent : PrivacyCost
        Zero when no step spends privacy.

    Raises
    ------
    NotFittedError
        A private step has not been fitted.
    TypeError
        A search: its spend is :func:`search_cost` (or the ledger).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from skprivcov.covariance import GaussianCovariance
    >>> from skprivcov.model_selection import pipeline_spent
    >>> from skprivcov.preprocessing import PrivateFeatureScaler
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> pipe = make_pipeline(
    ...     PrivateFeatureScaler(rho=0.25, random_state=0),
    ...     GaussianCovariance(rho=0.75, norm_bound=3 ** 0.5, random_state=0),
    ... ).fit(X)
    >>> print(pipeline_spent(pipe))
    1-zCDP
    """
    return sum(_spent(estimator), PrivacyCost.zero())
