"""The web app's side of the club database: the request's connection.

``get_db()`` gives the request's connection: the worker thread's own shared
connection to the club file (see :func:`clubdb.shared`). The handle and the row
helpers are :mod:`club.db`'s.
"""

from __future__ import annotations

from flask import Flask, current_app, g

from club.db import Db
from clubdb import shared


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
