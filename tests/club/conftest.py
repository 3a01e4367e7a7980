"""Fixtures of the club's domain tests: a real SQLite club per test, made by the app."""

from tests.support.web import app, client, db, still_clock, t1  # noqa: F401  (fixtures)
