"""The strict schema of what a tablet or a script may send: events and request bodies.

Every field is known, typed and bounded before anything reaches the engine or
the database: an unknown field, a wrong type or a value out of range is
refused with 422 and the field's path (``event.winners[0].yakuman``), in the
caller's language. Bounds are what a real table can produce (a hand stacks
at most :func:`club.engine.max_yakuman` yakuman under its rules; penalties and
counters stay far inside 64-bit integers), so nothing stored can overflow the
leaderboards or bloat the immutable log.

The winner's ``hand`` (a scoring-batch input line) may leave ``riichi`` out:
it is then taken from the event's own ``riichi`` list, and a hand that says
otherwise is refused. Winds and tsumo are the engine's to know.
"""

from __future__ import annotations

from typing import Any, Callable, Container

import lexicon
from club import engine
from club.db import ID_MAX
from club.errors import Refused

RECORDABLE = ("win", "draw", "abort", "chombo", "penalty", "end")
MAX_HAN = 99
MAX_FU = 170
MAX_FAN = 999
MCR_MAXIMUM_FAN = 328
"""The most an MCR hand scores without flowers (大三元 字一色 四杠 四暗刻 by concealed kongs,
妙手回春 杠上开花 不求人 and a double wind pair: 328, the well-known ceiling, as the engine
scores it); a larger total is a typo (888 for 88), refused in words."""
MAX_DORA = 60
MAX_CHIPS = 200
MAX_POINTS = 1_000_000
MAX_SEQ = 1_000_000
MAX_TILES_TEXT = 48
MAX_COUNTER = 1000
MELD_TYPES = ("chi", "pon", "minkan", "ankan", "kakan")
MELD_FROM = ("left", "across", "right")
MAX_PICKS = 40
MAX_FLOWERS = 8
YAKU_ID = 40

Check = Callable[[Any, str, "Ctx | None"], Any]


class Ctx:
    """What a field's bounds depend on: the game's rules."""

    def __init__(self, rules: engine.Rules):
        self.rules = rules
        self.players = rules.table.players


def _rules_ctx(ctx: Ctx | None) -> Ctx:
    """The game's rules a field's bounds depend on: such a field is only checked with them
    (:func:`check_event`), so their absence is a programming error, not a request's."""
    if ctx is None:
        raise TypeError("a field whose bounds depend on the rules was checked without them")
    return ctx


def refuse(key: str, path: str, **values: Any) -> Refused:
    """A schema refusal naming the field (422, code ``invalid_field``)."""
    return Refused(f"field.{key}", code="invalid_field", details={"field": path}, field=path,
                   **values)


# --------------------------------------------------------------------------- field checks
def whole(low: int, high: int | Callable[[Ctx], int]) -> Check:
    """A whole number from ``low`` to ``high`` (a bound that may depend on the rules)."""
    def check(value: Any, path: str, ctx: Ctx | None) -> int:
        top = high(_rules_ctx(ctx)) if callable(high) else high
        if isinstance(value, bool) or not isinstance(value, int):
            raise refuse("not_whole", path, low=low, high=top)
        if not low <= value <= top:
            raise refuse("out_of_range", path, low=low, high=top, value=value)
        return value
    return check


def seat(value: Any, path: str, ctx: Ctx | None) -> int:
    """A seat number of this game (0 = the first dealer)."""
    return whole(0, lambda c: c.players - 1)(value, path, ctx)


def seats(value: Any, path: str, ctx: Ctx | None) -> list[int]:
    """A list of different seat numbers."""
    players = _rules_ctx(ctx).players
    if not isinstance(value, list):
        raise refuse("not_seat_list", path, high=players - 1)
    if len(value) > players:
        raise refuse("too_many", path, most=players)
    out = [seat(v, f"{path}[{i}]", ctx) for i, v in enumerate(value)]
    if len(set(out)) != len(out):
        raise refuse("seat_twice", path)
    return out


def flag(value: Any, path: str, ctx: Ctx | None) -> bool:
    if not isinstance(value, bool):
        raise refuse("not_bool", path)
    return value


def text(most: int) -> Check:
    def check(value: Any, path: str, ctx: Ctx | None) -> str:
        if not isinstance(value, str):
            raise refuse("not_text", path)
        if len(value) > most:
            raise refuse("too_long", path, most=most)
        return value
    return check


def choice(options: tuple) -> Check:
    def check(value: Any, path: str, ctx: Ctx | None) -> str:
        if not isinstance(value, str) or value not in options:
            raise refuse("not_choice", path, options=", ".join(options))
        return value
    return check


def _at(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def obj(fields: dict[str, Check], required: tuple = ()) -> Check:
    """An object with only ``fields`` (each checked), ``required`` among them."""
    def check(value: Any, path: str, ctx: Ctx | None) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise refuse("not_object", path or "body")
        for name in value:
            if name not in fields:
                raise refuse("unknown", _at(path, name), known=", ".join(fields))
        for name in required:
            if name not in value:
                raise refuse("required", _at(path, name))
        return {k: fields[k](v, _at(path, k), ctx) for k, v in value.items()}
    return check


def items(each: Check, least: int, most: int | Callable[[Ctx], int]) -> Check:
    def check(value: Any, path: str, ctx: Ctx | None) -> list[Any]:
        top = most(_rules_ctx(ctx)) if callable(most) else most
        if not isinstance(value, list):
            raise refuse("not_list", path)
        if not least <= len(value) <= top:
            raise refuse("list_length", path, least=least, most=top)
        return [each(v, f"{path}[{i}]", ctx) for i, v in enumerate(value)]
    return check


# --------------------------------------------------------------------------- the event
TILES = text(MAX_TILES_TEXT)
MELD = obj({"type": choice(MELD_TYPES), "tiles": text(20), "from": choice(MELD_FROM)},
           required=("type", "tiles"))
HAND = obj({
    "hand": TILES, "win": text(4), "melds": items(MELD, 0, 4), "dora": TILES, "ura": TILES,
    "seat_wind": choice(tuple(engine.WINDS)), "round_wind": choice(tuple(engine.WINDS)),
    "flowers": whole(0, 8),
    **{name: flag for name in (*engine.HAND_FLAGS, *engine.MCR_FLAGS)},
    **{name: whole(0, MAX_COUNTER) for name in engine.HAND_COUNTERS},
}, required=("hand", "win"))
YAKU_PICK = obj({"id": text(YAKU_ID), "han": whole(0, MAX_HAN),
                 "yakuman": whole(1, 2)}, required=("id",))
FAN_PICK = obj({"id": text(YAKU_ID), "count": whole(1, 4), "points": whole(1, 88 * 4)},
               required=("id",))
WINNER = obj({
    "seat": seat, "han": whole(0, MAX_HAN), "fu": whole(0, MAX_FU), "fan": whole(0, MAX_FAN),
    "yakuman": whole(0, lambda c: engine.max_yakuman(c.rules)), "dora": whole(0, MAX_DORA),
    "aka": whole(0, MAX_DORA), "ura": whole(0, MAX_DORA), "nukidora": whole(0, MAX_FLOWERS),
    "ippatsu": flag, "pocchi": flag, "open": flag,
    "yaku": items(YAKU_PICK, 0, MAX_PICKS), "fans": items(FAN_PICK, 0, MAX_PICKS),
    "flowers": whole(0, MAX_FLOWERS),
    "chips": whole(0, MAX_CHIPS), "pao": seat, "hand": HAND,
}, required=("seat",))
EVENTS: dict[str, Check] = {
    "win": obj({"winners": items(WINNER, 1, lambda c: c.players - 1),
                "from": seat, "riichi": seats}, required=("winners",)),
    "draw": obj({"tenpai": seats, "riichi": seats, "nagashi": seats, "chombo": seats}),
    "abort": obj({"kind": choice(engine.ABORT_KINDS), "riichi": seats, "seat": seat,
                  "nukidora": whole(0, MAX_FLOWERS)}, required=("kind",)),
    "chombo": obj({"seat": seat, "riichi": seats}, required=("seat",)),
    "penalty": obj({"seat": seat, "kind": choice(engine.PENALTY_KINDS),
                    "points": whole(1, MAX_POINTS), "to": seat}, required=("seat", "kind")),
    "end": obj({"reason": choice(engine.END_REASONS)}),
}


def check_event(event: Any, rules: engine.Rules, path: str = "event") -> dict:
    """``event`` if the schema allows it (a new dict), else Refused naming the field."""
    if not isinstance(event, dict):
        raise refuse("not_object", path)
    kind = event.get("event")
    if kind not in RECORDABLE:
        raise refuse("not_choice", f"{path}.event", options=", ".join(RECORDABLE))
    rest = {k: v for k, v in event.items() if k != "event"}
    out = {"event": kind, **EVENTS[kind](rest, path, Ctx(rules))}
    if kind == "win":
        _riichi_of_hands(out, path)
        for i, w in enumerate(out["winners"]):
            winner_facts(w, out, rules, f"{path}.winners[{i}]")
    return out


def _riichi_of_hands(event: dict, path: str) -> None:
    """A tile-entered winner's riichi is the event's own: filled in, or refused if it differs."""
    declared = set(event.get("riichi") or [])
    for i, w in enumerate(event["winners"]):
        hand = w.get("hand")
        if hand is None:
            continue
        said = hand.setdefault("riichi", w["seat"] in declared)
        if said != (w["seat"] in declared):
            raise refuse("riichi_differs", f"{path}.winners[{i}].hand.riichi", seat=w["seat"])


# --------------------------------------------------------------------------- request bodies
def check_body(data: Any, fields: dict[str, Check], required: tuple = (),
               rules: engine.Rules | None = None) -> dict:
    """A request body with only ``fields`` (each checked), ``required`` among them."""
    return obj(fields, required)(data, "", Ctx(rules) if rules is not None else None)


def game_id(value: Any, path: str, ctx: Ctx | None) -> int:
    return whole(1, ID_MAX)(value, path, ctx)


def expected_seq(value: Any, path: str, ctx: Ctx | None) -> int:
    return whole(1, MAX_SEQ)(value, path, ctx)


def idempotency_key(value: Any, path: str, ctx: Ctx | None) -> str:
    if not isinstance(value, str) or not 8 <= len(value) <= 100:
        raise refuse("idempotency_key", path)
    return value


def event_field(value: Any, path: str, ctx: Ctx | None) -> Any:
    """Passed on as it is: checked by :func:`check_event` once the game's rules are known."""
    return value


# --------------------------------------------------------------------------- a winner's facts
TSUMO_ONLY = frozenset({"menzen_tsumo", "rinshan", "tenhou", "chiihou"})
RON_ONLY = frozenset({"chankan", "houtei", "renhou"})
RIICHI_YAKU = ("riichi", "double_riichi", "open_riichi")
TOGETHER_NEVER = (
    # yaku no reading of one hand can hold at once
    ("riichi", "double_riichi"), ("riichi", "open_riichi"), ("double_riichi", "open_riichi"),
    ("iipeikou", "ryanpeikou"), ("chanta", "junchan"), ("honitsu", "chinitsu"),
    ("chanta", "honroutou"), ("junchan", "honroutou"), ("rinshan", "haitei"),
    ("chankan", "houtei"), ("chankan", "haitei"), ("rinshan", "houtei"),
    ("chiitoitsu", "pinfu"), ("chiitoitsu", "iipeikou"), ("chiitoitsu", "ryanpeikou"),
    ("chiitoitsu", "toitoi"), ("chiitoitsu", "sanankou"), ("pinfu", "toitoi"),
)


def winner_facts(w: dict, event: dict, rules: engine.Rules, path: str) -> None:
    """Check what a winner entered by han/fu, yaku, fans or counts says against itself, the
    event and the rules (refused naming the field), and fill in what follows from it: the
    chips (★) a han/fu winner earns when the event does not give them (``chips.*``)."""
    if "hand" in w:
        return
    if rules.table.family == "mcr":
        _mcr_winner(w, rules, path)
        return
    tsumo = event.get("from") is None
    if w.get("yaku"):
        _yaku_winner(w, event, rules, path, tsumo)
    if rules.chips.enabled and "chips" not in w:
        chips = _chips(w, rules, tsumo)
        if chips:
            w["chips"] = chips


def _pick_values(w: dict, rules: engine.Rules, path: str) -> tuple[int, int]:
    """(han, yakuman) the picked yaku add up to, each pick checked against the registry."""
    table = {y["id"]: y for y in engine.yaku_choices(rules)}
    opened = w.get("open", False)
    han = yakuman = 0
    seen: set = set()
    for i, pick in enumerate(w["yaku"]):
        at = f"{path}.yaku[{i}]"
        y = _looked_up(table, pick, at, seen, "yaku_unknown", _names)
        seen.add(y["id"])
        if y["yakuman"]:
            if pick.get("yakuman", y["yakuman"]) != y["yakuman"]:
                raise refuse("yaku_value", f"{at}.yakuman", value=y["yakuman"], **_names(y))
            yakuman += y["yakuman"]
            continue
        value = y["open"] if opened else y["closed"]
        if not value:
            raise refuse("yaku_closed_only", f"{at}.id", **_names(y))
        if pick.get("han", value) != value:
            raise refuse("yaku_value", f"{at}.han", value=value, **_names(y))
        pick["han"] = value
        han += value
    for a, b in TOGETHER_NEVER:
        if a in seen and b in seen:
            raise refuse("yaku_together", f"{path}.yaku", **_names(table[a]),
                         **_names(table[b], "other"))
    if not rules.hand.yakuman_stacking:
        yakuman = min(yakuman, 1)
    return han, yakuman


def _yaku_winner(w: dict, event: dict, rules: engine.Rules, path: str, tsumo: bool) -> None:
    han, yakuman = _pick_values(w, rules, path)
    ids = {p["id"] for p in w["yaku"]}
    # with houtei folded into haitei (hand.houtei_as_haitei) haitei is a ron's too
    tsumo_only = TSUMO_ONLY | (set() if rules.hand.houtei_as_haitei else {"haitei"})
    wrong = tsumo_only & ids if not tsumo else RON_ONLY & ids
    if wrong:
        table = {y["id"]: y for y in engine.yaku_choices(rules)}
        raise refuse("yaku_tsumo_only" if not tsumo else "yaku_ron_only", f"{path}.yaku",
                     **_names(table[sorted(wrong)[0]]))
    declared = w["seat"] in (event.get("riichi") or [])
    if declared != bool(ids & set(RIICHI_YAKU)):
        raise refuse("riichi_yaku" if declared else "yaku_needs_riichi", f"{path}.yaku")
    if "ippatsu" in ids and not declared:
        raise refuse("yaku_needs_riichi", f"{path}.yaku")
    if yakuman:
        if w.get("yakuman", yakuman) != yakuman:
            raise refuse("yakuman_sum", f"{path}.yakuman", count=yakuman)
        w["yakuman"] = yakuman
        return
    total = han + _counted_han(w, rules)
    if w.get("han", total) != total:
        raise refuse("han_sum", f"{path}.han", han=total)
    w["han"] = total


def _counted_han(w: dict, rules: engine.Rules) -> int:
    """The han dora, red fives, ura and nukidora add where they are han."""
    return sum(w.get(name, 0) for name, c in engine.counters(rules).items() if c["han"])


def _chips(w: dict, rules: engine.Rules, tsumo: bool) -> int:
    """Chips (★) each payer owes a han/fu winner, from the counts and flags entered."""
    reds = sum(rules.table.red_fives)
    ids = {p["id"] for p in w.get("yaku", ())}
    yakuman = w.get("yakuman", 0)
    facts = {"ura": w.get("ura", 0), "aka": w.get("aka", 0),
             "ippatsu": bool(w.get("ippatsu") or "ippatsu" in ids),
             "pocchi": bool(w.get("pocchi")), "yakuman": yakuman,
             "kazoe": not yakuman and w.get("han", 0) >= 13 and rules.hand.kazoe_yakuman,
             "all_star": bool(reds) and w.get("aka", 0) >= reds,
             "tsumo": tsumo, "closed": not w.get("open", False)}
    return engine.chips_for(rules, facts)["each"]


def _mcr_winner(w: dict, rules: engine.Rules, path: str) -> None:
    """MCR: ``fan`` is what the win is paid on, flowers included; ``flowers`` how many of
    those points are flowers; the fans themselves must reach 8 (004 上がり); picked ``fans``
    must add up and not be excluded by one another."""
    flowers = w.get("flowers", 0)
    if flowers > rules.table.flowers:
        raise refuse("too_many_flowers", f"{path}.flowers", most=rules.table.flowers)
    if w.get("fans"):
        total = _fan_picks(w, rules, path) + flowers
        if w.setdefault("fan", total) != total:
            raise refuse("fan_sum", f"{path}.fan", fan=total)
    fan = w.get("fan", w.get("han", 0))
    if fan - flowers < engine.MCR_MINIMUM_FAN:
        raise refuse("mcr_minimum", f"{path}.fan", fan=fan - flowers,
                     minimum=engine.MCR_MINIMUM_FAN)
    if fan - flowers > MCR_MAXIMUM_FAN:
        raise refuse("mcr_maximum", f"{path}.fan", fan=fan - flowers, most=MCR_MAXIMUM_FAN)


def _fan_picks(w: dict, rules: engine.Rules, path: str) -> int:
    table = {f["id"]: f for f in engine.mcr_fans(rules)}
    seen: dict = {}
    for i, pick in enumerate(w["fans"]):
        at = f"{path}.fans[{i}]"
        f = _looked_up(table, pick, at, seen, "fan_unknown", _fan_names)
        count = pick.get("count", 1)
        if count > 1 and not f["repeat"]:
            raise refuse("fan_once", f"{at}.count", **_fan_names(f))
        points = f["points"] * count
        if pick.get("points", points) != points:
            raise refuse("yaku_value", f"{at}.points", value=points, **_fan_names(f))
        pick.update(count=count, points=points)
        seen[f["id"]] = f
    for f in seen.values():
        for other in f["excludes"]:
            if other in seen:
                raise refuse("fan_excluded", f"{path}.fans", **_fan_names(f),
                             **_fan_names(seen[other], "other"))
    return sum(p["points"] for p in w["fans"])


def _looked_up(table: dict, pick: dict, at: str, seen: Container[str], unknown: str,
               names: Callable[[dict], dict]) -> dict:
    """The registry row a pick names, refused if there is none or it was picked already."""
    row = table.get(pick["id"])
    if row is None:
        raise refuse(unknown, f"{at}.id", value=pick["id"][:YAKU_ID])
    if row["id"] in seen:
        raise refuse("yaku_twice", f"{at}.id", **names(row))
    return row


def _names(y: dict, key: str = "yaku") -> dict:
    """A yaku named in a refusal, in both languages (the sentence picks its own)."""
    return {f"{key}_ja": y["ja"], f"{key}_en": y["en"]}


def _fan_names(f: dict, key: str = "yaku") -> dict:
    """An MCR fan named in a refusal, in Japanese kanji (四槓, not the rulebook's 四杠) and
    in English."""
    return {f"{key}_ja": lexicon.t(f"mcr.fan.{f['id']}", "ja"), f"{key}_en": f["en"]}
