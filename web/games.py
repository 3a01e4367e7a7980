"""The club's records: players, tables, rule sets and games.

Storage rules this module keeps:

* Every hand is an immutable row in ``hand_events`` holding one event of the
  game-events format (``docs/contracts/game-events.md``). Rows are
  never updated or deleted. Undo appends a ``void`` marker; a staff
  correction appends a ``replace`` marker; both name the row they act on.
* Each submission carries a client idempotency key (``UNIQUE``) and the
  sequence number it expects to take (``UNIQUE (game_id, seq)``): a retry
  returns the first answer, and of two tablets racing for the same slot the
  database lets exactly one insert win.
* A game stores the fully resolved rules it is played under, so a later
  change to a rule set never rewrites history.
* A game's state is always ``scoring.game.replay`` of its effective events;
  ``games.status`` only says whether it is live, finished or void.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import tomllib
from typing import Any

import sqlite_utils

from scoring.errors import ScoringError
from scoring.rules import PRESET_IDS, Rules, load_rules

from . import engine, stats_store
from .audit import audit
from .db import Migrations, now_iso, write_tx
from .errors import Conflict, NotFound, Refused, UserError

RECORDABLE = ("win", "draw", "abort", "chombo", "penalty", "end")
GAME_STATUSES = ("live", "finished", "void")
MAX_NAME = 40
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


MIGRATIONS = Migrations("games")


@MIGRATIONS(legacy=("migrations", "number", 100))
def _create_core(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE players (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            guest INTEGER NOT NULL DEFAULT 0 CHECK (guest IN (0, 1)),
            member_no TEXT UNIQUE,
            active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
            created_at TEXT NOT NULL
        );
        CREATE TABLE rule_sets (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            toml TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE club_tables (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            rule_set TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL REFERENCES club_tables(id),
            rule_set TEXT NOT NULL,
            rules TEXT NOT NULL,
            players INTEGER NOT NULL CHECK (players IN (3, 4)),
            status TEXT NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'finished', 'void')),
            start_key TEXT NOT NULL UNIQUE,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            started_by TEXT NOT NULL DEFAULT ''
        );
        -- At most one live game per table: two tablets starting at once get one game.
        CREATE UNIQUE INDEX games_one_live_per_table ON games(table_id) WHERE status = 'live';
        CREATE TABLE game_seats (
            game_id INTEGER NOT NULL REFERENCES games(id),
            seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
            player_id INTEGER NOT NULL REFERENCES players(id),
            confirmed_at TEXT,
            PRIMARY KEY (game_id, seat),
            UNIQUE (game_id, player_id)
        );
        CREATE TABLE hand_events (
            id INTEGER PRIMARY KEY,
            game_id INTEGER NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL CHECK (seq >= 0),
            kind TEXT NOT NULL,
            event TEXT NOT NULL,
            target_seq INTEGER,
            idempotency_key TEXT NOT NULL UNIQUE,
            request_hash TEXT NOT NULL,
            actor TEXT NOT NULL DEFAULT '',
            reason TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (game_id, seq)
        );
        -- Immutable: the log only grows.
        CREATE TRIGGER hand_events_no_update BEFORE UPDATE ON hand_events
        BEGIN SELECT RAISE(ABORT, 'hand events are immutable: append a correction instead'); END;
        CREATE TRIGGER hand_events_no_delete BEFORE DELETE ON hand_events
        BEGIN SELECT RAISE(ABORT, 'hand events are immutable: append a void marker instead'); END;
        """
    )


# --------------------------------------------------------------------------- helpers
def _rows(db, sql: str, params=()) -> list[dict]:
    return db.execute_returning_dicts(sql, list(params))


def _one(db, sql: str, params=()) -> dict | None:
    rows = _rows(db, sql, params)
    return rows[0] if rows else None


def _clean_name(name: Any, what: str = "name") -> str:
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"give a {what}: it cannot be empty")
    name = " ".join(name.split())
    if len(name) > MAX_NAME:
        raise UserError(f"the {what} {name[:20]!r}… is too long: use at most {MAX_NAME} characters")
    return name


def _check_id(value: Any, what: str) -> str:
    if not isinstance(value, str) or not ID_RE.match(value):
        raise UserError(
            f"{what} {value!r} is not valid: use 1-40 letters, digits, '-', '_' or '.', "
            "starting with a letter or digit"
        )
    return value


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not (8 <= len(key) <= 100):
        raise UserError(
            "every submission needs an idempotency_key: a client-generated string of "
            "8-100 characters, the same one on every retry of the same submission",
            code="missing_idempotency_key",
        )
    return key


def _request_hash(payload: Any) -> str:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- players
def add_player(db, name: str, *, guest: bool = False, member_no: str | None = None) -> dict:
    """Add a member (or a guest) and return it."""
    name = _clean_name(name, "player name")
    if member_no is not None:
        member_no = _clean_name(str(member_no), "member number")
    with write_tx(db):
        if member_no and _one(db, "SELECT id FROM players WHERE member_no = ?", [member_no]):
            raise Conflict(f"member number {member_no} is already used by another player")
        cur = db.execute(
            "INSERT INTO players (name, guest, member_no, created_at) VALUES (?, ?, ?, ?)",
            [name, int(bool(guest)), member_no, now_iso()],
        )
    return get_player(db, cur.lastrowid)


def get_player(db, player_id: int) -> dict:
    """One player by id (NotFound if there is none)."""
    row = _one(db, "SELECT * FROM players WHERE id = ?", [player_id])
    if row is None:
        raise NotFound(f"there is no player number {player_id}")
    return row


def list_players(db, *, guests: bool = False, inactive: bool = False) -> list[dict]:
    """Members by name (and guests, inactive players when asked)."""
    where = ["1=1"]
    if not guests:
        where.append("guest = 0")
    if not inactive:
        where.append("active = 1")
    return _rows(db, f"SELECT * FROM players WHERE {' AND '.join(where)} ORDER BY guest, name, id")


def set_player_active(db, player_id: int, active: bool) -> dict:
    """Retire or restore a player (history keeps them)."""
    get_player(db, player_id)
    with write_tx(db):
        db.execute("UPDATE players SET active = ? WHERE id = ?", [int(bool(active)), player_id])
    return get_player(db, player_id)


# --------------------------------------------------------------------------- rule sets
def list_rule_sets(db) -> list[dict]:
    """The shipped presets, then the club's own rule sets."""
    out = [{"id": p, "title": preset_rules(p).title or p, "preset": True} for p in PRESET_IDS]
    for row in _rows(db, "SELECT id, title, updated_at FROM rule_sets ORDER BY id"):
        out.append({"id": row["id"], "title": row["title"] or row["id"], "preset": False,
                    "updated_at": row["updated_at"]})
    return out


def get_rule_set(db, rule_set_id: str) -> dict:
    """A rule set with its TOML (club) and its resolved switches."""
    if rule_set_id in PRESET_IDS:
        return {"id": rule_set_id, "preset": True, "toml": None,
                "rules": load_rules(rule_set_id).to_dict()}
    row = _one(db, "SELECT * FROM rule_sets WHERE id = ?", [rule_set_id])
    if row is None:
        raise NotFound(
            f"there is no rule set {rule_set_id!r}: choose a preset "
            f"({', '.join(PRESET_IDS)}) or one of the club's rule sets"
        )
    return {**row, "preset": False, "rules": _rules_from_toml(row["toml"], rule_set_id).to_dict()}


def _rules_from_toml(text: str, rule_set_id: str) -> Rules:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"the rules file is not valid TOML: {e}", code="invalid_rules") from None
    if "extends" not in data:
        raise UserError(
            "a club rule set must extend a preset: start the file with "
            f'extends = "netmahjong" (or one of {", ".join(PRESET_IDS)})',
            code="invalid_rules",
        )
    data.setdefault("name", rule_set_id)
    try:
        return load_rules(data)
    except ScoringError as e:
        raise UserError(f"the rules file is refused: {e}", code="invalid_rules") from None


def save_rule_set(db, rule_set_id: str, toml_text: str, *, actor: str) -> dict:
    """Create or replace a club rule set from TOML text (validated by ``load_rules``)."""
    _check_id(rule_set_id, "rule set id")
    if rule_set_id in PRESET_IDS:
        raise Conflict(f"{rule_set_id!r} is a shipped preset: give the club's rule set another id")
    rules = _rules_from_toml(toml_text, rule_set_id)
    at = now_iso()
    with write_tx(db):
        old = _one(db, "SELECT toml FROM rule_sets WHERE id = ?", [rule_set_id])
        db.execute(
            "INSERT INTO rule_sets (id, title, toml, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET title = excluded.title, toml = excluded.toml, "
            "updated_at = excluded.updated_at",
            [rule_set_id, rules.title, toml_text, at, at],
        )
        audit(db, actor, "rule_set.update" if old else "rule_set.create", f"rule_set:{rule_set_id}",
              details={"old_toml": old["toml"] if old else None, "toml": toml_text})
    return get_rule_set(db, rule_set_id)


@functools.lru_cache(maxsize=None)
def preset_rules(preset_id: str) -> Rules:
    """A shipped preset, loaded once (presets are packaged files; Rules are frozen)."""
    return load_rules(preset_id)


def resolve_rules(db, rule_set_id: str) -> Rules:
    """The fully resolved rules of a preset or club rule set."""
    if rule_set_id in PRESET_IDS:
        return preset_rules(rule_set_id)
    return _rules_from_toml(get_rule_set(db, rule_set_id)["toml"], rule_set_id)


# --------------------------------------------------------------------------- tables
def save_table(db, table_id: str, name: str, rule_set: str, *, actor: str = "system") -> dict:
    """Create or update a club table (its id is the ``tablectl`` table id)."""
    _check_id(table_id, "table id")
    name = _clean_name(name, "table name")
    resolve_rules(db, rule_set)
    with write_tx(db):
        old = _one(db, "SELECT * FROM club_tables WHERE id = ?", [table_id])
        db.execute(
            "INSERT INTO club_tables (id, name, rule_set, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET name = excluded.name, rule_set = excluded.rule_set",
            [table_id, name, rule_set, now_iso()],
        )
        audit(db, actor, "table.update" if old else "table.create", f"table:{table_id}",
              details={"name": name, "rule_set": rule_set,
                       "old": {"name": old["name"], "rule_set": old["rule_set"]} if old else None})
    return get_table(db, table_id)


def get_table(db, table_id: str) -> dict:
    """One club table (NotFound names the known tables)."""
    row = _one(db, "SELECT * FROM club_tables WHERE id = ?", [table_id])
    if row is None:
        known = [r["id"] for r in _rows(db, "SELECT id FROM club_tables ORDER BY id")]
        raise NotFound(f"there is no table {table_id!r}" +
                       (f": the club's tables are {', '.join(known)}" if known else ""))
    return row


def list_tables(db) -> list[dict]:
    """Every club table with the id of its live game (or None)."""
    return _rows(
        db,
        "SELECT t.*, (SELECT g.id FROM games g WHERE g.table_id = t.id AND g.status = 'live') "
        "AS live_game FROM club_tables t ORDER BY t.id",
    )


# --------------------------------------------------------------------------- games
def start_game(db, table_id: str, player_ids: list[int], *, idempotency_key: str,
               rule_set: str | None = None, actor: str = "") -> dict:
    """Start a game at a table with players in seat order (the first is the first dealer)."""
    key = _check_key(idempotency_key)
    table = get_table(db, table_id)
    existing = _one(db, "SELECT id, table_id FROM games WHERE start_key = ?", [key])
    if existing:
        return _replayed_start(db, existing, table_id)
    rule_set = rule_set or table["rule_set"]
    rules = resolve_rules(db, rule_set)
    players = _seat_players(db, player_ids, rules)
    start = {"event": "start", "players": [p["name"] for p in players]}
    engine.check([start], rules)  # the engine must accept the start before we store it
    with write_tx(db):
        try:
            cur = db.execute(
                "INSERT INTO games (table_id, rule_set, rules, players, start_key, started_at, "
                "started_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [table_id, rule_set, json.dumps(rules.to_dict(), ensure_ascii=False),
                 len(players), key, now_iso(), actor],
            )
        except sqlite3.IntegrityError:
            raise _start_conflict(db, table_id, key) from None
        game_id = cur.lastrowid
        for seat, p in enumerate(players):
            db.execute("INSERT INTO game_seats (game_id, seat, player_id) VALUES (?, ?, ?)",
                       [game_id, seat, p["id"]])
        _insert_event(db, game_id, 0, "start", start, key + ":start", actor)
    return game_view(db, game_id)


def _replayed_start(db, existing: dict, table_id: str) -> dict:
    if existing["table_id"] != table_id:
        raise Conflict("this idempotency_key was already used to start a game at another table: "
                       "generate a new key for a new game", code="idempotency_key_reused")
    return {**game_view(db, existing["id"]), "replayed": True}


def _start_conflict(db, table_id: str, key: str) -> UserError:
    if _one(db, "SELECT id FROM games WHERE start_key = ?", [key]):
        return Conflict("this game was already started by the same request",
                        code="already_recorded")
    live = _one(db, "SELECT id FROM games WHERE table_id = ? AND status = 'live'", [table_id])
    return Conflict(
        f"table {table_id} already has a game in progress (game {live['id'] if live else '?'}): "
        "finish or end it before starting another",
        code="game_in_progress",
    )


def _seat_players(db, player_ids: Any, rules: Rules) -> list[dict]:
    want = rules.table.players
    if not isinstance(player_ids, list) or len(player_ids) != want:
        raise UserError(f"the rule set {rules.name} is for {want} players: pick {want} players "
                        "in seat order, the first dealer first")
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in player_ids):
        raise UserError("players are given by their player number (an integer)")
    if len(set(player_ids)) != len(player_ids):
        raise UserError("a player cannot take two seats: pick different players")
    players = [get_player(db, pid) for pid in player_ids]
    names = [p["name"] for p in players]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise UserError(f"two seated players share the name {sorted(dup)[0]!r}: "
                        "add a distinguishing letter to one of them")
    return players


def get_game(db, game_id: int) -> dict:
    """A game's row with its seats (NotFound if there is none)."""
    game = _one(db, "SELECT * FROM games WHERE id = ?", [game_id])
    if game is None:
        raise NotFound(f"there is no game number {game_id}")
    game["rules"] = json.loads(game["rules"])
    game["seats"] = _rows(
        db,
        "SELECT s.seat, s.player_id, s.confirmed_at, p.name, p.guest FROM game_seats s "
        "JOIN players p ON p.id = s.player_id WHERE s.game_id = ? ORDER BY s.seat",
        [game_id],
    )
    return game


def current_game(db, table_id: str) -> dict | None:
    """The table's live game, else its most recent game, else None."""
    row = _one(db, "SELECT id FROM games WHERE table_id = ? "
                   "ORDER BY (status = 'live') DESC, id DESC "
                   "LIMIT 1", [table_id])
    return get_game(db, row["id"]) if row else None


def list_games(db, *, table_id: str | None = None, status: str | None = None,
               limit: int = 50) -> list[dict]:
    """Recent games, newest first, with their players' names."""
    where, args = ["1=1"], []
    if table_id:
        where.append("table_id = ?")
        args.append(table_id)
    if status:
        if status not in GAME_STATUSES:
            raise UserError(f"status must be one of {', '.join(GAME_STATUSES)}")
        where.append("status = ?")
        args.append(status)
    games = _rows(db, f"SELECT id, table_id, rule_set, players, status, started_at, finished_at "
                      f"FROM games WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT ?",
                  args + [max(1, min(int(limit), 500))])
    for g in games:
        g["names"] = [r["name"] for r in _rows(
            db, "SELECT p.name FROM game_seats s JOIN players p ON p.id = s.player_id "
                "WHERE s.game_id = ? ORDER BY s.seat", [g["id"]])]
    return games


# --------------------------------------------------------------------------- the event log
def event_log(db, game_id: int) -> list[dict]:
    """Every stored row of a game's log, markers included, in order."""
    rows = _rows(db, "SELECT * FROM hand_events WHERE game_id = ? ORDER BY seq", [game_id])
    for r in rows:
        r["event"] = json.loads(r["event"])
    return rows


def effective_events(log: list[dict]) -> list[dict]:
    """The game as it stands: originals in order, with void and replace markers applied.

    Each returned item is ``{"seq": original seq, "event": {...}}``.
    """
    order: list[int] = []
    current: dict[int, dict] = {}
    for row in log:
        if row["kind"] == "void":
            if row["target_seq"] in current:
                order.remove(row["target_seq"])
                del current[row["target_seq"]]
        elif row["kind"] == "replace":
            if row["target_seq"] in current:
                current[row["target_seq"]] = row["event"]
        else:
            order.append(row["seq"])
            current[row["seq"]] = row["event"]
    return [{"seq": s, "event": current[s]} for s in order]


def _events(db, game_id: int) -> tuple[list[dict], list[dict]]:
    log = event_log(db, game_id)
    return log, [e["event"] for e in effective_events(log)]


def _insert_event(db, game_id: int, seq: int, kind: str, event: dict, key: str, actor: str,
                  *, target_seq: int | None = None, reason: str = "",
                  request: Any = None) -> int:
    cur = db.execute(
        "INSERT INTO hand_events (game_id, seq, kind, event, target_seq, idempotency_key, "
        "request_hash, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [game_id, seq, kind, json.dumps(event, ensure_ascii=False), target_seq, key,
         _request_hash(request if request is not None else event), actor, reason, now_iso()],
    )
    return cur.lastrowid


def game_view(db, game_id: int) -> dict:
    """Everything a screen needs about a game, computed from its events by the engine."""
    game = get_game(db, game_id)
    log, events = _events(db, game_id)
    return _view(game, log, engine.replay(events, load_rules(game["rules"])))


def _view(game: dict, log: list[dict], replayed: dict) -> dict:
    effective = effective_events(log)
    view = {
        "game": {k: v for k, v in game.items() if k != "rules"},
        "rules_name": replayed.get("rules"),
        "players": len(game["seats"]),
        "next_seq": (log[-1]["seq"] + 1) if log else 0,
        "events": effective,
        "replay": {k: v for k, v in replayed.items() if k != "state"},
        "state": None,
        "can_undo": any(e["event"].get("event") != "start" for e in effective),
    }
    if game["status"] == "live" and not replayed.get("finished"):
        view["state"] = replayed.get("state")
    return view


def _check_event(event: Any) -> dict:
    if not isinstance(event, dict):
        raise UserError("the hand must be a JSON object such as "
                        '{"event": "draw", "tenpai": [0, 2]}', code="invalid_event")
    kind = event.get("event")
    if kind not in RECORDABLE:
        raise UserError(f"unknown event {kind!r}: record one of {', '.join(RECORDABLE)}",
                        code="invalid_event")
    return event


def _fill_hand_defaults(event: dict, state: dict | None, players: int) -> dict:
    """Tile-entered wins get the seat/round wind and tsumo flag from the game itself."""
    if event.get("event") != "win" or not state:
        return event
    event = json.loads(json.dumps(event))
    dealer = int(state.get("dealer", 0))
    riichi = set(event.get("riichi") or [])
    for w in event.get("winners") or []:
        hand = w.get("hand") if isinstance(w, dict) else None
        if isinstance(hand, dict) and isinstance(w.get("seat"), int):
            hand.setdefault("seat_wind", engine.seat_wind(w["seat"], dealer, players))
            hand.setdefault("round_wind", engine.round_wind(state))
            hand.setdefault("tsumo", "from" not in event)
            hand.setdefault("riichi", w["seat"] in riichi)
    return event


def _live_game(db, game_id: int) -> dict:
    game = get_game(db, game_id)
    if game["status"] != "live":
        raise Conflict(f"game {game_id} is {game['status']}: nothing more can be recorded on it",
                       code="game_not_live")
    return game


def preview_event(db, game_id: int, event: Any) -> dict:
    """What recording ``event`` would do (payments per seat), changing nothing."""
    game = _live_game(db, game_id)
    rules = load_rules(game["rules"])
    _, events = _events(db, game_id)
    event = _fill_hand_defaults(_check_event(event), engine.state_after(events, rules),
                                rules.table.players)
    return {"event": event, "preview": engine.preview(events, event, rules)}


def _replay_of_key(db, key: str, game_id: int, request: Any) -> dict | None:
    row = _one(db, "SELECT game_id, seq, request_hash FROM hand_events WHERE idempotency_key = ?",
               [key])
    if row is None:
        return None
    if row["game_id"] != game_id or row["request_hash"] != _request_hash(request):
        raise Conflict("this idempotency_key was already used for a different submission: "
                       "generate a new key for a new hand", code="idempotency_key_reused")
    return {**game_view(db, game_id), "recorded_seq": row["seq"], "replayed": True}


def _slot_taken(db, game_id: int, expected_seq: int) -> Conflict:
    row = _one(db, "SELECT seq, kind, created_at, actor FROM hand_events "
                   "WHERE game_id = ? AND seq = ?", [game_id, expected_seq])
    last = _one(db, "SELECT MAX(seq) AS m FROM hand_events WHERE game_id = ?", [game_id])["m"]
    if row:
        msg = (f"already recorded: entry {expected_seq} of this game was recorded at "
               f"{row['created_at'][11:19]} UTC (perhaps from another tablet). "
               "The screen now shows the current state; check it before entering anything again.")
    else:
        msg = (f"this screen is out of date: the game's next entry is {last + 1}, not "
               f"{expected_seq}. Reload and check the scores before entering the hand.")
    return Conflict(msg, code="already_recorded", details={"next_seq": last + 1})


def _append(db, game_id: int, *, kind: str, event: dict, expected_seq: Any, key: str,
            actor: str, request: Any, target_seq: int | None = None, reason: str = "") -> dict:
    """Insert one log row at ``expected_seq`` or explain why not. Call inside write_tx."""
    if not isinstance(expected_seq, int) or isinstance(expected_seq, bool) or expected_seq < 1:
        raise UserError("expected_seq must be the entry number this hand takes (next_seq from "
                        "the game's state), a positive integer", code="missing_expected_seq")
    last = _one(db, "SELECT MAX(seq) AS m FROM hand_events WHERE game_id = ?", [game_id])["m"]
    if expected_seq != last + 1:
        raise _slot_taken(db, game_id, expected_seq)
    try:
        _insert_event(db, game_id, expected_seq, kind, event, key, actor,
                      target_seq=target_seq, reason=reason, request=request)
    except sqlite3.IntegrityError:
        # The UNIQUE constraints are the last word if two writers got this far.
        raise _slot_taken(db, game_id, expected_seq) from None
    return {"recorded_seq": expected_seq}


def _after_append(db, game_id: int, rules: Rules) -> dict:
    """Mark a game finished when its replay says so (same transaction as the append)."""
    _, events = _events(db, game_id)
    replayed = engine.replay(events, rules)
    _set_status(db, game_id, replayed)
    return replayed


def _set_status(db, game_id: int, replayed: dict) -> str:
    status = "finished" if replayed.get("finished") else "live"
    db.execute("UPDATE games SET status = ?, finished_at = CASE WHEN ? = 'finished' THEN ? END "
               "WHERE id = ? AND status != 'void'", [status, status, now_iso(), game_id])
    stats_store.refresh_game(db, game_id)  # leaderboards follow in the same transaction
    return status


def _needs_state(event: dict) -> bool:
    return event.get("event") == "win" and any(
        isinstance(w, dict) and isinstance(w.get("hand"), dict) for w in event.get("winners") or [])


def record_event(db, game_id: int, event: Any, *, expected_seq: int, idempotency_key: str,
                 actor: str = "") -> dict:
    """Record one hand (or draw, penalty, end...) exactly once.

    A retry with the same key returns the first answer (``replayed: true``); a
    stale ``expected_seq`` (another tablet got there first) is a Conflict with
    code ``already_recorded``; an event the rules refuse is Refused (422).
    """
    key = _check_key(idempotency_key)
    request = {"event": event, "expected_seq": expected_seq}
    replayed = _replay_of_key(db, key, game_id, request)
    if replayed:
        return replayed
    game = _live_game(db, game_id)
    rules = load_rules(game["rules"])
    event = _check_event(event)
    with write_tx(db):
        again = _replay_of_key(db, key, game_id, request)
        if again:
            return again
        log = event_log(db, game_id)
        events = [e["event"] for e in effective_events(log)]
        if _needs_state(event):
            event = _fill_hand_defaults(event, engine.state_after(events, rules),
                                        rules.table.players)
        result = engine.check(events + [event], rules)  # refuses with the engine's own words
        out = _append(db, game_id, kind=event["event"], event=event, expected_seq=expected_seq,
                      key=key, actor=actor, request=request)
        game["status"] = _set_status(db, game_id, result)
    log.append({"seq": expected_seq, "kind": event["event"], "event": event, "target_seq": None})
    return {**_view(game, log, result), **out}


def undo_last(db, game_id: int, *, expected_seq: int, idempotency_key: str,
              actor: str = "") -> dict:
    """Void the last hand of a live game by appending a void marker (nothing is deleted)."""
    key = _check_key(idempotency_key)
    request = {"undo": True, "expected_seq": expected_seq}
    replayed = _replay_of_key(db, key, game_id, request)
    if replayed:
        return replayed
    game = _live_game(db, game_id)
    rules = load_rules(game["rules"])
    with write_tx(db):
        again = _replay_of_key(db, key, game_id, request)
        if again:
            return again
        current = effective_events(event_log(db, game_id))
        if len(current) <= 1:
            raise Refused("there is no hand to undo yet", code="nothing_to_undo")
        target = current[-1]
        out = _append(db, game_id, kind="void", event={"void": target["seq"]},
                      expected_seq=expected_seq, key=key, actor=actor, request=request,
                      target_seq=target["seq"], reason="undo")
        _after_append(db, game_id, rules)
    return {**game_view(db, game_id), **out, "undone": target}


def confirm_result(db, game_id: int, seat: Any, *, actor: str = "") -> dict:
    """A player confirms the final settlement sheet of a finished game."""
    game = get_game(db, game_id)
    if game["status"] != "finished":
        raise Conflict(f"game {game_id} is {game['status']}: only a finished game's result "
                       "can be confirmed", code="game_not_finished")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game["players"]:
        raise UserError(f"seat must be 0-{game['players'] - 1}")
    with write_tx(db):
        db.execute("UPDATE game_seats SET confirmed_at = COALESCE(confirmed_at, ?) "
                   "WHERE game_id = ? AND seat = ?", [now_iso(), game_id, seat])
        audit(db, actor or "tablet", "game.confirm", f"game:{game_id}", details={"seat": seat})
    return game_view(db, game_id)


# --------------------------------------------------------------------------- staff corrections
def _require_reason(reason: Any) -> str:
    if not isinstance(reason, str) or len(reason.strip()) < 3:
        raise UserError("give a reason for the correction (a few words that say why)",
                        code="reason_required")
    return reason.strip()


def _correctable(db, game_id: int) -> dict:
    game = get_game(db, game_id)
    if game["status"] == "void":
        raise Conflict(f"game {game_id} is void: it cannot be corrected", code="game_void")
    return game


def _correct(db, game_id: int, seq: int, *, kind: str, event: dict, actor: str,
             reason: str) -> dict:
    reason = _require_reason(reason)
    game = _correctable(db, game_id)
    rules = load_rules(game["rules"])
    with write_tx(db):
        log = event_log(db, game_id)
        current = {e["seq"]: e["event"] for e in effective_events(log)}
        if seq not in current or seq == 0:
            raise NotFound(f"game {game_id} has no hand at entry {seq} to correct")
        marker = {"kind": kind, "target_seq": seq, "event": event, "seq": log[-1]["seq"] + 1}
        trial = effective_events(log + [marker])
        replayed = engine.check([e["event"] for e in trial], rules)
        if game["status"] == "finished" and not replayed.get("finished"):
            raise Refused(f"after this correction game {game_id} would no longer be over: "
                          "correct the hand so the game still ends, or void the game")
        _insert_event(db, game_id, marker["seq"], kind, event,
                      f"staff:{game_id}:{marker['seq']}", actor, target_seq=seq, reason=reason)
        if game["status"] == "live":
            replayed = _after_append(db, game_id, rules)
        audit(db, actor, f"game.{kind}", f"game:{game_id}", reason,
              {"seq": seq, "old": current[seq], "new": event if kind == "replace" else None,
               "final": replayed.get("final")})
        stats_store.refresh_game(db, game_id)  # a corrected finished game re-counts
    return game_view(db, game_id)


def correct_hand(db, game_id: int, seq: int, event: Any, *, actor: str, reason: str) -> dict:
    """Staff replace the hand at entry ``seq`` with ``event`` (audited, re-replayed)."""
    return _correct(db, game_id, seq, kind="replace", event=_check_event(event),
                    actor=actor, reason=reason)


def remove_hand(db, game_id: int, seq: int, *, actor: str, reason: str) -> dict:
    """Staff strike the hand at entry ``seq`` from a game (audited, re-replayed)."""
    return _correct(db, game_id, seq, kind="void", event={"void": seq}, actor=actor, reason=reason)


def void_game(db, game_id: int, *, actor: str, reason: str) -> dict:
    """Staff void a whole game (it stays stored; rankings skip it). Audited."""
    reason = _require_reason(reason)
    game = _correctable(db, game_id)
    with write_tx(db):
        db.execute("UPDATE games SET status = 'void' WHERE id = ?", [game_id])
        stats_store.refresh_game(db, game_id)  # rankings drop it
        audit(db, actor, "game.void", f"game:{game_id}", reason,
              {"previous_status": game["status"]})
    return get_game(db, game_id)


def end_game(db, game_id: int, *, expected_seq: int, idempotency_key: str,
             actor: str = "") -> dict:
    """The players stop (time up): records an ``end`` event."""
    return record_event(db, game_id, {"event": "end"}, expected_seq=expected_seq,
                        idempotency_key=idempotency_key, actor=actor)
