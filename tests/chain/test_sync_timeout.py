"""Every wait of the sync is bounded (real PostgreSQL, real TCP): a relay that freezes
(before the sign-in, mid-batch, on the way back), a lock held by another session, a
backend process stopped, a statement that runs too long, a sync frozen inside its
transaction. Each run ends with one line in words and exit 1, and the next run starts
fresh. The subprocesses' own ``timeout=`` is far above the bounds given: a run that
hung would fail the test, not stall it."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from chain import pg_schema, sync, sync_limits
from tests.chain import test_sync
from tests.chain.test_sync import _assert_equals_box, _cli, _one_line_error

club_file, box = test_sync.club_file, test_sync.box  # the same small club, a copy each

FAST = ["--connect-timeout", "2", "--statement-timeout", "3", "--lock-timeout", "2"]
HUNG = 120
"""Seconds after which the test calls a run hung (every bound given here is far below)."""


class FrozenRelay:
    """A TCP relay on loopback to PostgreSQL that, once ``after`` bytes went the watched
    way (``upstream``: client to server, else back), stops passing anything on while
    keeping every connection open: the kernel still acknowledges, nothing answers."""

    def __init__(self, target_port: int, after: int, upstream: bool = True) -> None:
        self.target, self.after, self.upstream = target_port, after, upstream
        self.passed = 0
        self.frozen = threading.Event()
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self.socks: list[socket.socket] = [self.server]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.socks += [client, upstream]
            for src, dst, up in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pump, args=(src, dst, up), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, up: bool) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    return
                if up == self.upstream:
                    if self.passed + len(data) > self.after:
                        self.frozen.set()
                    self.passed += len(data)
                if self.frozen.is_set():
                    continue  # swallowed: read, never passed on
                dst.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        """Drop every connection (the middlebox restarted): the server sees them end."""
        for s in self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def _run_cli(*args: str, env: dict | None = None) -> tuple[int, str, str]:
    p = _cli(*args, env=env)
    out, err = p.communicate(timeout=HUNG)
    return p.returncode, out, err


def _relay_url(pg_cluster, pg_url: str, port: int) -> str:
    return pg_cluster.url(urlsplit(pg_url).path.lstrip("/"), tcp=True, port=port)


# ----------------------------------------------------------------------- a silent line
def test_sync_timeout_relay_frozen_mid_batch_ends_with_one_line(box: Path, pg_url: str,
                                                                pg_cluster) -> None:
    relay = FrozenRelay(pg_cluster.port, after=150_000)
    try:
        code, out, err = _run_cli("--to", _relay_url(pg_cluster, pg_url, relay.port),
                                  "--db", str(box), "--branch", "east", "--batch", "400", *FAST)
    finally:
        relay.close()
    assert relay.frozen.is_set()
    assert code == 1, (out, err)
    _one_line_error(err)
    assert "did not answer for 5 s" in err and "本部から 5 秒間応答がありません" in err
    # the next run starts fresh from the head office's mark and ends equal to the box
    res = sync.run(str(box), pg_url, batch_size=400)
    assert res.differences == [] and res.counted
    _assert_equals_box(pg_url, box, "east")


def test_sync_timeout_relay_frozen_before_sign_in(box: Path, pg_url: str, pg_cluster) -> None:
    relay = FrozenRelay(pg_cluster.port, after=0)
    try:
        code, out, err = _run_cli("--to", _relay_url(pg_cluster, pg_url, relay.port),
                                  "--db", str(box), "--branch", "east", *FAST)
    finally:
        relay.close()
    assert code == 1, (out, err)
    _one_line_error(err)
    assert "Cannot reach the head office" in err and "timeout" in err


def test_sync_timeout_relay_frozen_on_the_way_back(box: Path, pg_url: str, pg_cluster) -> None:
    # the server's answers stop after the sign-in and a few statements
    relay = FrozenRelay(pg_cluster.port, after=4000, upstream=False)
    try:
        code, out, err = _run_cli("--to", _relay_url(pg_cluster, pg_url, relay.port),
                                  "--db", str(box), "--branch", "east", *FAST)
    finally:
        relay.close()
    assert relay.frozen.is_set()
    assert code == 1, (out, err)
    _one_line_error(err)
    assert "did not answer for 5 s" in err


# ----------------------------------------------------------------------- a frozen backend
def _hold(url: str, sql: str) -> object:
    """A session of the test's own that took a lock and keeps it (an open transaction)."""
    conn = pg_schema.connect(url)
    conn.execute("BEGIN")
    conn.execute(sql)
    return conn


def test_sync_timeout_branch_lock_held_by_another_session(box: Path, pg_url: str) -> None:
    sync.run(str(box), pg_url, "east")
    with sqlite_box(box) as c:
        c.execute("UPDATE players SET name = 'renamed' WHERE id = 2")
    other = _hold(pg_url, "SELECT pg_advisory_xact_lock(hashtext('jantaku.sync.east'))")
    try:
        code, out, err = _run_cli("--to", pg_url, "--db", str(box), *FAST)
    finally:
        other.close()  # type: ignore[attr-defined]
    assert code == 1, (out, err)
    _one_line_error(err)
    assert "held a lock for more than 2 s" in err and "rather than queue" in err
    code, out, err = _run_cli("--to", pg_url, "--db", str(box), *FAST)
    assert code == 0, err
    _assert_equals_box(pg_url, box, "east")


def test_sync_timeout_table_locked_for_maintenance(box: Path, pg_url: str) -> None:
    pg_schema.migrate_url(pg_url)
    other = _hold(pg_url, "LOCK TABLE chain.hand_events IN ACCESS EXCLUSIVE MODE")
    try:
        code, out, err = _run_cli("--to", pg_url, "--db", str(box), "--branch", "east", *FAST)
    finally:
        other.close()  # type: ignore[attr-defined]
    assert code == 1, (out, err)
    _one_line_error(err)
    assert "(lock_timeout)" in err
    with pg_schema.connect(pg_url) as pg:  # nothing of the batch is there
        assert pg.execute("SELECT count(*) FROM chain.games").fetchone()[0] == 0


def test_sync_timeout_backend_process_stopped(box: Path, pg_url: str) -> None:
    """The sync's own server process stopped (SIGSTOP) while it waits: the server's
    timers cannot fire, the kernel still acknowledges; the sync's answer bound ends it."""
    sync.run(str(box), pg_url, "east")
    with sqlite_box(box) as c:
        c.execute("UPDATE players SET name = 'renamed' WHERE id = 2")
    other = _hold(pg_url, "SELECT pg_advisory_xact_lock(hashtext('jantaku.sync.east'))")
    watcher = pg_schema.connect(pg_url)
    stopped: list[int] = []
    p = _cli("--to", pg_url, "--db", str(box), "--connect-timeout", "2",
             "--statement-timeout", "4", "--lock-timeout", "60")
    try:
        deadline = time.monotonic() + HUNG
        while not stopped and time.monotonic() < deadline and p.poll() is None:
            row = watcher.execute("SELECT pid FROM pg_stat_activity WHERE application_name = "
                                  "'jantaku-sync' AND wait_event_type = 'Lock'").fetchone()
            if row:
                os.kill(row[0], signal.SIGSTOP)
                stopped.append(row[0])
            time.sleep(0.05)
        out, err = p.communicate(timeout=HUNG)
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        other.close()  # type: ignore[attr-defined]
        watcher.close()
    assert stopped, "the sync never waited for the lock"
    assert p.returncode == 1, (out, err)
    _one_line_error(err)
    assert "did not answer for 6 s" in err


def test_sync_timeout_statement_running_too_long(box: Path, pg_url: str) -> None:
    pg_schema.migrate_url(pg_url)
    with pg_schema.connect(pg_url) as pg:  # a head office whose every game insert is slow
        pg.execute("CREATE FUNCTION chain.slow() RETURNS trigger LANGUAGE plpgsql AS "
                   "$$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$")
        pg.execute("CREATE TRIGGER slow BEFORE INSERT ON chain.games FOR EACH STATEMENT "
                   "EXECUTE FUNCTION chain.slow()")
    code, out, err = _run_cli("--to", pg_url, "--db", str(box), "--branch", "east",
                              "--statement-timeout", "1")
    assert code == 1, (out, err)
    _one_line_error(err)
    assert "did not finish a step within 1 s (statement_timeout)" in err


def test_sync_timeout_frozen_sync_gives_its_lock_up_and_the_next_run_starts_fresh(
        box: Path, pg_url: str) -> None:
    """A sync frozen inside its batch's transaction (the test hook: it sleeps there)
    holds the branch's lock: the next run does not queue behind it (lock_timeout), and
    the server ends the frozen session after its idle bound, so a later run goes on."""
    frozen = _cli("--to", pg_url, "--db", str(box), "--branch", "east", "--batch", "400",
                  "--statement-timeout", "15", env={sync.STOP_ENV: "300"})
    try:
        assert "stopped inside the transaction" in frozen.stdout.readline()  # type: ignore
        code, out, err = _run_cli("--to", pg_url, "--db", str(box), "--lock-timeout", "1",
                                  "--statement-timeout", "30")
        assert code == 1, (out, err)
        _one_line_error(err)
        assert "held a lock for more than 1 s" in err
        # the server drops the frozen session after 15 s idle in its transaction
        code, out, err = _run_cli("--to", pg_url, "--db", str(box), "--lock-timeout", "60",
                                  "--statement-timeout", "90")
        assert code == 0, err
    finally:
        frozen.kill()
        frozen.communicate(timeout=HUNG)
    _assert_equals_box(pg_url, box, "east")


# ----------------------------------------------------------------------- the settings
def test_sync_timeout_settings_out_of_bounds_are_refused_in_words(box: Path,
                                                                  pg_url: str) -> None:
    cases = [(["--statement-timeout", "0"], {}, "--statement-timeout", "1 to 3600"),
             (["--lock-timeout", "soon"], {}, "--lock-timeout", "got soon"),
             ([], {"JANTAKU_SYNC_TCP_USER_TIMEOUT": "99999"}, "JANTAKU_SYNC_TCP_USER_TIMEOUT",
              "1 to 600")]
    for args, env, option, words in cases:
        code, out, err = _run_cli("--to", pg_url, "--db", str(box), "--branch", "east", *args,
                                  env=env)
        assert code == 2, (args, err)
        _one_line_error(err)
        assert option in err and words in err, err
    with pg_schema.connect(pg_url) as pg:  # nothing was sent
        assert pg.execute("SELECT to_regclass('chain.games')").fetchone()[0] is None


def test_sync_timeout_connection_carries_every_bound(pg_url: str) -> None:
    limits = sync_limits.from_args(type("A", (), {"lock_timeout": "7"})(),
                                   {"JANTAKU_SYNC_STATEMENT_TIMEOUT": "45"})
    assert (limits.lock_timeout, limits.statement_timeout, limits.connect_timeout) == (7, 45, 10)
    assert limits.answer == 55
    pg = sync._connect(pg_url, limits)
    try:
        shown = {k: pg.execute(f"SHOW {k}").fetchone()[0] for k in
                 ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout",
                  "tcp_user_timeout", "tcp_keepalives_idle")}
        params = pg.info.get_parameters()
    finally:
        pg.close()
    assert shown["statement_timeout"] == "45s" and shown["lock_timeout"] == "7s"
    assert shown["idle_in_transaction_session_timeout"] == "45s"
    # libpq's own: what this connection was opened with (a Unix socket has no TCP here)
    assert params["connect_timeout"] == "10" and params["tcp_user_timeout"] == "30000"
    assert params["keepalives_idle"] == "10" and params["keepalives_count"] == "3"


def sqlite_box(path: Path):
    import sqlite3

    return sqlite3.connect(path)


@pytest.fixture(autouse=True)
def _no_leftover_env(monkeypatch) -> None:
    for name in sync_limits.SETTINGS:
        monkeypatch.delenv(sync_limits.env_name(name), raising=False)
