"""The club's one SQLite file, opened the same way by the web app and the table daemon.

Both processes (and the staff CLI) share a single database file. This package
is the only place that knows how to open it:

* :func:`connect` opens a connection with the pragmas every connection needs
  (WAL so readers run beside the writer, ``synchronous=FULL`` so an
  acknowledged write survives a power cut, foreign keys, a busy timeout);
* :func:`shared` gives the calling thread its own long-lived connection to a
  file, so a hot path does not pay for opening one per call;
* :func:`write_tx` is the one way to write: ``BEGIN IMMEDIATE`` behind a
  per-file lock of this process and the file's writer lock between processes
  (nested use becomes a savepoint);
* :class:`Migrations` is a named, ordered set of schema steps; every set's
  applied steps are recorded in one table, ``clubdb_migrations``, and the tables
  they made in ``clubdb_tables``;
* :func:`prepare` is the start-up check of a process that serves the file: a path
  that does not exist becomes a new club file (made whole beside it, then linked
  into place, so no process ever sees it empty); an existing file must be a
  sound club file of a version this code knows, else :class:`FileRefused`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, overload

import sqlite_utils

BUSY_TIMEOUT_MS = 10_000
"""How long a writer waits for another process's write lock before SQLite gives up."""

WRITER_LOCK_SUFFIX = "-writer"
"""The writer lock file beside the club file (``club.sqlite-writer``)."""
MIGRATIONS_TABLE = "clubdb_migrations"
TABLES_TABLE = "clubdb_tables"
"""The tables the applied steps made (a file missing one of them is partial)."""
USER_VERSION = 0
"""The file format (``PRAGMA user_version``) this code knows; a higher one is newer."""
LEGACY_BOOKKEEPING = ("migrations", "tablectl_migrations")
"""Where the web app and the daemon recorded their steps before ``clubdb_migrations``."""
SHARED_PER_THREAD = 8
"""Open files a thread keeps connections to (the least recently used one is closed)."""


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one we may not signal counts as alive): how
    the daemon, a backup and an export tell a stale lock or mark from a live one."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def now_iso() -> str:
    """The current UTC time as an ISO-8601 string (what the web's timestamp columns hold)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def connect(path: str | os.PathLike[str]) -> sqlite_utils.Database:
    """A new connection to the club file with the pragmas every connection must have."""
    path = str(path)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    # No implicit transactions: every write goes through write_tx(), so nothing
    # is left half-open between requests or commands.
    conn.isolation_level = None
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if path != ":memory:" and conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        # Two connections switching a new file at once: one gets "locked" at once, without
        # the busy timeout. Switch as writers do, one at a time.
        full = os.path.abspath(path)
        with _path_lock(full), _writer_file_lock(full):
            conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    db = sqlite_utils.Database(conn)
    # the file's path rides on the connection's Database (sqlite_utils declares no such field)
    db._clubdb_path = (  # type: ignore[attr-defined]
        os.path.abspath(path) if path != ":memory:" else f"memory:{id(conn)}")
    return db


_local = threading.local()


def shared(path: str | os.PathLike[str]) -> sqlite_utils.Database:
    """This thread's open connection to ``path`` (opened on first use and kept).

    A connection belongs to one thread: SQLite transactions are per connection,
    so two threads must never interleave statements on one.
    """
    key = os.path.abspath(str(path))
    cache: OrderedDict[str, sqlite_utils.Database] | None = getattr(_local, "dbs", None)
    if cache is None:
        cache = _local.dbs = OrderedDict()
    db = cache.get(key)
    if db is not None:
        cache.move_to_end(key)
        return db
    db = cache[key] = connect(path)
    while len(cache) > SHARED_PER_THREAD:
        _, old = cache.popitem(last=False)
        old.conn.close()
    return db


def close_shared() -> None:
    """Close this thread's shared connections (a thread that is about to end, tests)."""
    cache = getattr(_local, "dbs", None) or {}
    while cache:
        _, db = cache.popitem()
        db.conn.close()


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _process_lock(db: sqlite_utils.Database) -> threading.Lock:
    path = getattr(db, "_clubdb_path", None)
    if path is None:
        path = db.execute("PRAGMA database_list").fetchone()[2] or f"memory:{id(db.conn)}"
        db._clubdb_path = path  # type: ignore[attr-defined]  # see connect
    return _path_lock(path)


def _path_lock(path: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path, threading.Lock())


_WRITER_FILES: dict[str, int] = {}
"""This process's open writer-lock file per club file (a process's own: see below)."""


def _forget_writer_files() -> None:
    # A forked child shares its parent's open files, and so its flock: it opens its own.
    _WRITER_FILES.clear()


os.register_at_fork(after_in_child=_forget_writer_files)


@contextlib.contextmanager
def _writer_file_lock(path: str) -> Iterator[None]:
    """The club file's writer lock between processes: an exclusive ``flock`` on
    ``<file>-writer``, tried every 50 to 500 microseconds for at most the busy timeout
    (then "database is locked", as SQLite would say). Taken only under this process's
    lock of the file, so the open file is never shared by two of its threads."""
    if path.startswith("memory:"):
        yield
        return
    fd = _WRITER_FILES.get(path)
    if fd is None:
        fd = _WRITER_FILES[path] = os.open(path + WRITER_LOCK_SUFFIX,
                                           os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.00005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise sqlite3.OperationalError("database is locked") from None
            time.sleep(pause)
            pause = min(pause * 1.5, 0.0005)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.contextmanager
def write_tx(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """An all-or-nothing write transaction, taken with BEGIN IMMEDIATE.

    IMMEDIATE takes the write lock up front, so a read-then-write inside the
    block never fails half way on a stale snapshot. Writers queue first on a
    lock of this process, then on the file's writer lock between processes
    (the web's server processes, the table daemon): SQLite's own busy handler
    sleeps up to 100 ms between polls, which made tail latency under many
    tablets seconds long. Nested use is a savepoint.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    lock = _process_lock(db)
    with lock, _writer_file_lock(db._clubdb_path):  # type: ignore[attr-defined]
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise
        db.conn.execute("COMMIT")


Step = Callable[[sqlite_utils.Database], None]


class Migrations:
    """A named, ordered set of schema steps, owned by one module.

    Register steps with the instance as a decorator; they are applied in the
    order they are defined, each once, in its own transaction::

        MIGRATIONS = Migrations("games")

        @MIGRATIONS
        def create_players(db): ...
    """

    def __init__(self, name: str):
        self.name = name
        self.steps: list[tuple[str, Step]] = []
        self.legacy: dict[str, tuple[str, str, object]] = {}

    @overload
    def __call__(self, fn: Step, *, legacy: tuple[str, str, object] | None = None) -> Step: ...

    @overload
    def __call__(self, fn: None = None, *,
                 legacy: tuple[str, str, object] | None = None) -> Callable[[Step], Step]: ...

    def __call__(self, fn: Step | None = None, *,
                 legacy: tuple[str, str, object] | None = None) -> Step | Callable[[Step], Step]:
        """Register ``fn`` as the set's next step (``legacy``: where an older schema
        table recorded it as applied: ``(table, column, value)``)."""
        def register(fn: Step) -> Step:
            if any(name == fn.__name__ for name, _ in self.steps):
                raise ValueError(f"migration set {self.name!r} already has a step {fn.__name__!r}")
            self.steps.append((fn.__name__, fn))
            if legacy:
                self.legacy[fn.__name__] = legacy
            return fn
        return register(fn) if fn is not None else register

    def script(self, name: str, sql: str) -> None:
        """Register an SQL script as the set's next step, named ``name`` (a step that is
        only its statements needs no function of its own)."""
        def step(db: sqlite_utils.Database) -> None:
            db.executescript(sql)

        step.__name__ = name
        self(step)

    def __repr__(self) -> str:
        return f"Migrations({self.name!r}, {len(self.steps)} steps)"


def _applied(db: sqlite_utils.Database) -> set[tuple[str, str]]:
    return {(s, n) for s, n in db.execute(f"SELECT migration_set, name FROM {MIGRATIONS_TABLE}")}


def _legacy_applied(db: sqlite_utils.Database, table: str, column: str, value: object) -> bool:
    if not db[table].exists():
        return False
    row = db.execute(f"SELECT 1 FROM [{table}] WHERE [{column}] = ?", [value]).fetchone()
    return row is not None


def _tables(db: sqlite_utils.Database) -> set[str]:
    return {r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}


def _bookkeeping(db: sqlite_utils.Database) -> None:
    """The two tables migrations are recorded in. A file from before ``clubdb_tables``
    records the tables it holds when that table is first made."""
    db.execute(
        f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (migration_set TEXT NOT NULL,"
        " name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (migration_set, name))"
    )
    if TABLES_TABLE in _tables(db):
        return
    with write_tx(db):
        if TABLES_TABLE in _tables(db):  # another process made it meanwhile
            return
        db.execute(f"CREATE TABLE {TABLES_TABLE} (name TEXT PRIMARY KEY, migration_set TEXT"
                   " NOT NULL, step TEXT NOT NULL)")
        db.conn.executemany(f"INSERT INTO {TABLES_TABLE} VALUES (?, '', '')",
                            [(t,) for t in sorted(_tables(db) - {TABLES_TABLE})])


def migrate(db: sqlite_utils.Database, sets: Iterable[Migrations]) -> list[str]:
    """Apply every step of ``sets`` (in the order given) not yet recorded; return them as
    ``"set:name"``. Safe when another process migrates the same file at the same time."""
    _bookkeeping(db)
    done = _applied(db)
    applied = []
    for mset in sets:
        for name, fn in mset.steps:
            if (mset.name, name) in done:
                continue
            with write_tx(db):
                # another process may have applied it while this one waited for the lock
                if (mset.name, name) in _applied(db):
                    continue
                legacy = mset.legacy.get(name)
                if not (legacy and _legacy_applied(db, *legacy)):
                    before = _tables(db)
                    fn(db)
                    after = _tables(db)
                    db.conn.executemany(f"INSERT OR REPLACE INTO {TABLES_TABLE} VALUES (?, ?, ?)",
                                        [(t, mset.name, name) for t in sorted(after - before)])
                    db.conn.executemany(f"DELETE FROM {TABLES_TABLE} WHERE name = ?",
                                        [(t,) for t in sorted(before - after)])
                    applied.append(f"{mset.name}:{name}")
                db.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?, ?)",
                           [mset.name, name, now_iso()])
    return applied


_ENSURED: set[tuple[str, tuple[str, ...]]] = set()
_ENSURED_GUARD = threading.Lock()


def open_shared(path: str | os.PathLike[str], sets: Iterable[Migrations]) -> sqlite_utils.Database:
    """:func:`shared`, with ``sets`` brought up to date once per process and file. The
    first time, the file is checked as :func:`prepare` does (without the page-by-page
    quick check): an empty or foreign file is refused, never given a schema."""
    sets = tuple(sets)
    key = (os.path.abspath(str(path)), tuple(s.name for s in sets))
    if key not in _ENSURED:
        with _ENSURED_GUARD:
            if key not in _ENSURED:
                prepare(path, sets, thorough=False)
                migrate(shared(path), sets)
                _ENSURED.add(key)
    return shared(path)


# ----------------------------------------------------------------------------- start-up check
class FileRefused(Exception):
    """A club file a process must not serve: ``code`` says why (``empty``, ``not_sqlite``,
    ``damaged``, ``no_schema``, ``partial``, ``newer``), ``values`` what the words name
    (always ``file``). Catalogue key: ``clubfile.<code>``."""

    def __init__(self, code: str, path: str, **values: object):
        self.code = code
        self.values: dict[str, Any] = {"file": path, **values}
        super().__init__(f"{path}: {code} {values or ''}".strip())

    @property
    def key(self) -> str:
        return f"clubfile.{self.code}"


def _make_new(path: str) -> None:
    """A new club file at ``path``: built whole beside it (WAL, the bookkeeping tables),
    then linked into place, so no other process can find it empty. Another process that
    made it first wins; its file is as good."""
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.new-{os.getpid()}-{threading.get_ident()}")
    for leftover in (tmp, tmp + "-wal", tmp + "-shm", tmp + "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(leftover)
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA user_version = {USER_VERSION}")
            conn.execute(f"CREATE TABLE {MIGRATIONS_TABLE} (migration_set TEXT NOT NULL, name"
                         " TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (migration_set,"
                         " name))")
            conn.execute(f"CREATE TABLE {TABLES_TABLE} (name TEXT PRIMARY KEY, migration_set"
                         " TEXT NOT NULL, step TEXT NOT NULL)")
            conn.commit()
        finally:
            conn.close()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: rename, unless one appeared
            if not os.path.exists(path):
                os.rename(tmp, path)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)  # the new name is durable before anything is written under it
        finally:
            os.close(fd)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def check_file(path: str | os.PathLike[str], sets: Iterable[Migrations] = (), *,
               thorough: bool = True, every_set: Iterable[str] | None = None) -> None:
    """Raise :class:`FileRefused` unless ``path`` is a sound club file this code can
    serve: not empty, a SQLite file that passes ``PRAGMA quick_check``, with the
    migration bookkeeping and every table its applied steps made, and nothing newer
    than this code knows (a ``user_version`` above :data:`USER_VERSION`, or a step of
    one of ``sets`` that is not in the set). Reads the file; changes nothing.
    ``thorough`` False leaves out the quick check, which reads every page (a staff
    command opening the file checks the rest in milliseconds). ``every_set``: the names
    of every migration set of the product, when the caller knows them all: a set
    recorded in the file outside them is newer too."""
    path = str(path)
    # Never open and close a file descriptor of our own on the club file: closing one drops
    # every POSIX lock this process holds on it, SQLite's included, and another process
    # could then take itself for the last connection and delete the -wal under ours.
    if os.stat(path).st_size == 0:
        raise FileRefused("empty", path)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        found = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()] if thorough \
            else ["ok"]
        if found != ["ok"]:
            raise FileRefused("damaged", path, detail="; ".join(map(str, found[:3])))
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > USER_VERSION:
            raise FileRefused("newer", path, steps=f"user_version {version}")
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if MIGRATIONS_TABLE not in tables:
            if tables & set(LEGACY_BOOKKEEPING):
                return  # a file from before clubdb: its steps are adopted when migrated
            raise FileRefused("no_schema", path)
        known = {(m.name, n) for m in sets for n, _ in m.steps}
        ours = {m.name for m in sets}
        every = set(every_set) | ours if every_set is not None else None
        newer = sorted(f"{s}:{n}" for s, n in conn.execute(
            f"SELECT migration_set, name FROM {MIGRATIONS_TABLE}")
            if (s in ours and (s, n) not in known) or (every is not None and s not in every))
        if newer:
            raise FileRefused("newer", path, steps=", ".join(newer[:5]))
        if TABLES_TABLE in tables:
            missing = sorted(r[0] for r in conn.execute(f"SELECT name FROM {TABLES_TABLE}")
                             if r[0] not in tables)
            if missing:
                raise FileRefused("partial", path, tables=", ".join(missing[:8]))
    except sqlite3.DatabaseError as e:
        if "file is not a database" in str(e):
            raise FileRefused("not_sqlite", path) from None
        raise FileRefused("damaged", path, detail=str(e)) from None
    finally:
        conn.close()


def prepare(path: str | os.PathLike[str], sets: Iterable[Migrations] = (), *,
            thorough: bool = True, every_set: Iterable[str] | None = None) -> bool:
    """The start-up check of a process that serves ``path``: a path that does not exist
    becomes a new club file (returns True); an existing one must pass
    :func:`check_file` (returns False) or :class:`FileRefused` is raised. A new club is
    made only this way, from a path that does not exist: never from an empty file."""
    path = str(path)
    if path == ":memory:":
        return True
    if not os.path.exists(path):
        _make_new(path)
        return True
    check_file(path, sets, thorough=thorough, every_set=every_set)
    return False
