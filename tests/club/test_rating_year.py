"""A club-year of games rated one at a time as they finish, with the floor's disorder
(guests, games entered late, same-day corrections, a few corrections months back,
voids), then rebuilt from nothing: both must be equal to the last bit.

The year is a tenth of the benchmark's (6,000 games over 365 club days, 300 members,
four- and three-player, hanchan and tonpuu), written straight into the summary
lines, the input the ratings are made from (``club.stats_store`` writes them from the
events; ``test_rating_store`` covers that path).
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone

import pytest

from club import rating_store, stats_store
from club.db import connect, write_tx
from club.engine import load_rules
from web import create_app

pytestmark = pytest.mark.slow

GAMES = 6_000
MEMBERS = 300


def _club(path: str):
    create_app({"DATABASE": path, "SECRET_KEY": "x", "TESTING": True, "COOKIE_SECURE": False})
    db = connect(path)
    db.conn.executemany(
        "INSERT INTO players (id, name, guest, created_at) VALUES (?, ?, ?, '2025-01-01')",
        [(i, f"p{i}", int(i > MEMBERS - 20)) for i in range(1, MEMBERS + 1)],  # 20 guests
    )
    db.execute("INSERT INTO club_tables VALUES ('t1', '卓1', 'nekohouse-4a', '2025-01-01')")
    return db


RULES = {
    (4, "hanchan"): json.dumps(load_rules("nekohouse-4a").to_dict()),
    (4, "tonpuu"): json.dumps(load_rules("netmahjong").to_dict()),
    (3, "hanchan"): json.dumps(load_rules("nekohouse-3a").to_dict()),
}


def _lines(gid: int, ended: str, day: str, players: list[int], ranks: list[int]) -> list[dict]:
    n = len(players)
    return [
        {"game_id": gid, "seat": s, "player_id": p, "family": "riichi4" if n == 4 else "riichi3",
         "club_day": day, "ended_at": ended, "players": n, "rank": ranks[s], "result": 0,
         "final_score": 0, "busted": 0, "hands": 8, "wins": 0, "tsumo_wins": 0, "deal_ins": 0,
         "riichi": 0, "win_points": 0, "deal_in_points": 0, "chips": 0, "penalties": 0,
         "chombo": 0}
        for s, p in enumerate(players)
    ]


def _finish(db, gid: int, rng: random.Random, when: datetime) -> None:
    n = 4 if rng.random() < 0.8 else 3
    length = "tonpuu" if n == 4 and rng.random() < 0.1 else "hanchan"
    players = rng.sample(range(1, MEMBERS + 1), n)
    ranks = rng.sample(range(1, n + 1), n)
    if rng.random() < 0.03:  # a shared place (settlement.ties = share)
        ranks = [min(r, 2) if r <= 2 else r for r in ranks]
    ended = when.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    day = (when - timedelta(hours=5)).date().isoformat()
    with write_tx(db):
        db.execute(
            "INSERT INTO games (id, table_id, rule_set, rules, players, status, start_key, "
            "started_at, finished_at) VALUES (?, 't1', 'x', ?, ?, 'finished', ?, ?, ?)",
            [gid, RULES[(n, length)], n, f"k{gid}", ended, ended],
        )
        stats_store.insert_lines(db, _lines(gid, ended, day, players, ranks))
        rating_store.refresh(db, gid)


def _correct(db, gid: int, rng: random.Random) -> None:
    """Swap two placements of a finished game (a staff correction), or void it."""
    rows = db.execute("SELECT seat, rank FROM stats_lines WHERE game_id = ?", [gid]).fetchall()
    with write_tx(db):
        if rng.random() < 0.3:
            db.execute("DELETE FROM stats_lines WHERE game_id = ?", [gid])
        else:
            (s1, r1), (s2, r2) = rng.sample(rows, 2)
            db.execute("UPDATE stats_lines SET rank = ? WHERE game_id = ? AND seat = ?",
                       [r2, gid, s1])
            db.execute("UPDATE stats_lines SET rank = ? WHERE game_id = ? AND seat = ?",
                       [r1, gid, s2])
        rating_store.refresh(db, gid)


def _snapshot(db) -> tuple:
    cols = ", ".join(rating_store.LINE_COLUMNS)
    return (
        db.execute(f"SELECT {cols} FROM rating_lines ORDER BY game_id, seat").fetchall(),
        db.execute("SELECT * FROM ratings ORDER BY family, player_id").fetchall(),
    )


def test_rating_club_year_incremental_equals_rebuild(tmp_path):
    db = _club(str(tmp_path / "year.sqlite"))
    rng = random.Random(19)
    start = datetime(2025, 4, 1, 13, 0, tzinfo=timezone(timedelta(hours=9)))
    late, corrected = 0, 0
    for gid in range(1, GAMES + 1):
        when = start + timedelta(minutes=gid * 365 * 24 * 60 // GAMES)
        if rng.random() < 0.02:  # entered late: finished up to an hour before the last one
            when -= timedelta(minutes=rng.randrange(1, 60))
            late += 1
        _finish(db, gid, rng, when)
        if gid > 10 and rng.random() < 0.01:  # a same-day correction of a recent game
            _correct(db, gid - rng.randrange(1, 10), rng)
            corrected += 1
        if gid in (1500, 3000, 4500, 5990):  # a correction months back
            _correct(db, rng.randrange(1, gid // 2), rng)
            corrected += 1
    assert late > 50 and corrected > 40
    incremental = _snapshot(db)
    assert len(incremental[0]) > 4 * GAMES * 0.8 * 0.9
    counts = rating_store.rebuild(db)
    assert sum(counts.values()) > GAMES * 0.98
    assert _snapshot(db) == incremental
    db.conn.close()
