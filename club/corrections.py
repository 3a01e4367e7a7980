"""Staff corrections to a game's log: a hand replaced, struck or put back, two seats
swapped, a whole game voided or brought back.

A change to a hand or to the seats is appended to the log as a marker naming the
entry it acts on (nothing is rewritten), is refused in words if the game would no
longer replay, and asks again for the confirmation of every seat whose result it
changed. A void changes only the game's status (the rankings skip it). Each is
audited, with the reason given."""

from __future__ import annotations

import sqlite3
from typing import Any

from club import engine, events, gamelog, stats_store, text
from club.audit import audit
from club.db import Db, now_iso, write_tx
from club.db import rows as _rows
from club.errors import Conflict, NotFound, Refused, UserError
from club.gamelog import Event, Game, Played, get_game
from club.games import game_view, live_game_id, settle_status, status_of

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
    try:
        after = gamelog.replay_log(game, [*before.log, trial])
    except Refused as e:
        raise _over_early(e, [*before.log, trial]) from None
    if game["status"] == "finished" and not after.result.get("finished"):
        raise Refused("records.would_reopen", game=game["id"])
    if game["status"] == "finished" and after.result.get("void"):
        raise Refused("records.would_void", game=game["id"])
    return before, trial, after


def _over_early(e: Refused, log: list) -> Refused:
    """The engine's "the game is already over" said of the staff page's hands (#seq, as
    the page numbers them) instead of the replay's event lines; any other refusal as is."""
    values = (e.details or {}).get("values") or {}
    if (e.details or {}).get("reason") != "game_over":
        return e
    seqs = [entry["seq"] for entry in gamelog.effective_events(log)]

    def seq_of(line: Any) -> Any:
        return seqs[line - 1] if isinstance(line, int) and 0 < line <= len(seqs) else line

    return Refused("records.game_over_at", code=e.code, details=e.details,
                   seq=seq_of(values.get("line")), last=seq_of(values.get("last")),
                   why=engine.end_words(str(values.get("end_reason"))))


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
        row = gamelog.append_entry(db, game_id, trial["seq"], kind, trial["event"],
                            trial["idempotency_key"], actor, target_seq=seq, reason=reason)
        now = Played([*before.log, row], now.effective, now.state, now.result)
        was, became = standing(game, before), standing(game, now)
        seats = range(len(game["seats"]))
        again = _ask_again(db, game_id, [s for s in seats if _seat_result(was, s)
                                         != _seat_result(became, s)])
        audit(db, actor, CORRECTIONS[kind], f"game:{game_id}", reason,
              {"seq": seq, "old": old.get(seq), "new": event if kind == "replace" else None,
               "before": was, "after": became, "unconfirmed": again})
        settle_status(db, game, now)
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
        stored = [gamelog.append_entry(db, game_id, m["seq"], "replace", m["event"],
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
        settle_status(db, game, now)
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
    status = status_of(played)
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
