"""A durable ledger of privacy spends in SQLite (standard library only).

One file may be shared by many processes: every spend is one ``BEGIN IMMEDIATE``
transaction that reads the totals, checks them against the budget and appends
the record, so two processes can never both pass the check on the same
remaining budget. SQLite's rollback journal (``synchronous=FULL``) makes a
transaction all-or-nothing even if its process is killed half-way. The ledger
stores what was spent, when, by whom with which parameters, and the caveats of
the guarantee; never any value derived from the data.

A ledger kept in memory belongs to the process that created it (docs/algorithms.rst
§13.5): a forked child that inherits it cannot spend from it (its spends would
land in a copy the parent never sees), so every use there raises.

Amounts are added as the decimals they print as (the shortest decimal that
reads back as the same float, what Python's ``repr`` shows), exactly, as
fractions: a budget ρ = 0.25 admits 25 spends of ρ = 0.01, as a person would
expect. Each float differs from its decimal by at most half a unit in the last
place, so the floats the noise was calibrated with may exceed the budget by at
most a relative 2^−52 (about 2.2e−16), never more.
"""

import datetime
import json
import os
import sqlite3
import threading
from fractions import Fraction
from typing import NamedTuple

from skprivcov.privacy._profiles import SelectionProfile, StoppingLaw
from skprivcov.privacy._renyi import RENYI_ORDERS

__all__ = ["SpendRecord", "SqliteLedger", "Totals", "decimal"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS spends ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " created_at TEXT NOT NULL,"
    " notion TEXT NOT NULL CHECK (notion IN ('pure', 'zcdp', 'renyi')),"
    " parameter REAL NOT NULL CHECK (parameter >= 0),"
    " source TEXT NOT NULL,"
    " details TEXT NOT NULL,"
    " process INTEGER NOT NULL,"
    " caveats TEXT NOT NULL DEFAULT '[]',"
    " curve TEXT NOT NULL DEFAULT '[]')",
)
# The parameter stored with a Rényi record (its amount is its curve).
RENYI_SENTINEL = 1e300
# The columns of the spends table, in order (a migrated table has them too).
_COLUMNS = "id, created_at, notion, parameter, source, details, process, caveats, curve"
_BUSY_TIMEOUT_SECONDS = 120.0


def decimal(value):
    """The exact value of the shortest decimal that reads back as ``value``."""
    return Fraction(repr(float(value)))


class Totals(NamedTuple):
    """Exact sums over the records of a ledger, as fractions.

    Each recorded parameter counts as its decimal (:func:`decimal`); summing
    them as :class:`fractions.Fraction` makes "the spends fit the budget" an
    exact comparison, free of rounding.
    """

    pure_epsilon: Fraction  # Σ ε over pure records
    pure_rho: Fraction  # Σ ε²/2 over pure records (their zCDP equivalent)
    zcdp_rho: Fraction  # Σ ρ over zCDP records
    n_zcdp: int  # number of zCDP records
    caveats: frozenset = frozenset()  # every caveat of every record
    # Σ ε(λ) over Rényi records, one sum per order of RENYI_ORDERS (§14).
    renyi: tuple = (Fraction(0),) * len(RENYI_ORDERS)
    n_renyi: int = 0  # number of Rényi records
    n_records: int = 0  # number of records
    # While the ledger holds one record only, and it is a private selection:
    # its SelectionProfile, for the profile bound of §22 (a composition of
    # several records is accounted by curves alone).
    selection: object = None
    # Σ (a, b, c) of the Rényi records' envelopes ε(λ) ≤ aλ + b + c/(λ − 1),
    # for a conversion over every real order (§22); None once a Rényi
    # record has none.
    renyi_envelope: tuple | None = (Fraction(0),) * 3
    # Σ δ₀ of the δ₀-approximate records (§25): the δ already spent on
    # failure events, added exactly.
    approximate_delta: Fraction = Fraction(0)

    @classmethod
    def of(cls, records):
        totals = cls(Fraction(0), Fraction(0), Fraction(0), 0)
        for notion, parameter, caveats, curve, details in records:
            facts = json.loads(details)
            facts = facts if isinstance(facts, dict) else {}
            totals = totals.plus(
                notion,
                parameter,
                json.loads(caveats),
                json.loads(curve),
                selection=profile_from_details(facts),
                envelope=facts.get(ENVELOPE_KEY),
                approximate_delta=facts.get(APPROXIMATE_DELTA_KEY, 0.0),
            )
        return totals

    def plus(
        self,
        notion,
        parameter,
        caveats=(),
        curve=None,
        selection=None,
        envelope=None,
        approximate_delta=0.0,
    ):
        """These totals with one more spend (``curve``: a Rényi spend's;
        ``selection``: a selection's SelectionProfile; ``envelope``: a Rényi
        spend's closed-form bound, if it has one; ``approximate_delta``: the
        δ₀ of a δ₀-approximate spend, §25)."""
        caveats = self.caveats | frozenset(caveats)
        if approximate_delta:
            self = self._replace(
                approximate_delta=self.approximate_delta + decimal(approximate_delta)
            )
        if selection is not None and not selection.describes(
            notion, None if parameter is None else float(parameter), curve
        ):
            selection = None  # a profile that is not this record's is ignored
        self = self._replace(
            n_records=self.n_records + 1,
            selection=selection if self.n_records == 0 else None,
        )
        if notion == "renyi":
            if envelope is None or self.renyi_envelope is None:
                summed = None
            else:
                summed = tuple(
                    total + decimal(value)
                    for total, value in zip(self.renyi_envelope, envelope, strict=True)
                )
            return self._replace(
                renyi_envelope=summed,
                renyi=tuple(
                    total + decimal(value)
                    for total, value in zip(self.renyi, curve, strict=True)
                ),
                n_renyi=self.n_renyi + 1,
                caveats=caveats,
            )
        value = decimal(parameter)
        if notion == "pure":
            return self._replace(
                pure_epsilon=self.pure_epsilon + value,
                pure_rho=self.pure_rho + value * value / 2,
                caveats=caveats,
            )
        return self._replace(
            zcdp_rho=self.zcdp_rho + value, n_zcdp=self.n_zcdp + 1, caveats=caveats
        )


class SpendRecord(NamedTuple):
    """One line of a ledger's history.

    Returned by :meth:`PrivacyAccountant.history`, oldest first; a record is written
    once, by one spend, and never changed.

    Parameters
    ----------
    id : int
        The record's number in the ledger.
    created_at : str
        When it was recorded (ISO 8601, UTC).
    notion : {"pure", "zcdp", "renyi"}
        The notion of the cost.
    parameter : float or None
        The ε or ρ of the cost; None for a Rényi curve.
    source : str
        Who spent (an estimator's class name).
    details : dict
        Public facts recorded with the spend.
    process : int
        The id of the process that spent.
    caveats : tuple of str, default=()
        The caveats of the cost.
    curve : tuple of float, default=()
        A Rényi spend's ε(λ) at ``RENYI_ORDERS``.

    See Also
    --------
    PrivacyAccountant.history : The records of an accountant.

    Examples
    --------
    >>> from skprivcov import PrivacyAccountant, PrivacyCost
    >>> accountant = PrivacyAccountant(rho=1.0)
    >>> _ = accountant.spend(PrivacyCost.zcdp(0.25), source="example")
    >>> record = accountant.history()[0]
    >>> record.notion, record.parameter, record.source
    ('zcdp', 0.25, 'example')
    """

    id: int
    created_at: str
    notion: str
    parameter: float
    source: str
    details: dict
    process: int
    caveats: tuple = ()
    curve: tuple = ()  # a Rényi spend's ε(λ) at RENYI_ORDERS


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
        self._owner = os.getpid()
        self._lock = threading.Lock()
        self._lock_pid = os.getpid()
        self._connection = None
        self._pid = None
        with self._locked():
            self._connect()

    def _locked(self):
        """This process's lock. A forked child gets a new one: the parent's
        may have been held by another thread at the fork, and never freed."""
        if self._lock_pid != os.getpid():
            self._lock, self._lock_pid = threading.Lock(), os.getpid()
        return self._lock

    def _connect(self):
        """This process's connection (a forked child opens its own file
        connection; an in-memory ledger refuses to be used there)."""
        if self.path is None and os.getpid() != self._owner:
            raise RuntimeError(
                f"This in-memory PrivacyAccountant belongs to process {self._owner}; "
                f"process {os.getpid()} (a forked copy) cannot spend from it, since "
                "its spends would never reach the original. Give the accountant a "
                "path (an SQLite file) to share one budget across processes."
            )
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
        _add_caveats_column(connection)
        _admit_renyi_records(connection)
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _transaction(self, body):
        """Run ``body(connection)`` in one write transaction under the lock."""
        with self._locked():
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

    def spend_if(self, cost, source, details, admits):
        """Append a spend of ``cost`` (a PrivacyCost) if ``admits(totals_after)``
        holds, atomically.

        Returns
        -------
        (spent, totals_before) : (bool, Totals)
        """
        # Keys as JSON writes them: a str subclass must not slip through.
        written = {str.__str__(key) for key in details if isinstance(key, str)}
        for key in (PROFILE_KEY, ENVELOPE_KEY, APPROXIMATE_DELTA_KEY):
            if key in written:
                raise ValueError(
                    f"details may not hold the key {key!r}: the ledger writes "
                    "it from the cost itself."
                )
        if cost.selection is not None:
            details = {**details, PROFILE_KEY: profile_to_details(cost.selection)}
        if cost.envelope is not None:
            details = {**details, ENVELOPE_KEY: list(cost.envelope)}
        if cost.approximate_delta:
            details = {**details, APPROXIMATE_DELTA_KEY: cost.approximate_delta}
        details_json = json.dumps(details, sort_keys=True)
        curve = list(cost.curve or ())

        def body(connection):
            before = Totals.of(connection.execute(_TOTALS_QUERY).fetchall())
            after = before.plus(
                cost.notion,
                cost.parameter,
                cost.caveats,
                curve,
                cost.selection,
                cost.envelope,
                cost.approximate_delta,
            )
            if not admits(after):
                return False, before
            connection.execute(
                "INSERT INTO spends (created_at, notion, parameter, source, "
                "details, process, caveats, curve) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    datetime.datetime.now(datetime.timezone.utc).isoformat(),
                    cost.notion,
                    # A Rényi record's amount is its curve (json, read back
                    # exactly: repr round-trips every float). Its parameter
                    # is a sentinel that an earlier version, which reads
                    # every non-pure record as zCDP, counts as exhausting
                    # any budget: such a reader fails closed.
                    RENYI_SENTINEL if cost.parameter is None else cost.parameter,
                    source,
                    details_json,
                    os.getpid(),
                    json.dumps(list(cost.caveats)),
                    json.dumps(curve),
                ),
            )
            return True, before

        return self._transaction(body)

    def totals(self):
        """The totals of all committed records."""
        with self._locked():
            records = self._connect().execute(_TOTALS_QUERY).fetchall()
        return Totals.of(records)

    def history(self):
        """All committed records, oldest first."""
        with self._locked():
            rows = (
                self._connect().execute(f"SELECT {_COLUMNS} FROM spends ORDER BY id")
            ).fetchall()
        return [
            SpendRecord(
                i,
                t,
                n,
                None if n == "renyi" else p,
                s,
                json.loads(d),
                pid,
                tuple(json.loads(c)),
                tuple(json.loads(k)),
            )
            for i, t, n, p, s, d, pid, c, k in rows
        ]


_TOTALS_QUERY = "SELECT notion, parameter, caveats, curve, details FROM spends"

# The key of a record's details under which a private selection's candidates
# and law of runs are kept (written by the ledger from the cost, never from
# the caller's details: a caller could otherwise claim a cheaper bound).
PROFILE_KEY = "selection_profile"
# The key under which a Rényi record's envelope (a, b, c) is kept, likewise.
ENVELOPE_KEY = "renyi_envelope"
# The key under which a δ₀-approximate record's δ₀ is kept (§25), likewise.
APPROXIMATE_DELTA_KEY = "approximate_delta"


def profile_to_details(profile):
    """A SelectionProfile as JSON-ready public facts."""
    law = profile.law
    return {
        "rho": profile.rho,
        "epsilon": profile.epsilon,
        "curve": None if profile.curve is None else list(profile.curve),
        "law": [law.kind, law.first, law.second],
    }


def profile_from_details(details):
    """The SelectionProfile a record's details hold, or None."""
    facts = details.get(PROFILE_KEY) if isinstance(details, dict) else None
    if facts is None:
        return None
    curve = facts["curve"]
    return SelectionProfile(
        rho=facts["rho"],
        epsilon=facts["epsilon"],
        curve=None if curve is None else tuple(curve),
        law=StoppingLaw(*facts["law"]),
    )


def _add_caveats_column(connection):
    """Ledgers written before caveats were recorded get the column (their
    records had none: the nuclear mechanism's were not recorded as such)."""
    if "caveats" in _columns(connection):
        return
    try:
        connection.execute(
            "ALTER TABLE spends ADD COLUMN caveats TEXT NOT NULL DEFAULT '[]'"
        )
    except sqlite3.OperationalError:
        if "caveats" not in _columns(connection):  # not a concurrent migration
            raise


def _columns(connection):
    return {row[1] for row in connection.execute("PRAGMA table_info(spends)")}


def _admit_renyi_records(connection):
    """Ledgers written before Rényi records existed get the ``curve`` column
    and a notion check that admits them (§14). SQLite cannot alter a CHECK,
    so the table is rebuilt, in one write transaction: every record is kept,
    and a concurrent process sees the old table or the new one, never none."""
    if _accepts_renyi(connection):
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        if not _accepts_renyi(connection):  # not migrated meanwhile
            connection.execute("ALTER TABLE spends RENAME TO spends_before_renyi")
            connection.execute(_SCHEMA[1])
            connection.execute(
                "INSERT INTO spends (id, created_at, notion, parameter, source, "
                "details, process, caveats) SELECT id, created_at, notion, "
                "parameter, source, details, process, caveats "
                "FROM spends_before_renyi"
            )
            connection.execute("DROP TABLE spends_before_renyi")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def _accepts_renyi(connection):
    (sql,) = connection.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'spends'"
    ).fetchone()
    return "'renyi'" in sql and "curve" in _columns(connection)
