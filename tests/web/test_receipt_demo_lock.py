"""The demo's built-in print worker holds the club file's one-worker lock, as the
``print-worker`` command does: a separate worker started beside it is refused (two would
race for the same jobs), and the lock is free again once the demo's printer stops."""

from __future__ import annotations

import subprocess
import sys
import threading

from web.cli import _start_demo_printer


def _print_worker(db: str, tmp_path) -> subprocess.CompletedProcess:
    cfg = tmp_path / "club.toml"
    cfg.write_text('[printer]\nkind = "file"\npath = "other.bin"\n', encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "web", "print-worker", "--db", db,
                           "--config", str(cfg), "--once"],
                          capture_output=True, text=True, timeout=120)


def _demo_thread() -> threading.Thread:
    return next(t for t in threading.enumerate() if t.name == "demo-printer")


def test_receipt_demo_printer_holds_the_one_worker_lock(app, tmp_path):
    db = app.config["DATABASE"]
    worker = _start_demo_printer(db, tmp_path)
    assert worker is not None
    thread = _demo_thread()
    try:
        beside = _print_worker(db, tmp_path)
        assert beside.returncode == 2 and "already running" in beside.stderr
    finally:
        worker.stopping.set()
        thread.join(30)
    assert not thread.is_alive()
    assert _print_worker(db, tmp_path).returncode == 0     # the lock went with the demo's


def test_receipt_demo_printer_starts_none_beside_a_running_worker(app, tmp_path):
    import fcntl

    db = app.config["DATABASE"]
    with open(f"{db}-print.lock", "a") as held:            # a print-worker already runs
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert _start_demo_printer(db, tmp_path) is None
    assert not any(t.name == "demo-printer" for t in threading.enumerate())
