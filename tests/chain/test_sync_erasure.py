# ruff: noqa: F811  (pytest fixtures imported by name)
"""An erasure reaches the head office, against a real PostgreSQL: after the next sync no
head office table holds the member's name, member number or e-mail address, and an
erase followed by a void of the member's game syncs clean (no difference left behind)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chain import pg_schema, sync
from tests.chain.test_sync import ACTOR, _assert_equals_box, box, club_file  # noqa: F401

NAME, NUMBER, MAIL = "消去花子", "M-77123", "hanako.erase@example.jp"


def _traces(url: str) -> dict[str, int]:
    """Rows of every head office table whose text holds the name, number or address."""
    found: dict[str, int] = {}
    with pg_schema.connect(url) as pg:
        tables = [r[0] for r in pg.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'chain' "
            "AND table_type = 'BASE TABLE'")]
        for t in tables:
            for needle in (NAME, NUMBER, MAIL):
                n = pg.execute(f"SELECT count(*) FROM chain.{t} AS r WHERE r::text LIKE %s",
                               [f"%{needle}%"]).fetchone()[0]
                if n:
                    found[f"{t}:{needle}"] = n
    return found


def _member_in_game_1(path: Path) -> int:
    from club.audit import audit
    from club.db import connect, write_tx

    with sqlite3.connect(path) as c:
        pid = c.execute("SELECT player_id FROM game_seats WHERE game_id = 1 AND seat = 0"
                        ).fetchone()[0]
        old = c.execute("SELECT name FROM players WHERE id = ?", [pid]).fetchone()[0]
        # the name the member played game 1 under, as the start entry recorded it
        c.execute("UPDATE players SET name = ?, member_no = ? WHERE id = ?",
                  [NAME, NUMBER, pid])
    db = connect(str(path))
    try:
        with write_tx(db):
            db.execute("DROP TRIGGER hand_events_no_update")
            rows = db.execute("SELECT id, event FROM hand_events WHERE kind = 'start' AND "
                              "game_id IN (SELECT game_id FROM game_seats WHERE player_id = ?)",
                              [pid]).fetchall()
            for rid, ev in rows:
                db.execute("UPDATE hand_events SET event = ? WHERE id = ?",
                           [ev.replace(old, NAME), rid])
            db.execute("CREATE TRIGGER hand_events_no_update BEFORE UPDATE ON hand_events "
                       "BEGIN SELECT RAISE(ABORT, 'hand events are immutable: append a "
                       "correction instead'); END")
            audit(db, ACTOR, "member.contact", f"player:{pid}", f"{NAME} さんの連絡先",
                  details={"name": NAME, "member_no": NUMBER, "email": MAIL})
            db.execute("INSERT INTO member_profiles (player_id, email, updated_at) "
                       "VALUES (?, ?, '2025-04-01T00:00:00Z')", [pid, MAIL])
    finally:
        db.conn.close()
    return pid


def test_sync_erasure_leaves_no_trace_at_the_head_office(box: Path, pg_url: str) -> None:
    pid = _member_in_game_1(box)
    sync.run(str(box), pg_url, "east")
    before = _traces(pg_url)  # the head office holds all three before the erase
    assert {k.split(":")[1] for k in before} == {NAME, NUMBER, MAIL}
    from club import member_data
    from club.db import connect

    db = connect(str(box))
    member_data.erase(db, pid, actor=ACTOR, reason="the member asked")
    db.conn.close()
    res = sync.run(str(box), pg_url)
    assert res.differences == [] and res.counted
    assert _traces(pg_url) == {}
    _assert_equals_box(pg_url, box, "east")


def test_sync_erasure_then_a_void_of_the_members_game_syncs_clean(box: Path,
                                                                  pg_url: str) -> None:
    pid = _member_in_game_1(box)
    sync.run(str(box), pg_url, "east")
    from club import corrections, member_data
    from club.db import connect

    db = connect(str(box))
    member_data.erase(db, pid, actor=ACTOR, reason="the member asked")
    corrections.void_game(db, 1, actor=ACTOR, reason="wrong players")
    db.conn.close()
    res = sync.run(str(box), pg_url)
    assert res.differences == [] and res.counted
    again = sync.run(str(box), pg_url)
    assert (again.changes, again.differences) == (0, [])
    _assert_equals_box(pg_url, box, "east")
    assert _traces(pg_url) == {}
    with pg_schema.connect(pg_url) as pg:
        assert pg.execute("SELECT status FROM chain.games WHERE branch = 'east' AND id = 1"
                          ).fetchone() == ("void",)


def test_sync_a_game_that_differs_is_sent_again_and_verified(box: Path, pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    with pg_schema.connect(pg_url) as pg:  # the head office's copy of game 3 goes wrong
        pg.execute("DELETE FROM chain.hand_events WHERE branch = 'east' AND game_id = 3 "
                   "AND seq = 2")
        pg.execute("UPDATE chain.hand_events SET event = '{\"x\": 1}' WHERE branch = 'east' "
                   "AND game_id = 3 AND seq = 1")
    from club import corrections
    from club.db import connect

    db = connect(str(box))
    corrections.void_game(db, 3, actor=ACTOR, reason="wrong players")
    db.conn.close()
    res = sync.run(str(box), pg_url)
    assert res.repaired == [3] and res.differences == [] and res.counted
    _assert_equals_box(pg_url, box, "east")
    again = sync.run(str(box), pg_url)
    assert (again.changes, again.repaired, again.differences) == (0, [], [])
