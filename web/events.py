"""The strict schema of what a tablet or a script may send: events and request bodies.

Every field is known, typed and bounded before anything reaches the engine or
the database: an unknown field, a wrong type or a value out of range is
refused with 422 and the field's path (``event.winners[0].yakuman``), in the
caller's language. Bounds are what a real table can produce (a hand stacks
at most :func:`web.engine.max_yakuman` yakuman under its rules; penalties and
counters stay far inside 64-bit integers), so nothing stored can overflow the
leaderboards or bloat the immutable log.

The winner's ``hand`` (a scoring-batch input line) may leave ``riichi`` out:
it is then taken from the event's own ``riichi`` list, and a hand that says
otherwise is refused. Winds and tsumo are the engine's to know.
"""

from __future__ import annotations

from typing import Any, Callable

from . import engine
from .errors import Refused
from .limits import ID_MAX

RECORDABLE = ("win", "draw", "abort", "chombo", "penalty", "end")
MAX_HAN = 99
MAX_FU = 170
MAX_FAN = 999
MAX_DORA = 60
MAX_CHIPS = 200
MAX_POINTS = 1_000_000
MAX_SEQ = 1_000_000
MAX_TILES_TEXT = 48
MAX_COUNTER = 1000
MELD_TYPES = ("chi", "pon", "minkan", "ankan", "kakan")
MELD_FROM = ("left", "across", "right")

Check = Callable[[Any, str, "Ctx"], Any]


class Ctx:
    """What a field's bounds depend on: the game's rules."""

    def __init__(self, rules: engine.Rules):
        self.rules = rules
        self.players = rules.table.players


def refuse(key: str, path: str, **values) -> Refused:
    """A schema refusal naming the field (422, code ``invalid_field``)."""
    return Refused(f"field.{key}", code="invalid_field", details={"field": path}, field=path,
                   **values)


# --------------------------------------------------------------------------- field checks
def whole(low: int, high: int | Callable[[Ctx], int]) -> Check:
    """A whole number from ``low`` to ``high`` (a bound that may depend on the rules)."""
    def check(value, path, ctx):
        top = high(ctx) if callable(high) else high
        if isinstance(value, bool) or not isinstance(value, int):
            raise refuse("not_whole", path, low=low, high=top)
        if not low <= value <= top:
            raise refuse("out_of_range", path, low=low, high=top, value=value)
        return value
    return check


def seat(value, path, ctx):
    """A seat number of this game (0 = the first dealer)."""
    return whole(0, lambda c: c.players - 1)(value, path, ctx)


def seats(value, path, ctx):
    """A list of different seat numbers."""
    if not isinstance(value, list):
        raise refuse("not_seat_list", path, high=ctx.players - 1)
    if len(value) > ctx.players:
        raise refuse("too_many", path, most=ctx.players)
    out = [seat(v, f"{path}[{i}]", ctx) for i, v in enumerate(value)]
    if len(set(out)) != len(out):
        raise refuse("seat_twice", path)
    return out


def flag(value, path, ctx):
    if not isinstance(value, bool):
        raise refuse("not_bool", path)
    return value


def text(most: int) -> Check:
    def check(value, path, ctx):
        if not isinstance(value, str):
            raise refuse("not_text", path)
        if len(value) > most:
            raise refuse("too_long", path, most=most)
        return value
    return check


def choice(options: tuple) -> Check:
    def check(value, path, ctx):
        if not isinstance(value, str) or value not in options:
            raise refuse("not_choice", path, options=", ".join(options))
        return value
    return check


def _at(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def obj(fields: dict[str, Check], required: tuple = ()) -> Check:
    """An object with only ``fields`` (each checked), ``required`` among them."""
    def check(value, path, ctx):
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
    def check(value, path, ctx):
        top = most(ctx) if callable(most) else most
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
WINNER = obj({
    "seat": seat, "han": whole(0, MAX_HAN), "fu": whole(0, MAX_FU), "fan": whole(0, MAX_FAN),
    "yakuman": whole(0, lambda c: engine.max_yakuman(c.rules)), "dora": whole(0, MAX_DORA),
    "chips": whole(0, MAX_CHIPS), "pao": seat, "hand": HAND,
}, required=("seat",))
EVENTS: dict[str, Check] = {
    "win": obj({"winners": items(WINNER, 1, lambda c: c.players - 1),
                "from": seat, "riichi": seats}, required=("winners",)),
    "draw": obj({"tenpai": seats, "riichi": seats, "nagashi": seats}),
    "abort": obj({"kind": choice(engine.ABORT_KINDS), "riichi": seats},
                 required=("kind",)),
    "chombo": obj({"seat": seat}, required=("seat",)),
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


def game_id(value, path, ctx):
    return whole(1, ID_MAX)(value, path, ctx)


def expected_seq(value, path, ctx):
    return whole(1, MAX_SEQ)(value, path, ctx)


def idempotency_key(value, path, ctx):
    if not isinstance(value, str) or not 8 <= len(value) <= 100:
        raise refuse("idempotency_key", path)
    return value


def event_field(value, path, ctx):
    """Passed on as it is: checked by :func:`check_event` once the game's rules are known."""
    return value
