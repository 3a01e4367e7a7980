"""The web app's one doorway into the scoring engine.

Every call the web makes into ``scoring`` goes through here, so the rest of
the app sees one stable shape and engine refusals arrive as
:class:`web.errors.Refused` with the engine's own words.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from scoring import game as _game
from scoring.errors import ScoringError
from scoring.hand import score_hand as _score_hand
from scoring.points import han_fu_pairs as _han_fu_pairs

from .errors import Refused

WINDS = "ESWN"
REPLAYED = "the recorded hands cannot be replayed"
NEW_HAND = "this hand cannot be recorded"


@contextmanager
def _refusing(what: str):
    """Engine refusals (a GameEventError is a ScoringError) become Refused in the engine's words."""
    try:
        yield
    except ScoringError as e:
        raise Refused(f"{what}: {e.message}", code=e.code or "refused") from None
    except (KeyError, TypeError, ValueError) as e:
        # an event too malformed for the engine to read at all
        raise Refused(f"{what}: {e}", code="invalid_event") from None


def replay(events: list[dict], rules) -> dict:
    """``scoring.game.replay`` (the game-events contract output)."""
    with _refusing(REPLAYED):
        return _game.replay(events, rules)


def check(events: list[dict], rules) -> dict:
    """Replay ``events`` where the last one is new: Refused names why it is not allowed."""
    with _refusing(NEW_HAND):
        return _game.replay(events, rules)


def state_after(events: list[dict], rules) -> dict:
    """Live state after ``events``: round, honba, kyoutaku, dealer, scores, allowed events."""
    with _refusing(REPLAYED):
        return _game.state_after(events, rules).to_dict()


def preview(events: list[dict], new_event: dict, rules) -> dict:
    """What ``new_event`` would do (deltas) without recording it; Refused if not allowed."""
    with _refusing(NEW_HAND):
        return _game.preview(events, new_event, rules)


def score_hand(line: dict, rules) -> dict:
    """``scoring.hand.score_hand``: the batch-contract result (``ok`` false with a message)."""
    try:
        return _score_hand(line, rules)
    except ScoringError as e:
        return {"ok": False, "error": e.as_result()}


def han_fu_pairs(rules, *, tsumo: bool) -> list[tuple[int, int]]:
    """The (han, fu) pairs that exist under ``rules`` for a ron or a tsumo."""
    return [tuple(p) for p in _han_fu_pairs(rules, tsumo=tsumo)]


def seat_wind(seat: int, dealer: int, players: int) -> str:
    """The seat wind letter of ``seat`` when ``dealer`` is East."""
    return WINDS[(seat - dealer) % players]


def round_wind(state: dict[str, Any]) -> str:
    """The prevailing wind letter from a live state's round label (``"S3"`` -> ``"S"``)."""
    label = str(state.get("round") or "E")
    return label[0] if label[:1] in WINDS else "E"
