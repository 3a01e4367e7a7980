"""Chips (祝儀, チップ, ★) a win earns, per house rule (``rules.chips``).

000 (7) チップ and 002 (★) agree on who pays: on a ron the discarder pays
every chip, on a tsumo each other player pays it (「ツモあがりの場合全員から
…枚数づつ、ロンあがりの場合放銃者から…枚数だけ」; 002 「★5オール」).
The exceptions are yakuman and counted yakuman, where a ron pays
``chips.yakuman_ron_factor`` times the tsumo chips (000: 2 オール / 3; 002:
★5 オール / ★10, ★3 オール / ★6).
"""

from __future__ import annotations

from typing import Any, Final, Mapping

from .errors import InvalidInput
from .rules import Rules

KINDS: Final = ("ura", "aka", "all_star", "ippatsu", "pocchi", "yakuman", "kazoe")
_COUNTS: Final = ("ura", "aka", "yakuman", "pocchi")
_FLAGS: Final = ("ippatsu", "kazoe", "all_star", "tsumo", "closed")


def _read_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """Typed copy of the facts, absent ones 0/false; other keys are ignored so a
    hand's whole fact dict (dora, nukidora, ...) may be passed."""
    if not isinstance(facts, Mapping):
        raise InvalidInput(
            f"chip facts must be a mapping such as {{'ura': 1, 'tsumo': true}}, not {facts!r}",
            reason="chip_facts_type", value=repr(facts),
        )
    out: dict[str, Any] = {}
    for key in _COUNTS:
        v = facts.get(key, 0)
        if type(v) is not int or v < 0:
            if type(v) is not bool:  # pocchi may come as a flag
                raise InvalidInput(
                    f"chip fact {key!r} must be a count of 0 or more, not {v!r}",
                    reason="not_a_count", field=key, low=0, value=repr(v),
                )
            v = int(v)
        out[key] = v
    for key in _FLAGS:
        v = facts.get(key, False)
        if v is not True and v is not False:
            if type(v) is not int or v not in (0, 1):
                raise InvalidInput(f"chip fact {key!r} must be true or false, not {v!r}",
                                   reason="field_not_bool", field=key, value=repr(v))
            v = bool(v)
        out[key] = v
    return out


def _ron_chips(rules: Rules, tsumo_each: int) -> int:
    # Round halves up: 000 says ron = 1.5 x tsumo (2 -> 3), so 1 -> 2, 3 -> 5.
    return int(tsumo_each * rules.chips.yakuman_ron_factor + 0.5)


def _limit_chips(rules: Rules, f: dict[str, Any]) -> tuple[int, int]:
    """(yakuman, kazoe) chips per payer."""
    c = rules.chips
    yakuman = c.yakuman_tsumo if f["yakuman"] else 0
    kazoe = c.kazoe_tsumo if f["kazoe"] and not f["yakuman"] else 0
    if not f["tsumo"]:
        yakuman, kazoe = _ron_chips(rules, yakuman), _ron_chips(rules, kazoe)
    return yakuman, kazoe


def limit_chips(rules: Rules, *, yakuman: bool, kazoe: bool) -> int:
    """The chips each payer of a tsumo pays for a yakuman or a counted yakuman (0 otherwise)."""
    c = rules.chips
    if not c.enabled:
        return 0
    if yakuman:
        return c.yakuman_tsumo
    return c.kazoe_tsumo if kazoe else 0


def as_discarder(rules: Rules, each: int, limit: int) -> int:
    """A tsumo's chips (``each`` per payer, ``limit`` of them for a yakuman or counted
    yakuman) paid by one player as a discarder would pay them: the limit chips take
    ``chips.yakuman_ron_factor``, every other chip is paid once (000 (8) 包 「確定させた人が
    放銃したものとして扱います。役満御祝儀は、確定させた人が放銃したものとして払います」)."""
    return each - limit + _ron_chips(rules, limit)


def award_chips(rules: Rules, facts: Mapping[str, Any]) -> dict[str, Any]:
    """Chips for one win.

    ``facts``: ``ura`` (ura-dora count), ``aka`` (red fives in the hand),
    ``ippatsu``, ``yakuman`` (count), ``kazoe`` (counted yakuman),
    ``pocchi`` (won on the pocchi), ``all_star`` (every red five of the set),
    ``tsumo``, ``closed`` (menzen). Returns the chips *each payer* pays per
    kind (``ura``, ``aka``, ``all_star``, ``ippatsu``, ``pocchi``,
    ``yakuman``, ``kazoe``), ``each`` (their sum), ``from`` (``"discarder"`` or
    ``"each"``), ``payers`` and ``total`` (what the winner receives).
    """
    f = _read_facts(facts)
    payers = rules.table.players - 1 if f["tsumo"] else 1
    out: dict[str, int | str] = dict.fromkeys(KINDS, 0)
    c = rules.chips
    if c.enabled:
        out["ura"] = c.ura * f["ura"]
        if f["closed"] or not c.aka_closed_only:
            out["aka"] = c.aka * f["aka"]
            out["all_star"] = c.all_star if f["all_star"] else 0
        out["ippatsu"] = c.ippatsu if f["ippatsu"] else 0
        out["pocchi"] = c.pocchi if f["pocchi"] else 0
        out["yakuman"], out["kazoe"] = _limit_chips(rules, f)
    each = sum(out.values())  # type: ignore[arg-type]  # only the int kinds so far
    out.update(
        {
            "each": each,
            "from": "each" if f["tsumo"] else "discarder",
            "payers": payers,
            "total": each * payers,
        }
    )
    return out
