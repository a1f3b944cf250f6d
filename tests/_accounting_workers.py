"""Functions run in child processes by the accounting tests (spawn needs a
module), and the one writer of ledgers as earlier versions left them."""

import sqlite3
import time

import numpy as np

from skprivcov import (
    BudgetExceededError,
    GaussianCovariance,
    PrivacyAccountant,
    PrivacyCost,
)


def spend_repeatedly(path, rho, attempts, barrier, results):
    """Open the ledger by path, wait for every worker, then try to spend."""
    spend_cost_repeatedly(path, PrivacyCost.zcdp(rho), attempts, barrier, results)


def spend_cost_repeatedly(path, cost, attempts, barrier, results):
    """Like spend_repeatedly, for any PrivacyCost (a Rényi curve, say)."""
    accountant = PrivacyAccountant(path=path)
    barrier.wait()
    successes = 0
    for _ in range(attempts):
        try:
            accountant.spend(cost, source="worker")
            successes += 1
        except BudgetExceededError:
            pass
    results.put(successes)


def fit_repeatedly(path, rho, attempts, barrier, results):
    """Fit an estimator that spends from the shared ledger, as a user would."""
    accountant = PrivacyAccountant(path=path)
    X = np.random.default_rng(0).uniform(-0.3, 0.3, size=(50, 3))
    barrier.wait()
    successes = 0
    for _ in range(attempts):
        try:
            GaussianCovariance(rho=rho, accountant=accountant).fit(X)
            successes += 1
        except BudgetExceededError:
            pass
    results.put(successes)


def die_inside_a_transaction(path, ready_path):
    """Begin a spend, write far more than the page cache holds, and hang.

    With a cache of a few pages SQLite spills the uncommitted pages into the
    database file itself (the originals go to the rollback journal), so the kill
    leaves a half-written file behind, not just an unwritten cache.
    """
    accountant = PrivacyAccountant(path=path)
    connection = accountant._ledger._connect()
    connection.execute("PRAGMA cache_size=5")
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(
        "INSERT INTO spends (created_at, notion, parameter, source, details, "
        "process) VALUES ('now', 'zcdp', 0.5, 'doomed', ?, 0)",
        [("x" * 4000,)] * 300,
    )
    open(ready_path, "w").close()
    time.sleep(600)


def die_during_a_fit(path, ready_path):
    """Spend through a fit whose statistics never finish."""
    import skprivcov._fit._clipped_data as clipped_data

    def hang(*args, **kwargs):
        open(ready_path, "w").close()
        time.sleep(600)

    clipped_data.unit_ball_statistics = hang
    X = np.random.default_rng(0).uniform(-0.3, 0.3, size=(50, 3))
    GaussianCovariance(rho=0.25, accountant=PrivacyAccountant(path=path)).fit(X)


# --- forked copies of an in-memory accountant (test_threat_model.py) -----------

# Set by the test before forking: children inherit it without pickling.
INHERITED = {}


def fit_inherited(_=None):
    """Fit the estimator inherited from the parent; return what happened."""
    estimator, X = INHERITED["estimator"], INHERITED["X"]
    try:
        estimator.fit(X)
    except RuntimeError as error:
        return f"refused: {error}"
    return "spent"


def fit_inherited_to_queue(results):
    results.put(fit_inherited())


def release_of(estimator, X):
    """Fit a (pickled) copy in a worker process and return its release."""
    return estimator.fit(X).covariance_


# --- an in-memory accountant built inside a worker (test_free_oracles.py) --------


def build_in_memory_accountant(_=None):
    """What a worker gets when it builds its own in-memory accountant, e.g. by
    importing a module that defines one: the error's type, or None."""
    try:
        PrivacyAccountant(rho=1.0)
    except RuntimeError as error:
        return type(error).__name__ + ": " + str(error)
    return None


def build_in_memory_accountant_after_os_fork():
    """In a child made by os.fork (invisible to multiprocessing): the outcome
    of building an in-memory accountant, written to a pipe by the child."""
    import os

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        outcome = build_in_memory_accountant() or "built"
        os.write(write, outcome[:1000].encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as pipe:
        return pipe.read()


def write_old_ledger(path, spends_table, budget_json):
    """A ledger file as an earlier version wrote it: the ``spends_table``
    definition, the budget, and one zCDP spend of ρ = 0.5 by "old"."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    connection.execute(spends_table)
    connection.execute("INSERT INTO meta VALUES ('budget', ?)", (budget_json,))
    connection.execute(
        "INSERT INTO spends (created_at, notion, parameter, source, details, "
        "process) VALUES ('then', 'zcdp', 0.5, 'old', '{}', 1)"
    )
    connection.commit()
    connection.close()
