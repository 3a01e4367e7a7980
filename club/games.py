"""A club's games: starting one, recording its hands, undoing, confirming the result.

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
  (:mod:`club.gamelog` keeps the newest one per game); a new hand is one more
  event applied to that state (``engine.advance``), and the leaderboards are
  refreshed from the state it returns. ``games.status`` only says whether a
  game is live, finished or void.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Callable

import sqlite_utils

from club import clubtime, engine, events, gamelog, stats_store, text
from club.audit import audit
from club.club_tables import get_table, repair_stored_names, resolve_rules
from club.db import Db, Migrations, inserted_id, now_iso, write_tx
from club.db import one as _one
from club.db import rows as _rows
from club.errors import Conflict, Refused, UserError
from club.gamelog import Event, Game, HandEventRow, Played, get_game
from club.notify import outbox
from club.roster import MAX_NAME, PlayerRow, get_player, live_seat

GAME_STATUSES = ("live", "finished", "void")
HIDDEN_GAME_FIELDS = frozenset({"rules", "rules_json", "start_key", "started_by"})
"""Left out of a game's view: the rules are served per rule set; the start's idempotency
key and who started it are the log's business, not a screen's."""


MIGRATIONS = Migrations("games")
"""The core tables (players, rule sets, club tables, games, seats and the hand log) are
one set, ``games``: they are created together and a club file names the set so."""


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


@MIGRATIONS
def _rule_set_names_printable(db: sqlite_utils.Database) -> None:
    """Rule sets and games kept before names were checked lose any control character in
    their name and title (they reached the printer as commands)."""

    repair_stored_names(db)


# --------------------------------------------------------------------------- helpers
def _check_key(key: Any) -> str:
    return events.idempotency_key(key, "idempotency_key", None)


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
    seat = live_seat(db, player["id"])
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
        "finished": result["finished"], "state": result["state"],
        "final": _final_shown(result, game) if result["finished"] else None}}


def _final_shown(result: dict, game: Game) -> dict | None:
    """The settlement an end would make, each result also as the club reads it (+45.0)."""
    final = result.get("final")
    if not final or not final.get("result"):
        return None
    family = engine.rule_family(game["rules"])
    return {**final, "shown": [engine.shown_figure("best", r, family) for r in final["result"]]}


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


def status_of(played: Played) -> str:
    """The status the engine's result gives a game: void when it ended before any hand
    (nothing to settle), finished, or live."""
    if played.result.get("void"):
        return "void"
    return "finished" if played.result.get("finished") else "live"


def settle_status(db: Db, game: Game, played: Played) -> None:
    """Mark the game finished (or void, ended with no hand) when the engine says so, and
    bring the leaderboards in step from the engine's result (same transaction as the
    change). Updates ``game``."""
    was = game["status"]
    if was == "void":
        return
    status = status_of(played)
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

    def write(game: Game, before: Played) -> tuple[Played, HandEventRow, dict]:
        checked = events.check_event(event, gamelog.rules_of(game))
        state, result = engine.advance(before.state, checked)
        row = _append(db, game_id, before, kind=checked["event"], event=checked,
                      expected_seq=expected_seq, key=key, actor=actor, request=request)
        return (before.after(row, [*before.effective, {"seq": row["seq"], "event": checked}],
                             state, result), row, {})

    return _once(db, game_id, key, request, write)


def undo_last(db: Db, game_id: int, *, expected_seq: int, idempotency_key: str,
              actor: str = "") -> dict:
    """Void the last hand of a live game by appending a void marker (nothing is deleted)."""
    key = _check_key(idempotency_key)
    request = {"undo": True, "expected_seq": expected_seq}

    def write(game: Game, before: Played) -> tuple[Played, HandEventRow, dict]:
        if len(before.effective) <= 1:
            raise Refused("records.nothing_to_undo", code="nothing_to_undo")
        target = before.effective[-1]
        row = _append(db, game_id, before, kind="void", event={"void": target["seq"]},
                      expected_seq=expected_seq, key=key, actor=actor, request=request,
                      target_seq=target["seq"], reason="undo")
        return gamelog.replay_log(game, [*before.log, row]), row, {"undone": target}

    return _once(db, game_id, key, request, write)


def _once(db: Db, game_id: int, key: str, request: dict,
          write: Callable[[Game, Played], tuple[Played, HandEventRow, dict]]) -> dict:
    """A write to a live game that a retry answers the same: the first answer of ``key``
    when it already wrote (asked again inside the transaction, where no other writer can
    come between), else ``write(game, the game so far)`` in one transaction, which gives
    the game after it, the row it wrote and what else the answer says."""
    replayed = _replay_of_key(db, key, game_id, request)
    if replayed:
        return replayed
    game = _live_game(db, game_id)
    with write_tx(db):
        again = _replay_of_key(db, key, game_id, request)
        if again:
            return again
        now, row, extra = write(game, gamelog.played(db, game))
        settle_status(db, game, now)
    gamelog.remember(db, game_id, now)
    return _written(game, now, row["seq"], **extra)


def void_by_key(db: Db, game_id: int, *, target_key: str, idempotency_key: str,
                actor: str = "") -> dict:
    """Void the entry an idempotency key wrote, whether or not it ever arrived.

    A tablet that sent a hand and never heard back does not know if the hand is stored;
    its undo names the hand's key instead of an entry number. The entry is voided by a
    marker as an undo is (it must be the game's last); a key that wrote nothing is taken
    by a tombstone, a void marker that strikes nothing, so the hand is refused if it still
    arrives later. Either takes the next entry number, chosen here: the answer's
    ``next_seq`` is where the tablet's later entries go. ``voided`` says whether a stored
    entry was struck, ``undone`` which. Retries answer the same (``replayed: true``)."""
    key = _check_key(idempotency_key)
    target_key = events.idempotency_key(target_key, "target_key", None)
    if key == target_key:
        raise Refused("records.void_own_key", code="void_own_key")
    request = {"void_key": target_key}
    replayed = _replay_of_key(db, key, game_id, request) or _tombstone_of(db, game_id,
                                                                          target_key)
    if replayed:
        return replayed
    game = _live_game(db, game_id)
    with write_tx(db):
        again = _replay_of_key(db, key, game_id, request) or _tombstone_of(db, game_id,
                                                                           target_key)
        if again:
            return again
        before = gamelog.played(db, game)
        target = gamelog.entry_of_key(db, target_key)
        if target is None:
            row = _insert_event(db, game_id, before.next_seq, "void", request, target_key,
                                actor, reason="undo", request=request)
            now = gamelog.replay_log(game, [*before.log, row])
            settle_status(db, game, now)
            undone = None
        else:
            if target["game_id"] != game_id:
                raise Conflict("records.void_key_other_game", code="void_key_other_game")
            struck = [e for e in before.effective if e["seq"] == target["seq"]]
            if not struck:   # already voided (by another tablet or staff): nothing to do
                return _written(game, before, target["seq"], voided=False, undone=None)
            if before.effective[-1]["seq"] != target["seq"]:
                raise Conflict("records.void_key_not_last", code="void_key_not_last",
                               details={"next_seq": before.next_seq})
            row = _insert_event(db, game_id, before.next_seq, "void", {"void": target["seq"]},
                                key, actor, target_seq=target["seq"], reason="undo",
                                request=request)
            now = gamelog.replay_log(game, [*before.log, row])
            settle_status(db, game, now)
            undone = struck[0]
    gamelog.remember(db, game_id, now)
    return _written(game, now, row["seq"], voided=undone is not None, undone=undone)


def _tombstone_of(db: Db, game_id: int, target_key: str) -> dict | None:
    """The answer of a void that found nothing under ``target_key``, if one was stored."""
    row = gamelog.entry_of_key(db, target_key)
    if row is None or row["request_hash"] != gamelog.request_text({"void_key": target_key}):
        return None
    if row["game_id"] != game_id:
        raise Conflict("records.void_key_other_game", code="void_key_other_game")
    game = get_game(db, game_id)
    return _written(game, gamelog.played(db, game), row["seq"], replayed=True, voided=False,
                    undone=None)


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



def end_game(db: Db, game_id: int, *, expected_seq: int, idempotency_key: str,
             actor: str = "") -> dict:
    """The players stop (time up): records an ``end`` event."""
    return record_event(db, game_id, {"event": "end"}, expected_seq=expected_seq,
                        idempotency_key=idempotency_key, actor=actor)
