"""Fixtures of the web tests: a real SQLite club per test, its app and paired tablets."""

from tests.support.web import app, client, db, still_clock, t1  # noqa: F401  (fixtures)
