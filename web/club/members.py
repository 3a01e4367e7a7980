"""A member's own side of the club: the personal link to their page, their PIN, where
word may reach them and what they agreed to receive.

One row per member who has any of these (``member_profiles``); a member without a row
has no link, no PIN and receives nothing. The link and the PIN are stored only as
hashes: the club file (and its nightly export) never holds a secret a member could be
impersonated with.
"""

from __future__ import annotations

import sqlite_utils

from web.db import Migrations, one

MIGRATIONS = Migrations("members")

OPTINS = ("optin_seat_ready", "optin_report_card", "optin_risers")
"""What a member may agree to, each off until they say yes: word that their seat is
ready, their report card after each game, a place on the day's R risers board."""


@MIGRATIONS
def _create_member_profiles(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE member_profiles (
            player_id INTEGER PRIMARY KEY REFERENCES players(id),
            -- sha256 hex of the personal link's token; NULL once revoked
            link_hash TEXT UNIQUE,
            link_issued_at TEXT,
            -- werkzeug password hash of the PIN set at the desk
            pin_hash TEXT,
            pin_set_at TEXT,
            email TEXT,
            line_user_id TEXT,
            optin_seat_ready INTEGER NOT NULL DEFAULT 0 CHECK (optin_seat_ready IN (0, 1)),
            optin_report_card INTEGER NOT NULL DEFAULT 0 CHECK (optin_report_card IN (0, 1)),
            optin_risers INTEGER NOT NULL DEFAULT 0 CHECK (optin_risers IN (0, 1)),
            updated_at TEXT NOT NULL
        );
        """
    )


def profile(db: sqlite_utils.Database, player_id: int) -> dict | None:
    """A member's profile row, or None for a member who has none."""
    return one(db, "SELECT * FROM member_profiles WHERE player_id = ?", [int(player_id)])
