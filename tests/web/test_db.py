"""Storage: pragmas for durability, the web's migration sets, immutable
hand events, the audit log, corrections by staff recorded with who, when and why."""

from __future__ import annotations

import sqlite3

import pytest

from chain.box import SETS
from club import club_tables, corrections, gamelog, games, roster
from club.audit import audit, audit_entries
from club.errors import UserError
from scoring import game as engine_game
from scoring.rules import load_rules
from tests.support.web import record, start
from web import create_app

# shared fixtures (a real SQLite file per test, a club, paired tablets)

RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def test_every_connection_is_durable_and_checked(db):
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_every_web_migration_set_is_applied_once_in_order(app, db):
    rows = db.execute("SELECT migration_set, name FROM clubdb_migrations ORDER BY rowid").fetchall()
    expected = [(m.name, name) for m in SETS for name, _ in m.steps]
    assert [tuple(r) for r in rows if r[0] != "tablectl"] == expected
    create_app({"DATABASE": app.config["DATABASE"], "SECRET_KEY": "x", "TESTING": True})
    assert db.execute("SELECT COUNT(*) FROM clubdb_migrations").fetchone()[0] == len(rows)


def test_hand_events_cannot_be_updated_or_deleted(client, t1, db):
    start(client, t1)
    record(client, t1, RON, 1)
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        db.execute("UPDATE hand_events SET event = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        db.execute("DELETE FROM hand_events")
    assert db.execute("SELECT COUNT(*) FROM hand_events").fetchone()[0] == 2


def test_idempotency_keys_and_slots_are_unique_in_the_schema(db):
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'hand_events'").fetchone()[0]
    assert "idempotency_key TEXT NOT NULL UNIQUE" in sql and "UNIQUE (game_id, seq)" in sql


def test_game_stores_its_fully_resolved_rules(client, t1, db):
    g = start(client, t1)
    stored = games.get_game(db, g["game"]["id"])["rules"]
    assert stored == load_rules("nekohouse-4a").to_dict()


def test_club_rule_set_validated_and_audited(db):
    with pytest.raises(UserError, match="extend a preset"):
        club_tables.save_rule_set(db, "ours", "[hand]\nkuitan = false\n", actor="staff:a")
    with pytest.raises(UserError, match="kuitan"):
        club_tables.save_rule_set(db, "ours", 'extends = "netmahjong"\n[hand]\nkuitan = 3\n',
                            actor="staff:a")
    with pytest.raises(UserError, match="TOML"):
        club_tables.save_rule_set(db, "ours", 'extends = "netmahjong"\n[hand\n', actor="staff:a")
    with pytest.raises(UserError, match="preset"):
        club_tables.save_rule_set(db, "mcr", 'extends = "netmahjong"\n', actor="staff:a")
    rs = club_tables.save_rule_set(db, "ours", 'extends = "netmahjong"\n[hand]\nkuitan = false\n',
                             actor="staff:a")
    assert rs["rules"]["hand"]["kuitan"] is False
    assert club_tables.resolve_rules(db, "ours").hand.kuitan is False
    assert audit_entries(db, target="rule_set:ours")[0]["actor"] == "staff:a"
    assert "ours" in [r["id"] for r in club_tables.list_rule_sets(db)]


def test_correcting_a_finished_game_is_audited_and_replayed(client, t1, db):
    g = start(client, t1)
    gid = g["game"]["id"]
    record(client, t1, RON, 1)
    record(client, t1, {"event": "end"}, 2)
    with pytest.raises(UserError, match="reason"):
        corrections.correct_hand(db, gid, 1, RON, actor="staff:a", reason="")
    fixed = {"event": "win", "winners": [{"seat": 2, "han": 3, "fu": 30}], "from": 0}
    view = corrections.correct_hand(db, gid, 1, fixed, actor="staff:a", reason="wrong winner")
    assert view["replay"]["hands"][0]["deltas"] == [-3900, 0, 3900, 0]
    events = [e["event"] for e in gamelog.effective_events(gamelog.event_log(db, gid))]
    engine = engine_game.replay(events, load_rules("nekohouse-4a"))
    assert view["replay"]["final"] == engine["final"]
    entry = audit_entries(db, target=f"game:{gid}")[0]
    assert (entry["actor"], entry["action"], entry["reason"]) == ("staff:a", "hand.correct",
                                                                   "wrong winner")
    assert entry["details"]["old"] == RON and entry["at"]
    kinds = [r["kind"] for r in gamelog.event_log(db, gid)]
    assert kinds == ["start", "win", "end", "replace"]  # appended, nothing rewritten


def test_a_correction_that_reopens_a_finished_game_is_refused(client, t1, db):
    g = start(client, t1)
    gid = g["game"]["id"]
    record(client, t1, RON, 1)
    record(client, t1, {"event": "draw", "tenpai": [0]}, 2)  # a hand stays to settle
    record(client, t1, {"event": "end"}, 3)
    with pytest.raises(UserError, match="no longer be over"):
        corrections.remove_hand(db, gid, 3, actor="staff:a", reason="not ended")
    corrections.remove_hand(db, gid, 1, actor="staff:a", reason="hand never happened")
    assert [h["type"] for h in games.game_view(db, gid)["replay"]["hands"]] == ["draw", "end"]


def test_void_a_game_with_reason(client, t1, db):
    g = start(client, t1)
    gid = g["game"]["id"]
    corrections.void_game(db, gid, actor="staff:b", reason="wrong players seated")
    assert games.get_game(db, gid)["status"] == "void"
    assert audit_entries(db)[0]["action"] == "game.void"
    with pytest.raises(UserError, match="void"):
        corrections.void_game(db, gid, actor="staff:b", reason="again")
    start(client, t1)  # the table is free again


def test_audit_rolls_back_with_the_change(db):
    from club.db import write_tx

    with pytest.raises(RuntimeError):
        with write_tx(db):
            audit(db, "staff:a", "test", "thing:1", "why")
            raise RuntimeError("the change failed")
    assert audit_entries(db, target="thing:1") == []


def test_players_member_numbers_unique(db):
    roster.add_player(db, "X", member_no="M-1")
    with pytest.raises(UserError, match="already used"):
        roster.add_player(db, "Y", member_no="M-1")
    with pytest.raises(UserError, match="too long"):
        roster.add_player(db, "x" * 41)
    p = roster.set_player_active(db, 1, False)
    assert p["active"] == 0 and 1 not in [x["id"] for x in roster.list_players(db)]


def test_config_from_environment(tmp_path, monkeypatch):
    path = tmp_path / "env.sqlite"
    monkeypatch.setenv("JANTAKU_DB", str(path))
    monkeypatch.setenv("JANTAKU_SECRET_KEY", "from-env")
    app = create_app()
    assert app.config["DATABASE"] == str(path) and app.config["SECRET_KEY"] == "from-env"
    assert path.exists() and app.test_client().get("/api/health").status_code == 200
