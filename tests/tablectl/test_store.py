"""The store interface the web app and the CLI use (docs/tablectl.md)."""

import sqlite3
import threading

import pytest

from tablectl import store
from tablectl.store import Journal


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "j.db"
    j = Journal(path)
    j.register_tables([{"id": "t1", "name": "卓1", "url": "sim://"}, {"id": "t2", "url": "x"}])
    j.close()
    return path


def test_pragmas_wal_full_sync_foreign_keys(db):
    j = Journal(db)
    conn = j.db.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO table_events (table_id, kind, at) VALUES ('nope', 'x', 0)")
    j.close()


def test_request_is_idempotent_on_key(db):
    a = store.request_command(db, "t1", "mode", {"mode": 4}, "web-1")
    b = store.request_command(db, "t1", "mode", {"mode": 4}, "web-1")
    assert a == b
    assert len(store.list_commands(db)) == 1
    with pytest.raises(store.IdempotencyConflict, match="already used"):
        store.request_command(db, "t1", "mode", {"mode": 5}, "web-1")


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
    ("t9", "cycle", None, store.UnknownTable, "known tables: t1, t2"),
    ("t1", "shuffle", None, store.UnknownCommand, "choose one of"),
    ("t1", "mode", {"mode": 9}, store.StoreError, "0..8"),
    ("t1", "mode", {}, store.StoreError, "0..8"),
    ("t1", "cycle", {"fast": True}, store.StoreError, "no argument"),
])
def test_bad_requests_are_refused_in_words_and_write_nothing(db, table, command, args, err, words):
    with pytest.raises(err, match=words):
        store.request_command(db, table, command, args, "k")
    assert store.list_commands(db) == []


def test_journal_lifecycle_and_seq_before_send(db):
    cid = store.request_command(db, "t1", "dice", None, "k1")
    j = Journal(db)
    row = j.claim_next("t1")
    assert row["id"] == cid
    assert store.get_command(db, cid)["status"] == "sending"
    assert j.claim_next("t1") is None  # one at a time per table
    j.set_seq(cid, 42)
    assert j.in_doubt("t1")[0]["seq"] == 42
    j.finish(cid, "done", {"dice": [3, 4]})
    row = store.wait_command(db, cid, 1)
    assert row["status"] == "done" and row["result"] == {"dice": [3, 4]}
    assert row["attempts"] == 1 and row["seq"] == 42
    j.close()


def test_expired_request_is_never_sent(db):
    cid = store.request_command(db, "t1", "cycle", None, "k", expires_in=-1)
    j = Journal(db)
    assert j.claim_next("t1") is None
    row = store.get_command(db, cid)
    assert row["status"] == "timed_out" and row["error_code"] == "not_sent"
    j.close()


def test_withdraw_only_touches_queued(db):
    a = store.request_command(db, "t1", "cycle", None, "a")
    b = store.request_command(db, "t2", "cycle", None, "b")
    j = Journal(db)
    j.claim_next("t1")
    assert store.withdraw_command(db, a, "late")["status"] == "sending"
    assert store.withdraw_command(db, b, "late")["status"] == "timed_out"
    j.close()


def test_unconfigured_table_is_refused_after_reload(db):
    j = Journal(db)
    j.register_tables([{"id": "t1", "url": "sim://"}])
    assert [t["table_id"] for t in store.list_tables(db)] == ["t1"]
    with pytest.raises(store.UnknownTable):
        store.request_command(db, "t2", "cycle")
    j.close()


def test_daemon_status_from_heartbeat(db):
    assert store.daemon_status(db)["running"] is False
    j = Journal(db)
    j.heartbeat(123, "club.toml", started=True)
    assert store.daemon_status(db)["running"] is True
    j.stopped(123)
    assert store.daemon_status(db)["running"] is False
    j.close()
