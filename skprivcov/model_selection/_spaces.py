"""Default search spaces for :class:`PrivateRandomSearch` (docs/tuning.rst).

Each space varies only what a candidate's release depends on, never its
budget: every candidate keeps the budget of the estimator it is built from, so
the search's stated cost is that of the estimator's selection
(``PrivateRandomSearch(...).cost()``). The spaces were chosen from
``benchmarks/bench_tuning_table.py`` (scikit-learn's bundled datasets as a
user has them, test error at an equal total budget).
"""

from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.linear_model import PrivateRidge

__all__ = ["NORM_BOUND_DECADES", "default_search_space"]

# Public candidate norm bounds, one per decade: rows of raw data are from
# about 0.1 long (features already scaled) to 10⁴ (counts, areas, money).
# The private "auto" bound is kept as a candidate: it wins when the rows are
# many for its share of the budget (docs/classification.rst).
NORM_BOUND_DECADES = (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)


def default_search_space(estimator):
    """A ``param_grid`` for :class:`PrivateRandomSearch` over ``estimator``.

    The candidates differ in how the release is made, not in its budget:

    * :class:`~skprivcov.linear_model.PrivateRidge` (fitting with its own
      release): ``boosting_rounds`` 0 (one release of [x, y]) or "auto"
      (gradient boosting, docs/ridge.rst), with the bounds, the penalty and
      the covariance mechanism left at the estimator's own. On raw diabetes
      the mechanism (Gaussian, separate, adaptive), ``alpha="adassp"`` and
      public guesses of the bounds changed the test error by less than the
      noise, or made it worse; boosting lowered it by 10–15%.
    * :class:`~skprivcov.discriminant_analysis.PrivateLinearDiscriminantAnalysis`
      without ``feature_bounds``: ``norm_bound`` "auto" or a public bound of
      each decade from 0.1 to 10⁴ (:data:`NORM_BOUND_DECADES`). On raw data
      at the bundled datasets' sizes, the private bound often falls back to
      its grid's top and the classifier to chance, while a public bound of
      the right decade does not (docs/classification.rst).

    Where it pays (``benchmarks/bench_tuning_table.py``, 20 splits, the
    search's per-candidate budget set so that its stated cost equals the
    default's ε at δ = 1e-6): the search over this space beat the default
    single release by 13–62% in test error for the classifier on raw wine
    (ε = 1–4) and breast cancer (ε = 0.5–2), where the default's private
    norm bound fails, and by 20% on digits at ε = 16. It lost where the
    default's own bound works at that size (digits at ε = 1–4, diabetes at
    ε = 4–8): each candidate gets 3–5 times less ρ than the single release.
    For ridge on diabetes it never won by 5%.

    Parameters
    ----------
    estimator : PrivateRidge or PrivateLinearDiscriminantAnalysis
        The unfitted model to be searched, with the budget each candidate is
        to spend (ridge: its ``estimator``'s budget, a
        :class:`~skprivcov.GaussianCovariance` of ρ = 0.1 when None).

    Returns
    -------
    param_grid : dict
        Parameter names of ``estimator`` to lists of candidate values, for
        ``PrivateRandomSearch(estimator, param_grid, ...)``.

    Raises
    ------
    ValueError
        If ``estimator`` is of a type with no default space, or if it makes
        no release of its own (``PrivateRidge`` fit from a given
        ``covariance``, whose fits spend nothing), or if its norm bound is
        already fixed by a public ``feature_bounds``.

    See Also
    --------
    PrivateRandomSearch : Private selection among candidate settings.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import PrivacyAccountant
    >>> from skprivcov.discriminant_analysis import (
    ...     PrivateLinearDiscriminantAnalysis,
    ... )
    >>> from skprivcov.model_selection import (
    ...     PredictionLossScore,
    ...     PrivateRandomSearch,
    ...     default_search_space,
    ... )
    >>> lda = PrivateLinearDiscriminantAnalysis(
    ...     classes=[0, 1], rho=0.5, nonfinite="zero"
    ... )
    >>> grid = default_search_space(lda)
    >>> grid["norm_bound"]
    ['auto', 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.normal(0, 30, (500, 2)), rng.normal(90, 30, (500, 2))])
    >>> y = np.repeat([0, 1], 500)
    >>> accountant = PrivacyAccountant(epsilon=20.0, delta=1e-6)
    >>> search = PrivateRandomSearch(
    ...     lda,
    ...     grid,
    ...     scoring=PredictionLossScore(loss="zero_one"),
    ...     accountant=accountant,
    ...     random_state=0,
    ... ).fit(X, y)
    >>> search.best_params_["norm_bound"] in grid["norm_bound"]
    True
    >>> bool(accountant.spent_epsilon(1e-6) <= 20.0)
    True
    """
    if isinstance(estimator, PrivateRidge):
        if estimator.covariance is not None:
            raise ValueError(
                "PrivateRidge with a covariance given fits from that release and "
                "spends nothing: there is nothing to search privately. Search over "
                "PrivateRidge(estimator=...) instead, or sweep alpha for free "
                "(docs/tuning.rst)."
            )
        return {"boosting_rounds": [0, "auto"]}
    if isinstance(estimator, PrivateLinearDiscriminantAnalysis):
        if estimator.classes is None:
            raise ValueError(
                "PrivateLinearDiscriminantAnalysis with classes=None releases its "
                "label set privately, a δ₀-approximate step (docs/algorithms.rst "
                "§25) that a private selection cannot run K times: give classes "
                "(the label set, public)."
            )
        if estimator.feature_bounds is not None:
            raise ValueError(
                "PrivateLinearDiscriminantAnalysis with feature_bounds takes its "
                "norm bound from the public box: the default space, over norm "
                "bounds, has nothing to choose."
            )
        return {
            "covariance": ["auto", "full"],
            "norm_bound": ["auto", *NORM_BOUND_DECADES],
        }
    raise ValueError(
        f"default_search_space has no default space for {type(estimator).__name__}; "
        "it supports PrivateRidge and PrivateLinearDiscriminantAnalysis. Give "
        "PrivateRandomSearch a param_grid of your own."
    )
