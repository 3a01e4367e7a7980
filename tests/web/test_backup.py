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

from tests.support.web_server import ROOT, WebServer
from web import backup, create_app, games
from web.db import connect
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
        games.save_table(db, tid, tid, "nekohouse-4a")
        ids = [games.add_player(db, f"P{n}{i}")["id"] for i in range(4)]
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
    from web.cli import build_parser

    for unit in ("jantaku-backup.service", "jantaku-web.service"):
        text = (ROOT / "deploy" / unit).read_text()
        line = next(x for x in text.splitlines() if x.startswith("ExecStart="))
        argv = line.split("-m web ", 1)[1].split()
        args = build_parser().parse_args(argv)
        assert args.func.__name__ in ("cmd_backup", "cmd_serve")
    timer = (ROOT / "deploy" / "jantaku-backup.timer").read_text()
    assert "Unit=jantaku-backup.service" in timer and "OnCalendar=" in timer
