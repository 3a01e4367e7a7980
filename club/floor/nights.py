"""Event nights: a set of players and tables, N rounds of one rule set.

Round 1 is seated at random. Each later round is swiss-paired: players in the order of
their standing (the sum of their results in the night's finished games, then fewer
games, then who came first), with no two players who already met at a table this night
together again where a seating without a rematch exists (:mod:`.pairing`). The best
placed table goes to the night's first table. Each table's seats are drawn at random and
made ready (:mod:`.seating`); the night's time limit applies to each game.
"""

from __future__ import annotations

import json
import random

from club import club_tables, gamelog, games, roster
from club.audit import audit
from club.club_tables import table_name
from club.db import Db, inserted_id, now_iso, one, rows, write_tx
from club.errors import Conflict, NotFound, UserError
from club.floor import pairing, seating, waiting
from club.text import clean

PAIRINGS = ("swiss", "random")


def create(db: Db, *, name: str, rule_set: str, rounds: int, pairing_method: str,
           tables: list[str], players: list[int], time_limit: int | None, actor: str) -> dict:
    """A new event night (checked: the players fill whole tables of the rule set, and the
    tables are enough for them)."""
    name = clean(name, "name", 60)
    facts = waiting.rule_facts(db, rule_set)
    if pairing_method not in PAIRINGS:
        raise UserError("field.not_choice", code="invalid_field", details={"field": "pairing"},
                        field="pairing", options=", ".join(PAIRINGS))
    if not isinstance(rounds, int) or not 1 <= rounds <= 20:
        raise UserError("field.out_of_range", code="invalid_field", details={"field": "rounds"},
                        field="rounds", low=1, high=20, value=rounds)
    if time_limit is not None and not 5 <= time_limit <= 600:
        raise UserError("field.out_of_range", code="invalid_field",
                        details={"field": "time_limit"}, field="time_limit", low=5, high=600,
                        value=time_limit)
    for t in tables:
        club_tables.get_table(db, t)
    people = [roster.get_player(db, int(p)) for p in players]
    _fits(len(people), facts["players"], len(tables))
    with write_tx(db):
        cur = db.execute(
            "INSERT INTO nights (name, rule_set, rounds, pairing, tables, time_limit, "
            "created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [name, rule_set, rounds, pairing_method, json.dumps(tables), time_limit, now_iso(),
             actor])
        nid = inserted_id(cur)
        for p in people:
            db.execute("INSERT INTO night_players (night_id, player_id) VALUES (?, ?)",
                       [nid, p["id"]])
        audit(db, actor, "night.create", f"night:{nid}",
              details={"name": name, "rule_set": rule_set, "rounds": rounds,
                       "players": len(people), "tables": tables})
    return get(db, nid)


def _fits(n: int, size: int, tables: int) -> None:
    if n == 0 or n % size:
        raise UserError("floor.night.not_divisible", code="invalid_field",
                        details={"field": "players"}, players=n, size=size, left=n % size)
    if n // size > tables:
        raise UserError("floor.night.too_few_tables", code="invalid_field",
                        details={"field": "tables"}, need=n // size, tables=tables)


def get(db: Db, night_id: int) -> dict:
    row = one(db, "SELECT * FROM nights WHERE id = ?", [night_id])
    if row is None:
        raise NotFound("floor.night.none", night=night_id)
    row["tables"] = json.loads(row["tables"])
    row["players"] = [r["player_id"] for r in rows(
        db, "SELECT player_id FROM night_players WHERE night_id = ? ORDER BY rowid", [night_id])]
    row["size"] = waiting.rule_facts(db, row["rule_set"])["players"]
    return row


def list_nights(db: Db) -> list[dict]:
    return rows(db, "SELECT * FROM nights ORDER BY id DESC LIMIT 50")


def rounds_of(db: Db, night_id: int) -> dict[int, list[dict]]:
    """The night's seatings by round (cancelled ones left out)."""
    out: dict[int, list[dict]] = {}
    for r in rows(db, "SELECT id FROM seatings WHERE night_id = ? AND status != 'cancelled' "
                      "ORDER BY round, id", [night_id]):
        s = seating.get(db, r["id"])
        out.setdefault(s["round"], []).append(s)
    return out


def standings(db: Db, night_id: int) -> list[dict]:
    """The night's players best first: total result of their finished games, games."""
    night = get(db, night_id)
    names = {p["id"]: p["name"] for p in rows(db, "SELECT id, name FROM players")}
    total = {p: 0.0 for p in night["players"]}
    played = {p: 0 for p in night["players"]}
    for rnd in rounds_of(db, night_id).values():
        for s in rnd:
            if not s["game_id"]:
                continue
            game = games.get_game(db, s["game_id"])
            if game["status"] != "finished":
                continue
            final = gamelog.played(db, game).result.get("final") or {}
            for seat, pid in enumerate(s["players"]):
                if pid in total and final.get("result"):
                    total[pid] += final["result"][seat]
                    played[pid] += 1
    order = sorted(night["players"], key=lambda p: (-total[p], played[p],
                                                    night["players"].index(p)))
    return [{"player_id": p, "name": names.get(p, p), "total": total[p], "games": played[p],
             "rank": i + 1} for i, p in enumerate(order)]


def next_round(db: Db, night_id: int, *, actor: str,
               rng: random.Random | None = None) -> list[dict]:
    """Seat the night's next round: every table's game made ready."""
    night = get(db, night_id)
    done = rounds_of(db, night_id)
    number = max(done, default=0) + 1
    if number > night["rounds"]:
        raise Conflict("floor.night.all_rounds", code="night_done", rounds=night["rounds"])
    for s in done.get(number - 1, []):
        status = games.get_game(db, s["game_id"])["status"] if s["game_id"] else "ready"
        if status not in ("finished", "void"):
            raise Conflict("floor.night.round_running", code="round_running",
                           round=number - 1, table=table_name(db, s["table_id"]))
    _fits(len(night["players"]), night["size"], len(night["tables"]))
    if night["pairing"] == "random" or number == 1:
        groups = pairing.random_tables(night["players"], night["size"], rng=rng)
    else:
        met = pairing.met_pairs(s["players"] for rnd in done.values() for s in rnd)
        order = [r["player_id"] for r in standings(db, night_id)]
        groups = pairing.swiss(order, night["size"], met)
    used = night["tables"][:len(groups)]       # more tables than games: the first ones
    for table_id in used:                      # all free first: a round is seated whole
        if games.live_game_id(db, table_id) is not None:
            raise Conflict("floor.seat.table_busy", code="game_in_progress",
                           table=table_name(db, table_id))
        if seating.ready(db, table_id) is not None:
            raise Conflict("floor.seat.already_ready", code="already_ready",
                           table=table_name(db, table_id))
    made = []
    for table_id, group in zip(used, groups, strict=True):
        # the groups hold the night's player ids
        made.append(seating.seat(db, table_id, group, method="random",  # type: ignore[arg-type]
                                 rule_set=night["rule_set"], actor=actor,
                                 night=(night_id, number), rng=rng))
    return made
