"""``python -m web export``: the dated folder's files (BOM CSV, JSON, self-contained HTML,
manifest), byte-identical reruns, open games listed (times in the club's zone), private
modes, an unreachable
database, ``--keep``, and a run SIGKILLed mid-way leaving no partial folder.
Runs the real command in a subprocess."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from datetime import date, timedelta
from pathlib import Path

import pytest

from club import corrections, export, games, stats_store
from club.db import connect
from tests.support.web_server import ROOT
from tests.web.test_leaderboard import build_club


@pytest.fixture()
def club(tmp_path):
    return build_club(str(tmp_path / "club.sqlite"))


def export_argv(db, *argv) -> list[str]:
    """The command line of an export of ``db``."""
    return [sys.executable, "-m", "web", "export", "--db", str(db), *argv]


def run(db, *argv, env=None, **kw):
    return subprocess.run(
        export_argv(db, *argv),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        **kw,
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def read_csv(data: bytes) -> list[dict]:
    assert data.startswith(b"\xef\xbb\xbf"), "CSV must start with a UTF-8 BOM for Excel"
    text = data[3:].decode("utf-8")
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
    return list(csv.DictReader(io.StringIO(text)))


def test_export_folder_contents(club, tmp_path):
    out = tmp_path / "exports"
    r = run(club["path"], "--date", "2026-04-01", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "exported club day 2026-04-01: 2 games" in r.stdout
    files = snapshot(out / "2026-04-01")
    assert sorted(files) == sorted(
        [
            "games.csv",
            "games.json",
            "hands.csv",
            "hands.json",
            "leaderboards.json",
            "leaderboards.html",
            "manifest.json",
            "leaderboard-month-riichi4.csv",
            "leaderboard-all-riichi4.csv",
            "leaderboard-month-riichi3.csv",
            "leaderboard-all-riichi3.csv",
            "daily-report-tables.csv",
            "daily-report-rules.csv",
            "accounts.csv",
            "daily-report.json",
            "daily-report.html",
        ]
    )
    # the day's games: G2 (finished 02:30 JST on the 2nd) and the sanma game; not G1, G3
    rows = read_csv(files["games.csv"])
    assert sorted({r["game_id"] for r in rows}) == [str(club["games"][1]), str(club["games"][3])]
    g2 = {r["player"]: r for r in rows if r["game_id"] == str(club["games"][1])}
    assert {p: (r["rank"], r["result"]) for p, r in g2.items()} == {
        "B": ("4", "-44000"),
        "C": ("3", "-17000"),
        "D": ("2", "7000"),
        "E": ("1", "54000"),
    }
    hands = read_csv(files["hands.csv"])
    assert [
        (h["round"], h["delta_1"], h["score_4"])
        for h in hands
        if h["game_id"] == str(club["games"][1]) and h["type"] == "win"
    ] == [("E1", "-9000", "34000"), ("E2", "0", "34000")]
    # month to date (April 1st only) and all time, per family
    month = read_csv(files["leaderboard-month-riichi4.csv"])
    assert [r["name"] for r in month] == list("EDCB")
    alltime = read_csv(files["leaderboard-all-riichi4.csv"])
    # G1 and G2: D 52,000 + 7,000; E 54,000; B 11,000 - 44,000; C -18,000 - 17,000; A -45,000
    assert [(r["name"], r["total"]) for r in alltime] == [
        ("D", "59000"),
        ("E", "54000"),
        ("B", "-33000"),
        ("C", "-35000"),
        ("A", "-45000"),
    ]
    boards = json.loads(files["leaderboards.json"])
    assert boards["all"]["last_day"] == "2026-04-01" and boards["all"]["first_day"] is None
    assert {r["name"] for r in boards["all"]["families"]["riichi4"]} == set("ABCDE")
    html = files["leaderboards.html"].decode("utf-8")
    assert html.count("<svg") >= 5 and "<script" not in html and "src=" not in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    man = json.loads(files["manifest.json"])
    assert man["club_day"] == "2026-04-01" and man["closing_hour"] == "05:00"
    assert set(man["files"]) == set(files) - {"manifest.json"}
    for name, info in man["files"].items():
        assert info["sha256"] == hashlib.sha256(files[name]).hexdigest()
        assert info["bytes"] == len(files[name])
    assert (
        man["files"]["games.csv"]["rows"] == 4 + 3
    )  # G2 and the sanma game and man["files"]["games.json"]["rows"] == 2
    assert man["files"]["hands.csv"]["rows"] == len(hands)


FORMULAS = {"B": "=HYPERLINK(\"http://x\",\"y\")", "C": "+SUM(1,2)", "D": "@SUM(A1)",
            "E": "-2+3+cmd|' /C calc'!A0"}


def test_spreadsheet_formulas_in_names_are_neutralised(club, tmp_path):
    """OWASP CSV injection: a cell a spreadsheet would run (= + - @, tab, CR first) gets a
    leading apostrophe; numbers, negative ones included, stay numbers. Read back with the
    csv module, as Excel's import would split it."""
    db = connect(club["path"])
    for letter, name in {**FORMULAS, "A": "\tTAB"}.items():
        db.execute("UPDATE players SET name = ? WHERE id = ?", [name, club["ids"][letter]])
    db.conn.close()
    out = tmp_path / "exports"
    assert run(club["path"], "--date", "2026-04-01", "--out", str(out)).returncode == 0
    folder = out / "2026-04-01"
    players = {r["player"] for r in read_csv((folder / "games.csv").read_bytes())}
    assert {"'" + name for name in FORMULAS.values()} <= players
    for name in players:
        assert not name.startswith(export.FORMULA_STARTS), name
    board = read_csv((folder / "leaderboard-all-riichi4.csv").read_bytes())
    assert {r["name"] for r in board} == {"'" + n for n in (*FORMULAS.values(), "\tTAB")}
    assert any(r["total"].startswith("-") for r in board)  # numbers are not touched
    hands = read_csv((folder / "hands.csv").read_bytes())
    assert any(h["delta_1"].startswith("-") for h in hands)
    assert export.csv_cell("\r=1") == "'\r=1" and export.csv_cell(-5) == -5
    assert export.csv_cell("佐藤") == "佐藤"


def test_second_run_is_byte_identical(club, tmp_path):
    out = tmp_path / "exports"
    assert run(club["path"], "--date", "2026-04-01", "--out", str(out)).returncode == 0
    first = snapshot(out / "2026-04-01")
    time.sleep(0.01)  # a different "now" must not show in any file
    assert run(club["path"], "--date", "2026-04-01", "--out", str(out)).returncode == 0
    assert snapshot(out / "2026-04-01") == first
    assert sorted(p.name for p in out.iterdir()) == ["2026-04-01"]


def test_open_games_do_not_hold_the_night_back_and_are_listed_in_the_club_zone(club, tmp_path):
    db = connect(club["path"])
    ids = club["ids"]
    gid = games.start_game(db, "t1", [ids[n] for n in "ABCD"], idempotency_key=uuid.uuid4().hex)[
        "game"
    ]["id"]
    # 01:00 JST on April 2nd: inside club day 2026-04-01 (it closes at 05:00)
    db.execute("UPDATE games SET started_at = '2026-04-01T16:00:00.000+00:00' WHERE id = ?", [gid])
    db.conn.close()
    out = tmp_path / "exports"
    r = run(club["path"], "--date", "2026-04-01", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "exported club day 2026-04-01: 2 games" in r.stdout
    assert f"#{gid} (t1, 2026-04-02T01:00)" in r.stderr and "open_games" in r.stderr
    assert "UTC" not in r.stderr and "Traceback" not in r.stderr
    folder = out / "2026-04-01"
    man = json.loads((folder / "manifest.json").read_bytes())
    assert man["open_games"] == [{"game_id": gid, "table_id": "t1",
                                  "started_at": "2026-04-02T01:00:00+09:00"}]
    assert man["club_day_span"] == ["2026-04-01T05:00:00+09:00", "2026-04-02T05:00:00+09:00"]
    rows = read_csv((folder / "games.csv").read_bytes())
    assert str(gid) not in {r["game_id"] for r in rows}  # the finished games only
    report = json.loads((folder / "daily-report.json").read_bytes())
    assert [g["started_at"] for g in report["unfinished"]] == ["2026-04-02T01:00:00+09:00"]


def test_every_time_in_the_files_is_in_the_club_zone_with_its_offset(club, tmp_path):
    out = tmp_path / "exports"
    assert run(club["path"], "--date", "2026-04-01", "--out", str(out)).returncode == 0
    folder = out / "2026-04-01"
    rows = read_csv((folder / "games.csv").read_bytes())
    g2 = [r for r in rows if r["game_id"] == str(club["games"][1])]
    assert {r["finished_at"][:16] for r in g2} == {"2026-04-02T02:30"}  # 02:30 JST
    for name in ("games.csv", "games.json", "daily-report.json", "manifest.json"):
        text = (folder / name).read_text(encoding="utf-8-sig")
        stamps = re.findall(r"\d{4}-\d\d-\d\dT\d\d:\d\d[^\",\r\n]*", text)
        assert stamps, name
        for stamp in stamps:
            assert stamp.endswith("+09:00"), (name, stamp)


def test_exports_are_private_whatever_the_umask(club, tmp_path):
    out = tmp_path / "new" / "exports"
    r = run(club["path"], "--date", "2026-04-01", "--out", str(out),
            preexec_fn=lambda: os.umask(0))
    assert r.returncode == 0, r.stderr
    folder = out / "2026-04-01"
    assert out.stat().st_mode & 0o777 == 0o700 and folder.stat().st_mode & 0o777 == 0o700
    assert {p.name: p.stat().st_mode & 0o777 for p in folder.iterdir()} == {
        p.name: 0o600 for p in folder.iterdir()}
    by_hand = tmp_path / "by-hand"
    by_hand.mkdir()
    os.chmod(by_hand, 0o755)
    r = run(club["path"], "--date", "2026-04-01", "--out", str(by_hand))
    assert r.returncode == 0, r.stderr
    assert by_hand.stat().st_mode & 0o777 == 0o700
    assert "could be read by others (0755); it is now 0700" in r.stderr


def test_unreachable_database_and_bad_options(tmp_path):
    r = run(tmp_path / "missing.sqlite", "--date", "2026-04-01", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "missing.sqlite").exists()  # never created by looking
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    r = run(junk, "--date", "2026-04-01", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "is not a SQLite database" in r.stderr
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    r = run(empty, "--date", "2026-04-01", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "is an empty file" in r.stderr and "Traceback" not in r.stderr
    assert empty.read_bytes() == b""  # looking did not make it a database
    r = run(junk, "--date", "01/04/2026", "--out", str(tmp_path / "o"))
    assert r.returncode == 2


def test_default_day_and_keep(club, tmp_path):
    out = tmp_path / "exports"
    for old in ("2026-03-01", "2026-03-02", "2026-03-03"):
        (out / old).mkdir(parents=True)
    r = run(club["path"], "--out", str(out), "--keep", "2")
    assert r.returncode == 0, r.stderr
    db = connect(club["path"])
    yesterday = (
        date.fromisoformat(stats_store.today(stats_store.settings(db))) - timedelta(days=1)
    ).isoformat()
    db.conn.close()
    assert sorted(p.name for p in out.iterdir()) == ["2026-03-03", yesterday]
    assert run(club["path"], "--out", str(out), "--keep", "0").returncode == 2


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    s = Tty()
    bar = export.Progress(4, "export 2026-04-01", s)
    for name in ("a.csv", "b.csv"):
        bar.step(name)
    bar.close()
    assert "[###############...............] 2/4 b.csv" in s.getvalue()
    quiet = io.StringIO()
    export.Progress(4, "x", quiet).step("a")
    assert quiet.getvalue() == ""


def _wait_for(pred, what, limit=60.0):
    deadline = time.monotonic() + limit  # a safety net, not a timing assertion
    while not pred():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("with_old", [False, True])
def test_killed_export_leaves_no_partial_folder(club, tmp_path, with_old):
    out = tmp_path / "exports"
    old = None
    if with_old:
        assert run(club["path"], "--date", "2026-04-01", "--out", str(out)).returncode == 0
        old = snapshot(out / "2026-04-01")
        db = connect(club["path"])  # change the day so a new export would differ
        corrections.void_game(db, club["games"][1], actor="mika", reason="entered twice")
        db.conn.close()
    proc = subprocess.Popen(
        export_argv(club["path"], "--date", "2026-04-01", "--out", str(out)),
        cwd=ROOT,
        env={**os.environ, export.SLOW_ENV: "0.5"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    tmp = out / f".tmp-2026-04-01-{proc.pid}"
    _wait_for(lambda: tmp.is_dir() and len(list(tmp.iterdir())) >= 3, "a half-written export")
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    dated = [p.name for p in out.iterdir() if not p.name.startswith(".")]
    if with_old:
        assert dated == ["2026-04-01"] and snapshot(out / "2026-04-01") == old
    else:
        assert dated == []
    # the next run clears the dead run's temporary folder and writes the new export
    r = run(club["path"], "--date", "2026-04-01", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["2026-04-01"]
    new = snapshot(out / "2026-04-01")
    assert json.loads(new["games.json"]) and (new != old)


def test_systemd_units_run_a_command_the_cli_accepts():
    import shlex

    from club.export.__main__ import build_parser

    unit = (ROOT / "deploy" / "jantaku-export.service").read_text(encoding="utf-8")
    line = next(ln for ln in unit.splitlines() if ln.startswith("ExecStart="))
    argv = shlex.split(line.removeprefix("ExecStart="))
    # the venv's interpreter (deploy/README.md installs into /opt/jantaku/venv)
    assert argv[:3] == ["/opt/jantaku/venv/bin/python", "-m", "club.export"]
    args = build_parser().parse_args(argv[3:])
    assert args.db and args.keep >= 1 and args.date is None
    timer = (ROOT / "deploy" / "jantaku-export.timer").read_text(encoding="utf-8")
    cal = next(ln for ln in timer.splitlines() if ln.startswith("OnCalendar="))
    # after the default closing hour (05:00 Asia/Tokyo), so "yesterday" is a closed day
    assert cal == f"OnCalendar=*-*-* 05:30:00 {stats_store.DEFAULT_SETTINGS['timezone']}"
    assert "Unit=jantaku-export.service" in timer and "Persistent=true" in timer


def test_the_export_and_backup_units_write_private_files():
    for name in ("jantaku-export.service", "jantaku-backup.service"):
        unit = (ROOT / "deploy" / name).read_text(encoding="utf-8")
        service = unit.split("[Service]", 1)[1]
        assert "UMask=0077" in service.splitlines(), name


def test_a_game_whose_summary_cannot_be_built_stops_the_export(club, tmp_path, monkeypatch):
    db = connect(club["path"])
    db.execute(
        "INSERT INTO stats_stale (game_id, error, at) VALUES (?, 'RuntimeError: x', '')",
        [club["games"][1]],
    )

    def broken(*a, **kw):
        raise RuntimeError("cannot replay")

    monkeypatch.setattr(stats_store, "game_lines", broken)
    with pytest.raises(export.ExportError, match=f"#{club['games'][1]} .*cannot replay"):
        export.write_export(db, "2026-04-01", tmp_path / "out")
    assert not (tmp_path / "out" / "2026-04-01").exists()
    monkeypatch.undo()
    export.write_export(db, "2026-04-01", tmp_path / "out")  # repaired, then written
    assert (tmp_path / "out" / "2026-04-01" / "manifest.json").exists()
    db.conn.close()


def test_progress_bar_on_a_real_terminal(club, tmp_path):
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            export_argv(club["path"], "--date", "2026-04-01", "--out", str(tmp_path / "o")),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=slave,
            text=True,
        )
        os.close(slave)
        out, _ = proc.communicate(timeout=120)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
    assert proc.returncode == 0
    text = seen.decode("utf-8")
    assert "export 2026-04-01 [" in text and "16/16 manifest.json" in text
    assert "\r" in text  # redrawn in place
    assert "[" not in out  # stdout carries only the summary
