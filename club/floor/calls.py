"""Staff calls from the tablets (呼び出し): a table asks for staff with a reason; the
console shows it with how long it has waited until someone acknowledges it. A second
press while a call is open is the same call (with the newer reason)."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from club import clubtime
from club.club_tables import table_name
from club.db import Db, now_iso, one, rows, write_tx
from club.errors import Conflict, NotFound, UserError
from club.notify import outbox

REASONS = ("score", "drink", "other")
"""点数確認 (a score question), 飲み物 (drinks), その他 (anything else)."""


def call(db: Db, table_id: str, reason: str) -> dict:
    """Call staff to a table (the open call again if there is one)."""
    if reason not in REASONS:
        raise UserError("field.not_choice", code="invalid_field", details={"field": "reason"},
                        field="reason", options=", ".join(REASONS))
    with write_tx(db):
        open_ = open_call(db, table_id)
        if open_ is not None:
            db.execute("UPDATE calls SET reason = ? WHERE id = ?", [reason, open_["id"]])
            # the open call was updated, not removed
            return {**open_call(db, table_id), "again": True}  # type: ignore[dict-item]
        try:
            db.execute("INSERT INTO calls (table_id, reason, created_at) VALUES (?, ?, ?)",
                       [table_id, reason, now_iso()])
            outbox.staff_call(db, table_id)
        except sqlite3.IntegrityError:
            pass        # a second tablet of the table was a moment faster: its call is ours
    # just inserted, or a tablet of the same table was a moment faster
    return open_call(db, table_id)  # type: ignore[return-value]


def open_call(db: Db, table_id: str) -> dict | None:
    return one(db, "SELECT * FROM calls WHERE table_id = ? AND ack_at IS NULL AND "
                   "cancelled_at IS NULL", [table_id])


def last_call(db: Db, table_id: str) -> dict | None:
    """The table's open call, else its last acknowledged one (the tablet says staff come)."""
    return one(db, "SELECT * FROM calls WHERE table_id = ? AND cancelled_at IS NULL "
                   "ORDER BY id DESC LIMIT 1", [table_id])


def get(db: Db, call_id: int) -> dict:
    row = one(db, "SELECT * FROM calls WHERE id = ?", [call_id])
    if row is None:
        raise NotFound("floor.call.none", call=call_id)
    return row


def acknowledge(db: Db, call_id: int, *, actor: str) -> dict:
    """Someone is on their way: the call leaves the list."""
    row = get(db, call_id)
    if row["ack_at"] or row["cancelled_at"]:
        raise Conflict("floor.call.done", code="call_done",
                       table=table_name(db, row["table_id"]))
    with write_tx(db):
        db.execute("UPDATE calls SET ack_at = ?, ack_by = ? WHERE id = ?",
                   [now_iso(), actor, call_id])
    return get(db, call_id)


def cancel(db: Db, table_id: str) -> dict | None:
    """The table takes its open call back (pressed by mistake)."""
    with write_tx(db):
        row = open_call(db, table_id)
        if row is not None:
            db.execute("UPDATE calls SET cancelled_at = ? WHERE id = ?", [now_iso(), row["id"]])
    return row


def open_calls(db: Db, now: datetime | None = None) -> list[dict]:
    """Every open call, oldest first, with the seconds it has waited."""
    now = now or clubtime.now()
    out = []
    for r in rows(db, "SELECT c.*, t.name AS table_name FROM calls c LEFT JOIN club_tables t "
                      "ON t.id = c.table_id WHERE c.ack_at IS NULL AND c.cancelled_at IS NULL "
                      "ORDER BY c.id"):
        made = clubtime.instant(r["created_at"])
        assert made is not None  # a stored call has its time
        r["waited"] = int((now - made).total_seconds())
        out.append(r)
    return out
