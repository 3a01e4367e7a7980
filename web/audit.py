"""The audit log: who changed what, when and why (every correction, void, staff action)."""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from .db import Migrations, now_iso, write_tx


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
        return cur.lastrowid


def audit_entries(db: sqlite_utils.Database, *, target: str | None = None,
                  limit: int = 200) -> list[dict]:
    """The newest audit entries first (optionally for one target such as ``game:12``)."""
    where, args = ("WHERE target = ?", [target]) if target else ("", [])
    rows = db.execute_returning_dicts(
        f"SELECT * FROM audit_log {where} ORDER BY id DESC LIMIT ?", args + [int(limit)]
    )
    for row in rows:
        row["details"] = json.loads(row["details"] or "{}")
    return rows
