"""Every member's R rating and dan (段位) per rule family, kept in step with the games.

* ``rating_lines``: one row per member and rated game: R before and after, the
  games played, the dan level and points after it (guests get no row);
* ``ratings``: each member's standing now, per family (the last line's).

A game is rated when its summary lines (``stats_lines``, see
:mod:`club.stats_store`) are written, in the same transaction: the newest
finished game of a family is one step of :class:`scoring.rating.Ladder`
from the players' current standings. A game that finished out of order, a
staff correction or a void changes every later game of the family, so the
family is re-rated from that game on: its lines from there are deleted, the
affected members' standings are taken from their last line before it, and
the games are applied again in order. :func:`rebuild` re-rates a family from
its first game (a new dan table, a club-day change, a repair); both run the
same arithmetic in the same order, so they agree to the last bit.

Games are ordered by the time they finished, then by id.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

import sqlite_utils

from club import engine, standings
from club.db import Db, Migrations, write_tx
from club.db import rows as _rows

INITIAL_R = engine.INITIAL_R
LINE_COLUMNS = (
    "family", "game_id", "seat", "player_id", "ended_at", "club_day", "games",
    "r_before", "r_after", "change", "peak", "dan_level", "dan_points", "dan_change", "dan_moved",
)
STANDING_COLUMNS = ("family", "player_id", "rating", "games", "peak", "dan_level", "dan_points",
                    "ended_at", "game_id")

MIGRATIONS = Migrations("ratings")


@MIGRATIONS
def _create_ratings(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE rating_lines (
            family TEXT NOT NULL,
            game_id INTEGER NOT NULL REFERENCES games(id),
            seat INTEGER NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            ended_at TEXT NOT NULL,
            club_day TEXT NOT NULL,
            games INTEGER NOT NULL,          -- games played in the family, this one included
            r_before REAL NOT NULL, r_after REAL NOT NULL, change REAL NOT NULL,
            peak REAL NOT NULL,
            dan_level INTEGER, dan_points INTEGER,
            dan_change INTEGER NOT NULL, dan_moved INTEGER NOT NULL,
            PRIMARY KEY (game_id, seat)
        );
        CREATE TABLE ratings (
            family TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            rating REAL NOT NULL, games INTEGER NOT NULL, peak REAL NOT NULL,
            dan_level INTEGER, dan_points INTEGER,
            ended_at TEXT NOT NULL, game_id INTEGER NOT NULL,
            PRIMARY KEY (family, player_id)
        ) WITHOUT ROWID;
        -- the summary lines in the order games are rated, with all a rating reads of them
        CREATE INDEX IF NOT EXISTS stats_lines_rating
            ON stats_lines(family, ended_at, game_id, seat, club_day, player_id, rank);
        """
    )
    _create_indexes(db)
    rebuild(db)


INDEXES = {
    # a family's games in order (re-rating from a game on)
    "rating_lines_order": "rating_lines(family, ended_at, game_id)",
    # a member's history (player page, R at the end of a period)
    "rating_lines_player": "rating_lines(player_id, family, club_day, ended_at, game_id)",
}


def _create_indexes(db: Db) -> None:
    for name, on in INDEXES.items():
        db.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {on}")


# --------------------------------------------------------------------------- inputs
_INPUT_SQL = (
    "SELECT game_id, ended_at, club_day, player_id, rank FROM stats_lines "
    "WHERE family = ? AND (ended_at > ? OR (ended_at = ? AND game_id >= ?)) "
    "ORDER BY ended_at, game_id, seat"
)
# each game's length, read once per game (a game's rules are a few KB of JSON)
_LENGTH_SQL = (
    "SELECT id, json_extract(rules, '$.game.length') FROM games WHERE id IN ("
    "SELECT game_id FROM stats_lines WHERE family = ? AND "
    "(ended_at > ? OR (ended_at = ? AND game_id >= ?)))"
)


def _games_from(db: Db, family: str,
                key: tuple[str, int]) -> Iterator[tuple[engine.RatedGame, str]]:
    """The family's rated games from ``key`` (ended_at, game_id) on, in order, each with
    its club day."""
    args = [family, key[0], key[0], key[1]]
    lengths = dict(db.conn.execute(_LENGTH_SQL, args).fetchall())
    guests = {r[0] for r in db.conn.execute("SELECT id FROM players WHERE guest = 1")}
    game, seats, day = None, [], ""
    for gid, ended, club_day, pid, rank in db.conn.execute(_INPUT_SQL, args):
        if game is not None and gid != game[0]:
            yield engine.RatedGame(game[0], game[1], game[2], tuple(seats)), day
            seats = []
        game, day = (gid, ended, lengths.get(gid) or "hanchan"), club_day
        seats.append(engine.RatedSeat(None if pid in guests else str(pid), rank))
    if game is not None:
        yield engine.RatedGame(game[0], game[1], game[2], tuple(seats)), day


def _standing(row: Sequence[Any]) -> engine.Standing:
    r, games, peak, level, points = row
    return engine.Standing(r, games, level, points or 0, peak)


def _line_row(family: str, day: str, line: engine.RatingLine, ended_at: str) -> tuple:
    a = line.after
    return (family, line.game_id, line.seat, int(line.player), ended_at, day, a.games,
            line.before.rating, a.rating, line.change, a.peak, a.level, a.points,
            line.dan_change, line.dan_moved)


def _write(db: Db, family: str, rated: Iterable[tuple[engine.RatedGame, str]],
           ladder: engine.Ladder) -> set[str]:
    """Apply games in order and store their lines; returns the members they touched."""
    rows, touched = [], set()
    for game, day in rated:
        for line in ladder.apply(game):
            rows.append(_line_row(family, day, line, game.ended_at))
            touched.add(line.player)
    db.conn.executemany(
        f"INSERT INTO rating_lines ({', '.join(LINE_COLUMNS)}) "
        f"VALUES ({', '.join('?' for _ in LINE_COLUMNS)})",
        rows,
    )
    return touched


def _save_standings(db: Db, family: str, players: Iterable[str]) -> None:
    """Set ``ratings`` of these members to their last line (or drop it: no lines left)."""
    ids = [int(p) for p in players]
    db.conn.executemany("DELETE FROM ratings WHERE family = ? AND player_id = ?",
                        [(family, i) for i in ids])
    db.conn.executemany(
        f"INSERT INTO ratings ({', '.join(STANDING_COLUMNS)}) "
        "SELECT family, player_id, r_after, games, peak, dan_level, dan_points, ended_at, game_id "
        "FROM rating_lines WHERE family = ? AND player_id = ? "
        "ORDER BY club_day DESC, ended_at DESC, game_id DESC LIMIT 1",
        [(family, i) for i in ids],
    )


# --------------------------------------------------------------------------- keeping in step
def rebuild(db: Db) -> dict:
    """Re-rate every game of every family from its first; returns ``{family: rated games}``.

    The tables are emptied at once and their indexes built again after the lines are
    in (sorting once is cheaper than keeping them in order row by row)."""
    out = {}
    with write_tx(db):
        db.execute("DELETE FROM rating_lines")
        db.execute("DELETE FROM ratings")
        for name in INDEXES:
            db.execute(f"DROP INDEX IF EXISTS {name}")
        dan = standings.dan_tables(db)
        touched = {}
        for fam in engine.FAMILIES:
            games = list(_games_from(db, fam, ("", 0)))
            touched[fam] = _write(db, fam, games, engine.Ladder(dan.get(fam)))
            out[fam] = len(games)
        _create_indexes(db)
        for fam, players in touched.items():
            _save_standings(db, fam, players)
    return out


def _later_exists(db: Db, family: str, key: tuple[str, int]) -> bool:
    return db.conn.execute(
        "SELECT 1 FROM rating_lines WHERE family = ? AND (ended_at > ? OR "
        "(ended_at = ? AND game_id > ?)) LIMIT 1",
        [family, key[0], key[0], key[1]],
    ).fetchone() is not None


def refresh(db: Db, game_id: int) -> None:
    """Bring the ratings in step with one game whose summary lines were just rewritten
    (finished, corrected, voided or re-dated). Call inside the caller's transaction."""
    with write_tx(db):
        old = db.conn.execute(
            "SELECT family, MIN(ended_at) FROM rating_lines WHERE game_id = ? GROUP BY family",
            [game_id],
        ).fetchall()
        new = db.conn.execute(
            "SELECT family, MIN(ended_at) FROM stats_lines WHERE game_id = ? GROUP BY family",
            [game_id],
        ).fetchall()
        starts: dict[str, tuple[str, int]] = {}
        for fam, ended in old + new:
            key = (ended, game_id)
            starts[fam] = min(starts.get(fam, key), key)
        for fam in sorted(starts):
            if not old and not _later_exists(db, fam, starts[fam]):
                _append(db, fam, starts[fam])
            else:
                rerate_from(db, fam, starts[fam])


def _append(db: Db, family: str, key: tuple[str, int]) -> None:
    """Rate the family's newest game from its players' current standings."""
    games = list(_games_from(db, family, key))
    ladder = engine.Ladder(standings.dan_tables(db).get(family))
    players = {s.player for g, _ in games for s in g.seats if s.player is not None}
    ladder.standings.update(_current(db, family, players))
    touched = _write(db, family, games, ladder)
    _save_standings(db, family, touched)


def _current(db: Db, family: str, players: Iterable[str]) -> dict[str, engine.Standing]:
    out = {}
    for p in players:
        row = db.conn.execute(
            "SELECT rating, games, peak, dan_level, dan_points FROM ratings "
            "WHERE family = ? AND player_id = ?", [family, int(p)]
        ).fetchone()
        if row:
            out[p] = _standing(row)
    return out


def rerate_from(db: Db, family: str, key: tuple[str, int]) -> int:
    """Re-rate a family's games from ``key`` (ended_at, game_id) on; returns how many."""
    with write_tx(db):
        gone = {
            str(r[0]) for r in db.conn.execute(
                "SELECT DISTINCT player_id FROM rating_lines WHERE family = ? AND "
                "(ended_at > ? OR (ended_at = ? AND game_id >= ?))",
                [family, key[0], key[0], key[1]],
            )
        }
        db.conn.execute(
            "DELETE FROM rating_lines WHERE family = ? AND (ended_at > ? OR "
            "(ended_at = ? AND game_id >= ?))", [family, key[0], key[0], key[1]],
        )
        games = list(_games_from(db, family, key))
        players = gone | {s.player for g, _ in games for s in g.seats if s.player is not None}
        ladder = engine.Ladder(standings.dan_tables(db).get(family))
        for p in players:
            row = db.conn.execute(
                "SELECT r_after, games, peak, dan_level, dan_points FROM rating_lines "
                "WHERE family = ? AND player_id = ? "
                "ORDER BY club_day DESC, ended_at DESC, game_id DESC LIMIT 1",
                [family, int(p)],
            ).fetchone()
            if row:
                ladder.standings[p] = _standing(row)
        _write(db, family, games, ladder)
        _save_standings(db, family, players)
    return len(games)


# --------------------------------------------------------------------------- reading
def current(db: Db, family: str, player_ids: Iterable[int]) -> dict[int, dict]:
    """Members' standings now: ``{player_id: {"rating", "games", "peak", "dan_level",
    "dan_points"}}`` (a member with no rated game in the family is left out)."""
    ids = [int(i) for i in player_ids]
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    return {
        r["player_id"]: r
        for r in _rows(
            db, f"SELECT * FROM ratings WHERE family = ? AND player_id IN ({marks})",
            [family, *ids],
        )
    }


def as_of(db: Db, family: str, player_ids: Iterable[int], last_day: str) -> dict[int, dict]:
    """Members' standings at the end of club day ``last_day`` (the keys of :func:`current`)."""
    out = {}
    for pid in (int(i) for i in player_ids):
        # newest first along the member's index: stops at the period's last rated game
        found = _rows(
            db,
            "SELECT r_after AS rating, games, peak, dan_level, dan_points, ended_at, game_id "
            "FROM rating_lines WHERE player_id = ? AND family = ? AND club_day <= ? "
            "ORDER BY club_day DESC, ended_at DESC, game_id DESC LIMIT 1",
            [pid, family, last_day],
        )
        if found:
            out[pid] = {"family": family, "player_id": pid, **found[0]}
    return out


def history(db: Db, player_id: int, family: str) -> list[dict]:
    """A member's rating line of every rated game in a family, oldest first."""
    return _rows(
        db,
        "SELECT * FROM rating_lines WHERE player_id = ? AND family = ? "
        "ORDER BY club_day, ended_at, game_id",
        [player_id, family],
    )


def save_dan_table(db: Db, text: str, *, actor: str) -> dict:
    """Keep a new dan table (checked, audited) and re-rate every family under it, in one
    transaction: the ladders always follow the table. Returns the rated games per family."""
    with write_tx(db):
        standings.store(db, "dan", text, actor=actor)
        return rebuild(db)
