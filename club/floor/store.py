"""The floor's tables in the club database (one named migration set, ``floor``).

* ``waiting``: the waiting list (待ち席), one row per person, in the order they came;
* ``seatings``: players drawn to a table's seats for its next game (``ready`` until the
  tablet starts the game), with the draw that decided the seats;
* ``nights`` and ``night_players``: event nights (rounds of seatings);
* ``game_clocks``: a game's time limit (event nights) and the extra time staff gave;
* ``calls``: staff calls from the tablets (呼び出し).
"""

from __future__ import annotations

from club.db import Migrations

MIGRATIONS = Migrations("floor")


MIGRATIONS.script("_create_floor", """
        CREATE TABLE waiting (
            id INTEGER PRIMARY KEY,
            player_id INTEGER NOT NULL REFERENCES players(id),
            wants TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'waiting'
                CHECK (status IN ('waiting', 'seated', 'left')),
            added_at TEXT NOT NULL,
            added_by TEXT NOT NULL DEFAULT '',
            done_at TEXT,
            seating_id INTEGER
        );
        -- one place in the queue per person
        CREATE UNIQUE INDEX waiting_once ON waiting(player_id) WHERE status = 'waiting';
        CREATE INDEX waiting_open ON waiting(status, id);
        CREATE TABLE nights (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            rule_set TEXT NOT NULL,
            rounds INTEGER NOT NULL CHECK (rounds BETWEEN 1 AND 20),
            pairing TEXT NOT NULL CHECK (pairing IN ('swiss', 'random')),
            tables TEXT NOT NULL,
            time_limit INTEGER CHECK (time_limit IS NULL OR time_limit BETWEEN 5 AND 600),
            status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
            created_at TEXT NOT NULL,
            created_by TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE night_players (
            night_id INTEGER NOT NULL REFERENCES nights(id),
            player_id INTEGER NOT NULL REFERENCES players(id),
            PRIMARY KEY (night_id, player_id)
        );
        CREATE TABLE seatings (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL,
            rule_set TEXT NOT NULL,
            players TEXT NOT NULL,
            draw TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'ready'
                CHECK (status IN ('ready', 'started', 'cancelled')),
            night_id INTEGER REFERENCES nights(id),
            round INTEGER,
            game_id INTEGER REFERENCES games(id),
            created_at TEXT NOT NULL,
            created_by TEXT NOT NULL DEFAULT '',
            done_at TEXT
        );
        -- one game made ready per table at a time
        CREATE UNIQUE INDEX seatings_one_ready ON seatings(table_id) WHERE status = 'ready';
        CREATE INDEX seatings_night ON seatings(night_id, round);
        CREATE TABLE game_clocks (
            game_id INTEGER PRIMARY KEY REFERENCES games(id),
            limit_minutes INTEGER NOT NULL,
            extra_minutes INTEGER NOT NULL DEFAULT 0,
            ended INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE calls (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL,
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL,
            ack_at TEXT,
            ack_by TEXT,
            cancelled_at TEXT
        );
        -- one open call per table: a second press is the same call
        CREATE UNIQUE INDEX calls_one_open ON calls(table_id)
            WHERE ack_at IS NULL AND cancelled_at IS NULL;
        """)
