"""Estimators in the papers' setting, for the tests of a mechanism.

The defaults are a private bound inside the budget and the centred covariance
(docs/algorithms.rst §18.2, §8.2); the papers' mechanisms are stated for rows in
the unit ball and their second moment. A test of a mechanism's noise, split or
utility builds the estimator here, at a public bound 1 and ``assume_centered=
True`` unless it says otherwise; the defaults have tests of their own
(tests/test_private_bounds.py, tests/test_common.py).
"""

import skprivcov

PAPERS = {"norm_bound": 1.0, "assume_centered": True}


def in_papers_setting(estimator_class):
    """A factory of ``estimator_class`` with :data:`PAPERS` under the
    parameters it is given."""

    def make(**params):
        return estimator_class(**{**PAPERS, **params})

    make.__name__ = estimator_class.__name__
    return make


def __getattr__(name):
    # ``from _papers import GaussianCovariance`` gives the factory of
    # skprivcov.GaussianCovariance.
    if name.endswith("Covariance"):
        return in_papers_setting(getattr(skprivcov, name))
    raise AttributeError(name)
