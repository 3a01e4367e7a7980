"""The staff console's table commands against the real daemon and a simulated table on a
pty, at the same time as the ``tablectl`` CLI: one command in flight per table, the other
refused in words naming what runs, who asked and since when; a mode change during a cycle
waits as pending; the floor shows the daemon's codes in the reader's language."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

import pytest

from club import club_tables
from club.accounts import create_staff
from tablectl import store
from tests.support.tablectl import DaemonProcess, sim_on_pty, wait_until, write_config
from web import create_app
from web.db import get_db

pytestmark = pytest.mark.slow


@pytest.fixture
def club(tmp_path):
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.03)        # 2.1 s cycles
    cfg = write_config(tmp_path, {"t1": path})
    app = create_app({"DATABASE": str(tmp_path / "jantaku.db"), "SECRET_KEY": "k",
                      "TESTING": True, "TABLE_COMMAND_WAIT": 1.0})
    with app.app_context():
        create_staff(get_db(), "mika", "mahjong-club")
        club_tables.save_table(get_db(), "t1", "卓1", "nekohouse-4a")
    d = DaemonProcess(cfg)
    try:
        d.start(wait_tables=("t1",))
        sim.sticks_for(1)
        yield app, d, sim
    finally:
        d.stop()
        sim.stop()


def staff_client(app):
    c = app.test_client()
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    c.post("/auth/login", data={"name": "mika", "password": "mahjong-club", "csrf_token": token})
    return c


def console(c, body: dict, lang: str = "ja"):
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    return c.post(f"/staff/tables/t1/command?lang={lang}", json=body,
                  headers={"X-CSRF-Token": token, "Accept": "application/json"})


def cli(db: str, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablectl", *argv, "--db", db, "--lang", "ja"],
                          capture_output=True, text=True, timeout=60)


def test_cycle_from_the_cli_and_the_console_at_once_runs_one_cycle(club):
    app, d, sim = club
    c = staff_client(app)
    barrier = threading.Barrier(2)
    got: dict = {}

    def from_cli():
        barrier.wait()
        got["cli"] = cli(d.db, "cycle", "t1")

    def from_console():
        barrier.wait()
        got["web"] = console(c, {"command": "cycle"})

    threads = [threading.Thread(target=from_cli), threading.Thread(target=from_console)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    web, out = got["web"], got["cli"]
    refused_web = web.status_code == 409
    if refused_web:         # the CLI got there first: the console names it
        assert out.returncode == 0, out.stdout + out.stderr
        assert re.fullmatch(r"t1: サイクル実行中 \(\S+, \d\d:\d\d\)", web.get_json()["error"][
            "message"])
    else:                   # the console got there first: the CLI names mika
        assert web.status_code in (200, 202), web.get_json()
        assert out.returncode == 1 and re.fullmatch(r"t1: サイクル実行中 \(mika, \d\d:\d\d\)\n",
                                                    out.stdout), out.stdout + out.stderr
    wait_until(lambda: store.in_flight(d.db, "t1") is None, 30, "the cycle ended")
    assert sim.executed_names().count("START_CYCLE") == 1
    rows = store.list_commands(d.db, "t1")
    assert [r["command"] for r in rows if r["command"] == "cycle"] == ["cycle"]


def test_two_mode_changes_at_once_one_runs_the_other_is_refused(club, capsys):
    """`mode t1 3` from the CLI (its code, in this process, so both start within a few
    milliseconds) and mode 2 from the console at the same moment, on a slow line."""
    from tablectl import cli as tablectl_cli

    app, d, sim = club
    c = staff_client(app)
    sim.faults.set(delay=0.6, direction="tx")       # each command stays in flight 0.6 s
    barrier = threading.Barrier(2)
    got: dict = {}

    def from_cli():
        barrier.wait()
        got["cli"] = tablectl_cli.main(["mode", "t1", "3", "--db", d.db, "--lang", "ja"])

    def from_console():
        barrier.wait()
        got["web"] = console(c, {"command": "mode", "mode": "2"}, lang="en")

    threads = [threading.Thread(target=from_cli), threading.Thread(target=from_console)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    out = capsys.readouterr().out
    # the console's command runs: 200 done within its wait, 202 still under way (a slow
    # machine); the other is refused (409)
    ok = [got["cli"] == 0, got["web"].status_code in (200, 202)]
    assert sorted(ok) == [False, True], (out, got["web"].get_json())
    if not ok[1]:
        assert got["web"].status_code == 409
        assert "mode change in progress" in got["web"].get_json()["error"]["message"]
    else:
        assert got["cli"] == 1 and "モード変更中 (mika, " in out
        ran = store.wait_command(d.db, got["web"].get_json()["command"]["id"], 30)
        assert ran["status"] == "done", ran
    sim.faults.clear()
    assert sim.executed_names().count("SELECT_MODE") == 1       # never both, never silently
    assert sim.state().pending_mode == (3 if ok[0] else 2)


def test_mode_change_during_a_cycle_is_pending_then_done(club):
    app, d, sim = club
    c = staff_client(app)
    r = console(c, {"command": "cycle"}, lang="en")
    assert r.status_code == 202 and "cycle in progress" in r.get_json()["message"]
    r = console(c, {"command": "mode", "mode": "yonma-hana"}, lang="en")
    assert r.status_code == 202, r.get_json()
    assert "mode change: sent when the cycle under way has ended" in r.get_json()["message"]
    cid = r.get_json()["command"]["id"]
    row = store.wait_command(d.db, cid, 30)
    assert row["status"] == "done" and row["result"]["pending_mode"] == 2, row
    # the daemon reads the table's state back just after it journals the result
    def t1_state():
        floor = c.get("/staff/floor.json?lang=en").get_json()
        return next(t for t in floor["tables"] if t["table_id"] == "t1")
    wait_until(lambda: t1_state()["pending_mode"] == 2, 10, "the pending mode on the floor")
    t1 = t1_state()
    assert t1["connected"] is True
    assert "mode 02 four-player flowers 140 selected" in t1["last_command"]["message"]
    assert t1["commands"] == ["status", "mode", "cycle", "dice", "deal", "check", "points",
                              "reset"]


def test_floor_shows_a_disconnected_table_and_its_reason_in_the_readers_language(club):
    app, d, sim = club
    c = staff_client(app)
    sim.unplug()
    wait_until(lambda: store.get_table(d.db, "t1")["connected"] == 0, 10, "unplugged")
    ja = next(t for t in c.get("/staff/floor.json?lang=ja").get_json()["tables"]
              if t["table_id"] == "t1")
    en = next(t for t in c.get("/staff/floor.json?lang=en").get_json()["tables"]
              if t["table_id"] == "t1")
    assert ja["connected"] is False and ja["last_error_code"] in ("lost", "port_missing")
    assert ja["last_error"] != en["last_error"]
    assert ("通信が切れました" in ja["last_error"] or "ありません" in ja["last_error"])
    assert any("切断" in e["message"] for e in ja["events"])
    assert any("disconnected" in e["message"] for e in en["events"])
    sim.plug()
