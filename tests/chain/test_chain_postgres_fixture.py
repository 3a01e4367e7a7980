"""The PostgreSQL of the chain tests: where it is missing, the tests skip on a developer's
machine and fail where ``JANTAKU_REQUIRE_POSTGRES=1`` (CI) asks for it."""

from __future__ import annotations

import pytest

from tests.support import postgres


def test_chain_postgres_missing_skips_or_fails_as_asked(monkeypatch) -> None:
    monkeypatch.setattr(postgres, "bindir", lambda: None)
    assert "not installed" in (postgres.missing_reason() or "")
    monkeypatch.delenv(postgres.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception):
        postgres.skip_or_fail()
    monkeypatch.setenv(postgres.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="required"):
        postgres.skip_or_fail()


def test_chain_postgres_found_here_runs_as_a_cluster(pg_cluster: postgres.Cluster) -> None:
    # the session's cluster answers on its socket and on loopback, as the tests use it
    with pg_cluster.connect("postgres") as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    import psycopg

    with psycopg.connect(pg_cluster.url("postgres", tcp=True)) as conn:
        assert int(conn.execute("SHOW server_version_num").fetchone()[0]) >= 150000
