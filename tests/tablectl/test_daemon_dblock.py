"""The shared database write-locked by another process for 25 s: the daemon waits it out
(no crash, no lost event), its heartbeat goes stale meanwhile and the CLI says so instead
of showing the tables as connected; afterwards everything carries on by itself."""

import re
import subprocess
import sys
import time

import pytest

from tablectl import cli, store
from tests.support.tablectl import DaemonProcess, ask, sim_on_pty, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]

HOLD = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE table_state SET name = name")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("COMMIT")
"""


def test_a_25_s_database_lock_is_waited_out(tmp_path, capsys):
    sim, path = sim_on_pty(tmp_path, "t1", mode=1)
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        locker = subprocess.Popen([sys.executable, "-c", HOLD, d.db, "25"],
                                  stdout=subprocess.PIPE, text=True)
        assert locker.stdout.readline().strip() == "locked"
        t0 = time.monotonic()
        sim.open_lid()                          # events while the store cannot be written
        sim.close_lid()
        wait_until(lambda: store.daemon_status(d.db)["state"] == "stale", 15, "stale heartbeat")
        assert cli.main(["status", "--db", d.db, "--lang", "en"]) == 0
        out = capsys.readouterr().out
        assert re.search(r"daemon: NOT answering \(last heartbeat \d+ s ago", out)
        assert "t1 (卓 t1): unknown (the daemon is not answering)" in out
        assert "DISCONNECTED" not in out and "AMOS" not in out
        # a staff command cannot be written either: said in words, nothing sent
        rc = cli.main(["points", "t1", "--db", d.db, "--lang", "en"])
        assert rc == 2 and "locked by another program; nothing was sent" in capsys.readouterr().err
        while time.monotonic() - t0 < 24:
            assert d.proc.poll() is None, d.stderr()     # still running, never exits
            time.sleep(1)
        assert locker.wait(30) == 0
        locker.stdout.close()
        wait_until(lambda: store.daemon_status(d.db)["running"], 15, "heartbeat resumed")
        wait_until(lambda: {"lid_opened", "lid_closed"} <= {
            e["kind"] for e in store.recent_events(d.db, "t1", 20)}, 15, "events stored")
        assert ask(d.db, "t1", "points")["status"] == "done"
        assert "database is locked by another process" in d.stderr()
        assert "Traceback" not in d.stderr()
    finally:
        d.stop()
        sim.stop()
