"""When does private tuning pay? The default release against a private search.

Issue 37, part 3. At an equal total budget ε_total (at δ = 1e-6), on
scikit-learn's bundled datasets as a user has them (no public bounds, no
scaling; diabetes with ``scaled=False``), two ways to spend it:

* **default**: the library's default estimator with its default, bound-free
  parameters, fit once on the training rows with the whole budget:
  ``PrivateRidge(estimator=GaussianCovariance(epsilon=ε_total, delta=1e-6))``
  for diabetes, ``PrivateLinearDiscriminantAnalysis(epsilon=ε_total,
  delta=1e-6)`` for wine, breast cancer and digits;
* **search**: ``PrivateRandomSearch`` over
  ``default_search_space(estimator)`` (skprivcov/model_selection/_spaces.py)
  with the library's defaults (η = 1, γ = 1/(30m), 30% of the training rows
  held out for a clipped loss), every candidate at the same ρ, chosen by
  bisection so that the search's own stated cost,
  ``search.cost().to_approx_dp(1e-6)``, is ε_total (at most, within 1e-4
  relative). The accounting is the library's: this script never computes a
  cost itself.

Test error on a held-out 30% (stratified for the classifiers), mean ± standard
error over repetitions (split, default and search seeded by the repetition):
mean squared error for diabetes, misclassification rate for the classifiers.
Alongside: "nothing", the training mean (or majority class), i.e. releasing
nothing; and the non-private model (``RidgeCV`` over a wide grid;
``LinearDiscriminantAnalysis``). A cell is marked ``*`` when the search beats
the default by at least 5% (ratio of mean errors ≤ 0.95) and by more than two
standard errors of the paired difference. "Best candidate, hindsight": each
candidate of the space fit once on all the training rows at the search's
per-candidate budget, the lowest mean test error among them (not a private
choice): the gap from the default is the price of splitting the budget, the
gap to the search that of choosing privately on a held-out share.

The ridge search scores squared errors clipped at 200² (half of diabetes's
public clinical range (0, 400), the one public number the search needs and the
default does not); the classifiers' score is the 0–1 loss.

    python benchmarks/bench_tuning_table.py [--repeats 20] [--n-jobs 2]
        [--epsilons 0.5 1 2 4 8 16] [--datasets diabetes wine ...]
        [--rst docs/_tuning_table.rst]
"""

import argparse
import math
import os
import sys
import time
import warnings
from collections import Counter
from functools import cache

import numpy as np
from joblib import Parallel, delayed
from sklearn import datasets
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import ParameterGrid, train_test_split

from skprivcov import GaussianCovariance
from skprivcov.discriminant_analysis import PrivateLinearDiscriminantAnalysis
from skprivcov.linear_model import PrivateRidge
from skprivcov.model_selection import (
    PredictionLossScore,
    PrivateRandomSearch,
    planned_charges,
)
from skprivcov.model_selection._spaces import default_search_space

DELTA = 1e-6
TEST_FRACTION = 0.3
EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
# Squared errors clipped at the square of half the public range (0, 400).
DIABETES_CLIP = 200.0**2


def _raw_diabetes():
    return datasets.load_diabetes(return_X_y=True, scaled=False)


def _raw(loader):
    return lambda: loader(return_X_y=True)


class Regression:
    """Raw diabetes, ``PrivateRidge``."""

    classifier = False
    loss = "MSE"

    @staticmethod
    def default(epsilon, seed):
        return PrivateRidge(
            estimator=GaussianCovariance(epsilon=epsilon, delta=DELTA),
            random_state=seed,
        )

    @staticmethod
    def candidate(rho, labels=None):
        del labels  # a regressor
        return PrivateRidge(estimator=GaussianCovariance(rho=rho))

    scoring = PredictionLossScore(loss="squared", clip=DIABETES_CLIP)

    @staticmethod
    def error(model, X, y):
        return float(np.mean((model.predict(X) - y) ** 2))

    @staticmethod
    def nothing(y_train, X_test, y_test):
        return float(np.mean((y_test - y_train.mean()) ** 2))

    @staticmethod
    def non_private(X_train, y_train, X_test, y_test):
        model = RidgeCV(alphas=np.logspace(-6, 6, 25)).fit(X_train, y_train)
        return float(np.mean((model.predict(X_test) - y_test) ** 2))


class Classification:
    """Raw features, ``PrivateLinearDiscriminantAnalysis``."""

    classifier = True
    loss = "misclassification"

    @staticmethod
    def default(epsilon, seed):
        return PrivateLinearDiscriminantAnalysis(
            epsilon=epsilon, delta=DELTA, random_state=seed
        )

    @staticmethod
    def candidate(rho, labels=(0, 1)):
        # A private selection needs exact candidates: the label set public
        # (docs/algorithms.rst §25; the default above releases its own). The
        # cost does not depend on which labels: two stand in for pricing.
        return PrivateLinearDiscriminantAnalysis(
            classes=labels, rho=rho, nonfinite="zero"
        )

    scoring = PredictionLossScore(loss="zero_one")

    @staticmethod
    def error(model, X, y):
        return float(np.mean(model.predict(X) != y))

    @staticmethod
    def nothing(y_train, X_test, y_test):
        values, counts = np.unique(y_train, return_counts=True)
        return float(np.mean(y_test != values[np.argmax(counts)]))

    @staticmethod
    def non_private(X_train, y_train, X_test, y_test):
        model = LinearDiscriminantAnalysis().fit(X_train, y_train)
        return float(np.mean(model.predict(X_test) != y_test))


DATASETS = {
    "diabetes": (_raw_diabetes, Regression),
    "wine": (_raw(datasets.load_wine), Classification),
    "breast cancer": (_raw(datasets.load_breast_cancer), Classification),
    "digits": (_raw(datasets.load_digits), Classification),
}


def make_search(task, rho, seed=None, labels=None):
    """The search whose every candidate spends ρ (a classifier's candidates
    given the public label set ``labels``)."""
    estimator = (
        task.candidate(rho, labels) if labels is not None else task.candidate(rho)
    )
    return PrivateRandomSearch(
        estimator,
        default_search_space(estimator),
        scoring=task.scoring,
        random_state=seed,
    )


@cache
def stated_epsilon(task, rho):
    """The search's own stated cost, as ε at δ = 1e-6 (the library's accounting)."""
    return make_search(task, rho).cost().to_approx_dp(DELTA)


@cache
def candidate_rho(task, epsilon, *, rtol=1e-4):
    """The largest ρ per candidate whose search costs at most ε_total, by
    bisection on log ρ through ``PrivateRandomSearch.cost()`` (the same for
    the datasets of one task: their searches have the same candidates)."""
    low, high = 1e-10, 1e4
    if stated_epsilon(task, low) > epsilon or stated_epsilon(task, high) <= epsilon:
        raise RuntimeError(f"ε = {epsilon} is outside the bisection's bracket.")
    while high / low > 1.0 + rtol:
        middle = math.sqrt(low * high)
        if stated_epsilon(task, middle) > epsilon:
            high = middle
        else:
            low = middle
    return low


def split(name, rep):
    load, task = DATASETS[name]
    X, y = load()
    return train_test_split(
        X,
        y,
        test_size=TEST_FRACTION,
        random_state=1000 + rep,
        stratify=y if task.classifier else None,
    )


def _label(setting):
    return ", ".join(f"{key}={value}" for key, value in sorted(setting.items()))


def one_repetition(name, epsilon, rho, rep):
    """Test errors of the default, the search, nothing and the non-private
    model on repetition ``rep``'s split, and the search's pick."""
    _, task = DATASETS[name]
    X_train, X_test, y_train, y_test = split(name, rep)
    y = np.concatenate([y_train, y_test])  # the dataset's labels, public
    seed = 7919 * rep + round(100 * epsilon)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = task.default(epsilon, seed).fit(X_train, y_train)
        labels = np.unique(y) if task.classifier else None
        search = make_search(task, rho, seed=seed, labels=labels)
        search.fit(X_train, y_train)
        # Each candidate fit once on all the training rows at the search's
        # per-candidate budget: the best of them, in hindsight, is what the
        # search could reach without its selection's noise and held-out share.
        candidate = task.candidate(rho, labels)
        each = {}
        for setting in ParameterGrid(default_search_space(candidate)):
            model = clone(candidate).set_params(**setting, random_state=seed)
            label = _label(setting)
            each[label] = task.error(model.fit(X_train, y_train), X_test, y_test)
    spent = search.privacy_spent_.to_approx_dp(DELTA)
    return {
        "default": task.error(default, X_test, y_test),
        "search": task.error(search, X_test, y_test),
        "nothing": task.nothing(y_train, X_test, y_test),
        "non-private": task.non_private(X_train, y_train, X_test, y_test),
        "pick": _label(search.best_params_),
        "each": each,
        "spent": spent,
        "seconds": time.perf_counter() - started,
    }


def summarise(runs):
    """Means, standard errors, the ratio and the mark of one cell."""
    cell = {}
    for key in ("default", "search", "nothing", "non-private"):
        values = np.array([run[key] for run in runs])
        cell[key] = (values.mean(), values.std(ddof=1) / math.sqrt(len(values)))
    difference = np.array([run["default"] - run["search"] for run in runs])
    se = difference.std(ddof=1) / math.sqrt(len(difference))
    cell["ratio"] = cell["search"][0] / cell["default"][0]
    cell["wins"] = bool(cell["ratio"] <= 0.95 and difference.mean() > 2 * se)
    cell["loses"] = bool(cell["ratio"] >= 1.05 and -difference.mean() > 2 * se)
    cell["difference se"] = se
    each = {
        label: np.mean([run["each"][label] for run in runs])
        for label in runs[0]["each"]
    }
    best = min(each, key=each.get)
    cell["hindsight"] = (best, each[best])
    cell["picks"] = Counter(run["pick"] for run in runs).most_common(2)
    cell["spent"] = max(run["spent"] for run in runs)
    cell["seconds"] = sum(run["seconds"] for run in runs)
    return cell


def _pm(mean_se, classifier):
    mean, se = mean_se
    if classifier:
        return f"{mean:.3f} ± {se:.3f}"
    return f"{mean:.0f} ± {se:.0f}"


def _short(hindsight, classifier):
    """The best candidate in hindsight, briefly: its error and setting."""
    label, error = hindsight
    label = label.replace("boosting_rounds=", "boosting ").replace("norm_bound=", "B=")
    label = label.replace("covariance=", "")
    return f"{error:.3f} ({label})" if classifier else f"{error:.0f} ({label})"


def rst_table(rows):
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "",
        "   * - dataset (error)",
        "     - ε total",
        "     - default",
        "     - search",
        "     - search / default",
        "     - nothing",
        "     - non-private",
        "     - best candidate, hindsight",
    ]
    for name, epsilon, cell in rows:
        classifier = DATASETS[name][1].classifier
        mark = " \\*" if cell["wins"] else ""
        lines += [
            f"   * - {name} ({DATASETS[name][1].loss})",
            f"     - {epsilon:g}",
            f"     - {_pm(cell['default'], classifier)}",
            f"     - {_pm(cell['search'], classifier)}",
            f"     - {cell['ratio']:.2f}{mark}",
            f"     - {_pm(cell['nothing'], classifier)}",
            f"     - {_pm(cell['non-private'], classifier)}",
            f"     - {_short(cell['hindsight'], classifier)}",
        ]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument(
        "--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS)
    )
    parser.add_argument("--rst", default=None, help="write the RST list-table here")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    start = time.perf_counter()

    budgets = {}
    print("ρ per candidate, from PrivateRandomSearch.cost() (ε at δ = 1e-6):")
    for name in args.datasets:
        task = DATASETS[name][1]
        for epsilon in args.epsilons:
            rho = candidate_rho(task, epsilon)
            budgets[name, epsilon] = rho
            (_, default_cost), *_ = planned_charges(task.default(epsilon, 0))
            print(
                f"  {name:14s} ε_total={epsilon:<5g} ρ/candidate={rho:.4g} "
                f"(stated ε {stated_epsilon(task, rho):.4f}); default: {default_cost}"
            )
    print(f"  [{time.perf_counter() - start:.0f} s]", flush=True)

    # The slowest cells first (ridge at large budgets), so the pool stays busy.
    jobs = sorted(
        budgets,
        key=lambda key: (key[0] != "diabetes", key[0] != "digits", -key[1]),
    )
    tasks = [
        (name, epsilon, budgets[name, epsilon], rep)
        for name, epsilon in jobs
        for rep in range(args.repeats)
    ]
    results = Parallel(n_jobs=args.n_jobs, verbose=0)(
        delayed(one_repetition)(*task) for task in tasks
    )
    by_cell = {}
    for task, result in zip(tasks, results, strict=True):
        by_cell.setdefault(task[:2], []).append(result)

    rows = []
    header = (
        f"{'dataset':14s} {'ε':>5s} {'ρ/cand':>8s}  {'default':>14s} "
        f"{'search':>14s} {'ratio':>7s} {'nothing':>14s} {'non-private':>14s}"
    )
    print(header)
    for name in args.datasets:
        classifier = DATASETS[name][1].classifier
        for epsilon in args.epsilons:
            cell = summarise(by_cell[name, epsilon])
            rows.append((name, epsilon, cell))
            mark = " *" if cell["wins"] else (" -" if cell["loses"] else "  ")
            print(
                f"{name:14s} {epsilon:5g} {budgets[name, epsilon]:8.4f}  "
                f"{_pm(cell['default'], classifier):>14s} "
                f"{_pm(cell['search'], classifier):>14s} "
                f"{cell['ratio']:6.2f}{mark} "
                f"{_pm(cell['nothing'], classifier):>14s} "
                f"{_pm(cell['non-private'], classifier):>14s}"
            )
            picks = "; ".join(f"{pick} ({count})" for pick, count in cell["picks"])
            hindsight, error = cell["hindsight"]
            print(
                f"{'':22s}search spent ε ≤ {cell['spent']:.4f}; "
                f"{cell['seconds']:.0f} s; picks: {picks}\n"
                f"{'':22s}best candidate in hindsight at ρ/candidate on all "
                f"training rows: {hindsight} ({error:.4g})"
            )
    print(
        "* search/default ≤ 0.95 and the paired difference beyond 2 SE; "
        "- search/default ≥ 1.05 beyond 2 SE."
    )
    table = rst_table(rows)
    print()
    print(table)
    if args.rst:
        with open(args.rst, "w") as handle:
            handle.write(table)
    elapsed = time.perf_counter() - start
    print(
        f"{args.repeats} repetitions, {len(tasks)} fits of each, n_jobs="
        f"{args.n_jobs}, {os.cpu_count()} CPUs: {elapsed:.0f} s; "
        f"command: python {' '.join(sys.argv)}"
    )


if __name__ == "__main__":
    main()
