"""The web app's side of the club database (opened through :mod:`clubdb`).

``get_db()`` gives the request's connection: the worker thread's own shared
connection to the club file (see :func:`clubdb.shared`). Schema changes are
the named migration sets of :mod:`web.club.schema`.
"""

from __future__ import annotations

import contextlib
import fcntl
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any, TypeAlias

import sqlite_utils
from flask import Flask, current_app, g

from clubdb import Migrations, connect, now_iso, shared, write_tx  # noqa: F401  (the web's names)

Db: TypeAlias = sqlite_utils.Database
"""The handle every domain function takes: a connection to the club file (from
:func:`get_db`, :func:`clubdb.connect` or the ``write_tx`` it is inside)."""

Row: TypeAlias = dict[str, Any]
"""One row of a query, column name to value (what :func:`rows` and :func:`one` give)."""

Params: TypeAlias = Iterable[Any]
"""A query's positional parameters."""


def rows(db: Db, sql: str, params: Params = ()) -> list[Row]:
    """The rows of a query as dicts. sqlite-utils' ``execute_returning_dicts`` wraps each
    query in a savepoint (three statements); this is the one statement, for hot paths."""
    cur = db.conn.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def one(db: Db, sql: str, params: Params = ()) -> Row | None:
    """The first row of a query as a dict, or None."""
    found = rows(db, sql, params)
    return found[0] if found else None


def inserted_id(cur: sqlite3.Cursor) -> int:
    """The id of the row an ``INSERT`` just wrote (sqlite3 types ``lastrowid`` as optional
    because other statements leave it unset)."""
    if cur.lastrowid is None:
        raise RuntimeError("inserted_id() after a statement that inserted no row")
    return cur.lastrowid


def get_db() -> Db:
    """The request's database connection (this worker thread's shared one)."""
    if "db" not in g:
        g.db = shared(current_app.config["DATABASE"])
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    """End the request's use of the connection; a transaction left open is rolled back."""
    db = g.pop("db", None)
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


def init_app(app: Flask) -> None:
    """Release the connection after each request."""
    app.teardown_appcontext(close_db)


class AlreadyRunning(Exception):
    """Another process of the same kind holds this club file's lock (``path``)."""

    def __init__(self, path: str):
        super().__init__(path)
        self.path = path


@contextlib.contextmanager
def one_per_club(db_path: str, kind: str) -> Iterator[str]:
    """Hold the lock that lets one ``kind`` process (a printer worker, a sender) run per
    club file: two would each take a row the other has not marked yet. Raises
    :class:`AlreadyRunning` at once when another holds it; the lock goes with the process
    (flock), so a killed one leaves nothing to clean up. Yields the lock file's path."""
    lock_path = f"{db_path}-{kind}.lock"
    with open(lock_path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AlreadyRunning(lock_path) from None
        yield lock_path
