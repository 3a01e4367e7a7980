"""The club's side of the club database (opened through :mod:`clubdb`): the handle every
domain function takes, row helpers, and the one-per-club lock of a background process.

Schema changes are the named migration sets of :mod:`club.schema`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any, TypeAlias

import sqlite_utils

import clubdb
from club.errors import UserError
from clubdb import Migrations, connect, now_iso, shared, write_tx  # noqa: F401  (the club's names)

Db: TypeAlias = sqlite_utils.Database
"""The handle every domain function takes: a connection to the club file (from
the web's ``get_db``, :func:`clubdb.connect` or the ``write_tx`` it is inside)."""

Row: TypeAlias = dict[str, Any]
"""One row of a query, column name to value (what :func:`rows` and :func:`one` give)."""

Params: TypeAlias = Iterable[Any]
"""A query's positional parameters."""

ID_MAX = 2**63 - 1
"""The largest row id SQLite stores (a signed 64-bit integer)."""


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


_CHECKED: dict[tuple[str, tuple[str, ...]], tuple] = {}
"""Files this process has checked against which sets, with their stat then (a second look
is skipped)."""


def _stat(path: str) -> tuple:
    out: list[tuple[int, int, int] | None] = []
    for name in (path, path + "-wal"):
        try:
            st = os.stat(name)
            out.append((st.st_ino, st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            out.append(None)
    return tuple(out)


def prepare(path: str, sets: Iterable[Migrations], *,
            every_set: Iterable[str] | None = None) -> bool:
    """The start-up check of the club file before a process uses it (:func:`clubdb.prepare`
    with the migration sets the process knows; ``every_set``: the names of every set of
    the product, from the one that knows them all): a path that does not exist becomes a
    new club (True); an empty, damaged, foreign or newer file is refused with a
    :class:`UserError` naming the file and the restore command. A file this process
    checked against the same sets and that has not changed since is not read again."""
    sets = tuple(sets)
    key = (os.path.abspath(path), tuple(m.name for m in sets))
    if path != ":memory:" and _CHECKED.get(key) == _stat(key[0]):
        return False
    try:
        new = clubdb.prepare(path, sets, every_set=every_set)
    except clubdb.FileRefused as e:
        raise UserError(e.key, **e.values) from None
    if path != ":memory:":
        _CHECKED[key] = _stat(key[0])
    return new
