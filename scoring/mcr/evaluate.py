"""Fans of one reading of an MCR hand, and the best reading of a hand.

The pipeline for a reading follows the referee's order: sets first (how the
chows and pungs combine), then the hand as a whole (suits, tile kinds,
ranks), then how it was won (waits, self-draw, last tile ...), then the
exclusions of ``fans.py`` and the winds. Each step adds to a
``collections.Counter`` of fan ids; :func:`best_reading` keeps the reading
worth the most.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Iterable

from ..memo import Memo
from ..tiles import DRAGONS, HAKU, HATSU, WINDS, is_honor, is_terminal
from .decompose import CHOW, KONG, PUNG, Reading, Set, readings, waiting_tiles
from .fans import FANS, ORDER

GREEN = frozenset({19, 20, 21, 23, 25, HATSU})  # 2 3 4 6 8 s, 發 (004:25)
REVERSIBLE = frozenset({9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, HAKU})  # 004:168

# Which pair-of-chows fan wins when several could be counted (most to least wanted).
PAIR_CHOW_FANS = ("pure_double_chow", "mixed_double_chow", "short_straight", "two_terminal_chows")


@dataclass(frozen=True)
class Options:
    """The MCR switches of ``rules.hand``, read in one place (see scoring/rules.py)."""

    two_concealed_kongs: int = 8
    mixed_kongs: str = "two_fans"
    concealed_special_self_drawn: str = "fully_concealed"
    all_green_full_flush: bool = False
    all_terminals_double_pung: bool = True
    all_terminals_terminal_pungs: bool = False
    hog_in_green_or_terminal_pairs: bool = False
    all_five_all_chows: bool = False
    nine_gates_terminal_pungs: str = "none"
    knitted_straight_edge_closed: bool = False
    wind_pung_terminal_pung: bool = True


@dataclass(frozen=True)
class Win:
    """Everything about a hand that is not its reading."""

    concealed: tuple[Any, ...]  # 34 counts, winning tile included
    fixed: tuple[Any, ...]  # called sets (Set, open=False for a concealed kong)
    win: int
    tsumo: bool
    seat: int  # wind kind
    prevalent: int
    last_tile: bool = False
    wall_last: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False

    @property
    def all_counts(self) -> list[int]:
        c = list(self.concealed)
        for s in self.fixed:
            for k in s.kinds:
                c[k] += 1
        return c


_EXCLUSIONS = Memo(64)  # Options -> exclusions


def exclusions(opts: Options) -> dict[str, frozenset[Any]]:
    """Each fan's exclusions under the switches (memoized: a batch asks under the same ones).
    The registry holds 004's reading; a switch set to PyMahjongGB's reading drops or adds the
    exclusion it names."""
    hit: dict[str, frozenset[Any]] | None = _EXCLUSIONS.get(opts)
    if hit is None:
        hit = _exclusions(opts)
        _EXCLUSIONS.put(opts, hit)
    return hit


def _exclusions(opts: Options) -> dict[str, frozenset[Any]]:
    ex = {fid: set(f.excludes) for fid, f in FANS.items()}
    if opts.all_green_full_flush:
        ex["all_green"] -= {"full_flush", "no_honors"}
    if opts.nine_gates_terminal_pungs != "none":
        ex["nine_gates"].discard("pung_of_terminals_or_honors")
    if not opts.all_terminals_double_pung:
        ex["all_terminals"].add("double_pung")
    if opts.all_terminals_terminal_pungs:
        ex["all_terminals"].discard("pung_of_terminals_or_honors")
    if opts.all_five_all_chows:
        ex["all_five"].discard("all_chows")
    if opts.knitted_straight_edge_closed:
        ex["knitted_straight"] -= {"edge_wait", "closed_wait"}
    return {k: frozenset(v) for k, v in ex.items()}


# ---------------------------------------------------------------- set combinations
def _suit(k: int) -> int:
    return k // 9


def _rank(k: int) -> int:
    return k % 9 + 1


def chow_pair_fan(a: int, b: int) -> str | None:
    """The 1-point fan two chows (by lowest tile) make together, if any."""
    if _suit(a) != _suit(b):
        return "mixed_double_chow" if _rank(a) == _rank(b) else None
    if a == b:
        return "pure_double_chow"
    if abs(a - b) == 3:
        return "short_straight"
    if {_rank(a), _rank(b)} == {1, 7}:
        return "two_terminal_chows"
    return None


def chow_triple_fan(a: int, b: int, c: int) -> str | None:
    """The fan three chows make together (sorted lowest tiles), if any."""
    suits = {_suit(a), _suit(b), _suit(c)}
    ranks = sorted((_rank(a), _rank(b), _rank(c)))
    if len(suits) == 3:
        if ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1:
            return "mixed_shifted_chows"
        if ranks[0] == ranks[2]:
            return "mixed_triple_chow"
        if ranks == [1, 4, 7]:
            return "mixed_straight"
        return None
    if len(suits) != 1:
        return None
    if ranks == [1, 4, 7]:
        return "pure_straight"
    if ranks[1] - ranks[0] == ranks[2] - ranks[1] and ranks[1] - ranks[0] in (1, 2):
        return "pure_shifted_chows"
    if ranks[0] == ranks[2]:
        return "pure_triple_chow"
    return None


def chow_quad_fan(t: list[int]) -> str | None:
    a, b, c, d = sorted(t)
    if _suit(a) == _suit(d):
        step = b - a
        if step in (1, 2) and c - b == step and d - c == step:
            return "four_pure_shifted_chows"
        if a == d:
            return "quadruple_chow"
    return None


def _best_pair_fans(chows: list[int]) -> list[str]:
    """Pair fans among chows with no three-chow fan.

    Account-once and non-identical principles: the counted pairs form no
    cycle (each further set combines once with a set already counted) and a
    set never makes the same fan twice. Of the largest such choices, the one
    with the most valuable mix (PAIR_CHOW_FANS order) is kept.
    """
    edges = []
    for i, j in combinations(range(len(chows)), 2):
        f = chow_pair_fan(chows[i], chows[j])
        if f:
            edges.append((i, j, f))
    best: tuple[Any, ...] = ()
    best_key = None
    for n in range(len(edges), 0, -1):
        for sub in combinations(edges, n):
            if _acyclic_distinct(sub, len(chows)):
                key = tuple(sum(1 for e in sub if e[2] == f) for f in PAIR_CHOW_FANS)
                if best_key is None or key > best_key:
                    best, best_key = sub, key
        if best:
            break
    return [e[2] for e in best]


def _acyclic_distinct(edges: Iterable[tuple[int, int, str]], n: int) -> bool:
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    used = set()
    for i, j, f in edges:
        if (i, f) in used or (j, f) in used:
            return False
        used.update({(i, f), (j, f)})
        ri, rj = root(i), root(j)
        if ri == rj:
            return False
        parent[ri] = rj
    return True


def chow_fans(chows: list[int]) -> list[str]:
    """Fans from the chows of a reading (all pair/triple/quad combinations)."""
    if len(chows) == 4:
        quad = chow_quad_fan(chows)
        if quad:
            return [quad]
    if len(chows) >= 3:
        best: list[str] | None = None
        for trio in combinations(range(len(chows)), 3):
            fan = chow_triple_fan(*sorted(chows[i] for i in trio))
            if not fan:
                continue
            out = [fan]
            rest = [i for i in range(len(chows)) if i not in trio]
            if rest:
                extra = {chow_pair_fan(chows[rest[0]], chows[i]) for i in trio} - {None}
                out += [f for f in PAIR_CHOW_FANS if f in extra][:1]
            if best is None or _points(out) > _points(best):
                best = out
        if best:
            return best
    return _best_pair_fans(chows)


def _points(fids: Iterable[str]) -> int:
    return sum(FANS[f].points for f in fids)


def pung_pair_fan(a: int, b: int) -> str | None:
    if a < 27 and b < 27:
        return "double_pung" if _rank(a) == _rank(b) else None
    if a in DRAGONS and b in DRAGONS:
        return "two_dragons_pungs"
    return None


def pung_triple_fan(a: int, b: int, c: int) -> str | None:
    """The fan three pungs make together (sorted kinds), if any."""
    if c < 27:
        suits = {_suit(a), _suit(b), _suit(c)}
        ranks = sorted((_rank(a), _rank(b), _rank(c)))
        if len(suits) == 3 and ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1:
            return "mixed_shifted_pungs"
        if len(suits) == 3 and ranks[0] == ranks[2]:
            return "triple_pung"
        if len(suits) == 1 and b == a + 1 and c == b + 1:
            return "pure_shifted_pungs"
        return None
    if all(k in WINDS for k in (a, b, c)):
        return "big_three_winds"
    if (a, b, c) == DRAGONS:
        return "big_three_dragons"
    return None


def pung_fans(pungs: list[int]) -> list[str]:
    """Fans from how the pungs of a reading combine."""
    ks = sorted(pungs)
    if len(ks) == 4:
        if ks[0] < 27 and _suit(ks[0]) == _suit(ks[3]) and ks == list(range(ks[0], ks[0] + 4)):
            return ["four_pure_shifted_pungs"]
        if ks == list(WINDS):
            return ["big_four_winds"]
    if len(ks) >= 3:
        for trio in combinations(range(len(ks)), 3):
            fan = pung_triple_fan(*(ks[i] for i in trio))
            if fan:
                rest = [i for i in range(len(ks)) if i not in trio]
                for r in rest:  # the fourth pung combines once (account-once)
                    pairs = [pung_pair_fan(ks[i], ks[r]) for i in trio]
                    extra = [f for f in pairs if f]
                    return [fan] + extra[:1]
                return [fan]
    out = []
    for i, j in combinations(range(len(ks)), 2):
        f = pung_pair_fan(ks[i], ks[j])
        if f:
            out.append(f)
    return out


# ---------------------------------------------------------------- whole-hand traits
def suit_fans(counts: list[int]) -> list[str]:
    suits = [any(counts[s * 9 : (s + 1) * 9]) for s in range(3)]
    honors = any(counts[27:])
    out = [] if honors else ["no_honors"]
    missing = suits.count(False)
    if missing == 1:
        out.append("one_voided_suit")
    elif missing == 2:
        out.append("half_flush" if honors else "full_flush")
    if missing == 0 and any(counts[k] for k in WINDS) and any(counts[k] for k in DRAGONS):
        out.append("all_types")
    return out


def tile_fans(counts: list[int]) -> list[str]:
    kinds = [k for k in range(34) if counts[k]]
    out = []
    if all(k < 27 and 0 < k % 9 < 8 for k in kinds):
        out.append("all_simples")
    if all(k in REVERSIBLE for k in kinds):
        out.append("reversible_tiles")
    if all(k in GREEN for k in kinds):
        out.append("all_green")
    if all(is_honor(k) for k in kinds):
        out.append("all_honors")
    elif all(is_terminal(k) for k in kinds):
        out.append("all_terminals")
    elif all(is_honor(k) or is_terminal(k) for k in kinds):
        out.append("all_terminals_and_honors")
    return out


def rank_fans(counts: list[int]) -> list[str]:
    kinds = [k for k in range(34) if counts[k]]
    if any(k >= 27 for k in kinds):
        return []
    ranks = {_rank(k) for k in kinds}
    if ranks <= {1, 2, 3, 4}:
        return ["lower_four" if 4 in ranks else "lower_tiles"]
    if ranks <= {6, 7, 8, 9}:
        return ["upper_four" if 6 in ranks else "upper_tiles"]
    if ranks <= {4, 5, 6}:
        return ["middle_tiles"]
    return []


def hog_count(counts: list[int], kongs: int) -> int:
    return sum(1 for n in counts if n == 4) - kongs


# ---------------------------------------------------------------- one reading
def _reading_sets(r: Reading, w: Win) -> list[Set]:
    """The sets of a reading; on a discard win the pung the tile completed is open."""
    sets = list(r.sets)
    if w.tsumo:
        return sets
    n_fixed = len(w.fixed)
    in_chow = any(s.type == CHOW and w.win in s.kinds for s in sets[n_fixed:])
    if not in_chow and r.knitted and w.win in r.knitted:
        in_chow = True  # the tile completes the knitted straight, not a pung
    if not in_chow:
        for i in range(n_fixed, len(sets)):
            if sets[i].type == PUNG and sets[i].tile == w.win:
                sets[i] = Set(PUNG, w.win, True)
                break
    return sets


def kong_fans(sets: list[Set], opts: Options) -> list[str]:
    """Kongs, concealed pungs, all pungs and the one-pung fans."""
    melded_k = sum(1 for s in sets if s.type == KONG and s.open)
    concealed_k = sum(1 for s in sets if s.type == KONG and not s.open)
    concealed_p = sum(1 for s in sets if s.type == PUNG and not s.open)
    out: list[str] = []
    kongs = melded_k + concealed_k
    if kongs == 1:
        out.append("melded_kong" if melded_k else "concealed_kong")
    elif kongs == 2:
        out += {0: ["two_melded_kongs"], 2: ["two_concealed_kongs"]}.get(
            concealed_k,
            ["concealed_kong_and_melded_kong"]
            if opts.mixed_kongs == "single_fan"
            else ["two_melded_kongs", "concealed_kong"],
        )
    elif kongs == 3:
        out.append("three_kongs")
    elif kongs == 4:
        out.append("four_kongs")
    hidden = concealed_k + concealed_p
    if hidden >= 2:
        out.append(
            {2: "two_concealed_pungs", 3: "three_concealed_pungs", 4: "four_concealed_pungs"}[
                hidden
            ]
        )
    pungs = [s for s in sets if s.type != CHOW]
    if len(pungs) == 4:
        out.append("all_pungs")
    for s in pungs:
        if s.tile in DRAGONS:
            out.append("dragon_pung")
        elif is_honor(s.tile) or is_terminal(s.tile):
            out.append("pung_of_terminals_or_honors")
    return out


def set_trait_fans(sets: list[Set], pair: int) -> list[str]:
    groups = [s.kinds for s in sets] + [(pair, pair)]
    if all(any(is_honor(k) or is_terminal(k) for k in g) for g in groups):
        return ["outside_hand"]
    if all(any(k < 27 and _rank(k) == 5 for k in g) for g in groups):
        return ["all_five"]
    if all(g[0] == g[-1] and g[0] < 27 and _rank(g[0]) % 2 == 0 for g in groups):
        return ["all_even_pungs"]
    return []


def terminal_chows_fan(chows: list[int], pair: int) -> str | None:
    """一色双龍会 / 三色双龍会: 123 and 789 twice around a pair of fives."""
    if pair >= 27 or _rank(pair) != 5 or len(chows) != 4:
        return None
    ps = _suit(pair)
    shape = sorted((_suit(c), _rank(c)) for c in chows)
    if shape == [(ps, 1), (ps, 1), (ps, 7), (ps, 7)]:
        return "pure_terminal_chows"
    others = sorted(set(range(3)) - {ps})
    if shape == sorted((s, r) for s in others for r in (1, 7)):
        return "three_suited_terminal_chows"
    return None


def concealment_fans(w: Win) -> list[str]:
    melded = sum(1 for s in w.fixed if s.open)
    if melded == 0:
        return ["fully_concealed_hand" if w.tsumo else "concealed_hand"]
    if melded == 4 and not w.tsumo:
        return ["melded_hand"]
    return []


def win_flag_fans(w: Win) -> list[str]:
    out = []
    if w.last_tile:
        out.append("last_tile")
    if w.wall_last:
        out.append("last_tile_draw" if w.tsumo else "last_tile_claim")
    if w.kong_replacement:
        out.append("out_with_replacement_tile")
    if w.robbing_kong:
        out.append("robbing_the_kong")
    if w.tsumo:
        out.append("self_drawn")
    return out


def wait_shape(r: Reading, w: Win) -> str | None:
    """Where the winning tile sits in a reading: edge, closed or single wait, if any
    (edge first when the tile could be read several ways, as PyMahjongGB does)."""
    found = set()
    for s in r.sets[len(w.fixed) :]:
        if s.type == CHOW and w.win in s.kinds:
            pos = w.win - s.tile
            if pos == 1:
                found.add("closed_wait")
            elif (pos == 2 and _rank(s.tile) == 1) or (pos == 0 and _rank(s.tile) == 7):
                found.add("edge_wait")
    if r.pair == w.win:
        found.add("single_wait")
    for f in ("edge_wait", "closed_wait", "single_wait"):
        if f in found:
            return f
    return None


def wait_fan(r: Reading, w: Win, unique: bool) -> list[str]:
    """Edge, closed or single wait, only when the hand waited on one tile (004:251-261)."""
    shape = wait_shape(r, w) if unique else None
    return [shape] if shape else []


def is_nine_gates(w: Win) -> bool:
    if w.fixed:
        return False
    c = list(w.concealed)
    c[w.win] -= 1
    for s in range(3):
        base = s * 9
        if c[base : base + 9] == [3, 1, 1, 1, 1, 1, 1, 1, 3]:
            return True
    return False


def standard_fans(r: Reading, w: Win, opts: Options, unique: bool) -> Counter[Any]:
    """Fans of a four-sets-and-a-pair reading (also the knitted-straight one)."""
    sets = _reading_sets(r, w)
    chows = [s.tile for s in sets if s.type == CHOW]
    pungs = [s.tile for s in sets if s.type != CHOW]
    fans: Counter[Any] = Counter(kong_fans(sets, opts))
    counts = w.all_counts
    assert r.pair is not None  # a four-sets-and-a-pair reading has its pair
    if r.knitted:
        fans["knitted_straight"] += 1
        if len(chows) == 1 and r.pair < 27:
            fans["all_chows"] += 1
        fans.update(suit_fans(counts))
    else:
        special = terminal_chows_fan(chows, r.pair)
        fans.update([special] if special else chow_fans(chows))
        fans.update(pung_fans(pungs))
        if len(chows) == 4 and r.pair < 27:
            fans["all_chows"] += 1
        _pair_upgrades(fans, r.pair)
        fans.update(set_trait_fans(sets, r.pair))
        fans.update(suit_fans(counts))
        fans.update(tile_fans(counts))
        fans.update(rank_fans(counts))
        if is_nine_gates(w):
            fans["nine_gates"] += 1
            if opts.nine_gates_terminal_pungs == "one_fewer":
                fans["pung_of_terminals_or_honors"] -= 1
    fans.update(concealment_fans(w))
    hog = hog_count(counts, sum(1 for s in sets if s.type == KONG))
    if hog:
        fans["tile_hog"] += hog
    if "melded_hand" not in fans and "four_kongs" not in fans:
        fans.update(wait_fan(r, w, unique))
    fans.update(win_flag_fans(w))
    return fans


def _pair_upgrades(fans: Counter[Any], pair: int) -> None:
    """Two dragon pungs and a dragon pair are 小三元; three wind pungs and a wind pair 小四風会."""
    if fans["two_dragons_pungs"] and pair in DRAGONS:
        del fans["two_dragons_pungs"]
        fans["little_three_dragons"] += 1
    if fans["big_three_winds"] and pair in WINDS:
        del fans["big_three_winds"]
        fans["little_four_winds"] += 1


def special_fans(r: Reading, w: Win, opts: Options) -> Counter[Any]:
    """Seven pairs, thirteen orphans and the honours-and-knitted hands."""
    counts = list(w.concealed)
    fans: Counter[Any] = Counter()
    if r.shape == "seven_pairs":
        if _is_shifted_pairs(counts):
            fans["seven_shifted_pairs"] += 1
            fans.update(
                f
                for f in tile_fans(counts)
                if f in ("all_simples", "reversible_tiles", "all_green")
            )
        else:
            fans["seven_pairs"] += 1
            fans.update(suit_fans(counts) + tile_fans(counts) + rank_fans(counts))
            hog = hog_count(counts, 0)
            limited = fans["all_green"] or fans["all_terminals"]
            if hog and (opts.hog_in_green_or_terminal_pairs or not limited):
                fans["tile_hog"] += hog  # 004:27, 004:49: not with 緑一色 / 清么九 seven pairs
    elif r.shape == "thirteen_orphans":
        fans["thirteen_orphans"] += 1
    else:
        if all(counts[k] for k in range(27, 34)):
            fans["greater_honors_and_knitted_tiles"] += 1
        else:
            fans["lesser_honors_and_knitted_tiles"] += 1
            if sum(counts[:27]) == 9:
                fans["knitted_straight"] += 1
    fans.update(win_flag_fans(w))
    return fans


def _is_shifted_pairs(counts: list[int]) -> bool:
    ks = [k for k in range(34) if counts[k]]
    return len(ks) == 7 and ks[-1] < 27 and _suit(ks[0]) == _suit(ks[-1]) and ks[-1] - ks[0] == 6


SPECIAL_CONCEALED = (
    "seven_pairs",
    "seven_shifted_pairs",
    "thirteen_orphans",
    "greater_honors_and_knitted_tiles",
    "lesser_honors_and_knitted_tiles",
    "nine_gates",
    "four_concealed_pungs",
)


def _self_drawn_special(fans: Counter[Any], w: Win, opts: Options) -> None:
    """A concealed special hand won by self-draw: 不求人 (004:108, 112, 152, 65) or just 自摸."""
    if not w.tsumo or not any(fans[f] for f in SPECIAL_CONCEALED):
        return
    if opts.concealed_special_self_drawn == "fully_concealed":
        if not any(s.open for s in w.fixed):
            fans.pop("self_drawn", None)
            fans["fully_concealed_hand"] = 1
    else:
        fans.pop("fully_concealed_hand", None)
        fans["self_drawn"] = 1


def apply_exclusions(fans: Counter[Any], opts: Options) -> Counter[Any]:
    """Drop what each counted fan excludes, highest fans first."""
    ex = exclusions(opts)
    for fid in sorted(fans, key=lambda f: (-FANS[f].points, ORDER[f])):
        if fans.get(fid, 0) > 0:
            for x in ex[fid]:
                fans.pop(x, None)
    return fans


def wind_fans(fans: Counter[Any], sets: list[Set], w: Win, opts: Options) -> None:
    """Seat and prevalent wind pungs; under PyMahjongGB's reading each one replaces the
    么九刻 already counted for it, under 004:246 (門風刻、圏風刻と複合する) both count."""
    if fans["big_four_winds"]:
        return
    if fans["big_three_winds"] and not (fans["all_honors"] or fans["all_terminals_and_honors"]):
        fans["pung_of_terminals_or_honors"] -= 3  # 三風刻 already holds three 么九刻
    deducted = opts.wind_pung_terminal_pung or any(
        fans[f]
        for f in ("big_three_winds", "all_terminals_and_honors", "all_honors", "little_four_winds")
    )
    for s in sets:
        if s.type == CHOW or s.tile not in WINDS:
            continue
        if s.tile == w.prevalent:
            fans["prevalent_wind"] = 1
            if not deducted:
                fans["pung_of_terminals_or_honors"] -= 1
        if s.tile == w.seat:
            fans["seat_wind"] = 1
            if s.tile != w.prevalent and not deducted:
                fans["pung_of_terminals_or_honors"] -= 1


def reading_fans(r: Reading, w: Win, opts: Options, unique: bool) -> Counter[Any]:
    """All fans of one reading, exclusions applied (chicken hand when nothing else)."""
    if r.shape in ("standard", "knitted"):
        fans = standard_fans(r, w, opts, unique)
        sets = _reading_sets(r, w)
    else:
        fans = special_fans(r, w, opts)
        sets = []
    _self_drawn_special(fans, w, opts)
    fans = apply_exclusions(fans, opts)
    wind_fans(fans, sets, w, opts)
    fans = Counter({k: v for k, v in fans.items() if v > 0})
    if not fans:
        fans["chicken_hand"] = 1
    return fans


def fan_points(fid: str, opts: Options) -> int:
    if fid == "two_concealed_kongs":
        return opts.two_concealed_kongs
    return FANS[fid].points


def total(fans: Counter[Any], opts: Options) -> int:
    return sum(fan_points(f, opts) * n for f, n in fans.items())


def best_reading(w: Win, opts: Options) -> tuple[Reading, Counter[Any]] | None:
    """The reading worth the most fan (None if the tiles are not a winning hand)."""
    rs = readings(list(w.concealed), w.fixed)
    if not rs:
        return None
    unique = False
    if any(r.shape in ("standard", "knitted") and wait_shape(r, w) for r in rs):
        # the search for other winning tiles is only worth it when a wait fan could count
        counts13 = list(w.concealed)
        counts13[w.win] -= 1
        unique = len(waiting_tiles(counts13, len(w.fixed), limit=2)) == 1
    best = None
    for r in rs:
        fans = reading_fans(r, w, opts, unique)
        value = total(fans, opts)
        if best is None or value > best[0] or (value == best[0] and _preferred(fans, best[1])):
            best = (value, r, fans)
    assert best is not None  # rs is not empty: the hand has at least one reading
    return best[1], best[2]


def _preferred(fans: Counter[Any], held: Reading) -> bool:
    """Between readings worth the same, the one a referee writes down: sets rather than
    seven pairs, and three identical chows or pungs rather than shifted ones."""
    return held.shape == "seven_pairs" or bool(fans["pure_triple_chow"] or fans["triple_pung"])
