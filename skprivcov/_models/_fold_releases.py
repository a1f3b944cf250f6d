"""Releases of disjoint folds: the one procedure that FoldReleases and
PrivateRidgeCV share (docs/algorithms.rst §14, "Free sweeps over
post-processing").

The procedure is written once, here, below both of its users: public checks,
one charge recorded under the owner's name, private bounds chosen once on all
the rows (§18.5), then one release per fold. What differs between a release
of the rows x (a covariance estimator's) and of the bounded rows [x, y]
(PrivateRidge's) is a small strategy object: :class:`UnsupervisedFolds` here,
``SupervisedFolds`` with the ridge rows in ``skprivcov.linear_model``.
"""

from dataclasses import replace
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, clone

from skprivcov._data import as_numeric, check_public, compute_array, is_dask_array
from skprivcov._fit import budget_parameters, check_handed_down, describe, is_auto
from skprivcov.base import ClippedData, PrivateFitMixin, Release
from skprivcov.covariance import CovarianceRelease, GaussianCovariance
from skprivcov.mechanisms import split_budget
from skprivcov.mechanisms.noise import bounds_generator, release_generator

__all__ = [
    "BaseFoldReleases",
    "UnsupervisedFolds",
    "leave_one_fold_out",
    "pool_releases",
    "release_folds",
]


def release_folds(template, rows, n_folds, random_state, publish):
    """Split the rows into ``n_folds`` disjoint folds at random and release
    each with ``template`` (already charged, its accountant detached).

    The split is a permutation drawn from ``random_state`` alone: it depends
    on the number of rows, never on their values. Every fold gets a seed of
    its own drawn from the same generator, or fresh OS entropy when
    ``random_state`` is None, so folds never share noise
    (docs/algorithms.rst §13.4). Reads the rows' values: after the charge.

    Returns ``([publish(fitted, n_fold_rows) for each fold], last fitted)``.
    """
    rng = release_generator(random_state)
    folds = np.array_split(rng.permutation(rows.shape[0]), n_folds)
    published = []
    for fold in folds:
        seed = None if random_state is None else int(rng.integers(2**63))
        estimator = template.set_params(random_state=seed).fit(rows[fold])
        published.append(publish(estimator, len(fold)))
    return published, estimator


def leave_one_fold_out(n_folds):
    """(train, test) index pairs over ``n_folds`` tokens: each fold held out
    once, trained on all the others (in increasing order)."""
    indices = np.arange(n_folds)
    for k in range(n_folds):
        yield np.delete(indices, k), indices[k : k + 1]


def pool_releases(releases):
    """The release of the union of the rows behind ``releases`` (weights
    n_k / Σ n_k; post-processing): what a model is fit or scored on."""
    return CovarianceRelease.pooled(list(releases))


class UnsupervisedFolds:
    """The folds of the rows x, released by a covariance estimator.

    The strategy protocol of :meth:`BaseFoldReleases._release_folds` (a supervised
    one, ``skprivcov.linear_model``'s ``SupervisedFolds``, has the same
    methods): ``check``, ``template``, ``bound_parts``, ``choose_bounds``
    and ``rows``.
    """

    min_features = 2

    def __init__(self, holder):
        self.holder = holder

    def check(self, y, n_samples, owner_name):
        """Nothing to check without a target."""
        return y

    def template(self):
        """A fresh clone of the estimator (never the user's instance)."""
        holder = self.holder
        estimator = (
            GaussianCovariance() if holder.estimator is None else holder.estimator
        )
        # "auto" is chosen once on all the rows by ``choose_bounds``; a
        # public placeholder until then.
        bound = 1.0 if is_auto(holder.X_norm_bound) else holder.X_norm_bound
        return clone(estimator).set_params(
            norm_bound=bound, assume_centered=holder.assume_centered
        )

    def bound_parts(self, cost):
        """(the parts of the private bound, the rest): the covariance
        estimators' "norm bound" part for "auto" (§18.2), else nothing."""
        if not is_auto(self.holder.X_norm_bound):
            return (), cost
        *parts, last = split_budget("norm bound auto", cost)
        return tuple(parts), last.cost

    def choose_bounds(self, X, y, parts, rng, nonfinite):
        """The private row-norm bound, at its part (the smallest candidate
        when the part cannot buy an accurate bound, §18.2)."""
        rows = ClippedData(as_numeric(X), augmented=False, nonfinite=nonfinite)
        return {"X_norm_bound_": rows.private_norm_bound(parts[0].cost, rng)}

    def rows(self, X, y, template, names, target_name):
        """The rows to split and the publisher of a fold's release."""
        template.set_params(norm_bound=self.holder.X_norm_bound_)

        def publish(estimator, n_samples):
            release = CovarianceRelease.from_estimator(estimator, n_samples=n_samples)
            return release if names is None else replace(release, feature_names=names)

        return as_numeric(X), publish


class _Folds(NamedTuple):
    """What the fold releases' hooks pass on."""

    X: object
    y: object
    folds: object
    template: object
    owner: object
    target_name: str
    cost: object = None


class BaseFoldReleases(PrivateFitMixin, BaseEstimator):
    """The parameters of a set of fold releases and its one release procedure.

    :class:`skprivcov.model_selection.FoldReleases` is this with its public
    interface; ``PrivateRidgeCV`` releases its folds with it directly.
    """

    def __init__(
        self,
        *,
        estimator=None,
        n_folds=3,
        X_norm_bound="auto",
        y_bound="auto",
        assume_centered=False,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_folds = n_folds
        self.X_norm_bound = X_norm_bound
        self.y_bound = y_bound
        self.assume_centered = assume_centered
        self.random_state = random_state

    def _release_folds(self, X, y, *, owner, strategy, target_name=None):
        """Public checks, one charge recorded under ``owner``'s name, then the
        releases (``strategy``: an :class:`UnsupervisedFolds`-like class), in
        the order of the fit template (:class:`skprivcov.base.PrivateFitMixin`)."""
        if target_name is None:
            target_name = str(getattr(y, "name", None) or "y")
        self._procedure = (owner, strategy, target_name)
        try:
            return self._fit_privately(X, y)
        finally:
            del self._procedure

    # The hooks of the fit template.

    def _check_public(self, X, y):
        owner, strategy, target_name = self._procedure
        folds = strategy(self)
        X = check_public(
            self,
            X,
            reset=True,
            accept_sparse=("csr", "csc"),
            ensure_min_features=folds.min_features,
        )
        n_samples = X.shape[0]
        y = folds.check(y, n_samples, type(self).__name__)
        if n_samples < 2 * self.n_folds:
            raise ValueError(
                f"n_folds={self.n_folds} folds need at least {2 * self.n_folds} "
                f"rows (2 per fold); got {n_samples}."
            )
        template = folds.template()
        template._validate_params()
        return _Folds(X, y, folds, template, owner, target_name)

    def _fit_cost(self, facts):
        # Charged once, before any value is read: the folds are disjoint.
        return facts.template.fit_cost()

    def _check_plan(self, facts, cost):
        # Private bounds, once on all the rows, then the folds at the rest
        # (§18.5): the rest is handed to every fold's release.
        bound_parts, rest = facts.folds.bound_parts(cost)
        if bound_parts:
            check_handed_down(type(facts.owner).__name__, rest)

    def _accountant(self, facts):
        return facts.template.accountant

    def _owner(self, facts):
        return facts.owner

    def _charge_details(self, facts):
        return {
            "release": describe(facts.template),
            "composition": "parallel over disjoint folds",
        }

    def _generator(self, facts):
        """(the bounds' generator or None, the seed of the split and the
        folds): the bounds draw from a stream of their own; with an int seed
        the split and the folds get a seed drawn from it (§13.4)."""
        if facts.folds.bound_parts(facts.template.fit_cost())[0]:
            return bounds_generator(self.random_state, facts.template.noise)
        return None, self.random_state

    def _open(self, facts, cost, rng):
        facts.template.set_params(accountant=None)
        X = facts.X
        if is_dask_array(X):
            # Its blocks are read here, after the charge (§13.1).
            X = compute_array(X)
        return facts._replace(X=X, cost=cost)

    def _choose_bounds(self, data, cost, rng):
        bound_parts, rest = data.folds.bound_parts(cost)
        chosen = {}
        if bound_parts:
            data.template.set_params(**budget_parameters(rest))
            chosen = data.folds.choose_bounds(
                data.X, data.y, bound_parts, rng[0], data.template.nonfinite
            )
        self.X_norm_bound_ = chosen.get("X_norm_bound_", self.X_norm_bound)
        if data.y is not None:
            self.y_bound_ = chosen.get("y_bound_", self.y_bound)
        return data, bound_parts, rest

    def _release(self, data, budget, rng):
        names = getattr(self, "feature_names_in_", None)
        rows, publish = data.folds.rows(
            data.X, data.y, data.template, names, data.target_name
        )
        releases, estimator = release_folds(
            data.template, rows, self.n_folds, rng[1], publish
        )
        # The bounds' parts once (sequential), then every fold's release
        # spends the same split, in parallel (disjoint rows).
        return Release(None, estimator.privacy_parts_, extras={"releases": releases})

    def _store(self, release, data, budget):
        releases = release.extras["releases"]
        self.fold_releases_ = releases
        self.tokens_ = np.empty(len(releases), dtype=object)
        self.tokens_[:] = releases
        self.release_ = CovarianceRelease.pooled(
            releases,
            privacy_spent=data.cost,
            source=f"{self.n_folds} disjoint fold releases by {releases[0].source}",
        )
