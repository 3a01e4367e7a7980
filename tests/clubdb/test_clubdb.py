"""The club file as both processes open it: pragmas, shared connections, write
transactions and named migration sets recorded in one table."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading

import pytest

import clubdb
from clubdb import Migrations, connect, migrate, open_shared, shared, write_tx


def test_every_connection_is_durable_and_checked(tmp_path):
    db = connect(tmp_path / "c.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == clubdb.BUSY_TIMEOUT_MS


def test_sets_apply_in_the_order_given_each_step_once(tmp_path):
    first, second = Migrations("first"), Migrations("second")

    @first
    def create_a(db):
        db.execute("CREATE TABLE a (x)")

    @second
    def create_b(db):
        db.execute("CREATE TABLE b (x REFERENCES a(x))")

    @first
    def add_a_y(db):
        db.execute("ALTER TABLE a ADD COLUMN y")

    db = connect(tmp_path / "m.sqlite")
    assert migrate(db, [first, second]) == ["first:create_a", "first:add_a_y", "second:create_b"]
    assert migrate(db, [first, second]) == []
    rows = db.execute("SELECT migration_set, name FROM clubdb_migrations ORDER BY rowid").fetchall()
    assert rows == [("first", "create_a"), ("first", "add_a_y"), ("second", "create_b")]


def test_a_failing_step_rolls_back_and_stays_pending(tmp_path):
    mset = Migrations("t")

    @mset
    def good(db):
        db.execute("CREATE TABLE good (x)")

    @mset
    def bad(db):
        db.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    db = connect(tmp_path / "m.sqlite")
    with pytest.raises(RuntimeError):
        migrate(db, [mset])
    assert "half_done" not in db.table_names() and "good" in db.table_names()
    assert db.execute("SELECT name FROM clubdb_migrations").fetchall() == [("good",)]


def test_a_step_name_cannot_be_used_twice_in_a_set():
    mset = Migrations("t")

    @mset
    def step(db):  # pragma: no cover - never applied
        pass

    with pytest.raises(ValueError, match="already has a step 'step'"):
        mset(step)


def test_a_step_an_older_schema_table_recorded_is_adopted_not_rerun(tmp_path):
    db = connect(tmp_path / "old.sqlite")
    db.execute("CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    db.execute("INSERT INTO migrations VALUES (100, 'core', 'then')")
    db.execute("CREATE TABLE players (id)")
    mset = Migrations("games")

    @mset(legacy=("migrations", "number", 100))
    def create_core(db):
        db.execute("CREATE TABLE players (id)")  # would fail: the table exists

    @mset(legacy=("migrations", "number", 101))
    def create_more(db):
        db.execute("CREATE TABLE more (id)")

    assert migrate(db, [mset]) == ["games:create_more"]
    assert {r[0] for r in db.execute("SELECT name FROM clubdb_migrations")} == {
        "create_core", "create_more"}


def test_two_processes_worth_of_migrators_apply_each_step_once(tmp_path):
    path = tmp_path / "race.sqlite"
    mset = Migrations("race")
    runs = []

    @mset
    def create(db):
        runs.append(1)
        db.execute("CREATE TABLE r (x)")

    errors = []

    def go():
        try:
            migrate(connect(path), [mset])
        except Exception as e:  # pragma: no cover - the failure is reported below
            errors.append(e)

    threads = [threading.Thread(target=go) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and runs == [1]


def test_write_tx_is_all_or_nothing_and_nests_as_a_savepoint(tmp_path):
    db = connect(tmp_path / "w.sqlite")
    db.execute("CREATE TABLE t (x)")
    with pytest.raises(RuntimeError):
        with write_tx(db):
            db.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("the change failed")
    with write_tx(db):
        db.execute("INSERT INTO t VALUES (2)")
        with pytest.raises(RuntimeError):
            with write_tx(db):
                db.execute("INSERT INTO t VALUES (3)")
                raise RuntimeError("inner")
    assert [r[0] for r in db.execute("SELECT x FROM t")] == [2]


def test_shared_is_one_connection_per_thread_and_file(tmp_path):
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    assert shared(a) is shared(str(a)) and shared(a) is not shared(b)
    other = []
    t = threading.Thread(target=lambda: other.append(shared(a)))
    t.start()
    t.join()
    assert other[0] is not shared(a)
    clubdb.close_shared()


def test_a_thread_keeps_a_bounded_number_of_files_open(tmp_path):
    dbs = [shared(tmp_path / f"{i}.sqlite") for i in range(clubdb.SHARED_PER_THREAD + 2)]
    with pytest.raises(sqlite3.ProgrammingError):
        dbs[0].execute("SELECT 1")  # the least recently used one was closed
    assert dbs[-1].execute("SELECT 1").fetchone() == (1,)
    clubdb.close_shared()


def test_open_shared_migrates_once_per_process(tmp_path):
    mset = Migrations("once")
    runs = []

    @mset
    def create(db):
        runs.append(1)
        db.execute("CREATE TABLE o (x)")

    path = tmp_path / "o.sqlite"
    assert open_shared(path, [mset]) is open_shared(path, [mset])
    assert runs == [1] and "o" in open_shared(path, [mset]).table_names()
    clubdb.close_shared()


def _hold_writer_lock(path) -> int:
    """Take the file's writer lock as another process would (an open file of its own)."""
    fd = os.open(str(path) + clubdb.WRITER_LOCK_SUFFIX, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_writer_waits_for_another_process_holding_the_writer_lock(tmp_path):
    path = tmp_path / "w.sqlite"
    db = connect(path)
    db.execute("CREATE TABLE t (x)")
    held = _hold_writer_lock(path)
    began = threading.Event()
    done = threading.Event()

    def write():
        began.set()
        with write_tx(shared(path)) as w:
            w.execute("INSERT INTO t VALUES (1)")
        done.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert began.wait(10)
    assert not done.wait(0.3)  # still waiting: the other process has the lock
    assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
    fcntl.flock(held, fcntl.LOCK_UN)
    os.close(held)
    assert done.wait(30)
    writer.join(10)
    assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 1
    assert oct(os.stat(str(path) + clubdb.WRITER_LOCK_SUFFIX).st_mode & 0o777) == "0o600"


def test_a_writer_lock_held_past_the_busy_timeout_is_the_usual_locked_error(tmp_path,
                                                                          monkeypatch):
    path = tmp_path / "w.sqlite"
    db = connect(path)
    db.execute("CREATE TABLE t (x)")
    held = _hold_writer_lock(path)
    monkeypatch.setattr(clubdb, "BUSY_TIMEOUT_MS", 50)
    try:
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            with write_tx(db):
                db.execute("INSERT INTO t VALUES (1)")
    finally:
        os.close(held)
    assert not db.conn.in_transaction
    with write_tx(db):  # and the next write goes in
        db.execute("INSERT INTO t VALUES (2)")
    assert db.execute("SELECT x FROM t").fetchall() == [(2,)]


def test_a_forked_child_takes_the_writer_lock_with_a_file_of_its_own(tmp_path):
    """A child shares its parent's open files: with the parent's, its flock would not
    exclude the parent. It opens its own, so the two exclude each other."""
    path = tmp_path / "f.sqlite"
    db = connect(path)
    db.execute("CREATE TABLE t (x)")
    with write_tx(db):
        db.execute("INSERT INTO t VALUES (0)")  # the parent's writer file is open
    read, write = os.pipe()
    with write_tx(db):  # the parent holds the lock while the child tries
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                clubdb.close_shared()
                try:
                    fcntl.flock(clubdb._WRITER_FILES[str(path)], fcntl.LOCK_EX | fcntl.LOCK_NB)
                except KeyError:
                    code = 0  # nothing inherited: the child will open its own file
                os.write(write, bytes([code]))
            finally:
                os._exit(0)
        got = os.read(read, 1)
        os.waitpid(pid, 0)
    assert got == b"\x00"


def test_the_tables_a_step_makes_or_drops_are_recorded_for_the_start_up_check(tmp_path):
    path = tmp_path / "c.sqlite"
    assert clubdb.prepare(path) is True
    s = Migrations("s")

    @s
    def make_a_and_b(db):
        db.execute("CREATE TABLE a (x)")
        db.execute("CREATE TABLE b (x)")

    @s
    def drop_b(db):
        db.execute("DROP TABLE b")

    db = connect(path)
    migrate(db, [s])
    recorded = {r[0]: r[1:] for r in db.execute("SELECT * FROM clubdb_tables")}
    assert recorded == {"a": ("s", "make_a_and_b")}
    clubdb.check_file(path, [s])  # a table a later step dropped is not missing
    db.execute("DROP TABLE a")
    with pytest.raises(clubdb.FileRefused) as e:
        clubdb.check_file(path, [s])
    assert e.value.code == "partial" and e.value.values["tables"] == "a"


def test_a_file_from_before_the_table_record_records_what_it_holds(tmp_path):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE clubdb_migrations (migration_set TEXT NOT NULL, name TEXT NOT "
                 "NULL, applied_at TEXT NOT NULL, PRIMARY KEY (migration_set, name))")
    conn.execute("CREATE TABLE games (x)")
    conn.commit()
    conn.close()
    clubdb.check_file(path)
    migrate(connect(path), [])
    db = connect(path)
    assert {r[0] for r in db.execute("SELECT name FROM clubdb_tables")} == {
        "games", "clubdb_migrations"}


def test_checking_the_file_never_drops_the_locks_of_this_process_connections(tmp_path):
    """Closing a descriptor of the club file drops every POSIX lock the process holds on
    it: another process closing its connection then takes itself for the last one and
    deletes the -wal under ours, which from then on reads a stale club."""
    import subprocess
    import sys

    path = tmp_path / "c.sqlite"
    clubdb.prepare(path)
    s = Migrations("s")

    @s
    def make_t(db):
        db.execute("CREATE TABLE t (x)")

    db = open_shared(path, [s])
    assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
    clubdb.check_file(path, [s])
    clubdb.check_file(path, [s], thorough=False)
    write = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
             "c.execute('INSERT INTO t VALUES (1)'); c.commit(); c.close()")
    subprocess.run([sys.executable, "-c", write, str(path)], check=True, timeout=60)
    assert os.path.exists(f"{path}-wal")
    # a second process writes and stays (the daemon): this process must read its row
    hold = write.replace("c.close()", "print('written', flush=True); sys.stdin.read()")
    other = subprocess.Popen([sys.executable, "-c", hold, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "written"
        assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 2
    finally:
        other.stdin.close()
        other.wait(timeout=60)
