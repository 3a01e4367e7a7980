"""Fixtures of the chain tests: one throwaway PostgreSQL cluster for the session
(``tests/support/postgres.py``) and a database of its own for each test.

``pg_cluster`` skips (or, with ``JANTAKU_REQUIRE_POSTGRES=1``, fails) where PostgreSQL or
psycopg is missing; ``pg_url`` is an empty database, ``headoffice_url`` one with the head
office's schema migrated in.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import postgres


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[postgres.Cluster]:
    """The session's PostgreSQL cluster, started once and stopped at the end."""
    postgres.skip_or_fail()
    cluster = postgres.Cluster()
    try:
        cluster.start()
    except Exception:
        cluster.stop()
        raise
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: postgres.Cluster) -> str:
    """A fresh, empty database of this test's own, as a libpq URL (Unix socket)."""
    return pg_cluster.new_database()


@pytest.fixture
def headoffice_url(pg_url: str) -> str:
    """A fresh database with the head office's schema (``chain.pg_schema``)."""
    from chain import pg_schema

    pg_schema.migrate_url(pg_url)
    return pg_url
