"""The shared store: table state, table events and the command journal.

This module is THE interface between the ``tablectl`` daemon and anything else
that wants a table to do something (the web app, the staff CLI). Callers never
talk to the daemon; they write a request row and read results and state back,
so either process may restart at any time::

    cid = request_command(db, "t1", "mode", {"mode": 4}, "web-123", actor="mika")
    row = wait_command(db, cid, timeout=30)   # row["status"] in TERMINAL?

(:class:`tablectl.client.TableClient` does both and puts the outcome in words.)

Every command goes ``queued -> sending -> done | failed | timed_out``. One
command is in flight per table: a second one is refused (:class:`CommandInFlight`,
naming what is in flight, who asked and since when), except a command that may
wait behind it (a mode change behind a running cycle), which is queued as
pending. The daemon journals a command (status ``sending`` and the sequence
number it will use) *before* any byte reaches the wire and marks it after, so a
killed daemon resolves it on restart without repeating it (docs/protocol.md,
"Host recovery"). A reply the daemon journalled is never overwritten.

Outcomes are stored as codes and values (``error_code``, ``error_values``,
``last_error`` ...); :mod:`tablectl.words` puts them in each reader's language.
``error_message`` keeps the words in both languages for scripts and logs.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, TypeVar, Union

import sqlite_utils

import clubdb

from . import commands
from . import words as table_words
from .errors import TableError

DbPath = Union[str, "os.PathLike[str]"]
"""Where the club file is: a path as text or a path object."""
_T = TypeVar("_T")

COMMANDS = tuple(commands.COMMANDS)
"""Commands a caller may request (one row each in :mod:`tablectl.commands`)."""

TERMINAL = ("done", "failed", "timed_out")

HEARTBEAT_STALE_S = 5.0
"""A daemon whose heartbeat is older than this is reported as not answering."""


class StoreError(TableError):
    """A request the store refuses; ``code`` is machine readable, the words are for people."""

    code = "store_error"


class UnknownTable(StoreError):
    code = "unknown_table"


class UnknownCommand(StoreError):
    """A command name the commands table does not have (one class of that name: the
    protocol's unknown message type is :class:`~tablectl.errors.UnknownMessage`)."""

    code = "unknown_command"


class IdempotencyConflict(StoreError):
    code = "idempotency_conflict"


class NotSupported(StoreError):
    code = "unsupported"


class CommandInFlight(StoreError):
    """A command is already in flight on the table: what, who asked, since when."""

    code = "in_flight"
    tz = "Asia/Tokyo"

    def text(self, lang: str = "ja") -> str:
        if lang == table_words.BOTH:
            return table_words.in_both(self.text, lang)
        v = self.values
        running = commands.COMMANDS[v["command"]].running(lang) \
            if v["command"] in commands.COMMANDS else v["command"]
        return table_words.say("table.code.in_flight", lang, table=v["table"], running=running,
                     who=v["who"], since=table_words.clock(v["since"], self.tz))

    @property
    def message(self) -> str:
        return self.text(table_words.BOTH)


def now() -> float:
    """Wall-clock seconds; one place so every timestamp has the same unit."""
    return time.time()


# --------------------------------------------------------------------------- schema
MIGRATIONS = clubdb.Migrations("tablectl")


@MIGRATIONS(legacy=("tablectl_migrations", "name", "0001_tables"))
def create_tables(db: sqlite_utils.Database) -> None:
    db.table("table_state").create({
        "table_id": str, "name": str, "url": str, "configured": int,
        "connected": int, "model": str, "firmware": str, "capabilities": str,
        "mode": int, "pending_mode": int, "cycle_state": str, "lid": str,
        "errors": str, "points": str, "last_error": str, "state": str,
        "updated_at": float,
    }, pk="table_id", not_null={"table_id"}, defaults={"configured": 1, "connected": 0})
    db.table("table_events").create({
        "id": int, "table_id": str, "kind": str, "code": str, "message": str,
        "data": str, "at": float,
    }, pk="id", foreign_keys=[("table_id", "table_state", "table_id")])
    db.table("table_events").create_index(["table_id", "id"])
    db.table("table_commands").create({
        "id": int, "table_id": str, "command": str, "args": str,
        "idempotency_key": str, "status": str, "result": str,
        "error_code": str, "error_message": str, "created_at": float,
        "expires_at": float, "started_at": float, "finished_at": float,
        "attempts": int, "seq": int, "source": str,
    }, pk="id", not_null={"table_id", "command", "status", "idempotency_key"},
        defaults={"status": "queued", "attempts": 0},
        foreign_keys=[("table_id", "table_state", "table_id")])
    db.table("table_commands").create_index(["idempotency_key"], unique=True)
    db.table("table_commands").create_index(["table_id", "status", "id"])
    db.table("tablectl_daemon").create({
        "id": int, "pid": int, "started_at": float, "heartbeat_at": float,
        "config": str, "stopped_at": float,
    }, pk="id")


@MIGRATIONS
def codes_drivers_and_actors(db: sqlite_utils.Database) -> None:
    """Outcomes as codes and values, who asked, what a command waits behind, and each
    table's driver with the commands it can do."""
    db.table("table_commands").add_column("actor", str)
    db.table("table_commands").add_column("error_values", str)
    db.table("table_commands").add_column("waits_for", int)
    db.table("table_state").add_column("driver", str)
    db.table("table_state").add_column("commands", str)
    db.table("table_state").add_column("last_error_values", str)


@MIGRATIONS
def table_cameras(db: sqlite_utils.Database) -> None:
    """Each table's camera: the picture's source and the club file's region (written by
    the daemon at start), and the region staff set on the console (wins when set)."""
    db.table("table_cameras").create({
        "table_id": str, "source": str, "file_region": str, "region": str,
        "updated_at": float, "updated_by": str,
    }, pk="table_id", not_null={"table_id"})


class DatabaseRefused(TableError):
    """The club file is not one to open (empty, foreign, damaged or newer): the words of
    :class:`clubdb.FileRefused`, which name the file and the restore command."""

    code = "database_refused"

    def __init__(self, refused: clubdb.FileRefused):
        super().__init__(str(refused))
        self.values = dict(refused.values)  # may hold a ``detail`` of its own (a damaged file)
        self._key = refused.key

    @property
    def key(self) -> str:
        return self._key


def open_db(db_path: str | os.PathLike[str]) -> sqlite_utils.Database:
    """This thread's connection to the shared SQLite file (created and migrated if needed;
    an empty, foreign or newer file is refused with :class:`DatabaseRefused`)."""
    try:
        return clubdb.open_shared(db_path, [MIGRATIONS])
    except clubdb.FileRefused as e:
        raise DatabaseRefused(e) from None


@contextmanager
def connect(db_path: str | os.PathLike[str]) -> Iterator[sqlite_utils.Database]:
    """The store's connection for one call (this thread's shared one; left open)."""
    yield open_db(db_path)


# --------------------------------------------------------------------------- rows
_JSON_COLS = {"args", "result", "capabilities", "errors", "points", "data", "state",
              "error_values", "commands", "last_error_values"}


def _row(cursor: sqlite3.Cursor, values: Sequence[Any]) -> dict[str, Any]:
    out = {}
    for (name, *_), value in zip(cursor.description, values, strict=True):
        if name in _JSON_COLS and value is not None:
            value = json.loads(value)
        out[name] = value
    return out


def _query(db: sqlite_utils.Database, sql: str,
           params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    cur = db.conn.execute(sql, params)
    return [_row(cur, v) for v in cur.fetchall()]


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


# --------------------------------------------------------------------------- public: callers
def request_command(db_path: DbPath, table_id: str, command: str,
                    args: dict[str, Any] | None = None,
                    idempotency_key: str | None = None, *, expires_in: float | None = None,
                    source: str = "", actor: str = "") -> int:
    """Queue ``command`` for ``table_id`` and return its id.

    Idempotent on ``idempotency_key``: asking again with the same key returns the
    first request's id (:class:`IdempotencyConflict` if the table, command or
    arguments differ). Refused with :class:`CommandInFlight` while another command
    is in flight on the table, unless the command may wait behind it (a mode
    change behind a cycle: it is queued as pending, without a deadline, and sent
    when the cycle has ended). ``expires_in`` seconds: if the daemon has not started
    sending it by then it is ``timed_out`` and never sent. ``source`` is the channel
    (``cli``, ``web``), ``actor`` the person.
    """
    try:
        spec = commands.get(command)
        args = spec.check(args)
    except commands.CommandError as e:
        err = UnknownCommand if e.code == "unknown_command" else StoreError
        raise err(code=e.code, **e.values) from None
    key = idempotency_key or f"auto-{uuid.uuid4()}"
    db = open_db(db_path)
    with clubdb.write_tx(db):
        existing = _query(db, "SELECT * FROM table_commands WHERE idempotency_key = ?", (key,))
        if existing:
            return _same_request(existing[0], table_id, command, args)
        _require_table(db, table_id, command)
        t = now()
        blocker = _in_flight(db, table_id, t)
        waits_for = None
        if blocker is not None:
            if blocker["command"] not in spec.waits_behind or blocker["status"] != "sending" \
                    or _count_in_flight(db, table_id) > 1:
                raise CommandInFlight(table=table_id, command=blocker["command"],
                                      who=blocker["actor"] or blocker["source"] or "?",
                                      since=blocker["started_at"] or blocker["created_at"])
            waits_for, expires_in = blocker["id"], None
        cur = db.conn.execute(
            "INSERT INTO table_commands (table_id, command, args, idempotency_key, status,"
            " created_at, expires_at, attempts, source, actor, waits_for)"
            " VALUES (?, ?, ?, ?, 'queued', ?, ?, 0, ?, ?, ?)",
            (table_id, command, _dumps(args), key, t,
             None if expires_in is None else t + expires_in, source, actor, waits_for))
        command_id = cur.lastrowid
        assert command_id is not None  # an INSERT sets it
        return command_id


def _in_flight(db: sqlite_utils.Database, table_id: str, t: float) -> dict[str, Any] | None:
    """The oldest command in flight on the table; queued ones past their deadline are
    marked timed_out on the way (so a request nobody took does not block the table)."""
    for row in _query(db, "SELECT * FROM table_commands WHERE table_id = ? AND status IN"
                      " ('queued', 'sending') ORDER BY id", (table_id,)):
        if row["status"] == "queued" and row["expires_at"] is not None \
                and row["expires_at"] < t:
            _expire(db, row, t)
            continue
        return row
    return None


def _count_in_flight(db: sqlite_utils.Database, table_id: str) -> int:
    n: int = db.conn.execute("SELECT count(*) FROM table_commands WHERE table_id = ? AND"
                             " status IN ('queued', 'sending')", (table_id,)).fetchone()[0]
    return n


def _expire(db: sqlite_utils.Database, row: dict[str, Any], t: float,
            why: tuple[str, dict[str, Any]] | None = None) -> None:
    """A queued request past its deadline is never sent: ``why`` (code, values) when the
    reason is known, else ``not_sent`` with how long it waited."""
    code, values = why or ("not_sent", {"waited": round(t - row["created_at"])})
    db.conn.execute(
        "UPDATE table_commands SET status='timed_out', error_code=?, error_values=?,"
        " error_message=?, finished_at=? WHERE id=? AND status='queued'",
        (code, _dumps(values), table_words.code(code, table_words.BOTH, values), t, row["id"]))


def _same_request(row: dict[str, Any], table_id: str, command: str, args: dict[str, Any]) -> int:
    if (row["table_id"], row["command"], row["args"]) != (table_id, command, args):
        raise IdempotencyConflict(idempotency_key=row["idempotency_key"], command=row["command"],
                                  table=row["table_id"])
    return int(row["id"])


def _require_table(db: sqlite_utils.Database, table_id: str,
                   command: str | None = None) -> dict[str, Any]:
    rows = _query(db, "SELECT table_id, configured, driver, commands FROM table_state")
    known = {r["table_id"]: r for r in rows if r["configured"]}
    if table_id not in known:
        raise UnknownTable(table=table_id, known=", ".join(sorted(known))
                           or table_words.say("table.code.no_tables_yet", table_words.BOTH))
    row = known[table_id]
    if command is not None and row["commands"] is not None and command not in row["commands"]:
        raise NotSupported(table=table_id, driver=row["driver"] or "?", command=command)
    return row


def get_command(db_path: DbPath, command_id: int) -> dict[str, Any]:
    """One journal row as a dict (args/result/values decoded); StoreError if unknown."""
    rows = _query(open_db(db_path), "SELECT * FROM table_commands WHERE id = ?", (command_id,))
    if not rows:
        raise StoreError(code="unknown_command_id", id=command_id)
    return rows[0]


def wait_command(db_path: DbPath, command_id: int, timeout: float) -> dict[str, Any]:
    """Poll until the command is done/failed/timed_out or ``timeout`` s pass; return its row."""
    deadline = time.monotonic() + timeout
    while True:
        row = get_command(db_path, command_id)
        if row["status"] in TERMINAL or time.monotonic() >= deadline:
            return row
        time.sleep(0.02)


def withdraw_command(db_path: DbPath, command_id: int, reason: str = "", code: str = "not_sent",
                     values: dict[str, Any] | None = None) -> dict[str, Any]:
    """Mark a still-queued command ``timed_out`` so it is never sent; return its row.

    ``code`` and ``values`` say why (``not_sent_daemon_down`` ...); ``reason`` is
    kept as the words when there are no values. A command the daemon has already
    started (``sending``) or finished is left alone: its outcome is the daemon's.
    """
    values = dict(values or {})
    words = table_words.code(code, table_words.BOTH, values) if values or not reason else reason
    db = open_db(db_path)
    with clubdb.write_tx(db):
        db.conn.execute(
            "UPDATE table_commands SET status='timed_out', error_code=?, error_values=?,"
            " error_message=?, finished_at=? WHERE id=? AND status='queued'",
            (code, _dumps(values) if values or not reason else None, words, now(), command_id))
    return get_command(db_path, command_id)


def in_flight(db_path: DbPath, table_id: str) -> dict[str, Any] | None:
    """The command in flight on a table (queued or being carried out), if any."""
    rows = _query(open_db(db_path), "SELECT * FROM table_commands WHERE table_id = ? AND"
                  " status IN ('queued', 'sending') ORDER BY id LIMIT 1", (table_id,))
    return rows[0] if rows else None


def list_commands(db_path: DbPath, table_id: str | None = None,
                  limit: int = 50) -> list[dict[str, Any]]:
    """The most recent journal rows, newest first."""
    return _newest(db_path, "table_commands", table_id, limit)


def list_tables(db_path: DbPath) -> list[dict[str, Any]]:
    """State of every configured table, in id order."""
    return _query(open_db(db_path),
                  "SELECT * FROM table_state WHERE configured = 1 ORDER BY table_id")


def get_table(db_path: DbPath, table_id: str) -> dict[str, Any]:
    """State of one table; UnknownTable if it is not configured."""
    db = open_db(db_path)
    _require_table(db, table_id)
    return _query(db, "SELECT * FROM table_state WHERE table_id = ?", (table_id,))[0]


def recent_events(db_path: DbPath, table_id: str | None = None,
                  limit: int = 50) -> list[dict[str, Any]]:
    """The most recent table events (newest first), for one table or all."""
    return _newest(db_path, "table_events", table_id, limit)


def _newest(db_path: DbPath, rows_of: str, table_id: str | None,
            limit: int) -> list[dict[str, Any]]:
    """The newest ``limit`` rows of the journal or the event log, of one table or all."""
    where, params = ("WHERE table_id = ?", (table_id,)) if table_id else ("", ())
    return _query(open_db(db_path),
                  f"SELECT * FROM {rows_of} {where} ORDER BY id DESC LIMIT ?",
                  (*params, limit))


def daemon_status(db_path: DbPath) -> dict[str, Any]:
    """The daemon as its heartbeat shows it: ``state`` is ``running``, ``stale`` (the
    heartbeat stopped coming: the daemon hangs or cannot write, e.g. the database is
    locked; table states are then as of ``heartbeat_at``), ``stopped`` or ``never``;
    ``running`` is True only for ``running``."""
    rows = _query(open_db(db_path), "SELECT * FROM tablectl_daemon WHERE id = 1")
    if not rows:
        return {"running": False, "state": "never", "pid": None, "heartbeat_at": None,
                "age_s": None, "started_at": None}
    row = rows[0]
    age = now() - (row["heartbeat_at"] or 0)
    state = "stopped" if row["stopped_at"] is not None else (
        "running" if age < HEARTBEAT_STALE_S else "stale")
    return {"running": state == "running", "state": state, "pid": row["pid"],
            "heartbeat_at": row["heartbeat_at"], "age_s": age, "started_at": row["started_at"]}


# --------------------------------------------------------------------------- public: daemon side
def is_locked(e: BaseException) -> bool:
    """An SQLite error that means another process holds the write lock for too long."""
    return isinstance(e, sqlite3.OperationalError) and (
        "locked" in str(e) or "busy" in str(e))


class Journal:
    """The daemon's side of the store, on this thread's connection.

    ``patience(waited_s)`` is called while another process holds the database's
    write lock beyond the busy timeout; it waits a little (and may raise to give
    up); the write is then tried again, so a long lock is waited out, never a crash.
    Without it the lock error is raised.
    """

    def __init__(self, db_path: DbPath, *, busy_timeout_ms: int | None = None,
                 patience: Callable[[float], None] | None = None) -> None:
        self.db_path = str(db_path)
        self.db = open_db(db_path)
        if busy_timeout_ms is not None:
            self.db.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        self.patience = patience

    def close(self) -> None:
        """Nothing to release: the connection is the thread's shared one."""

    def _write(self, fn: Callable[[], _T]) -> _T:
        start = time.monotonic()
        while True:
            try:
                with clubdb.write_tx(self.db):
                    return fn()
            except sqlite3.OperationalError as e:
                if not is_locked(e) or self.patience is None:
                    raise
                self.patience(time.monotonic() - start)

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._write(lambda: self.db.conn.execute(sql, params))

    # ---- tables
    def register_tables(self, tables: list[dict[str, Any]]) -> None:
        """Make the configured tables exactly ``tables`` (id, name, url, driver, commands);
        others are left unconfigured."""
        ids = [t["id"] for t in tables]

        def write() -> None:
            self.db.conn.execute(
                f"UPDATE table_state SET configured = 0 WHERE table_id NOT IN "
                f"({','.join('?' * len(ids))})", ids)
            for t in tables:
                self.db.conn.execute(
                    "INSERT INTO table_state (table_id, name, url, driver, commands, configured,"
                    " connected, updated_at) VALUES (?, ?, ?, ?, ?, 1, 0, ?)"
                    " ON CONFLICT(table_id) DO UPDATE SET name=excluded.name, url=excluded.url,"
                    " driver=excluded.driver, commands=excluded.commands, configured=1",
                    (t["id"], t.get("name") or t["id"], t.get("url", ""), t.get("driver"),
                     _dumps(t.get("commands")), now()))
                camera = t.get("camera")
                if camera:
                    self.db.conn.execute(
                        "INSERT INTO table_cameras (table_id, source, file_region, updated_at)"
                        " VALUES (?, ?, ?, ?) ON CONFLICT(table_id) DO UPDATE SET"
                        " source=excluded.source, file_region=excluded.file_region",
                        (t["id"], camera["device"], _dumps(camera.get("region")), now()))
                else:               # the camera taken out of the club file: none now
                    self.db.conn.execute("UPDATE table_cameras SET source = NULL,"
                                         " file_region = NULL WHERE table_id = ?", (t["id"],))
        self._write(write)

    def update_table(self, table_id: str, **fields: Any) -> None:
        """Set some state columns of one table (JSON columns take Python values)."""
        cols = {k: (_dumps(v) if k in _JSON_COLS else v) for k, v in fields.items()}
        cols["updated_at"] = now()
        sets = ", ".join(f"{k} = ?" for k in cols)
        self._exec(f"UPDATE table_state SET {sets} WHERE table_id = ?",
                   (*cols.values(), table_id))

    def add_event(self, table_id: str, kind: str, code: str = "", message: str = "",
                  data: dict[str, Any] | None = None) -> None:
        """Append a table event (``message`` defaults to its words in both languages)."""
        self._write(lambda: self._insert_event(table_id, kind, code, message, data))

    def _insert_event(self, table_id: str, kind: str, code: str = "", message: str = "",
                      data: dict[str, Any] | None = None) -> None:
        row = {"kind": kind, "code": code, "data": data}
        self.db.conn.execute("INSERT INTO table_events (table_id, kind, code, message, data, at)"
                             " VALUES (?, ?, ?, ?, ?, ?)",
                             (table_id, kind, code, message or table_words.event(row,
                                                                                 table_words.BOTH),
                              _dumps(data), now()))

    # ---- commands
    def in_doubt(self, table_id: str) -> list[dict[str, Any]]:
        """Commands a previous run left in ``sending`` (oldest first)."""
        return _query(self.db, "SELECT * FROM table_commands WHERE table_id = ? AND"
                      " status = 'sending' ORDER BY id", (table_id,))

    def given_up(self, table_id: str, limit: int = 1) -> list[dict[str, Any]]:
        """The latest command(s) marked timed_out because the line stayed down."""
        return _query(self.db, "SELECT * FROM table_commands WHERE table_id = ? AND"
                      " error_code = 'link_down' ORDER BY id DESC LIMIT ?", (table_id, limit))

    def note_late_outcome(self, command_id: int, code: str,
                          event: dict[str, Any] | None = None) -> None:
        """Record that a command given up as timed_out was later found to have run;
        ``event`` (as in :meth:`finish`) is stored in the same transaction."""
        def write() -> None:
            self.db.conn.execute("UPDATE table_commands SET error_code=?, error_message="
                                 "error_message || ' — ' || ? WHERE id=?",
                                 (code, table_words.code(code, table_words.BOTH), command_id))
            if event is not None:
                self._insert_event(**event)
        self._write(write)

    def has_queued(self, table_id: str) -> bool:
        """Whether a command waits for the table (a read: no write while nothing changes)."""
        return self.db.conn.execute(
            "SELECT 1 FROM table_commands WHERE table_id = ? AND status = 'queued' LIMIT 1",
            (table_id,)).fetchone() is not None

    def expire_queued(self, table_id: str, why: tuple[str, dict[str, Any]] | None = None) -> None:
        """Mark queued commands past their deadline timed_out (a write only if there are);
        ``why``: the code and values of the reason, when the daemon knows it (the table
        is not connected), the same words a waiting client would give."""
        t = now()
        rows = _query(self.db, "SELECT * FROM table_commands WHERE table_id = ? AND"
                      " status = 'queued' AND expires_at IS NOT NULL AND expires_at < ?",
                      (table_id, t))
        if rows:
            def expire() -> None:
                for r in rows:
                    _expire(self.db, r, t, why)
            self._write(expire)

    def claim_next(self, table_id: str) -> dict[str, Any] | None:
        """Take the oldest queued command of the table (status -> sending); expire stale ones.
        Nothing is written when nothing waits."""
        if not self.has_queued(table_id):
            return None

        def claim() -> dict[str, Any] | None:
            t = now()
            for row in _query(self.db, "SELECT * FROM table_commands WHERE table_id = ? AND"
                              " status = 'queued' ORDER BY id", (table_id,)):
                if row["expires_at"] is not None and row["expires_at"] < t:
                    _expire(self.db, row, t)
                    continue
                if row["waits_for"] and self.db.conn.execute(
                        "SELECT 1 FROM table_commands WHERE id = ? AND status IN"
                        " ('queued', 'sending')", (row["waits_for"],)).fetchone():
                    return None           # pending behind a command still in flight
                self.db.conn.execute(
                    "UPDATE table_commands SET status='sending', started_at=?, seq=NULL,"
                    " attempts=attempts+1 WHERE id=?", (t, row["id"]))
                return {**row, "status": "sending", "started_at": t}
            return None
        return self._write(claim)

    def set_seq(self, command_id: int, seq: int) -> None:
        """Record the token BEFORE the frame is written (recovery needs it)."""
        self._exec("UPDATE table_commands SET seq=? WHERE id=?", (seq, command_id))

    def set_progress(self, command_id: int, result: Any) -> None:
        """Record the table's first answer to a long command still ``sending`` (it ran)."""
        self._exec("UPDATE table_commands SET result=? WHERE id=? AND result IS NULL",
                   (_dumps(result), command_id))

    def requeue(self, command_id: int) -> None:
        """Put back a command that provably never reached the wire (or may be asked again)."""
        self._exec("UPDATE table_commands SET status='queued', seq=NULL WHERE id=? AND"
                   " status='sending'", (command_id,))

    def finish(self, command_id: int, status: str, result: Any = None,
               error_code: str | None = None, error_message: str | None = None,
               error_values: dict[str, Any] | None = None,
               event: dict[str, Any] | None = None) -> None:
        """Mark a command in flight done / failed / timed_out with its result or reason.

        A result the daemon journalled earlier (a started cycle's reply) is kept:
        ``result`` only adds to it. A command already finished is left alone.
        ``event`` (``table_id``, ``kind``, ``code``, ``data``) is stored in the same
        transaction, so whoever reads the outcome also finds the event.
        """
        if status not in TERMINAL:
            raise ValueError(f"finish() needs one of {TERMINAL}, got {status!r}")
        if error_code and error_message is None:
            error_message = table_words.code(error_code, table_words.BOTH, error_values)

        def write() -> None:
            old = self.db.conn.execute("SELECT result FROM table_commands WHERE id=?",
                                       (command_id,)).fetchone()
            kept = json.loads(old[0]) if old and old[0] else None
            merged = {**kept, **(result or {})} if isinstance(kept, dict) else result
            self.db.conn.execute(
                "UPDATE table_commands SET status=?, result=?, error_code=?, error_values=?,"
                " error_message=?, finished_at=? WHERE id=? AND status IN ('queued','sending')",
                (status, _dumps(merged), error_code,
                 _dumps(error_values) if error_code else None, error_message, now(), command_id))
            if event is not None:
                self._insert_event(**event)
        self._write(write)

    # ---- daemon heartbeat
    def heartbeat(self, pid: int, config: str = "", started: bool = False) -> None:
        """Write the daemon's heartbeat (raises the lock error: the caller tries later)."""
        t = now()
        with clubdb.write_tx(self.db):
            if started:
                self.db.conn.execute(
                    "INSERT INTO tablectl_daemon (id, pid, started_at, heartbeat_at, config,"
                    " stopped_at) VALUES (1, ?, ?, ?, ?, NULL) ON CONFLICT(id) DO UPDATE SET"
                    " pid=excluded.pid, started_at=excluded.started_at,"
                    " heartbeat_at=excluded.heartbeat_at, config=excluded.config, stopped_at=NULL",
                    (pid, t, t, config))
            else:
                self.db.conn.execute(
                    "UPDATE tablectl_daemon SET heartbeat_at=? WHERE id=1 AND pid=?", (t, pid))

    def stopped(self, pid: int) -> None:
        self._exec("UPDATE tablectl_daemon SET stopped_at=? WHERE id=1 AND pid=?", (now(), pid))
