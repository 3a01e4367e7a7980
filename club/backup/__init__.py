"""Backups of the club database and restoring one.

``backup`` copies the live database with SQLite's online backup API in one
step: the copy is the database as it stood when the backup began (in WAL
mode a reader sees one snapshot while the tables and tablets go on writing),
so everything acknowledged before then is in it. The copy is written under a
temporary name, checked (``PRAGMA integrity_check``), made 0600, synced, and
only then renamed to ``jantaku-YYYYMMDDTHHMMSSZ.sqlite`` in the backup
folder; the oldest copies beyond ``keep`` are removed, except the newest one that
passes ``integrity_check`` and holds the club's data (at least one player or
game): that one is never removed, whatever the newer ones hold. A database that
holds no player and no game, or one that fails its check, is not backed up at
all (refused in words): a copy of nothing never pushes a good copy out.
Temporary copies left by a run that was killed (their process is gone) are
removed by the next run. The folder is made 0700 (one made by hand that others
can read is tightened to 0700, and the run says so); every copy is 0600.

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
from typing import Any

import lexicon
from club import schema
from clubdb import pid_alive
from tablectl import store

NAME_RE = re.compile(r"^jantaku-\d{8}T\d{6}Z\.sqlite$")
TMP_RE = re.compile(r"^\.jantaku-\d{8}T\d{6}Z\.sqlite(?:\.(\d+))?\.tmp(?:-journal|-wal|-shm)?$")
"""A run's temporary copy (``.<name>.<pid>.tmp``) and SQLite's files beside it."""
DATA_TABLES = ("players", "games")
"""A copy holds the club's data when one of these has a row."""
REQUIRED_TABLES = ("games", "hand_events", "players", "clubdb_migrations")


class BackupError(Exception):
    """Why a backup or a restore cannot be done, in words (nothing was changed)."""


Problem = tuple[str, dict]
"""A reason in the catalogue: its key and the values its sentence names."""


def words(key: str, **values: Any) -> str:
    """``"日本語 / English"`` for ``key``; a value that is a :data:`Problem` is worded in
    the same language as the sentence around it."""
    def say(lang: str) -> str:
        filled = {k: lexicon.t(v[0], lang, **v[1]) if isinstance(v, tuple) else v
                  for k, v in values.items()}
        return lexicon.t(key, lang, **filled)

    ja, en = say("ja"), say("en")
    return ja if ja == en else f"{ja} / {en}"


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


def check_database(path: Path) -> list[Problem]:
    """Problems that make ``path`` unusable as the club's database ([] if none), each a
    catalogue key and its values (:func:`words` says them)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        return [("backup.problem.cannot_open", {"detail": str(e)})]
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
        if [r[0] for r in rows] != ["ok"]:
            return [("backup.problem.integrity",
                     {"detail": "; ".join(str(r[0]) for r in rows[:5])})]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = [t for t in REQUIRED_TABLES if t not in names]
        if missing:
            return [("backup.problem.not_club", {"tables": ", ".join(missing)})]
        return _unknown_migrations(conn)
    except sqlite3.DatabaseError as e:
        return [("backup.problem.unreadable", {"detail": str(e)})]
    finally:
        conn.close()


def _unknown_migrations(conn: sqlite3.Connection) -> list[Problem]:
    """Migrations of the web's sets recorded in the file but unknown to this program."""
    known = {(m.name, name) for m in schema.SETS for name, _ in m.steps}
    ours = {m.name for m in schema.SETS}
    applied = {tuple(r) for r in conn.execute(
        "SELECT migration_set, name FROM clubdb_migrations")}
    newer = sorted(f"{s}:{n}" for s, n in applied if s in ours and (s, n) not in known)
    if newer:
        return [("backup.problem.newer", {"steps": ", ".join(newer)})]
    return []


def holds_data(path: Path) -> bool:
    """Whether the database at ``path`` holds the club's data: a player or a game."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return any(conn.execute(f"SELECT 1 FROM [{t}] LIMIT 1").fetchone()
                   for t in DATA_TABLES)
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def _good(path: Path) -> bool:
    return not check_database(path) and holds_data(path)


def secure_folder(folder: Path) -> str | None:
    """Make the backup folder its owner's only: a new one is made 0700; one that others
    can read or enter is set to 0700. Returns a note in words when it was tightened."""
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700)
        os.chmod(folder, 0o700)  # mkdir's mode is cut by the umask, never widened: be exact
        return None
    mode = folder.stat().st_mode & 0o777
    if mode & 0o077:
        os.chmod(folder, mode & 0o700 | 0o700)
        return words("backup.folder_tightened", folder=str(folder), mode=f"{mode:04o}")
    return None


def clean_leftovers(folder: Path) -> list[str]:
    """Remove temporary copies left by backup runs that were killed (their process is gone;
    a copy named without a process is always a leftover). Returns their names."""
    gone = []
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        m = TMP_RE.match(p.name)
        if not m or (m.group(1) and _alive(int(m.group(1)))):
            continue
        p.unlink(missing_ok=True)
        gone.append(p.name)
    return gone


def _alive(pid: int) -> bool:
    return pid == os.getpid() or pid_alive(pid)


def backup(db_path: str | Path, folder: str | Path, *, keep: int = 48,
           now: datetime | None = None, notes: list[str] | None = None) -> Path:
    """Write a checked copy of the live database into ``folder``; keep the newest ``keep``
    (and always the newest good one, see the module's docstring). ``notes`` gets what the
    run did besides (a folder tightened, leftovers removed), in words."""
    db_path, folder = Path(db_path), Path(folder)
    notes = notes if notes is not None else []
    if keep < 1:
        raise BackupError(words("backup.keep_at_least_1"))
    if not db_path.is_file():
        raise BackupError(words("backup.no_database", db=str(db_path)))
    note = secure_folder(folder)
    if note:
        notes.append(note)
    gone = clean_leftovers(folder)
    if gone:
        notes.append(words("backup.leftovers_removed", count=len(gone),
                           names=", ".join(gone[:5])))
    final = folder / f"jantaku-{_stamp(now)}.sqlite"
    tmp = folder / f".{final.name}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        _copy(src, tmp)
    except sqlite3.Error as e:
        tmp.unlink(missing_ok=True)
        raise BackupError(words("backup.cannot_read", db=str(db_path), detail=str(e))) from None
    finally:
        src.close()
    problems = check_database(tmp)
    if problems:
        tmp.unlink(missing_ok=True)
        raise BackupError(words("backup.copy_failed_check", db=str(db_path),
                                problem=problems[0]))
    if not holds_data(tmp):
        tmp.unlink(missing_ok=True)
        raise BackupError(words("backup.no_data", db=str(db_path)))
    os.chmod(tmp, 0o600)
    _fsync(tmp)
    os.replace(tmp, final)
    _fsync(folder)
    prune(folder, keep, good=final)
    return final


def list_backups(folder: str | Path) -> list[Path]:
    """The backups in ``folder``, oldest first."""
    folder = Path(folder)
    return sorted(p for p in folder.iterdir() if NAME_RE.match(p.name)) if folder.is_dir() else []


def newest_good(folder: str | Path, known_good: Path | None = None) -> Path | None:
    """The newest backup in ``folder`` that passes its check and holds the club's data
    (``known_good``: one just written and checked, not read again)."""
    for p in reversed(list_backups(folder)):
        if p == known_good or _good(p):
            return p
    return None


def prune(folder: str | Path, keep: int, *, good: Path | None = None) -> list[Path]:
    """Remove all but the newest ``keep`` backups, never the newest good one (see
    :func:`newest_good`; ``good`` names it when the caller has just checked it);
    returns the removed ones."""
    gone = list_backups(folder)[:-keep]
    if gone:
        spare = newest_good(folder, good)
        gone = [p for p in gone if p != spare]
    for p in gone:
        p.unlink()
    return gone


def _daemon_running(db_path: Path) -> bool:
    try:
        return bool(store.daemon_status(str(db_path))["running"])
    except (sqlite3.Error, store.DatabaseRefused):  # an empty or damaged file: no daemon on it
        return False


def restore(backup_path: str | Path, db_path: str | Path, *, force: bool = False,
            now: datetime | None = None) -> Path | None:
    """Replace the database with a checked backup; returns where the replaced database
    was saved (None if there was none)."""
    backup_path, db_path = Path(backup_path), Path(db_path)
    if not backup_path.is_file():
        raise BackupError(words("backup.no_backup", backup=str(backup_path)))
    problems = check_database(backup_path)
    if problems:
        raise BackupError(words("backup.cannot_restore", backup=str(backup_path),
                                problem=problems[0]))
    if db_path.exists() and not force and _daemon_running(db_path):
        raise BackupError(words("backup.daemon_running"))
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
