"""A durable ledger of privacy spends in SQLite (standard library only).

One file may be shared by many processes: every spend is one ``BEGIN IMMEDIATE``
transaction that reads the totals, checks them against the budget and appends
the record, so two processes can never both pass the check on the same
remaining budget. SQLite's rollback journal (``synchronous=FULL``) makes a
transaction all-or-nothing even if its process is killed half-way. The ledger
stores what was spent, when, and by whom with which parameters; never any value
derived from the data.
"""

import datetime
import json
import os
import sqlite3
import threading
from fractions import Fraction
from typing import NamedTuple

__all__ = ["SpendRecord", "SqliteLedger", "Totals"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS spends ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " created_at TEXT NOT NULL,"
    " notion TEXT NOT NULL CHECK (notion IN ('pure', 'zcdp')),"
    " parameter REAL NOT NULL CHECK (parameter >= 0),"
    " source TEXT NOT NULL,"
    " details TEXT NOT NULL,"
    " process INTEGER NOT NULL)",
)
_BUSY_TIMEOUT_SECONDS = 120.0


class Totals(NamedTuple):
    """Exact sums over the records of a ledger, as fractions.

    Recorded parameters are floats, i.e. exact binary fractions; summing them as
    :class:`fractions.Fraction` makes "the spends fit the budget" an exact
    comparison, free of rounding.
    """

    pure_epsilon: Fraction  # Σ ε over pure records
    pure_rho: Fraction  # Σ ε²/2 over pure records (their zCDP equivalent)
    zcdp_rho: Fraction  # Σ ρ over zCDP records
    n_zcdp: int  # number of zCDP records

    @classmethod
    def of(cls, records):
        totals = cls(Fraction(0), Fraction(0), Fraction(0), 0)
        for notion, parameter in records:
            totals = totals.plus(notion, parameter)
        return totals

    def plus(self, notion, parameter):
        """These totals with one more spend."""
        value = Fraction(parameter)
        if notion == "pure":
            return self._replace(
                pure_epsilon=self.pure_epsilon + value,
                pure_rho=self.pure_rho + value * value / 2,
            )
        return self._replace(zcdp_rho=self.zcdp_rho + value, n_zcdp=self.n_zcdp + 1)


class SpendRecord(NamedTuple):
    """One line of a ledger's history."""

    id: int
    created_at: str
    notion: str
    parameter: float
    source: str
    details: dict
    process: int


class SqliteLedger:
    """The storage behind :class:`~skprivcov.privacy.PrivacyAccountant`.

    Parameters
    ----------
    path : str, os.PathLike or None
        The database file, created if missing. None keeps the ledger in memory,
        private to this process.
    """

    def __init__(self, path=None):
        # Absolute, so that a worker process started elsewhere opens this file.
        self.path = None if path is None else os.path.abspath(os.fspath(path))
        self._lock = threading.Lock()
        self._connection = None
        self._pid = None
        with self._lock:
            self._connect()

    def _connect(self):
        """This process's connection (a forked child opens its own)."""
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        connection = sqlite3.connect(
            ":memory:" if self.path is None else self.path,
            timeout=_BUSY_TIMEOUT_SECONDS,
            isolation_level=None,  # we issue BEGIN / COMMIT ourselves
            check_same_thread=False,  # guarded by self._lock
        )
        connection.execute("PRAGMA synchronous=FULL")
        for statement in _SCHEMA:  # each one atomic; a no-op once created
            connection.execute(statement)
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _transaction(self, body):
        """Run ``body(connection)`` in one write transaction under the lock."""
        with self._lock:
            connection = self._connect()
            connection.execute("BEGIN IMMEDIATE")
            try:
                result = body(connection)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            return result

    def settle_budget(self, budget_json):
        """Store the budget, or return the one already stored.

        Parameters
        ----------
        budget_json : str or None
            The caller's budget; None reads the stored one.

        Returns
        -------
        stored : str or None
            The budget of the ledger after the call.
        """

        def body(connection):
            row = connection.execute(
                "SELECT value FROM meta WHERE key = 'budget'"
            ).fetchone()
            if row is None and budget_json is not None:
                connection.execute(
                    "INSERT INTO meta (key, value) VALUES ('budget', ?)",
                    (budget_json,),
                )
                return budget_json
            return None if row is None else row[0]

        return self._transaction(body)

    def spend_if(self, notion, parameter, source, details, admits):
        """Append a spend if ``admits(totals_after)`` holds, atomically.

        Returns
        -------
        (spent, totals_before) : (bool, Totals)
        """
        details_json = json.dumps(details, sort_keys=True)

        def body(connection):
            records = connection.execute(
                "SELECT notion, parameter FROM spends"
            ).fetchall()
            before = Totals.of(records)
            if not admits(before.plus(notion, parameter)):
                return False, before
            connection.execute(
                "INSERT INTO spends (created_at, notion, parameter, source, "
                "details, process) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    datetime.datetime.now(datetime.timezone.utc).isoformat(),
                    notion,
                    parameter,
                    source,
                    details_json,
                    os.getpid(),
                ),
            )
            return True, before

        return self._transaction(body)

    def totals(self):
        """The totals of all committed records."""
        with self._lock:
            records = (
                self._connect().execute("SELECT notion, parameter FROM spends")
            ).fetchall()
        return Totals.of(records)

    def history(self):
        """All committed records, oldest first."""
        with self._lock:
            rows = (
                self._connect().execute(
                    "SELECT id, created_at, notion, parameter, source, details, "
                    "process FROM spends ORDER BY id"
                )
            ).fetchall()
        return [
            SpendRecord(i, t, n, p, s, json.loads(d), pid)
            for i, t, n, p, s, d, pid in rows
        ]
