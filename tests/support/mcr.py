"""Seeded random MCR winning hands and the PyMahjongGB oracle adapter.

Used by tests/test_mcr_oracle.py and benchmarks/bench_mcr.py. Hands are
batch-contract lines (``hand``, ``melds``, ``win``, flags); the generator
builds them from sets so each one is a winning hand, with a bias towards
shapes that score combination fans (one suit, shifted or equal ranks,
honours, kongs) and towards every special shape.
"""

from __future__ import annotations

import random

from scoring.mcr.decompose import KNITTED_STRAIGHTS

WINDS = "ESWN"
TERMINALS_HONORS = [0, 8, 9, 17, 18, 26] + list(range(27, 34))

# PyMahjongGB's fan calculator keeps these rule readings; the club's rulebook (004)
# differs on each of them (see scoring/rules.py, hand.mcr_*).
ORACLE_SWITCHES = {
    "mcr_two_concealed_kongs": 6,
    "mcr_mixed_kongs": "single_fan",
    "mcr_concealed_special_self_drawn": "self_drawn",
    "mcr_all_green_full_flush": True,
    "mcr_all_terminals_double_pung": False,
    "mcr_hog_in_green_or_terminal_pairs": True,
    "mcr_all_five_all_chows": True,
    "mcr_nine_gates_terminal_pungs": "one_fewer",
    "mcr_knitted_straight_edge_closed": True,
    "mcr_wind_pung_terminal_pung": False,
}
ORACLE_RULES = {"extends": "mcr", "name": "mcr-pymahjonggb", "hand": ORACLE_SWITCHES}


def tile_str(k: int) -> str:
    return f"{k % 9 + 1}{'mpsz'[k // 9]}"


def tiles_str(ks) -> str:
    return "".join(tile_str(k) for k in sorted(ks))


def meld_kinds(m: dict) -> list[int]:
    return [int(t[0]) - 1 + 9 * "mpsz".index(t[1]) for t in _split_tiles(m["tiles"])]


# ---------------------------------------------------------------- generator
def _pick_chow(rng: random.Random, suit: int | None, anchor: int | None) -> int:
    s = rng.randrange(3) if suit is None else suit
    if anchor is not None and rng.random() < 0.6:
        r = min(6, max(0, anchor % 9 + rng.choice((-2, -1, 0, 0, 1, 2, 3))))
        return s * 9 + r
    return s * 9 + rng.choice((0, 0, 1, 2, 3, 4, 5, 6, 6))


def _pick_pung(rng: random.Random, suit: int | None, anchor: int | None) -> int:
    x = rng.random()
    if x < 0.35:
        return rng.randrange(27, 34)
    s = rng.randrange(3) if suit is None else suit
    if anchor is not None and anchor < 27 and rng.random() < 0.6:
        r = min(8, max(0, anchor % 9 + rng.choice((-1, 0, 1, 2))))
        return (s if rng.random() < 0.5 else rng.randrange(3)) * 9 + r
    if x < 0.5:
        return s * 9 + rng.choice((0, 8))
    return s * 9 + rng.randrange(9)


def _sets(rng: random.Random, used: list[int]):
    """Four sets (type, lowest kind) and a pair, within four copies of each kind."""
    suit = rng.randrange(3) if rng.random() < 0.45 else None
    p_chow = rng.choice((0.0, 0.3, 0.6, 0.8, 1.0))
    sets = []
    anchor = None
    tries = 0
    while len(sets) < 4 and tries < 200:
        tries += 1
        if rng.random() < p_chow:
            k = _pick_chow(rng, suit, anchor)
            kinds = [k, k + 1, k + 2]
            typ = "chow"
        else:
            k = _pick_pung(rng, suit, anchor)
            typ = "kong" if rng.random() < 0.12 else "pung"
            kinds = [k] * (4 if typ == "kong" else 3)
        if all(used[x] + kinds.count(x) <= 4 for x in set(kinds)):
            for x in kinds:
                used[x] += 1
            sets.append((typ, k))
            anchor = k
    if len(sets) < 4:
        return None
    pairs = [k for k in range(34) if used[k] <= 2]
    if suit is not None and rng.random() < 0.6:
        pairs = [k for k in pairs if k // 9 == suit] or pairs
    pair = rng.choice(pairs)
    used[pair] += 2
    return sets, pair


def _meld(rng: random.Random, typ: str, k: int) -> dict | None:
    if typ == "chow":
        return {"type": "chi", "tiles": tiles_str([k, k + 1, k + 2])}
    if typ == "pung":
        return {"type": "pon", "tiles": tiles_str([k] * 3)}
    kong = rng.choice(("minkan", "kakan", "ankan", "ankan"))
    return {"type": kong, "tiles": tiles_str([k] * 4)}


def standard_hand(rng: random.Random) -> dict | None:
    used = [0] * 34
    got = _sets(rng, used)
    if got is None:
        return None
    sets, pair = got
    n_open = rng.choice((0, 0, 0, 1, 1, 2, 3, 4))
    melds, concealed = [], [pair, pair]
    for i, (typ, k) in enumerate(sets):
        if typ == "kong" or i < n_open:
            melds.append(_meld(rng, typ, k))
        elif typ == "chow":
            concealed += [k, k + 1, k + 2]
        else:
            concealed += [k] * 3
    return _finish(rng, concealed, melds, used)


def seven_pairs_hand(rng: random.Random) -> dict:
    if rng.random() < 0.25:  # seven shifted pairs
        s, start = rng.randrange(3), rng.randrange(3)
        kinds = [s * 9 + start + i for i in range(7)]
    else:
        group = rng.randrange(4)
        pool = list(range(34)) if rng.random() < 0.6 else [k for k in range(34) if k // 9 == group]
        kinds = [rng.choice(pool) for _ in range(7)]
        while any(kinds.count(k) > 2 for k in kinds):
            kinds = [rng.choice(pool) for _ in range(7)]
    concealed = [k for k in kinds for _ in range(2)]
    return _finish(rng, concealed, [], None)


def thirteen_orphans_hand(rng: random.Random) -> dict:
    concealed = TERMINALS_HONORS + [rng.choice(TERMINALS_HONORS)]
    return _finish(rng, concealed, [], None)


def knitted_hand(rng: random.Random) -> dict:
    ks = list(rng.choice(KNITTED_STRAIGHTS))
    if rng.random() < 0.45:  # 全不靠 / 七星不靠
        n_suited = rng.choice((7, 8, 9))
        suited = rng.sample(ks, n_suited)
        honors = (
            list(range(27, 34))
            if n_suited == 7 and rng.random() < 0.5
            else rng.sample(range(27, 34), 14 - n_suited)
        )
        return _finish(rng, suited + honors[: 14 - n_suited], [], None)
    used = [0] * 34
    for k in ks:
        used[k] += 1
    extra_used = list(used)
    got = None
    for _ in range(20):
        extra_used = list(used)
        got = _sets(rng, extra_used)
        if got:
            break
    if not got:
        return None
    sets, pair = got
    typ, k = sets[0]
    melds, concealed = [], ks + [pair, pair]
    if typ == "kong" or rng.random() < 0.3:
        melds.append(_meld(rng, typ, k))
    else:
        concealed += [k, k + 1, k + 2] if typ == "chow" else [k] * 3
    full = [0] * 34
    for x in concealed:
        full[x] += 1
    for m in melds:
        for x in meld_kinds(m):
            full[x] += 1
    if any(n > 4 for n in full):
        return None
    return _finish(rng, concealed, melds, full)


def _finish(rng: random.Random, concealed: list[int], melds: list[dict], used) -> dict:
    """Choose the winning tile and consistent win conditions."""
    win = rng.choice(concealed)
    tsumo = rng.random() < 0.4
    in_hand = concealed.count(win)
    in_melds = sum(1 for m in melds for k in meld_kinds(m) if k == win)
    has_kong = any(m["type"] in ("minkan", "kakan", "ankan") for m in melds)
    line = {
        "hand": tiles_str(concealed),
        "melds": melds,
        "win": tile_str(win),
        "tsumo": tsumo,
        "seat_wind": rng.choice(WINDS),
        "round_wind": rng.choice(WINDS),
        "flowers": rng.choice((0, 0, 0, 1, 2, 3, 8)),
    }
    if in_hand == 1 and in_melds == 0 and rng.random() < 0.15:
        line["last_tile"] = True
    if rng.random() < 0.08:
        line["wall_last"] = True
    if tsumo and has_kong and rng.random() < 0.25:
        line["kong_replacement"] = True
    if (
        not tsumo
        and in_hand == 1
        and in_melds == 0
        and not line.get("wall_last")
        and rng.random() < 0.1
    ):
        line["robbing_kong"] = True
    return line


def _template_sets(rng: random.Random):
    """Sets of the rare shapes random sets seldom hit."""
    s1, s2, s3 = rng.sample(range(3), 3)
    pick = rng.randrange(5)
    if pick == 0:  # big four winds
        return [("pung", k) for k in range(27, 31)], rng.choice(
            [x for x in range(34) if not 27 <= x < 31]
        )
    if pick == 1:  # three-suited terminal chows
        return [
            ("chow", s1 * 9),
            ("chow", s1 * 9 + 6),
            ("chow", s2 * 9),
            ("chow", s2 * 9 + 6),
        ], s3 * 9 + 4
    if pick == 2:  # pure terminal chows
        return [
            ("chow", s1 * 9),
            ("chow", s1 * 9),
            ("chow", s1 * 9 + 6),
            ("chow", s1 * 9 + 6),
        ], s1 * 9 + 4
    if pick == 3:  # all green / all even pungs
        if rng.random() < 0.5:
            return [("pung", k) for k in rng.sample([19, 20, 21, 23, 25, 32], 4)], rng.choice(
                [19, 21, 23, 25]
            )
        evens = [s * 9 + r for s in range(3) for r in (1, 3, 5, 7)]
        return [("pung", k) for k in rng.sample(evens, 4)], rng.choice(evens)
    return None, None


def template_hand(rng: random.Random) -> dict | None:
    if rng.random() < 0.3:  # nine gates
        s = rng.randrange(3) * 9
        concealed = [s] * 3 + [s + r for r in range(1, 8)] + [s + 8] * 3 + [s + rng.randrange(9)]
        return _finish(rng, concealed, [], None)
    sets, pair = _template_sets(rng)
    if sets is None:
        return standard_hand(rng)
    used = [0] * 34
    for typ, k in sets:
        for x in [k, k + 1, k + 2] if typ == "chow" else [k] * 3:
            used[x] += 1
    used[pair] += 2
    if any(n > 4 for n in used):
        return None
    n_open = rng.choice((0, 0, 1, 2, 4))
    melds, concealed = [], [pair, pair]
    for i, (typ, k) in enumerate(sets):
        if typ == "pung" and rng.random() < 0.15:
            typ = "kong"
        if typ == "kong" or i < n_open:
            melds.append(_meld(rng, typ, k))
        else:
            concealed += [k, k + 1, k + 2] if typ == "chow" else [k] * 3
    return _finish(rng, concealed, melds, used)


SHAPES = (
    (template_hand, 0.04),
    (standard_hand, 0.74),
    (seven_pairs_hand, 0.09),
    (thirteen_orphans_hand, 0.03),
    (knitted_hand, 0.10),
)


def random_hands(seed: int, n: int) -> list[dict]:
    """``n`` seeded random winning hands as batch lines (ids 0..n-1)."""
    rng = random.Random(seed)
    out: list[dict] = []
    makers = [m for m, _ in SHAPES]
    weights = [w for _, w in SHAPES]
    while len(out) < n:
        line = rng.choices(makers, weights)[0](rng)
        if line is not None:
            line["id"] = len(out)
            out.append(line)
    return out


def dense_hands(seed: int, n: int) -> list[dict]:
    """``n`` concealed winning hands drawn at random from one or two suits (rarely honours):
    many readings each, so the choice between readings is tested hard."""
    from scoring.mcr.decompose import is_complete

    rng = random.Random(seed)
    out: list[dict] = []
    while len(out) < n:
        suits = rng.sample(range(3), rng.choice((1, 1, 2)))
        pool = [s * 9 + r for s in suits for r in range(9)] * 4
        if rng.random() < 0.2:
            pool += list(range(27, 34)) * 4
        tiles = sorted(rng.sample(pool, 14))
        counts = [0] * 34
        for t in tiles:
            counts[t] += 1
        if is_complete(counts, 0):
            out.append(
                {
                    "id": len(out),
                    "hand": tiles_str(tiles),
                    "win": tile_str(rng.choice(tiles)),
                    "tsumo": rng.random() < 0.4,
                }
            )
    return out


# ---------------------------------------------------------------- oracle
_GB_SUIT = {"m": "W", "p": "B", "s": "T"}
# PyMahjongGB: J1 = 中 (red), J2 = 發 (green), J3 = 白 (white)
_GB_HONOR = ("F1", "F2", "F3", "F4", "J3", "J2", "J1")


def gb_tile(t: str) -> str:
    d, s = t[0], t[1]
    return _GB_HONOR[int(d) - 1] if s == "z" else f"{_GB_SUIT[s]}{d}"


def _split_tiles(text: str) -> list[str]:
    out, digits = [], []
    for ch in text:
        if ch.isdigit():
            digits.append(ch)
        else:
            out += [d + ch for d in digits]
            digits = []
    return out


def oracle_call(line: dict, *, verbose: bool = True):
    """PyMahjongGB's answer for a batch line: ((points, count, zh, en), ...)."""
    from MahjongGB import MahjongFanCalculator

    packs = []
    for m in line.get("melds", []):
        ts = _split_tiles(m["tiles"])
        if m["type"] == "chi":
            packs.append(("CHI", gb_tile(ts[1]), 1))
        elif m["type"] == "pon":
            packs.append(("PENG", gb_tile(ts[0]), 1))
        else:
            packs.append(("GANG", gb_tile(ts[0]), 0 if m["type"] == "ankan" else 1))
    hand = [gb_tile(t) for t in _split_tiles(line["hand"])]
    win = gb_tile(line["win"])
    hand.remove(win)
    return MahjongFanCalculator(
        pack=tuple(packs),
        hand=tuple(hand),
        winTile=win,
        flowerCount=line.get("flowers", 0),
        isSelfDrawn=line.get("tsumo", False),
        is4thTile=line.get("last_tile", False),
        isAboutKong=line.get("kong_replacement", False) or line.get("robbing_kong", False),
        isWallLast=line.get("wall_last", False),
        seatWind=WINDS.index(line.get("seat_wind", "E")),
        prevalentWind=WINDS.index(line.get("round_wind", "E")),
        verbose=verbose,
    )


def oracle_fans(line: dict) -> dict[str, int]:
    """PyMahjongGB's fans as {our id: points}, flowers left out."""
    out = {}
    for points, count, _zh, en in oracle_call(line):
        fid = en.lower().replace("-", "_").replace(" ", "_")
        if fid != "flower_tiles":
            out[fid] = points * count
    return out
