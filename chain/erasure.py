"""An erasure reaches the head office: a member's erase on the box (``member_data.erase``)
rewrites rows the change log sees only as appended (the start entries of the member's
games in ``hand_events``, the audit entries that named them), so the sync carries the
rewrite itself.

The erase's own audit entry (``member.erase``, target ``player:N``) is a change like any
other. When a batch holds one, :func:`extend` adds to it, as they now stand on the box,
the start entries of every game the member sat in and every audit entry before the
erase, to be written over the head office's copies (``ON CONFLICT DO UPDATE``) in the
same transaction as the rest of the batch, with those games' checksums. The player row
itself (neutral name, no member number) travels by its own change; member links hold no
name. Sending the rewrite again is harmless: the rows are the box's as they stand.
"""

from __future__ import annotations

import sqlite3
from typing import Any

ERASE_ACTION = "member.erase"


def erased_players(audit_rows: list[tuple]) -> list[tuple[int, int]]:
    """``(audit id, player id)`` of every erase among a batch's audit rows (columns as
    ``sync.TABLES['audit_log']``)."""
    out = []
    for r in audit_rows:
        if r[3] == ERASE_ACTION and isinstance(r[4], str) and r[4].startswith("player:"):
            tail = r[4].split(":", 1)[1]
            if tail.isdigit():
                out.append((int(r[0]), int(tail)))
    return out


def extend(conn: sqlite3.Connection, batch: Any, tables: dict[str, Any],
           checksums: Any) -> None:
    """Add the rows an erase rewrote to ``batch.rewrites`` (and their games' checksums);
    nothing when the batch holds no erase."""
    erased = erased_players(batch.rows.get("audit_log", []))
    if not erased:
        return
    ev = tables["hand_events"]
    au = tables["audit_log"]
    events: dict[int, tuple] = {}
    audits: dict[int, tuple] = {}
    games: set[int] = set()
    for audit_id, pid in erased:
        ids = [r[0] for r in conn.execute(
            "SELECT e.id FROM hand_events e JOIN game_seats s ON s.game_id = e.game_id "
            "WHERE s.player_id = ? AND e.kind = 'start'", [pid])]
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for r in conn.execute(ev.select.format(keys=",".join("?" * len(chunk))), chunk):
                events[r[0]] = tuple(r)
                games.add(r[1])
        cols = ", ".join(au.columns)
        for r in conn.execute(f"SELECT {cols} FROM audit_log WHERE id < ?", [audit_id]):
            audits[r[0]] = tuple(r)
    if events:
        batch.rewrites.setdefault("hand_events", []).extend(events.values())
    if audits:
        batch.rewrites.setdefault("audit_log", []).extend(audits.values())
    batch.checksums.update(checksums(conn, sorted(games)))
