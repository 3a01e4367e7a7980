"""Readings of an MCR hand: every way its tiles can form a winning shape.

A reading is a :class:`Reading`: a shape name and, for shapes made of sets,
the sets and the pair. Shapes:

* ``standard``   four sets and a pair (the called melds are fixed sets);
* ``knitted``    a knitted straight (組合龍, 147/258/369 in three suits)
  plus one set and a pair — 004:154-156;
* ``seven_pairs`` seven pairs, a kind may appear twice — 004:106-108;
* ``thirteen_orphans`` — 004:38-40;
* ``honors_knitted`` 全不靠 / 七星不靠: fourteen single tiles, honours
  and knitted suited tiles — 004:110-112, 004:150-152.

Everything works on 34-slot count arrays of kinds (``scoring.tiles``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from typing import Any, Iterator

from ..tiles import TERMINALS_AND_HONORS

CHOW, PUNG, KONG = "chow", "pung", "kong"


@dataclass(frozen=True)
class Set:
    """One set of a reading. ``tile`` is the lowest kind; ``open`` means
    called from another player (a concealed kong is not open)."""

    type: str
    tile: int
    open: bool = False

    @property
    def kinds(self) -> tuple[int, ...]:
        if self.type == CHOW:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.type == KONG else 3)


@dataclass(frozen=True)
class Reading:
    shape: str
    sets: tuple[Any, ...] = ()
    pair: int | None = None
    knitted: tuple[Any, ...] = ()  # the nine kinds of a knitted straight, if any


# The six knitted straights: suits (m, p, s) take 147, 258, 369 in some order.
KNITTED_STRAIGHTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(s * 9 + order[s] + 3 * j for s in range(3) for j in range(3)))
    for order in permutations((0, 1, 2))
)


def sets_and_pair(counts: list[int], need: int) -> list[tuple[tuple[Set, ...], int]]:
    """Every way to split ``counts`` into ``need`` concealed sets and a pair.

    At the lowest remaining kind a pung is tried first, then a chow, then the
    pair, so the first answer is the one a player would read first.
    """
    return list(_split(counts, need, None, 0))


def _split(counts: list[int], need: int, pair: int | None, start: int) -> Iterator[Any]:
    i = start
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        if need == 0 and pair is not None:
            yield (), pair
        return
    if counts[i] >= 3 and need:
        counts[i] -= 3
        for rest, p in _split(counts, need - 1, pair, i):
            yield (Set(PUNG, i),) + rest, p
        counts[i] += 3
    if need and i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        for rest, p in _split(counts, need - 1, pair, i):
            yield (Set(CHOW, i),) + rest, p
        for k in (i, i + 1, i + 2):
            counts[k] += 1
    if pair is None and counts[i] >= 2:
        counts[i] -= 2
        yield from _split(counts, need, i, i)
        counts[i] += 2


def is_seven_pairs(counts: list[int]) -> bool:
    return sum(counts) == 14 and all(n in (0, 2, 4) for n in counts)


def is_thirteen_orphans(counts: list[int]) -> bool:
    return (
        sum(counts) == 14
        and all(counts[k] >= 1 for k in TERMINALS_AND_HONORS)
        and sum(counts[k] for k in TERMINALS_AND_HONORS) == 14
    )


def is_honors_knitted(counts: list[int]) -> bool:
    """全不靠 / 七星不靠: fourteen different tiles, the suited ones from one knitted straight."""
    if sum(counts) != 14 or any(n > 1 for n in counts):
        return False
    suited = {k for k in range(27) if counts[k]}
    return any(suited <= set(ks) for ks in KNITTED_STRAIGHTS)


def knitted_readings(counts: list[int], fixed: tuple[Set, ...]) -> list[Reading]:
    """Knitted straight + one set + pair, with at most one called set."""
    if len(fixed) > 1:
        return []
    out = []
    for ks in KNITTED_STRAIGHTS:
        if all(counts[k] for k in ks):
            rest = list(counts)
            for k in ks:
                rest[k] -= 1
            for sets, pair in sets_and_pair(rest, 1 - len(fixed)):
                out.append(Reading("knitted", fixed + sets, pair, ks))
    return out


def readings(counts: list[int], fixed: tuple[Set, ...]) -> list[Reading]:
    """Every reading of concealed ``counts`` (winning tile included) with called sets ``fixed``."""
    counts = list(counts)
    out = knitted_readings(counts, fixed)
    if not fixed:
        if is_seven_pairs(counts):
            out.append(Reading("seven_pairs"))
        if is_thirteen_orphans(counts):
            out.append(Reading("thirteen_orphans"))
        if is_honors_knitted(counts):
            out.append(Reading("honors_knitted"))
    for sets, pair in sets_and_pair(counts, 4 - len(fixed)):
        out.append(Reading("standard", fixed + sets, pair))
    return out


def _can_split(counts: list[int], need: int, pair: bool, i: int) -> bool:
    """True if ``counts`` is ``need`` sets plus (unless ``pair``) one pair; no sets are built."""
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        return need == 0 and pair
    ok = False
    if counts[i] >= 3 and need:
        counts[i] -= 3
        ok = _can_split(counts, need - 1, pair, i)
        counts[i] += 3
    if not ok and need and i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        ok = _can_split(counts, need - 1, pair, i)
        for k in (i, i + 1, i + 2):
            counts[k] += 1
    if not ok and not pair and counts[i] >= 2:
        counts[i] -= 2
        ok = _can_split(counts, need, True, i)
        counts[i] += 2
    return ok


def is_complete(counts: list[int], n_fixed: int) -> bool:
    """True if ``counts`` plus ``n_fixed`` called sets is a winning shape (builds no reading)."""
    if _can_split(counts, 4 - n_fixed, False, 0):
        return True
    if n_fixed > 1:
        return False
    distinct = sum(1 for n in counts if n)  # cheap filter for the shapes of single tiles
    if n_fixed == 0:
        if distinct <= 7 and is_seven_pairs(counts):
            return True
        if distinct >= 13 and (is_thirteen_orphans(counts) or is_honors_knitted(counts)):
            return True
    return distinct >= 9 and _knitted_complete(counts, n_fixed)


def _knitted_complete(counts: list[int], n_fixed: int) -> bool:
    for ks in KNITTED_STRAIGHTS:
        if all(counts[k] for k in ks):
            for k in ks:
                counts[k] -= 1
            ok = _can_split(counts, 1 - n_fixed, False, 0)
            for k in ks:
                counts[k] += 1
            if ok:
                return True
    return False


def _candidates(counts13: list[int]) -> list[int]:
    """Kinds that could complete the hand: neighbours of its tiles, or any kind for the
    shapes of single tiles (knitted, thirteen orphans) when the hand has that many kinds."""
    present = [k for k in range(34) if counts13[k]]
    if len(present) >= 8:
        return list(range(34))
    out = set()
    for k in present:
        if k >= 27:
            out.add(k)
        else:
            base = k - k % 9
            out.update(x for x in range(k - 2, k + 3) if base <= x < base + 9)
    return sorted(out)


def waiting_tiles(counts13: list[int], n_fixed: int, limit: int = 34) -> list[int]:
    """The kinds that complete a 13-tile hand, by shape alone (at most ``limit`` of them).

    A wait is judged by the shape of the hand (004:253-261 多面待ち), so a
    tile is counted even when every copy of it is already out of play.
    """
    out = []
    for k in _candidates(counts13):
        counts13[k] += 1
        if is_complete(counts13, n_fixed):
            out.append(k)
        counts13[k] -= 1
        if len(out) >= limit:
            break
    return out
