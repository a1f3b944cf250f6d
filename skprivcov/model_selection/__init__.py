"""Model selection with a privacy budget: the cost of a search or a
cross-validation before it starts, and searches refused up front."""

from skprivcov.model_selection._cost import (
    SearchCost,
    check_budget,
    cross_validation_cost,
    planned_charges,
    search_cost,
)
from skprivcov.model_selection._search import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_validate,
)

__all__ = [
    "GridSearchCV",
    "RandomizedSearchCV",
    "SearchCost",
    "check_budget",
    "cross_validate",
    "cross_validation_cost",
    "planned_charges",
    "search_cost",
]
