"""The folds of the bounded rows [x, y]: PrivateRidge's rows for the fold
releases of :class:`~skprivcov.model_selection.FoldReleases` (with ``y``) and
of PrivateRidgeCV (docs/algorithms.rst §14, §18.5).

The procedure itself is
``skprivcov._models._fold_releases.BaseFoldReleases._release_folds``; this is its
supervised strategy, kept with the rows it bounds.
"""

from skprivcov._data import as_numeric, check_target
from skprivcov._fit import is_auto
from skprivcov.linear_model._base import release_estimator
from skprivcov.linear_model._private_bounds import choose_bounds, release_budget
from skprivcov.linear_model._rows import (
    bounded_rows,
    release_in_data_units,
    target_map,
)

__all__ = ["SupervisedFolds"]


class SupervisedFolds:
    """The folds of [x, y'], released as PrivateRidge releases its rows.

    The strategy protocol of ``BaseFoldReleases._release_folds`` (see
    ``skprivcov._models._fold_releases.UnsupervisedFolds``).
    """

    min_features = 1

    def __init__(self, holder):
        self.holder = holder
        self.centred = not holder.assume_centered

    def check(self, y, n_samples, owner_name):
        """The public checks of the target and of its bounds."""
        y = check_target(y, n_samples, owner_name)
        if not is_auto(self.holder.y_bound):
            target_map(self.holder.y_bound, self.centred)
        return y

    def template(self):
        """The release PrivateRidge makes of [x, y]: one rule for both."""
        return release_estimator(self.holder.estimator, self.centred)

    def bound_parts(self, cost):
        """(the parts the "auto" bounds spend, the rest): §18.5."""
        return release_budget(cost, self.holder.X_norm_bound, self.holder.y_bound)

    def choose_bounds(self, X, y, parts, rng, nonfinite):
        """The private bounds of "auto" at their parts (the given ones
        otherwise)."""
        X_norm_bound, y_bound = choose_bounds(
            as_numeric(X),
            as_numeric(y, "y"),
            parts,
            self.holder.X_norm_bound,
            self.holder.y_bound,
            nonfinite=nonfinite,
            rng=rng,
            centred=self.centred,
        )
        return {"X_norm_bound_": X_norm_bound, "y_bound_": y_bound}

    def rows(self, X, y, template, names, target_name):
        """The bounded rows and the publisher of a fold's release of them, in
        the units of [X, y], with the noise level of its feature block (in
        the units of X²: what ``PrivateRidge(alpha="auto")`` reads, §16; with
        a box per feature, that of its largest scale, §18.5)."""
        X_norm_bound, y_bound = self.holder.X_norm_bound_, self.holder.y_bound_
        rows = bounded_rows(
            as_numeric(X),
            as_numeric(y, "y"),
            X_norm_bound=X_norm_bound,
            y_bound=y_bound,
            fit_intercept=self.centred,
        )
        names = None if names is None else [*names, target_name]

        def publish(estimator, n_samples):
            return release_in_data_units(
                estimator,
                n_samples=n_samples,
                X_norm_bound=X_norm_bound,
                y_bound=y_bound,
                fit_intercept=self.centred,
                names=names,
            )

        return rows, publish
