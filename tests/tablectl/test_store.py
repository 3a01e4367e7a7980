"""The store interface the web app and the CLI use (docs/tablectl.md): the journal, one
command in flight per table, refusals in words, codes and values kept for each reader."""

import sqlite3
import threading
import time

import pytest

from tablectl import store
from tablectl.store import Journal


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "j.db"
    j = Journal(path)
    j.register_tables([
        {"id": "t1", "name": "卓1", "url": "sim://", "driver": "jpex-link",
         "commands": ["status", "mode", "cycle", "dice", "deal", "check", "points", "reset"]},
        {"id": "t2", "url": "x"},
        {"id": "t3", "url": "/dev/jantaku/t3", "driver": "lcus-relay", "commands": ["cycle"]}])
    return path


def test_pragmas_wal_full_sync_foreign_keys(db):
    conn = Journal(db).db.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO table_events (table_id, kind, at) VALUES ('nope', 'x', 0)")


def test_request_is_idempotent_on_key(db):
    a = store.request_command(db, "t1", "mode", {"mode": 4}, "web-1")
    b = store.request_command(db, "t1", "mode", {"mode": 4}, "web-1")
    assert a == b
    assert len(store.list_commands(db)) == 1
    with pytest.raises(store.IdempotencyConflict) as e:
        store.request_command(db, "t1", "mode", {"mode": 5}, "web-1")
    assert "already used" in e.value.text("en") and "web-1" in e.value.text("ja")


def test_concurrent_same_key_gives_one_row(db):
    ids = []

    def ask():
        ids.append(store.request_command(db, "t1", "cycle", None, "same"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 1 and len(store.list_commands(db)) == 1


@pytest.mark.parametrize("table,command,args,err,words", [
    ("t9", "cycle", None, store.UnknownTable, "known tables: t1, t2, t3"),
    ("t1", "shuffle", None, store.UnknownCommand, "choose one of status, mode, cycle"),
    ("t1", "mode", {"mode": 9}, store.StoreError, "mode=9"),
    ("t1", "mode", {}, store.StoreError, "takes no argument(s) mode"),
    ("t1", "mode", {"mode": True}, store.StoreError, "mode=True"),
    ("t1", "cycle", {"fast": True}, store.StoreError, "takes no argument(s) fast"),
    ("t1", "dice", {"seat": 4}, store.StoreError, "seat=4"),
    ("t3", "mode", {"mode": 1}, store.NotSupported, "Table t3 (lcus-relay) cannot do \"mode\""),
])
def test_bad_requests_are_refused_in_words_and_write_nothing(db, table, command, args, err, words):
    with pytest.raises(err) as e:
        store.request_command(db, table, command, args, "k")
    assert words in e.value.text("en")
    assert e.value.text("ja") != e.value.text("en")
    assert store.list_commands(db) == []


def test_journal_lifecycle_and_seq_before_send(db):
    cid = store.request_command(db, "t1", "dice", None, "k1", source="cli", actor="ops")
    j = Journal(db)
    row = j.claim_next("t1")
    assert row["id"] == cid and row["actor"] == "ops"
    assert store.get_command(db, cid)["status"] == "sending"
    assert j.claim_next("t1") is None  # one at a time per table
    j.set_seq(cid, 42)
    assert j.in_doubt("t1")[0]["seq"] == 42
    j.finish(cid, "done", {"dice": [3, 4]})
    row = store.wait_command(db, cid, 1)
    assert row["status"] == "done" and row["result"] == {"dice": [3, 4]}
    assert row["attempts"] == 1 and row["seq"] == 42


def test_one_command_in_flight_refused_with_what_who_and_since(db):
    cid = store.request_command(db, "t1", "cycle", actor="ops", source="cli")
    j = Journal(db)
    j.claim_next("t1")
    t = time.time()
    with pytest.raises(store.CommandInFlight) as e:
        store.request_command(db, "t1", "cycle", actor="mika", source="web")
    assert e.value.values["who"] == "ops" and abs(e.value.values["since"] - t) < 5
    hhmm = time.strftime("%H:%M", time.gmtime(e.value.values["since"] + 9 * 3600))
    assert e.value.text("ja") == f"t1: サイクル実行中 (ops, {hhmm})"     # Asia/Tokyo
    assert e.value.text("en") == f"t1: cycle running (ops, {hhmm})"
    with pytest.raises(store.CommandInFlight):
        store.request_command(db, "t1", "dice")
    store.request_command(db, "t2", "cycle")          # another table is free
    assert [r["id"] for r in store.list_commands(db, "t1")] == [cid]


def test_two_mode_changes_at_once_one_is_refused_never_silently_overridden(db):
    store.request_command(db, "t1", "mode", {"mode": 3}, actor="a")
    with pytest.raises(store.CommandInFlight) as e:
        store.request_command(db, "t1", "mode", {"mode": 2}, actor="b")
    assert "モード変更中" in e.value.text("ja") and "(a, " in e.value.text("ja")


def test_a_mode_change_during_a_cycle_waits_as_pending(db):
    cycle = store.request_command(db, "t1", "cycle", actor="ops")
    j = Journal(db)
    j.claim_next("t1")
    mode = store.request_command(db, "t1", "mode", {"mode": 4}, expires_in=0.01, actor="mika")
    row = store.get_command(db, mode)
    assert row["status"] == "queued" and row["waits_for"] == cycle and row["expires_at"] is None
    with pytest.raises(store.CommandInFlight):       # one pending at most
        store.request_command(db, "t1", "mode", {"mode": 5})
    time.sleep(0.05)
    assert j.claim_next("t1") is None              # the cycle is still sending
    j.finish(cycle, "done", {"mode": 1})
    assert j.claim_next("t1")["id"] == mode          # sent when the cycle has ended


def test_expired_request_is_never_sent_and_does_not_block_the_table(db):
    cid = store.request_command(db, "t1", "cycle", None, "k", expires_in=-1)
    other = store.request_command(db, "t1", "points")    # the expired one is not in flight
    row = store.get_command(db, cid)
    assert row["status"] == "timed_out" and row["error_code"] == "not_sent"
    assert row["error_values"]["waited"] >= 0 and "期限切れ" in row["error_message"]
    assert Journal(db).claim_next("t1")["id"] == other


def test_withdraw_only_touches_queued_and_keeps_its_reason_as_a_code(db):
    a = store.request_command(db, "t1", "cycle", None, "a")
    b = store.request_command(db, "t2", "cycle", None, "b")
    Journal(db).claim_next("t1")
    assert store.withdraw_command(db, a, "late")["status"] == "sending"
    row = store.withdraw_command(db, b, code="not_sent_daemon_down",
                                 values={"state": "stale", "age_s": 25})
    assert row["status"] == "timed_out" and row["error_values"] == {"state": "stale",
                                                                    "age_s": 25}
    from tablectl import commands
    assert "25 s ago" in commands.describe(row, "en") and "25秒前" in commands.describe(row, "ja")


def test_a_journalled_reply_is_never_overwritten(db):
    cid = store.request_command(db, "t1", "cycle")
    j = Journal(db)
    j.claim_next("t1")
    j.set_progress(cid, {"mode": 1, "cycle_no": 7, "duration_ms": 70000})
    j.set_progress(cid, {"something": "else"})                  # the first answer stays
    j.finish(cid, "timed_out", error_code="cycle_link_lost", error_values={"cycle_no": 7})
    j.finish(cid, "failed", None, "link_down")                  # finished: left alone
    row = store.get_command(db, cid)
    assert row["result"] == {"mode": 1, "cycle_no": 7, "duration_ms": 70000}
    assert row["status"] == "timed_out" and row["error_code"] == "cycle_link_lost"


def test_unconfigured_table_is_refused_after_reload(db):
    j = Journal(db)
    j.register_tables([{"id": "t1", "url": "sim://"}])
    assert [t["table_id"] for t in store.list_tables(db)] == ["t1"]
    with pytest.raises(store.UnknownTable):
        store.request_command(db, "t2", "cycle")


def test_daemon_status_from_heartbeat(db):
    assert store.daemon_status(db)["state"] == "never"
    j = Journal(db)
    j.heartbeat(123, "club.toml", started=True)
    assert store.daemon_status(db)["running"] is True
    j.db.conn.execute("UPDATE tablectl_daemon SET heartbeat_at = heartbeat_at - 30")
    st = store.daemon_status(db)
    assert st["state"] == "stale" and not st["running"] and st["age_s"] >= 30
    j.stopped(123)
    assert store.daemon_status(db)["state"] == "stopped"


def test_nothing_is_written_while_nothing_waits(db):
    """The daemon's idle loop reads; it writes only when a command waits."""
    j = Journal(db)
    before = j.db.conn.total_changes
    for _ in range(50):
        assert j.claim_next("t1") is None
        j.expire_queued("t1")
    assert j.db.conn.total_changes == before


def test_a_locked_database_is_waited_out_by_the_journal(db):
    """Another process holds the write lock longer than the busy timeout: the daemon's
    writes wait (patience), they do not fail."""
    waits = []
    j = Journal(db, busy_timeout_ms=50, patience=lambda waited: (waits.append(waited),
                                                                 time.sleep(0.05)))
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    j.add_event("t1", "lid_opened")
    release.join(10)                                   # its COMMIT has returned: close
    assert len(waits) >= 2 and store.recent_events(db, "t1")[0]["kind"] == "lid_opened"
    other.close()
    with pytest.raises(sqlite3.OperationalError):      # without patience: the error
        locker = sqlite3.connect(db, isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")
        try:
            Journal(db, busy_timeout_ms=50).add_event("t1", "lid_closed")
        finally:
            locker.execute("ROLLBACK")
            locker.close()
