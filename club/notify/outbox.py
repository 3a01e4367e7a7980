"""The outbox: word to send, written in the same transaction as the change that causes it.

One row per message (``outbox``), keyed by the event it tells of (``event_key``,
UNIQUE: ``seat_ready:<waiting id>:<player>``, ``call:<call id>:<staff>``,
``report_card:<game id>:<player>``), so the same event never queues twice however often
the write behind it is retried. A row holds what to say as a kind and its values
(``payload``); the words are made at send time from the catalogue in the recipient's
language. Only people who said yes get a row: members by their profile's opt-ins
(:mod:`club.members`), staff by ``staff_contacts`` while they are on duty.

The sender (:mod:`club.notify.sender`) is a process of its own, never a request:
it takes due rows, sends them and marks them ``sent``; a failure is retried with
exponential backoff and after the last try the row is ``failed``.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

import sqlite_utils

from club import text
from club.db import Db, Migrations, Row, now_iso, one, rows, write_tx
from club.errors import NotFound, UserError

MIGRATIONS = Migrations("notify")

CHANNELS = ("line", "email")
STATES = ("queued", "sent", "failed")
KINDS = ("seat_ready", "call", "report_card", "pin_code", "pin_locked", "email_confirm")
SECRET_KINDS = ("pin_code", "email_confirm")
"""Kinds whose values hold a secret: emptied once the message is sent or has failed."""
MAX_ADDRESS = 254
"""An e-mail address is at most 254 characters (RFC 5321); a LINE user id is 33."""


@MIGRATIONS
def _create_outbox(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY,
            -- the message's own id: LINE's retry key and the mail's Message-ID
            uuid TEXT NOT NULL UNIQUE,
            event_key TEXT NOT NULL UNIQUE,
            channel TEXT NOT NULL CHECK (channel IN ('line', 'email')),
            address TEXT NOT NULL,
            kind TEXT NOT NULL,
            lang TEXT NOT NULL DEFAULT 'ja',
            payload TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            next_try_at TEXT NOT NULL,
            sent_at TEXT,
            last_error TEXT
        );
        CREATE INDEX outbox_due ON outbox(state, next_try_at);
        CREATE TABLE staff_contacts (
            staff_id INTEGER PRIMARY KEY REFERENCES staff_users(id),
            email TEXT,
            line_user_id TEXT,
            lang TEXT NOT NULL DEFAULT 'ja' CHECK (lang IN ('ja', 'en')),
            on_duty INTEGER NOT NULL DEFAULT 0 CHECK (on_duty IN (0, 1)),
            updated_at TEXT NOT NULL
        );
        """
    )


def iso(moment: datetime) -> str:
    """A UTC instant as the outbox's columns hold it (the same text as ``now_iso``)."""
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def _address(row: Row) -> tuple[str, str] | None:
    """Where word reaches someone: LINE if they gave a LINE id, else e-mail, else nowhere."""
    if row.get("line_user_id"):
        return "line", str(row["line_user_id"])
    # a member's e-mail only once they confirmed it (staff set their own contacts)
    if row.get("email") and ("email_confirmed_at" not in row or row["email_confirmed_at"]):
        return "email", str(row["email"])
    return None


def queue(db: Db, event_key: str, to: Row, kind: str, payload: dict[str, Any],
          lang: str = "ja") -> bool:
    """Queue one message for ``to`` (a row with ``line_user_id`` and/or ``email``) unless
    this event already has one; call inside the write's transaction. True if queued."""
    where = _address(to)
    if where is None:
        return False
    now = now_iso()
    cur = db.execute(
        "INSERT OR IGNORE INTO outbox (uuid, event_key, channel, address, kind, lang, payload, "
        "created_at, next_try_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [str(uuid.uuid4()), event_key, where[0], where[1], kind,
         lang if lang in ("ja", "en") else "ja",
         json.dumps(payload, ensure_ascii=False, sort_keys=True), now, now])
    return bool(cur.rowcount)


def _member(db: Db, player_id: int, optin: str) -> Row | None:
    # the opt-in column is one of two fixed names, never input
    return one(db, f"SELECT * FROM member_profiles WHERE player_id = ? AND {optin} = 1",
               [int(player_id)])


# ------------------------------------------------------------ the writes that cause word
def seat_ready(db: Db, seating_id: int) -> int:
    """Queue "your seat is ready" for each waiting player seated by ``seating_id`` who
    opted in (inside the seating's transaction). The number queued."""
    seating = one(db, "SELECT table_id FROM seatings WHERE id = ?", [seating_id])
    if seating is None:
        return 0
    count = 0
    for w in rows(db, "SELECT w.id, w.player_id, p.name FROM waiting w JOIN players p "
                      "ON p.id = w.player_id WHERE w.seating_id = ? ORDER BY w.id",
                  [seating_id]):
        member = _member(db, w["player_id"], "optin_seat_ready")
        if member is not None:
            count += queue(db, f"seat_ready:{w['id']}:{w['player_id']}", member, "seat_ready",
                           {"name": w["name"], "table_id": seating["table_id"]},
                           member.get("lang") or "ja")
    return count


def staff_call(db: Db, table_id: str) -> int:
    """Queue a table's open staff call to every staff member on duty with a contact
    (inside the call's transaction). The number queued."""
    call = one(db, "SELECT * FROM calls WHERE table_id = ? AND ack_at IS NULL AND "
                   "cancelled_at IS NULL", [table_id])
    if call is None:
        return 0
    call_id = call["id"]
    count = 0
    for s in rows(db, "SELECT c.* FROM staff_contacts c JOIN staff_users u ON u.id = c.staff_id "
                      "WHERE c.on_duty = 1 AND u.active = 1"):
        count += queue(db, f"call:{call_id}:{s['staff_id']}", s, "call",
                       {"table_id": call["table_id"], "reason": call["reason"]}, s["lang"])
    return count


def game_finished(db: Db, game_id: int) -> int:
    """Queue each opted-in member's report card of a game that has just finished (inside
    the transaction that finished it). A game finished again after an undo queues
    nothing more. The number queued."""
    count = 0
    for seat in rows(db, "SELECT player_id FROM game_seats WHERE game_id = ? ORDER BY seat",
                     [game_id]):
        pid = seat["player_id"]
        member = _member(db, pid, "optin_report_card")
        if member is not None:
            count += queue(db, f"report_card:{game_id}:{pid}", member, "report_card",
                           {"game_id": int(game_id), "player_id": int(pid)},
                           member.get("lang") or "ja")
    return count


# ------------------------------------------------------------------- the sender's side
def due(db: Db, now: datetime, limit: int = 20, channel: str | None = None) -> list[Row]:
    """Queued rows whose time has come (of one ``channel`` when given), oldest first."""
    if channel is not None:
        return rows(db, "SELECT * FROM outbox WHERE state = 'queued' AND next_try_at <= ? "
                        "AND channel = ? ORDER BY next_try_at, id LIMIT ?",
                    [iso(now), channel, limit])
    return rows(db, "SELECT * FROM outbox WHERE state = 'queued' AND next_try_at <= ? "
                    "ORDER BY next_try_at, id LIMIT ?", [iso(now), limit])


def mark_sent(db: Db, row_id: int, note: str | None = None) -> None:
    """The channel accepted the message (``note``: e.g. it had accepted it before); the
    try counts."""
    with write_tx(db):
        db.execute("UPDATE outbox SET state = 'sent', sent_at = ?, last_error = ?, "
                   "attempts = attempts + 1 WHERE id = ?", [now_iso(), note, row_id])
        _forget_secret(db, row_id)


def retry_later(db: Db, row_id: int, error: str, at: datetime) -> None:
    """The try failed (it counts): try again at ``at``."""
    with write_tx(db):
        db.execute("UPDATE outbox SET next_try_at = ?, last_error = ?, "
                   "attempts = attempts + 1 WHERE id = ?", [iso(at), error, row_id])


def mark_failed(db: Db, row_id: int, error: str, counted: bool = True) -> None:
    """No more tries: the row is ``failed`` with the reason in words (``counted``: a try
    was made now)."""
    with write_tx(db):
        db.execute("UPDATE outbox SET state = 'failed', last_error = ?, "
                   "attempts = attempts + ? WHERE id = ?", [error, int(counted), row_id])
        _forget_secret(db, row_id)


def _forget_secret(db: Db, row_id: int) -> None:
    marks = ", ".join("?" for _ in SECRET_KINDS)
    db.execute(f"UPDATE outbox SET payload = '{{}}' WHERE id = ? AND kind IN ({marks})",
               [row_id, *SECRET_KINDS])


def backoff(attempts: int, first: float, cap: float) -> timedelta:
    """The wait after the ``attempts``-th failed try: doubling from ``first`` up to ``cap``."""
    return timedelta(seconds=min(cap, first * 2 ** max(0, attempts - 1)))


def recent(db: Db, limit: int = 50) -> list[Row]:
    """The newest outbox rows (for the console)."""
    return rows(db, "SELECT * FROM outbox ORDER BY id DESC LIMIT ?", [limit])


def counts(db: Db) -> dict[str, int]:
    """How many rows are queued, sent and failed."""
    out = dict.fromkeys(STATES, 0)
    for r in rows(db, "SELECT state, COUNT(*) AS n FROM outbox GROUP BY state"):
        out[r["state"]] = r["n"]
    return out


def retry_failed(db: Db, row_id: int) -> Row:
    """Staff send a failed row again (from the first backoff step)."""
    row = one(db, "SELECT * FROM outbox WHERE id = ?", [row_id])
    if row is None:
        raise NotFound("notify.no_message", message=row_id)
    if row["state"] != "failed":
        raise UserError("notify.not_failed", code="not_failed", message=row_id)
    with write_tx(db):
        db.execute("UPDATE outbox SET state = 'queued', attempts = 0, next_try_at = ? "
                   "WHERE id = ?", [now_iso(), row_id])
    return one(db, "SELECT * FROM outbox WHERE id = ?", [row_id]) or row


# -------------------------------------------------------------------- staff contacts
def contacts(db: Db) -> list[Row]:
    """Every active staff account with its contact (empty when none is set)."""
    return rows(db, "SELECT u.id AS staff_id, u.name, c.email, c.line_user_id, "
                    "COALESCE(c.lang, 'ja') AS lang, COALESCE(c.on_duty, 0) AS on_duty "
                    "FROM staff_users u LEFT JOIN staff_contacts c ON c.staff_id = u.id "
                    "WHERE u.active = 1 ORDER BY u.name")


def save_contact(db: Db, staff_id: int, *, email: str | None, line_user_id: str | None,
                 lang: str, on_duty: bool) -> Row:
    """Set where a staff member's calls reach them and whether they are on duty."""
    if one(db, "SELECT id FROM staff_users WHERE id = ? AND active = 1", [staff_id]) is None:
        raise NotFound("notify.no_staff", staff=staff_id)
    email = (email or "").strip() or None
    line_user_id = (line_user_id or "").strip() or None
    if email is not None:
        try:
            email = text.email_address(email)
        except UserError:
            shown = "".join(c if c.isprintable() else "?" for c in email[:60])
            raise UserError("notify.bad_email", code="invalid_field",
                            details={"field": "email"}, value=shown) from None
    if line_user_id is not None and not (line_user_id.startswith("U") and len(line_user_id) == 33
                                         and all(c in "0123456789abcdef"
                                                 for c in line_user_id[1:])):
        raise UserError("notify.bad_line_id", code="invalid_field",
                        details={"field": "line_user_id"}, value=line_user_id[:40])
    if lang not in ("ja", "en"):
        raise UserError("field.not_choice", code="invalid_field", details={"field": "lang"},
                        field="lang", options="ja, en")
    with write_tx(db):
        db.execute("INSERT INTO staff_contacts (staff_id, email, line_user_id, lang, on_duty, "
                   "updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(staff_id) DO UPDATE SET "
                   "email = excluded.email, line_user_id = excluded.line_user_id, "
                   "lang = excluded.lang, on_duty = excluded.on_duty, "
                   "updated_at = excluded.updated_at",
                   [staff_id, email, line_user_id, lang, int(bool(on_duty)), now_iso()])
    return one(db, "SELECT * FROM staff_contacts WHERE staff_id = ?", [staff_id]) or {}
