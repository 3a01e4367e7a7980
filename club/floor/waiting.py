"""The waiting list (待ち席): walk-ins in the order they came, each with the game they
want, and how long each will wait, estimated from the tables' progress.

A wish is a rule family (``family:riichi4``, ``family:riichi3``, ``family:mcr``...) or
one rule set (``rules:nekohouse-3b``). A table serves a wish when it plays that rule
set, or a rule set of that family.

**The estimate.** A table in play is free again after its remaining hands: the game's
expected hands (the club's own finished games of that rule set, or its length: winds x
players, x 1.25 for dealer repeats and draws where the dealer can repeat) less the
hands its table has
cycled, at the table's own minutes per hand (its cycles; else the club's average; else
:data:`~club.floor.clock.DEFAULT_MINUTES_PER_HAND`), and no later than its time limit
plus one hand. A free table is free now; one with a game made ready is a whole game
away. The waiting players fill tables in their order, a table's worth at a time: the
k-th table's worth waits for the k-th table to come free (a table coming free twice
counts its next game again).
"""

from __future__ import annotations

import functools
import json
import time
from datetime import datetime
from typing import Any

from club import club_tables, clubtime, engine, games, roster
from club.club_tables import table_name
from club.db import Db, inserted_id, now_iso, one, rows, write_tx
from club.errors import Conflict, NotFound, UserError
from club.floor import clock

DEALER_REPEATS = 1.25
"""Hands per dealer turn on average (repeats and draws) for the length estimate."""
WINDS = {"tonpuu": 1, "hanchan": 2, "issou": 4}


def families() -> dict:
    """The rule families a wish may name, with their words (ja, en)."""
    return dict(engine.FAMILIES)


def family_words(family: str, lang: str) -> str:
    """A rule family's name in ``lang`` (its code if it has none)."""
    words = engine.FAMILIES.get(family)
    return family if words is None else words[0 if lang == "ja" else 1]


@functools.lru_cache(maxsize=128)
def _rules_facts(rules_json: str) -> tuple[str, int, float]:
    data = json.loads(rules_json)
    rules = engine.rules(data)
    family = engine.rule_family(data)
    repeats = 1.0 if rules.game.renchan == "never" else DEALER_REPEATS
    hands = WINDS.get(rules.game.length, 2) * rules.table.players * repeats
    return family, rules.table.players, hands


@functools.lru_cache(maxsize=1)
def family_players() -> dict[str, int]:
    """How many play at a table of each rule family, from the shipped presets (data)."""
    out: dict[str, int] = {}
    for pid in engine.PRESET_IDS:
        data = engine.preset(pid).to_dict()
        out.setdefault(engine.rule_family(data), engine.preset(pid).table.players)
    return out


def rule_facts(db: Db, rule_set: str) -> dict:
    """A rule set's family, players and expected hands per game (from its length)."""
    rules = club_tables.resolve_rules(db, rule_set)
    family, players, hands = _rules_facts(json.dumps(rules.to_dict(), sort_keys=True))
    return {"rule_set": rule_set, "family": family, "players": players, "hands": hands}


def check_wish(db: Db, wants: str) -> str:
    """A wish as stored (``family:...`` or ``rules:...``), or a refusal naming the choices."""
    kind, _, value = str(wants or "").partition(":")
    if kind == "family" and value in families():
        return wants
    if kind == "rules":
        club_tables.resolve_rules(db, value)         # NotFound names the rule sets
        return wants
    raise UserError("floor.wait.bad_wish", code="invalid_field", details={"field": "wants"},
                    given=str(wants)[:40], families=", ".join(families()))


def serves(wish: str, facts: dict) -> bool:
    """Whether a table playing ``facts`` (from :func:`rule_facts`) serves ``wish``."""
    kind, _, value = wish.partition(":")
    return facts["rule_set"] == value if kind == "rules" else facts["family"] == value


def seats_for(db: Db, wish: str) -> int:
    """How many players a table for ``wish`` seats."""
    kind, _, value = wish.partition(":")
    if kind == "rules":
        return rule_facts(db, value)["players"]
    return family_players().get(value, 4)


# --------------------------------------------------------------------------- the list
def add(db: Db, player_id: int, wants: str, *, actor: str) -> dict:
    """Put a player on the waiting list (at the end); refused while they are on it, at a
    table, or retired."""
    wants = check_wish(db, wants)
    player = roster.get_player(db, player_id)
    if not player["active"]:
        raise UserError("records.player_retired", status=422, code="player_retired",
                        name=player["name"])
    seat = one(db, "SELECT g.table_id FROM game_seats s JOIN games g ON g.id = s.game_id "
                   "WHERE s.player_id = ? AND g.status = 'live'", [player_id])
    if seat:
        raise Conflict("floor.wait.playing", code="player_seated", name=player["name"],
                       table=table_name(db, seat["table_id"]))
    with write_tx(db):
        if one(db, "SELECT id FROM waiting WHERE player_id = ? AND status = 'waiting'",
               [player_id]):
            raise Conflict("floor.wait.already", code="already_waiting", name=player["name"])
        cur = db.execute("INSERT INTO waiting (player_id, wants, added_at, added_by) "
                         "VALUES (?, ?, ?, ?)", [player_id, wants, now_iso(), actor])
    return get(db, inserted_id(cur))


def get(db: Db, entry_id: int) -> dict:
    row = one(db, "SELECT w.*, p.name, p.guest FROM waiting w JOIN players p "
                  "ON p.id = w.player_id WHERE w.id = ?", [entry_id])
    if row is None:
        raise NotFound("floor.wait.no_entry", entry=entry_id)
    return row


def leave(db: Db, entry_id: int) -> dict:
    """Take a player off the list (they left, or were seated by hand)."""
    entry = get(db, entry_id)
    if entry["status"] != "waiting":
        raise Conflict("floor.wait.not_waiting", code="not_waiting", name=entry["name"])
    with write_tx(db):
        db.execute("UPDATE waiting SET status = 'left', done_at = ? WHERE id = ?",
                   [now_iso(), entry_id])
    return get(db, entry_id)


def waiting(db: Db) -> list[dict]:
    """Everyone waiting, in the order they came."""
    return rows(db, "SELECT w.*, p.name, p.guest, p.member_no FROM waiting w JOIN players p "
                    "ON p.id = w.player_id WHERE w.status = 'waiting' ORDER BY w.id")


# --------------------------------------------------------------------------- the estimate
def _history(db: Db) -> dict:
    """The club's finished games: hands per game by rule set, minutes per hand overall."""
    out: dict[str, Any] = {"hands": {}, "per_hand": None}
    for r in rows(db, "SELECT g.rule_set, AVG(l.hands) AS hands, COUNT(*) AS n FROM games g "
                      "JOIN stats_lines l ON l.game_id = g.id AND l.seat = 0 "
                      "WHERE g.status = 'finished' GROUP BY g.rule_set"):
        if r["n"] >= 3 and r["hands"]:
            out["hands"][r["rule_set"]] = float(r["hands"])
    spans = rows(db, "SELECT g.started_at, g.finished_at, l.hands FROM games g JOIN stats_lines l "
                     "ON l.game_id = g.id AND l.seat = 0 WHERE g.status = 'finished' "
                     "ORDER BY g.id DESC LIMIT 50")
    # a finished game has both its times
    minutes = [(clubtime.instant(s["finished_at"])  # type: ignore[operator]
                - clubtime.instant(s["started_at"]))
               .total_seconds() / 60 / s["hands"] for s in spans if s["hands"] and s["finished_at"]]
    minutes = [m for m in minutes if 1 <= m <= 30]         # a forgotten game is not a pace
    if len(minutes) >= 3:
        out["per_hand"] = sum(minutes) / len(minutes)
    return out


OUTLOOK_TTL_S = 3.0
"""How long the tablets and the public board, polling every few seconds, share one look
at the tables (staff pages always look again)."""
_outlook_memo: dict[str, tuple[float, list]] = {}


def shared_outlook(db: Db, db_path: str) -> list[dict]:
    """:func:`outlook`, computed at most once per :data:`OUTLOOK_TTL_S` for all pollers."""
    now = time.monotonic()
    hit = _outlook_memo.get(db_path)
    if hit is not None and now - hit[0] < OUTLOOK_TTL_S:
        return hit[1]
    out = outlook(db, db_path)
    _outlook_memo[db_path] = (now, out)
    return out


def outlook(db: Db, db_path: str, now: datetime | None = None) -> list[dict]:
    """Each club table: what it plays and in how many minutes it is free (0: now)."""
    now = now or clubtime.now()
    history = _history(db)
    out = []
    ready = {r["table_id"] for r in rows(db, "SELECT table_id FROM seatings "
                                             "WHERE status = 'ready'")}
    for t in club_tables.list_tables(db):
        facts = rule_facts(db, t["rule_set"])
        expected = history["hands"].get(t["rule_set"], facts["hands"])
        entry = {"table_id": t["id"], "name": t["name"], **facts, "expected_hands": expected,
                 "free_in": 0.0, "state": "free"}
        per_hand = history["per_hand"] or clock.DEFAULT_MINUTES_PER_HAND
        if t["live_game"]:
            game = games.get_game(db, t["live_game"])
            st = clock.status(db, db_path, game, now)
            per_hand = st["per_hand"] or per_hand
            left = max(expected - st["hands"], 1.0) * per_hand
            if st.get("left") is not None:
                left = min(left, st["left"] + per_hand)
            entry.update(state="playing", free_in=round(left, 1), hands=st["hands"],
                         per_hand=round(per_hand, 1))
        elif t["id"] in ready:
            entry.update(state="ready", free_in=round(expected * per_hand, 1))
        entry["game_minutes"] = expected * per_hand
        out.append(entry)
    return out


def estimates(db: Db, db_path: str, now: datetime | None = None, *,
              shared: bool = False) -> list[dict]:
    """The waiting list with each player's place for their wish and estimated minutes
    (None when no table serves the wish); ``shared``: the tables as a poller sees them
    (:func:`shared_outlook`)."""
    tables = shared_outlook(db, db_path) if shared else outlook(db, db_path, now)
    queue = waiting(db)
    out = []
    places: dict[str, int] = {}
    for entry in queue:
        wish = entry["wants"]
        place = places.get(wish, 0)
        places[wish] = place + 1
        size = seats_for(db, wish)
        mine = sorted((t for t in tables if serves(wish, t)), key=lambda t: t["free_in"])
        wait = None
        if mine:
            k = place // size
            lap, slot = divmod(k, len(mine))
            t = mine[slot]
            wait = round(t["free_in"] + lap * t["game_minutes"])
        out.append({**entry, "place": place + 1, "minutes": wait})
    return out
