"""Seating the next game of a table: who sits, where, and the game made ready.

When a table is free the console proposes the next players from the waiting list who
want what it plays. Staff seat them with a draw: ``random`` (the server draws) or
``wind`` (the players drew wind tiles at the table: 東 sits East and deals first). The
draw is kept with the seating. If the game is for another rule set than the table
plays, the table is given that rule set (which may need another AMOS mode: the floor
then points to the guided mode change). The seating is ``ready`` until the tablet
starts the game, which is started with the seating's id as its idempotency key, so a
second tap starts nothing more.
"""

from __future__ import annotations

import json
import random
import secrets

from club import club_tables, games, roster
from club.audit import audit
from club.club_tables import table_name
from club.db import Db, inserted_id, now_iso, one, rows, write_tx
from club.errors import Conflict, NotFound, Refused, UserError
from club.floor import clock, waiting
from club.notify import outbox

WIND_TILES = ("E", "S", "W", "N")
JA_WINDS = {"E": "東", "S": "南", "W": "西", "N": "北"}
TILE_NAMES = {v: k for k, v in JA_WINDS.items()}
METHODS = ("random", "wind")


def ready(db: Db, table_id: str) -> dict | None:
    """The game made ready at a table (players in seat order, with names), or None."""
    row = one(db, "SELECT * FROM seatings WHERE table_id = ? AND status = 'ready'", [table_id])
    return _full(db, row) if row else None


def get(db: Db, seating_id: int) -> dict:
    row = one(db, "SELECT * FROM seatings WHERE id = ?", [seating_id])
    if row is None:
        raise NotFound("floor.seat.no_seating", seating=seating_id)
    return _full(db, row)


def _full(db: Db, row: dict) -> dict:
    out = {**row, "players": json.loads(row["players"]), "draw": json.loads(row["draw"])}
    names = {p["id"]: p for p in rows(db, "SELECT id, name, guest FROM players WHERE id IN "
                                          f"({','.join('?' * len(out['players']))})",
                                      out["players"])}
    out["seats"] = [{"seat": i, "player_id": pid, "name": names[pid]["name"],
                     "guest": bool(names[pid]["guest"])} for i, pid in enumerate(out["players"])]
    return out


def proposal(db: Db, table_id: str) -> dict:
    """The next players from the waiting list for a table's rule set (in the order they
    came), with how many it seats."""
    table = club_tables.get_table(db, table_id)
    facts = waiting.rule_facts(db, table["rule_set"])
    fit = [w for w in waiting.waiting(db) if waiting.serves(w["wants"], facts)]
    return {"table_id": table_id, "rule_set": table["rule_set"], "family": facts["family"],
            "seats": facts["players"], "players": fit[:facts["players"]], "more": len(fit)}


def draw(player_ids: list[int], method: str, winds: dict | None = None,
         rng: random.Random | None = None) -> dict:
    """The seats: ``random`` shuffles the players; ``wind`` seats them by the wind tile
    each drew (``{player_id: "E"|"S"|"W"|"N"}``, one each of the table's winds)."""
    if method not in METHODS:
        raise UserError("field.not_choice", code="invalid_field", details={"field": "method"},
                        field="method", options=", ".join(METHODS))
    n = len(player_ids)
    if method == "random":
        order = list(player_ids)
        (rng or secrets.SystemRandom()).shuffle(order)
        return {"method": "random", "order": order}
    wanted = list(WIND_TILES[:n])
    try:
        winds = {int(k): TILE_NAMES.get(str(v).strip(), str(v).strip().upper())
                 for k, v in (winds or {}).items()}
    except (TypeError, ValueError):
        winds = {}
    if set(winds) != set(player_ids) or sorted(winds.values()) != sorted(wanted):
        raise Refused("floor.seat.bad_winds", code="invalid_field", details={"field": "winds"},
                      winds="".join(JA_WINDS[w] for w in wanted))
    order = sorted(player_ids, key=lambda p: wanted.index(winds[p]))
    return {"method": "wind", "order": order, "tiles": {str(p): winds[p] for p in order}}


def seat(db: Db, table_id: str, player_ids: list[int], *, method: str = "random",
         winds: dict | None = None, rule_set: str | None = None, actor: str,
         night: tuple[int, int] | None = None, rng: random.Random | None = None) -> dict:
    """Draw seats for ``player_ids`` at a table and make the game ready (the waiting list
    entries of these players are seated). Audited with the draw."""
    table = club_tables.get_table(db, table_id)
    rule_set = rule_set or table["rule_set"]
    facts = waiting.rule_facts(db, rule_set)
    if not isinstance(player_ids, list) or len(player_ids) != facts["players"] \
            or len(set(player_ids)) != len(player_ids):
        raise Refused("records.pick_players", code="invalid_field",
                      details={"field": "players"}, rules=rule_set, n=facts["players"])
    players = [roster.get_player(db, int(p)) for p in player_ids]
    for p in players:
        if not p["active"]:
            raise Refused("records.player_retired", code="player_retired", name=p["name"])
        games._check_free(db, p)
    result = draw([p["id"] for p in players], method, winds, rng)
    with write_tx(db):
        if games.live_game_id(db, table_id) is not None:
            raise Conflict("floor.seat.table_busy", code="game_in_progress",
                           table=table_name(db, table_id))
        if one(db, "SELECT id FROM seatings WHERE table_id = ? AND status = 'ready'",
               [table_id]):
            raise Conflict("floor.seat.already_ready", code="already_ready",
                           table=table_name(db, table_id))
        _not_seated_elsewhere(db, players)
        if rule_set != table["rule_set"]:
            club_tables.save_table(db, table_id, table["name"], rule_set, actor=actor)
        cur = db.execute(
            "INSERT INTO seatings (table_id, rule_set, players, draw, night_id, round, "
            "created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [table_id, rule_set, json.dumps(result["order"]), json.dumps(result),
             night[0] if night else None, night[1] if night else None, now_iso(), actor])
        sid = inserted_id(cur)
        db.execute(f"UPDATE waiting SET status = 'seated', done_at = ?, seating_id = ? "
                   f"WHERE status = 'waiting' AND player_id IN ({','.join('?' * len(players))})",
                   [now_iso(), sid, *[p["id"] for p in players]])
        outbox.seat_ready(db, sid)
        audit(db, actor, "seating.ready", f"table:{table_id}", details={
            "seating": sid, "rule_set": rule_set, "draw": result,
            "names": [next(p["name"] for p in players if p["id"] == pid)
                      for pid in result["order"]]})
    return get(db, sid)


def _not_seated_elsewhere(db: Db, players: list[roster.PlayerRow]) -> None:
    for r in rows(db, "SELECT table_id, players FROM seatings WHERE status = 'ready'"):
        taken = set(json.loads(r["players"]))
        for p in players:
            if p["id"] in taken:
                raise Conflict("floor.seat.player_ready_elsewhere", code="player_seated",
                               name=p["name"], table=table_name(db, r["table_id"]))


def cancel(db: Db, seating_id: int, *, actor: str) -> dict:
    """Take back a game made ready: its players go back to their places on the list."""
    s = get(db, seating_id)
    if s["status"] != "ready":
        raise Conflict("floor.seat.not_ready", code="not_ready", seating=seating_id)
    with write_tx(db):
        db.execute("UPDATE seatings SET status = 'cancelled', done_at = ? WHERE id = ?",
                   [now_iso(), seating_id])
        db.execute("UPDATE waiting SET status = 'waiting', done_at = NULL, seating_id = NULL "
                   "WHERE seating_id = ?", [seating_id])
        audit(db, actor, "seating.cancel", f"table:{s['table_id']}",
              details={"seating": seating_id, "names": [x["name"] for x in s["seats"]]})
    return get(db, seating_id)


def start(db: Db, seating_id: int, *, actor: str) -> dict:
    """Start the game made ready (idempotent: the seating's id is the start's key); an
    event night's game gets the night's time limit."""
    s = get(db, seating_id)
    if s["status"] == "cancelled":
        raise Conflict("floor.seat.cancelled", code="seating_cancelled", seating=seating_id)
    view = games.start_game(db, s["table_id"], s["players"], rule_set=s["rule_set"],
                            idempotency_key=f"seating-{seating_id}-start", actor=actor)
    gid = view["game"]["id"]
    with write_tx(db):
        db.execute("UPDATE seatings SET status = 'started', game_id = ?, done_at = "
                   "COALESCE(done_at, ?) WHERE id = ?", [gid, now_iso(), seating_id])
    if s["night_id"]:
        limit = one(db, "SELECT time_limit FROM nights WHERE id = ?", [s["night_id"]])
        if limit and limit["time_limit"] and clock.limit_of(db, gid) is None \
                and view["game"]["status"] == "live":
            clock.set_limit(db, gid, limit["time_limit"])
    return view
