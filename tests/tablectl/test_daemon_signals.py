"""The daemon under systemd: READY/WATCHDOG over NOTIFY_SOCKET, SIGTERM stops cleanly
(journalling the in-flight command), SIGHUP reloads the config, per-table traffic logs."""

import os
import signal
import socket
import time

import pytest

from tablectl import store
from tests.support.tablectl import (
    DaemonProcess,
    ask,
    sim_on_pty,
    wait_connected,
    wait_until,
    write_config,
)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


@pytest.fixture
def sims(tmp_path):
    made = {}

    def make(name, **kw):
        made[name] = sim_on_pty(tmp_path, name, **kw)
        return made[name]
    yield make
    for sim, _ in made.values():
        sim.stop()


@pytest.fixture
def notify_socket(tmp_path, monkeypatch):
    path = str(tmp_path / "notify.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(10)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "400000")   # ping every 0.2 s
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    yield s
    s.close()


def _messages(sock, until: str, limit: int = 50) -> list[str]:
    got = []
    while until not in got and len(got) < limit:
        got += sock.recv(4096).decode().split("\n")
    return got


def test_notify_ready_watchdog_and_stopping(tmp_path, sims, notify_socket):
    sim, path = sims("t1")
    d = DaemonProcess(write_config(tmp_path, {"t1": path})).start(wait_tables=("t1",))
    try:
        msgs = _messages(notify_socket, "READY=1")
        assert "READY=1" in msgs
        assert _messages(notify_socket, "WATCHDOG=1").count("WATCHDOG=1") >= 1
    finally:
        assert d.stop() == 0
    assert "STOPPING=1" in _messages(notify_socket, "STOPPING=1")


def test_sigterm_stops_cleanly_and_a_running_cycle_is_resolved_on_restart(tmp_path, sims):
    sim, path = sims("t1", time_scale=0.02)
    d = DaemonProcess(write_config(tmp_path, {"t1": path})).start(wait_tables=("t1",))
    sim.sticks_for(1)
    cid = store.request_command(d.db, "t1", "cycle")
    sim.wait_for(lambda st: st.cycle.name == "CYCLING", timeout=10)
    assert d.stop() == 0
    assert store.daemon_status(d.db)["running"] is False
    assert store.get_table(d.db, "t1")["connected"] == 0
    assert store.get_command(d.db, cid)["status"] == "sending"   # journalled, with its seq
    d.start(wait_tables=("t1",))
    assert store.wait_command(d.db, cid, 30)["status"] == "done"
    assert sim.executed_names().count("START_CYCLE") == 1
    assert d.stop() == 0


def test_sighup_adds_removes_and_keeps_tables(tmp_path, sims):
    s1, p1 = sims("t1")
    s2, p2 = sims("t2")
    cfg = write_config(tmp_path, {"t1": p1})
    d = DaemonProcess(cfg).start(wait_tables=("t1",))
    try:
        write_config(tmp_path, {"t1": p1, "t2": p2})
        d.signal(signal.SIGHUP)
        wait_connected(d.db, "t2")
        assert ask(d.db, "t2", "points")["status"] == "done"
        write_config(tmp_path, {"t2": p2})
        d.signal(signal.SIGHUP)
        wait_until(lambda: [t["table_id"] for t in store.list_tables(d.db)] == ["t2"], 10,
                   "t1 removed")
        with pytest.raises(store.UnknownTable):
            store.request_command(d.db, "t1", "status")
        # a broken file is refused; the running tables carry on
        cfg.write_text("db = 3\n[[tables]]\n")
        d.signal(signal.SIGHUP)
        assert ask(d.db, "t2", "status")["status"] == "done"
        wait_until(lambda: "config reload refused" in d.stderr(), 10, "reload refusal logged")
    finally:
        assert d.stop() == 0


def test_each_table_logs_its_traffic_and_dumps_frames_on_failure(tmp_path, sims):
    sim, path = sims("t1")
    d = DaemonProcess(write_config(tmp_path, {"t1": path})).start(wait_tables=("t1",))
    try:
        assert ask(d.db, "t1", "status")["status"] == "done"
        sim.faults.set(drop=1.0, direction="tx")
        cid = store.request_command(d.db, "t1", "status")
        wait_until(lambda: store.get_table(d.db, "t1")["connected"] == 0, 30, "link timeout")
        sim.faults.clear()
        wait_connected(d.db, "t1")
        assert store.wait_command(d.db, cid, 30)["status"] == "done"  # resolved, not lost
    finally:
        assert d.stop() == 0
    text = (tmp_path / "logs" / "t1.log").read_text(encoding="utf-8")
    assert "-> a5" in text and "<- a5" in text           # frames in hex, both directions
    assert "last frames:" in text and "Status" in text     # dumped with the failure
    assert os.path.getsize(tmp_path / "logs" / "t1.log") > 0


def test_bad_config_is_refused_in_words(tmp_path):
    import subprocess
    import sys

    cfg = tmp_path / "club.toml"
    cfg.write_text('db = "x.db"\n[[tables]]\nid = "t 1"\nurl = "sim://"\n')
    r = subprocess.run([sys.executable, "-m", "tablectl", "serve", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "id = 't 1' is not allowed; allowed values: 1-32 letters" in r.stderr
    assert "Traceback" not in r.stderr


def test_watchdog_pings_only_while_every_table_loop_makes_progress(tmp_path, sims,
                                                                    notify_socket, monkeypatch):
    """A manager stuck in a call that never returns stops the pings (systemd then restarts
    the daemon); waiting on a table or a locked database is progress, not being stuck."""
    import threading

    from tablectl import daemon

    monkeypatch.setattr(daemon, "STUCK_MIN_S", 0.6)
    _, p1 = sims("t1")
    _, p2 = sims("t2")
    dm = daemon.Daemon(str(write_config(tmp_path, {"t1": p1, "t2": p2})))
    runner = threading.Thread(target=dm.run, name="daemon-under-test")
    runner.start()
    gate = threading.Event()
    try:
        assert "READY=1" in _messages(notify_socket, "READY=1")
        wait_connected(dm.cfg.db, "t1")
        assert "WATCHDOG=1" in _messages(notify_socket, "WATCHDOG=1")
        m = dm.managers["t1"]
        m.driver.refresh = lambda: (gate.wait(), None)[1]      # a call that hangs
        m.state_dirty = True
        m.wake.set()
        wait_until(lambda: not dm.progressing(0.6), 10, "the stuck loop is noticed")
        time.sleep(0.3)
        notify_socket.setblocking(False)
        try:
            while notify_socket.recv(4096):         # pings sent before it was noticed
                pass
        except BlockingIOError:
            pass
        notify_socket.settimeout(0.2)
        got = []
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            try:
                got += notify_socket.recv(4096).decode().split("\n")
            except TimeoutError:
                pass
        assert "WATCHDOG=1" not in got
        gate.set()                                              # the call returns
        notify_socket.settimeout(10)
        assert "WATCHDOG=1" in _messages(notify_socket, "WATCHDOG=1")
    finally:
        gate.set()
        dm.stop_requested.set()
        runner.join(30)


def test_a_table_speaking_another_protocol_version_is_left_alone_until_a_reload(tmp_path,
                                                                                 sims):
    """docs/protocol.md section 11: the host stops and reports it; no HELLO every 0.5 s."""
    from tablectl import words

    sim, path = sims("t1", protocol_version=2)
    d = DaemonProcess(write_config(tmp_path, {"t1": path})).start()
    try:
        wait_until(lambda: store.get_table(d.db, "t1")["last_error"] == "unsupported_version",
                   20, "the table's version reported")
        t1 = store.get_table(d.db, "t1")
        assert t1["connected"] == 0 and t1["last_error_values"] == {"version": 2, "ours": 1}
        assert "protocol version 2" in words.link(t1["last_error"], "en", t1["last_error_values"])
        time.sleep(2)
        assert sim.executed_names().count("HELLO") == 1
        d.signal(signal.SIGHUP)                                 # staff updated: try again
        wait_until(lambda: sim.executed_names().count("HELLO") == 2, 10, "tried again")
    finally:
        assert d.stop() == 0
