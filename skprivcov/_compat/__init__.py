"""The private names of scikit-learn that skprivcov builds on, in one place.

scikit-learn keeps its parameter constraints, its fit context, its search
base class and two indexing helpers in private modules; they have moved
between releases before. Every module of skprivcov imports them from here,
under public names (``tests/test_layering.py`` fails on a private scikit-learn
import anywhere else), so that a move in a new release is one edit, in this
file, checked by the floors job of ``.ci/run`` (the oldest scikit-learn
declared in pyproject.toml) and the main job (the newest).

One private method remains outside: ``_CheckedSearchMixin._format_results``
(``skprivcov/model_selection/_search.py``, under GridSearchCV and
RandomizedSearchCV) overrides ``BaseSearchCV``'s, the only hook scikit-learn
offers between a search's fits and its refit.
"""

from sklearn.base import _fit_context as fit_context
from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils import _safe_indexing as safe_indexing
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    Options,
    RealNotInt,
    StrOptions,
)
from sklearn.utils.validation import _num_samples as num_samples

__all__ = [
    "BaseSearchCV",
    "HasMethods",
    "Interval",
    "Options",
    "RealNotInt",
    "StrOptions",
    "fit_context",
    "num_samples",
    "safe_indexing",
]
