"""Replay a game from its events (contract: ``docs/contracts/game-events.md``).

A game is a list of events (``start``, ``win``, ``draw``, ``abort``,
``chombo``, ``penalty``, ``end``).  :func:`replay` applies them one by one
under a rule set and returns the state after each one and, once the game is
over, the settlement (:mod:`scoring.settlement`).  :func:`state_after` gives
the live :class:`GameState` the tablet shows, :func:`allowed_events` what may
come next and :func:`preview` the payments an event would cause.

Every house-rule difference is a ``[game]`` switch read in one helper below
(``[points]`` for honba, deposits and noten payments).  An event the rules
forbid raises :class:`GameEventError` naming the event's line and the rule;
nothing after it is applied.

Units: ``scores``, ``deltas`` and ``kyoutaku`` are in points (ブー麻雀's
riichi stick is 100 points, a short riichi deposits what the player has).
Each hand record's ``round``/``honba``/``dealer`` describe the hand the event
belongs to; ``kyoutaku`` and ``scores`` are after the event, so
``sum(deltas) + change of kyoutaku == 0`` for every event.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from . import mcr
from .chips import as_discarder, limit_chips
from .errors import ScoringError
from .hand import HandResult, parse_input, score
from .points import han_fu_pairs, hand_value, honba_bonus, noten_payments
from .rules import Rules, load_rules, toml_value
from .settlement import floating_seats, settle
from .settlement import ranks as _ranks

__all__ = [
    "GameEventError",
    "GameState",
    "replay",
    "state_after",
    "advance",
    "allowed_events",
    "preview",
    "apply_event",
    "is_void",
    "read_events",
    "EVENT_TYPES",
    "ABORT_KINDS",
    "PENALTY_KINDS",
    "WINDS_JA",
]

EVENT_TYPES = ("start", "win", "draw", "abort", "chombo", "penalty", "end")
WINDS = "ESWN"
WINDS_JA = "東南西北"
ABORT_KINDS = ("kyuushu", "suufon", "suukan", "suucha_riichi", "sanchahou")
PENALTY_KINDS = ("deposit_1000", "agari_houki", "points")
NO_HANDS = "no_hands"  # the end reason of a game ended before its first hand: it is void


class GameEventError(ScoringError):
    """An event the rules do not allow, or that cannot be read. ``values`` always hold the
    event's ``line`` and kind (``event``, "" when unknown)."""

    code = "invalid_event"

    def __init__(self, line: int, message: str, event: str | None = None, *,
                 reason: str = "invalid_event", **values: Any) -> None:
        where = f"event on line {line}" + (f" ({event})" if event else "")
        super().__init__(f"{where}: {message}", "invalid_event", reason=reason, **values)
        self.line, self.event, self.detail = line, event, message
        self.values.update(line=line, event=event or "")

    def about(self, event: str) -> GameEventError:
        """The same refusal, naming the kind of event it refuses."""
        values = {k: v for k, v in self.values.items() if k not in ("line", "event")}
        return GameEventError(self.line, self.detail, event, reason=self.reason, **values)


def _rule(rules: Rules, section: str, name: str) -> str:
    """``section.name = value`` and the rulebook line it comes from, for messages."""
    value = getattr(getattr(rules, section), name)
    src = type(getattr(rules, section)).__dataclass_fields__[name].metadata.get("source", "")
    return f"{rules.name}: {section}.{name} = {value!r}" + (f"; rulebook: {src}" if src else "")


def _rule_values(rules: Rules, section: str, name: str) -> dict[str, Any]:
    """The switch a refusal rests on, as values: ``switch`` and its ``value``."""
    return {"switch": f"{section}.{name}",
            "value": toml_value(getattr(getattr(rules, section), name))}


SEATS_JA = tuple(w + "家" for w in WINDS_JA)  # 東家 南家 西家 北家
SEATS_EN = ("East", "South", "West", "North")


def seat_values(state: GameState, seat: int, key: str = "seat") -> dict[str, Any]:
    """A seat named in a refusal: its number, its player and its seat wind this hand in
    player words (``seat_ja`` 「東家」, ``seat_en`` "East"), never "seat 0"."""
    wind = (seat - state.dealer) % state.seat_count
    player = state.players[seat] if seat < len(state.players) else ""
    return {key: seat, f"{key}_player": player, f"{key}_ja": SEATS_JA[wind],
            f"{key}_en": SEATS_EN[wind]}


# --------------------------------------------------------------------------- state
@dataclass
class GameState:
    """Where a game stands.  ``dealer`` is a seat (0 = first dealer, 起家)."""

    rules: Rules
    players: list[str] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    wind: int = 0  # 0 East, 1 South, 2 West, 3 North (場風)
    dealer: int = 0
    honba: int = 0
    kyoutaku: int = 0  # points on the table (riichi and penalty deposits)
    started: bool = False
    finished: bool = False
    end_reason: str = ""
    extension: bool = False  # playing the West round of 西入
    yame_offer: str = ""  # "agari_yame"/"tenpai_yame" the dealer may declare now
    houki: set[Any] = field(default_factory=set)
    hand_deposits: list[Any] = field(default_factory=list)  # (seat, points) this hand
    chips: list[int] = field(default_factory=list)
    vp_adjust: list[int] = field(default_factory=list)
    yakuman_end: dict[str, Any] | None = None
    dabuken: int | None = None
    hands: list[dict[str, Any]] = field(default_factory=list)
    last_line: int = 0  # the line of the last event applied: the next one is last_line + 1

    @property
    def seat_count(self) -> int:
        return self.rules.table.players

    @property
    def round(self) -> str:
        """Round label such as ``E1`` or ``S4``."""
        return f"{WINDS[self.wind]}{self.dealer + 1}"

    @property
    def round_ja(self) -> str:
        """Japanese round label such as ``東1局``."""
        return f"{WINDS_JA[self.wind]}{self.dealer + 1}局"

    @property
    def seat_winds(self) -> list[str]:
        """Each seat's wind this hand (the dealer is East)."""
        return [WINDS[(s - self.dealer) % self.seat_count] for s in range(self.seat_count)]

    @property
    def riichi_able(self) -> list[int]:
        """Seats that may declare riichi now (enough points, not under agari-houki)."""
        if self.finished or not self.started or self.rules.table.family == "mcr":
            return []
        return [s for s in range(self.seat_count) if s not in self.houki and _riichi_ok(self, s)]

    def copy(self) -> GameState:
        """An independent copy to apply more events to (the rules, which never change, are
        shared; hand records are never changed once made)."""
        return dataclasses.replace(
            self,
            players=list(self.players),
            scores=list(self.scores),
            houki=set(self.houki),
            hand_deposits=list(self.hand_deposits),
            chips=list(self.chips),
            vp_adjust=list(self.vp_adjust),
            yakuman_end=None if self.yakuman_end is None else dict(self.yakuman_end),
            hands=list(self.hands),
        )

    def to_dict(self) -> dict[str, Any]:
        """The live view the tablet shows."""
        return {
            "players": list(self.players),
            "scores": list(self.scores),
            "round": self.round,
            "round_ja": self.round_ja,
            "honba": self.honba,
            "kyoutaku": self.kyoutaku,
            "dealer": self.dealer,
            "seat_winds": self.seat_winds,
            "riichi_able": self.riichi_able,
            "houki": sorted(self.houki),
            "finished": self.finished,
            "end_reason": self.end_reason,
            "allowed": allowed_events(self),
            "end_reasons": (["time"] + ([self.yame_offer] if self.yame_offer else []))
            if self.started and not self.finished
            else [],
            "yame_offer": self.yame_offer,
            "last_hand": self.started and not self.finished and _is_last_hand(self),
            "extension": self.extension,
            "chips": list(self.chips),
        }


def allowed_events(state: GameState) -> list[str]:
    """Event types that may come next (``end`` with reason agari_yame/tenpai_yame
    only when ``state.yame_offer`` is set)."""
    if not state.started:
        return ["start"]
    if state.finished:
        return []
    g = state.rules.game
    out = ["win", "draw"]
    if g.abortive_draws:
        out.append("abort")
    if g.chombo != "none":
        out.append("chombo")
    return out + ["penalty", "end"]


# --------------------------------------------------------------------------- points adapters
def _riichi_ok(state: GameState, seat: int) -> bool:
    return _riichi_ok_points(state.rules, state.scores[seat], state.rules.points.riichi_deposit)


def _hand_pay(
    rules: Rules, *, han: int, fu: int, yakuman: int, dealer: bool, tsumo: bool, dora: int = 0
) -> dict[str, Any]:
    """``pay`` of a han/fu hand (:func:`scoring.points.hand_value`)."""
    return hand_value(
        rules, han=han, fu=fu, yakuman=yakuman, dealer=dealer, tsumo=tsumo, dora=dora
    ).pay


def _check_pair(rules: Rules, line: int, han: int, fu: int, tsumo: bool) -> None:
    if han >= 5 or not rules.fu.use_fu:
        return
    if (han, fu) not in set(han_fu_pairs(rules, tsumo=tsumo)):
        how = "tsumo" if tsumo else "ron"
        raise GameEventError(
            line,
            f"{han} han {fu} fu cannot happen on a {how} under these rules: check the han and fu",
            reason="han_fu_pair_tsumo" if tsumo else "han_fu_pair_ron", han=han, fu=fu,
            choices=", ".join(str(f) for h, f in han_fu_pairs(rules, tsumo=tsumo) if h == han),
        )


# --------------------------------------------------------------------------- payments
def _spread(pay: dict[str, Any], n: int, winner: int, dealer: int, src: int | None) -> list[int]:
    """Per-seat deltas of one ``pay`` dict (contract shape) for ``winner``."""
    d = [0] * n
    if src is not None:
        amount = pay.get("ron", 0)
        d[src] -= amount
        d[winner] += amount
        return d
    for s in range(n):
        if s == winner:
            continue
        if "all" in pay:
            amount = pay["all"]
        else:
            amount = pay["dealer"] if s == dealer else pay["non_dealer"]
        d[s] -= amount
        d[winner] += amount
    return d


def _honba_pay(
    rules: Rules, honba: int, n: int, winner: int, payer: int | None, yakuless: bool
) -> list[int]:
    """Honba to the winner: from ``payer`` (ron, or pao on tsumo), else from everyone."""
    d = [0] * n
    if not rules.game.honba:
        return d
    bonus = honba_bonus(rules, honba, tsumo=payer is None, yakuless=yakuless)
    payers = [payer] if payer is not None else [s for s in range(n) if s != winner]
    for s in payers:
        d[s] -= bonus["each"] if payer is None else bonus["total"]
    d[winner] += bonus["total"]
    return d


def _add(a: list[int], b: list[int]) -> list[int]:
    return [x + y for x, y in zip(a, b, strict=True)]


# --------------------------------------------------------------------------- field readers
def _seat(state: GameState, line: int, value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < state.seat_count:
        raise GameEventError(
            line, f"{what} must be a seat number 0-{state.seat_count - 1}, not {value!r}",
            reason="not_a_seat", field=what, value=repr(value), last=state.seat_count - 1,
        )
    return value


def _seats(state: GameState, line: int, ev: dict[str, Any], key: str) -> list[int]:
    value = ev.get(key, [])
    if not isinstance(value, list):
        raise GameEventError(line, f"'{key}' must be a list of seat numbers, not {value!r}",
                             reason="seats_not_list", field=key, value=repr(value))
    seats = [_seat(state, line, v, f"each of '{key}'") for v in value]
    if len(set(seats)) != len(seats):
        raise GameEventError(line, f"'{key}' names a seat twice: {value!r}",
                             reason="seat_twice", field=key, value=repr(value))
    return seats


def _int(line: int, ev: dict[str, Any], key: str, default: int | None = None, low: int = 0) -> int:
    value = ev.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise GameEventError(
            line, f"'{key}' must be a whole number of at least {low}, not {value!r}",
            reason="not_a_count", field=key, low=low, value=repr(value),
        )
    return value


# --------------------------------------------------------------------------- riichi deposits
def _take_riichi(state: GameState, line: int, seats: list[int], deltas: list[int]) -> None:
    """Put each riichi player's stick on the table (everything they have when short
    and the rules allow it)."""
    rules = state.rules
    if seats and rules.table.family == "mcr":
        raise GameEventError(line, "MCR has no riichi: leave 'riichi' out (table.family = 'mcr')",
                             reason="mcr_riichi")
    deposit = rules.points.riichi_deposit
    for s in seats:
        have = state.scores[s] + deltas[s]
        if not _riichi_ok_points(rules, have, deposit):
            raise GameEventError(
                line,
                f"seat {s} ({state.players[s]}) has {have} points, less than the riichi "
                f"deposit {deposit}: riichi is not allowed "
                f"({_rule(rules, 'game', 'riichi_short')})",
                reason="riichi_short", points=have, deposit=deposit, **seat_values(state, s),
                **_rule_values(rules, "game", "riichi_short"),
            )
        amount = min(deposit, max(have, 0))
        deltas[s] -= amount
        state.kyoutaku += amount
        state.hand_deposits.append((s, amount))


def _riichi_ok_points(rules: Rules, have: int, deposit: int) -> bool:
    return have >= 0 if rules.game.riichi_short == "all_in" else have >= deposit


# --------------------------------------------------------------------------- win
@dataclass
class _Win:
    seat: int
    pay: dict[str, Any]
    yakuman: int = 0
    chips: int = 0  # what each payer of a tsumo pays (all of it for a ron)
    pao: int | None = None
    yakuless: bool = False
    limit_chips: int = 0  # of ``chips``, those for a yakuman or counted yakuman


def _not_under_houki(state: GameState, line: int, seat: int, doing: str, reason: str) -> None:
    """Refuse ``doing`` (to win, to declare tenpai) to a seat under agari-houki (和了り放棄)."""
    if seat in state.houki:
        raise GameEventError(
            line,
            f"seat {seat} ({state.players[seat]}) is under agari-houki (和了り放棄) and may "
            f"not {doing} ({_rule(state.rules, 'game', 'agari_houki')})",
            reason=reason, **seat_values(state, seat),
        )


def _read_winner(state: GameState, line: int, w: Any, src: int | None) -> _Win:
    rules = state.rules
    if not isinstance(w, dict) or "seat" not in w:
        raise GameEventError(line, f"each winner must be an object with 'seat', not {w!r}",
                             reason="winner_not_object", value=repr(w))
    seat = _seat(state, line, w["seat"], "winner 'seat'")
    if seat == src:
        raise GameEventError(
            line, f"seat {seat} cannot ron its own discard ('from' is the discarder)",
            reason="ron_own_discard", **seat_values(state, seat),
        )
    _not_under_houki(state, line, seat, "win this hand", "houki_win")
    chips = _int(line, w, "chips", 0)
    pao = w.get("pao")
    if pao is not None:
        pao = _seat(state, line, pao, "'pao'")
        if not rules.game.pao:
            raise GameEventError(line, f"these rules have no pao ({_rule(rules, 'game', 'pao')})",
                                 reason="no_pao", **_rule_values(rules, "game", "pao"))
        if pao == seat:
            raise GameEventError(line, "the winner cannot be responsible (pao) for their own hand",
                                 reason="pao_self", **seat_values(state, seat))
    if rules.table.family == "mcr":
        return _Win(seat, _mcr_pay(state, line, w, seat, src), chips=chips)
    if "hand" in w:
        return _hand_winner(state, line, w, seat, src, chips, pao)
    _check_first_turn(state, line, w, seat)
    han = _int(line, w, "han", 0)
    yakuman = _int(line, w, "yakuman", 0)
    fu = _int(line, w, "fu", 0 if (yakuman or han >= 5 or not rules.fu.use_fu) else None)
    if not yakuman:
        _check_pair(rules, line, han, fu, src is None)
    dora = _int(line, w, "dora", 0)
    try:
        pay = _hand_pay(
            rules,
            han=han,
            fu=fu,
            yakuman=yakuman,
            dealer=seat == state.dealer,
            tsumo=src is None,
            dora=dora,
        )
    except ScoringError as e:
        raise GameEventError(line, f"winner seat {seat}: {e.message}", reason=e.reason,
                             **{**e.values, **seat_values(state, seat)}) from None
    limit = limit_chips(rules, yakuman=bool(yakuman), kazoe=han >= 13 and rules.hand.kazoe_yakuman)
    return _Win(seat, pay, yakuman, chips, pao, han == 0 and not yakuman, min(chips, limit))


FIRST_TURN_YAKU = ("tenhou", "chiihou", "renhou")


def _check_first_turn(state: GameState, line: int, w: dict[str, Any], seat: int) -> None:
    """A winner's picked tenhou, chiihou or renhou with a tile set aside as nukidora, where
    the rules say setting one aside ends those rights (002 3A 「北を抜くと一発, 天和, 地和,
    人和の権利は消滅します。」)."""
    if not state.rules.hand.nukidora_ends_first_turn or not _int(line, w, "nukidora", 0):
        return
    yaku = w.get("yaku")
    picked = yaku if isinstance(yaku, list) else []
    ids = {p.get("id") for p in picked if isinstance(p, dict)}
    if ids & set(FIRST_TURN_YAKU):
        raise GameEventError(
            line, f"winner seat {seat}: in these rules a tile set aside as nukidora ends the "
            "rights to tenhou, chiihou and renhou: leave them out",
            reason="first_turn_after_nukidora", **seat_values(state, seat),
        )


def _hand_facts(state: GameState, line: int, w: dict[str, Any], seat: int,
                src: int | None) -> dict[str, Any]:
    """The winner's ``hand`` (a scoring-batch input object), checked against what the game
    knows: tsumo (no ``from``), the seat and round winds. A hand that says otherwise would be
    paid wrongly, so it is refused; the game's facts are returned as the line's fields."""
    hand = w["hand"]
    if not isinstance(hand, dict):
        raise GameEventError(line, "'hand' must be a scoring-batch input object",
                             reason="hand_not_object", **seat_values(state, seat))
    tsumo = src is None
    if "tsumo" in hand and bool(hand["tsumo"]) != tsumo:
        raise GameEventError(
            line,
            f"winner seat {seat}: the hand says tsumo={hand['tsumo']!r} "
            f"but the event {'has no' if tsumo else 'has a'} 'from'",
            reason="hand_tsumo_contradicts" if tsumo else "hand_ron_contradicts",
            **seat_values(state, seat),
        )
    facts = {"tsumo": tsumo, "seat_wind": state.seat_winds[seat], "round_wind": WINDS[state.wind]}
    for key in ("seat_wind", "round_wind"):
        if key in hand and hand[key] != facts[key]:
            raise GameEventError(
                line,
                f"winner seat {seat}: the hand says {key} {hand[key]!r} but this hand "
                f"({state.round}) it is {facts[key]!r}; leave it out or correct it",
                reason="hand_seat_wind" if key == "seat_wind" else "hand_round_wind",
                given=repr(hand[key]), wind=facts[key],
                round=state.round, round_ja=state.round_ja, **seat_values(state, seat),
            )
    return facts


def _scored_hand(state: GameState, line: int, w: dict[str, Any], seat: int,
                 src: int | None) -> HandResult:
    """The winner's hand scored through the typed hand API."""
    facts = _hand_facts(state, line, w, seat, src)
    try:
        res = score(parse_input(w["hand"], state.rules, **facts), state.rules)
    except ScoringError as e:
        raise _not_scored(state, line, seat, e) from None
    if res.error is not None:
        raise _not_scored(state, line, seat, res.error)
    return res


def _not_scored(state: GameState, line: int, seat: int, e: ScoringError) -> GameEventError:
    """The hand engine's refusal of a winner's hand, as the event's: its reason and values,
    and the seat."""
    return GameEventError(line, f"winner seat {seat}: the hand does not score: {e.message}",
                          reason=e.reason, **{**e.values, **seat_values(state, seat)})


def _hand_winner(
    state: GameState, line: int, w: dict[str, Any], seat: int, src: int | None, chips: int,
    pao: int | None,
) -> _Win:
    res = _scored_hand(state, line, w, seat, src)
    if chips:  # the event's own count wins over the hand's
        limit = min(chips, limit_chips(state.rules, yakuman=bool(res.yakuman), kazoe=res.kazoe))
    else:
        chips, limit = res.chips["each"], res.chips["yakuman"] + res.chips["kazoe"]
    return _Win(seat, res.value.pay, res.yakuman, chips, pao, res.yakuless, limit)


def _mcr_pay(state: GameState, line: int, w: dict[str, Any], seat: int,
             src: int | None) -> dict[str, Any]:
    if "hand" in w:
        total = _scored_mcr(state, line, w, seat, src)["total"]
        flowers = 0  # the hand scorer has refused a hand short of the minimum already
    else:
        total = _int(line, w, "fan", w.get("han"))
        flowers = _int(line, w, "flowers", 0)
        if flowers > min(total, state.rules.table.flowers):
            raise GameEventError(
                line,
                f"winner seat {seat}: {flowers} flowers cannot be part of {total} fan "
                f"with {state.rules.table.flowers} flower tiles in the set",
                reason="too_many_flowers", count=flowers, fan=total,
                flowers=state.rules.table.flowers, **seat_values(state, seat),
            )
    # flowers are paid but never count toward the minimum (004 花牌 「8点縛りにはカウント
    # されないため、花牌以外の役の合計が8点ないと上がることができない」)
    if total - flowers < mcr.MINIMUM_FAN:
        raise GameEventError(
            line,
            f"winner seat {seat}: {total - flowers} fan without flowers is below the 8-fan "
            "minimum (004 上がり 「最低8飜必要です」; 花牌 「8点縛りにはカウントされない」)",
            reason="mcr_below_minimum", fan=total - flowers, flowers=flowers,
            minimum=mcr.MINIMUM_FAN, **seat_values(state, seat),
        )
    return {"mcr_total": total}


def _scored_mcr(state: GameState, line: int, w: dict[str, Any], seat: int,
                src: int | None) -> dict[str, Any]:
    """The winner's MCR hand scored by :func:`scoring.mcr.score_hand` (MCR's own API)."""
    out = mcr.score_hand({**w["hand"], **_hand_facts(state, line, w, seat, src)}, state.rules)
    if not out["ok"]:
        err = out["error"]
        raise GameEventError(
            line, f"winner seat {seat}: the hand does not score: {err['message']}",
            reason=err.get("reason", err["code"]),
            **{**err.get("values", {}), **seat_values(state, seat)},
        )
    return out


def _mcr_deltas(state: GameState, total: int, winner: int, src: int | None) -> list[int]:
    # 004 点数計算: 8 + total from the discarder, 8 from the rest
    return list(mcr.payments(total, winner, src, players=state.seat_count))


def _pao_split(d: list[int], winner: int, pao: int, src: int | None) -> list[int]:
    """Re-route the payment ``d`` to the responsible player: all of a tsumo, half
    of a ron with the discarder paying the other half (001 パオ 1 「折半払い」)."""
    value = d[winner]
    out = [0] * len(d)
    if src is None:
        out[pao] = -value
    else:
        half = value // 2 // 100 * 100
        out[pao], out[src] = -half, -(value - half)
    out[winner] = value
    return out


def _hand_part(state: GameState, w: _Win, src: int | None) -> list[int]:
    """The hand's own payment, with pao.  Pao covers one yakuman: with stacked
    yakuman the others are paid the ordinary way (001 役満 2, パオ 1)."""
    n, dealer = state.seat_count, state.dealer
    if w.pao is None or w.pao == src:
        return _spread(w.pay, n, w.seat, dealer, src)
    if w.yakuman <= 1:
        return _pao_split(_spread(w.pay, n, w.seat, dealer, src), w.seat, w.pao, src)
    kw: dict[str, Any] = {"han": 0, "fu": 0, "dealer": w.seat == dealer, "tsumo": src is None}
    one = _spread(_hand_pay(state.rules, yakuman=1, **kw), n, w.seat, dealer, src)
    rest = _spread(_hand_pay(state.rules, yakuman=w.yakuman - 1, **kw), n, w.seat, dealer, src)
    return _add(_pao_split(one, w.seat, w.pao, src), rest)


def _win_deltas(state: GameState, w: _Win, src: int | None, first: bool) -> list[int]:
    """What one winner collects: the hand (with pao), and for the winner nearest
    the discarder's right the honba and the deposits."""
    n, rules = state.seat_count, state.rules
    if "mcr_total" in w.pay:
        return _mcr_deltas(state, w.pay["mcr_total"], w.seat, src)
    d = _hand_part(state, w, src)
    if not first:
        return d
    if w.pao is not None and src is None and rules.game.honba:
        # pao on a tsumo: the responsible player pays the honba as if they had dealt in
        bonus = honba_bonus(rules, state.honba, tsumo=False, yakuless=w.yakuless)["total"]
        d[w.pao] -= bonus
        d[w.seat] += bonus
    else:
        d = _add(d, _honba_pay(rules, state.honba, n, w.seat, src, w.yakuless))
    d[w.seat] += state.kyoutaku
    return d


def _win_chips(state: GameState, w: _Win, src: int | None) -> None:
    """Chips move like the payment: from the discarder on a ron, from each other
    player on a tsumo.  A pao tsumo is paid as if the responsible player had
    dealt in: the yakuman chips take the ron factor, the others are paid once
    (000 (8) 包 「役満御祝儀は、確定させた人が放銃したものとして払います」)."""
    if not w.chips:
        return
    moves = (
        [(src, w.chips)]
        if src is not None
        else [(s, w.chips) for s in range(state.seat_count) if s != w.seat]
    )
    if src is None and w.pao is not None:
        moves = [(w.pao, as_discarder(state.rules, w.chips, w.limit_chips))]
    for s, count in moves:
        state.chips[s] -= count
        state.chips[w.seat] += count


def _order_winners(state: GameState, line: int, winners: list[_Win], src: int | None) -> list[_Win]:
    g = state.rules.game
    if src is None:
        if len(winners) != 1:
            raise GameEventError(line, "a tsumo has exactly one winner (give 'from' for a ron)",
                                 reason="tsumo_winners")
        return winners
    if len({w.seat for w in winners}) != len(winners):
        raise GameEventError(line, "a seat is listed twice among the winners",
                             reason="winner_twice")
    winners = sorted(winners, key=lambda w: (w.seat - src) % state.seat_count)
    if len(winners) > 1 and g.multi_ron == "atamahane":
        raise GameEventError(
            line,
            f"only one player may ron a discard under these rules: seat {winners[0].seat} "
            f"(nearest the discarder's right) wins alone "
            f"({_rule(state.rules, 'game', 'multi_ron')})",
            reason="atamahane", **seat_values(state, winners[0].seat),
            **_rule_values(state.rules, "game", "multi_ron"),
        )
    if len(winners) == 3 and g.multi_ron == "double":
        hint = (
            'record {"event": "abort", "kind": "sanchahou"}'
            if "sanchahou" in g.abortive_draws
            else "only two may win"
        )
        raise GameEventError(
            line,
            f"three players ron one discard: under these rules that is not a "
            f"triple ron ({_rule(state.rules, 'game', 'multi_ron')}); {hint}",
            reason="sanchahou" if "sanchahou" in g.abortive_draws else "no_triple_ron",
            **_rule_values(state.rules, "game", "multi_ron"),
        )
    return winners


def _on_win(state: GameState, line: int, ev: dict[str, Any]) -> dict[str, Any]:
    src = ev.get("from")
    if src is not None:
        src = _seat(state, line, src, "'from'")
    raw = ev.get("winners")
    if not isinstance(raw, list) or not raw:
        raise GameEventError(
            line, '\'winners\' must be a non-empty list of {"seat": i, "han": h, "fu": f}',
            reason="winners_list",
        )
    riichi = _seats(state, line, ev, "riichi")
    winners = _order_winners(state, line, [_read_winner(state, line, w, src) for w in raw], src)
    deltas = [0] * state.seat_count
    _take_riichi(state, line, riichi, deltas)
    for i, w in enumerate(winners):
        deltas = _add(deltas, _win_deltas(state, w, src, first=i == 0))
        _win_chips(state, w, src)
    state.kyoutaku = 0
    first = winners[0]
    if any(w.yakuman for w in winners) and state.rules.game.yakuman_ends_game:
        state.yakuman_end = {"winner": first.seat, "from": src, "pao": first.pao}
    renchan = first.seat == state.dealer and state.rules.game.renchan != "never"
    # 002 ブー麻雀 「役なしの上がりには積符は加算されず, 流局時と同様に次局の積符が増えます」
    honba_up = renchan or (first.yakuless and not state.rules.points.honba_on_yakuless_win)
    return {
        "deltas": deltas,
        "renchan": renchan,
        "honba_up": honba_up,
        "yame": "agari_yame",
        "winner": first.seat,
    }


# --------------------------------------------------------------------------- draws
def _noten_deltas(state: GameState, tenpai: list[int]) -> list[int]:
    return noten_payments(state.rules, [s in tenpai for s in range(state.seat_count)])


def _nagashi_deltas(state: GameState, line: int, seats: list[int]) -> list[int]:
    """Each nagashi player paid as a mangan (or yakuman) tsumo."""
    g = state.rules.game
    d = [0] * state.seat_count
    for s in seats:
        kw = (
            {"han": 0, "fu": 0, "yakuman": 1}
            if g.nagashi == "yakuman"
            else {"han": 5, "fu": 0, "yakuman": 0}
        )
        pay = _hand_pay(state.rules, dealer=s == state.dealer, tsumo=True, **kw)
        d = _add(d, _spread(pay, state.seat_count, s, state.dealer, None))
    return d


def _on_draw(state: GameState, line: int, ev: dict[str, Any]) -> dict[str, Any]:
    rules = state.rules
    tenpai = _seats(state, line, ev, "tenpai")
    riichi = _seats(state, line, ev, "riichi")
    nagashi = _seats(state, line, ev, "nagashi")
    if nagashi and rules.game.nagashi == "none":
        raise GameEventError(
            line, f"these rules have no nagashi mangan ({_rule(rules, 'game', 'nagashi')})",
            reason="no_nagashi", **_rule_values(rules, "game", "nagashi"),
        )
    if nagashi and rules.game.nagashi_as == "win":
        return _nagashi_win(state, line, nagashi, riichi)
    for s in tenpai:
        _not_under_houki(state, line, s, "declare tenpai", "houki_tenpai")
    deferred = _chombo_at_draw(state, line, ev, tenpai)
    noten_riichi = [s for s in riichi if s not in tenpai and s not in deferred]
    if noten_riichi and rules.game.riichi_noten_chombo:
        # 000 (3) 荒牌 「ノーテンの場合は、チョンボになります」: the hand becomes a chombo
        deltas = [0] * state.seat_count
        _voided_riichi(state, line, riichi, deltas)
        for s in noten_riichi:
            deltas = _add(deltas, _chombo_deltas(state, line, s))
        return {"deltas": deltas, "chombo": True}
    deltas = [0] * state.seat_count
    _take_riichi(state, line, riichi, deltas)
    if nagashi:
        # nagashi is paid as a mangan (or yakuman) tsumo and replaces the noten payments
        deltas = _add(deltas, _nagashi_deltas(state, line, nagashi))
    else:
        deltas = _add(deltas, _noten_deltas(state, tenpai))
    renchan = rules.game.renchan == "tenpai" and state.dealer in tenpai
    return {"deltas": deltas, "renchan": renchan, "honba_up": True, "yame": "tenpai_yame"}


def _chombo_at_draw(state: GameState, line: int, ev: dict[str, Any],
                    tenpai: list[int]) -> list[int]:
    """The draw's ``chombo``: seats whose chombo was deferred to the end of the hand
    (002 「流局時チョンボ…に変更できます」). They are noten, so they pay the noten penalty."""
    seats = _seats(state, line, ev, "chombo")
    if seats and not state.rules.game.chombo_at_draw:
        raise GameEventError(
            line, "these rules have no chombo deferred to the draw (流局時チョンボ) "
            f"({_rule(state.rules, 'game', 'chombo_at_draw')}); record a chombo instead",
            reason="no_chombo_at_draw", **_rule_values(state.rules, "game", "chombo_at_draw"),
        )
    for s in seats:
        if s in tenpai:
            raise GameEventError(
                line, f"seat {s} ({state.players[s]}) has a chombo at the draw and pays as "
                "noten: leave them out of 'tenpai'",
                reason="chombo_at_draw_tenpai", **seat_values(state, s),
            )
    return seats


def _nagashi_win(state: GameState, line: int, seats: list[int],
                 riichi: list[int]) -> dict[str, Any]:
    """Nagashi as a tsumo win (000 (5) 流し満貫 「満貫のツモあがりの扱いになります」): each
    nagashi player is paid as a mangan (or yakuman) tsumo, and the hand ends as after a tsumo
    by the first of them counting from the dealer: they collect the honba and the deposits,
    and the deal stays only if it is theirs. There are no noten payments."""
    n = state.seat_count
    deltas = [0] * n
    _take_riichi(state, line, riichi, deltas)
    deltas = _add(deltas, _nagashi_deltas(state, line, seats))
    first = min(seats, key=lambda s: (s - state.dealer) % n)
    deltas = _add(deltas, _honba_pay(state.rules, state.honba, n, first, None, False))
    deltas[first] += state.kyoutaku
    state.kyoutaku = 0
    renchan = first == state.dealer and state.rules.game.renchan != "never"
    return {"deltas": deltas, "renchan": renchan, "honba_up": renchan, "yame": "agari_yame"}


def _on_abort(state: GameState, line: int, ev: dict[str, Any]) -> dict[str, Any]:
    rules = state.rules
    kind = ev.get("kind")
    if kind not in ABORT_KINDS:
        raise GameEventError(line, f"'kind' must be one of {', '.join(ABORT_KINDS)}, not {kind!r}",
                             reason="abort_kind", value=repr(kind), choices=", ".join(ABORT_KINDS))
    if kind not in rules.game.abortive_draws:
        raise GameEventError(
            line,
            f"abortive draw {kind!r} is not in these rules "
            f"({_rule(rules, 'game', 'abortive_draws')})",
            reason="abort_not_in_rules", kind=kind,
            **_rule_values(rules, "game", "abortive_draws"),
        )
    _kyuushu_nukidora(state, line, ev, kind)
    riichi = _seats(state, line, ev, "riichi")
    if kind == "suucha_riichi" and len(riichi) != state.seat_count:
        raise GameEventError(line, f"suucha_riichi needs every seat in 'riichi', got {riichi!r}",
                             reason="suucha_riichi_seats", value=repr(riichi))
    deltas = [0] * state.seat_count
    _take_riichi(state, line, riichi, deltas)
    renchan = rules.game.abort_renchan and rules.game.renchan != "never"
    return {"deltas": deltas, "renchan": renchan, "honba_up": True, "yame": ""}


def _kyuushu_nukidora(state: GameState, line: int, ev: dict[str, Any], kind: str) -> None:
    """Nine terminals declared by ``seat`` after setting ``nukidora`` tiles aside: kept where
    the rules keep the right (002 3B 「花牌を抜いても…九種九牌の権利は維持されます」)."""
    if "seat" not in ev and "nukidora" not in ev:
        return
    rules = state.rules
    if kind != "kyuushu":
        raise GameEventError(
            line, f"'seat' and 'nukidora' belong to a nine-terminals abort (kyuushu), not {kind}",
            reason="abort_seat_kind", kind=kind,
        )
    seat = _seat(state, line, ev.get("seat"), "'seat'")
    count = _int(line, ev, "nukidora", 0)
    if not count:
        return
    if rules.hand.nukidora == "none":
        raise GameEventError(
            line, f"this rule set has no nukidora ({_rule(rules, 'hand', 'nukidora')}): "
            "leave 'nukidora' at 0", reason="no_nukidora",
            **_rule_values(rules, "hand", "nukidora"),
        )
    most = rules.table.flowers if rules.hand.nukidora == "flowers" else 4
    if count > most:
        raise GameEventError(
            line, f"{count} tiles set aside: the set has only {most}",
            reason="too_many_set_aside", count=count, most=most, **seat_values(state, seat),
        )
    if not rules.game.kyuushu_after_nukidora:
        raise GameEventError(
            line, "in these rules a tile set aside as nukidora ends the right to declare nine "
            f"terminals ({_rule(rules, 'game', 'kyuushu_after_nukidora')})",
            reason="kyuushu_after_nukidora", **seat_values(state, seat),
            **_rule_values(rules, "game", "kyuushu_after_nukidora"),
        )


# --------------------------------------------------------------------------- penalties
def _chombo_deltas(state: GameState, line: int, seat: int) -> list[int]:
    g, n = state.rules.game, state.seat_count
    d = [0] * n
    if g.chombo == "none":
        raise GameEventError(
            line,
            f"these rules price no chombo ({_rule(state.rules, 'game', 'chombo')}); "
            "record a penalty of kind 'points' instead",
            reason="no_chombo", **_rule_values(state.rules, "game", "chombo"),
        )
    if g.chombo == "victory_points":
        state.vp_adjust[seat] -= g.chombo_victory_points * (n - 1)
        for s in range(n):
            if s != seat:
                state.vp_adjust[s] += g.chombo_victory_points
        return d
    if g.chombo == "each":
        pay = {"all": g.chombo_points}
    else:  # a mangan tsumo, paid the other way round (000 (3) 錯和 「満貫払い」)
        pay = _hand_pay(
            state.rules, han=5, fu=0, yakuman=0, dealer=seat == state.dealer, tsumo=True
        )
    return [-x for x in _spread(pay, n, seat, state.dealer, None)]


def _on_chombo(state: GameState, line: int, ev: dict[str, Any]) -> dict[str, Any]:
    seat = _seat(state, line, ev.get("seat"), "'seat'")
    deltas = [0] * state.seat_count
    _voided_riichi(state, line, _seats(state, line, ev, "riichi"), deltas)
    return {"deltas": _add(deltas, _chombo_deltas(state, line, seat)), "chombo": True}


def _voided_riichi(state: GameState, line: int, seats: list[int], deltas: list[int]) -> None:
    """Riichi sticks put out in a hand a chombo voids: on the table, then given back by
    :func:`_redo_hand` (000 (3) 錯和; 001 チョンボ 2), or left there for the next winner
    where the rules say so (``game.chombo_returns_riichi``)."""
    before = len(state.hand_deposits)
    _take_riichi(state, line, seats, deltas)
    if not state.rules.game.chombo_returns_riichi:
        del state.hand_deposits[before:]


def _on_penalty(state: GameState, line: int, ev: dict[str, Any]) -> dict[str, Any]:
    rules, g = state.rules, state.rules.game
    seat = _seat(state, line, ev.get("seat"), "'seat'")
    kind = ev.get("kind")
    d = [0] * state.seat_count
    if kind == "deposit_1000":
        if not g.deposit_penalty:
            raise GameEventError(
                line,
                f"these rules have no deposit penalty ({_rule(rules, 'game', 'deposit_penalty')})",
                reason="no_deposit_penalty", **_rule_values(rules, "game", "deposit_penalty"),
            )
        amount = g.deposit_penalty
        if g.deposit_penalty_short == "all_in":
            amount = min(amount, max(state.scores[seat], 0))
        d[seat] -= amount
        state.kyoutaku += amount
        state.hand_deposits.append((seat, amount))
    elif kind == "agari_houki":
        if not g.agari_houki:
            raise GameEventError(
                line, f"these rules have no agari-houki ({_rule(rules, 'game', 'agari_houki')})",
                reason="no_agari_houki", **_rule_values(rules, "game", "agari_houki"),
            )
        state.houki.add(seat)
    elif kind == "points":
        d = _points_penalty(state, line, ev, seat)
    else:
        raise GameEventError(
            line, f"'kind' must be one of {', '.join(PENALTY_KINDS)}, not {kind!r}",
            reason="penalty_kind", value=repr(kind), choices=", ".join(PENALTY_KINDS),
        )
    return {"deltas": d, "penalty": True}


def _points_penalty(state: GameState, line: int, ev: dict[str, Any], seat: int) -> list[int]:
    points = _int(line, ev, "points", None, low=1)
    d = [0] * state.seat_count
    if ev.get("to") is not None:
        to = _seat(state, line, ev["to"], "'to'")
        if to == seat:
            raise GameEventError(line, "a player cannot pay a penalty to themselves",
                                 reason="penalty_to_self", **seat_values(state, seat))
        d[seat], d[to] = -points, points
        return d
    if points % (state.seat_count - 1):
        raise GameEventError(
            line,
            f"{points} points cannot be split evenly among the {state.seat_count - 1} other "
            "players: give a multiple, or name the receiver with 'to'",
            reason="penalty_split", points=points, others=state.seat_count - 1,
        )
    for s in range(state.seat_count):
        d[s] = -points if s == seat else points // (state.seat_count - 1)
    return d


# --------------------------------------------------------------------------- progression
def _final_wind(state: GameState) -> int:
    if state.extension:
        return 2
    return {"tonpuu": 0, "hanchan": 1, "issou": 3}[state.rules.game.length]


def _is_last_hand(state: GameState) -> bool:
    return state.wind == _final_wind(state) and state.dealer == state.seat_count - 1


def _points_end(state: GameState) -> str:
    """Why the game ends on the points alone, or ''."""
    g = state.rules.game
    if state.yakuman_end is not None:
        return "yakuman"
    if g.bust and any(s < 0 for s in state.scores):
        return "bust"
    if g.end_at_points and any(s >= g.end_at_points for s in state.scores):
        return "points"
    if state.extension and any(s >= g.extension_target for s in state.scores):
        return "extension_target"
    return ""


def _dealer_top(state: GameState) -> bool:
    return _ranks(state.scores, state.rules.settlement.ties)[state.dealer] == 1


def _advance(state: GameState, renchan: bool, honba_up: bool, yame: str) -> None:
    """Move to the next hand, or end the game, after a hand has ended."""
    g = state.rules.game
    state.honba = state.honba + 1 if (honba_up and g.honba) else 0
    reason = _points_end(state)
    if reason:
        return _finish(state, reason)
    last = _is_last_hand(state)
    if renchan:
        mode = getattr(g, yame) if yame else "forbidden"
        if last and _dealer_top(state) and mode != "forbidden":
            if _goes_west(state) and g.extension_over_yame:
                # the yame ends the last South hand and the West round follows (002 4A
                # 「南4局終了時全員が3万点未満のとき西入」); an optional yame is not offered
                if mode == "forced":
                    _enter_west(state)
                return None
            if mode == "forced":
                return _finish(state, yame)
            state.yame_offer = yame
        return None
    if not last:
        state.dealer += 1
        if state.dealer == state.seat_count:
            state.dealer, state.wind = 0, state.wind + 1
        return None
    if _goes_west(state):
        _enter_west(state)
        return None
    return _finish(state, "last_hand")


def _goes_west(state: GameState) -> bool:
    """Whether the end of the last South hand leads into the West round (西入)."""
    target = state.rules.game.extension_target
    return bool(target) and not state.extension and all(s < target for s in state.scores)


def _enter_west(state: GameState) -> None:
    state.extension, state.wind, state.dealer = True, 2, 0


def _finish(state: GameState, reason: str) -> None:
    state.finished, state.end_reason = True, reason


def _on_end(state: GameState, line: int, ev: dict[str, Any]) -> dict[str, Any]:
    reason = ev.get("reason", "time")
    if reason in ("agari_yame", "tenpai_yame"):
        if state.yame_offer != reason:
            mode = getattr(state.rules.game, reason)
            why = (
                "the last hand's dealer is not top after a renchan"
                if mode == "optional"
                else _rule(state.rules, "game", reason)
            )
            raise GameEventError(
                line, f"{reason} is not possible now: {why}",
                reason="agari_yame_not_now" if reason == "agari_yame" else "tenpai_yame_not_now",
                **_rule_values(state.rules, "game", reason),
            )
    elif reason != "time":
        raise GameEventError(
            line, f"'reason' must be time, agari_yame or tenpai_yame, not {reason!r}",
            reason="end_reason", value=repr(reason),
        )
    # a game stopped before any hand moved a point has no standing to settle: it ends void
    # (uma and oka by seat order would rank players who never played)
    _finish(state, reason if state.hands else NO_HANDS)
    return {"deltas": [0] * state.seat_count}


def _on_start(state: GameState, line: int, ev: dict[str, Any]) -> dict[str, Any]:
    players = ev.get("players")
    n = state.rules.table.players
    if (
        not isinstance(players, list)
        or len(players) != n
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise GameEventError(
            line,
            f"'players' must list the {n} players' names in seat order "
            f"(table.players = {n}), got {players!r}",
            reason="players_list", players=n, value=repr(players),
        )
    if len(set(players)) != n:
        raise GameEventError(line, f"'players' names someone twice: {players!r}",
                             reason="player_twice", value=repr(players))
    state.players = list(players)
    state.scores = [state.rules.settlement.start_points] * n
    state.chips, state.vp_adjust = [0] * n, [0] * n
    state.started = True
    dab = ev.get("dabuken")
    if dab is not None:
        if dab not in players:
            raise GameEventError(line, f"'dabuken' must be one of the players, not {dab!r}",
                                 reason="dabuken_player", value=repr(dab))
        state.dabuken = players.index(dab)
    return {}


_HANDLERS = {
    "win": _on_win,
    "draw": _on_draw,
    "abort": _on_abort,
    "chombo": _on_chombo,
    "penalty": _on_penalty,
    "end": _on_end,
}


def _apply(state: GameState, line: int, ev: Any) -> None:
    if not isinstance(ev, dict):
        raise GameEventError(line, "each event must be a JSON object with an 'event' field",
                             reason="event_not_object")
    kind = ev.get("event")
    if kind not in EVENT_TYPES:
        raise GameEventError(line, f"'event' must be one of {', '.join(EVENT_TYPES)}, not {kind!r}",
                             reason="event_kind", value=repr(kind), choices=", ".join(EVENT_TYPES))
    if kind == "start":
        if state.started:
            raise GameEventError(line, "the game has already started", reason="started_twice")
        try:
            _on_start(state, line, ev)
        except GameEventError as e:
            raise e.about(kind) from None
        state.last_line = line
        return
    if not state.started:
        raise GameEventError(line, "the first event must be 'start' with the players",
                             reason="not_started")
    if state.finished:
        raise GameEventError(
            line,
            f"'{kind}': the game is already over ({state.end_reason}, event {state.last_line})",
            reason="game_over", end_reason=state.end_reason, last=state.last_line,
        )
    before = {"round": state.round, "honba": state.honba, "dealer": state.dealer}
    scores_before = list(state.scores)
    was_last = _is_last_hand(state)
    try:
        out = _HANDLERS[kind](state, line, ev)
    except GameEventError as e:
        raise e.about(kind) from None
    state.scores = _add(state.scores, out["deltas"])
    if out.get("chombo"):
        _redo_hand(state)
    elif "renchan" in out:
        state.yame_offer = ""
        state.hand_deposits, state.houki = [], set()
        _advance(state, out["renchan"], out["honba_up"], out["yame"])
    elif out.get("penalty") and _points_end(state):
        _finish(state, _points_end(state))
    if kind == "win" and state.finished and state.rules.game.no_losing_final_win:
        try:
            _check_final_win(state, line, out["winner"], scores_before, was_last)
        except GameEventError as e:
            raise e.about(kind) from None
    # deltas are the whole change, deposits given back by a chombo included
    deltas = [a - b for a, b in zip(state.scores, scores_before, strict=True)]
    state.hands.append(
        {
            **before,
            "kyoutaku": state.kyoutaku,
            "deltas": deltas,
            "scores": list(state.scores),
            "event": line,
            "type": kind,
        }
    )
    state.last_line = line


def _check_final_win(
    state: GameState, line: int, winner: int, before: list[int], was_last: bool
) -> None:
    """ブー麻雀: a win that ends the game against the winner's own standing is a
    chombo, not a win (002 ブー麻雀（続き） 「自身の点数状況によって以下の上がり」)."""
    if state.yakuman_end is not None:  # a yakuman is a double マルA whatever the points
        return
    floating = floating_seats(state.scores, state.rules)
    was_floating = before[winner] >= state.rules.settlement.return_points
    why = why_reason = ""
    if not was_floating and winner not in floating:
        why = (
            "「自分の沈みを確定させてゲーム終了となる上がり」: the winner was sinking and still is"
        )
        why_reason = "boo_final_win_sinking"
    elif was_floating and floating[0] != winner:
        why = "「自分がトップになれずゲーム終了となる上がり」: the winner floated, does not end top"
        why_reason = "boo_final_win_not_top"
    elif was_floating and len(floating) == 3 and not was_last:
        why = "「自分のマルCを確定させてゲーム終了となる上がり」 before the last hand"
        why_reason = "boo_final_win_maru_c"
    if why:
        raise GameEventError(
            line,
            f"this win would end the game and is a chombo under these rules: {why} "
            f"({_rule(state.rules, 'game', 'no_losing_final_win')}); record "
            f'{{"event": "chombo", "seat": {winner}}} instead',
            reason=why_reason, **seat_values(state, winner),
            **_rule_values(state.rules, "game", "no_losing_final_win"),
        )


def _redo_hand(state: GameState) -> None:
    """Chombo: the hand is replayed under the same dealer and honba, and the
    deposits made in it go back (001 チョンボ 2; 000 (3) 錯和)."""
    for seat, amount in state.hand_deposits:
        state.scores[seat] += amount
        state.kyoutaku -= amount
    state.hand_deposits, state.houki, state.yame_offer = [], set(), ""
    reason = _points_end(state)
    if reason:
        _finish(state, reason)


# --------------------------------------------------------------------------- public API
def _new_state(rules: str | Mapping[str, Any] | Rules) -> GameState:
    return GameState(rules=load_rules(rules))


def apply_event(state: GameState, line: int, event: dict[str, Any]) -> None:
    """Apply one more event (the game's ``line``-th) to a live state, in place.

    For callers that grow a game hand by hand (generators, simulations)
    without replaying it each time. Raises :class:`GameEventError`; the state
    may then be half-changed, so rebuild it with :func:`state_after`."""
    _apply(state, line, event)


def state_after(events: Iterable[dict[str, Any]],
                rules: str | Mapping[str, Any] | Rules) -> GameState:
    """The game state after ``events`` (raises :class:`GameEventError`)."""
    state = _new_state(rules)
    for line, ev in enumerate(events, start=1):
        _apply(state, line, ev)
    return state


def advance(state: GameState, event: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    """Apply one more event to a live ``state`` without changing it: the new state
    and the game's result after the event, the same dict :func:`replay` returns for
    all the events so far (the event's own record is ``result["hands"][-1]``).
    Raises :class:`GameEventError` as :func:`replay` would."""
    new = state.copy()
    _apply(new, new.last_line + 1, event)
    return new, _result(new)


def _result(state: GameState) -> dict[str, Any]:
    """The game-events contract's output for a state (see :func:`replay`)."""
    return {
        "rules": state.rules.name,
        "players": state.players,
        "hands": state.hands,
        "finished": state.finished,
        "void": is_void(state),
        "final": _final(state),
        "state": state.to_dict(),
    }


def is_void(state: GameState) -> bool:
    """Whether the game ended before any hand was recorded: it is over, and not settled."""
    return state.finished and state.end_reason == NO_HANDS


def _final(state: GameState) -> dict[str, Any] | None:
    if not state.finished or is_void(state):
        return None
    g = state.rules.game
    scores = list(state.scores)
    leftover = state.kyoutaku
    if leftover and g.leftover_deposits == "top":
        leftover = _give_leftover(scores, leftover, g.leftover_tied_tops)
    out = settle(
        scores,
        state.rules,
        chips=state.chips,
        yakuman_end=state.yakuman_end,
        dabuken=state.dabuken,
        vp_adjust=state.vp_adjust,
    )
    out["leftover_deposits"] = leftover
    out["end_reason"] = state.end_reason
    for key in ("dabuken", "next_first_dealer"):
        if key in out:
            out[key] = None if out[key] is None else state.players[out[key]]
    return out


def _give_leftover(scores: list[int], leftover: int, tied_tops: str) -> int:
    """Give the deposits left at the end to the top, in place; what stays on the table.
    Tied tops share them under ``split`` (001 基本ルール 6 「上家優先なし」): equal shares in
    whole hundreds, the odd hundreds kept off every seat so that the tie stands."""
    best = max(scores)
    tops = [s for s, points in enumerate(scores) if points == best]
    if tied_tops == "seat_order" or len(tops) == 1:
        scores[tops[0]] += leftover  # seat 0 is the first dealer: the nearest comes first
        return 0
    share = leftover // len(tops) // 100 * 100
    for s in tops:
        scores[s] += share
    return leftover - share * len(tops)


def replay(events: list[dict[str, Any]], rules: str | Mapping[str, Any] | Rules) -> dict[str, Any]:
    """Replay a whole game: the contract's output (``rules``, ``hands``,
    ``finished``, ``final``).  Raises :class:`GameEventError` on the first event
    the rules refuse."""
    return _result(state_after(events, rules))


def preview(events: list[dict[str, Any]], new_event: dict[str, Any],
            rules: str | Mapping[str, Any] | Rules) -> dict[str, Any]:
    """What ``new_event`` would do after ``events``, without keeping it:
    ``deltas``, ``scores`` and ``kyoutaku`` after it, and the next ``state``."""
    trial = state_after(events, rules)
    _apply(trial, len(events) + 1, new_event)
    rec = trial.hands[-1] if new_event.get("event") != "start" else {"deltas": [], "scores": []}
    return {
        "deltas": rec["deltas"],
        "scores": rec["scores"],
        "kyoutaku": trial.kyoutaku,
        "finished": trial.finished,
        "state": trial.to_dict(),
    }


def read_events(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Parse JSON Lines.  Trailing blank lines are ignored; a blank line inside
    the game is refused, so an event's number is always its line in the file."""
    texts = [t for t in lines]
    while texts and not texts[-1].strip():
        texts.pop()
    events: list[dict[str, Any]] = []
    for i, text in enumerate(texts, start=1):
        if not text.strip():
            raise GameEventError(i, "blank line inside the game: one event per line, no gaps",
                                 reason="blank_line")
        try:
            events.append(json.loads(text))
        except json.JSONDecodeError as e:
            raise GameEventError(i, f"not valid JSON: {e.msg} at column {e.colno}",
                                 reason="event_not_json", why=e.msg, column=e.colno) from None
    return events
