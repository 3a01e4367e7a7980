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
* A game's state is always the engine's replay of its effective events
  (:mod:`web.club.gamelog` keeps the newest one per game); a new hand is one more
  event applied to that state (``engine.advance``), and the leaderboards are
  refreshed from the state it returns. ``games.status`` only says whether a
  game is live, finished or void.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tomllib
import unicodedata
from typing import Any, NotRequired, TypedDict, cast

import sqlite_utils

from web.club import clubtime, engine, events, gamelog, stats_store, text
from web.club.audit import audit
from web.db import Db, Migrations, inserted_id, now_iso, write_tx
from web.db import one as _one
from web.db import rows as _rows
from web.errors import Conflict, NotFound, Refused, UserError
from web.club.notify import outbox
from web.club.gamelog import Event, Game, HandEventRow, Played, get_game

GAME_STATUSES = ("live", "finished", "void")
HIDDEN_GAME_FIELDS = frozenset({"rules", "rules_json", "start_key", "started_by"})
"""Left out of a game's view: the rules are served per rule set; the start's idempotency
key and who started it are the log's business, not a screen's."""
MAX_NAME = 40
MAX_RULES_TOML = 64 * 1024
MAX_TOML_DEPTH = 8
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


MIGRATIONS = Migrations("games")


class PlayerRow(TypedDict):
    """A ``players`` row (:func:`get_player`); ``guest`` and ``active`` are 0 or 1.
    ``reused``: :func:`add_player` found the guest already here."""

    id: int
    name: str
    guest: int
    member_no: str | None
    active: int
    created_at: str
    reused: NotRequired[bool]


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


@MIGRATIONS
def _confirmed_by(db: sqlite_utils.Database) -> None:
    """Who confirmed each seat's settlement: ``self``, ``tablet`` or ``staff:NAME``."""
    db.execute("ALTER TABLE game_seats ADD COLUMN confirmed_by TEXT")


# --------------------------------------------------------------------------- helpers
def _check_id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not ID_RE.match(value):
        raise UserError("records.bad_id", code="invalid_field", details={"field": field},
                        field=field)
    return value


def _check_key(key: Any) -> str:
    return events.idempotency_key(key, "idempotency_key", None)


# --------------------------------------------------------------------------- players
def name_key(name: str) -> str:
    """A name as people would mistake it for another: NFKC (full-width, half-width kana),
    case-folded, without spaces or dots, katakana as hiragana (ナカムラ = なかむら)."""
    text_ = unicodedata.normalize("NFKC", str(name)).casefold()
    text_ = "".join(c for c in text_ if not c.isspace() and c not in "・.･")
    return "".join(chr(ord(c) - 0x60) if "\u30a1" <= c <= "\u30f6" else c for c in text_)


def similar_players(db: Db, name: str) -> list[PlayerRow]:
    """Players (members, guests, retired) whose name reads the same as ``name``."""
    key = name_key(name)
    return [cast(PlayerRow, p) for p in _rows(db, "SELECT * FROM players ORDER BY guest, id")
            if name_key(p["name"]) == key]


def add_player(db: Db, name: str, *, guest: bool = False, member_no: str | None = None,
               allow_similar: bool = False) -> PlayerRow:
    """Add a member (or a guest) and return it.

    A name that reads like a player's already here (NFKC, case, spaces, katakana and
    hiragana alike) is refused with the players it resembles, unless ``allow_similar``
    (staff said it is someone else). A guest named like an earlier guest who is not at a
    table now is that guest again (``reused``): walk-ins do not pile up as players."""
    name = text.clean(name, "name", MAX_NAME)
    if member_no is not None:
        member_no = text.clean(str(member_no), "member_no", MAX_NAME)
    with write_tx(db):
        if member_no and _one(db, "SELECT id FROM players WHERE member_no = ?", [member_no]):
            raise Conflict("records.member_no_used", member_no=member_no)
        alike = similar_players(db, name)
        if guest and not member_no:
            same = [p for p in alike if p["guest"] and p["active"] and p["name"] == name
                    and not _live_seat(db, p["id"])]
            if same:
                return {**same[0], "reused": True}
        if alike and not allow_similar:
            raise Conflict("records.similar_name", code="similar_name",
                           details={"field": "name", "similar": [p["id"] for p in alike]},
                           name=name, similar=_describe_players(alike))
        cur = db.execute(
            "INSERT INTO players (name, guest, member_no, created_at) VALUES (?, ?, ?, ?)",
            [name, int(bool(guest)), member_no, now_iso()],
        )
    return get_player(db, inserted_id(cur))


def _describe_players(players: list[PlayerRow]) -> str:
    """``中村（M008）、中村（ゲスト）`` in the request's language."""
    from web.i18n import t

    parts = []
    for p in players:
        if p["guest"]:
            tag = t("records.tag_guest")
        else:
            tag = p["member_no"] or f"#{p['id']}"
        if not p["active"]:
            tag += t("floor.list_sep") + t("records.tag_retired")
        parts.append(t("records.player_tag", name=p["name"], tag=tag))
    return t("floor.list_sep").join(parts)


def _live_seat(db: Db, player_id: int, but: int | None = None) -> dict | None:
    """The live game a player sits in (other than ``but``), with its table, or None."""
    return _one(db, "SELECT g.id, g.table_id FROM game_seats s JOIN games g ON g.id = s.game_id "
                    "WHERE s.player_id = ? AND g.status = 'live' AND g.id != ? LIMIT 1",
                [player_id, but or 0])


def get_player(db: Db, player_id: int) -> PlayerRow:
    """One player by id (NotFound if there is none)."""
    row = _one(db, "SELECT * FROM players WHERE id = ?", [player_id])
    if row is None:
        raise NotFound("records.no_player", player=player_id)
    return cast(PlayerRow, row)


def list_players(db: Db, *, guests: bool = False, inactive: bool = False) -> list[dict]:
    """Members by name (and guests, inactive players when asked)."""
    where = ["1=1"]
    if not guests:
        where.append("guest = 0")
    if not inactive:
        where.append("active = 1")
    return _rows(db, f"SELECT * FROM players WHERE {' AND '.join(where)} ORDER BY guest, name, id")


def set_player_active(db: Db, player_id: int, active: bool) -> PlayerRow:
    """Retire or restore a player (history keeps them)."""
    get_player(db, player_id)
    with write_tx(db):
        db.execute("UPDATE players SET active = ? WHERE id = ?", [int(bool(active)), player_id])
    return get_player(db, player_id)


# --------------------------------------------------------------------------- rule sets
def list_rule_sets(db: Db) -> list[dict]:
    """The shipped presets, then the club's own rule sets."""
    out = [{"id": p, "title": engine.preset(p).title or p, "preset": True}
           for p in engine.PRESET_IDS]
    for row in _rows(db, "SELECT id, title, updated_at FROM rule_sets ORDER BY id"):
        out.append({"id": row["id"], "title": row["title"] or row["id"], "preset": False,
                    "updated_at": row["updated_at"]})
    return out


def get_rule_set(db: Db, rule_set_id: str) -> dict:
    """A rule set with its TOML (club) and its resolved switches."""
    if rule_set_id in engine.PRESET_IDS:
        return {"id": rule_set_id, "preset": True, "toml": None,
                "rules": engine.preset(rule_set_id).to_dict()}
    row = _one(db, "SELECT * FROM rule_sets WHERE id = ?", [rule_set_id])
    if row is None:
        raise NotFound("records.no_rule_set", rule_set=rule_set_id,
                       presets=", ".join(engine.PRESET_IDS))
    return {**row, "preset": False, "rules": _rules_from_toml(row["toml"], rule_set_id).to_dict()}


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _rules_from_toml(toml_text: str, rule_set_id: str) -> engine.Rules:
    if len(toml_text) > MAX_RULES_TOML:
        raise UserError("rules.too_long", code="invalid_rules", most=MAX_RULES_TOML // 1024)
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as e:
        raise UserError("rules.not_toml", code="invalid_rules", reason=str(e)) from None
    except RecursionError:
        raise UserError("rules.too_deep", code="invalid_rules", most=MAX_TOML_DEPTH) from None
    if _depth(data) > MAX_TOML_DEPTH:
        raise UserError("rules.too_deep", code="invalid_rules", most=MAX_TOML_DEPTH)
    if "extends" not in data:
        raise UserError("rules.needs_extends", code="invalid_rules",
                        presets=", ".join(engine.PRESET_IDS))
    data.setdefault("name", rule_set_id)
    return engine.rules_from_data(data)


def save_rule_set(db: Db, rule_set_id: str, toml_text: str, *, actor: str) -> dict:
    """Create or replace a club rule set from TOML text (validated by the engine)."""
    _check_id(rule_set_id, "id")
    if rule_set_id in engine.PRESET_IDS:
        raise Conflict("records.preset_id", rule_set=rule_set_id)
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


def resolve_rules(db: Db, rule_set_id: str) -> engine.Rules:
    """The fully resolved rules of a preset or club rule set."""
    if rule_set_id in engine.PRESET_IDS:
        return engine.preset(rule_set_id)
    return _rules_from_toml(get_rule_set(db, rule_set_id)["toml"], rule_set_id)


# --------------------------------------------------------------------------- tables
def save_table(db: Db, table_id: str, name: str, rule_set: str, *, actor: str = "system") -> dict:
    """Create or update a club table (its id is the ``tablectl`` table id)."""
    _check_id(table_id, "id")
    name = text.clean(name, "name", MAX_NAME)
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


def get_table(db: Db, table_id: str) -> dict:
    """One club table (NotFound names the known tables)."""
    row = _one(db, "SELECT * FROM club_tables WHERE id = ?", [table_id])
    if row is None:
        known = [r["id"] for r in _rows(db, "SELECT id FROM club_tables ORDER BY id")]
        raise NotFound("records.no_table", table=table_id, known=", ".join(known) or "-")
    return row


def list_tables(db: Db) -> list[dict]:
    """Every club table with the id of its live game (or None)."""
    return _rows(
        db,
        "SELECT t.*, (SELECT g.id FROM games g WHERE g.table_id = t.id AND g.status = 'live') "
        "AS live_game FROM club_tables t ORDER BY t.id",
    )


# --------------------------------------------------------------------------- games
def start_game(db: Db, table_id: str, player_ids: list[int], *, idempotency_key: str,
               rule_set: str | None = None, actor: str = "") -> dict:
    """Start a game at a table with players in seat order (the first is the first dealer)."""
    key = _check_key(idempotency_key)
    table = get_table(db, table_id)
    existing = _one(db, "SELECT id, table_id FROM games WHERE start_key = ?", [key])
    if existing:
        return _replayed_start(db, existing, table_id)
    rule_set = rule_set or table["rule_set"]
    rules = resolve_rules(db, rule_set)
    if live_game_id(db, table_id) is not None:      # the table first, then who sits at it
        raise _start_conflict(db, table_id, key)
    players = _seat_players(db, player_ids, rules)
    start, state, result = engine.start([p["name"] for p in players], rules)
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
        game_id = inserted_id(cur)
        for p in players:      # again inside the write: two tables starting at once
            _check_free(db, p)
        for seat, p in enumerate(players):
            db.execute("INSERT INTO game_seats (game_id, seat, player_id) VALUES (?, ?, ?)",
                       [game_id, seat, p["id"]])
        row = _insert_event(db, game_id, 0, "start", start, key + ":start", actor)
    started = Played([row], [{"seq": 0, "event": start}], state, result)
    gamelog.remember(db, game_id, started)
    return _view(get_game(db, game_id), started)


def _replayed_start(db: Db, existing: dict, table_id: str) -> dict:
    if existing["table_id"] != table_id:
        raise Conflict("records.start_key_other_table", code="idempotency_key_reused")
    return {**game_view(db, existing["id"]), "replayed": True}


def _start_conflict(db: Db, table_id: str, key: str) -> UserError:
    if _one(db, "SELECT id FROM games WHERE start_key = ?", [key]):
        return Conflict("records.already_started", code="already_recorded")
    live = _one(db, "SELECT id FROM games WHERE table_id = ? AND status = 'live'", [table_id])
    return Conflict("records.game_in_progress", code="game_in_progress", table=table_id,
                    game=live["id"] if live else "?")


def _seat_players(db: Db, player_ids: Any, rules: engine.Rules) -> list[PlayerRow]:
    want = rules.table.players
    if not isinstance(player_ids, list) or len(player_ids) != want:
        raise Refused("records.pick_players", code="invalid_field",
                      details={"field": "players"}, rules=rules.name, n=want)
    for i, pid in enumerate(player_ids):
        events.game_id(pid, f"players[{i}]", None)  # a player id: 1 .. 2^63-1
    if len(set(player_ids)) != len(player_ids):
        raise Refused("records.player_twice", code="invalid_field", details={"field": "players"})
    players = [get_player(db, pid) for pid in player_ids]
    for p in players:
        if not p["active"]:
            raise Refused("records.player_retired", code="player_retired",
                          details={"field": "players"}, name=p["name"])
        _check_free(db, p)
    names = [p["name"] for p in players]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise Refused("records.same_name", code="invalid_field", details={"field": "players"},
                      name=sorted(dup)[0])
    return players


def _check_free(db: Db, player: PlayerRow) -> None:
    """One live seat per player: refused (naming the table) while they play elsewhere."""
    seat = _live_seat(db, player["id"])
    if seat is not None:
        raise Conflict("records.player_seated", code="player_seated",
                       details={"field": "players"}, name=player["name"],
                       table=get_table(db, seat["table_id"])["name"], game=seat["id"])


def live_game_id(db: Db, table_id: str) -> int | None:
    """The id of the table's live game (at most one: a unique index), or None."""
    row = db.conn.execute("SELECT id FROM games WHERE table_id = ? AND status = 'live'",
                          [table_id]).fetchone()
    return row[0] if row else None


def current_game(db: Db, table_id: str) -> Game | None:
    """The table's live game, else its most recent game, else None."""
    row = _one(db, "SELECT id FROM games WHERE table_id = ? "
                   "ORDER BY (status = 'live') DESC, id DESC "
                   "LIMIT 1", [table_id])
    return get_game(db, row["id"]) if row else None


def list_games(db: Db, *, table_id: str | None = None, status: str | None = None,
               limit: int = 50) -> list[dict]:
    """Recent games, newest first, with their players' names."""
    where, args = ["1=1"], []
    if table_id:
        where.append("table_id = ?")
        args.append(table_id)
    if status:
        if status not in GAME_STATUSES:
            raise UserError("field.not_choice", code="invalid_field", details={"field": "status"},
                            field="status", options=", ".join(GAME_STATUSES))
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
def _insert_event(db: Db, game_id: int, seq: int, kind: str, event: Event, key: str, actor: str,
                  *, target_seq: int | None = None, reason: str = "",
                  request: Any = None) -> HandEventRow:
    """Store one log row (through the log's owner, :mod:`gamelog`)."""
    return gamelog.append_entry(db, game_id, seq, kind, event, key, actor,
                                target_seq=target_seq, reason=reason, request=request)


def game_view(db: Db, game_id: int) -> dict:
    """Everything a screen needs about a game, computed from its events by the engine."""
    game = get_game(db, game_id)
    return _view(game, gamelog.played(db, game))


def seat_names(event: Event, names: list[str]) -> Event:
    """A start entry with its players as the game's seats name them now; any other entry
    as it is. The log keeps the names the players had when the game started (an erased
    member's among them: the log is never rewritten); screens show the seats' names."""
    if event.get("event") == "start" and len(event.get("players") or []) == len(names):
        return {**event, "players": list(names)}
    return event


def _view(game: Game, played: Played) -> dict:
    replayed = played.result
    names = [s["name"] for s in game["seats"]]
    view = {
        **_about(game, played),
        "players": len(game["seats"]),
        "next_seq": played.next_seq,
        "events": [{**e, "event": seat_names(e["event"], names)} for e in played.effective],
        "replay": {k: names if k == "players" and isinstance(v, list) and len(v) == len(names)
                   else v for k, v in replayed.items() if k != "state"},
        "state": _live_state(game, played),
        "can_undo": _can_undo(played),
    }
    return view


def _written(game: Game, played: Played, seq: int, **extra: Any) -> dict:
    """The answer to a write to a game's log: the entry stored (``recorded_seq``, and
    ``event`` as the club stores it), that entry's hand as the engine scored it, and the
    game as it now stands. ``event`` and ``hand`` are None for a marker (an undo).

    It stays the same size however long the game is: a tablet sends a hand every few
    minutes over the club's Wi-Fi, and the whole game (every event and hand) is
    :func:`game_view`, ``GET /api/games/<id>``."""
    result = played.result
    effective = played.effective
    at = next((i for i in range(len(effective) - 1, -1, -1) if effective[i]["seq"] == seq),
              None)                                   # the newest entry, unless a late retry
    # the engine numbers a game's events from 1 (the start) and tags each hand with its number
    hand = None if at is None else next(
        (h for h in reversed(result.get("hands") or []) if h["event"] == at + 1), None)
    return {
        **_about(game, played),
        "recorded_seq": seq,
        "event": None if at is None else effective[at]["event"],
        "next_seq": played.next_seq,
        "hand": hand,
        "finished": bool(result.get("finished")),
        "final": result.get("final"),
        "state": _live_state(game, played),
        "can_undo": _can_undo(played),
        **extra,
    }


def _about(game: Game, played: Played) -> dict:
    """What every answer about a game starts with: its row as a screen shows it and its
    rule set's name."""
    return {"game": {k: v for k, v in game.items() if k not in HIDDEN_GAME_FIELDS},
            "rules_name": played.result.get("rules")}


def _live_state(game: Game, played: Played) -> dict | None:
    """The engine's state of the hand being played; None once the game is over."""
    if game["status"] == "live" and not played.result.get("finished"):
        return played.result.get("state")
    return None


def _can_undo(played: Played) -> bool:
    return any(e["event"].get("event") != "start" for e in played.effective)


def _live_game(db: Db, game_id: int) -> Game:
    game = get_game(db, game_id)
    if game["status"] != "live":
        raise Conflict("records.game_not_live", code="game_not_live", game=game_id,
                       now=game["status"])
    return game


def preview_event(db: Db, game_id: int, event: Any) -> dict:
    """What recording ``event`` would do (payments per seat), changing nothing."""
    game = _live_game(db, game_id)
    event = events.check_event(event, gamelog.rules_of(game))
    _, result = engine.advance(gamelog.played(db, game).state, event)
    last = result["hands"][-1]
    return {"event": event, "preview": {
        "deltas": last["deltas"], "scores": last["scores"], "kyoutaku": last["kyoutaku"],
        "finished": result["finished"], "state": result["state"]}}


def _replay_of_key(db: Db, key: str, game_id: int, request: Any) -> dict | None:
    row = gamelog.entry_of_key(db, key)
    if row is None:
        return None
    if row["game_id"] != game_id or row["request_hash"] != gamelog.request_text(request):
        raise Conflict("records.key_reused", code="idempotency_key_reused")
    game = get_game(db, game_id)
    return _written(game, gamelog.played(db, game), row["seq"], replayed=True)


def _slot_taken(db: Db, game_id: int, expected_seq: int) -> Conflict:
    row = gamelog.entry_at(db, game_id, expected_seq)
    last = gamelog.last_seq(db, game_id)
    if row:
        return Conflict("records.already_recorded", code="already_recorded",
                        details={"next_seq": last + 1}, seq=expected_seq,
                        at=clubtime.club_clock(db, row["created_at"]))
    return Conflict("records.out_of_date", code="already_recorded",
                    details={"next_seq": last + 1}, seq=expected_seq, next=last + 1)


def _append(db: Db, game_id: int, played: Played, *, kind: str, event: Event, expected_seq: Any,
            key: str, actor: str, request: Any, target_seq: int | None = None,
            reason: str = "") -> HandEventRow:
    """Insert one log row at ``expected_seq`` or explain why not. Call inside write_tx."""
    expected_seq = events.expected_seq(expected_seq, "expected_seq", None)
    if expected_seq != played.next_seq:
        raise _slot_taken(db, game_id, expected_seq)
    try:
        return _insert_event(db, game_id, expected_seq, kind, event, key, actor,
                             target_seq=target_seq, reason=reason, request=request)
    except sqlite3.IntegrityError:
        # The UNIQUE constraints are the last word if two writers got this far.
        raise _slot_taken(db, game_id, expected_seq) from None


def _status_of(played: Played) -> str:
    """The status the engine's result gives a game: void when it ended before any hand
    (nothing to settle), finished, or live."""
    if played.result.get("void"):
        return "void"
    return "finished" if played.result.get("finished") else "live"


def _settle_status(db: Db, game: Game, played: Played) -> None:
    """Mark the game finished (or void, ended with no hand) when the engine says so, and
    bring the leaderboards in step from the engine's result (same transaction as the
    change). Updates ``game``."""
    was = game["status"]
    if was == "void":
        return
    status = _status_of(played)
    if status != was:
        game["finished_at"] = None if status == "live" else now_iso()
        db.execute("UPDATE games SET status = ?, finished_at = ? WHERE id = ?",
                   [status, game["finished_at"], game["id"]])
        game["status"] = status
        if status == "finished":
            outbox.game_finished(db, game["id"])
    if status == "finished" or was == "finished":
        stats_store.refresh_game(db, game, played)


def record_event(db: Db, game_id: int, event: Any, *, expected_seq: int, idempotency_key: str,
                 actor: str = "") -> dict:
    """Record one hand (or draw, penalty, end...) exactly once.

    A retry with the same key returns the first answer (``replayed: true``); a
    stale ``expected_seq`` (another tablet got there first) is a Conflict with
    code ``already_recorded``; an event the schema or the rules refuse is Refused (422).
    """
    key = _check_key(idempotency_key)
    request = {"event": event, "expected_seq": expected_seq}
    replayed = _replay_of_key(db, key, game_id, request)
    if replayed:
        return replayed
    game = _live_game(db, game_id)
    event = events.check_event(event, gamelog.rules_of(game))
    with write_tx(db):
        again = _replay_of_key(db, key, game_id, request)
        if again:
            return again
        before = gamelog.played(db, game)
        state, result = engine.advance(before.state, event)
        row = _append(db, game_id, before, kind=event["event"], event=event,
                      expected_seq=expected_seq, key=key, actor=actor, request=request)
        now = before.after(row, [*before.effective, {"seq": row["seq"], "event": event}],
                           state, result)
        _settle_status(db, game, now)
    gamelog.remember(db, game_id, now)
    return _written(game, now, row["seq"])


def undo_last(db: Db, game_id: int, *, expected_seq: int, idempotency_key: str,
              actor: str = "") -> dict:
    """Void the last hand of a live game by appending a void marker (nothing is deleted)."""
    key = _check_key(idempotency_key)
    request = {"undo": True, "expected_seq": expected_seq}
    replayed = _replay_of_key(db, key, game_id, request)
    if replayed:
        return replayed
    game = _live_game(db, game_id)
    with write_tx(db):
        again = _replay_of_key(db, key, game_id, request)
        if again:
            return again
        before = gamelog.played(db, game)
        if len(before.effective) <= 1:
            raise Refused("records.nothing_to_undo", code="nothing_to_undo")
        target = before.effective[-1]
        row = _append(db, game_id, before, kind="void", event={"void": target["seq"]},
                      expected_seq=expected_seq, key=key, actor=actor, request=request,
                      target_seq=target["seq"], reason="undo")
        now = gamelog.replay_log(game, [*before.log, row])
        _settle_status(db, game, now)
    gamelog.remember(db, game_id, now)
    return _written(game, now, row["seq"], undone=target)


def confirm_result(db: Db, game_id: int, seat: Any, *, actor: str = "",
                   member_no: Any = None) -> dict:
    """A player confirms the final settlement sheet of a finished game, or staff confirm
    it for a named player.

    At a tablet each player confirms for themself: a member gives their own member
    number (one tablet cannot confirm for four members); a player without one (a guest)
    confirms at the tablet. Staff (``actor`` ``staff:NAME``) confirm for anyone. Who
    confirmed for whom is kept with the seat (``confirmed_by``) and in the audit log."""
    game = get_game(db, game_id)
    if game["status"] != "finished":
        raise Conflict("records.not_finished", code="game_not_finished", game=game_id,
                       now=game["status"])
    seat = events.whole(0, game["players"] - 1)(seat, "seat", None)
    player = get_player(db, game["seats"][seat]["player_id"])
    by = _confirmer(actor, player, member_no)
    with write_tx(db):
        cur = db.execute("UPDATE game_seats SET confirmed_at = ?, confirmed_by = ? "
                         "WHERE game_id = ? AND seat = ? AND confirmed_at IS NULL",
                         [now_iso(), by, game_id, seat])
        if cur.rowcount:
            audit(db, actor or "tablet", "game.confirm", f"game:{game_id}",
                  details={"seat": seat, "player": player["name"], "by": by})
    return game_view(db, game_id)


def _confirmer(actor: str, player: PlayerRow, member_no: Any) -> str:
    """Who confirms: ``staff:NAME`` for the player, ``self`` (the member's own number),
    or ``tablet`` (a player without a member number, at the table)."""
    if actor.startswith("staff:"):
        return actor
    if not player.get("member_no"):
        return "tablet"
    given = text.clean(str(member_no), "member_no", MAX_NAME) if member_no else ""
    if given.casefold() != str(player["member_no"]).casefold():
        # a number that is not theirs is said to be wrong, not asked for again
        raise Refused("records.confirm_wrong_member_no" if given
                      else "records.confirm_needs_member_no", code="confirm_needs_member_no",
                      details={"field": "member_no"}, name=player["name"])
    return "self"


# --------------------------------------------------------------------------- staff corrections
CORRECTIONS = {"replace": "hand.correct", "void": "hand.remove", "restore": "hand.restore"}
"""A correction marker's kind in the log -> its action in the audit log."""


def _require_reason(reason: Any) -> str:
    if not isinstance(reason, str) or len(reason.strip()) < 3:
        raise UserError("records.reason_required", code="reason_required")
    return text.clean(reason, "reason", 500)


def _correctable(db: Db, game_id: int) -> Game:
    game = get_game(db, game_id)
    if game["status"] == "void":
        raise Conflict("records.game_void", code="game_void", game=game_id)
    return game


def standing(game: Game, played: Played) -> dict:
    """A game's scores as they stand (final when it is over): what a correction changes."""
    result = played.result
    final = result.get("final") or {}
    hands = result.get("hands") or []
    scores = final.get("scores") or (result.get("state") or {}).get("scores") \
        or (hands[-1]["scores"] if hands else None)
    return {"names": [s["name"] for s in game["seats"]], "scores": scores,
            "result": final.get("result"), "ranks": final.get("ranks"),
            "finished": bool(result.get("finished")), "hands": len(hands)}


def removed_entries(played: Played) -> list[gamelog.Effective]:
    """Entries struck from a game (by undo or staff) that can be restored, as they last
    stood: ``{"seq", "event"}``, in entry order."""
    kept = {e["seq"] for e in played.effective}
    gone = [r["seq"] for r in played.log
            if r["kind"] not in CORRECTIONS and r["seq"] not in kept]
    back = [{"kind": "restore", "target_seq": seq} for seq in gone]
    return [e for e in gamelog.effective_events([*played.log, *back]) if e["seq"] in gone]


def _trial(db: Db, game: Game, seq: int, kind: str,
           event: Event | None) -> tuple[Played, dict[str, Any], Played]:
    """The log with one more correction marker, replayed (nothing stored): the game before,
    the marker, the game after. Refused in words if the game cannot be replayed so."""
    before = gamelog.played(db, game)
    current = {e["seq"]: e["event"] for e in before.effective}
    if kind == "restore":
        if seq not in {e["seq"] for e in removed_entries(before)}:
            raise NotFound("records.not_removed", game=game["id"], seq=seq)
        marker: Event | None = {"restore": seq}
    else:
        if seq not in current or seq == 0:
            raise NotFound("records.no_entry", game=game["id"], seq=seq)
        marker = event if kind == "replace" else {"void": seq}
    trial: dict[str, Any] = dict(kind=kind, target_seq=seq, event=marker, seq=before.next_seq,
                                 idempotency_key=f"staff:{game['id']}:{before.next_seq}")
    after = gamelog.replay_log(game, [*before.log, trial])
    if game["status"] == "finished" and not after.result.get("finished"):
        raise Refused("records.would_reopen", game=game["id"])
    if game["status"] == "finished" and after.result.get("void"):
        raise Refused("records.would_void", game=game["id"])
    return before, trial, after


def preview_correction(db: Db, game_id: int, seq: int, *, kind: str,
                       event: Any = None) -> dict:
    """What a correction (``replace`` with ``event``, ``void`` or ``restore``) would make
    of the whole game, changing nothing: its standing before and after, and the entry."""
    if kind not in CORRECTIONS:
        raise UserError("field.not_choice", code="invalid_field", details={"field": "kind"},
                        field="kind", options=", ".join(CORRECTIONS))
    game = _correctable(db, game_id)
    if kind == "replace":
        event = events.check_event(event, gamelog.rules_of(game))
    before, trial, after = _trial(db, game, seq, kind, event)
    old = {e["seq"]: e["event"] for e in [*before.effective, *removed_entries(before)]}
    return {"kind": kind, "seq": seq, "old": old.get(seq), "new": event,
            "before": standing(game, before), "after": standing(game, after)}


def _seat_result(std: dict, seat: int) -> tuple[Any, ...]:
    """What a player confirms of a seat: its score, rank and result."""
    return tuple((std.get(k) or [None] * (seat + 1))[seat] for k in ("scores", "ranks", "result"))


def _ask_again(db: Db, game_id: int, seats: list[int]) -> list[int]:
    """Take back the confirmation of ``seats`` (their result changed: what the player
    confirmed is no longer the result), so each confirms again; seats left alone keep
    theirs. Returns the seats that had confirmed and now must again."""
    if not seats:
        return []
    marks = ", ".join("?" * len(seats))
    had = [r["seat"] for r in _rows(db, f"SELECT seat FROM game_seats WHERE game_id = ? AND "
                                        f"seat IN ({marks}) AND confirmed_at IS NOT NULL",
                                    [game_id, *seats])]
    db.execute(f"UPDATE game_seats SET confirmed_at = NULL, confirmed_by = NULL "
               f"WHERE game_id = ? AND seat IN ({marks})", [game_id, *seats])
    return sorted(had)


def _correct(db: Db, game_id: int, seq: int, *, kind: str, event: Event | None, actor: str,
             reason: str) -> dict:
    reason = _require_reason(reason)
    game = _correctable(db, game_id)
    if event is not None:
        event = events.check_event(event, gamelog.rules_of(game))
    with write_tx(db):
        before, trial, now = _trial(db, game, seq, kind, event)
        old = {e["seq"]: e["event"] for e in [*before.effective, *removed_entries(before)]}
        row = _insert_event(db, game_id, trial["seq"], kind, trial["event"],
                            trial["idempotency_key"], actor, target_seq=seq, reason=reason)
        now = Played([*before.log, row], now.effective, now.state, now.result)
        was, became = standing(game, before), standing(game, now)
        seats = range(len(game["seats"]))
        again = _ask_again(db, game_id, [s for s in seats if _seat_result(was, s)
                                         != _seat_result(became, s)])
        audit(db, actor, CORRECTIONS[kind], f"game:{game_id}", reason,
              {"seq": seq, "old": old.get(seq), "new": event if kind == "replace" else None,
               "before": was, "after": became, "unconfirmed": again})
        _settle_status(db, game, now)
    gamelog.remember(db, game_id, now)
    return game_view(db, game_id)


def correct_hand(db: Db, game_id: int, seq: int, event: Any, *, actor: str, reason: str) -> dict:
    """Staff replace the hand at entry ``seq`` with ``event`` (audited, re-replayed)."""
    return _correct(db, game_id, seq, kind="replace", event=event, actor=actor, reason=reason)


def remove_hand(db: Db, game_id: int, seq: int, *, actor: str, reason: str) -> dict:
    """Staff strike the hand at entry ``seq`` from a game (audited, re-replayed)."""
    return _correct(db, game_id, seq, kind="void", event=None, actor=actor, reason=reason)


def restore_hand(db: Db, game_id: int, seq: int, *, actor: str, reason: str) -> dict:
    """Staff put back a hand struck from a game (by undo or staff), where it was and as it
    last stood (audited, re-replayed; refused if the game no longer replays with it)."""
    return _correct(db, game_id, seq, kind="restore", event=None, actor=actor, reason=reason)


SEAT_FIELDS = ("from", "seat", "to", "pao")
SEAT_LISTS = ("riichi", "tenpai", "nagashi")


def _swapped(event: Event, a: int, b: int) -> Event:
    """``event`` with seats ``a`` and ``b`` exchanged wherever it names a seat."""
    def one_seat(s: Any) -> Any:
        return b if s == a else a if s == b else s

    out = dict(event)
    for k in SEAT_FIELDS:
        if isinstance(out.get(k), int):
            out[k] = one_seat(out[k])
    for k in SEAT_LISTS:
        if isinstance(out.get(k), list):
            out[k] = [one_seat(x) for x in out[k]]
    if isinstance(out.get("winners"), list):
        out["winners"] = [_swapped(w, a, b) for w in out["winners"]]
    if isinstance(out.get("players"), list) and out.get("event") == "start":
        names = list(out["players"])
        names[a], names[b] = names[b], names[a]
        out["players"] = names
    return out


def swap_seats(db: Db, game_id: int, a: Any, b: Any, *, actor: str, reason: str) -> dict:
    """Staff swap two players' seats in a game (they sat the other way round): each hand
    stays with the players it was recorded for, at their true seats, and the replay
    prices every hand again (dealer, winds, uma). Appended as replace markers, one per
    entry that names either seat; audited with the names and scores before and after."""
    reason = _require_reason(reason)
    game = _correctable(db, game_id)
    check = events.whole(0, game["players"] - 1)
    a, b = check(a, "a", None), check(b, "b", None)
    if a == b:
        raise Refused("records.swap_same_seat", code="invalid_field", details={"field": "b"})
    with write_tx(db):
        before = gamelog.played(db, game)
        log: list[gamelog.LogEntry] = list(before.log)
        markers: list[dict[str, Any]] = []
        for e in before.effective:
            new = _swapped(e["event"], a, b)
            if new != e["event"]:
                seq = log[-1]["seq"] + 1
                marker = dict(kind="replace", target_seq=e["seq"], event=new, seq=seq,
                              idempotency_key=f"staff:{game_id}:{seq}")
                log.append(marker)
                markers.append(marker)
        after = gamelog.replay_log(game, log)
        if game["status"] == "finished" and not after.result.get("finished"):
            raise Refused("records.would_reopen", game=game_id)
        stored = [_insert_event(db, game_id, m["seq"], "replace", m["event"],
                                m["idempotency_key"], actor, target_seq=m["target_seq"],
                                reason=reason) for m in markers]
        seats = {s["seat"]: s for s in game["seats"]}
        rows_ = {r["seat"]: r for r in _rows(db, "SELECT * FROM game_seats WHERE game_id = ? "
                                                 "AND seat IN (?, ?)", [game_id, a, b])}
        db.execute("DELETE FROM game_seats WHERE game_id = ? AND seat IN (?, ?)",
                   [game_id, a, b])
        for seat, other in ((a, b), (b, a)):
            db.execute("INSERT INTO game_seats (game_id, seat, player_id, confirmed_at, "
                       "confirmed_by) VALUES (?, ?, ?, ?, ?)",
                       [game_id, seat, rows_[other]["player_id"], rows_[other]["confirmed_at"],
                        rows_[other]["confirmed_by"]])
        now = Played([*before.log, *stored], after.effective, after.state, after.result)
        game = get_game(db, game_id)
        was, became = standing({**game, "seats": list(seats.values())}, before), \
            standing(game, now)
        moved = {a: b, b: a}                        # where each seat's player was before
        again = _ask_again(db, game_id, [s for s in range(len(game["seats"])) if _seat_result(
            was, moved.get(s, s)) != _seat_result(became, s)])
        audit(db, actor, "game.seat_swap", f"game:{game_id}", reason,
              {"seats": [a, b], "before_names": [s["name"] for s in seats.values()],
               "after_names": [s["name"] for s in game["seats"]],
               "before": was, "after": became, "unconfirmed": again})
        _settle_status(db, game, now)
    gamelog.remember(db, game_id, now)
    return game_view(db, game_id)


def void_game(db: Db, game_id: int, *, actor: str, reason: str) -> Game:
    """Staff void a whole game (it stays stored; rankings skip it). Audited."""
    reason = _require_reason(reason)
    game = _correctable(db, game_id)
    previous = game["status"]
    with write_tx(db):
        db.execute("UPDATE games SET status = 'void' WHERE id = ?", [game_id])
        game["status"] = "void"
        stats_store.refresh_game(db, game, None)  # rankings drop it
        audit(db, actor, "game.void", f"game:{game_id}", reason,
              {"previous_status": previous})
    return get_game(db, game_id)


def unvoid_game(db: Db, game_id: int, *, actor: str, reason: str) -> Game:
    """Staff take back a void: the game is live or finished again as its events say (and
    back in the rankings). Refused while its table has another game in progress."""
    reason = _require_reason(reason)
    game = get_game(db, game_id)
    if game["status"] != "void":
        raise Conflict("records.not_void", code="not_void", game=game_id, now=game["status"])
    played = gamelog.played(db, game)
    status = _status_of(played)
    if status == "void":
        raise Conflict("records.unvoid_no_hands", code="no_hands", game=game_id)
    with write_tx(db):
        try:
            db.execute("UPDATE games SET status = ?, finished_at = CASE WHEN ? = 'finished' "
                       "THEN COALESCE(finished_at, ?) ELSE finished_at END WHERE id = ?",
                       [status, status, now_iso(), game_id])
        except sqlite3.IntegrityError:
            live = live_game_id(db, game["table_id"])
            raise Conflict("records.unvoid_table_busy", code="game_in_progress", game=game_id,
                           table=game["table_id"], other=live or "?") from None
        game = get_game(db, game_id)
        if status == "finished":
            stats_store.refresh_game(db, game, played)
        audit(db, actor, "game.unvoid", f"game:{game_id}", reason,
              {"previous_status": "void", "status": status})
    return game


def end_game(db: Db, game_id: int, *, expected_seq: int, idempotency_key: str,
             actor: str = "") -> dict:
    """The players stop (time up): records an ``end`` event."""
    return record_event(db, game_id, {"event": "end"}, expected_seq=expected_seq,
                        idempotency_key=idempotency_key, actor=actor)
