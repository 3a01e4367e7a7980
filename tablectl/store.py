"""The shared store: table state, table events and the command journal.

This module is THE interface between the ``tablectl`` daemon and anything
else that wants a table to do something (the web app, the staff CLI).
Callers never talk to the daemon directly; they write a request row and
read results and state back, so either process may restart at any time::

    cid = request_command(db, "t1", "mode", {"mode": 4}, "web-123")
    row = wait_command(db, cid, timeout=30)   # row["status"] in TERMINAL?

Every command goes ``queued -> sending -> done | failed | timed_out``.
The daemon journals a command (status ``sending`` and the sequence number
it will use) *before* any byte reaches the wire and marks it after, which
is what lets a killed daemon resolve it on restart without repeating it
(see docs/protocol.md, "Host recovery").

The SQLite file runs in WAL mode with ``synchronous=FULL`` (a journalled
command survives a power cut of the host) and foreign keys on.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from contextlib import contextmanager
from typing import Any, Iterator

import sqlite_utils

import clubdb

from .errors import TableError

COMMANDS = ("status", "mode", "cycle", "dice", "deal", "check", "points", "reset", "dealt")
"""Commands a caller may request (see docs/tablectl.md for their arguments)."""

TERMINAL = ("done", "failed", "timed_out")
STATUSES = ("queued", "sending") + TERMINAL

HEARTBEAT_STALE_S = 5.0
"""A daemon whose heartbeat is older than this is reported as not running."""


class StoreError(TableError):
    """A request the store refuses; ``code`` is machine readable, the message is for people."""

    code = "store_error"


class UnknownTable(StoreError):
    code = "unknown_table"


class UnknownCommand(StoreError):
    code = "unknown_command"


class IdempotencyConflict(StoreError):
    code = "idempotency_conflict"


def now() -> float:
    """Wall-clock seconds; one place so every timestamp has the same unit."""
    return time.time()


# --------------------------------------------------------------------------- schema
MIGRATIONS = clubdb.Migrations("tablectl")


@MIGRATIONS(legacy=("tablectl_migrations", "name", "0001_tables"))
def create_tables(db: sqlite_utils.Database) -> None:
    db["table_state"].create({
        "table_id": str, "name": str, "url": str, "configured": int,
        "connected": int, "model": str, "firmware": str, "capabilities": str,
        "mode": int, "pending_mode": int, "cycle_state": str, "lid": str,
        "errors": str, "points": str, "last_error": str, "state": str,
        "updated_at": float,
    }, pk="table_id", not_null={"table_id"}, defaults={"configured": 1, "connected": 0})
    db["table_events"].create({
        "id": int, "table_id": str, "kind": str, "code": str, "message": str,
        "data": str, "at": float,
    }, pk="id", foreign_keys=[("table_id", "table_state", "table_id")])
    db["table_events"].create_index(["table_id", "id"])
    db["table_commands"].create({
        "id": int, "table_id": str, "command": str, "args": str,
        "idempotency_key": str, "status": str, "result": str,
        "error_code": str, "error_message": str, "created_at": float,
        "expires_at": float, "started_at": float, "finished_at": float,
        "attempts": int, "seq": int, "source": str,
    }, pk="id", not_null={"table_id", "command", "status", "idempotency_key"},
        defaults={"status": "queued", "attempts": 0},
        foreign_keys=[("table_id", "table_state", "table_id")])
    db["table_commands"].create_index(["idempotency_key"], unique=True)
    db["table_commands"].create_index(["table_id", "status", "id"])
    db["tablectl_daemon"].create({
        "id": int, "pid": int, "started_at": float, "heartbeat_at": float,
        "config": str, "stopped_at": float,
    }, pk="id")


def open_db(db_path: str | os.PathLike) -> sqlite_utils.Database:
    """This thread's connection to the shared SQLite file (created and migrated if needed)."""
    return clubdb.open_shared(db_path, [MIGRATIONS])


@contextmanager
def connect(db_path: str | os.PathLike) -> Iterator[sqlite_utils.Database]:
    """The store's connection for one call (this thread's shared one; left open)."""
    yield open_db(db_path)


# --------------------------------------------------------------------------- rows
_JSON_COLS = {"args", "result", "capabilities", "errors", "points", "data", "state"}


def _row(cursor, values) -> dict:
    out = {}
    for (name, *_), value in zip(cursor.description, values, strict=True):
        if name in _JSON_COLS and value is not None:
            value = json.loads(value)
        out[name] = value
    return out


def _query(db, sql: str, params=()) -> list[dict]:
    cur = db.conn.execute(sql, params)
    return [_row(cur, v) for v in cur.fetchall()]


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


# --------------------------------------------------------------------------- public: callers
def request_command(db_path, table_id: str, command: str, args: dict | None = None,
                    idempotency_key: str | None = None, *, expires_in: float | None = None,
                    source: str = "") -> int:
    """Queue ``command`` for ``table_id`` and return its id.

    Idempotent on ``idempotency_key``: asking again with the same key returns
    the first request's id (and refuses with :class:`IdempotencyConflict` if
    the table, command or arguments differ). ``expires_in`` seconds: if the
    daemon has not started sending it by then it is marked ``timed_out`` and
    never sent (so a cycle asked for while the daemon is down does not run
    hours later). ``None`` keeps it queued until the daemon runs it.
    """
    args = validate_command(command, args)
    key = idempotency_key or f"auto-{uuid.uuid4()}"
    with connect(db_path) as db, clubdb.write_tx(db):
        existing = _query(db, "SELECT * FROM table_commands WHERE idempotency_key = ?", (key,))
        if existing:
            return _same_request(existing[0], table_id, command, args)
        _require_table(db, table_id)
        t = now()
        cur = db.conn.execute(
            "INSERT INTO table_commands (table_id, command, args, idempotency_key, status,"
            " created_at, expires_at, attempts, source) VALUES (?, ?, ?, ?, 'queued', ?, ?, 0, ?)",
            (table_id, command, _dumps(args), key, t,
             None if expires_in is None else t + expires_in, source),
        )
        return cur.lastrowid


def _same_request(row: dict, table_id: str, command: str, args: dict) -> int:
    if (row["table_id"], row["command"], row["args"]) != (table_id, command, args):
        raise IdempotencyConflict(key=row["idempotency_key"], command=row["command"],
                                  table=row["table_id"])
    return row["id"]


def _require_table(db, table_id: str) -> None:
    rows = _query(db, "SELECT table_id, configured FROM table_state")
    known = sorted(r["table_id"] for r in rows if r["configured"])
    if table_id not in known:
        raise UnknownTable(table=table_id, known=", ".join(known) or "—")


def validate_command(command: str, args: dict | None) -> dict:
    """Check a command name and its arguments; return the normalised arguments."""
    if command not in COMMANDS:
        raise UnknownCommand(command=command, choices=", ".join(COMMANDS))
    args = dict(args or {})
    if command == "mode":
        mode = args.get("mode")
        if not isinstance(mode, int) or isinstance(mode, bool) or not 0 <= mode <= 8:
            raise StoreError(
                f"a mode change needs args {{'mode': 0..8}}, got {args!r}", "invalid_args"
            )
        extra = set(args) - {"mode"}
    else:
        extra = set(args)
    if extra:
        raise StoreError(
            f"command {command!r} takes no argument(s) {', '.join(sorted(extra))}",
            "invalid_args",
        )
    return args


def get_command(db_path, command_id: int) -> dict:
    """One journal row as a dict (args/result decoded); StoreError if unknown."""
    with connect(db_path) as db:
        rows = _query(db, "SELECT * FROM table_commands WHERE id = ?", (command_id,))
    if not rows:
        raise StoreError(code="unknown_command_id", id=command_id)
    return rows[0]


def wait_command(db_path, command_id: int, timeout: float) -> dict:
    """Poll until the command is done/failed/timed_out or ``timeout`` s pass; return its row."""
    deadline = time.monotonic() + timeout
    while True:
        row = get_command(db_path, command_id)
        if row["status"] in TERMINAL or time.monotonic() >= deadline:
            return row
        time.sleep(0.02)


def withdraw_command(db_path, command_id: int, reason: str) -> dict:
    """Mark a still-queued command ``timed_out`` so it is never sent; return its row.

    Does nothing to a command the daemon has already started (``sending``)
    or finished: that one's outcome is decided by the daemon.
    """
    with connect(db_path) as db, clubdb.write_tx(db):
        db.conn.execute(
            "UPDATE table_commands SET status='timed_out', error_code='not_sent',"
            " error_message=?, finished_at=? WHERE id=? AND status='queued'",
            (reason, now(), command_id),
        )
    return get_command(db_path, command_id)


def list_commands(db_path, table_id: str | None = None, limit: int = 50) -> list[dict]:
    """The most recent journal rows, newest first."""
    where, params = ("WHERE table_id = ?", (table_id,)) if table_id else ("", ())
    with connect(db_path) as db:
        return _query(db, f"SELECT * FROM table_commands {where} ORDER BY id DESC LIMIT ?",
                      (*params, limit))


def list_tables(db_path) -> list[dict]:
    """State of every configured table, in id order."""
    with connect(db_path) as db:
        return _query(db, "SELECT * FROM table_state WHERE configured = 1 ORDER BY table_id")


def get_table(db_path, table_id: str) -> dict:
    """State of one table; UnknownTable if it is not configured."""
    with connect(db_path) as db:
        _require_table(db, table_id)
        return _query(db, "SELECT * FROM table_state WHERE table_id = ?", (table_id,))[0]


def recent_events(db_path, table_id: str | None = None, limit: int = 50) -> list[dict]:
    """The most recent table events (newest first), for one table or all."""
    where, params = ("WHERE table_id = ?", (table_id,)) if table_id else ("", ())
    with connect(db_path) as db:
        return _query(db, f"SELECT * FROM table_events {where} ORDER BY id DESC LIMIT ?",
                      (*params, limit))


def daemon_status(db_path) -> dict:
    """``{"running": bool, "pid", "heartbeat_at", "age_s"}`` from the daemon's heartbeat."""
    with connect(db_path) as db:
        rows = _query(db, "SELECT * FROM tablectl_daemon WHERE id = 1")
    if not rows:
        return {"running": False, "pid": None, "heartbeat_at": None, "age_s": None}
    row = rows[0]
    age = now() - (row["heartbeat_at"] or 0)
    running = row["stopped_at"] is None and age < HEARTBEAT_STALE_S
    return {"running": running, "pid": row["pid"], "heartbeat_at": row["heartbeat_at"],
            "age_s": age, "started_at": row["started_at"]}


# --------------------------------------------------------------------------- public: daemon side
class Journal:
    """The daemon's side of the store, on one connection (one per thread)."""

    def __init__(self, db_path):
        self.db_path = str(db_path)
        self.db = open_db(db_path)

    def close(self) -> None:
        """Nothing to release: the connection is the thread's shared one."""

    # ---- tables
    def register_tables(self, tables: list[dict]) -> None:
        """Make the configured tables exactly ``tables`` (id, name, url); others unconfigured."""
        ids = [t["id"] for t in tables]
        with clubdb.write_tx(self.db):
            self.db.conn.execute(
                f"UPDATE table_state SET configured = 0 WHERE table_id NOT IN "
                f"({','.join('?' * len(ids))})", ids)
            for t in tables:
                self.db.conn.execute(
                    "INSERT INTO table_state"
                    " (table_id, name, url, configured, connected, updated_at)"
                    " VALUES (?, ?, ?, 1, 0, ?) ON CONFLICT(table_id) DO UPDATE SET"
                    " name=excluded.name, url=excluded.url, configured=1",
                    (t["id"], t.get("name") or t["id"], t.get("url", ""), now()))

    def update_table(self, table_id: str, **fields) -> None:
        """Set some state columns of one table (JSON columns take Python values)."""
        cols = {k: (_dumps(v) if k in _JSON_COLS else v) for k, v in fields.items()}
        cols["updated_at"] = now()
        sets = ", ".join(f"{k} = ?" for k in cols)
        with clubdb.write_tx(self.db):
            self.db.conn.execute(f"UPDATE table_state SET {sets} WHERE table_id = ?",
                                 (*cols.values(), table_id))

    def add_event(self, table_id: str, kind: str, code: str = "", message: str = "",
                  data: dict | None = None) -> None:
        with clubdb.write_tx(self.db):
            self.db.conn.execute(
                "INSERT INTO table_events (table_id, kind, code, message, data, at)"
                " VALUES (?, ?, ?, ?, ?, ?)", (table_id, kind, code, message, _dumps(data), now()))

    # ---- commands
    def in_doubt(self, table_id: str) -> list[dict]:
        """Commands a previous daemon left in ``sending`` (oldest first)."""
        return _query(self.db, "SELECT * FROM table_commands WHERE table_id = ? AND"
                      " status = 'sending' ORDER BY id", (table_id,))

    def last_seq(self, table_id: str) -> int | None:
        rows = self.db.conn.execute(
            "SELECT seq FROM table_commands WHERE table_id = ? AND seq IS NOT NULL"
            " ORDER BY started_at DESC, id DESC LIMIT 1", (table_id,)).fetchall()
        return rows[0][0] if rows else None

    def given_up(self, table_id: str, limit: int = 1) -> list[dict]:
        """The latest command(s) marked timed_out because the link stayed down."""
        return _query(self.db, "SELECT * FROM table_commands WHERE table_id = ? AND"
                      " error_code = 'link_down' ORDER BY id DESC LIMIT ?", (table_id, limit))

    def note_late_outcome(self, command_id: int, code: str, text: str) -> None:
        """Record that a command given up as timed_out was later found to have run."""
        with clubdb.write_tx(self.db):
            self.db.conn.execute(
                "UPDATE table_commands SET error_code=?, error_message=error_message || ' — ' || ?"
                " WHERE id=?", (code, text, command_id))

    def claim_next(self, table_id: str) -> dict | None:
        """Take the oldest queued command of the table (status -> sending); expire stale ones."""
        with clubdb.write_tx(self.db):
            t = now()
            self.db.conn.execute(
                "UPDATE table_commands SET status='timed_out', error_code='not_sent',"
                " error_message=?, finished_at=? WHERE table_id=? AND status='queued'"
                " AND expires_at IS NOT NULL AND expires_at < ?",
                ("not sent: the request waited longer than its deadline (was the daemon "
                 "stopped?) / 期限切れのため送信しませんでした", t, table_id, t))
            rows = _query(self.db, "SELECT * FROM table_commands WHERE table_id = ? AND"
                          " status = 'queued' ORDER BY id LIMIT 1", (table_id,))
            if not rows:
                return None
            self.db.conn.execute(
                "UPDATE table_commands SET status='sending', started_at=?, seq=NULL,"
                " attempts=attempts+1 WHERE id=?", (t, rows[0]["id"]))
        return rows[0]

    def set_seq(self, command_id: int, seq: int) -> None:
        """Record the sequence number BEFORE the frame is written (recovery needs it)."""
        with clubdb.write_tx(self.db):
            self.db.conn.execute("UPDATE table_commands SET seq=? WHERE id=?", (seq, command_id))

    def set_progress(self, command_id: int, result: Any) -> None:
        """Record the table's first answer to a long command still ``sending`` (it ran)."""
        with clubdb.write_tx(self.db):
            self.db.conn.execute("UPDATE table_commands SET result=? WHERE id=?",
                                 (_dumps(result), command_id))

    def requeue(self, command_id: int) -> None:
        """Put back a command that provably never reached the wire."""
        with clubdb.write_tx(self.db):
            self.db.conn.execute(
                "UPDATE table_commands SET status='queued', seq=NULL WHERE id=? AND"
                " status='sending'", (command_id,))

    def finish(self, command_id: int, status: str, result: Any = None,
               error_code: str | None = None, error_message: str | None = None) -> None:
        """Mark a command done / failed / timed_out with its result or reason."""
        if status not in TERMINAL:
            raise ValueError(f"finish() needs one of {TERMINAL}, got {status!r}")
        with clubdb.write_tx(self.db):
            self.db.conn.execute(
                "UPDATE table_commands SET status=?, result=?, error_code=?, error_message=?,"
                " finished_at=? WHERE id=?",
                (status, _dumps(result), error_code, error_message, now(), command_id))

    # ---- daemon heartbeat
    def heartbeat(self, pid: int, config: str = "", started: bool = False) -> None:
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
        with clubdb.write_tx(self.db):
            self.db.conn.execute(
                "UPDATE tablectl_daemon SET stopped_at=? WHERE id=1 AND pid=?", (now(), pid))
