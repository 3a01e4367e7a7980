"""The web app's migration sets, in the order they are applied to a club file.

Each module that owns tables keeps its own named set (``MIGRATIONS``); this
list is the one place that says which sets exist and in what order, so a new
table never depends on an import side effect.
"""

import os

import clubdb
import sqlite_utils

from web import security
from web.club import (accounts, audit, games, members, money_settings, rating_store, standings,
                      stats_store, till)
from web.club.chain import changelog as chain_changelog
from web.club.chain import members as chain_members
from web.club.floor import store as floor
from web.club.notify import line_link
from web.club.notify import outbox as notify
from web.club.printing import queue as printing

SETS = (games.MIGRATIONS, audit.MIGRATIONS, accounts.MIGRATIONS, security.MIGRATIONS,
        stats_store.MIGRATIONS, standings.MIGRATIONS, rating_store.MIGRATIONS, floor.MIGRATIONS,
        members.MIGRATIONS, chain_members.MIGRATIONS, notify.MIGRATIONS,
        chain_changelog.MIGRATIONS, printing.MIGRATIONS, money_settings.MIGRATIONS,
        till.MIGRATIONS, line_link.MIGRATIONS)


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Bring the web app's tables (every set above, in order) up to date."""
    return clubdb.migrate(db, SETS)


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
    from web.errors import UserError

    key = os.path.abspath(path)
    if path != ":memory:" and _CHECKED.get(key) == _stat(key):
        return False
    from tablectl.store import MIGRATIONS as TABLECTL

    try:
        # the web app knows every set of the product: the daemon's as well as its own
        new = clubdb.prepare(path, SETS,
                             every_set=[m.name for m in (*SETS, TABLECTL)])
    except clubdb.FileRefused as e:
        raise UserError(e.key, **e.values) from None
    if path != ":memory:":
        _CHECKED[key] = _stat(key)
    return new
