"""Score one MCR hand from a batch line (``docs/contracts/scoring-batch.md``, MCR).

:func:`score_hand` never raises for bad input: it returns
``{"ok": false, "error": {"code", "message", "reason", "values"}}`` with a sentence a
person can act on. :func:`payments` turns a total into the four players' point deltas.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from ..errors import InvalidInput, InvalidTiles, ScoringError
from ..rules import Rules, load_rules
from ..tiles import (
    WIND_LETTERS,
    check_copies,
    counts34,
    is_flower,
    kind,
    parse_meld,
    parse_tiles,
    tile_to_str,
)
from .decompose import CHOW, KONG, PUNG, Set
from .evaluate import Options, Win, best_reading, fan_points
from .fans import FANS, ORDER

MINIMUM_FAN = 8  # 004:10 上がりを宣言するには最低8飜必要
BASE_PAYMENT = 8  # 004:272 この8点に、さらに8点が常に追加されます

MCR_FLAGS = ("tsumo", "last_tile", "wall_last", "kong_replacement", "robbing_kong")
# Riichi-only fields: accepted when absent or false/0/empty, refused otherwise.
RIICHI_ONLY = (
    "riichi",
    "double_riichi",
    "open_riichi",
    "ippatsu",
    "rinshan",
    "chankan",
    "haitei",
    "houtei",
    "tenhou",
    "chiihou",
    "renhou",
    "dora",
    "ura",
    "nukidora",
    "pocchi",
    "honba",
    "kyoutaku",
)
RIICHI_HINT = {
    "rinshan": "kong_replacement",
    "chankan": "robbing_kong",
    "haitei": "wall_last",
    "houtei": "wall_last",
}
KNOWN = {
    "id",
    "hand",
    "melds",
    "win",
    "seat_wind",
    "round_wind",
    "flowers",
    "rules",
    *MCR_FLAGS,
    *RIICHI_ONLY,
}

_MELD_SET = {
    "chi": (CHOW, True),
    "pon": (PUNG, True),
    "minkan": (KONG, True),
    "kakan": (KONG, True),
    "ankan": (KONG, False),
}


def options(rules: Rules) -> Options:
    """The MCR switches of a rule set (``rules.hand.mcr_*``), in one place."""
    h = rules.hand
    return Options(
        two_concealed_kongs=h.mcr_two_concealed_kongs,
        mixed_kongs=h.mcr_mixed_kongs,
        concealed_special_self_drawn=h.mcr_concealed_special_self_drawn,
        all_green_full_flush=h.mcr_all_green_full_flush,
        all_terminals_double_pung=h.mcr_all_terminals_double_pung,
        all_terminals_terminal_pungs=h.mcr_all_terminals_terminal_pungs,
        hog_in_green_or_terminal_pairs=h.mcr_hog_in_green_or_terminal_pairs,
        all_five_all_chows=h.mcr_all_five_all_chows,
        nine_gates_terminal_pungs=h.mcr_nine_gates_terminal_pungs,
        knitted_straight_edge_closed=h.mcr_knitted_straight_edge_closed,
        wind_pung_terminal_pung=h.mcr_wind_pung_terminal_pung,
    )


def score_hand(line: dict[str, Any], rules: Any = "mcr") -> dict[str, Any]:
    """Score one batch line under MCR ``rules`` (a Rules object, preset id or TOML path;
    a line's own ``"rules"`` wins); an error result, never an exception."""
    head = {"id": line.get("id") if isinstance(line, dict) else None}
    try:
        own = line.get("rules") if isinstance(line, dict) else None
        rules = load_rules(own if own is not None else rules)
        win, flowers = parse_line(line, rules)
    except ScoringError as e:
        code = e.code if e.code in ("invalid_tiles", "invalid_input") else "invalid_input"
        return {**head, "ok": False, "error": e.as_result(code)}
    opts = options(rules)
    best = best_reading(win, opts)
    if best is None:
        error = ScoringError(
            "these tiles are not a winning hand: four sets and a pair, seven pairs, "
            "thirteen orphans or a knitted hand (check the hand, the melds and the winning tile)",
            "not_agari", reason="mcr_not_agari",
        )
        return {**head, "ok": False, "error": error.as_result()}
    reading, fans = best
    listed = fan_list(fans, opts)
    fan = sum(f["points"] for f in listed)
    if fan < MINIMUM_FAN:
        names = ", ".join(f"{f['name']} {f['points']}" for f in listed)
        return {
            **head,
            "ok": False,
            "fan": fan,
            "fans": listed,
            "error": ScoringError(
                f"the hand is worth {fan} fan ({names}); an MCR win needs at least "
                f"{MINIMUM_FAN} fan, flowers not counted",
                "below_minimum", reason="mcr_below_minimum", fan=fan, minimum=MINIMUM_FAN,
            ).as_result(),
        }
    tot = fan + flowers
    pay = pay_table(tot, win.tsumo)
    return {
        **head,
        "ok": True,
        "fan": fan,
        "fans": listed,
        "flowers": flowers,
        "total": tot,
        "value": sum(pay_deltas(tot, win.tsumo)),
        "pay": pay,
        "shape": reading.shape,
    }


def fan_list(fans: Counter[Any], opts: Options) -> list[dict[str, Any]]:
    """Fans as output rows, biggest first: id, points (all copies), count and names."""
    rows = []
    for fid in sorted(fans, key=lambda f: (-fan_points(f, opts), ORDER[f])):
        n = fans[fid]
        f = FANS[fid]
        rows.append(
            {
                "name": fid,
                "points": fan_points(fid, opts) * n,
                "count": n,
                "name_zh": f.name_zh,
                "name_ja": f.name_ja,
                "name_en": f.name_en,
            }
        )
    return rows


def pay_table(total: int, tsumo: bool) -> dict[str, Any]:
    """What each payer hands over (004:274-276)."""
    if tsumo:
        return {"all": BASE_PAYMENT + total}
    return {"ron": BASE_PAYMENT + total, "others": BASE_PAYMENT}


def pay_deltas(total: int, tsumo: bool) -> list[int]:
    return (
        [BASE_PAYMENT + total] * 3 if tsumo else [BASE_PAYMENT + total, BASE_PAYMENT, BASE_PAYMENT]
    )


def payments(total: int, winner: int, discarder: int | None, players: int = 4) -> list[int]:
    """Point deltas per seat for an MCR win worth ``total`` (flowers included).

    Self-drawn (``discarder is None``): every other player pays 8 + total.
    On a discard the discarder pays 8 + total and the others 8 each (004:272-276).
    """
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        raise InvalidInput(f"total must be a whole number of points, not {total!r}",
                           reason="not_a_count", field="total", low=0, value=repr(total))
    if not 0 <= winner < players:
        raise InvalidInput(f"winner seat {winner} is not one of 0-{players - 1}",
                           reason="not_a_seat", field="winner", value=repr(winner),
                           last=players - 1)
    if discarder is not None and (not 0 <= discarder < players or discarder == winner):
        raise InvalidInput(
            f"discarder seat {discarder} must be another player's seat 0-{players - 1}",
            reason="not_a_seat", field="discarder", value=repr(discarder), last=players - 1,
        )
    deltas = [0] * players
    for seat in range(players):
        if seat == winner:
            continue
        owed = BASE_PAYMENT + total if discarder in (None, seat) else BASE_PAYMENT
        deltas[seat] -= owed
        deltas[winner] += owed
    return deltas


# ---------------------------------------------------------------- input
def parse_line(line: Any, rules: Rules) -> tuple[Win, int]:
    """Validate a batch line and build the :class:`Win` (raises ScoringError)."""
    if not isinstance(line, dict):
        raise InvalidInput('each line must be a JSON object such as {"hand": "...", "win": "..."}',
                           reason="line_not_object")
    _check_fields(line)
    flags = {k: _bool(line, k) for k in MCR_FLAGS}
    tiles = parse_tiles(_text(line, "hand"))
    hand_flowers = sum(1 for t in tiles if is_flower(t))
    tiles = [t for t in tiles if not is_flower(t)]
    melds = _melds(line)
    meld_tiles = [t for m in melds for t in m.tiles]
    check_copies(tiles + meld_tiles, red_fives=tuple(rules.table.red_fives))
    need = 14 - 3 * len(melds)
    if len(tiles) != need:
        raise InvalidTiles(
            f"the hand has {len(tiles)} concealed tiles; with {len(melds)} meld(s) it needs {need} "
            "(winning tile included)",
            reason="hand_size", count=len(tiles), melds=len(melds), need=need,
        )
    win = _win_tile(line, tiles)
    flowers = _flowers(line, hand_flowers)
    fixed = tuple(Set(_MELD_SET[m.type][0], m.first, _MELD_SET[m.type][1]) for m in melds)
    counts = counts34(tiles)
    in_melds = sum(1 for t in meld_tiles if kind(t) == win)
    _check_flags(flags, fixed, counts, win, in_melds)
    if in_melds == 3:
        flags["last_tile"] = True  # the other three are in this player's own meld: 和絶張 by itself
    w = Win(
        tuple(counts),
        fixed,
        win,
        flags["tsumo"],
        _wind(line, "seat_wind"),
        _wind(line, "round_wind"),
        flags["last_tile"],
        flags["wall_last"],
        flags["kong_replacement"],
        flags["robbing_kong"],
    )
    return w, flowers


def _check_fields(line: dict[str, Any]) -> None:
    unknown = sorted(set(line) - KNOWN)
    if unknown:
        raise InvalidInput(
            f"unknown field(s) {', '.join(unknown)} for an MCR hand: see the scoring-batch "
            "contract",
            reason="mcr_unknown_fields", value=", ".join(unknown),
        )
    for k in RIICHI_ONLY:
        if line.get(k):
            if k in RIICHI_HINT:
                raise InvalidInput(
                    f"{k!r} is a riichi field and has no meaning under MCR rules "
                    f"(use {RIICHI_HINT[k]!r})",
                    reason="mcr_riichi_field_hint", field=k, instead=RIICHI_HINT[k],
                )
            raise InvalidInput(f"{k!r} is a riichi field and has no meaning under MCR rules",
                               reason="mcr_riichi_field", field=k)


def _bool(line: dict[str, Any], key: str) -> bool:
    v = line.get(key, False)
    if not isinstance(v, bool):
        raise InvalidInput(f"{key!r} must be true or false, not {v!r}",
                           reason="field_not_bool", field=key, value=repr(v))
    return v


def _text(line: dict[str, Any], key: str) -> str:
    v = line.get(key)
    if v is None:
        raise InvalidInput(f"the {key!r} field is missing", reason="tiles_missing", field=key)
    if not isinstance(v, str):
        raise InvalidInput(f"{key!r} must be tiles written as text such as '123m', not {v!r}",
                           reason="tiles_not_text", value=repr(v), field=key)
    return v


def _melds(line: dict[str, Any]) -> list[Any]:
    melds = line.get("melds", [])
    if not isinstance(melds, list):
        raise InvalidInput(
            '\'melds\' must be a list of objects like {"type": "pon", "tiles": "555z"}',
            reason="melds_not_list",
        )
    if len(melds) > 4:
        raise InvalidInput(f"{len(melds)} melds: a hand has at most four sets",
                           reason="too_many_melds", count=len(melds))
    return [parse_meld(m) for m in melds]


def _win_tile(line: dict[str, Any], tiles: list[int]) -> int:
    wt = parse_tiles(_text(line, "win"))
    if len(wt) != 1 or is_flower(wt[0]):
        raise InvalidTiles(f"'win' must be one tile such as '5m', not {line['win']!r}",
                           reason="win_not_one_tile", value=repr(line["win"]))
    if wt[0] not in tiles:
        raise InvalidTiles(f"the winning tile {tile_to_str(wt[0])} must also be written in 'hand'",
                           reason="win_not_in_hand", tile=tile_to_str(wt[0]))
    return kind(wt[0])


def _flowers(line: dict[str, Any], in_hand: int) -> int:
    n = line.get("flowers", 0)
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise InvalidInput(f"'flowers' must be a whole number 0-8, not {n!r}",
                           reason="flowers_count", value=repr(n))
    if n and in_hand:
        raise InvalidInput(
            "give flowers either as a count in 'flowers' or as 1f-8f tiles in 'hand', not both",
            reason="flowers_twice",
        )
    n += in_hand
    if n > 8:
        raise InvalidInput(f"{n} flowers: the set has only 8 flower and season tiles",
                           reason="too_many_flowers", count=n, flowers=8)
    return n


def _wind(line: dict[str, Any], key: str) -> int:
    v = line.get(key, "E")
    if v not in WIND_LETTERS:
        raise InvalidInput(f"{key!r} must be one of E, S, W, N, not {v!r}",
                           reason="field_not_wind", field=key, value=repr(v))
    return WIND_LETTERS[v]


def _check_flags(flags: dict[str, Any], fixed: Sequence[Any], counts: Sequence[int], win: int,
                 in_melds: int) -> None:
    """Refuse win conditions that cannot happen together or with these tiles."""
    tsumo = flags["tsumo"]
    if flags["kong_replacement"] and not tsumo:
        raise InvalidInput("kong_replacement (杠上開花) is a self-drawn win: set tsumo to true",
                           reason="mcr_kong_replacement_ron")
    if flags["kong_replacement"] and not any(s.type == KONG for s in fixed):
        raise InvalidInput(
            "kong_replacement (杠上開花) needs a kong among the melds; a win on the tile drawn "
            "for a flower is an ordinary self-drawn win (004:179)",
            reason="mcr_kong_replacement_no_kong",
        )
    if flags["robbing_kong"]:
        if tsumo:
            raise InvalidInput(
                "robbing_kong (搶杠和) is a win on another player's kong: set tsumo to false",
                reason="mcr_robbing_kong_tsumo",
            )
        if flags["wall_last"]:
            raise InvalidInput("robbing_kong and wall_last cannot both hold (004:185)",
                               reason="mcr_robbing_kong_wall_last")
        if counts[win] > 1 or in_melds:
            raise InvalidInput(
                "robbing_kong: the robbed tile is the fourth of its kind, "
                "so the hand cannot hold another copy of it",
                reason="mcr_robbing_kong_copy",
            )
    if flags["last_tile"] and counts[win] > 1:
        raise InvalidInput(
            "last_tile (和絶張): the hand holds another copy of the winning tile, "
            "so three others cannot all be visible",
            reason="mcr_last_tile_copy",
        )


def explanation(line: dict[str, Any], out: dict[str, Any]) -> list[str]:
    """A readable account of a scored MCR line (for ``python -m scoring hand --rules mcr``):
    one row per fan with its id, rulebook name, Japanese reading and points, then the
    flowers, the total and who pays what."""
    how = "self-drawn" if line.get("tsumo") else "discard"
    rows = [f"{line.get('hand')}  win {line.get('win')} ({how})"]
    if not out.get("ok") and "fans" not in out:
        return rows + [f"not scored ({out['error']['code']}): {out['error']['message']}"]
    rows.append("")
    for f in out["fans"]:
        times = f" x{f['count']}" if f["count"] > 1 else ""
        rows.append(
            f"  {f['name']:<34} {f['name_zh']:<6} {f['name_ja']:<16} {f['points']:>3}{times}"
        )
    rows.append(f"  {'fan':<58} {out['fan']:>3}")
    if not out["ok"]:
        return rows + ["", f"not scored ({out['error']['code']}): {out['error']['message']}"]
    rows.append(f"  {'flowers (花牌)':<58} {out['flowers']:>3}")
    rows.append(f"  {'total':<58} {out['total']:>3}")
    pay = out["pay"]
    if "all" in pay:
        rows.append(f"pay: {pay['all']} from each other player")
    else:
        rows.append(f"pay: {pay['ron']} from the discarder, {pay['others']} from each other player")
    return rows
