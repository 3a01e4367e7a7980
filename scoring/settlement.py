"""Final settlement of a game: rounding, return points and oka, uma, ties, chips,
victory points.  Pure: raw scores and rules in, the score-sheet row out.

Every house-rule difference is a switch of ``[settlement]`` (and ``game.bust``
for the box-under default), read here and nowhere else:

* rounding (``rounding``): a non-top player's points are rounded to 1000 and
  the return points taken off; the top takes minus the others' sum, which
  holds the oka (000 (3) 清算: 「1位の人は、3人の得点の合計のマイナス」),
* uma (``uma``, ``uma_by_floaters`` for 浮きウマ/沈みウマ), ties (``ties``),
* chips (``chip_value``), raw totals (``use_points`` false: MCR),
* victory points (``victory_points``, ``vp_by_floaters``, ``vp_double``:
  ブー麻雀's マルA/B/C, the double マルA and the ダブ権).
"""

from __future__ import annotations

from typing import Any, Sequence

from .errors import InvalidInput
from .rules import Rules, load_rules

__all__ = ["settle", "round_points", "ranks", "box_under", "floating_seats"]


def box_under(rules: Rules) -> bool:
    """Negative scores count as they are (箱下計算). Always so without busting
    (000 (3) 清算 【ローカルルール】「ブットビなしの場合、自動的に箱下計算はありになります」)."""
    return rules.settlement.box_under or not rules.game.bust


def round_points(points: int, how: str) -> int:
    """Round ``points`` to a multiple of 1000 by the rule ``how``.

    Works on the magnitude so that -5400 and 5400 round alike (箱下 scores)."""
    if how == "none":
        return points
    sign = -1 if points < 0 else 1
    thousands, rest = divmod(abs(points), 1000)
    up = {
        "gosha_rokunyu": rest >= 600,  # 五捨六入: 500 down, 600 up
        "shisha_gonyu": rest >= 500,  # 四捨五入
        "down": False,
        "up": rest > 0,
    }[how]
    return sign * (thousands + (1 if up else 0)) * 1000


def ranks(scores: Sequence[int], ties: str) -> list[int]:
    """1-based rank of each seat. ``seat``: equal points rank by seat order from
    the first dealer (起家優先); ``share``: equal points share the rank."""
    if ties == "share":
        return [1 + sum(1 for t in scores if t > s) for s in scores]
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    out = [0] * len(scores)
    for pos, seat in enumerate(order):
        out[seat] = pos + 1
    return out


def _split(total: int, seats: list[int], to_top: bool = False) -> dict[int, int]:
    """``total`` split evenly between ``seats`` in whole points. What does not divide goes
    one point each to the seats nearest the first dealer, or, ``to_top``, to nobody here:
    each seat gets the share rounded down and the top's figure, which takes minus everyone
    else's, takes the odd points (``settlement.tie_remainder``)."""
    each, extra = divmod(total, len(seats))
    if to_top:
        return dict.fromkeys(seats, each)
    return {s: each + (1 if k < extra else 0) for k, s in enumerate(sorted(seats))}


def _shared(
    table: Sequence[int], rank_of: list[int], part: str, remainder: str,
    splits: list[dict[str, Any]],
) -> list[int]:
    """Each seat's share of ``table`` (indexed by position): tied seats split the
    positions they occupy between them (001 基本ルール 6); each split of a tie is
    recorded in ``splits`` for the settlement sheet."""
    out = [0] * len(rank_of)
    for r in sorted(set(rank_of)):
        seats = [i for i, x in enumerate(rank_of) if x == r]
        total = sum(table[r - 1 : r - 1 + len(seats)])
        to_top = remainder == "top" and r != 1  # a tie for top has no one above to take it
        shares = _split(total, seats, to_top)
        for seat, value in shares.items():
            out[seat] = value
        if len(seats) > 1 and total:
            odd = total - sum(shares.values())
            takers = [s for s in sorted(seats) if shares[s] != min(shares.values())]
            splits.append({
                "part": part,
                "rank": r,
                "seats": seats,
                "total": total,
                "shares": [shares[s] for s in seats],
                "odd_points": odd if to_top else total - len(seats) * min(shares.values()),
                "odd_points_to": "top" if to_top else takers,
            })
    return out


def _uma_table(rules: Rules, eff: list[int]) -> list[int]:
    st = rules.settlement
    n = len(eff)
    floaters = sum(1 for s in eff if s >= st.return_points)
    row = st.uma_by_floaters.get(str(floaters), st.uma)
    if len(row) < n:
        raise InvalidInput(f"settlement uma {row!r} has fewer entries than the {n} players",
                           reason="uma_too_short", value=repr(row), players=n)
    return list(row[:n])


def _points_result(rules: Rules, eff: list[int], rank_of: list[int]) -> dict[str, Any]:
    st = rules.settlement
    n = len(eff)
    splits: list[dict[str, Any]] = []
    uma = _shared(_uma_table(rules, eff), rank_of, "uma", st.tie_remainder, splits)
    oka_total = (st.return_points - st.start_points) * n
    oka = _shared([oka_total] + [0] * (n - 1), rank_of, "oka", st.tie_remainder, splits)
    base = [0] * n
    tops = [i for i in range(n) if rank_of[i] == 1]
    for i in range(n):
        if i not in tops:
            base[i] = round_points(eff[i], st.rounding) - st.return_points
    # The top takes minus everybody else's settled figure: the oka and every
    # rounding remainder land there and the sheet sums to zero (000 (3) 清算).
    rest = -sum(base[i] + uma[i] for i in range(n) if i not in tops)
    for i, value in _split(rest, tops).items():
        base[i] = value - uma[i]
    return {"base": base, "uma": uma, "oka": oka, "tie_splits": splits}


def floating_seats(scores: Sequence[int], rules: Rules) -> list[int]:
    """Seats at or above the return points (浮き), best first; when everyone sinks
    the best n-1 count as floating (002 ブー麻雀 「4人沈みの場合は持ち点の多い順に
    3人を浮きとして扱います。同点者がいる場合は起家優先」)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    floating = [i for i in order if scores[i] >= rules.settlement.return_points]
    return floating or order[: len(scores) - 1]


def _victory_points(
    rules: Rules, eff: list[int], order: list[int], *, yakuman_end: dict[str, Any] | None,
    dabuken: int | None,
) -> tuple[list[int], bool]:
    """Victory points per seat and whether the top took マルA or better."""
    st = rules.settlement
    n = len(eff)
    if yakuman_end is not None:
        return _yakuman_vp(rules, eff, yakuman_end), True
    floating = floating_seats(eff, rules)
    row = st.vp_by_floaters.get(str(len(floating)))
    if row is None:
        return [0] * n, False
    top = order[0]
    maru_a = len(floating) == 1
    if maru_a and dabuken == top:
        row = st.vp_double  # ダブ権: a second マルA in a row is a double マルA
    vp = [row[1] if i in floating else row[2] for i in range(n)]
    vp[top] = row[0]
    return vp, maru_a


def _yakuman_vp(rules: Rules, eff: list[int], end: dict[str, Any]) -> list[int]:
    """Double マルA to the yakuman winner (002 ブー麻雀 「達成者のダブルマルA」): the others
    pay the sinking figure of ``vp_double`` each, or, ``yakuman_vp = standing``, by their
    points (floaters the floating figure); the winner takes what they pay. With pao the
    responsible player pays it all on a tsumo, half with the discarder on a ron."""
    st = rules.settlement
    row, n, top = st.vp_double, len(eff), end["winner"]
    floating = floating_seats(eff, rules) if st.yakuman_vp == "standing" else [top]
    owed = [0 if i == top else (row[1] if i in floating else row[2]) for i in range(n)]
    income = -sum(owed)
    vp = [0] * n
    vp[top] = income
    pao, src = end.get("pao"), end.get("from")
    if pao is None:
        for i in range(n):
            if i != top:
                vp[i] = owed[i]
    elif src is None or src == pao:
        vp[pao] = -income  # 002 ブー麻雀（続き）「包責者がトップの収入分の全額を支払う」
    else:
        vp[pao] = -(income // 2)  # 「9勝利点を包責者…9勝利点を放銃者の支払い」
        vp[src] = -(income - income // 2)
    return vp


def settle(
    scores: Sequence[int],
    rules: Any,
    *,
    chips: Sequence[int] | None = None,
    yakuman_end: dict[str, Any] | None = None,
    dabuken: int | None = None,
    vp_adjust: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Settle a finished game's raw ``scores`` (seat order, seat 0 = first dealer).

    ``chips``: net chips per seat; ``yakuman_end``: ``{"winner", "from", "pao"}``
    when a yakuman ended the game (ブー麻雀); ``dabuken``: the seat holding the
    ダブ権; ``vp_adjust``: victory points already moved (chombo).
    Returns ``scores, ranks, base, uma, oka, tie_splits, chips, result`` (and
    ``victory_points, dabuken`` for victory-point rules)."""
    rules = load_rules(rules)
    st = rules.settlement
    n = len(scores)
    chips = list(chips) if chips is not None else [0] * n
    eff = [s if box_under(rules) else max(0, s) for s in scores]
    # rank by the real points: two players under zero both count as 0 in the
    # settlement but the one with more points still ranks higher
    rank_of = ranks(list(scores), st.ties)
    order = sorted(range(n), key=lambda i: (rank_of[i], i))
    out: dict[str, Any] = {"scores": list(scores), "ranks": rank_of, "chips": chips}
    zero = [0] * n
    if not st.use_points or st.victory_points:
        out.update(base=list(scores) if not st.use_points else zero, uma=zero, oka=zero,
                   tie_splits=[])
        out["result"] = [s + c * st.chip_value for s, c in zip(out["base"], chips, strict=True)]
    else:
        parts = _points_result(rules, eff, rank_of)
        out.update(parts)
        out["result"] = [
            parts["base"][i] + parts["uma"][i] + chips[i] * st.chip_value for i in range(n)
        ]
    if st.victory_points:
        vp, maru_a = _victory_points(rules, eff, order, yakuman_end=yakuman_end, dabuken=dabuken)
        if vp_adjust is not None:
            vp = [a + b for a, b in zip(vp, vp_adjust, strict=True)]
        out["victory_points"] = vp
        out["result"] = list(vp)
        out["dabuken"] = order[0] if maru_a else None
        out["next_first_dealer"] = order[0]  # 002 ブー麻雀（続き）「トップ者は次のゲームの起家」
    return out
