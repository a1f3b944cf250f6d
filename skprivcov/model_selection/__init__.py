"""Model selection with a privacy budget: the cost of a search or a
cross-validation before it starts, and searches refused up front.

The mathematics of private selection (the law of the number of runs, what a
selection costs) lives with the mechanisms (``skprivcov.mechanisms``) and is
exported here too, beside the search that uses it."""

from skprivcov.mechanisms import draw_runs, runs_pmf, selection_cost, stopping_law
from skprivcov.model_selection._cost import (
    SearchCost,
    check_budget,
    cross_validation_cost,
    planned_charges,
    search_cost,
)
from skprivcov.model_selection._folds import (
    FoldReleases,
    ReleaseModel,
    release_scorer,
)
from skprivcov.model_selection._private_scores import (
    CovarianceErrorScore,
    PredictionLossScore,
)
from skprivcov.model_selection._search import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_validate,
)
from skprivcov.model_selection._selection import PrivateRandomSearch
from skprivcov.model_selection._spaces import default_search_space
from skprivcov.model_selection._spent import pipeline_spent

__all__ = [
    "CovarianceErrorScore",
    "GridSearchCV",
    "PredictionLossScore",
    "PrivateRandomSearch",
    "RandomizedSearchCV",
    "SearchCost",
    "check_budget",
    "cross_validate",
    "cross_validation_cost",
    "default_search_space",
    "draw_runs",
    "pipeline_spent",
    "planned_charges",
    "runs_pmf",
    "search_cost",
    "selection_cost",
    "stopping_law",
]

# Free sweeps over post-processing (docs/algorithms.rst §14).
__all__ += [
    "FoldReleases",
    "ReleaseModel",
    "release_scorer",
]
