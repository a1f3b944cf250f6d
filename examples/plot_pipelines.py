"""
Pipelines and model selection
=============================

skprivcov's estimators are scikit-learn estimators, so they go into a
:class:`~sklearn.pipeline.Pipeline` and a
:class:`~sklearn.model_selection.GridSearchCV` like any other. What changes is
the bookkeeping: every fit of a mechanism spends privacy, and a search fits
many times. This example fits private ridge regressions on scikit-learn's
diabetes data in four ways, with one :class:`~skprivcov.PrivacyAccountant`
recording what each step spends, and shows which steps are free, which are
charged, and which are not private at all.

The rules (``docs/accounting.rst``, ``docs/ridge.rst``):

* every fit of a mechanism is charged, including each cross-validation fold
  and the final refit of a search;
* anything computed from a release alone is post-processing, and free;
* a score computed on raw validation rows reads those rows: whatever is chosen
  with it is not differentially private with respect to them, and no
  accountant can charge for that.
"""

# %%
# Data and public bounds
# ----------------------
# The raw diabetes features (age, sex, BMI, blood pressure and six blood serum
# measurements) get public bounds: plausible clinical ranges, chosen without
# looking at the data, and [0, 400] for the disease-progression target.
# :class:`~skprivcov.preprocessing.FeatureBoundsScaler` clips each feature into
# its bounds and maps it to [−1, 1]. It learns nothing from the data (its
# ``fit`` only records the number of features), so it costs no privacy, and
# every output row has norm at most √10, its ``row_norm_bound()``.
# :class:`~skprivcov.preprocessing.RowNormClipper` is the transformer to use
# instead when a bound on whole rows is known (for images with pixels in 0..16,
# for instance).
#
# Seeds are fixed so that this page is reproducible. Real releases use
# ``random_state=None`` (the default): inside a search in particular, a fixed
# seed gives every fold the same noise.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline

from skprivcov import BudgetExceededError, GaussianCovariance, PrivacyAccountant
from skprivcov.linear_model import PrivateRidge, PrivateRidgeCV
from skprivcov.preprocessing import FeatureBoundsScaler

LOWER = [18, 1, 15, 60, 90, 40, 20, 2, 3.0, 55]
UPPER = [80, 2, 45, 140, 320, 250, 100, 10, 6.5, 125]
Y_BOUND = (0.0, 400.0)
ALPHAS = [1e-3, 1e-2, 0.1, 1.0]  # per-row ridge penalties (docs/ridge.rst)
N_REPEATS = 20  # seeds for the comparison of test errors

X, y = load_diabetes(return_X_y=True, scaled=False)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.25, random_state=0
)
X_NORM_BOUND = FeatureBoundsScaler(lower=LOWER, upper=UPPER).row_norm_bound()


def scaler():
    return FeatureBoundsScaler(lower=LOWER, upper=UPPER)


def test_mse(model):
    """Test error, for this page only: the test rows are not part of a release."""
    return float(np.mean((model.predict(X_test) - y_test) ** 2))


# %%
# One budget for everything
# -------------------------
# The accountant holds a total budget of ρ = 2 (zCDP). Every estimator given
# ``accountant=`` asks it for its cost before reading any data, and clones
# (made by pipelines and searches) share it. This one keeps its ledger in
# memory; one with ``path=`` keeps it in an SQLite file, which worker
# processes can reopen. An in-memory accountant cannot be sent to worker
# processes, so the searches below run with ``n_jobs=None``.
accountant = PrivacyAccountant(rho=2.0)
steps = {}  # step -> (ρ charged, number of spends recorded)


def record(step, spent_before, spends_before):
    spent = accountant.spent.rho - spent_before
    spends = len(accountant.history()) - spends_before
    steps[step] = (spent, spends)
    print(
        f"{step}: charged ρ = {spent:.3g} in {spends} spend(s); accountant spent "
        f"{accountant.spent}, remaining ρ {accountant.remaining_rho():.3g}"
    )


def mark():
    return accountant.spent.rho, len(accountant.history())


# %%
# 1. A pipeline that makes one release
# ------------------------------------
# ``PrivateRidge`` without a release makes its own: it releases the second
# moment of the bounded rows ``[x, y, 1]`` with the given covariance estimator,
# then solves the ridge problem from that release (post-processing). alpha is
# fixed in advance, a public choice.
before = mark()
pipeline = make_pipeline(
    scaler(),
    PrivateRidge(
        alpha=0.1,
        estimator=GaussianCovariance(rho=0.5, accountant=accountant),
        X_norm_bound=X_NORM_BOUND,
        y_bound=Y_BOUND,
        random_state=0,
    ),
).fit(X_train, y_train)
record("1. PrivateRidge", *before)
release = pipeline[-1].release_
print(
    f"   release cost {release.privacy_spent}, fingerprint {release.fingerprint[:16]}…"
)

# %%
# 2. GridSearchCV over a model that holds the release
# ---------------------------------------------------
# ``PrivateRidge(covariance=release)`` fits from the release of step 1 without
# reading any value of X or y, and ``clone`` keeps the release, so a grid
# search over alpha refits nothing private: the accountant records nothing.
# **But the search is not private with respect to the training rows.** Its
# scores are computed on the raw validation folds, and the alpha it picks
# depends on those rows. Use this only with validation data that is public, or
# use step 3.
before = mark()
search = GridSearchCV(
    make_pipeline(scaler(), PrivateRidge(covariance=release)),
    {"privateridge__alpha": ALPHAS},
    scoring="neg_mean_squared_error",
    cv=3,
    error_score="raise",
).fit(X_train, y_train)
record("2. GridSearchCV on a release", *before)
print(f"   chosen alpha {search.best_params_['privateridge__alpha']:g} (not private)")
same = search.best_estimator_[-1].release_.fingerprint == release.fingerprint
print(f"   fit from the release of step 1: {same}")

# %%
# 3. PrivateRidgeCV: a private choice of alpha
# --------------------------------------------
# ``PrivateRidgeCV`` splits the rows into 3 disjoint folds, makes one release
# per fold, and scores every alpha on each held-out fold *from that fold's
# release*, never from its raw rows. A row lies in one fold only, so the whole
# search costs one release (parallel composition) and the accountant is
# charged once. The price is accuracy: each fold's release is of a third of
# the rows, so noisier.
before = mark()
private_search = make_pipeline(
    scaler(),
    PrivateRidgeCV(
        alphas=ALPHAS,
        estimator=GaussianCovariance(rho=0.5, accountant=accountant),
        X_norm_bound=X_NORM_BOUND,
        y_bound=Y_BOUND,
        random_state=0,
    ),
).fit(X_train, y_train)
record("3. PrivateRidgeCV", *before)
print(f"   chosen alpha {private_search[-1].alpha_:g} (private)")

# %%
# 4. GridSearchCV over a model that makes its own releases
# --------------------------------------------------------
# A search over ``PrivateRidge(estimator=...)`` makes a new release at every
# fit: 4 alphas × 3 folds, plus the refit of the best one, 13 releases. Each is
# charged at the estimator's ρ = 0.05. The accountant makes the cost visible;
# it does not make the choice private, since the scores still read the raw
# validation folds. ``error_score="raise"`` makes a search stop when the budget
# runs out, rather than go on with the candidates that happened to fit.
before = mark()
costly_search = GridSearchCV(
    make_pipeline(
        scaler(),
        PrivateRidge(
            estimator=GaussianCovariance(rho=0.05, accountant=accountant),
            X_norm_bound=X_NORM_BOUND,
            y_bound=Y_BOUND,
            random_state=0,
        ),
    ),
    {"privateridge__alpha": ALPHAS},
    scoring="neg_mean_squared_error",
    cv=3,
    error_score="raise",
).fit(X_train, y_train)
record("4. GridSearchCV, releases", *before)
print(
    f"   chosen alpha {costly_search.best_params_['privateridge__alpha']:g} "
    "(not private)"
)

# %%
# 5. The budget is the limit
# --------------------------
# A further release of ρ = 0.5 no longer fits in what is left. The accountant
# refuses it before any data value is read, and records nothing.
try:
    GaussianCovariance(rho=0.5, accountant=accountant).fit(X_train)
except BudgetExceededError as error:
    print(f"refused: {error}")
print(f"{len(accountant.history())} spends recorded, {accountant.spent} in total")

# %%
# The ledger
# ----------
# ``history()`` lists every spend with the estimator and its public parameters
# (never its seed, and nothing derived from the data). Totals by source:
sources = {}
for entry in accountant.history():
    count, total = sources.get(entry.source, (0, 0.0))
    sources[entry.source] = (count + 1, total + entry.parameter)
for source, (count, total) in sources.items():
    print(f"{source:>20}: {count} spend(s), ρ {total:.3g}")

# %%
# One draw is not a comparison
# ----------------------------
# Each model above comes from one draw of the noise. To compare the four
# procedures, this page repeats them with other seeds and takes the median test
# error. These repetitions are a simulation for the page, outside the
# accountant: on real data each of them would spend its budget again.


def procedures(seed):
    """The four procedures above, without an accountant; their test errors."""
    bounds = {"X_norm_bound": X_NORM_BOUND, "y_bound": Y_BOUND, "random_state": seed}
    grid = {"privateridge__alpha": ALPHAS}
    search = {"scoring": "neg_mean_squared_error", "cv": 3, "error_score": "raise"}
    one = make_pipeline(
        scaler(),
        PrivateRidge(alpha=0.1, estimator=GaussianCovariance(rho=0.5), **bounds),
    ).fit(X_train, y_train)
    free = GridSearchCV(
        make_pipeline(scaler(), PrivateRidge(covariance=one[-1].release_)),
        grid,
        **search,
    ).fit(X_train, y_train)
    private = make_pipeline(
        scaler(),
        PrivateRidgeCV(alphas=ALPHAS, estimator=GaussianCovariance(rho=0.5), **bounds),
    ).fit(X_train, y_train)
    costly = GridSearchCV(
        make_pipeline(
            scaler(), PrivateRidge(estimator=GaussianCovariance(rho=0.05), **bounds)
        ),
        grid,
        **search,
    ).fit(X_train, y_train)
    return [test_mse(model) for model in (one, free, private, costly)]


repeated = np.array([procedures(seed) for seed in range(N_REPEATS)])
medians = np.median(repeated, axis=0)
non_private = make_pipeline(scaler(), RidgeCV(alphas=np.logspace(-3, 3, 13)))
reference = test_mse(non_private.fit(X_train, y_train))
mean_only = float(np.mean((y_train.mean() - y_test) ** 2))
print(f"median test MSE over {N_REPEATS} seeds (seed 0 is the run above):")
for name, median in zip(steps, medians, strict=True):
    print(f"{name:>30}: {median:.0f}")
print(f"non-private RidgeCV test MSE {reference:.0f}; training mean {mean_only:.0f}")

# %%
# Plot
# ----
# Hatched bars: the procedures whose choice of alpha read raw validation rows,
# and so is not private.
labels = [
    "1. PrivateRidge",
    "2. search on\nthe release",
    "3. PrivateRidgeCV",
    "4. search,\n13 releases",
]
charged = [steps[name][0] for name in steps]
spends = [steps[name][1] for name in steps]
colours = ["C0", "C1", "C2", "C3"]
hatches = ["", "//", "", "//"]
fig, (ax_budget, ax_error) = plt.subplots(1, 2, figsize=(12.5, 4.4))
for ax, heights, texts in [
    (ax_budget, charged, [f"{n} spend(s)" for n in spends]),
    (ax_error, medians, [f"{m:.0f}" for m in medians]),
]:
    bars = ax.bar(labels, heights, color=colours, hatch=hatches, edgecolor="white")
    ax.bar_label(bars, labels=texts, padding=2)
ax_budget.axhline(2.0, color="k", linestyle="--", label="total budget ρ = 2")
ax_budget.set_ylabel("ρ charged to the accountant")
ax_budget.set_ylim(0, 2.3)
ax_budget.set_title("Budget charged per procedure")
ax_budget.legend(loc="upper right")
ax_error.axhline(reference, color="k", linestyle="--", label="non-private RidgeCV")
ax_error.axhline(mean_only, color="grey", linestyle=":", label="training mean")
ax_error.set_ylim(0, 6800)
ax_error.set_ylabel(f"test MSE (median of {N_REPEATS} seeds)")
ax_error.set_title("Test error of the model each procedure returns")
ax_error.legend(loc="upper left", ncols=2)
fig.tight_layout()
plt.show()

# %%
# Summary
# -------
# The accountant saw exactly what the rules say. The pipeline of step 1 was
# charged once, for its one release; the grid search over that release
# (step 2) was charged nothing; PrivateRidgeCV (step 3) was charged once for
# three fold releases; and the grid search of step 4 was charged for all 13 of
# its releases, more than either (ρ = 0.65 against 0.5).
# The ledger's totals by source add up to the 1.65 spent, and the next release
# was refused before it read the data.
#
# The test errors (medians over the seeds) rank the procedures:
#
# * Step 1 is the most accurate (step 2 ties it), for one release, because
#   alpha = 0.1 is a good value for these data (see
#   :ref:`sphx_glr_auto_examples_plot_private_ridge.py`)
#   and it was fixed in advance. A value known beforehand, for example from
#   public data of the same kind, is the cheapest way to choose alpha.
# * Step 2 does about as well as step 1 and costs nothing more, but it is
#   **not** differentially private: its alpha was chosen by scores on the raw
#   training rows.
# * Step 3, PrivateRidgeCV, is the private way to choose alpha without prior
#   knowledge. Here it pays for that with a higher error than a good fixed
#   alpha: its folds are released from a third of the rows each, so its scores
#   and its pooled release are noisier.
# * Step 4 has the worst of everything: it spent the most budget, split into 13
#   releases at ρ = 0.05 that are each much noisier than one release at
#   ρ = 0.5, so its model is the least accurate; and its choice of alpha is
#   not private either.
#
# With a search over private estimators, give the searches
# ``error_score="raise"`` so that a refused fit stops the search, and give the
# accountant a ``path`` to run the search in worker processes (``n_jobs``).
