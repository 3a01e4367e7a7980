"""The box's change log for the head office: SQLite triggers append one row per change to
a record the head office mirrors, so the sync finds every change by one sequence.

A high-water mark on each table's own id would miss updates: a game goes live →
finished → void in place, a correction rewrites a finished game's summary lines, a seat
swap rewrites its seats. So every insert, update (and, for the rows that are replaced
rather than appended, delete) writes ``(seq, tbl, key, token)`` into ``chain_changes``:

* ``seq`` is the log's own ``AUTOINCREMENT`` sequence: writers of the club file are
  serialised, so a reader never sees seq N+1 committed without N, and the sync's
  high-water mark is "every change up to seq N is at the head office";
* ``tbl`` names the head office's table and ``key`` the row (or, for ``games``, the
  whole game with its seats, and for ``game_lines`` all of a game's lines), so the sync
  sends the row as it stands now; a row changed twice is sent once;
* ``token`` is random per change: a box restored from a backup re-uses sequence numbers
  with other tokens, which is how the sync tells a restored (or foreign) file from the
  one it last saw.

The set's first step seeds the log with every row already there, so a club that has
played for years sends all of it on its first sync. ``chain_box`` keeps the box's branch
id once a sync has named it.
"""

from __future__ import annotations

import sqlite_utils

from chain.bounds import clean_label
from club.db import Migrations

MIGRATIONS = Migrations("chain")

# (box table, head office table, key expression, events that log it)
_WATCHED = (
    ("stats_settings", "settings", "key", ("INSERT", "UPDATE")),
    ("players", "players", "id", ("INSERT", "UPDATE")),
    ("club_tables", "club_tables", "id", ("INSERT", "UPDATE")),
    ("games", "games", "id", ("INSERT", "UPDATE")),
    ("game_seats", "games", "game_id", ("INSERT", "UPDATE", "DELETE")),
    ("hand_events", "hand_events", "id", ("INSERT",)),
    ("stats_lines", "game_lines", "game_id", ("INSERT", "UPDATE", "DELETE")),
    ("audit_log", "audit_log", "id", ("INSERT",)),
    ("chain_links", "member_links", "id", ("INSERT",)),
)


@MIGRATIONS
def _create_change_log(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE chain_changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            tbl TEXT NOT NULL,
            key TEXT NOT NULL,
            token TEXT NOT NULL DEFAULT (lower(hex(randomblob(8))))
        );
        CREATE TABLE chain_box (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """
    )
    for table, tbl, key, kinds in _WATCHED:
        for kind in kinds:
            row = "OLD" if kind == "DELETE" else "NEW"
            db.execute(
                f"CREATE TRIGGER chain_log_{table}_{kind.lower()} AFTER {kind} ON {table} "
                f"BEGIN INSERT INTO chain_changes (tbl, key) VALUES ('{tbl}', {row}.{key}); END"
            )
    # what was there before the log existed, in the order the head office needs it
    seen: set[str] = set()
    for table, tbl, key, _ in _WATCHED:
        if tbl in seen:
            continue
        seen.add(tbl)
        db.execute(f"INSERT INTO chain_changes (tbl, key) SELECT DISTINCT '{tbl}', {key} "
                   f"FROM {table} ORDER BY {key}")


@MIGRATIONS
def _clean_rule_set_titles(db: sqlite_utils.Database) -> None:
    # a title with a NUL or an ESC, saved before titles were cleaned, would reach the
    # head office's pages and the printer as it is

    for rid, title in db.execute("SELECT id, title FROM rule_sets").fetchall():
        if isinstance(title, str) and clean_label(title) != title:
            db.execute("UPDATE rule_sets SET title = ? WHERE id = ?", [clean_label(title), rid])


@MIGRATIONS
def _held_rows(db: sqlite_utils.Database) -> None:
    # the records over the head office's bounds that a sync left out (chain.held)
    db.executescript(
        """
        CREATE TABLE chain_held (
            tbl TEXT NOT NULL,
            key TEXT NOT NULL,
            tbl_row TEXT NOT NULL,
            row_key TEXT NOT NULL,
            col TEXT NOT NULL,
            size INTEGER NOT NULL,
            most INTEGER NOT NULL,
            first_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            last_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            PRIMARY KEY (tbl, key)
        );
        """
    )
