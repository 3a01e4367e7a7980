"""The club database: one SQLite file shared with the ``tablectl`` daemon.

``get_db()`` gives the request's :class:`sqlite_utils.Database` (WAL, foreign
keys on, ``synchronous=FULL`` so an acknowledged write survives a power cut,
a busy timeout so the daemon and several web threads can share the file).

Schema changes are numbered migrations registered with ``@migration(n, name)``
and applied in number order when the app starts, each in its own transaction
and recorded in the ``migrations`` table. Ranges: 100-199 core/tablet (W1),
200-299 staff and safety (W2), 300-399 leaderboards.
"""

from __future__ import annotations

import contextlib
import queue
import sqlite3
import threading
from datetime import datetime, timezone
from typing import Callable, Iterator

import sqlite_utils
from flask import current_app, g

BUSY_TIMEOUT_MS = 10_000

# number -> (name, function). Filled at import time by the modules that own the
# tables; it only holds static definitions, never per-database state.
MIGRATIONS: dict[int, tuple[str, Callable[[sqlite_utils.Database], None]]] = {}


def migration(number: int, name: str):
    """Register ``fn(db)`` as schema migration ``number`` (applied once, in order)."""

    def register(fn):
        if number in MIGRATIONS and MIGRATIONS[number][1].__qualname__ != fn.__qualname__:
            raise ValueError(f"migration number {number} is already used by "
                             f"{MIGRATIONS[number][0]!r}")
        MIGRATIONS[number] = (name, fn)
        return fn

    return register


def now_iso() -> str:
    """The current UTC time as an ISO-8601 string (what every timestamp column holds)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def connect(path: str) -> sqlite_utils.Database:
    """Open the club database with the pragmas every connection must have."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    # No implicit transactions: every write goes through write_tx()/atomic(),
    # so nothing is left half-open between requests.
    conn.isolation_level = None
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # WAL lets readers (tablets polling, the daemon) run beside one writer.
    if str(path) != ":memory:" and conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    # FULL: a commit is on disk before we answer 2xx (the crash test relies on it).
    conn.execute("PRAGMA synchronous = FULL")
    return sqlite_utils.Database(conn)


@contextlib.contextmanager
def write_tx(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """An all-or-nothing write transaction taken with BEGIN IMMEDIATE.

    IMMEDIATE takes the write lock up front, so a read-then-write inside the
    block can never fail half way with a stale snapshot; concurrent writers
    wait (busy timeout) instead. Nested use becomes a savepoint.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    # Writers of this process queue on a Python lock first: SQLite's own busy
    # handler polls with sleeps of up to 100 ms, which is what made tail latency
    # under 40 concurrent tablets seconds long. Other processes (the tablectl
    # daemon) still meet the busy timeout.
    with _process_lock(db):
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise
        db.conn.execute("COMMIT")


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _process_lock(db: sqlite_utils.Database) -> threading.Lock:
    """One write lock per database file in this process."""
    path = getattr(db, "_jantaku_path", None)
    if path is None:
        path = db.execute("PRAGMA database_list").fetchone()[2] or f"memory:{id(db.conn)}"
        db._jantaku_path = path
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path, threading.Lock())


def migrate(db: sqlite_utils.Database) -> list[int]:
    """Apply every registered migration not yet recorded; return the numbers applied."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations ("
        "number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in db.execute("SELECT number FROM migrations").fetchall()}
    applied = []
    for number in sorted(MIGRATIONS):
        if number in done:
            continue
        name, fn = MIGRATIONS[number]
        with write_tx(db):
            # Another process may have applied it while we waited for the lock.
            if db.execute("SELECT 1 FROM migrations WHERE number = ?", [number]).fetchone():
                continue
            fn(db)
            db.execute(
                "INSERT INTO migrations (number, name, applied_at) VALUES (?, ?, ?)",
                [number, name, now_iso()],
            )
        applied.append(number)
    return applied


POOL_SIZE = 16


def _pool() -> queue.LifoQueue:
    return current_app.extensions.setdefault("jantaku_db_pool", queue.LifoQueue(POOL_SIZE))


def get_db() -> sqlite_utils.Database:
    """The request's database connection (taken on first use, given back on teardown).

    Connections are reused from a small per-app pool: opening one and setting
    its pragmas costs more than a whole indexed query.
    """
    if "db" not in g:
        try:
            g.db = _pool().get_nowait()
        except queue.Empty:
            g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc=None) -> None:
    db = g.pop("db", None)
    if db is None:
        return
    if db.conn.in_transaction:
        db.conn.rollback()
    try:
        _pool().put_nowait(db)
    except queue.Full:
        db.conn.close()


def init_app(app) -> None:
    """Close the connection after each request and bring the schema up to date."""
    app.teardown_appcontext(close_db)
    db = connect(app.config["DATABASE"])
    try:
        migrate(db)
    finally:
        db.conn.close()
