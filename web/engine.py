"""The web app's one doorway into the scoring engine.

No other web module imports ``scoring``: everything the web needs from it
(rules, a game's state, scoring a hand, the statistics definitions) is named
here, so the rest of the app sees one stable shape and engine refusals arrive
as :class:`web.errors.Refused`.

The engine owns a game's facts: seat and round wind, dealer, tsumo, who may
declare riichi. The web passes it events and gets states back
(:func:`advance`), never working those facts out itself.
"""

from __future__ import annotations

import functools
import json
import math
from contextlib import contextmanager
from typing import Any

from scoring import game as _game
from scoring import money  # noqa: F401  (fees, prizes, chips and the daily report)
from scoring import rating  # noqa: F401  (the R rating and dan ladders)
from scoring import stats  # noqa: F401  (the statistics definitions, read as they are)
from scoring.errors import ScoringError
from scoring.game import ABORT_KINDS, EVENT_TYPES, PENALTY_KINDS, WINDS, WINDS_JA  # noqa: F401
from scoring.game import GameState  # noqa: F401  (for annotations)
from scoring.hand import BOOL_FIELDS as HAND_FLAGS  # noqa: F401
from scoring.hand import INT_FIELDS as HAND_COUNTERS  # noqa: F401
from scoring.hand import score_hand as _score_hand
from scoring.mcr.score import MCR_FLAGS  # noqa: F401
from scoring.points import han_fu_pairs as _han_fu_pairs
from scoring.rules import PRESET_IDS, Rules, load_rules  # noqa: F401

from .errors import Refused

END_REASONS = ("time", "agari_yame", "tenpai_yame")
RULE_NUMBER_LIMIT = 1_000_000
"""Largest size of any number in a rule set: the presets' largest is 60,000 points."""


@contextmanager
def _refusing(key: str):
    """Engine refusals (a GameEventError is a ScoringError) become Refused with the
    engine's reason (worded from its code by the engine's catalogue where there is one)."""
    try:
        yield
    except ScoringError as e:
        raise Refused(key, code=e.code or "refused", reason=e.message) from None
    except (KeyError, TypeError, ValueError) as e:
        # an event too malformed for the engine to read at all
        raise Refused(key, code="invalid_event", reason=str(e)) from None


# --------------------------------------------------------------------------- rules
@functools.lru_cache(maxsize=64)
def rules_of_text(text: str) -> Rules:
    """A game's stored rules (the JSON text of its resolved rule set), built once per process."""
    return load_rules(json.loads(text))


def rules(spec: str | dict) -> Rules:
    """Resolved rules: a preset id, or a rule set as a dict (a game's stored rules)."""
    if isinstance(spec, dict):
        return load_rules(spec)
    return preset(spec)


@functools.lru_cache(maxsize=None)
def preset(preset_id: str) -> Rules:
    """A shipped preset, loaded once (presets are packaged files)."""
    return load_rules(preset_id)


def rules_from_data(data: dict) -> Rules:
    """A club rule set from its parsed TOML; Refused names what the rules engine refuses
    and any number outside plausible bounds."""
    with _refusing("rules.refused"):
        resolved = load_rules(data)
    _check_numbers(resolved.to_dict(), "")
    return resolved


def _check_numbers(value: Any, path: str) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _check_numbers(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_numbers(v, f"{path}[{i}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value) or abs(value) > RULE_NUMBER_LIMIT:
            raise Refused("rules.number_out_of_range", code="invalid_rules", field=path,
                          value=value, limit=RULE_NUMBER_LIMIT, details={"field": path})


def max_yakuman(rules: Rules) -> int:
    """The most yakuman one hand can stack under ``rules`` (1 when they do not stack).

    Four with single yakuman (daisuushii, tsuuiisou, suuankou, suukantsu in one hand),
    six where the double-yakuman hands count double (daisuushii and suuankou tanki)."""
    if not rules.hand.yakuman_stacking:
        return 1
    return 6 if rules.hand.double_yakuman_hands else 4


def han_fu_pairs(rules: Rules, *, tsumo: bool) -> list[list[int]]:
    """The (han, fu) pairs that exist under ``rules`` for a ron or a tsumo ([] where
    the rules have no fu table, as MCR)."""
    try:
        return [list(p) for p in _han_fu_pairs(rules, tsumo=tsumo)]
    except ScoringError:
        return []


# --------------------------------------------------------------------------- games
def start(players: list[str], rules: Rules) -> tuple[dict, GameState, dict]:
    """The ``start`` event of a new game, its state and result (Refused if not allowed)."""
    event = {"event": "start", "players": list(players)}
    state, result = advance(_game.GameState(rules=rules), event)
    return event, state, result


def advance(state: GameState, event: dict) -> tuple[GameState, dict]:
    """Apply one more event to a live state: the new state and the game's result
    (``scoring.game.replay``'s output); ``state`` itself is left as it was."""
    with _refusing("records.cannot_record"):
        return _game.advance(state, event)


def replayed(events: list[dict], rules: Rules) -> tuple[GameState, dict]:
    """One replay of a stored game: its live state and its result (the replay output)."""
    with _refusing("records.cannot_replay"):
        return _game.advance(_game.state_after(events[:-1], rules), events[-1])


def replay(events: list[dict], rules: Rules) -> dict:
    """``scoring.game.replay`` (the game-events contract output)."""
    with _refusing("records.cannot_replay"):
        return _game.replay(events, rules)


def score_hand(line: dict, rules: Rules) -> dict:
    """``scoring.hand.score_hand``: the batch-contract result (``ok`` false with a message)."""
    try:
        return _score_hand(line, rules)
    except ScoringError as e:
        return {"ok": False, "error": e.as_result()}


def seat_wind(seat: int, dealer: int, players: int) -> str:
    """The seat wind letter of ``seat`` when ``dealer`` is East (for the seat cards)."""
    return WINDS[(seat - dealer) % players]
