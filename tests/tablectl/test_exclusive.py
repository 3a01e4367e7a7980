"""Exclusive open: one program drives a table's port. Two processes opening one real pty:
the second is refused in words naming the holder's pid, and the table is not driven twice."""

import os
import subprocess
import sys
import time

import pytest

from tablectl import store
from tablectl import words as table_words
from tablectl.serialport import holder_of, lock_path
from tests.support.tablectl import DaemonProcess, ask, sim_on_pty, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]

PROBE = """
import sys
from tablectl.serialport import open_port
from tablectl.settings import SerialSettings
from tablectl.errors import TableError
try:
    open_port(sys.argv[1], SerialSettings(), lock_dir=sys.argv[2] or None)
except TableError as e:
    print(e.code, e.values.get("pid"), e.text("en"))
else:
    print("opened")
"""


def probe(url: str, lock_dir: str = "") -> str:
    r = subprocess.run([sys.executable, "-c", PROBE, url, lock_dir], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_a_second_program_on_the_port_is_refused_with_the_holders_pid(tmp_path):
    sim, link = sim_on_pty(tmp_path, "t1")
    d = DaemonProcess(write_config(tmp_path, {"t1": link}))
    try:
        d.start(wait_tables=("t1",))
        pty = os.path.realpath(link)
        lock = lock_path(pty, str(tmp_path / "locks"))
        assert open(lock).read().strip() == str(d.proc.pid)       # the UUCP lock file
        # a program that reads lock files
        code, pid, words = probe(link, str(tmp_path / "locks")).split(" ", 2)
        assert (code, pid) == ("port_busy", str(d.proc.pid))
        assert f"is in use by another program (pid {d.proc.pid} python" in words
        # a program that does not: the flock on the device stops it, the holder is named
        code, pid, _ = probe(link).split(" ", 2)
        assert (code, pid) == ("port_busy", str(d.proc.pid))
        assert holder_of(pty)[0] == d.proc.pid
        before = sim.executed_names().count("STATUS")
        assert ask(d.db, "t1", "status")["status"] == "done"
        assert sim.executed_names().count("STATUS") == before + 1   # driven by one only
    finally:
        d.stop()
        sim.stop()
    assert not os.path.exists(lock)                                 # released at stop


def test_a_second_daemon_with_another_database_does_not_drive_the_table(tmp_path):
    sim, link = sim_on_pty(tmp_path, "t1", time_scale=0.03)
    first = DaemonProcess(write_config(tmp_path, {"t1": link}))
    other = tmp_path / "other"
    other.mkdir()
    second = DaemonProcess(write_config(other, {"t1": link}))
    try:
        first.start(wait_tables=("t1",))
        second.start()
        wait_until(lambda: store.get_table(second.db, "t1")["last_error"] == "port_busy", 20,
                   "the second daemon is refused")
        t1 = store.get_table(second.db, "t1")
        assert t1["connected"] == 0 and t1["last_error_values"]["pid"] == first.proc.pid
        assert f"(pid {first.proc.pid} " in table_words.link("port_busy", "en",
                                                             t1["last_error_values"])
        assert "使用中" in table_words.link("port_busy", "ja", t1["last_error_values"])
        sim.sticks_for(1)
        assert ask(first.db, "t1", "cycle", timeout=30)["status"] == "done"
        time.sleep(0.3)
        assert sim.executed_names().count("START_CYCLE") == 1
        assert sim.executed_names().count("HELLO") == 1          # greeted by one daemon only
        # once the first daemon is gone, the second one takes the table over by itself
        assert first.stop() == 0
        wait_until(lambda: store.get_table(second.db, "t1")["connected"] == 1, 20,
                   "the second daemon connects")
    finally:
        first.stop()
        second.stop()
        sim.stop()


def test_a_stale_lock_file_of_a_dead_process_is_taken_over(tmp_path):
    sim, link = sim_on_pty(tmp_path, "t1")
    cfg = write_config(tmp_path, {"t1": link})
    lock = lock_path(os.path.realpath(link), str(tmp_path / "locks"))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    with open(lock, "w") as f:
        f.write(f"{int(dead):10d}\n")
    d = DaemonProcess(cfg)
    try:
        d.start(wait_tables=("t1",))
        assert open(lock).read().strip() == str(d.proc.pid)
    finally:
        d.stop()
        sim.stop()
