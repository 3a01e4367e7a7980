"""The web app's migration sets, in the order they are applied to a club file.

Each module that owns tables keeps its own named set (``MIGRATIONS``); this
list is the one place that says which sets exist and in what order, so a new
table never depends on an import side effect.
"""

import clubdb
import sqlite_utils

from . import audit, auth, games, rating_store, security, standings, stats_store
from .floor import store as floor

SETS = (games.MIGRATIONS, audit.MIGRATIONS, auth.MIGRATIONS, security.MIGRATIONS,
        stats_store.MIGRATIONS, standings.MIGRATIONS, rating_store.MIGRATIONS, floor.MIGRATIONS)


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Bring the web app's tables (every set above, in order) up to date."""
    return clubdb.migrate(db, SETS)
