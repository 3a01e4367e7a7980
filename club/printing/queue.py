"""The print queue (``print_jobs``) and the printer's state (``printer_status``).

A request only enqueues: one INSERT in a transaction of its own, so a print button
answers at once whether the printer is there or not. The worker
(:mod:`club.printing.worker`) takes the oldest queued job, marks it ``printing``,
prints it and marks it ``done``. A printer error leaves the job ``queued`` with its
attempts, the error (a catalogue key and its values, worded when read) and the time of
its next try; only a job that cannot be printed at all (its game is gone, say) becomes
``failed``, and staff may queue it again.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import sqlite_utils

from club.db import Db, Migrations, inserted_id, now_iso, one, rows, write_tx

MIGRATIONS = Migrations("printing")

KINDS = ("settlement", "report_card", "daily_report")
STATES = ("queued", "printing", "done", "failed")
WORKER_FRESH_S = 45
"""A worker that has not been heard from for this long is taken as stopped."""


@MIGRATIONS
def _create_print_jobs(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE print_jobs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('settlement', 'report_card', 'daily_report')),
            -- what to print: {"game_id": 12} / {"player_id": 3, "day": ..., "game_id": ...}
            -- / {"day": "2026-11-27"}
            args TEXT NOT NULL,
            lang TEXT NOT NULL DEFAULT 'ja',
            state TEXT NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'printing', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            -- the last error: {"key": catalogue key, "values": {...}}
            last_error TEXT,
            next_try_at TEXT,
            requested_by TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            done_at TEXT
        );
        CREATE INDEX print_jobs_state ON print_jobs(state, id);
        CREATE TABLE printer_status (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            kind TEXT NOT NULL DEFAULT 'none',
            printer TEXT NOT NULL DEFAULT '',
            worker_seen_at TEXT,
            last_ok_at TEXT,
            last_error TEXT,
            last_error_at TEXT
        );
        """
    )


def _error_json(key: str, values: dict) -> str:
    return json.dumps({"key": key, "values": values}, ensure_ascii=False, sort_keys=True)


def read_error(text: str | None) -> tuple[str, dict] | None:
    """A stored error as its catalogue key and values (None: no error)."""
    if not text:
        return None
    data = json.loads(text)
    return data["key"], data.get("values") or {}


def enqueue(db: Db, kind: str, args: dict, *, lang: str = "ja", by: str = "") -> int:
    """Queue a print job and return its id: one row, in a transaction of its own."""
    if kind not in KINDS:
        raise ValueError(kind)
    at = now_iso()
    with write_tx(db):
        cur = db.execute(
            "INSERT INTO print_jobs (kind, args, lang, requested_by, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [kind, json.dumps(args, sort_keys=True), lang, by, at, at])
        return inserted_id(cur)


def job(db: Db, job_id: int) -> dict | None:
    """One job, its args read (None: no such job)."""
    row = one(db, "SELECT * FROM print_jobs WHERE id = ?", [int(job_id)])
    return _job(row) if row else None


def _job(row: dict) -> dict:
    return {**row, "args": json.loads(row["args"]), "error": read_error(row["last_error"])}


def recover(db: Db) -> int:
    """Put back in the queue the jobs a stopped worker left ``printing`` (run at the
    worker's start: one worker prints for a club); how many."""
    with write_tx(db):
        return db.execute("UPDATE print_jobs SET state = 'queued', updated_at = ? "
                          "WHERE state = 'printing'", [now_iso()]).rowcount


def next_job(db: Db) -> dict | None:
    """The oldest queued job, whether due or not (jobs print in order: a job waiting out
    its backoff holds the ones behind it)."""
    row = one(db, "SELECT * FROM print_jobs WHERE state = 'queued' ORDER BY id LIMIT 1")
    return _job(row) if row else None


def claim(db: Db, job_id: int) -> bool:
    """Mark a queued job ``printing`` (False: it is no longer queued)."""
    with write_tx(db):
        return db.execute(
            "UPDATE print_jobs SET state = 'printing', attempts = attempts + 1, "
            "updated_at = ? WHERE id = ? AND state = 'queued'",
            [now_iso(), int(job_id)]).rowcount == 1


def mark_done(db: Db, job_id: int) -> None:
    """The printer took the job whole."""
    at = now_iso()
    with write_tx(db):
        db.execute("UPDATE print_jobs SET state = 'done', done_at = ?, updated_at = ?, "
                   "next_try_at = NULL WHERE id = ?", [at, at, int(job_id)])
        db.execute("INSERT OR IGNORE INTO printer_status (id) VALUES (1)")
        db.execute("UPDATE printer_status SET last_ok_at = ?, last_error = NULL, "
                   "last_error_at = NULL WHERE id = 1", [at])


def mark_retry(db: Db, job_id: int, key: str, values: dict, delay_s: float) -> None:
    """The printer failed: the job goes back in the queue, tried again after ``delay_s``."""
    at = datetime.now(timezone.utc)
    error = _error_json(key, values)
    with write_tx(db):
        db.execute("UPDATE print_jobs SET state = 'queued', last_error = ?, next_try_at = ?, "
                   "updated_at = ? WHERE id = ?",
                   [error, (at + timedelta(seconds=delay_s)).isoformat(), at.isoformat(),
                    int(job_id)])
        db.execute("INSERT OR IGNORE INTO printer_status (id) VALUES (1)")
        db.execute("UPDATE printer_status SET last_error = ?, last_error_at = ? WHERE id = 1",
                   [error, at.isoformat()])


def mark_failed(db: Db, job_id: int, key: str, values: dict) -> None:
    """The job cannot be printed at all (what it names is gone): it leaves the queue."""
    with write_tx(db):
        db.execute("UPDATE print_jobs SET state = 'failed', last_error = ?, next_try_at = NULL, "
                   "updated_at = ? WHERE id = ?",
                   [_error_json(key, values), now_iso(), int(job_id)])


def requeue(db: Db, job_id: int) -> bool:
    """Queue a failed job again (False: it is not a failed job)."""
    with write_tx(db):
        return db.execute("UPDATE print_jobs SET state = 'queued', next_try_at = NULL, "
                          "updated_at = ? WHERE id = ? AND state = 'failed'",
                          [now_iso(), int(job_id)]).rowcount == 1


def beat(db: Db, kind: str, printer: str) -> None:
    """The worker is alive, printing to ``printer`` of ``kind``."""
    with write_tx(db):
        db.execute("INSERT INTO printer_status (id, kind, printer, worker_seen_at) "
                   "VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, "
                   "printer = excluded.printer, worker_seen_at = excluded.worker_seen_at",
                   [kind, printer, now_iso()])


def status(db: Db, *, recent: int = 20) -> dict:
    """The printer as the console shows it: the worker (running, kind, printer), the last
    success, the last error, the queued count, the failed jobs and the recent ones."""
    st = one(db, "SELECT * FROM printer_status WHERE id = 1") or {}
    seen = st.get("worker_seen_at")
    running = seen is not None and (
        datetime.now(timezone.utc) - datetime.fromisoformat(seen)
    ).total_seconds() < WORKER_FRESH_S
    counts = dict(db.execute("SELECT state, COUNT(*) FROM print_jobs GROUP BY state").fetchall())
    return {
        "worker_running": running, "worker_seen_at": seen,
        "kind": st.get("kind") or "none", "printer": st.get("printer") or "",
        "last_ok_at": st.get("last_ok_at"),
        "last_error": read_error(st.get("last_error")), "last_error_at": st.get("last_error_at"),
        "queued": counts.get("queued", 0) + counts.get("printing", 0),
        "failed": counts.get("failed", 0),
        "jobs": [_job(r) for r in rows(
            db, "SELECT * FROM print_jobs ORDER BY (state IN ('queued', 'printing', 'failed')) "
                "DESC, id DESC LIMIT ?", [int(recent)])],
    }
