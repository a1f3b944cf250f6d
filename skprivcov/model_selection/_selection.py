"""Private selection by random stopping (docs/algorithms.rst §14)."""

import math
import warnings
from fractions import Fraction
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from skprivcov._compat import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    fit_context,
    num_samples,
    safe_indexing,
)
from skprivcov._data import check_public, is_dask_array
from skprivcov._fit import NOISE, silenced_warnings
from skprivcov.base import PrivateFitMixin, Release
from skprivcov.covariance import BasePrivateCovariance
from skprivcov.mechanisms import selection_cost, stopping_law
from skprivcov.mechanisms.noise import SEED_LIMIT, noisy_scalar, release_generator
from skprivcov.model_selection._cost import _estimators_among, planned_charges
from skprivcov.model_selection._private_scores import (
    CovarianceErrorScore,
    PredictionLossScore,
)
from skprivcov.model_selection._probe import check_public_facts
from skprivcov.privacy import (
    BudgetPart,
    PrivacyAccountant,
    PrivacyCost,
    expected_runs,
)

__all__ = ["PrivateRandomSearch"]

# Beyond this many expected runs a fit would not finish (public parameters).
_MAX_EXPECTED_RUNS = 1e6


def _score_cost(costs):
    """The largest candidate budget in the notion of the score's noise: the
    largest zCDP candidate's (Gaussian noise), else the largest pure one's
    (Laplace noise); None if every candidate is free. Its curve never exceeds
    the largest candidate's."""
    zcdp = [cost for cost in costs if cost.notion == "zcdp"]
    if zcdp:
        return PrivacyCost.zcdp(max(cost.parameter for cost in zcdp))
    pure = [cost.parameter for cost in costs if cost.notion == "pure"]
    return PrivacyCost.pure(max(pure)) if pure and max(pure) > 0 else None


def _delegate(method):
    """Whether the fitted best estimator (or the unfitted one) has ``method``."""

    def check(self):
        fitted = getattr(self, "best_estimator_", None)
        return hasattr(fitted if fitted is not None else self.estimator, method)

    return check


# The one part of a search: the selection, charged once (§14, §22).
SELECTION_STEP = "private selection"


class _Search(NamedTuple):
    """What the search's hooks pass on."""

    X: object
    y: object
    settings: list
    models: list
    run_costs: list
    score_cost: object
    total: object
    gamma: float
    fraction: float | None
    n_heldout: int
    split: tuple | None = None


class PrivateRandomSearch(PrivateFitMixin, MetaEstimatorMixin, BaseEstimator):
    """Private selection among candidate settings by random stopping.

    Each run draws one candidate at random from ``param_grid``, fits it
    privately on the training share of the rows, and scores it privately on
    the held-out share. The number of runs K is itself random, drawn from a
    truncated negative binomial TNB(η, γ) independently of the data, and only
    the best run is returned (Papernot & Steinke, ICLR 2022; Liu & Talwar,
    STOC 2019, for the geometric η = 1). Its whole cost is known in advance
    and charged once, before any value is read (docs/algorithms.rst §14):

    * candidates with pure ε budgets: (2 + η)·ε, pure;
    * candidates with ρ-zCDP budgets: a Rényi-DP curve, ε'(λ) = ρλ + (1+η)
      (2√(ρ log(1/γ)) − ρ) + log(E[K])/(λ − 1), stored as such by the
      accountant;
    * either way, ``privacy_spent_.to_approx_dp(δ)`` reports the smaller of
      that and a bound through privacy profiles (docs/algorithms.rst §22):
      about 0.79, 0.82 and 0.89 of the Rényi route's ε for ten candidates
      of ρ = 0.01, 0.1 and 1 at δ = 1e−6.

    Where the score reads (docs/algorithms.rst §14):

    * **the rows the release read** (``validation_fraction=None``; the
      default for covariance estimators, whose error is measured against the
      rows themselves): the score's noise has a budget of its own,
      ``score_fraction`` times the largest candidate's, and a run costs the
      release plus the score (composition);
    * **a held-out share** (a fraction; the default for models that predict,
      whose loss on their own training rows rewards overfitting): the rows are
      split once, at random and independently of the data. Replacing one row
      changes one share only, so a run costs the larger of a release and a
      score, not their sum, and the score gets the largest candidate's budget
      for free. The releases see fewer rows, though.

    Parameters
    ----------
    estimator : skprivcov estimator
        The model whose settings are searched; a covariance estimator, or any
        skprivcov model with ``predict`` (give ``scoring`` then). It must not
        hold an accountant of its own: give it to the search (the charges of
        the runs would reveal how many there were).

    param_grid : dict or list of dict
        The candidates, as for :class:`~sklearn.model_selection.GridSearchCV`:
        each setting of :class:`~sklearn.model_selection.ParameterGrid` is one
        candidate, drawn with equal probability in every run. Settings may
        change the mechanism (``{"estimator": [...]}`` inside a pipeline), the
        norm bound, the budget split or the budget itself; the search costs
        what the most expensive candidate's selection costs.

    scoring : CovarianceErrorScore, PredictionLossScore or None, default=None
        The private score: a statistic of the held-out rows with a public
        sensitivity. None: :class:`CovarianceErrorScore` with norm bound 1
        (for covariance estimators).

    eta : 0 or float in [0.05, 100], default=1.0
        The shape η of the stopping law: 1 is geometric (cost 3ε for pure
        candidates), 0 logarithmic (2ε), larger values concentrate K around
        its mean at a higher price.

    gamma : float in (0, 1) or "auto", default="auto"
        The stopping parameter γ: E[K] grows like 1/γ, the cost like
        √log(1/γ) (zCDP) or not at all (pure). "auto": γ = 1/(30m) for m
        candidates, so that each candidate is expected to run thirty times and
        the best one is never run with probability about 1/31 (geometric
        stopping). On the bundled datasets this chose better than 1/(10m), at
        a cost of about 8% more ε (docs/tuning.rst); a fit makes about 30m
        runs.

    stopping : {"negative_binomial", "binomial"}, default="negative_binomial"
        The law of K: the truncated negative binomial TNB(η, γ), or
        Binomial(m, 1/2) conditioned on K ≥ 1 with m the even number nearest
        twice the E[K] of TNB(η, γ) (the same mean, a more concentrated K;
        Koskela, Redberg & Wang 2024). The binomial is accounted by privacy
        profiles, and costs more on the settings measured in
        docs/algorithms.rst §22 (also in the worst case, not only in the
        bound); its Rényi curve, kept for composition, is loose.

    validation_fraction : float in (0, 1), None or "auto", default="auto"
        The share of rows held out for the scores, or None to score on the
        rows the release read. "auto": None with the default scoring (a
        covariance's error), 0.3 otherwise.

    score_fraction : float in [1e-3, 1e3], default=0.5
        Without held-out rows, the budget of each run's score as a multiple
        of the largest candidate's ρ (or pure ε); it adds to every run's cost.
        Ignored with held-out rows.

    accountant : PrivacyAccountant, default=None
        Charged the whole cost once, before any value is read.

    noise : {"hardened", "float"}, default="hardened"
        How the scores' noise is drawn (docs/algorithms.rst §17); each
        candidate's release follows its own ``noise`` parameter.

    random_state : int in [0, 2**63) or None, default=None
        Seeds the split, the number of runs, the draws of candidates, every
        run's release (each its own seed) and the scores' noise. None: fresh
        OS entropy for each (use it for real releases).

    Attributes
    ----------
    best_estimator_ : estimator
        The winning run's model, fitted on all rows (or on the training share,
        with held-out rows).
    best_params_ : dict
        Its candidate setting.
    best_score_ : float
        Its private score (noisy).
    candidates_ : list of dict
        Every candidate setting (public).
    run_cost_ : PrivacyCost
        What one run of the most expensive candidate costs, its score
        included.
    privacy_spent_ : PrivacyCost
        What the search spent: the cost of §14 for the number of runs drawn
        at random, never the cost of the runs actually made.
    expected_runs_ : float
        E[K] (of the stopping law used).
    gamma_ : float
        The stopping parameter used.
    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    selection_cost : The cost of a search, from its candidates' costs.
    skprivcov.model_selection.GridSearchCV : Every candidate on every fold,
        each charged.

    Notes
    -----
    Nothing published reveals how many runs were made: not an attribute, not
    a ledger record (one charge, of the announced cost), not a warning. The
    time a fit takes grows with K; a caller who can time the fit learns
    about K (which the guarantee assumes secret), so run it where its
    duration is not observed by the parties the privacy is meant against.
    No warning escapes the runs (their number would be K). A run whose fit
    or score raises (a candidate's refusal of a value, say) fails the whole
    search, after the charge, with a message that names nothing: one paid
    bit, as for one fit with ``nonfinite="raise"``. Every step of a candidate
    must be a skprivcov estimator; the winner's seeds are reset to None.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivcov import GaussianCovariance, PrivacyAccountant
    >>> from skprivcov.model_selection import PrivateRandomSearch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(scale=0.1, size=(20000, 4))
    >>> accountant = PrivacyAccountant(epsilon=7.0, delta=1e-6)
    >>> search = PrivateRandomSearch(
    ...     GaussianCovariance(rho=0.1),
    ...     {"norm_bound": [0.1, 0.3, 1.0]},
    ...     accountant=accountant, random_state=0,
    ... ).fit(X)
    >>> search.best_params_
    {'norm_bound': 1.0}
    >>> round(search.privacy_spent_.to_approx_dp(1e-6), 2)
    5.16
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "param_grid": [dict, list],
        "scoring": [None, HasMethods(["statistic", "sensitivity"])],
        # η = 0 (logarithmic) or η ≥ 0.05: a smaller η > 0 redraws K = 0
        # about γ^−η times, without end as η → 0.
        "eta": [
            Options(Real, {0}),
            Interval(Real, 0.05, 100, closed="both"),
        ],
        "gamma": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "stopping": [StrOptions({"negative_binomial", "binomial"})],
        "validation_fraction": [
            Interval(Real, 0, 1, closed="neither"),
            None,
            StrOptions({"auto"}),
        ],
        "score_fraction": [Interval(Real, 1e-3, 1e3, closed="both")],
        "accountant": [None, PrivacyAccountant],
        "noise": NOISE,
        "random_state": [None, Interval(Integral, 0, SEED_LIMIT, closed="left")],
    }

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        scoring=None,
        eta=1.0,
        gamma="auto",
        stopping="negative_binomial",
        validation_fraction="auto",
        score_fraction=0.5,
        accountant=None,
        noise="hardened",
        random_state=None,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.eta = eta
        self.gamma = gamma
        self.stopping = stopping
        self.validation_fraction = validation_fraction
        self.score_fraction = score_fraction
        self.accountant = accountant
        self.noise = noise
        self.random_state = random_state

    def _candidates(self):
        """Every candidate: its setting, the unfitted model, its run cost."""
        settings = list(ParameterGrid(self.param_grid))
        if not settings:
            raise ValueError("param_grid holds no candidate setting.")
        models, costs = [], []
        for setting in settings:
            # Cloned, as GridSearchCV does: an estimator given as a value is
            # one object, shared by the settings that name it.
            model = clone(self.estimator).set_params(**clone(setting, safe=False))
            if any(charge.notion == "renyi" for _, charge in planned_charges(model)):
                raise ValueError(
                    "A candidate whose cost is a Rényi curve (a selection inside "
                    "the selection) is not supported."
                )
            _check_private(model)
            if not _seed_parameters(model):
                raise ValueError(
                    f"{type(model).__name__} has no random_state: every run must "
                    "draw noise of its own."
                )
            _check_scoring(self.scoring, model)
            charges = planned_charges(model)
            if any(accountant is not None for accountant, _ in charges):
                raise ValueError(
                    "A candidate holds an accountant of its own: its charges would "
                    "reveal how many runs the search made. Give the accountant to "
                    "PrivateRandomSearch instead."
                )
            models.append(model)
            costs.append(sum((cost for _, cost in charges), PrivacyCost.zero()))
        return settings, models, costs

    def _heldout_fraction(self):
        if self.validation_fraction == "auto":
            return None if self.scoring is None else 0.3
        return self.validation_fraction

    def _run_costs(self, costs):
        """What one run of each candidate costs, and its score's budget."""
        score = _score_cost(costs)
        if score is None:
            raise ValueError(
                "Every candidate is free (it releases nothing): there is nothing "
                "to select privately; give candidates with a budget."
            )
        if self._heldout_fraction() is not None:
            # Disjoint rows: a run costs the larger of the two (parallel).
            return costs, score
        # The same rows: the score's budget adds to the release's, as curves
        # when their notions differ (a pure ε entering zCDP as ε²/2 would
        # overcharge).
        score = score.scaled(self.score_fraction)
        return [_composed(cost, score) for cost in costs], score

    def _gamma(self, n_candidates):
        gamma = 1.0 / (30.0 * n_candidates) if self.gamma == "auto" else self.gamma
        if expected_runs(self.eta, gamma) > _MAX_EXPECTED_RUNS:
            raise ValueError(
                f"eta={self.eta} and gamma={gamma:.3g} make {_MAX_EXPECTED_RUNS:g} "
                "runs or more on average; give a larger gamma (or fewer candidates)."
            )
        return float(gamma)

    def cost(self):
        """What a fit will spend, from the parameters alone (§14, §22).

        Returns
        -------
        cost : PrivacyCost
            The cost of the selection.
        """
        settings, _, costs = self._candidates()
        run_costs, _ = self._run_costs(costs)
        return selection_cost(
            run_costs,
            eta=self.eta,
            gamma=self._gamma(len(settings)),
            stopping=self.stopping,
        )

    def _planned_charges(self):
        return [(self.accountant, self.cost())]

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Charge the search's cost, then run it.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Training data, as the candidates take it.
        y : array-like of shape (n_samples,), default=None
            Target, for supervised candidates.

        Returns
        -------
        self : object
            The fitted search.
        """
        return self._fit_privately(X, y)

    # The hooks of the fit template (skprivcov.base.PrivateFitMixin): the
    # whole selection is one charge (§14, §22), its runs read the values.

    def _check_public(self, X, y):
        settings, models, costs = self._candidates()
        gamma = self._gamma(len(settings))
        run_costs, score_cost = self._run_costs(costs)
        total = selection_cost(
            run_costs, eta=self.eta, gamma=gamma, stopping=self.stopping
        )
        fraction = self._heldout_fraction()
        # The public facts of X (container, shape, dtype kind), before the
        # charge; the candidates read the values afterwards.
        X = check_public(
            self, X, reset=True, ensure_min_samples=2, ensure_min_features=1
        )
        n_samples = num_samples(X)
        n_heldout = n_samples if fraction is None else round(fraction * n_samples)
        if fraction is not None and not 1 <= n_heldout < n_samples:
            raise ValueError(
                f"validation_fraction={fraction} of {n_samples} rows leaves no "
                "training or no held-out row."
            )
        y = _public_target(y, n_samples)
        # Every candidate's own public checks, on a stand-in of the training
        # share (its container, shape and dtype; no value), before the charge:
        # a run must never fail, after the charge, for a reason the public
        # inputs settled (docs/algorithms.rst §13.2).
        n_training = n_samples if fraction is None else n_samples - n_heldout
        for model in models:
            check_public_facts(model, X, y, n_training)
        return _Search(
            X,
            y,
            settings,
            models,
            run_costs,
            score_cost,
            total,
            gamma,
            fraction,
            n_heldout,
        )

    def _fit_cost(self, search):
        return search.total

    def _charge_details(self, search):
        return {
            "candidates": len(search.settings),
            "eta": float(self.eta),
            "gamma": search.gamma,
            "stopping": self.stopping,
            "validation_fraction": search.fraction,
            "score_fraction": None if search.fraction else float(self.score_fraction),
        }

    def _open(self, search, cost, rng):
        """The split of the rows into training and held-out ones (a
        permutation drawn first from the search's generator)."""
        X, y = search.X, search.y
        if search.fraction is None:
            return search._replace(split=(X, X, y, y))
        order = rng.permutation(X.shape[0] if hasattr(X, "shape") else len(X))
        heldout, training = order[: search.n_heldout], order[search.n_heldout :]
        split = (
            safe_indexing(X, training),
            safe_indexing(X, heldout),
            None if y is None else safe_indexing(y, training),
            None if y is None else safe_indexing(y, heldout),
        )
        return search._replace(split=split)

    def _release(self, search, budget, rng):
        """The runs: K ~ the stopping law, each a random candidate fit on the
        training rows and scored privately on the held-out ones; the best."""
        X_train, X_heldout, y_train, y_heldout = search.split
        law = stopping_law(self.eta, search.gamma, self.stopping)
        scoring = CovarianceErrorScore() if self.scoring is None else self.scoring
        settings, models = search.settings, search.models
        best = None
        # In silence, whatever a run does: the number of warnings would tell
        # how many runs there were (§14), and a warning may depend on a value.
        # The library's own warnings through a per-thread flag too: the
        # process-wide filters may be restored by another thread meanwhile.
        with warnings.catch_warnings(), np.errstate(all="ignore"), silenced_warnings():
            warnings.simplefilter("ignore")
            for _ in range(law.draw(rng)):
                index = int(rng.integers(len(settings)))
                model = _reseeded(clone(models[index]), self.random_state, rng)
                score = _run(model, scoring, X_train, y_train, X_heldout, y_heldout)
                noise_rng = (
                    rng
                    if self.random_state is not None
                    else release_generator(None, noise=self.noise)
                )
                score = _noisy_score(
                    score,
                    noise_rng,
                    scoring.sensitivity(model, search.n_heldout),
                    search.score_cost,
                )
                if best is None or score > best[0]:
                    best = (score, index, model)

        score, index, model = best
        # The winning run's seeds are not published: with them and the
        # search's own seed, anyone could replay its noise and its index.
        model.set_params(**dict.fromkeys(_seed_parameters(model)))
        extras = {
            "best_estimator_": model,
            "best_params_": settings[index],
            "best_score_": float(score),
            "candidates_": settings,
            "run_cost_": _largest(search.run_costs),
            "expected_runs_": law.expected(),
            "gamma_": search.gamma,
        }
        return Release(None, (BudgetPart(SELECTION_STEP, search.total),), extras=extras)

    @available_if(_delegate("predict"))
    def predict(self, X):
        """The best model's ``predict``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The best model's predictions.
        """
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @available_if(_delegate("transform"))
    def transform(self, X):
        """The best model's ``transform``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        X_new : ndarray
            The best model's transform of X.
        """
        check_is_fitted(self)
        return self.best_estimator_.transform(X)

    @available_if(_delegate("score"))
    def score(self, X, y=None):
        """The best model's ``score`` (on data no budget protects).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        y : array-like of shape (n_samples,), default=None
            The target, for a supervised model.

        Returns
        -------
        score : float
            The best model's score.
        """
        check_is_fitted(self)
        return self.best_estimator_.score(X, y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _run(model, scoring, X_train, y_train, X_scored, y_scored):
    """One run's exact score (−inf for a release too far to score).

    A run that raises (a candidate's own refusal of a value, such as
    ``nonfinite="raise"`` on a NaN) fails the whole search, after its charge,
    with one message that names nothing: scoring it −inf instead would
    silently rule the candidate out on that data, and its error would tell
    which run failed."""
    try:
        model.fit(X_train, y_train)
        score = scoring.statistic(model, X_scored, y_scored)
        # An exact score (a Fraction) stays exact until its noise (§17).
        score = score if isinstance(score, Fraction) else float(score)
    except Exception:
        raise RuntimeError(
            "A run of the search failed, after the search was charged. Its error "
            "is not shown (it may depend on the data, and on which run it was). "
            "A candidate that refuses a value (nonfinite='raise' and a NaN, say) "
            "fails the search: give candidates nonfinite='zero', or fit one "
            "candidate alone to see its error."
        ) from None
    return score if math.isfinite(score) else -math.inf


def _public_target(y, n_samples):
    """y's public facts, checked before the charge: one value per row, as a
    1-D array or a single column (raveled, as scikit-learn does); any other
    shape is refused, never broadcast against the predictions
    (docs/algorithms.rst §13.7)."""
    if y is None:
        return None
    if hasattr(y, "to_numpy"):  # a pandas Series or DataFrame
        y = y.to_numpy()
    if not is_dask_array(y):
        try:
            y = np.asarray(y)
        except (ValueError, TypeError):
            raise ValueError(
                "PrivateRandomSearch could not read y as an array of one value per row."
            ) from None
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.reshape(-1)
    if y.ndim != 1:
        raise ValueError(
            "PrivateRandomSearch needs y of shape (n_samples,) or (n_samples, 1); "
            f"got shape {y.shape}."
        )
    if num_samples(y) != n_samples:
        raise ValueError(f"X has {n_samples} rows but y has {num_samples(y)} values.")
    return y


def _check_private(model):
    """Every estimator in a candidate must be skprivcov's: another library's
    fit (a scaler, MinCovDet, any object with a ``fit``) reads the rows with
    no privacy and no charge, and its result would be published with the
    winner. Found among the deep parameters, and inside their lists."""
    parts = [model, *_estimators_among(model.get_params(deep=True).values())]
    for part in parts:
        if isinstance(part, Pipeline) or not callable(getattr(part, "fit", None)):
            continue
        if not type(part).__module__.startswith("skprivcov."):
            raise TypeError(
                f"{type(part).__name__} is not a skprivcov estimator: its fit would "
                "read the rows without privacy. Every step of a candidate must be "
                "a skprivcov estimator."
            )


def _check_scoring(scoring, model):
    """The score must suit the candidate (public: its class), or every run
    would fail after the charge."""
    final = model[-1] if isinstance(model, Pipeline) else model
    if scoring is None or isinstance(scoring, CovarianceErrorScore):
        if not isinstance(final, BasePrivateCovariance):
            raise TypeError(
                "The covariance score needs a covariance estimator; "
                f"{type(final).__name__} is not one. Give scoring="
                "PredictionLossScore(...) for a model that predicts."
            )
    elif isinstance(scoring, PredictionLossScore) and not hasattr(final, "predict"):
        raise TypeError(
            f"{type(final).__name__} has no predict: a PredictionLossScore cannot "
            "score it."
        )


def _seed_parameters(model):
    """The names of every ``random_state`` of ``model`` (its own, its steps')."""
    return sorted(
        name
        for name in model.get_params(deep=True)
        if name == "random_state" or name.endswith("__random_state")
    )


def _reseeded(model, random_state, rng):
    """``model`` with a seed of its own in every ``random_state``: fresh OS
    entropy (None) for real releases, or distinct seeds drawn from ``rng``.
    No two runs, and no two steps of one run, share noise."""
    names = _seed_parameters(model)
    if random_state is None:
        return model.set_params(**dict.fromkeys(names))
    seeds = rng.integers(SEED_LIMIT, size=len(names))
    return model.set_params(**{n: int(s) for n, s in zip(names, seeds, strict=True)})


def _composed(cost, score):
    """A run's release and its score, on the same rows (§14)."""
    if cost.notion == score.notion or cost.parameter == 0.0:
        return cost + score
    # Different notions add as curves: PrivacyCost's own composition of a
    # curve (a pure ε entering zCDP as ε²/2 would overcharge).
    return PrivacyCost.renyi(cost.rdp()).with_caveats(cost.caveats) + score


def _noisy_score(score, rng, sensitivity, cost):
    """The score plus Gaussian noise of deviation Δ/√(2ρ) for a ρ-zCDP score,
    Laplace of scale Δ/ε for a pure one (§2, §14); with hardened noise, the
    score on a grid plus exact discrete noise (§17), through the noise
    source. Δ is raised by a relative 1e−9: the score is computed in floating
    point, and may move by a few ulps more than its exact sensitivity
    (§13.6)."""
    sensitivity *= 1.0 + 1e-9
    if not isinstance(score, Fraction):
        score = float(score)
    return noisy_scalar(score, sensitivity, cost, rng, site="score")


def _largest(costs):
    """The largest cost when one dominates (a single notion), else the
    order-by-order largest curve."""
    if len({cost.notion for cost in costs}) == 1 and costs[0].notion != "renyi":
        return max(costs, key=lambda cost: cost.parameter)
    return PrivacyCost.renyi(np.max([cost.rdp() for cost in costs], axis=0))
