"""A stored game as it stands: its row, its event log and the engine's state of it.

The log (``hand_events``) only grows and its rows never change, so the state
after a game's last row is fixed by that row. :func:`played` replays a game
once and keeps the result in a small per-process memo keyed by the game's
last row (its entry number and idempotency key); a writer that appends a row
hands the engine's new state to :func:`remember`, so the next hand at that
table starts from it instead of replaying the game again. A row appended by
another process changes the key, so a stale entry is never used as it is: the
process reads the rows it has not seen and advances the engine through them (a
marker among them, an undo or a correction, takes a whole replay).
"""

from __future__ import annotations

import bisect
import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from club import engine
from club.db import Db, inserted_id, now_iso
from club.db import one as _one
from club.db import rows as _rows
from club.errors import NotFound, Refused

MEMO_GAMES = 256
"""Games whose state a process keeps (a club has a few dozen tables)."""

Event = dict[str, Any]
"""One event of the game-events format (``docs/contracts/game-events.md``)."""


class SeatRow(TypedDict):
    """A seat of a game as :func:`get_game` lists it (``game_seats`` with the player)."""

    seat: int
    player_id: int
    confirmed_at: str | None
    name: str
    guest: int


class Game(TypedDict):
    """A ``games`` row as :func:`get_game` gives it: ``rules`` parsed, the stored text in
    ``rules_json``, and the seats in order."""

    id: int
    table_id: str
    rule_set: str
    rules: dict[str, Any]
    rules_json: str
    players: int
    status: str
    start_key: str
    started_at: str
    finished_at: str | None
    started_by: str
    seats: list[SeatRow]


class HandEventRow(TypedDict):
    """A ``hand_events`` row with its ``event`` parsed (see :func:`event_log`)."""

    id: int
    game_id: int
    seq: int
    kind: str
    event: Event
    target_seq: int | None
    idempotency_key: str
    request_hash: str
    actor: str
    reason: str
    created_at: str


LogEntry = Mapping[str, Any]
"""A row of a game's log as a replay reads it (``kind``, ``seq``, ``target_seq``, ``event``):
a stored :class:`HandEventRow`, or a marker tried before it is stored."""


class Effective(TypedDict):
    """An entry of the game as it stands: its original ``seq`` and its event now."""

    seq: int
    event: Event


@dataclass(frozen=True)
class Played:
    """A game's log and what the engine makes of it. Treat every field as read-only."""

    log: Sequence[LogEntry]
    """Every stored row, markers included, in entry order."""
    effective: list[Effective]
    """The game as it stands: ``{"seq", "event"}`` with void/replace markers applied."""
    state: engine.GameState
    result: dict[str, Any]
    """The replay output (``hands``, ``finished``, ``final``, ``state``)."""

    @property
    def events(self) -> list[Event]:
        return [e["event"] for e in self.effective]

    @property
    def next_seq(self) -> int:
        return self.log[-1]["seq"] + 1 if self.log else 0

    @property
    def tip(self) -> tuple[int, str] | None:
        last = self.log[-1] if self.log else None
        return (last["seq"], last["idempotency_key"]) if last else None

    def after(self, row: LogEntry, effective: list[Effective], state: engine.GameState,
              result: dict[str, Any]) -> "Played":
        """This game with one more stored row and the engine's state after it."""
        return Played([*self.log, row], effective, state, result)


@functools.lru_cache(maxsize=64)
def _rules_dict(text: str) -> dict[str, Any]:
    rules: dict[str, Any] = json.loads(text)
    return rules


def get_game(db: Db, game_id: int) -> Game:
    """A game's row with its rules (a dict; read it, never change it: it is shared by every
    game of the same rule set), its seats, and ``rules_json`` (the stored text).
    NotFound if there is none."""
    rows = _rows(db, "SELECT * FROM games WHERE id = ?", [game_id])
    if not rows:
        raise NotFound("records.no_game", game=game_id)
    row = rows[0]
    seats = _rows(
        db,
        "SELECT s.seat, s.player_id, s.confirmed_at, p.name, p.guest FROM game_seats s "
        "JOIN players p ON p.id = s.player_id WHERE s.game_id = ? ORDER BY s.seat",
        [game_id],
    )
    # the columns are the schema's: tests/web/test_typed_rows.py holds Game to them
    return cast(Game, {**row, "rules_json": row["rules"], "rules": _rules_dict(row["rules"]),
                       "seats": seats})


def event_log(db: Db, game_id: int, *, from_seq: int = 0) -> list[HandEventRow]:
    """Every stored row of a game's log (from entry ``from_seq`` on), markers included,
    in order."""
    rows = _rows(db, "SELECT * FROM hand_events WHERE game_id = ? AND seq >= ? ORDER BY seq",
                 [game_id, from_seq])
    for r in rows:
        r["event"] = json.loads(r["event"])
    return cast(list[HandEventRow], rows)  # held to the schema as Game is


def request_text(payload: Any) -> str:
    """The request a log row was written for, as stored (``request_hash``): a retry with
    the same key must send the same request."""
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def append_entry(db: Db, game_id: int, seq: int, kind: str, event: Event, key: str, actor: str,
                 *, target_seq: int | None = None, reason: str = "",
                 request: Any = None) -> HandEventRow:
    """Append one row to a game's log (call inside ``write_tx``); returns it as
    :func:`event_log` would read it. The UNIQUE (game, seq) and key constraints are the
    last word when two writers get this far."""
    request_hash = request_text(request if request is not None else event)
    created_at = now_iso()
    cur = db.execute(
        "INSERT INTO hand_events (game_id, seq, kind, event, target_seq, idempotency_key, "
        "request_hash, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [game_id, seq, kind, json.dumps(event, ensure_ascii=False), target_seq, key,
         request_hash, actor, reason, created_at],
    )
    return {"id": inserted_id(cur), "game_id": game_id, "seq": seq, "kind": kind,
            "event": event, "target_seq": target_seq, "idempotency_key": key,
            "request_hash": request_hash, "actor": actor, "reason": reason,
            "created_at": created_at}


def entry_of_key(db: Db, key: str) -> dict[str, Any] | None:
    """The log row an idempotency key wrote (its game, entry and request), if any."""
    return _one(db, "SELECT game_id, seq, request_hash FROM hand_events "
                    "WHERE idempotency_key = ?", [key])


def entry_at(db: Db, game_id: int, seq: int) -> dict[str, Any] | None:
    """Who wrote a game's entry ``seq`` and when, if it exists."""
    return _one(db, "SELECT seq, kind, created_at, actor FROM hand_events "
                    "WHERE game_id = ? AND seq = ?", [game_id, seq])


def last_seq(db: Db, game_id: int) -> int:
    """A game's newest entry number (-1 for a game with no log)."""
    top = _one(db, "SELECT MAX(seq) AS m FROM hand_events WHERE game_id = ?", [game_id])
    return -1 if top is None or top["m"] is None else int(top["m"])


def erase_name(db: Db, player_id: int, name: str) -> int:
    """Put ``name`` in place of a player's name in the start entries of their games (call
    inside ``write_tx``); returns how many entries changed.

    The one rewrite the log allows: a member's personal data erased at their request.
    A start entry keeps the names the players had; nothing else of the entry (seats,
    rules, points) and no other entry changes. The immutability trigger is lifted for
    this statement only, inside the caller's transaction, so no other writer ever sees
    the log without it."""
    rows = _rows(db, "SELECT e.id, e.game_id, e.event, e.request_hash, s.seat FROM hand_events e "
                     "JOIN game_seats s ON s.game_id = e.game_id AND s.player_id = ? "
                     "WHERE e.kind = 'start'", [int(player_id)])
    changes = []
    for r in rows:
        event = json.loads(r["event"])
        players = event.get("players")
        if not isinstance(players, list) or not 0 <= r["seat"] < len(players):
            continue
        was_request = r["request_hash"] == request_text(event)
        players[r["seat"]] = name
        changes.append((json.dumps(event, ensure_ascii=False),
                        request_text(event) if was_request else r["request_hash"], r["id"]))
    if not changes:
        return 0
    db.execute("DROP TRIGGER hand_events_no_update")
    db.conn.executemany("UPDATE hand_events SET event = ?, request_hash = ? WHERE id = ?",
                        changes)
    db.execute("CREATE TRIGGER hand_events_no_update BEFORE UPDATE ON hand_events BEGIN "
               "SELECT RAISE(ABORT, 'hand events are immutable: append a correction "
               "instead'); END")
    with _memo_lock:                 # a kept state holds the old names
        for key in [k for k in _memo if k[1] in {r["game_id"] for r in rows}]:
            _memo.pop(key, None)
    return len(changes)


MARKERS = ("void", "restore", "replace")
"""Log rows that change an earlier entry rather than add one."""


def effective_events(log: Sequence[LogEntry]) -> list[Effective]:
    """The game as it stands: originals in order, with void, replace and restore markers
    applied (a restore puts a voided entry back where it was, as it last stood).

    Each returned item is ``{"seq": original seq, "event": {...}}``.
    """
    order: list[int] = []
    current: dict[int, Event] = {}
    removed: dict[int, Event] = {}
    for row in log:
        if row["kind"] == "void":
            if row["target_seq"] in current:
                order.remove(row["target_seq"])
                removed[row["target_seq"]] = current.pop(row["target_seq"])
        elif row["kind"] == "restore":
            if row["target_seq"] in removed:
                current[row["target_seq"]] = removed.pop(row["target_seq"])
                bisect.insort(order, row["target_seq"])
        elif row["kind"] == "replace":
            if row["target_seq"] in current:
                current[row["target_seq"]] = row["event"]
        else:
            order.append(row["seq"])
            current[row["seq"]] = row["event"]
    return [{"seq": s, "event": current[s]} for s in order]


def rules_of(game: Game) -> engine.Rules:
    """The engine's rules of a game row read by :func:`get_game`."""
    return engine.rules_of_text(game["rules_json"])


_memo: OrderedDict[tuple[object, int], Played] = OrderedDict()
_memo_lock = threading.Lock()


def _memo_key(db: Db, game_id: int) -> tuple[object, int]:
    return (getattr(db, "_clubdb_path", id(db)), game_id)


def _tip(db: Db, game_id: int) -> tuple[int, str] | None:
    row = db.execute("SELECT seq, idempotency_key FROM hand_events WHERE game_id = ? "
                     "ORDER BY seq DESC LIMIT 1", [game_id]).fetchone()
    return (row[0], row[1]) if row else None


def played(db: Db, game: Game) -> Played:
    """The game's log and its state now: from the memo when the log has not grown, else
    read and replayed once (Refused if the stored events no longer replay)."""
    key = _memo_key(db, game["id"])
    with _memo_lock:
        hit = _memo.get(key)
    tip = _tip(db, game["id"])
    if hit is not None and hit.tip == tip:
        with _memo_lock:
            if key in _memo:
                _memo.move_to_end(key)
        return hit
    out = _caught_up(db, game["id"], hit, tip) if hit is not None and hit.log else None
    if out is None:
        out = replay_log(game, event_log(db, game["id"]))
    remember(db, game["id"], out)
    return out


def _caught_up(db: Db, game_id: int, hit: Played, tip: tuple[int, str] | None) -> Played | None:
    """``hit`` advanced through the rows another process appended since, or None when that
    takes a whole replay (the memo's last row is not in the log, or a marker came since).

    With several server processes a table's hands land in any of them, so most
    hands find their process's memo one or two rows behind."""
    last = hit.log[-1]
    if tip is None or tip[0] <= last["seq"]:
        return None
    rows = event_log(db, game_id, from_seq=last["seq"])
    if not rows or rows[0]["idempotency_key"] != last["idempotency_key"]:
        return None
    newer = rows[1:]
    if any(r["kind"] in MARKERS for r in newer):
        return None
    state, result, effective = hit.state, hit.result, list(hit.effective)
    try:
        for r in newer:
            state, result = engine.advance(state, r["event"])
            effective.append({"seq": r["seq"], "event": r["event"]})
    except Refused:
        return None           # the whole replay says why, in its own words
    return Played([*hit.log, *newer], effective, state, result)


def replay_log(game: Game, log: Sequence[LogEntry]) -> Played:
    """Replay a log once: a stored one, or one with a marker not yet stored (which the
    caller remembers only once it is)."""
    effective = effective_events(log)
    state, result = engine.replayed([e["event"] for e in effective], rules_of(game))
    return Played(log, effective, state, result)


def remember(db: Db, game_id: int, game_played: Played) -> None:
    """Keep a game's newest state (the memo's key is its last row, so a wrong guess
    about what was committed is never used)."""
    with _memo_lock:
        _memo[_memo_key(db, game_id)] = game_played
        _memo.move_to_end(_memo_key(db, game_id))
        while len(_memo) > MEMO_GAMES:
            _memo.popitem(last=False)
