"""The audit log: who changed what, when and why (every correction, void, staff action)."""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from club.db import Migrations, now_iso, write_tx

MIGRATIONS = Migrations("audit")


@MIGRATIONS(legacy=("migrations", "number", 101))
def _create_audit_log(db: sqlite_utils.Database) -> None:
    db.execute(
        """CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            details TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    db.execute("CREATE INDEX audit_log_target ON audit_log(target)")


def audit(
    db: sqlite_utils.Database,
    actor: str,
    action: str,
    target: str,
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> int:
    """Append one audit entry and return its id.

    Call it inside the same transaction as the change it records, so the change
    and its audit line are committed together or not at all.
    """
    with write_tx(db):
        cur = db.execute(
            "INSERT INTO audit_log (at, actor, action, target, reason, details) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [now_iso(), actor, action, target, reason or "",
             json.dumps(details or {}, ensure_ascii=False, sort_keys=True)],
        )
        entry_id = cur.lastrowid
        assert entry_id is not None  # an INSERT sets it
        return entry_id


def audit_entries(db: sqlite_utils.Database, *, target: str | None = None,
                  game: int | None = None, table: str | None = None,
                  actor: str | None = None, between: tuple[str, str] | None = None,
                  limit: int = 200) -> list[dict]:
    """The newest audit entries first, filtered by target (``game:12``), game, table (its
    own entries and its games'), who acted (``staff:mika``) and time (``between`` two ISO
    UTC instants, the first included)."""
    where, args = [], []
    if target:
        where.append("target = ?")
        args.append(target)
    if game is not None:
        where.append("target = ?")
        args.append(f"game:{int(game)}")
    if table:
        where.append("(target = ? OR target IN (SELECT 'game:' || id FROM games "
                     "WHERE table_id = ?))")
        args += [f"table:{table}", table]
    if actor:
        where.append("actor = ?")
        args.append(actor)
    if between:
        where.append("at >= ? AND at < ?")
        args += list(between)
    sql = "SELECT * FROM audit_log" + (" WHERE " + " AND ".join(where) if where else "")
    rows = db.execute_returning_dicts(f"{sql} ORDER BY id DESC LIMIT ?", args + [int(limit)])
    for row in rows:
        row["details"] = json.loads(row["details"] or "{}")
    return rows
