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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import lexicon
from club.errors import Refused
from club.i18n import current_lang, t
from scoring import game as _game
from scoring.chips import award_chips
from scoring.errors import ScoringError
from scoring.game import ABORT_KINDS, EVENT_TYPES, PENALTY_KINDS, WINDS, WINDS_JA, GameState
from scoring.hand import BOOL_FIELDS as HAND_FLAGS
from scoring.hand import INT_FIELDS as HAND_COUNTERS
from scoring.hand import score_hand as _score_hand
from scoring.mcr import FANS as _MCR_FANS
from scoring.mcr import RULEBOOK_FANS as _MCR_RULEBOOK
from scoring.mcr.evaluate import exclusions as _mcr_exclusions
from scoring.mcr.evaluate import fan_points as _mcr_fan_points
from scoring.mcr.score import MCR_FLAGS
from scoring.mcr.score import MINIMUM_FAN as MCR_MINIMUM_FAN
from scoring.mcr.score import options as _mcr_options
from scoring.money import (
    Account,
    GameMoney,
    ReportGame,
    accounts,
    daily_report,
    fee_per_player,
    game_money,
    money_rules,
    total_account,
)
from scoring.points import han_fu_pairs as _han_fu_pairs
from scoring.points import hand_value as _hand_value
from scoring.rating import (
    INITIAL_R,
    DanTable,
    DanTableError,
    Ladder,
    RatedGame,
    RatedSeat,
    RatingLine,
    Standing,
    dan_tables,
    name_pair,
    rank_by_rating,
)
from scoring.rules import PRESET_IDS, Rules, load_rules
from scoring.stats import (
    FAMILIES,
    FIGURE_IDS,
    STREAKS,
    SUM_NAMES,
    SUMS,
    PlayerGame,
    aggregate,
    combine,
    figure,
    figures,
    format_figure,
    line_from_dict,
    line_options,
    line_to_dict,
    player_games,
    rank_rows,
    rule_family,
)
from scoring.yaku import BY_ID as _YAKU_BY_ID
from scoring.yaku import YAKU as _YAKU
from scoring.yaku import han_table as _han_table

__all__ = [
    # a game: its events, state and the engine's refusals
    "ABORT_KINDS", "END_REASONS", "EVENT_TYPES", "PENALTY_KINDS", "WINDS", "WINDS_JA",
    "GameState", "ScoringError", "advance", "end_words", "refusal", "replay", "replayed",
    "seat_wind", "start",
    # rules
    "PRESET_IDS", "RULE_NUMBER_LIMIT", "Rules", "load_rules", "preset", "rules",
    "rules_from_data", "rules_of_text",
    # one hand: its inputs, its price, the pickers of the entry forms
    "HAND_COUNTERS", "HAND_FLAGS", "MCR_FLAGS", "MCR_MINIMUM_FAN", "MCR_FLOWER_FAN",
    "MCR_REPEATABLE", "chips_for", "counters", "han_fu_pairs", "hand_price", "max_yakuman",
    "mcr_fans", "price_table", "score_hand", "yaku_choices", "yaku_words",
    # statistics: the figures and their families (scoring.stats), named for a reader
    "family_name", "figure_name", "POINT_FAMILIES", "RESULT_FIGURES", "shown_figure",
    "shown_result",
    "FAMILIES", "FIGURE_IDS", "STREAKS", "SUM_NAMES", "SUMS", "PlayerGame", "aggregate",
    "combine", "figure", "figures", "format_figure", "line_from_dict", "line_options",
    "line_to_dict", "player_games", "rank_rows", "rule_family",
    # the R rating and the dan ladders (scoring.rating)
    "INITIAL_R", "DanTable", "DanTableError", "Ladder", "RatedGame", "RatedSeat", "RatingLine",
    "Standing", "dan_tables", "name_pair", "rank_by_rating",
    # money: fees, prizes, chips, accounts and the daily report (scoring.money)
    "Account", "GameMoney", "ReportGame", "accounts", "daily_report", "fee_per_player",
    "game_money", "money_rules", "total_account",
]

END_REASONS = ("time", "agari_yame", "tenpai_yame")
RULE_NUMBER_LIMIT = 1_000_000
"""Largest size of any number in a rule set: the presets' largest is 60,000 points."""


POINT_FAMILIES = ("riichi4", "riichi3")
"""Families whose settled results are points: a club reads them in thousands (+59.0)."""
RESULT_FIGURES = {"total": "{:+.1f}", "average": "{:+.2f}", "best": "{:+.1f}"}
"""Figures counted in a game's settled result, as a point family's club writes them."""


def shown_result(value: float, family: str | None) -> float:
    """A settled result in the unit the club reads it in: thousands of points in point
    families (+69.0), as it is elsewhere (MCR totals, victory points)."""
    return value / 1000 if family in POINT_FAMILIES else value


def shown_figure(fid: str, value: Any, family: str | None) -> str:
    """A figure as every page and file shows it (results in the family's unit)."""
    if family in POINT_FAMILIES and fid in RESULT_FIGURES and value is not None:
        return RESULT_FIGURES[fid].format(shown_result(value, family))
    return format_figure(fid, value)


def family_name(family: str, lang: str | None = None) -> str:
    """A rule family's name in ``lang`` (by default the request's language)."""
    ja, en = FAMILIES[family]
    return ja if (lang or current_lang()) == "ja" else en


def figure_name(fid: str, lang: str | None = None) -> str:
    """A figure's name in ``lang`` (by default the request's language)."""
    f = figure(fid)
    return f.ja if (lang or current_lang()) == "ja" else f.en


_RESERVED = frozenset({"status", "code", "details", "key"})
"""Names a refusal's own arguments use: an engine value of that name is left out of the
sentence's values (it stays in ``details.values``)."""


def end_words(reason: str) -> str:
    """Why a game ended, in words (``bust`` is 箱下)."""
    return t(f"records.end.{reason}") if lexicon.has(f"records.end.{reason}") else reason


def refusal(e: ScoringError, fallback: str = "records.cannot_record") -> Refused:
    """An engine refusal for a person: worded by ``engine.<reason>`` (lexicon/catalogue/
    engine.toml) in the request's language, seats by their wind and player; the reason and
    its values ride along in ``details`` for a client that points at the field."""
    values = {k: v for k, v in e.values.items() if k not in _RESERVED}
    if lexicon.has(f"records.end.{values.get('end_reason')}"):
        values["end_reason"] = end_words(str(values["end_reason"]))
    details = {"reason": e.reason, "values": dict(e.values)}
    key = f"engine.{e.reason}"
    if lexicon.has(key):
        return Refused(key, code=e.code or "refused", details=details, **values)
    return Refused(fallback, code=e.code or "refused", details=details, reason=e.message)


@contextmanager
def _refusing(key: str) -> Iterator[None]:
    """Engine refusals (a GameEventError is a ScoringError) become Refused worded from the
    engine's reason (:func:`refusal`)."""
    try:
        yield
    except ScoringError as e:
        raise refusal(e, key) from None
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
    """``scoring.hand.score_hand``: the batch-contract result (``ok`` false with a message
    in the request's language, worded from the refusal's reason)."""
    try:
        out = _score_hand(line, rules)
    except ScoringError as e:
        out = {"ok": False, "error": e.as_result()}
    error = out.get("error")
    if error and lexicon.has(f"engine.{error.get('reason')}"):
        values = {k: v for k, v in (error.get("values") or {}).items() if k not in _RESERVED}
        error["message"] = t(f"engine.{error['reason']}", **values)
    return out


def seat_wind(seat: int, dealer: int, players: int) -> str:
    """The seat wind letter of ``seat`` when ``dealer`` is East (for the seat cards)."""
    return WINDS[(seat - dealer) % players]


# --------------------------------------------------------------------------- registries
_PICKER_SWITCH: dict[str, Callable[[Rules], bool]] = {
    # yaku the registry lists but these rules do not have (each reads one switch)
    "open_riichi": lambda r: r.hand.open_riichi,
    "ippatsu": lambda r: r.hand.ippatsu,
    "yakuhai_north": lambda r: r.hand.north_yakuhai,
    "houtei": lambda r: not r.hand.houtei_as_haitei,
    "kokushi_13": lambda r: r.hand.double_yakuman_hands,
    "suuankou_tanki": lambda r: r.hand.double_yakuman_hands,
    "junsei_chuuren": lambda r: r.hand.double_yakuman_hands,
}
_DOUBLED = {"daisuushii"}
"""A yakuman the registry counts twice where ``hand.double_yakuman_hands`` (its condition
returns 2)."""


def yaku_words(yaku_id: str, lang: str | None = None) -> str:
    """A yaku (riichi) or fan (MCR) by its name in ``lang``; its id if it has none."""
    lang = lang or current_lang()
    y = _YAKU_BY_ID.get(yaku_id)
    if y is not None:
        return y.ja if lang == "ja" else y.en
    fan = _MCR_FANS.get(yaku_id)
    if fan is not None:
        return fan.name_ja if lang == "ja" else fan.name_en
    return yaku_id


def yaku_choices(rules: Rules) -> list[dict]:
    """The yaku a hand can have under ``rules``, in registry order, for a yaku picker:
    ``id``, Japanese and English names, ``closed`` and ``open`` han (0: not open),
    ``yakuman`` (how many yakuman it counts). Dora, red fives, ura and nukidora are
    counters, not picks (:func:`counters`)."""
    per_hand, grouped = _han_table(rules.hand)
    rows = {r[0].id: r for r in (*per_hand, *(r for g in grouped for r in g))}
    out = []
    for y in _YAKU:
        row = rows.get(y.id)
        switch = _PICKER_SWITCH.get(y.id)
        if row is None or (switch is not None and not switch(rules)):
            continue
        yakuman = row[3] * (2 if y.id in _DOUBLED and rules.hand.double_yakuman_hands else 1)
        out.append({"id": y.id, "ja": y.ja, "en": y.en, "closed": row[1], "open": row[2],
                    "yakuman": yakuman})
    return out


def counters(rules: Rules) -> dict:
    """Which dora-like counts a winner has under ``rules`` and whether each is han:
    ``{name: {"han": bool}}`` for dora, aka (red fives), ura and nukidora."""
    h = rules.hand
    out = {"dora": {"han": h.dora_as_han}}
    if any(rules.table.red_fives):
        out["aka"] = {"han": h.dora_as_han or h.red_five_is_yaku}
    if h.ura_dora:
        out["ura"] = {"han": h.dora_as_han}
    if h.nukidora != "none":
        out["nukidora"] = {"han": h.dora_as_han}
    return out


MCR_REPEATABLE = frozenset({
    "pure_double_chow", "mixed_double_chow", "short_straight", "two_terminal_chows",
    "pung_of_terminals_or_honors", "tile_hog", "dragon_pung",
})
"""MCR fans one hand may score more than once (004: a fan per set or per tile kind)."""
MCR_FLOWER_FAN = "flower_tiles"


def mcr_fans(rules: Rules) -> list[dict]:
    """The 81 MCR fans (flowers aside: they are counted on their own) with their points and
    exclusions under ``rules`` (``hand.mcr_*``), biggest first, for a fan picker."""
    opts = _mcr_options(rules)
    excl = _mcr_exclusions(opts)
    return [{"id": fid, "points": _mcr_fan_points(fid, opts), "zh": _MCR_FANS[fid].name_zh,
             "ja": _MCR_FANS[fid].name_ja, "en": _MCR_FANS[fid].name_en,
             "excludes": sorted(excl[fid]), "repeat": fid in MCR_REPEATABLE}
            for fid in _MCR_RULEBOOK if fid != MCR_FLOWER_FAN]


# --------------------------------------------------------------------------- prices
def hand_price(rules: Rules, *, han: int, fu: int, yakuman: int, dealer: bool, tsumo: bool,
               dora: int = 0) -> dict:
    """``scoring.points.hand_value`` as a dict: ``value``, ``pay``, ``limit``."""
    with _refusing("records.cannot_record"):
        v = _hand_value(rules, han=han, fu=fu, yakuman=yakuman, dealer=dealer, tsumo=tsumo,
                        dora=dora)
    return {"value": v.value, "pay": dict(v.pay), "limit": v.limit}


def chips_for(rules: Rules, facts: dict) -> dict:
    """``scoring.chips.award_chips``: the chips one win earns (``each`` per payer)."""
    with _refusing("records.cannot_record"):
        return award_chips(rules, facts)


def price_table(rules: Rules) -> dict:
    """What a client needs to price hands without asking: the payment of every han/fu pair
    (and of 1 to the most yakuman) for dealer and non-dealer, ron and tsumo, keyed
    ``"<han>/<fu>"`` and ``"y<n>"`` under ``"d"``/``"n"`` + ``"r"``/``"t"``. Dora paid per
    tile are added by the client (``points.dora_per_tile``)."""
    if rules.table.family == "mcr":
        return {}
    out: dict = {}
    for dealer in (True, False):
        for tsumo in (True, False):
            cell = {}
            for han, fu in _han_fu_pairs(rules, tsumo=tsumo):
                cell[f"{han}/{fu}"] = _hand_value(rules, han=han, fu=fu, dealer=dealer,
                                                  tsumo=tsumo).pay
            for n in range(1, max_yakuman(rules) + 1):
                cell[f"y{n}"] = _hand_value(rules, han=0, fu=0, yakuman=n, dealer=dealer,
                                            tsumo=tsumo).pay
            out[("d" if dealer else "n") + ("t" if tsumo else "r")] = cell
    return out
