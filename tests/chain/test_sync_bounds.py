# ruff: noqa: F811  (pytest fixtures imported by name)
"""The head office's bounds, against a real PostgreSQL: a text over the box's limit is
refused in words before it is sent (its record, or its whole game, held back on the box
and reported by every run until fixed, then sent; the rest of the sync goes on) and by
PostgreSQL's own CHECK constraints; a NUL or an ESC in a rule set's name or title no
longer stops the sync, and never reaches the head office; the box refuses such a name
when a rule set is saved and repairs the titles already stored."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from chain import bounds, pg_schema, sync
from tests.chain.test_sync import ROOT, _assert_equals_box, _box_state, _snapshot, box, club_file  # noqa: F401


def _cli_sync(url: str, box: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web", "sync", "--to", url, "--db", str(box)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def _held(box: Path) -> list[tuple]:
    with sqlite3.connect(box) as c:
        return c.execute("SELECT tbl, key, col, size, most FROM chain_held "
                         "ORDER BY tbl, key").fetchall()


def test_sync_bounds_an_over_size_name_is_held_back_and_the_rest_is_sent(
        box: Path, pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    with sqlite3.connect(box) as c:
        c.execute("UPDATE players SET name = ? WHERE id = 2", ["名" * 6_000_000])
        c.execute("UPDATE players SET name = 'after' WHERE id = 3")  # a later change
    for _ in range(2):  # refused in words on every run until fixed; nothing done twice
        p = _cli_sync(pg_url, box)
        assert p.returncode == 2
        assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
        assert "A record was not sent to the head office: name of players 2 is 6,000,000 " \
               "characters, over the limit of 40" in p.stderr
        assert "everything else was sent" in p.stderr and len(p.stderr) < 2000
        assert _held(box) == [("players", "2", "name", 6_000_000, 40)]
        with pg_schema.connect(pg_url) as pg:
            names = dict(pg.execute("SELECT id, name FROM chain.players WHERE branch = 'east' "
                                    "AND id IN (2, 3)").fetchall())
        assert names[3] == "after" and names[2] != "名" * 40 and len(names[2]) <= 40
    with sqlite3.connect(box) as c:  # fixed on the box: the next sync sends it
        c.execute("UPDATE players SET name = 'fixed' WHERE id = 2")
    p = _cli_sync(pg_url, box)
    assert p.returncode == 0 and p.stderr == ""
    assert _held(box) == []
    with pg_schema.connect(pg_url) as pg:
        assert pg.execute("SELECT name FROM chain.players WHERE branch = 'east' AND id = 2"
                          ).fetchone() == ("fixed",)
    res = sync.run(str(box), pg_url)
    assert (res.changes, res.held, res.differences, res.counted) == (0, [], [], True)


def test_sync_bounds_a_held_record_is_retried_without_a_new_change(box: Path,
                                                                   pg_url: str) -> None:
    with sqlite3.connect(box) as c:
        c.execute("UPDATE players SET name = ? WHERE id = 2", ["x" * 41])
    res = sync.run(str(box), pg_url, "east")
    assert [(h.table, h.row, h.column) for h in res.held] == [("players", "2", "name")]
    assert res.differences == [] and not res.counted
    with sqlite3.connect(box) as c:  # fixed without a change the log sees (by hand)
        c.execute("DROP TRIGGER chain_log_players_update")
        c.execute("UPDATE players SET name = 'fixed' WHERE id = 2")
    res = sync.run(str(box), pg_url)
    assert res.changes == 0 and res.held == [] and _held(box) == []
    with pg_schema.connect(pg_url) as pg:
        assert pg.execute("SELECT name FROM chain.players WHERE branch = 'east' AND id = 2"
                          ).fetchone() == ("fixed",)
    _assert_equals_box(pg_url, box, "east")


def test_sync_bounds_an_over_size_audit_row_is_held_and_the_rest_sent(box: Path,
                                                                      pg_url: str) -> None:
    with sqlite3.connect(box) as c:
        c.execute("INSERT INTO audit_log (at, actor, action, target, reason, details) "
                  "VALUES ('2025-04-02T00:00:00Z', 'x', 'y', 'z', ?, '{}')", ["r" * 8_000_000])
        big = c.execute("SELECT max(id) FROM audit_log").fetchone()[0]
        on_box = c.execute("SELECT count(*) FROM audit_log").fetchone()[0]
    res = sync.run(str(box), pg_url, "east", batch_size=100_000)
    assert [(h.table, h.row, h.column, h.size) for h in res.held] == [
        ("audit_log", str(big), "reason", 8_000_000)]
    counts, sums = _box_state(box)
    with pg_schema.connect(pg_url) as pg:
        assert pg.execute("SELECT count(*) FROM chain.audit_log").fetchone() == (on_box - 1,)
        assert pg.execute("SELECT count(*) FROM chain.audit_log WHERE id = %s",
                          [big]).fetchone() == (0,)
        # everything else is there
        there = sync.head_office_counts(pg, "east")
        assert {k: v for k, v in there.items() if k != "audit_log"} == \
            {k: v for k, v in counts.items() if k != "audit_log"}
        assert sync.head_office_checksums(pg, "east", sorted(sums)) == sums


def test_sync_bounds_a_game_over_a_limit_is_held_whole(box: Path, pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    before = _snapshot(pg_url, "east")
    with sqlite3.connect(box) as c:
        c.execute("UPDATE games SET started_by = ?, status = 'void' WHERE id = 5", ["s" * 101])
        c.execute("DELETE FROM stats_lines WHERE game_id = 5")
        c.execute("UPDATE players SET name = 'later' WHERE id = 3")
    res = sync.run(str(box), pg_url, batch_size=1)
    assert [(h.tbl, h.key, h.table, h.column) for h in res.held] == [
        ("games", "5", "games", "started_by")]
    assert "game 5" in res.held[0].message
    after = _snapshot(pg_url, "east")
    # the head office keeps game 5 whole as it was; the other change arrived
    for name in ("games", "game_seats", "hand_events", "game_lines", "game_checksums"):
        assert after[name] == before[name], name
    assert ("later" in [r[1] for r in after["players"]])
    with sqlite3.connect(box) as c:
        c.execute("UPDATE games SET started_by = 'staff:fixed' WHERE id = 5")
    res = sync.run(str(box), pg_url)
    assert res.held == [] and res.differences == [] and res.counted
    _assert_equals_box(pg_url, box, "east")
    with pg_schema.connect(pg_url) as pg:
        assert pg.execute("SELECT status, started_by FROM chain.games WHERE branch = 'east' "
                          "AND id = 5").fetchone() == ("void", "staff:fixed")
        assert pg.execute("SELECT count(*) FROM chain.game_lines WHERE branch = 'east' "
                          "AND game_id = 5").fetchone() == (0,)


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
    from club import club_tables, schema
    from club.db import connect
    from web.errors import UserError

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
