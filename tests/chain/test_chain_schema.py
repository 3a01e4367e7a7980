"""The head office's schema on a real PostgreSQL: its migrations apply once, in order,
and the tables the head office reads are there with their keys."""

from __future__ import annotations

from chain import pg_schema


def test_chain_schema_migrates_once(pg_url: str) -> None:
    assert pg_schema.migrate_url(pg_url) == ["001_core", "002_member_links",
                                            "020_branch_access", "021_bounds", "022_ho_secret",
                                            "023_ho_accounts"]
    assert pg_schema.migrate_url(pg_url) == []
    with pg_schema.connect(pg_url) as conn:
        tables = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'chain'")}
        assert set(pg_schema.MIRRORED) | {"branches", "sync_marks", "game_checksums",
                                          "migrations"} <= tables


def test_chain_schema_keys_rows_by_branch(headoffice_url: str) -> None:
    with pg_schema.connect(headoffice_url) as conn:
        conn.execute("INSERT INTO chain.branches (branch) VALUES ('a'), ('b')")
        for b in ("a", "b"):
            conn.execute("INSERT INTO chain.players (branch, id, name, created_at) "
                         "VALUES (%s, 1, 'x', now())", [b])
        n = conn.execute("SELECT count(*) FROM chain.players WHERE id = 1").fetchone()
        assert n == (2,)
