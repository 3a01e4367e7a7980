"""Make a synthetic club-year in a Jantaku database: every game played through the engine.

    python benchmarks/gen_club_year.py --db /tmp/year.sqlite [--fraction 0.1] [--workers 2]

A club with 20 tables over a year plays about 60,000 games and 600,000 hands.
Each game here is random but legal: every hand is checked by the engine as it
is added (``scoring.game.preview`` says whether the game goes on and who may
declare riichi), the finished game is replayed once, and its
leaderboard lines come from ``scoring.stats.player_games``, exactly as the web
app would store them. Workers (``multiprocessing``) generate games; the parent
writes them in bulk (games, seats, hand events, summary lines) and then
builds the per-day summary rows with ``club.stats_store.rebuild_days``.

Mix: 80 % four-player (nekohouse-4a), 20 % three-player (nekohouse-3a) games,
300 members, games spread evenly over 365 club days from --start, finishing
between 13:00 and 04:30 (club time) so the closing hour matters. Each game
stores its rules with a club's money (:data:`MONEY`: fees, top prize, chips),
and the ratings are built at the end (``club.rating_store.rebuild``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring import game as engine  # noqa: E402
from scoring import stats  # noqa: E402
from scoring.rules import load_rules  # noqa: E402

YEAR_GAMES = 60_000
MEMBERS = 300
TABLES = 20
PRESETS = (("nekohouse-4a", 0.8), ("nekohouse-3a", 0.2))
HANFU = [
    (1, 30),
    (1, 40),
    (2, 30),
    (2, 40),
    (3, 30),
    (3, 40),
    (4, 30),
    (5, 0),
    (6, 0),
    (8, 0),
    (11, 0),
    (13, 0),
]
HANFU_WEIGHTS = [14, 8, 14, 8, 10, 5, 5, 12, 6, 3, 1, 0.3]
JST = timezone(timedelta(hours=9))
MONEY = {
    "nekohouse-4a": {"fee_mode": "per_game", "fee": 600, "top_prize": 500, "chip_yen": 500},
    "nekohouse-3a": {"fee_mode": "per_hour", "fee": 600, "fee_unit_minutes": 15,
                     "top_prize": 300, "top_prize_from": "others", "chip_yen": 200},
}
"""The club's money per rule set, stored with each game (a rule set's [money] section)."""

_RULES: dict = {}


def _rules(preset: str):
    if preset not in _RULES:
        _RULES[preset] = load_rules(preset)
    return _RULES[preset]


_RULES_DICT: dict = {}


def _rules_dict(preset: str) -> dict:
    if preset not in _RULES_DICT:
        _RULES_DICT[preset] = _rules(preset).to_dict()
    return _RULES_DICT[preset]


def _hand(rng: random.Random, n: int, state: dict) -> dict:
    riichi = [s for s in state["riichi_able"] if rng.random() < 0.18]
    roll = rng.random()
    if roll < 0.72:
        winner = rng.randrange(n)
        han, fu = rng.choices(HANFU, HANFU_WEIGHTS)[0]
        ev = {"event": "win", "winners": [{"seat": winner, "han": han, "fu": fu}]}
        if rng.random() < 0.7:
            ev["from"] = rng.choice([s for s in range(n) if s != winner])
    elif roll < 0.97:
        ev = {"event": "draw", "tenpai": sorted(rng.sample(range(n), rng.randrange(n + 1)))}
    else:
        ev = {"event": "abort", "kind": "kyuushu"}
    if riichi:
        ev["riichi"] = riichi
    return ev


def make_game(seed: int) -> list[dict]:
    """A legal random game's events (start ... until the engine says it is over)."""
    rng = random.Random(seed)
    preset = rng.choices([p for p, _ in PRESETS], [w for _, w in PRESETS])[0]
    rules = _rules(preset)
    n = rules.table.players
    players = [f"m{i}" for i in rng.sample(range(1, MEMBERS + 1), n)]
    events = [{"event": "start", "players": players}]
    state = engine.state_after(events, rules)
    # Hands are applied to one live state (engine.apply_event, what replay does line by
    # line): preview() would deep-copy the state for every hand, 3x slower. A hand
    # the engine refuses may have half-changed the state, so it is rebuilt from the
    # accepted events and the game is ended there instead.
    while not state.finished:
        ev = _hand(rng, n, state.to_dict()) if len(events) < 30 else {"event": "end"}
        try:
            engine.apply_event(state, len(events) + 1, ev)
        except engine.GameEventError:
            state = engine.state_after(events, rules)
            ev = {"event": "end"}
            engine.apply_event(state, len(events) + 1, ev)
        events.append(ev)
    return events


def _finish_time(rng: random.Random, start: date, index: int, total: int,
                 span: int = 365) -> datetime:
    day = start + timedelta(days=index * span // total)
    minutes = rng.randrange(13 * 60, (24 + 4) * 60 + 30)  # 13:00 .. 04:30 next morning
    return datetime.combine(day, datetime.min.time(), JST) + timedelta(minutes=minutes)


def build(job: tuple) -> dict:
    """One game, ready to insert: rows of games, seats, hand events and summary lines.
    ``job`` is ``(index, total, start)`` or ``(index, total, start, span)``: the games are
    spread evenly over ``span`` club days (365 unless given)."""
    index, total, start = job[:3]
    span = job[3] if len(job) > 3 else 365
    rng = random.Random(index * 7919 + 1)
    events = make_game(index)
    preset = "nekohouse-4a" if len(events[0]["players"]) == 4 else "nekohouse-3a"
    rules = _rules(preset)
    out = engine.replay(events, rules)
    finished = _finish_time(rng, date.fromisoformat(start), index, total, span)
    started = finished - timedelta(minutes=rng.randrange(40, 75))
    ids = [int(p[1:]) for p in events[0]["players"]]
    rd = _rules_dict(preset)
    lines = stats.player_games(
        index + 1,
        finished.astimezone(timezone.utc).isoformat(timespec="milliseconds"),
        events,
        out,
        keys=[str(i) for i in ids],
        **stats.line_options(rd),
    )
    return {
        "id": index + 1,
        "preset": preset,
        "events": events,
        "ids": ids,
        "started": started.astimezone(timezone.utc).isoformat(timespec="milliseconds"),
        "finished": finished.astimezone(timezone.utc).isoformat(timespec="milliseconds"),
        "table": f"t{index % TABLES + 1}",
        "family": stats.rule_family(rd),
        "lines": [stats.line_to_dict(x) for x in lines],
    }


def _setup(db_path: str):
    from club import club_tables
    from club.db import connect
    from web import create_app

    create_app({"DATABASE": db_path, "SECRET_KEY": "bench", "TESTING": True})
    db = connect(db_path)
    for t in range(1, TABLES + 1):
        club_tables.save_table(db, f"t{t}", f"卓{t}", "nekohouse-4a" if t <= 16 else "nekohouse-3a")
    db.conn.executemany(
        "INSERT INTO players (id, name, created_at) VALUES (?, ?, ?)",
        [(i, f"会員{i:03d}", "2025-01-01T00:00:00+00:00") for i in range(1, MEMBERS + 1)],
    )
    return db


def _insert(db, g: dict, rules_json: dict, cfg: dict) -> None:
    from club import stats_store

    c = db.conn
    c.execute(
        "INSERT INTO games (id, table_id, rule_set, rules, players, status, start_key, "
        "started_at, finished_at) VALUES (?, ?, ?, ?, ?, 'finished', ?, ?, ?)",
        (
            g["id"],
            g["table"],
            g["preset"],
            rules_json[g["preset"]],
            len(g["ids"]),
            f"gen-{g['id']}",
            g["started"],
            g["finished"],
        ),
    )
    c.executemany(
        "INSERT INTO game_seats (game_id, seat, player_id) VALUES (?, ?, ?)",
        [(g["id"], s, pid) for s, pid in enumerate(g["ids"])],
    )
    c.executemany(
        "INSERT INTO hand_events (game_id, seq, kind, event, idempotency_key, request_hash, "
        "created_at) VALUES (?, ?, ?, ?, ?, '', ?)",
        [
            (
                g["id"],
                seq,
                ev["event"],
                json.dumps(ev, ensure_ascii=False),
                f"gen-{g['id']}-{seq}",
                g["finished"],
            )
            for seq, ev in enumerate(g["events"])
        ],
    )
    extra = {"family": g["family"], "club_day": stats_store.club_day_of(g["finished"], cfg)}
    stats_store.insert_lines(
        db, [stats_store._line_row(stats.line_from_dict(x), extra) for x in g["lines"]]
    )


def generate(db_path: str, fraction: float, workers: int, start: str,
             span: int = 365) -> dict:
    """Fill ``db_path`` (a new file) with ``fraction`` of a club-year's games, spread over
    ``span`` club days from ``start`` (365: thinly over the whole year; ``fraction * 365``:
    a club's real games per day); returns timings."""
    from club import rating_store, stats_store

    total = max(1, round(YEAR_GAMES * fraction))
    t0 = time.perf_counter()
    db = _setup(db_path)
    cfg = stats_store.settings(db)
    rules_json = {
        p: json.dumps({**_rules(p).to_dict(), "money": MONEY[p]}, ensure_ascii=False)
        for p, _ in PRESETS
    }
    hands = 0
    db.conn.execute("BEGIN")
    with multiprocessing.Pool(workers) as pool:
        # games are spread evenly over the year, so the whole range is asked for
        for g in pool.imap(build, ((i, total, start, span) for i in range(total)),
                           chunksize=64):
            _insert(db, g, rules_json, cfg)
            hands += sum(1 for ev in g["events"] if ev["event"] in stats.HAND_EVENTS)
    db.conn.execute("COMMIT")
    t1 = time.perf_counter()
    days = stats_store.rebuild_days(db)
    rating_store.rebuild(db)
    db.execute("ANALYZE")
    db.conn.close()
    t2 = time.perf_counter()
    return {
        "games": total,
        "hands": hands,
        "day_rows": days,
        "workers": workers,
        "generate_s": round(t1 - t0, 1),
        "summary_s": round(t2 - t1, 1),
        "total_s": round(t2 - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="database file to create (must not exist)")
    ap.add_argument("--fraction", type=float, default=1.0, help="part of a year (0.1 = a tenth)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--start", default="2025-04-01", help="first club day (YYYY-MM-DD)")
    args = ap.parse_args(argv)
    if Path(args.db).exists():
        print(f"{args.db} already exists: give a new file", file=sys.stderr)
        return 2
    if not 0 < args.fraction <= 1:
        print("--fraction must be above 0 and at most 1", file=sys.stderr)
        return 2
    print(json.dumps(generate(args.db, args.fraction, args.workers, args.start)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
