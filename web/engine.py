"""The web app's one doorway into the scoring engine.

Every call the web makes into ``scoring`` goes through here, so the rest of
the app sees one stable shape and engine refusals arrive as
:class:`web.errors.Refused` with the engine's own words.
"""

from __future__ import annotations

from typing import Any

from scoring.errors import ScoringError

from .errors import Refused

WINDS = "ESWN"


def _game_module():
    from scoring import game  # imported late: the engine is built in parallel

    return game


def _refuse(e: Exception, what: str) -> Refused:
    message = getattr(e, "message", None) or str(e) or e.__class__.__name__
    return Refused(f"{what}: {message}", code=getattr(e, "code", None) or "refused")


def _engine_errors() -> tuple[type[BaseException], ...]:
    game = _game_module()
    return (getattr(game, "GameEventError", ScoringError), ScoringError)


def replay(events: list[dict], rules) -> dict:
    """``scoring.game.replay`` (the game-events contract output)."""
    try:
        return _game_module().replay(events, rules)
    except _engine_errors() as e:
        raise _refuse(e, "the recorded hands cannot be replayed") from None
    except (KeyError, TypeError, ValueError) as e:
        raise Refused(f"the hands cannot be read: {e}", code="invalid_event") from None


def check(events: list[dict], rules) -> dict:
    """Replay ``events`` where the last one is new: Refused names why it is not allowed."""
    try:
        return _game_module().replay(events, rules)
    except _engine_errors() as e:
        raise _refuse(e, "this hand cannot be recorded") from None
    except (KeyError, TypeError, ValueError) as e:
        raise Refused(f"this hand cannot be read: {e}", code="invalid_event") from None


def state_after(events: list[dict], rules) -> dict:
    """Live state after ``events``: round, honba, kyoutaku, dealer, scores, allowed events."""
    try:
        state = _game_module().state_after(events, rules)
        return state.to_dict() if hasattr(state, "to_dict") else state
    except _engine_errors() as e:
        raise _refuse(e, "the recorded hands cannot be replayed") from None


def preview(events: list[dict], new_event: dict, rules) -> dict:
    """What ``new_event`` would do (deltas) without recording it; Refused if not allowed."""
    try:
        return _game_module().preview(events, new_event, rules)
    except _engine_errors() as e:
        raise _refuse(e, "this hand cannot be recorded") from None
    except (KeyError, TypeError, ValueError) as e:
        raise Refused(f"this hand cannot be read: {e}", code="invalid_event") from None


def score_hand(line: dict, rules) -> dict:
    """``scoring.hand.score_hand``: the batch-contract result (``ok`` false with a message)."""
    from scoring.hand import score_hand as engine_score_hand

    try:
        return engine_score_hand(line, rules)
    except ScoringError as e:
        return {"ok": False, "error": {"code": getattr(e, "code", "invalid_input"),
                                       "message": str(e)}}


def han_fu_pairs(rules, *, tsumo: bool) -> list[tuple[int, int]]:
    """The (han, fu) pairs that exist under ``rules`` for a ron or a tsumo."""
    from scoring.points import han_fu_pairs as engine_pairs

    return [tuple(p) for p in engine_pairs(rules, tsumo=tsumo)]


def seat_wind(seat: int, dealer: int, players: int) -> str:
    """The seat wind letter of ``seat`` when ``dealer`` is East."""
    return WINDS[(seat - dealer) % players]


def round_wind(state: dict[str, Any]) -> str:
    """The prevailing wind letter from a live state's round label (``"S3"`` -> ``"S"``)."""
    label = str(state.get("round") or "E")
    return label[0] if label[:1] in WINDS else "E"
