"""``python -m chain sync`` on the box's side of things: a club file the table daemon
created first is brought up to date and sent, a full disk is one line in words (the
club file on a tmpfs of a few kilobytes in a private mount namespace), and a
head office session ended under the sync says what the next run sends again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chain import pg_schema, sync
from tests.chain import test_sync
from tests.chain.test_sync import ROOT, _assert_equals_box, _cli, _one_line_error

HUNG = 120


def _daemon_box(tmp_path: Path) -> Path:
    """A club file as the table daemon makes it when it starts first: its tables only."""
    from tablectl import store

    path = tmp_path / "club.sqlite"
    store.open_db(str(path)).conn.close()
    return path


def test_sync_a_box_the_daemon_created_first_is_migrated_and_sent(tmp_path: Path,
                                                                  pg_url: str) -> None:
    path = _daemon_box(tmp_path)
    import sqlite3

    with sqlite3.connect(path) as c:  # the daemon's file has no change log yet
        assert not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'chain_box'").fetchone()
    p = _cli("--to", pg_url, "--db", str(path), "--branch", "east")
    out, err = p.communicate(timeout=HUNG)
    assert p.returncode == 0, err
    assert err == "" and "branch east" in out
    _assert_equals_box(pg_url, path, "east")


def _on_a_small_disk(tmp_path: Path, path: Path, free: int, *args: str) -> list[str]:
    """The sync run on a copy of ``path`` on a file system of its own (a tmpfs in a
    private mount namespace) with about ``free`` bytes left: the file cannot grow."""
    if not shutil.which("unshare") or subprocess.run(
            ["unshare", "-Urm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no user and mount namespaces here (unshare -Urm) for a small disk")
    disk = tmp_path / f"disk{free}"
    disk.mkdir()
    size = (path.stat().st_size // 4096 + 1) * 4096 + free
    script = (f"mount -t tmpfs -o size={size} tmpfs {disk} && cp {path} {disk}/club.sqlite "
              f"&& exec {sys.executable} -m web sync --db {disk}/club.sqlite " + " ".join(args))
    return ["unshare", "-Urm", "sh", "-c", script]


@pytest.mark.parametrize("free", [4096, 40960], ids=["at_the_check", "at_the_migration"])
def test_sync_a_full_disk_at_a_first_sync_is_one_line(tmp_path: Path, pg_url: str,
                                                      free: int) -> None:
    """With 4 KB left SQLite's own check of the file fails (it cannot make its shared
    memory): a full disk, not a damaged file; with 40 KB the change log's tables do not
    fit (SQLITE_FULL)."""
    path = _daemon_box(tmp_path)
    cmd = _on_a_small_disk(tmp_path, path, free, "--to", f"'{pg_url}'", "--branch", "east")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=HUNG, cwd=ROOT)
    assert p.returncode == 2, (p.stdout, p.stderr)
    _one_line_error(p.stderr)
    assert "disk is full" in p.stderr and "ディスクがいっぱい" in p.stderr
    assert "damaged" not in p.stderr and "restore" not in p.stderr
    with pg_schema.connect(pg_url) as pg:  # nothing was sent
        assert pg.execute("SELECT to_regclass('chain.branches')").fetchone()[0] is None
    # with room on the disk the same file syncs
    q = _cli("--to", pg_url, "--db", str(path), "--branch", "east")
    out, err = q.communicate(timeout=HUNG)
    assert q.returncode == 0, err
    _assert_equals_box(pg_url, path, "east")


club_file, box = test_sync.club_file, test_sync.box  # the same small club, a copy each


def test_sync_head_office_session_ended_says_what_the_next_run_sends(box: Path,
                                                                     pg_url: str) -> None:
    """The server ends the sync's session mid-run (as a crash of PostgreSQL does): one
    line that says the batch in flight is not stored and the next run sends everything
    after the head office's mark, never that the sent changes "are stored"."""
    path = box
    sync.run(str(path), pg_url, "east")
    import sqlite3

    with sqlite3.connect(path) as c:
        c.execute("UPDATE players SET name = 'renamed' WHERE id = 2")
    other = pg_schema.connect(pg_url)
    other.execute("BEGIN")
    other.execute("SELECT pg_advisory_xact_lock(hashtext('jantaku.sync.east'))")
    watcher = pg_schema.connect(pg_url)  # out of a transaction: the activity seen now
    p = _cli("--to", pg_url, "--db", str(path), "--lock-timeout", "60")
    ended = False
    try:
        deadline = time.monotonic() + HUNG
        while not ended and time.monotonic() < deadline and p.poll() is None:
            ended = bool(watcher.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                "application_name = 'jantaku-sync' AND wait_event_type = 'Lock'").fetchone()[0])
            time.sleep(0.05)
        out, err = p.communicate(timeout=HUNG)
    finally:
        other.close()
        watcher.close()
    assert ended, (p.returncode, out, err)
    assert p.returncode == 1, (out, err)
    _one_line_error(err)
    assert "the batch in flight is not stored" in err
    assert "sends every change after the last one the head office holds" in err
    assert "are stored" not in err and "保存され、" not in err
    assert os.path.exists(path)
