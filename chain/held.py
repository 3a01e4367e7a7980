"""Rows held back on the box: a record over the head office's bounds is not sent, and the
rest of the sync goes on without it.

* **What is held**: the row itself (a player, a table, an audit row, a setting, a member
  link), or, for a row of a game (the game, its seats, a hand event, a summary line), the
  whole game, so the head office never holds half of a game: it keeps the game as it was
  before, or does not have it yet.
* **Kept on the box**, in ``chain_held`` (one row per held record: which column, its size
  and the limit), written *before* the batch that leaves the record out is committed at
  the head office: a crash in between sends the record again (or holds it again), it
  never loses it.
* **Reported** by every run, in words, on the console and so in the sync's journal, until
  the record is fixed on the box.
* **Retried** by every run: a fixed record is sent by its own change (a correction is a
  change like any other) or, at the end of the run, from ``chain_held`` in one
  transaction that leaves the mark where it is; then it is no longer held. Every write is
  the sync's own (``ON CONFLICT``), so sending a record twice stores it once.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import lexicon
from chain import bounds
from chain.bounds import GAME_ROWS


@dataclass(frozen=True)
class Held:
    """One record not sent: its table and key (``games`` and the game's id for a row of a
    game), and the row, column and sizes that hold it back."""

    tbl: str
    key: str
    table: str
    row: str
    column: str
    size: int
    most: int

    @property
    def message(self) -> str:
        """What a person reads, in both languages."""
        values = dict(table=self.table, row=self.row, column=self.column,
                      size=f"{self.size:,}", most=f"{self.most:,}")
        if self.tbl == "games":
            return lexicon.both("sync.held.game", game=self.key, **values)
        return lexicon.both("sync.held.row", **values)


def hold_back(batch: Any, columns: dict[str, tuple[str, ...]]) -> list[Held]:
    """Clean the batch's labels and take out of it every record over a limit (a game's
    row takes its whole game out: rows, seats, lines, checksum). Returns what was taken."""
    found: dict[tuple[str, str], Held] = {}
    for table, row, game, column, size, most in bounds.over_limits(batch.rows, columns):
        tbl, key = ("games", str(game)) if game is not None else (table, str(row))
        found.setdefault((tbl, key), Held(tbl, key, table, str(row), column, size, most))
    if not found:
        return []
    games = {int(k) for t, k in found if t == "games"}
    for name, rows in batch.rows.items():
        if name in GAME_ROWS:
            i = GAME_ROWS[name]
            batch.rows[name] = [r for r in rows if r[i] not in games]
        else:
            batch.rows[name] = [r for r in rows if (name, str(r[0])) not in found]
    for name, ids in batch.whole_games.items():
        batch.whole_games[name] = [g for g in ids if g not in games]
    for g in games:
        batch.checksums.pop(g, None)
    return list(found.values())


def keep(box: sqlite3.Connection, held: list[Held]) -> None:
    """Record ``held`` on the box (before the batch without them is committed)."""
    if not held:
        return
    box.execute("BEGIN")
    try:
        box.executemany(
            "INSERT INTO chain_held (tbl, key, tbl_row, row_key, col, size, most) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tbl, key) DO UPDATE SET "
            "tbl_row = excluded.tbl_row, row_key = excluded.row_key, col = excluded.col, "
            "size = excluded.size, most = excluded.most, last_at = excluded.last_at",
            [(h.tbl, h.key, h.table, h.row, h.column, h.size, h.most) for h in held])
    finally:
        box.execute("COMMIT")


def sent(box: sqlite3.Connection, batch: Any) -> None:
    """Forget the held records the committed ``batch`` carried (they are there now)."""
    done = [("games", str(g)) for g in batch.whole_games.get("game_seats", [])]
    done += [(name, str(r[0])) for name, rows in batch.rows.items()
             if name not in GAME_ROWS for r in rows]
    forget(box, done)


def forget(box: sqlite3.Connection, keys: list[tuple[str, str]]) -> None:
    """Remove ``(tbl, key)`` from the held records (those not held: nothing)."""
    if not keys or not box.execute("SELECT 1 FROM chain_held LIMIT 1").fetchone():
        return
    box.execute("BEGIN")
    try:
        box.executemany("DELETE FROM chain_held WHERE tbl = ? AND key = ?", keys)
    finally:
        box.execute("COMMIT")


def pending(box: sqlite3.Connection, int_keys: set[str]) -> dict[str, dict[Any, None]]:
    """The held records as the sync's keys per table (a game by its ``games`` key)."""
    keys: dict[str, dict[Any, None]] = {}
    for tbl, key in box.execute("SELECT tbl, key FROM chain_held ORDER BY tbl, key"):
        keys.setdefault(tbl, {})[int(key) if tbl in int_keys else key] = None
    return keys


def still_held(box: sqlite3.Connection) -> list[Held]:
    """Every record the box holds back now."""
    return [Held(*r) for r in box.execute(
        "SELECT tbl, key, tbl_row, row_key, col, size, most FROM chain_held "
        "ORDER BY tbl, key")]
