"""The club's migration sets, in the order they are applied to a club file.

Each module that owns tables keeps its own named set (``MIGRATIONS``); this
list is the one place that says which of the club's sets exist and in what order,
so a new table never depends on an import side effect. A package above the club
adds its own sets after these in a list of its own (:mod:`chain.box`: the box's
whole file); a process below this list (the sender, the print worker) checks and
migrates only its own set.
"""

from collections.abc import Iterable

import sqlite_utils

import clubdb
from club import (
    accounts,
    audit,
    db,
    games,
    line_link,
    members,
    money_settings,
    rating_store,
    standings,
    stats_store,
    tablets,
    till,
)
from club.db import Migrations
from club.floor import store as floor
from club.notify import outbox as notify
from club.printing import queue as printing

SETS = (games.MIGRATIONS, audit.MIGRATIONS, accounts.MIGRATIONS, tablets.MIGRATIONS,
        stats_store.MIGRATIONS, standings.MIGRATIONS, rating_store.MIGRATIONS, floor.MIGRATIONS,
        members.MIGRATIONS, notify.MIGRATIONS, printing.MIGRATIONS, money_settings.MIGRATIONS,
        till.MIGRATIONS, line_link.MIGRATIONS)


def migrate(handle: sqlite_utils.Database, sets: Iterable[Migrations] = SETS) -> list[str]:
    """Bring the club's tables (every set above, in order, or ``sets``) up to date."""
    return clubdb.migrate(handle, sets)


def prepare(path: str, sets: Iterable[Migrations] = SETS, *,
            every_set: Iterable[str] | None = None) -> bool:
    """The start-up check of the club file against ``sets`` (the club's, unless a package
    above adds its own: :mod:`chain.box`): see :func:`club.db.prepare`."""
    return db.prepare(path, sets, every_set=every_set)
