"""Helpers for the tablectl daemon tests: simulators on real ptys, a daemon subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from hardware_sim.simulator import Simulator
from tablectl import store

FAST = {"time_scale": 0.001, "boot_seconds": 20.0}  # 70 ms cycles, 20 ms boot


def sim_on_pty(tmp_path: Path, name: str, **kw) -> tuple[Simulator, str]:
    """A started simulator serving a raw pty; returns it and a stable symlink to the pty
    (like /dev/serial/by-id/..., it follows the pty across unplug/plug)."""
    sim = Simulator(name=name, **{**FAST, **kw}).start()
    link = str(tmp_path / f"{name}.tty")
    sim.serve_pty(link_path=link)
    return sim, link


def write_config(tmp_path: Path, tables: dict[str, str], extra: str = "",
                 table_extra: dict[str, str] | None = None) -> Path:
    """A club.toml for ``tables`` (id -> url) with fast reconnects; device lock files in
    ``<tmp>/locks`` (``extra``: more [link] lines; ``table_extra``: lines per table)."""
    (tmp_path / "locks").mkdir(exist_ok=True)
    lines = ['db = "jantaku.db"', 'log_dir = "logs"', 'lock_dir = "locks"',
             "[link]", "backoff_min = 0.02", "backoff_max = 0.2", extra]
    for tid, url in tables.items():
        lines += ["[[tables]]", f'id = "{tid}"', f'name = "卓 {tid}"', f'url = "{url}"',
                  (table_extra or {}).get(tid, "")]
    p = tmp_path / "club.toml"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


class DaemonProcess:
    """``python -m tablectl serve`` as a real subprocess."""

    def __init__(self, config: Path):
        self.config = config
        self.db = str(config.parent / "jantaku.db")
        self.proc: subprocess.Popen | None = None

    def start(self, wait_tables: tuple[str, ...] = (), timeout: float = 60) -> "DaemonProcess":
        """Start the daemon and return once it runs and ``wait_tables`` are connected.
        ``timeout`` is for each wait; it is generous because on a loaded machine a
        starting interpreter gets only a small share of a core."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.log = open(self.config.parent / "daemon.stderr", "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "tablectl", "serve", "--config",
                                      str(self.config)], stdout=self.log, stderr=self.log, env=env)
        wait_until(lambda: store.daemon_status(self.db)["running"]
                   and store.daemon_status(self.db)["pid"] == self.proc.pid, timeout,
                   "daemon never started")
        for tid in wait_tables:
            wait_connected(self.db, tid, timeout)
        return self

    def signal(self, sig) -> None:
        self.proc.send_signal(sig)

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.log.close()

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            self.log.close()
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise AssertionError("daemon did not stop on SIGTERM") from None
        finally:
            self.log.close()
        return rc

    def stderr(self) -> str:
        return (self.config.parent / "daemon.stderr").read_text(errors="replace")


def wait_until(pred, timeout: float, what, interval: float = 0.02):
    """Poll ``pred`` until it is true (returned) or ``timeout`` s pass (AssertionError
    naming ``what``; a callable ``what`` is called then, so it can say what was seen)."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out: {what() if callable(what) else what}")
        time.sleep(interval)


def wait_connected(db, tid: str, timeout: float = 60) -> dict:
    def ok():
        rows = [t for t in store.list_tables(db) if t["table_id"] == tid and t["connected"]]
        return rows[0] if rows else None
    return wait_until(ok, timeout, f"table {tid} never connected")


def ask(db, tid: str, command: str, args: dict | None = None, timeout: float = 20,
        key: str | None = None) -> dict:
    """Request a command through the store and wait for its final row."""
    cid = store.request_command(db, tid, command, args, key)
    row = store.wait_command(db, cid, timeout)
    assert row["status"] in store.TERMINAL, f"{command} on {tid} still {row['status']}: {row}"
    return row


def line_quiet(db, tid: str) -> None:
    """Return once nothing of the daemon's own is on the table's line.

    After a command that changed the table the daemon reads the table's state once more
    (after storing the outcome). A fault switched on while that read is on the wire
    hits the read, not the command the test sends next. A status command that is done
    means that read is over too.
    """
    row = ask(db, tid, "status", timeout=30)
    assert row["status"] == "done", row


def thread_names() -> set[str]:
    return {t.name for t in threading.enumerate()}


def _children() -> set[int]:
    me, out = os.getpid(), set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] != "Z":
                out.add(int(d))
    return out


def _fds() -> set[str]:
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            out.add(f"{fd}->{os.readlink(f'/proc/self/fd/{fd}')}")
        except OSError:
            pass
    return out


def leak_check():
    """Fail a test that leaves threads, open files/ports or child processes behind."""
    threads = set(threading.enumerate())
    fds, kids = _fds(), _children()
    yield
    deadline = time.monotonic() + 5
    while True:
        extra_t = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
        extra_f = {f for f in _fds() - fds if "/dev/pts/" in f or "/dev/ptmx" in f
                   or "socket:" in f or f.endswith(".tty")}
        extra_p = _children() - kids
        if not (extra_t or extra_f or extra_p) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not extra_t, f"leaked threads: {[t.name for t in extra_t]}"
    assert not extra_f, f"leaked ports/files: {sorted(extra_f)}"
    assert not extra_p, f"leaked processes: {sorted(extra_p)}"


class LiveHeartbeat:
    """A table daemon's heartbeat kept fresh, as a running ``tablectl serve`` keeps it, for
    pages that show the tables as connected only while the daemon is alive
    (``store.HEARTBEAT_STALE_S``). Without it a test that writes the heartbeat once is
    racing that limit: on a busy machine a sign-in alone can outlast it."""

    def __init__(self, db_path: str, pid: int = 4242, every: float = 0.5):
        self.db_path, self.pid, self.every = db_path, pid, every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "LiveHeartbeat":
        j = store.Journal(self.db_path)
        try:
            j.heartbeat(pid=self.pid, started=True)
        finally:
            j.close()
        self._thread = threading.Thread(target=self._beat, name="test heartbeat", daemon=True)
        self._thread.start()
        return self

    def _beat(self) -> None:
        j = store.Journal(self.db_path)
        try:
            while not self._stop.wait(self.every):
                try:
                    j.heartbeat(pid=self.pid)
                except Exception:       # the file is locked a moment: beat again next time
                    pass
        finally:
            j.close()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
