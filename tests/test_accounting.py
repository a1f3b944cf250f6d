"""The accountant: composition, refusal before data, clones and processes."""

import copy
import math
import multiprocessing
import os
import pickle
import signal
import sqlite3
import time
from fractions import Fraction

import _accounting_workers as workers
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from skprivcov import (
    BudgetExceededError,
    GaussianCovariance,
    LaplaceCovariance,
    PrivacyAccountant,
    PrivacyCost,
    UnsupportedPrivacyNotionError,
    ZeroCovariance,
)
from skprivcov.privacy import cks_epsilon

SPAWN = multiprocessing.get_context("spawn")
X = np.random.default_rng(0).uniform(-0.3, 0.3, size=(60, 3))


@pytest.fixture
def ledger(tmp_path):
    return tmp_path / "ledger.sqlite"


def test_zcdp_budget_adds_rho_and_counts_pure_as_half_epsilon_squared():
    accountant = PrivacyAccountant(rho=1.0)
    accountant.spend(PrivacyCost.zcdp(0.25))
    accountant.spend(PrivacyCost.pure(1.0))  # ε²/2 = 0.5
    assert accountant.spent == PrivacyCost.zcdp(0.75)
    assert accountant.remaining_rho() == pytest.approx(0.25, abs=1e-12)
    assert accountant.remaining_epsilon() == pytest.approx(np.sqrt(0.5), abs=1e-12)
    with pytest.raises(BudgetExceededError, match=r"remaining: ρ 0\.25"):
        accountant.spend(PrivacyCost.zcdp(0.26))
    accountant.spend(PrivacyCost.zcdp(0.25))  # exactly the rest
    assert accountant.remaining_rho() == 0.0
    assert len(accountant.history()) == 3


def test_pure_budget_adds_epsilon_and_refuses_zcdp():
    accountant = PrivacyAccountant(epsilon=1.0)
    accountant.spend(PrivacyCost.pure(0.375))
    accountant.spend(PrivacyCost.pure(0.625))
    assert accountant.spent == PrivacyCost.pure(1.0)
    with pytest.raises(BudgetExceededError):
        accountant.spend(PrivacyCost.pure(1e-9))
    with pytest.raises(UnsupportedPrivacyNotionError, match="pure ε-DP spends only"):
        PrivacyAccountant(epsilon=5.0).spend(PrivacyCost.zcdp(0.01))


def test_approximate_budget_takes_the_better_valid_route():
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-6)
    # A pure ε = 1 spend is (1, 0)-DP: admitted, though ε²/2 = 0.5-zCDP would
    # convert to ε ≈ 5.7 at δ = 1e-6.
    accountant.spend(PrivacyCost.pure(1.0))
    assert accountant.spent_epsilon(1e-6) == 1.0
    # Only a ρ so small that it is (0, δ)-DP on its own still fits.
    assert accountant.remaining_rho() < 1e-9
    many_small = PrivacyAccountant(epsilon=3.0, delta=1e-6)
    for _ in range(100):  # Σε = 10, but through zCDP: ρ = 0.5, ε ≈ 4.7 > 3
        if not many_small.can_spend(PrivacyCost.pure(0.1)):
            break
        many_small.spend(PrivacyCost.pure(0.1))
    spent = len(many_small.history())
    assert spent > 30  # basic composition alone would stop at 30
    rho = spent * 0.005
    assert cks_epsilon(rho, 1e-6) <= 3.0 < cks_epsilon(rho + 0.005, 1e-6)


def test_a_refused_fit_computes_nothing_and_records_nothing():
    accountant = PrivacyAccountant(rho=0.3)
    est = GaussianCovariance(rho=0.2, accountant=accountant, random_state=0).fit(X)
    release = est.covariance_.copy()
    with pytest.raises(BudgetExceededError, match="GaussianCovariance would spend"):
        est.set_params(random_state=1).fit(X)
    np.testing.assert_array_equal(est.covariance_, release)
    assert len(accountant.history()) == 1
    assert accountant.spent == PrivacyCost.zcdp(0.2)


def test_public_problems_spend_nothing_and_value_problems_are_charged():
    """docs/algorithms.rst §13.2: a refusal from public facts is free; one that
    depends on the values comes after the charge, so it is paid for."""
    accountant = PrivacyAccountant(rho=1.0)
    with pytest.raises(ValueError, match="not both"):
        GaussianCovariance(rho=0.1, epsilon=1.0, accountant=accountant).fit(X)
    with pytest.raises(ValueError, match="1 sample"):
        GaussianCovariance(accountant=accountant).fit(X[:1])
    assert accountant.history() == []
    with pytest.raises(ValueError, match="NaN"):
        GaussianCovariance(rho=0.25, accountant=accountant).fit(np.full((5, 2), np.nan))
    assert [record.parameter for record in accountant.history()] == [0.25]


def test_history_names_the_estimator_and_its_public_parameters():
    accountant = PrivacyAccountant(epsilon=2.0)
    LaplaceCovariance(
        epsilon=0.5, norm_bound=3.0, accountant=accountant, random_state=7
    ).fit(X)
    ZeroCovariance(accountant=accountant).fit(X)
    first, second = accountant.history()
    assert (first.notion, first.parameter, first.source) == (
        "pure",
        0.5,
        "LaplaceCovariance",
    )
    assert first.details["norm_bound"] == 3.0 and "accountant" not in first.details
    # The seed would let a reader of the history regenerate the noise: only
    # the fact that one was fixed is recorded.
    assert first.details["random_state"] == "fixed seed"
    assert 7 not in first.details.values()
    assert (second.source, second.parameter) == ("ZeroCovariance", 0.0)
    assert first.process == os.getpid()


def test_a_relative_ledger_path_is_made_absolute(tmp_path, monkeypatch):
    """Workers started in another directory must open the same file."""
    monkeypatch.chdir(tmp_path)
    accountant = PrivacyAccountant(rho=1.0, path="budget.sqlite")
    assert accountant.path == str(tmp_path / "budget.sqlite")
    monkeypatch.chdir(tmp_path.parent)
    assert pickle.loads(pickle.dumps(accountant)).budget == "1-zCDP"


def test_clones_share_the_accountant():
    accountant = PrivacyAccountant(rho=0.5)
    est = GaussianCovariance(rho=0.2, accountant=accountant)
    twin = clone(est)
    assert twin.accountant is accountant
    assert copy.deepcopy(accountant) is accountant
    est.fit(X)
    twin.fit(X)
    with pytest.raises(BudgetExceededError):
        clone(est).fit(X)
    assert accountant.spent == PrivacyCost.zcdp(0.4)


def test_in_memory_accountant_refuses_to_cross_processes():
    with pytest.raises(TypeError, match="Give it a path"):
        pickle.dumps(PrivacyAccountant(rho=1.0))


def test_pickled_accountant_reopens_the_same_ledger(ledger):
    accountant = PrivacyAccountant(rho=1.0, path=ledger)
    accountant.spend(PrivacyCost.zcdp(0.125))
    again = pickle.loads(pickle.dumps(accountant))
    assert again is not accountant and again.path == accountant.path
    again.spend(PrivacyCost.zcdp(0.125))
    assert accountant.spent == PrivacyCost.zcdp(0.25)
    est = pickle.loads(pickle.dumps(GaussianCovariance(accountant=accountant)))
    assert est.accountant.path == accountant.path


def test_ledger_file_keeps_its_budget(ledger):
    PrivacyAccountant(epsilon=1.0, delta=1e-6, path=ledger)
    assert PrivacyAccountant(path=ledger).budget == "(1, 1e-06)-DP"
    with pytest.raises(ValueError, match="holds the budget"):
        PrivacyAccountant(rho=2.0, path=ledger)
    with pytest.raises(ValueError, match="needs a budget"):
        PrivacyAccountant(path=ledger.with_name("new.sqlite"))
    with pytest.raises(ValueError, match="not both"):
        PrivacyAccountant(rho=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match="finite number > 0"):
        PrivacyAccountant(rho=-1.0)


def _run_concurrently(target, ledger, rho, attempts, n_processes=8):
    barrier = SPAWN.Barrier(n_processes)
    results = SPAWN.Queue()
    processes = [
        SPAWN.Process(
            target=target, args=(str(ledger), rho, attempts, barrier, results)
        )
        for _ in range(n_processes)
    ]
    for process in processes:
        process.start()
    successes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    return sum(successes)


@pytest.mark.slow
def test_eight_processes_never_overspend(ledger):
    # ρ = 1/64 per spend and a total of 10/64: exactly ten spends fit.
    accountant = PrivacyAccountant(rho=10 / 64, path=ledger)
    successes = _run_concurrently(workers.spend_repeatedly, ledger, 1 / 64, 5)
    assert successes == 10
    assert len(accountant.history()) == 10
    assert accountant.spent == PrivacyCost.zcdp(10 / 64)


@pytest.mark.slow
def test_eight_processes_fitting_record_exactly_the_successful_fits(ledger):
    accountant = PrivacyAccountant(rho=0.25, path=ledger)
    successes = _run_concurrently(workers.fit_repeatedly, ledger, 1 / 32, 3)
    assert successes == 8
    history = accountant.history()
    assert len(history) == 8
    assert {record.source for record in history} == {"GaussianCovariance"}
    assert len({record.process for record in history}) >= 2


def _kill_when_ready(target, ledger, tmp_path):
    ready = tmp_path / "ready"
    process = SPAWN.Process(target=target, args=(str(ledger), str(ready)))
    process.start()
    deadline = time.monotonic() + 120
    while not ready.exists():
        assert time.monotonic() < deadline and process.is_alive()
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.join(timeout=30)
    assert process.exitcode == -signal.SIGKILL


@pytest.mark.slow
def test_a_process_killed_mid_transaction_leaves_the_ledger_consistent(
    ledger, tmp_path
):
    accountant = PrivacyAccountant(rho=1.0, path=ledger)
    accountant.spend(PrivacyCost.zcdp(0.25))
    size_before = ledger.stat().st_size
    _kill_when_ready(workers.die_inside_a_transaction, ledger, tmp_path)
    # The dead process left uncommitted pages in the file and a hot journal.
    assert ledger.stat().st_size > size_before + 100_000
    assert (tmp_path / "ledger.sqlite-journal").exists()
    check = sqlite3.connect(ledger).execute("PRAGMA integrity_check").fetchone()
    assert check == ("ok",)
    reopened = PrivacyAccountant(path=ledger)
    assert [r.parameter for r in reopened.history()] == [0.25]  # doomed one gone
    reopened.spend(PrivacyCost.zcdp(0.75))  # the lock died with the process
    assert reopened.spent == PrivacyCost.zcdp(1.0)


@pytest.mark.slow
def test_a_process_killed_mid_fit_has_spent_its_budget(ledger, tmp_path):
    accountant = PrivacyAccountant(rho=1.0, path=ledger)
    _kill_when_ready(workers.die_during_a_fit, ledger, tmp_path)
    history = accountant.history()
    assert [(r.source, r.parameter) for r in history] == [("GaussianCovariance", 0.25)]


@pytest.mark.slow
def test_grid_search_in_two_worker_processes_records_every_fit(ledger):
    accountant = PrivacyAccountant(rho=10.0, path=ledger)
    search = GridSearchCV(
        GaussianCovariance(norm_bound=1.0, accountant=accountant, random_state=0),
        {"rho": [0.5, 1.0]},
        cv=3,
        n_jobs=2,
    )
    search.fit(X)
    history = accountant.history()
    # 2 candidates × 3 folds, plus the refit on all of X with the best rho.
    assert len(history) == 7
    assert len({r.process for r in history[:-1]} - {os.getpid()}) >= 1
    expected = 3 * (0.5 + 1.0) + search.best_params_["rho"]
    assert accountant.spent.rho == pytest.approx(expected, rel=1e-15)


# loky's executor thread also reports the pickling error it re-raises here.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_grid_search_with_an_in_memory_accountant_fails_loudly():
    search = GridSearchCV(
        GaussianCovariance(accountant=PrivacyAccountant(rho=10.0)),
        {"rho": [0.5, 1.0]},
        cv=2,
        n_jobs=2,
    )
    with pytest.raises(Exception) as raised:  # joblib wraps the pickling error
        search.fit(X)
    error, messages = raised.value, []
    while error is not None:
        messages.append(str(error))
        error = error.__cause__ or error.__context__
    assert any("Give it a path" in message for message in messages)


def test_a_budget_admits_what_a_person_typed(ledger):
    """cdb4175 added the binary floats exactly: ρ = 0.25 admitted only 24 spends
    of ρ = 0.01 (25 × float(0.01) > 0.25), said "remaining: ρ 0.01" when it
    refused the 25th, and a reopened ledger printed 0.09999999999999996. The
    amounts now count as the decimals they print as."""
    accountant = PrivacyAccountant(rho=0.25, path=ledger)
    for _ in range(25):
        accountant.spend(PrivacyCost.zcdp(0.01))
    with pytest.raises(BudgetExceededError, match=r"remaining: ρ 0 or pure ε 0\."):
        accountant.spend(PrivacyCost.zcdp(0.01))
    assert str(accountant.spent) == "0.25-zCDP"
    assert accountant.remaining_rho() == 0.0
    # The floats the noise was calibrated with overspend by at most 2^−52.
    binary = sum(Fraction(record.parameter) for record in accountant.history())
    assert binary <= Fraction(0.25) * (1 + Fraction(1, 2**52))

    tenth = PrivacyAccountant(rho=1.0, path=ledger.with_name("tenth.sqlite"))
    for _ in range(10):
        tenth.spend(PrivacyCost.zcdp(0.01))
    assert repr(PrivacyAccountant(path=tenth.path).spent.rho) == "0.1"
    tenth.spend(PrivacyCost.zcdp(0.2))
    assert tenth.remaining_rho() == 0.7  # and spending it exactly is admitted
    tenth.spend(PrivacyCost.zcdp(tenth.remaining_rho()))
    assert not tenth.can_spend(PrivacyCost.zcdp(1e-12))


def test_remaining_epsilon_under_a_rho_budget_is_admitted_as_printed():
    accountant = PrivacyAccountant(rho=0.5)
    accountant.spend(PrivacyCost.zcdp(0.3))
    epsilon = accountant.remaining_epsilon()  # ε²/2 ≤ 0.2
    assert epsilon == pytest.approx(math.sqrt(0.4), rel=1e-15)
    accountant.spend(PrivacyCost.pure(epsilon))
    assert not accountant.can_spend(PrivacyCost.pure(1e-6))


def test_an_old_ledger_without_caveats_is_upgraded(ledger):
    workers.write_old_ledger(
        ledger,
        "CREATE TABLE spends (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT "
        "NOT NULL, notion TEXT NOT NULL, parameter REAL NOT NULL, source TEXT NOT "
        "NULL, details TEXT NOT NULL, process INTEGER NOT NULL)",
        '{"kind": "zcdp", "rho": 1.0, "epsilon": null, "delta": null}',
    )
    accountant = PrivacyAccountant(path=ledger)
    assert accountant.history()[0].caveats == ()
    accountant.spend(PrivacyCost.pure(0.5).with_caveats(["mcmc-noise"]))
    assert accountant.spent == PrivacyCost.zcdp(0.625).with_caveats(["mcmc-noise"])


@pytest.mark.parametrize(
    ("budget", "spend"),
    [
        ({"rho": 0.5}, PrivacyCost.zcdp(0.2)),
        ({"epsilon": 1.0}, PrivacyCost.pure(0.25)),
        ({"epsilon": 1.0, "delta": 1e-6}, PrivacyCost.zcdp(0.01)),
    ],
)
def test_remaining_is_a_property_like_spent(budget, spend):
    """``spent`` and ``remaining`` are both properties holding a PrivacyCost;
    ``remaining`` is admitted exactly, and a little more is not."""
    accountant = PrivacyAccountant(**budget)
    assert isinstance(type(accountant).remaining, property)
    assert isinstance(type(accountant).spent, property)
    accountant.spend(spend)
    left = accountant.remaining
    assert isinstance(left, PrivacyCost)
    expected = (
        accountant.remaining_epsilon()
        if "epsilon" in budget and "delta" not in budget
        else accountant.remaining_rho()
    )
    assert left.parameter == expected
    assert accountant.can_spend(left)
    more = type(left.parameter)(left.parameter * (1 + 1e-6))
    bigger = PrivacyCost.pure(more) if left.notion == "pure" else PrivacyCost.zcdp(more)
    assert not accountant.can_spend(bigger)
