"""Backups of the club database and restoring one.

``backup`` copies the live database with SQLite's online backup API in one
step: the copy is the database as it stood when the backup began (in WAL
mode a reader sees one snapshot while the tables and tablets go on writing),
so everything acknowledged before then is in it. The copy is written under a
temporary name, checked (``PRAGMA integrity_check``), made 0600, synced, and
only then renamed to ``jantaku-YYYYMMDDTHHMMSSZ.sqlite`` in the backup
folder; the oldest copies beyond ``keep`` are removed.

``restore`` checks a backup before it touches anything: the file must be a
SQLite database that passes ``integrity_check``, hold the club's tables, and
have no migration this program does not know (a backup from a newer
version). The current database is first saved beside itself
(``<db>.before-restore-<time>``), then the backup is copied into it with the
same API, so the file never exists half-written. Stop the web app and the
table daemon first: ``restore`` refuses while the daemon's heartbeat is
fresh unless told ``force``.
"""

from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from tablectl import store

from . import schema

NAME_RE = re.compile(r"^jantaku-\d{8}T\d{6}Z\.sqlite$")
REQUIRED_TABLES = ("games", "hand_events", "players", "clubdb_migrations")


class BackupError(Exception):
    """Why a backup or a restore cannot be done, in words (nothing was changed)."""


def _stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy(src: sqlite3.Connection, dest_path: Path) -> None:
    """The whole of ``src`` into a new file, in one step (one consistent snapshot)."""
    fd = os.open(dest_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    dest = sqlite3.connect(dest_path)
    try:
        src.backup(dest)  # pages=-1: one step, so the copy is one snapshot
        dest.execute("PRAGMA journal_mode = DELETE")  # a single self-contained file
    finally:
        dest.close()


def check_database(path: Path) -> list[str]:
    """Problems that make ``path`` unusable as the club's database ([] if none)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        return [f"cannot open it: {e}"]
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
        if [r[0] for r in rows] != ["ok"]:
            return ["integrity check failed: " + "; ".join(str(r[0]) for r in rows[:5])]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = [t for t in REQUIRED_TABLES if t not in names]
        if missing:
            return [f"it is not a Jantaku club database (no {', '.join(missing)} table)"]
        return _unknown_migrations(conn)
    except sqlite3.DatabaseError as e:
        return [f"it is not a readable SQLite database: {e}"]
    finally:
        conn.close()


def _unknown_migrations(conn: sqlite3.Connection) -> list[str]:
    """Migrations of the web's sets recorded in the file but unknown to this program."""
    known = {(m.name, name) for m in schema.SETS for name, _ in m.steps}
    ours = {m.name for m in schema.SETS}
    applied = {tuple(r) for r in conn.execute(
        "SELECT migration_set, name FROM clubdb_migrations")}
    newer = sorted(f"{s}:{n}" for s, n in applied if s in ours and (s, n) not in known)
    if newer:
        return ["it was written by a newer version of Jantaku (schema steps "
                f"{', '.join(newer)} are unknown here): upgrade Jantaku first"]
    return []


def backup(db_path: str | Path, folder: str | Path, *, keep: int = 48,
           now: datetime | None = None) -> Path:
    """Write a checked copy of the live database into ``folder``; keep the newest ``keep``."""
    db_path, folder = Path(db_path), Path(folder)
    if keep < 1:
        raise BackupError("--keep must be at least 1 (the number of backups to keep)")
    if not db_path.is_file():
        raise BackupError(f"there is no database at {db_path}")
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"jantaku-{_stamp(now)}.sqlite"
    tmp = folder / f".{final.name}.tmp"
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        _copy(src, tmp)
    except sqlite3.Error as e:
        tmp.unlink(missing_ok=True)
        raise BackupError(f"cannot read the database {db_path}: {e}") from None
    finally:
        src.close()
    problems = check_database(tmp)
    if problems:
        tmp.unlink(missing_ok=True)
        raise BackupError(f"the copy of {db_path} failed its check: {problems[0]}")
    _fsync(tmp)
    os.replace(tmp, final)
    _fsync(folder)
    prune(folder, keep)
    return final


def list_backups(folder: str | Path) -> list[Path]:
    """The backups in ``folder``, oldest first."""
    folder = Path(folder)
    return sorted(p for p in folder.iterdir() if NAME_RE.match(p.name)) if folder.is_dir() else []


def prune(folder: str | Path, keep: int) -> list[Path]:
    """Remove all but the newest ``keep`` backups; returns the removed ones."""
    gone = list_backups(folder)[:-keep]
    for p in gone:
        p.unlink()
    return gone


def _daemon_running(db_path: Path) -> bool:
    try:
        return bool(store.daemon_status(str(db_path))["running"])
    except sqlite3.Error:
        return False


def restore(backup_path: str | Path, db_path: str | Path, *, force: bool = False,
            now: datetime | None = None) -> Path | None:
    """Replace the database with a checked backup; returns where the replaced database
    was saved (None if there was none)."""
    backup_path, db_path = Path(backup_path), Path(db_path)
    if not backup_path.is_file():
        raise BackupError(f"there is no backup at {backup_path}")
    problems = check_database(backup_path)
    if problems:
        raise BackupError(f"{backup_path} cannot be restored: {problems[0]}; nothing was changed")
    if db_path.exists() and not force and _daemon_running(db_path):
        raise BackupError("the table daemon is running on this database: stop tablectl and "
                          "the web app first (or give --force); nothing was changed")
    saved = None
    if db_path.exists():
        saved = db_path.with_name(f"{db_path.name}.before-restore-{_stamp(now)}")
        live = sqlite3.connect(db_path, timeout=30)
        try:
            _copy(live, saved)
        finally:
            live.close()
    else:
        os.close(os.open(db_path, os.O_WRONLY | os.O_CREAT, 0o600))
    src = sqlite3.connect(f"file:{backup_path}?mode=ro", uri=True)
    dest = sqlite3.connect(db_path, timeout=30)
    try:
        src.backup(dest)  # one step, one transaction on the destination: all or nothing
    finally:
        dest.close()
        src.close()
    return saved
