"""Fu of one reading, with its reasons line by line.

Follows the ねこはうす 符計算ガイド (002) and the Net Mahjong 符計算 table
(000 (4)): 20 base (副底); per set 2/4/8/16/32 by open/concealed, simple/
terminal-honour, triplet/kan; pair fu for yakuhai (a double-wind pair 4 or 2
per ``fu.double_wind_pair``); 2 for a kanchan, penchan or tanki wait; 10 for
a concealed ron, 2 for a tsumo; rounded up to 10. Special cases: seven pairs
are a flat ``fu.chiitoitsu_fu`` (25), pinfu tsumo is 20, pinfu ron 30, and an
open hand that would total 20 counts ``fu.open_pinfu_fu`` (30, or 20 in ブー麻雀).
"""

from __future__ import annotations

from typing import Any, Final

from .decompose import KANCHAN, PENCHAN, TANKI
from .tiles import tile_to_str

_SET_NAMES: Final = {
    (False, False): "open_pon",
    (True, False): "closed_pon",
    (False, True): "open_kan",
    (True, True): "closed_kan",
}


def _set_line(kind: int, concealed: bool, kan: bool) -> tuple[str, int]:
    fu = 2
    yaochuu = kind >= 27 or kind % 9 in (0, 8)
    if yaochuu:
        fu *= 2
    if concealed:
        fu *= 2
    if kan:
        fu *= 4
    name = _SET_NAMES[(concealed, kan)]
    return f"{name} {tile_to_str(kind)}{' (terminal/honour)' if yaochuu else ''}", fu


# every (kind, concealed, kan) line made once: fu of a set is a look-up
_SET_FU: Final = {
    (k, c, n): _set_line(k, c, n) for k in range(34) for c in (False, True) for n in (False, True)
}


# the same look-up keyed on a whole set (shape TRIP = 1, kind, concealed, kan) as readings
# carry them; a run's key is absent, so .get gives None (bools hash as the ints 0 and 1)
_SET_LINE: Final = {(1, k, c, n): line for (k, c, n), line in _SET_FU.items()}.get
_WAIT_LINES: Final = {w: (f"{w} wait", 2) for w in (KANCHAN, PENCHAN, TANKI)}


def _pair_fu(ctx: Any, fr: Any) -> tuple[str, int] | None:
    h, p = ctx.inp, ctx.pair
    if p == h.seat_wind and p == h.round_wind:
        return f"pair {tile_to_str(p)} (double wind)", fr.double_wind_pair
    if p in ctx.facts.yakuhai:
        return f"pair {tile_to_str(p)} (yakuhai)", 2
    return None


def fu_breakdown(ctx: Any, fr: Any, pinfu: bool) -> tuple[list[tuple[str, int]], int]:
    """``([(reason, fu), ...], total)`` for one reading; ``fr`` is the ``[fu]`` rules."""
    if ctx.form == "chiitoi":
        return [("chiitoitsu (fixed)", fr.chiitoitsu_fu)], fr.chiitoitsu_fu
    if ctx.form == "kokushi":
        # fu of a yakuman hand pay nothing; counted as any closed hand so the lines add up
        if ctx.inp.tsumo:
            return [("base (副底)", 20), ("tsumo", 2), ("rounded up from 22", 8)], 30
        return [("base (副底)", 20), ("closed ron (門前加符)", 10)], 30
    h = ctx.inp
    if pinfu and h.tsumo and ctx.closed and not (h.rinshan and fr.rinshan_pinfu_fu):
        return [("base (副底)", 20), ("pinfu tsumo: no tsumo fu", 0)], 20
    lines: list[tuple[str, int]] = [("base (副底)", 20)]
    raw = 20
    for s in ctx.sets:
        item = _SET_LINE(s)  # None for a run
        if item:
            lines.append(item)
            raw += item[1]
    pair = _pair_fu(ctx, fr) if ctx.pair in ctx.facts.yakuhai else None
    if pair:
        lines.append(pair)
        raw += pair[1]
    if ctx.wait in _WAIT_LINES and not pinfu:  # pinfu on any wait (hand.pinfu_wait = any)
        lines.append(_WAIT_LINES[ctx.wait])
        raw += 2
    if h.tsumo:
        if not (h.rinshan and not fr.rinshan_tsumo_fu):
            lines.append(("tsumo", 2))
            raw += 2
    elif ctx.closed:
        lines.append(("closed ron (門前加符)", 10))
        raw += 10
    if raw == 20 and not ctx.closed:
        # 喰い平和形: an open hand with nothing else counts open_pinfu_fu
        lines.append(("open hand with no fu (喰い平和形)", fr.open_pinfu_fu - 20))
        return lines, fr.open_pinfu_fu
    total = -(-raw // 10) * 10
    if total != raw:
        lines.append((f"rounded up from {raw}", total - raw))
    return lines, total
