"""``python -m web backup`` while tablets write, then ``restore``: the app starts on the
restored file and every hand acknowledged before the backup began is in it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from club import backup, club_tables, games, roster
from club.db import connect
from tests.support.web_server import ROOT, WebServer
from web import create_app
from web.security import issue_tablet_token

pytestmark = pytest.mark.slow
TABLES = ("t1", "t2", "t3", "t4")


def cli(*argv):
    return subprocess.run([sys.executable, "-m", "web", *argv], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def club(path: str) -> dict:
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True})
    db = connect(path)
    tokens = {}
    for n, tid in enumerate(TABLES):
        club_tables.save_table(db, tid, tid, "nekohouse-4a")
        ids = [roster.add_player(db, f"P{n}{i}")["id"] for i in range(4)]
        games.start_game(db, tid, ids, idempotency_key=uuid.uuid4().hex)
        tokens[tid] = issue_tablet_token(db, tid)
    db.conn.close()
    return tokens


def post(url: str, token: str, body: dict) -> int:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_backup_during_writes_then_restore(tmp_path):
    path = str(tmp_path / "club.sqlite")
    tokens = club(path)
    server = WebServer(path).start()
    acked: list[tuple[float, str]] = []
    stop = threading.Event()

    def tablet(tid):
        seq = 1
        while not stop.is_set():
            k = uuid.uuid4().hex
            status = post(f"{server.url}/api/tables/{tid}/hands", tokens[tid],
                          {"event": {"event": "draw", "tenpai": [0, 1, 2, 3]},
                           "expected_seq": seq, "idempotency_key": k})
            if status == 201:
                acked.append((time.monotonic(), k))
                seq += 1

    writers = [threading.Thread(target=tablet, args=(t,)) for t in TABLES]
    try:
        for w in writers:
            w.start()
        time.sleep(1.5)
        began = time.monotonic()
        r = cli("backup", "--db", path, "--dir", str(tmp_path / "backups"), "--keep", "3")
        assert r.returncode == 0, r.stderr
        time.sleep(0.5)  # the tablets go on recording after the backup
    finally:
        stop.set()
        for w in writers:
            w.join(30)
        server.stop()
    before = {k for at, k in acked if at < began}
    assert len(before) > 20 and len(acked) > len(before)
    [copy] = backup.list_backups(tmp_path / "backups")
    assert copy.stat().st_mode & 0o777 == 0o600 and backup.check_database(copy) == []

    r = cli("restore", str(copy), "--db", path)
    assert r.returncode == 0, r.stderr
    assert "before-restore" in r.stdout
    restarted = WebServer(path).start()  # the app starts on the restored file
    try:
        db = sqlite3.connect(path)
        keys = {row[0] for row in db.execute("SELECT idempotency_key FROM hand_events")}
        db.close()
        assert before <= keys  # nothing acknowledged before the backup began is missing
        assert len(keys) < len(acked) + 4 + len(TABLES)  # and later hands are not in it
        with urllib.request.urlopen(restarted.url + "/api/tables/t1", timeout=10) as resp:
            view = json.loads(resp.read())["game"]
        status = post(f"{restarted.url}/api/tables/t1/hands", tokens["t1"],
                      {"event": {"event": "draw", "tenpai": [0]},
                       "expected_seq": view["next_seq"], "idempotency_key": uuid.uuid4().hex})
        assert status == 201  # and the club carries on from it
    finally:
        restarted.stop()


def test_rotation_keeps_the_newest(tmp_path):
    path = str(tmp_path / "club.sqlite")
    club(path)
    start = datetime(2026, 4, 1, tzinfo=timezone.utc)
    for h in range(5):
        backup.backup(path, tmp_path / "b", keep=3, now=start + timedelta(hours=h))
    names = [p.name for p in backup.list_backups(tmp_path / "b")]
    assert names == ["jantaku-20260401T020000Z.sqlite", "jantaku-20260401T030000Z.sqlite",
                     "jantaku-20260401T040000Z.sqlite"]


def test_restore_checks_before_it_replaces_anything(tmp_path):
    path = str(tmp_path / "club.sqlite")
    club(path)
    original = open(path, "rb").read()
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE x (a)").connection.close()
    newer = tmp_path / "newer.sqlite"
    good = backup.backup(path, tmp_path / "b")
    newer.write_bytes(good.read_bytes())
    conn = sqlite3.connect(newer)
    conn.execute("INSERT INTO clubdb_migrations VALUES ('games', 'from_the_future', '')")
    conn.commit()
    conn.close()
    for bad, words in ((broken, "not a readable SQLite database"),
                       (other, "not a Jantaku club database"),
                       (newer, "newer version of Jantaku"),
                       (tmp_path / "missing.sqlite", "there is no backup")):
        r = cli("restore", str(bad), "--db", path)
        assert r.returncode == 2 and words in r.stderr, r.stderr
        assert open(path, "rb").read() == original  # nothing was changed
    assert not list(tmp_path.glob("club.sqlite.before-restore-*"))


def test_the_systemd_units_run_commands_the_cli_accepts():
    from club.backup.__main__ import build_parser as backup_parser
    from web.cli import build_parser

    for unit, module, parser in (("jantaku-backup.service", "club.backup", backup_parser),
                                 ("jantaku-web.service", "web", build_parser)):
        text = (ROOT / "deploy" / unit).read_text()
        line = next(x for x in text.splitlines() if x.startswith("ExecStart="))
        argv = line.split(f"-m {module} ", 1)[1].split()
        args = parser().parse_args(argv)
        assert args.db and (module != "web" or args.func.__name__ == "cmd_serve")
    timer = (ROOT / "deploy" / "jantaku-backup.timer").read_text()
    assert "Unit=jantaku-backup.service" in timer and "OnCalendar=" in timer


def _empty_club(path) -> None:
    """A sound club file with no player and no game (what a mistaken fresh start holds)."""
    create_app({"DATABASE": str(path), "SECRET_KEY": "x", "TESTING": True})


def test_rotation_never_removes_the_newest_good_backup_whatever_the_newer_ones_hold(tmp_path):
    path = str(tmp_path / "club.sqlite")
    club(path)
    folder = tmp_path / "b"
    start = datetime(2026, 4, 1, tzinfo=timezone.utc)
    good = [backup.backup(path, folder, keep=10, now=start + timedelta(hours=h))
            for h in range(2)]
    empty = tmp_path / "empty.sqlite"
    _empty_club(empty)
    for h in (2, 3):  # newer copies of an empty club, as an older version wrote them
        (folder / f"jantaku-20260401T0{h}0000Z.sqlite").write_bytes(empty.read_bytes())
    (folder / "jantaku-20260401T040000Z.sqlite").write_bytes(b"SQLite format 3\x00" + b"\1" * 99)
    gone = backup.prune(folder, keep=2)
    assert good[0] in gone and good[1] not in gone
    assert [p.name for p in backup.list_backups(folder)] == [
        good[1].name, "jantaku-20260401T030000Z.sqlite", "jantaku-20260401T040000Z.sqlite"]


def test_an_empty_or_damaged_database_is_not_backed_up_and_the_good_ones_stay(tmp_path):
    path = str(tmp_path / "club.sqlite")
    club(path)
    folder = tmp_path / "b"
    start = datetime(2026, 4, 1, tzinfo=timezone.utc)
    for h in range(3):
        backup.backup(path, folder, keep=3, now=start + timedelta(hours=h))
    before = sorted(p.name for p in folder.iterdir())
    empty = tmp_path / "empty.sqlite"
    _empty_club(empty)
    zero = tmp_path / "zero.sqlite"
    zero.write_bytes(b"")
    for db, words in ((empty, "holds no player and no game"), (zero, "failed its check")):
        r = cli("backup", "--db", str(db), "--dir", str(folder), "--keep", "2")
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert sorted(p.name for p in folder.iterdir()) == before


def test_temporary_copies_of_a_killed_run_are_removed_by_the_next_run(tmp_path):
    path = str(tmp_path / "club.sqlite")
    club(path)
    folder = tmp_path / "b"
    folder.mkdir(mode=0o700)
    gone_pid = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout.strip()
    dead = [f".jantaku-20260401T000000Z.sqlite.{gone_pid}.tmp",
            f".jantaku-20260401T000000Z.sqlite.{gone_pid}.tmp-journal",
            ".jantaku-20260331T230000Z.sqlite.tmp"]  # the name older versions used
    running = f".jantaku-20260401T010000Z.sqlite.{os.getpid()}.tmp"  # a run still going
    for name in (*dead, running):
        (folder / name).write_bytes(b"\0" * 1024)
    r = cli("backup", "--db", path, "--dir", str(folder))
    assert r.returncode == 0, r.stderr
    assert "removed 3 temporary file(s)" in r.stdout
    left = sorted(p.name for p in folder.iterdir())
    assert running in left and not set(dead) & set(left)
    assert len(backup.list_backups(folder)) == 1


def test_a_real_killed_backup_leaves_nothing_the_next_run_keeps(tmp_path):
    path = str(tmp_path / "club.sqlite")
    club(path)
    db = connect(path)
    with db.conn:  # a bigger file, so the copy is still being written when it is killed
        db.conn.execute("CREATE TABLE ballast (x)")
        db.conn.executemany("INSERT INTO ballast VALUES (?)", [(os.urandom(2048),)] * 5000)
    db.conn.close()
    folder = tmp_path / "b"
    folder.mkdir(mode=0o700)
    proc = subprocess.Popen([sys.executable, "-m", "web", "backup", "--db", path, "--dir",
                             str(folder)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".tmp") for p in folder.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "no temporary copy seen"
        time.sleep(0.001)
    proc.kill()
    proc.wait()
    left = [p.name for p in folder.iterdir() if backup.TMP_RE.match(p.name)]
    r = cli("backup", "--db", path, "--dir", str(folder))
    assert r.returncode == 0, r.stderr
    assert not [p for p in folder.iterdir() if backup.TMP_RE.match(p.name)]
    assert left  # the kill did leave a temporary copy, and the next run removed it


def test_backup_folder_0700_and_files_0600_whatever_the_umask(tmp_path):
    path = str(tmp_path / "club.sqlite")
    club(path)
    made = tmp_path / "made" / "b"
    r = subprocess.run([sys.executable, "-m", "web", "backup", "--db", path, "--dir", str(made)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT,
                       preexec_fn=lambda: os.umask(0))
    assert r.returncode == 0, r.stderr
    assert made.stat().st_mode & 0o777 == 0o700
    assert [p.stat().st_mode & 0o777 for p in made.iterdir()] == [0o600]
    by_hand = tmp_path / "by-hand"
    by_hand.mkdir()
    os.chmod(by_hand, 0o755)
    r = cli("backup", "--db", path, "--dir", str(by_hand))
    assert r.returncode == 0, r.stderr
    assert by_hand.stat().st_mode & 0o777 == 0o700
    assert "could be read by others (0755); it is now 0700" in r.stdout


def test_the_restore_the_refusal_names_brings_an_emptied_club_back(tmp_path):
    import clubdb
    from club.schema import SETS

    path = tmp_path / "club.sqlite"
    club(str(path))
    clubdb.close_shared()  # the web app and the daemon are stopped before a restore
    good = backup.backup(str(path), tmp_path / "b")
    wal = path.with_name(path.name + "-wal")
    path.write_bytes(b"")  # what the field saw: the file emptied, its -wal still there
    wal.write_bytes(b"\0" * 4096)
    r = cli("serve", "--db", str(path), "--port", "0")
    assert r.returncode == 2 and f"python -m web restore BACKUP --db {path}" in r.stderr
    r = cli("restore", str(good), "--db", str(path))
    assert r.returncode == 0, r.stderr
    assert clubdb.prepare(path, SETS) is False  # served again
    db = connect(str(path))
    assert db.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 16
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 4
    db.conn.close()
