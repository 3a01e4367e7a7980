"""Han and fu into payments, per house rule; honba, deposits and noten payments.

Everything here is read from ``rules.points`` (and the few ``hand``/``fu``
switches that say which han/fu pairs can occur); nothing tests a preset's
name.

Two ways to price a hand:

* **with fu** (``fu.use_fu = true``): the basic points ``fu x 2^(han+2)``
  (000 (4) 「4 × 符 × (2**翻数) × 4」 is the non-dealer ron, i.e. four times
  the basic points), capped at mangan, then the limits by han (5 mangan, 6-7
  haneman, 8-10 baiman, 11-12 sanbaiman, 13+ counted yakuman or sanbaiman).
  Each payment is rounded up to 100 on its own (000 (4); rounding the total
  first, as 000 words it, gives the same figures for every han/fu pair).
* **without fu** (``fu.use_fu = false``): a price list given as data in
  ``points.nofu_table`` (002 点数表 (符計算なしルール); 003 点数).

``pay`` follows contracts/scoring-batch.md: ``{"ron": n}``, ``{"dealer": a,
"non_dealer": b}`` (each non-dealer pays ``b``) or ``{"all": n}``; ``value``
is the sum of what the payers hand over (honba and deposits excluded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Sequence

from .errors import InvalidInput, RulesError
from .rules import LIMITS, Rules

LIMIT_BASE: Final = {
    "mangan": 2000, "haneman": 3000, "baiman": 4000, "sanbaiman": 6000, "yakuman": 8000
}
MANGAN_BASE: Final = 2000
KIRIAGE_BASE: Final = 1920  # 30 fu 4 han and 60 fu 3 han: 1,920 basic points (7,700 / 11,600)
MAX_FU: Final = 110  # the point tables of 000 and 002 stop at 110 fu ...
MAX_FU_RARE: Final = 140  # ... but kans and a 4-fu double-wind pair reach 120-140 from 2 han
LIMIT_FU_HAN: Final = 5  # from 5 han the fu no longer matter


@dataclass(frozen=True)
class HandValue:
    """What a hand is worth: ``limit`` names the limit paid (None below mangan),
    ``value`` sums the payments, ``pay`` is per payer (see module doc)."""

    han: int
    fu: int
    yakuman: int
    limit: str | None
    value: int
    pay: dict[str, Any]


def _up100(x: float) -> int:
    return int(-(-x // 100) * 100)


def _whole(name: str, value: Any, low: int = 0) -> int:
    if type(value) is not int or value < low:  # type(): a bool is not a count
        raise InvalidInput(f"{name} must be a whole number of at least {low}, not {value!r}",
                           reason="not_a_count", field=name, low=low, value=repr(value))
    return value


# --------------------------------------------------------------------------- which pairs exist
def _fu_options(rules: Rules, han: int, tsumo: bool) -> list[int]:
    """The fu a hand of ``han`` han (below mangan) can have under these rules."""
    out = []
    if tsumo and rules.hand.pinfu_tsumo and han >= 2:
        out.append(20)  # closed pinfu tsumo: pinfu + menzen tsumo, no tsumo fu
    if not tsumo and rules.fu.open_pinfu_fu == 20 and han >= (1 if rules.hand.open_pinfu else 0):
        out.append(20)  # ブー麻雀: an open pinfu-shaped ron is 20 fu
    if han >= (3 if tsumo else 2):
        out.append(rules.fu.chiitoitsu_fu)  # seven pairs: 2 han, +1 menzen tsumo
    out += list(range(30, (MAX_FU if han < 2 else MAX_FU_RARE) + 1, 10))
    return out


def _min_han(rules: Rules) -> int:
    return rules.hand.min_han


def han_fu_pairs(rules: Rules, *, tsumo: bool) -> list[tuple[int, int]]:
    """Every (han, fu) a winning hand can have under ``rules`` (what the tablet offers).

    Below 5 han each fu that can occur; from 5 han up to 13 the fu do not
    matter and the pair is ``(han, 0)``. Without fu every han is ``(han, 0)``.
    """
    low = _min_han(rules)
    if not rules.fu.use_fu:
        return [(h, 0) for h in range(max(low, 1), 14)]
    pairs = [(h, f) for h in range(low, LIMIT_FU_HAN) for f in _fu_options(rules, h, tsumo)]
    return pairs + [(h, 0) for h in range(LIMIT_FU_HAN, 14)]


def _why_not_20(rules: Rules, tsumo: bool) -> str:
    if tsumo:
        if rules.hand.pinfu_tsumo:
            return "20 fu is only a closed pinfu tsumo of 2 han or more"
        return "this rule has no 20 fu tsumo (no pinfu tsumo)"
    if rules.fu.open_pinfu_fu == 20:
        return "a 20 fu ron is an open pinfu, which is itself 1 han"
    return (
        "a closed ron gets 10 fu and an open 20 fu hand is paid as 30 fu, so a ron is never 20 fu"
    )


def _refuse_pair(rules: Rules, han: int, fu: int, tsumo: bool) -> None:
    how = "tsumo" if tsumo else "ron"
    options = sorted(_fu_set(rules, han, tsumo))
    if fu < 20:
        why = "every hand has at least the 20 fu base (副底)"
    elif fu % 10 and fu != rules.fu.chiitoitsu_fu:
        why = (
            "fu are rounded up to a multiple of 10 "
            f"(only seven pairs have {rules.fu.chiitoitsu_fu})"
        )
    elif fu == rules.fu.chiitoitsu_fu:
        why = "seven pairs are at least 2 han, and 3 on a tsumo (menzen tsumo)"
    elif fu == 20:
        why = _why_not_20(rules, tsumo)
    else:
        why = f"no 1-han hand has more than {MAX_FU} fu and no hand more than {MAX_FU_RARE}"
    choices = ", ".join(map(str, options))
    raise InvalidInput(
        f"{han} han {fu} fu does not occur on a {how}: {why}; at {han} han choose one of "
        f"{choices} fu",
        reason="han_fu_pair_tsumo" if tsumo else "han_fu_pair_ron", han=han, fu=fu,
        choices=choices,
    )


def _fu_set(rules: Rules, han: int, tsumo: bool) -> frozenset[int]:
    """:func:`_fu_options` as a set, computed once per rule object (the batch prices
    every reading of every hand, so this is on the hot path)."""
    sets: dict[Any, frozenset[int]] | None = rules.memo.get("fu_sets")
    if sets is None:
        sets = {
            (h, t): frozenset(_fu_options(rules, h, t))
            for h in range(LIMIT_FU_HAN)
            for t in (False, True)
        }
        sets["limit"] = frozenset((0, 20, rules.fu.chiitoitsu_fu, *range(30, MAX_FU_RARE + 1, 10)))
        rules.memo.put("fu_sets", sets)
    return sets["limit" if han >= LIMIT_FU_HAN else (han, tsumo)]


def _check_pair(rules: Rules, han: int, fu: int, tsumo: bool) -> None:
    if fu in _fu_set(rules, han, tsumo) and han >= _min_han(rules):
        return  # the common case, decided by one set lookup
    if han < _min_han(rules):
        raise InvalidInput(
            f"{han} han is below this rule's minimum of {_min_han(rules)} han (hand.min_han): "
            "a hand without enough han cannot win",
            reason="below_min_han", han=han, min_han=_min_han(rules),
        )
    # from 5 han the fu do not matter: 0 or any fu a hand can have
    _refuse_pair(rules, han, fu, tsumo)


# --------------------------------------------------------------------------- with fu
def _limit_by_han(rules: Rules, han: int) -> str | None:
    if han >= 13:
        return "yakuman" if rules.hand.kazoe_yakuman else "sanbaiman"
    for low, name in ((11, "sanbaiman"), (8, "baiman"), (6, "haneman"), (5, "mangan")):
        if han >= low:
            return name
    return None


def _capped(rules: Rules, limit: str | None) -> str | None:
    """Apply ``points.max_limit``: nothing is paid above it (ブー麻雀: mangan)."""
    top = rules.points.max_limit
    if limit is not None and LIMITS.index(limit) > LIMITS.index(top):
        return top
    return limit


def basic_points(rules: Rules, *, han: int, fu: int, yakuman: int = 0) -> tuple[int, str | None]:
    """``(basic points, limit)`` of a hand priced with fu; no check that the pair occurs.

    Basic points are a quarter of a non-dealer's ron (基本点). Used by
    :func:`hand_value` and to reproduce the rulebook point tables cell by cell.
    """
    if yakuman:
        capped = _capped(rules, "yakuman") or "yakuman"  # a cap names a limit, never none
        return LIMIT_BASE[capped] * (yakuman if capped == "yakuman" else 1), capped
    limit = _limit_by_han(rules, han)
    if limit is None:
        base = fu * 2 ** (han + 2)
        if base >= MANGAN_BASE or (rules.points.kiriage_mangan and base >= KIRIAGE_BASE):
            limit = "mangan"
    limit = _capped(rules, limit)
    return (LIMIT_BASE[limit] if limit else fu * 2 ** (han + 2)), limit


def _pay_from_base(rules: Rules, base: int, *, dealer: bool, tsumo: bool) -> dict[str, int]:
    if not tsumo:
        return {"ron": _up100(base * (6 if dealer else 4))}
    # Three players without tsumo loss (折半): the absent North's share (2x base
    # from a dealer's tsumo, 1x from a non-dealer's) is split between the payers.
    split = rules.table.players == 3 and not rules.points.tsumo_loss
    if dealer:
        return {"all": _up100(base * (3 if split else 2))}
    if split:
        return {"dealer": _up100(base * 2.5), "non_dealer": _up100(base * 1.5)}
    return {"dealer": _up100(base * 2), "non_dealer": _up100(base)}


# --------------------------------------------------------------------------- without fu
def _nofu_row(rules: Rules, han: int, yakuman: int) -> dict[str, Any]:
    table = rules.points.nofu_table
    if yakuman or (han >= 13 and rules.hand.kazoe_yakuman):
        want = _capped(rules, "yakuman")
        row: dict[str, Any] | None = next((r for r in table if r.get("limit") == want), None)
        if row is None:
            raise RulesError(
                f"points.nofu_table has no row with limit = {want!r} to pay this hand",
                reason="nofu_no_limit_row", switch="points.nofu_table", value=repr(want),
            )
        return row
    if han >= 13:
        han = 12  # counted yakuman off: 13+ han are a sanbaiman (001 役満 1)
    if han < table[0]["han"]:
        raise InvalidInput(
            f"{han} han has no price in this rule's table: "
            f"the table starts at {table[0]['han']} han",
            reason="han_not_priced", han=han, low=table[0]["han"],
        )
    row = [r for r in table if r["han"] <= han][-1]
    capped = _capped(rules, row.get("limit"))
    if capped != row.get("limit"):
        row = next(r for r in table if r.get("limit") == capped)
    return row


def _pay_from_row(row: dict[str, Any], times: int, *, dealer: bool,
                  tsumo: bool) -> dict[str, int]:
    if not tsumo:
        return {"ron": times * row["dealer_ron" if dealer else "ron"]}
    if dealer:
        return {"all": times * row["dealer_tsumo"]}
    return {"dealer": times * row["tsumo"][1], "non_dealer": times * row["tsumo"][0]}


# --------------------------------------------------------------------------- the hand
def _value(rules: Rules, pay: dict[str, int]) -> int:
    payers = rules.table.players - 1
    if "ron" in pay:
        return pay["ron"]
    if "all" in pay:
        return pay["all"] * payers
    return pay["dealer"] + pay["non_dealer"] * (payers - 1)


def _add_dora(rules: Rules, pay: dict[str, int], dora: int) -> dict[str, int]:
    """ブー麻雀: dora are not han but points per tile, 「場に1500点」: the discarder pays it
    all, on a tsumo the payers share it."""
    per = rules.points.dora_per_tile
    if not per or not dora:
        return pay
    if "ron" in pay:
        return {"ron": pay["ron"] + per * dora}
    each = _up100(per * dora / (rules.table.players - 1))
    return {k: v + each for k, v in pay.items()}


def payments(
    rules: Rules, *, han: int, fu: int, yakuman: int = 0, dealer: bool, tsumo: bool
) -> tuple[str | None, dict[str, Any]]:
    """``(limit, pay)`` for any han/fu, whether or not the pair can occur (table cells)."""
    if rules.fu.use_fu:
        base, limit = basic_points(rules, han=han, fu=fu, yakuman=yakuman)
        return limit, _pay_from_base(rules, base, dealer=dealer, tsumo=tsumo)
    row = _nofu_row(rules, han, yakuman)
    times = yakuman if yakuman and row.get("limit") == "yakuman" else 1
    return row.get("limit"), _pay_from_row(row, times, dealer=dealer, tsumo=tsumo)


# The caller's numbers are typed Any, not int/bool, because they are checked here: the
# compiled module would otherwise refuse a bad one with a bare TypeError (and take True as 1).
def hand_value(
    rules: Rules,
    *,
    han: Any,
    fu: Any,
    yakuman: Any = 0,
    dealer: Any,
    tsumo: Any,
    kazoe: Any = False,
    dora: Any = 0,
) -> HandValue:
    """Price one winning hand under ``rules``.

    ``han`` counts every han (dora included); ``yakuman`` is the number of
    yakuman (0 for an ordinary hand; 13+ han make a counted yakuman or a
    sanbaiman per ``hand.kazoe_yakuman``, applied here). ``kazoe`` is
    accepted for the caller's convenience and must agree with han.
    ``dora`` is the dora tile count, paid only under ``points.dora_per_tile``.
    Raises :class:`InvalidInput` for a han/fu pair that cannot occur.
    """
    _whole("han", han)
    _whole("fu", fu)
    _whole("yakuman", yakuman)
    _whole("dora", dora)
    if not isinstance(dealer, bool) or not isinstance(tsumo, bool):
        raise InvalidInput("dealer and tsumo must be true or false", reason="dealer_tsumo_not_bool")
    if kazoe and not (han >= 13 and rules.hand.kazoe_yakuman and not yakuman):
        raise InvalidInput(
            "a counted yakuman (kazoe) needs 13 han or more under hand.kazoe_yakuman, "
            f"not {han} han",
            reason="kazoe_han", han=han,
        )
    if not yakuman:
        if rules.fu.use_fu:
            _check_pair(rules, han, fu, tsumo)
        elif han < max(_min_han(rules), 1):
            raise InvalidInput(
                f"{han} han has no price in this rule's table: the table starts at 1 han",
                reason="han_not_priced", han=han, low=1,
            )
    limit, pay = payments(rules, han=han, fu=fu, yakuman=yakuman, dealer=dealer, tsumo=tsumo)
    pay = _add_dora(rules, pay, dora)
    return HandValue(
        han=han, fu=fu, yakuman=yakuman, limit=limit, value=_value(rules, pay), pay=pay
    )


# --------------------------------------------------------------------------- table money
def honba_bonus(rules: Rules, honba: int, *, tsumo: bool, yakuless: bool = False) -> dict[str, Any]:
    """What the honba (積み棒) add to a win.

    Returns ``{"each": per payer, "payers": n, "total": to the winner}``.

    Per honba a ron adds ``points.honba_ron`` (300; 002 4B 1500; 3A 200; 3B
    1000) and a tsumo ``points.honba_tsumo_each`` from every payer (100; 4B
    500; 3B 1000 オール). A win without yaku adds nothing where
    ``points.honba_on_yakuless_win`` is false (ブー麻雀).
    """
    _whole("honba", honba)
    payers = rules.table.players - 1 if tsumo else 1
    if yakuless and not rules.points.honba_on_yakuless_win:
        honba = 0
    each = honba * (rules.points.honba_tsumo_each if tsumo else rules.points.honba_ron)
    return {"each": each, "payers": payers, "total": each * payers}


def deposit_bonus(rules: Rules, sticks: int) -> int:
    """Points the winner collects for ``sticks`` riichi sticks on the table (供託)."""
    return _whole("kyoutaku", sticks) * rules.points.riichi_deposit


def noten_payments(rules: Rules, tenpai: Sequence[bool]) -> list[int]:
    """Point changes per seat at an exhaustive draw (ノーテン罰符, 場に ``points.noten_total``).

    The noten players share paying the total, the tenpai players share
    receiving it (000 (3) 荒牌: 3000 = 1 x 3000 = 3 x 1000 = 2 x 1500).
    Nobody pays when all or none are tenpai.
    """
    if len(tenpai) != rules.table.players or not all(isinstance(t, bool) for t in tenpai):
        raise InvalidInput(
            f"give tenpai as {rules.table.players} true/false values, one per seat",
            reason="tenpai_list", players=rules.table.players,
        )
    n = sum(tenpai)
    total = rules.points.noten_total
    if n in (0, len(tenpai)) or not total:
        return [0] * len(tenpai)
    gain, loss = total // n, total // (len(tenpai) - n)
    return [gain if t else -loss for t in tenpai]
