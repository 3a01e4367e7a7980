"""The box's club file as a chain's branch keeps it: the club's migration sets and then
the chain's own (members across branches, the change log its triggers feed), and the
start-up check that knows every set of the product (the table daemon's too). The web
app and the sync open the club file through here."""

from __future__ import annotations

import sqlite_utils

from chain import changelog, members
from club import schema
from tablectl.store import MIGRATIONS as TABLECTL

SETS = (*schema.SETS, members.MIGRATIONS, changelog.MIGRATIONS)
"""Every set of the box's club file that the club's programs apply, in order."""

EVERY_SET = [m.name for m in (*SETS, TABLECTL)]
"""The names of every set of the product: a set recorded in a file outside them is newer."""


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Bring the box's tables (the club's and the chain's) up to date."""
    return schema.migrate(db, SETS)


def prepare(path: str) -> bool:
    """The start-up check of the club file before the web app or the sync uses it: every
    set of the product is known here (see :func:`club.db.prepare`)."""
    return schema.prepare(path, SETS, every_set=EVERY_SET)
