"""Verification repairs itself: a game whose hand events at the head office differ from
the box's (its checksum recomputed from the stored rows is not the box's) is sent again
whole, in one transaction that leaves the mark where it is: every event as it stands on
the box written over the stored one, any event the box does not have removed, and the
game's checksum. Sending it twice stores it once; the run then verifies again."""

from __future__ import annotations

import sqlite3
from typing import Any


def differing_games(pg: Any, branch: str, games: list[int], recompute: Any) -> list[int]:
    """The games among ``games`` whose stored checksum is not the one recomputed from the
    head office's rows (``recompute(pg, branch, games)``)."""
    stored = dict.fromkeys(games)
    for g, n, c in pg.execute("SELECT game_id, events, checksum FROM chain.game_checksums "
                              "WHERE branch = %s AND game_id = ANY(%s)", [branch, games]):
        stored[g] = (n, c)
    again = recompute(pg, branch, games)
    return [g for g in games if stored.get(g) != again.get(g)]


def resend_games(box: sqlite3.Connection, pg: Any, branch: str, games: list[int],
                 table: Any, box_checksums: Any) -> None:
    """Send ``games``' hand events again from the box (``table``: the sync's
    ``hand_events`` table) with their checksums, in one transaction."""
    cols = ", ".join(table.columns)
    q = ",".join("?" * len(games))
    box.execute("BEGIN")
    try:
        rows = box.execute(f"SELECT {cols} FROM hand_events WHERE game_id IN ({q})",
                           games).fetchall()
        sums = box_checksums(box, games)
    finally:
        box.execute("COMMIT")
    ids = [r[0] for r in rows]
    sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in table.columns if c != "id")
    marks = "(" + ", ".join(["%s"] * (len(table.columns) + 1)) + ")"
    with pg.transaction():
        pg.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"jantaku.sync.{branch}"])
        pg.execute("DELETE FROM chain.hand_events WHERE branch = %s AND game_id = ANY(%s) "
                   "AND NOT (id = ANY(%s))", [branch, games, ids])
        for i in range(0, len(rows), 200):
            chunk = rows[i:i + 200]
            pg.execute(f"INSERT INTO chain.hand_events (branch, {cols}) VALUES "
                       f"{', '.join([marks] * len(chunk))} ON CONFLICT (branch, id) "
                       f"DO UPDATE SET {sets}", [v for r in chunk for v in (branch, *r)])
        for g, (n, c) in sums.items():
            pg.execute("INSERT INTO chain.game_checksums (branch, game_id, events, checksum) "
                       "VALUES (%s, %s, %s, %s) ON CONFLICT (branch, game_id) DO UPDATE SET "
                       "events = EXCLUDED.events, checksum = EXCLUDED.checksum",
                       [branch, g, n, c])
