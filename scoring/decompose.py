"""Readings of a winning hand and the waits the winning tile can complete.

Works on kinds only (0..33, see :mod:`scoring.tiles`): red fives and flowers
are counted elsewhere. A *set* is a small tuple ``(shape, first, concealed, kan)`` where
``shape`` is ``SEQ`` (a run ``first, first+1, first+2``) or ``TRIP``; the sets of
concealed tiles are made concealed and not kans, the form :mod:`scoring.yaku` and
:mod:`scoring.fu` read (called sets are added by the caller).

* :func:`shape` — every 4-sets-1-pair reading of the concealed tiles and whether they are
  seven pairs or thirteen orphans, from each suit's readings, memoized (the tiles of one
  suit recur across a batch far more than whole hands do); :func:`readings` gives the
  readings from 34 counts.
* :func:`is_chiitoitsu`, :func:`is_kokushi` — the two special shapes.
* :func:`wait_slots` — for one reading and the winning kind, every place the
  winning tile can sit, each naming its wait (ryanmen, kanchan, penchan,
  tanki, shanpon). Scoring evaluates every slot of every reading and keeps
  the best (the rulebooks' 高点法: 000 (2) 多面待ち, "上記のどれかに決める").
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, Final, Iterable, Sequence

from .memo import Memo
from .tiles import TERMINALS_AND_HONORS

SEQ, TRIP = 0, 1

RYANMEN, KANCHAN, PENCHAN, TANKI, SHANPON = "ryanmen", "kanchan", "penchan", "tanki", "shanpon"
KOKUSHI_KINDS: Final = TERMINALS_AND_HONORS


def _sets(c: list[int], start: int, end: int, runs: bool) -> list[tuple[Any, ...]]:
    """Every way to split ``c[start:end]`` (mutated and restored) into sets."""
    i = start
    while i < end and c[i] == 0:
        i += 1
    if i == end:
        return [()]
    out: list[tuple[Any, ...]] = []
    if c[i] >= 3:
        c[i] -= 3
        out += [((TRIP, i),) + rest for rest in _sets(c, i, end, runs)]
        c[i] += 3
    if runs and i + 2 < end and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        out += [((SEQ, i),) + rest for rest in _sets(c, i, end, runs)]
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
    return out


def _group(counts: tuple[Any, ...], runs: bool) -> tuple[Any, ...]:
    """Readings of one suit (or of the honours, ``runs`` false) as ``(pair or None, sets)``
    with kinds relative to the group."""
    total = sum(counts)
    c = list(counts)
    n = len(c)
    if total % 3 == 0:
        return tuple((None, sets) for sets in _sets(c, 0, n, runs))
    out = []
    for p in range(n):
        if c[p] >= 2:
            c[p] -= 2
            out += [(p, sets) for sets in _sets(c, 0, n, runs)]
            c[p] += 2
    return tuple(dict.fromkeys(out))


def _group_at(counts: tuple[Any, ...], base: int) -> tuple[Any, ...]:
    """:func:`_group` with kinds moved to the group's place among the 34 (memoized by the
    caller, :func:`_suit_options`)."""
    return tuple(
        (
            None if p is None else p + base,
            tuple((shape, first + base, True, False) for shape, first in sets),
        )
        for p, sets in _group(counts, base < 27)
    )


_GROUPS: Final = ((0, 9), (9, 18), (18, 27), (27, 34))


def readings(counts: tuple[Any, ...]) -> tuple[Any, ...]:
    """All ``(pair_kind, sets)`` readings of concealed tiles (3n+2 of them), from their
    34 counts (:func:`shape` answers the same from sorted kinds, memoized)."""
    if sum(counts) % 3 != 2:
        return ()
    return _combine(_group_at(counts[b:e], b) for b, e in _GROUPS if any(counts[b:e]))


# Any, not Iterable: for a typed iterable, mypyc would build a list of each generator passed
def _combine(group_options: Any) -> tuple[Any, ...]:
    """Every choice of one reading per group, joined (at most one group holds the pair)."""
    combos: list[tuple[Any, ...]] = [(None, ())]
    pairs = 0
    for options in group_options:
        if not options:
            return ()
        pairs += options[0][0] is not None
        if pairs > 1:  # two groups each needing the pair
            return ()
        if len(options) == 1:  # the common case: one way to read this suit
            gp, gsets = options[0]
            combos = [(pair if gp is None else gp, sets + gsets) for pair, sets in combos]
        else:
            combos = [
                (pair if gp is None else gp, sets + gsets)
                for pair, sets in combos
                for gp, gsets in options
            ]
    return tuple(combos) if len(combos) == 1 else tuple(dict.fromkeys(combos))


# --------------------------------------------------------------------------- by sorted kinds
# The batch's hot path describes concealed tiles by their sorted kinds (made in C by
# sorted(map(...)), where a 34-count list costs a Python loop). Whole hands seldom recur
# across a batch, the tiles of one suit do, so each suit's readings are memoized on that
# suit's kinds and joined by _combine exactly as readings() joins them.
_SUITS: Final = Memo(1 << 16)  # one suit's sorted kinds -> its readings


def _counts_of(kinds: Iterable[int], base: int, size: int) -> tuple[Any, ...]:
    c = [0] * size
    for k in kinds:
        c[k - base] += 1
    return tuple(c)


def _suit_options(kinds: tuple[Any, ...]) -> tuple[Any, ...]:
    """:func:`_group_at` of one suit (or the honours) given as its sorted kinds."""
    hit: tuple[Any, ...] | None = _SUITS.get(kinds)
    if hit is None:
        base = 27 if kinds[0] >= 27 else kinds[0] - kinds[0] % 9
        size = 7 if base == 27 else 9
        hit = _SUITS.put(kinds, _group_at(_counts_of(kinds, base, size), base))
    return hit


def _by_suit(kinds: tuple[Any, ...]) -> tuple[Any, ...]:
    a = bisect_left(kinds, 9)
    b = bisect_left(kinds, 18, a)
    c = bisect_left(kinds, 27, b)
    return tuple(g for g in (kinds[:a], kinds[a:b], kinds[b:c], kinds[c:]) if g)


def shape(kinds: tuple[Any, ...]) -> tuple[Any, ...]:
    """``(readings, seven pairs, seven pairs counting a four of a kind as two, thirteen
    orphans)`` of concealed tiles given as their sorted kinds: the same answers as
    :func:`readings`, :func:`is_chiitoitsu` and :func:`is_kokushi` on their counts."""
    if len(kinds) % 3 != 2:
        found: tuple[Any, ...] = ()
    else:
        found = _combine(_suit_options(g) for g in _by_suit(kinds))
    # cheap necessary conditions first: seven pairs need every count even, kokushi 13 kinds
    even = kinds[0::2] == kinds[1::2]
    special = even or len(set(kinds)) == 13
    counts = _counts_of(kinds, 0, 34) if special else ()  # () is never read: special is False
    return (
        found,
        even and is_chiitoitsu(counts, False),
        even and is_chiitoitsu(counts, True),
        special and is_kokushi(counts),
    )


def is_chiitoitsu(counts: Iterable[int], four_as_two_pairs: bool = False) -> bool:
    """Seven pairs; a four of a kind counts as two pairs only if the rules say so."""
    pairs = 0
    for n in counts:
        if n == 2:
            pairs += 1
        elif n == 4 and four_as_two_pairs:
            pairs += 2
        elif n:
            return False
    return pairs == 7


def is_kokushi(counts: Sequence[int]) -> bool:
    """Thirteen orphans: one of each terminal and honour, one of them twice."""
    if sum(counts) != 14:
        return False
    return (
        all(counts[k] >= 1 for k in KOKUSHI_KINDS) and sum(counts[k] for k in KOKUSHI_KINDS) == 14
    )


def seq_wait(first: int, win: int) -> str:
    """The wait of a run completed by ``win``."""
    pos = win - first
    if pos == 1:
        return KANCHAN
    if pos == 0:
        return PENCHAN if first % 9 == 6 else RYANMEN
    return PENCHAN if first % 9 == 0 else RYANMEN


def wait_slots(pair: int, sets: tuple[Any, ...], win: int) -> list[tuple[int, str]]:
    """Where ``win`` can sit in a reading: ``(index, wait)`` with index -1 for the pair.

    Two identical sets give the same slot, so each (shape, first, wait) is
    returned once.
    """
    out: list[tuple[int, str]] = []
    seen = set()
    if pair == win:
        out.append((-1, TANKI))
    for idx, s in enumerate(sets):
        shape, first = s[0], s[1]
        if shape == TRIP:
            if first != win:
                continue
            wait = SHANPON
        else:
            if not first <= win <= first + 2:
                continue
            wait = seq_wait(first, win)
        key = (shape, first, wait)
        if key not in seen:
            seen.add(key)
            out.append((idx, wait))
    return out
