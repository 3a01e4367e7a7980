"""The club file is checked before it is served: an empty, damaged, foreign, partial or
newer file is refused by ``python -m web serve``, ``create-staff`` and ``tablectl serve``
in one line naming the file and the restore command (exit 2, no traceback); a path that
does not exist becomes a new club."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import clubdb
from chain.box import SETS
from club.errors import UserError
from web import create_app


def club_file(path: Path) -> Path:
    """A real club file as the web app makes it (every migration set applied)."""
    create_app({"DATABASE": str(path), "SECRET_KEY": "t", "TESTING": True})
    clubdb.close_shared()
    return path


def _empty(p: Path) -> None:
    p.write_bytes(b"")


def _empty_with_wal(p: Path) -> None:
    p.write_bytes(b"")
    p.with_name(p.name + "-wal").write_bytes(b"\0" * 4096)


def _not_sqlite(p: Path) -> None:
    p.write_text("name,score\nA,1\n")


def _damaged(p: Path) -> None:
    club_file(p)
    data = bytearray(p.read_bytes())
    page = 4096
    for n in range(2, len(data) // page):  # every page but the first: its b-tree garbled
        data[n * page + 8: n * page + 200] = b"\xa5" * 192
    p.write_bytes(bytes(data))


def _foreign(p: Path) -> None:
    conn = sqlite3.connect(p)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()


def _partial(p: Path) -> None:
    club_file(p)
    conn = sqlite3.connect(p)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DROP TRIGGER IF EXISTS hand_events_no_delete")
    for name in ("hand_events",):
        conn.execute(f"DROP TABLE {name}")
    conn.commit()
    conn.close()


def _newer_step(p: Path) -> None:
    club_file(p)
    conn = sqlite3.connect(p)
    conn.execute("INSERT INTO clubdb_migrations VALUES ('games', 'from_the_future', 'x')")
    conn.commit()
    conn.close()


def _newer_set(p: Path) -> None:
    club_file(p)
    conn = sqlite3.connect(p)
    conn.execute("INSERT INTO clubdb_migrations VALUES ('tournaments', 'create', 'x')")
    conn.commit()
    conn.close()


def _newer_format(p: Path) -> None:
    club_file(p)
    conn = sqlite3.connect(p)
    conn.execute("PRAGMA user_version = 99")
    conn.close()


CASES = {
    "empty": (_empty, "empty"),
    "empty_with_wal": (_empty_with_wal, "empty"),
    "not_sqlite": (_not_sqlite, "not_sqlite"),
    "damaged": (_damaged, "damaged"),
    "foreign": (_foreign, "no_schema"),
    "partial": (_partial, "partial"),
    "newer_step": (_newer_step, "newer"),
    "newer_format": (_newer_format, "newer"),
    "newer_set": (_newer_set, "newer"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_club_file_is_refused_and_left_as_it_was(tmp_path, case):
    make, code = CASES[case]
    p = tmp_path / "club.sqlite"
    make(p)
    before = p.read_bytes()
    with pytest.raises(clubdb.FileRefused) as e:
        clubdb.prepare(p, SETS, every_set=[m.name for m in SETS] + ["tablectl"])
    assert e.value.code == code
    with pytest.raises(UserError) as e:
        create_app({"DATABASE": str(p), "SECRET_KEY": "t", "TESTING": True})
    assert str(p) in e.value.message and "python -m web restore" in e.value.message
    assert p.read_bytes() == before


def test_a_path_that_does_not_exist_becomes_a_new_club_never_an_empty_file(tmp_path):
    p = tmp_path / "new.sqlite"
    assert clubdb.prepare(p) is True
    assert p.stat().st_size > 0 and p.stat().st_mode & 0o777 == 0o600
    assert [x.name for x in tmp_path.iterdir()] == ["new.sqlite"]  # nothing left beside it
    club_file(p)
    assert clubdb.prepare(p) is False  # checked, and good


def _run(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


@pytest.mark.parametrize("case", ["empty_with_wal", "damaged", "partial", "newer_step"])
def test_web_serve_refuses_in_one_line_with_exit_2(tmp_path, case):
    p = tmp_path / "club.sqlite"
    CASES[case][0](p)
    r = _run("web", "serve", "--db", str(p), "--port", "0")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert str(p) in lines[0] and f"python -m web restore BACKUP --db {p}" in lines[0]
    assert "バックアップから戻してください" in lines[0]
    assert "Serving on" not in r.stdout
    assert sorted(x.name for x in tmp_path.iterdir() if x.name.endswith(".secret")) == []


def test_create_staff_refuses_an_empty_file(tmp_path):
    p = tmp_path / "club.sqlite"
    _empty(p)
    r = subprocess.run([sys.executable, "-m", "web", "create-staff", "owner", "--db", str(p),
                        "--password-stdin"], input="a-long-password\n", capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "empty file" in r.stderr and p.stat().st_size == 0


@pytest.mark.parametrize("case", ["empty", "damaged", "foreign", "partial", "newer_format"])
def test_tablectl_serve_refuses_in_one_line_with_exit_2(tmp_path, case):
    p = tmp_path / "jantaku.db"
    CASES[case][0](p)
    before = p.read_bytes()
    (tmp_path / "club.toml").write_text('db = "jantaku.db"\nlog_dir = "logs"\n')
    r = _run("tablectl", "serve", "--config", str(tmp_path / "club.toml"), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    lines = [x for x in r.stderr.strip().splitlines() if x]
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert str(p) in lines[0] and "python -m web restore BACKUP --db" in lines[0]
    assert p.read_bytes() == before


def test_a_staff_command_on_an_empty_file_refuses_and_never_gives_it_a_schema(tmp_path):
    p = tmp_path / "jantaku.db"
    _empty(p)
    r = _run("tablectl", "--db", str(p), "--lang", "en", "status")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (f"tablectl: {p} is an empty file (0 bytes); it is not opened "
                                f"as a new club. Restore a backup: python -m web restore "
                                f"BACKUP --db {p}")
    assert p.read_bytes() == b""  # so the web app still refuses it afterwards
    with pytest.raises(clubdb.FileRefused):
        clubdb.open_shared(p, [])
    assert p.read_bytes() == b""


def test_a_damaged_files_refusal_keeps_what_the_check_found(tmp_path):
    """A damaged file's refusal carries its own ``detail`` (what the check found) beside the
    file: the daemon's and the staff commands' error keeps both and words them in one line."""
    from tablectl.store import DatabaseRefused

    p = tmp_path / "jantaku.db"
    e = DatabaseRefused(clubdb.FileRefused("damaged", str(p), detail="disk image is malformed"))
    assert e.values == {"file": str(p), "detail": "disk image is malformed"}
    assert e.text("en") == (f"{p} is damaged (its check says: disk image is malformed). "
                            f"Restore a backup: python -m web restore BACKUP --db {p}")


def test_a_file_from_before_clubdb_is_adopted_not_refused(tmp_path):
    p = tmp_path / "old.db"
    conn = sqlite3.connect(p)
    conn.execute("CREATE TABLE tablectl_migrations (name TEXT)")
    conn.commit()
    conn.close()
    assert clubdb.prepare(p) is False
