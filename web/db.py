"""The web app's side of the club database (opened through :mod:`clubdb`).

``get_db()`` gives the request's connection: the worker thread's own shared
connection to the club file (see :func:`clubdb.shared`). Schema changes are
the named migration sets of :mod:`web.schema`.
"""

from __future__ import annotations

import os

import sqlite_utils
from flask import current_app, g

import clubdb
from clubdb import Migrations, connect, now_iso, shared, write_tx  # noqa: F401  (the web's names)


def rows(db: sqlite_utils.Database, sql: str, params=()) -> list[dict]:
    """The rows of a query as dicts. sqlite-utils' ``execute_returning_dicts`` wraps each
    query in a savepoint (three statements); this is the one statement, for hot paths."""
    cur = db.conn.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def one(db: sqlite_utils.Database, sql: str, params=()) -> dict | None:
    """The first row of a query as a dict, or None."""
    found = rows(db, sql, params)
    return found[0] if found else None


def get_db() -> sqlite_utils.Database:
    """The request's database connection (this worker thread's shared one)."""
    if "db" not in g:
        g.db = shared(current_app.config["DATABASE"])
    return g.db


def close_db(_exc=None) -> None:
    """End the request's use of the connection; a transaction left open is rolled back."""
    db = g.pop("db", None)
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


_CHECKED: dict[str, tuple] = {}
"""Files this process has checked, with their stat then (a second look is skipped)."""


def _stat(path: str) -> tuple:
    out: list[tuple[int, int, int] | None] = []
    for name in (path, path + "-wal"):
        try:
            st = os.stat(name)
            out.append((st.st_ino, st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            out.append(None)
    return tuple(out)


def prepare(path: str) -> bool:
    """The start-up check of the club file before the app serves it (:func:`clubdb.prepare`
    with the web's migration sets): a path that does not exist becomes a new club (True);
    an empty, damaged, foreign or newer file is refused with a UserError naming the file
    and the restore command. A file this process checked and that has not changed since
    is not read again (the command line checks before it writes the session key)."""
    from . import schema
    from .errors import UserError

    key = os.path.abspath(path)
    if path != ":memory:" and _CHECKED.get(key) == _stat(key):
        return False
    from tablectl.store import MIGRATIONS as TABLECTL

    try:
        # the web app knows every set of the product: the daemon's as well as its own
        new = clubdb.prepare(path, schema.SETS,
                             every_set=[m.name for m in (*schema.SETS, TABLECTL)])
    except clubdb.FileRefused as e:
        raise UserError(e.key, **e.values) from None
    if path != ":memory:":
        _CHECKED[key] = _stat(key)
    return new


def init_app(app) -> None:
    """Release the connection after each request."""
    app.teardown_appcontext(close_db)
