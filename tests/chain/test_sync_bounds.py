# ruff: noqa: F811  (pytest fixtures imported by name)
"""The head office's bounds, against a real PostgreSQL: a text over the box's limit is
refused in words before it is sent (earlier batches kept, nothing of the batch sent) and
by PostgreSQL's own CHECK constraints; a NUL or an ESC in a rule set's name or title no
longer stops the sync, and never reaches the head office; the box refuses such a name
when a rule set is saved and repairs the titles already stored."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chain.test_sync import ROOT, _snapshot, box, club_file  # noqa: F401
from chain import bounds, pg_schema, sync


def test_sync_bounds_an_over_size_name_is_refused_in_words(box: Path, pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    before = _snapshot(pg_url, "east")
    with sqlite3.connect(box) as c:
        c.execute("UPDATE players SET name = ? WHERE id = 2", ["名" * 6_000_000])
    p = subprocess.run([sys.executable, "-m", "web", "sync", "--to", pg_url, "--db", str(box)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "name of players 2 is 6,000,000 characters, over the limit of 40" in p.stderr
    assert len(p.stderr) < 2000
    assert _snapshot(pg_url, "east") == before
    with sqlite3.connect(box) as c:  # fixed on the box: the sync goes on from its mark
        c.execute("UPDATE players SET name = 'fixed' WHERE id = 2")
    res = sync.run(str(box), pg_url)
    assert res.differences == []
    with pg_schema.connect(pg_url) as pg:
        assert pg.execute("SELECT name FROM chain.players WHERE branch = 'east' AND id = 2"
                          ).fetchone() == ("fixed",)


def test_sync_bounds_an_over_size_audit_row_is_refused(box: Path, pg_url: str) -> None:
    with sqlite3.connect(box) as c:
        c.execute("INSERT INTO audit_log (at, actor, action, target, reason, details) "
                  "VALUES ('2025-04-02T00:00:00Z', 'x', 'y', 'z', ?, '{}')", ["r" * 8_000_000])
    with pytest.raises(sync.SyncError) as e:
        sync.run(str(box), pg_url, "east", batch_size=100_000)
    assert e.value.key == "sync.err.too_long" and e.value.values["column"] == "reason"
    with pg_schema.connect(pg_url) as pg:
        assert pg.execute("SELECT count(*) FROM chain.audit_log").fetchone() == (0,)


def test_sync_bounds_postgresql_itself_refuses_an_over_size_row(headoffice_url: str) -> None:
    import psycopg

    with pg_schema.connect(headoffice_url) as pg:
        pg.execute("INSERT INTO chain.branches (branch) VALUES ('east')")
        for sql, value in [
            ("INSERT INTO chain.players (branch, id, name, created_at) "
             "VALUES ('east', 1, %s, now())", "x" * 41),
            ("INSERT INTO chain.audit_log (branch, id, at, actor, action, target, reason) "
             "VALUES ('east', 1, now(), 'a', 'b', 'c', %s)", "x" * 501),
            ("UPDATE chain.branches SET name = %s", "x" * 101),
        ]:
            with pytest.raises(psycopg.errors.CheckViolation):
                pg.execute(sql, [value])


def test_sync_bounds_nul_and_esc_in_a_rule_sets_name_do_not_stop_the_sync(
        box: Path, pg_url: str) -> None:
    with sqlite3.connect(box) as c:
        c.execute("UPDATE games SET rule_set = 'house' || char(0) || char(27) || '[31m', "
                  "rules = json_set(rules, '$.title', 'ハウス' || char(0) || char(27) || "
                  "'[2J<b>', '$.name', 'h' || char(0)) WHERE id = 1")
        c.execute("UPDATE club_tables SET name = name || char(27) || '[31m'")
    for _ in range(2):  # and the next run finds nothing left to send
        res = sync.run(str(box), pg_url, "east")
        assert res.differences == []
    with pg_schema.connect(pg_url) as pg:
        row = pg.execute("SELECT rule_set, rules->>'title', rules->>'name' FROM chain.games "
                         "WHERE branch = 'east' AND id = 1").fetchone()
        assert row == ("house[31m", "ハウス[2J<b>", "h")
        names = [r[0] for r in pg.execute("SELECT name FROM chain.club_tables")]
        assert names and not any("\x1b" in n for n in names)


def test_sync_bounds_the_box_refuses_a_rule_set_name_with_nul_or_esc(tmp_path: Path) -> None:
    from club import club_tables
    from club.db import connect
    from web.errors import UserError

    from club import schema

    db = connect(str(tmp_path / "club.sqlite"))
    schema.migrate(db)
    for bad in ('title = "a\\u0000b"', 'title = "a\\u001b[31m"', 'name = "x\\u0000"'):
        with pytest.raises(UserError) as e:
            club_tables.save_rule_set(db, "house", f'extends = "nekohouse-4a"\n{bad}\n',
                                      actor="staff:test")
        assert "control" in e.value.key
    saved = club_tables.save_rule_set(db, "house", 'extends = "nekohouse-4a"\n'
                                      'title = "ハウス"\n', actor="staff:test")
    assert saved["title"] == "ハウス"
    # a title stored before: the box's migration repairs it
    db.execute("UPDATE rule_sets SET title = 'ハ' || char(0) || char(27) || 'ウス'")
    from chain import changelog

    changelog._clean_rule_set_titles(db)
    assert db.execute("SELECT title FROM rule_sets").fetchone()[0] == "ハウス"


def test_sync_bounds_clean_rules_keeps_everything_but_control_characters() -> None:
    assert bounds.clean_label("a\x00b\x1b[0m\u202ec") == "ab[0mc"
    assert bounds.clean_label(None) is None
    out = bounds.clean_rules('{"title": "t\\u0000", "x": ["\\u0000y"], "n": 1}')
    assert out == '{"title": "t", "x": ["y"], "n": 1}'
