"""The tile sets of each mode, the walls, the dice break and the deal.

Tile codes are those of the wire protocol (``tablectl.protocol.tiles``):
0-8 1m-9m, 9-17 1p-9p, 18-26 1s-9s, 27-33 1z-7z (East South West North White
Green Red), 34/35/36 the red fives 0m/0p/0s, 37-44 the flowers 1f-8f
(1f-4f the seasons 春夏秋冬, 5f-8f the flowers 梅蘭菊竹).

Sets (docs/protocol.md, "Tile sets", gives the reasoning):

====  ========================================================  =====
mode  tiles                                                      count
====  ========================================================  =====
01    m, p, s 1-9 x4, honours x4; one red five per suit          136
02    136 + the four seasons 1f-4f                               140
03    136 + 1f-8f                                                144
04    136 without 2m-8m (1m 9m p s z x4); red 0p 0s              108
05    108 + 1f-4f                                                112
06    108 + 1f-8f                                                116
07    136 without the bamboos (m p z x4); red 0m 0p              100
08    characters and honours only (m z x4); red 0m               64
====  ========================================================  =====

Everything here is pure (the caller passes the random generator), so tests
can check every rule with a seeded ``random.Random``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet

from tablectl.modes import MODES, Mode

MAN, PIN, SOU = range(0, 9), range(9, 18), range(18, 27)
HONOURS = range(27, 34)
RED = {0: 34, 1: 35, 2: 36}            # suit index -> red five code
FIVE = {0: 4, 1: 13, 2: 22}            # suit index -> plain five code
SEASONS = tuple(range(37, 41))         # 1f-4f
FLOWERS_8 = tuple(range(37, 45))       # 1f-8f


def _suited(suits: tuple[int, ...], kinds_skip: AbstractSet[int] = frozenset()) -> list[int]:
    out: list[int] = []
    for s in suits:
        for k in range(9 * s, 9 * s + 9):
            if k in kinds_skip:
                continue
            copies = [k] * 4
            if k == FIVE[s]:
                copies[0] = RED[s]     # one of the four fives is red
            out += copies
    return out


def _honours() -> list[int]:
    return [k for k in HONOURS for _ in range(4)]


def tile_set(mode: Mode | int) -> list[int]:
    """The tiles of one set for ``mode``, sorted (empty for check mode)."""
    n = mode.number if isinstance(mode, Mode) else int(mode)
    if n == 0:
        return []
    if n in (1, 2, 3):
        base = _suited((0, 1, 2)) + _honours()
        extra = {1: (), 2: SEASONS, 3: FLOWERS_8}[n]
    elif n in (4, 5, 6):
        base = _suited((0, 1, 2), kinds_skip=set(range(1, 8))) + _honours()
        extra = {4: (), 5: SEASONS, 6: FLOWERS_8}[n]
    elif n == 7:
        base, extra = _suited((0, 1)) + _honours(), ()
    elif n == 8:
        base, extra = _suited((0,)) + _honours(), ()
    else:
        raise ValueError(f"no tile set for mode {n}")
    out = sorted(base + list(extra))
    assert len(out) == MODES[n].tiles, (n, len(out))
    return out


def wall_sizes(mode: Mode) -> list[int]:
    """Stacks per wall: the set's stacks of two split over ``mode.walls`` walls
    as evenly as possible, the first walls taking the extra stacks."""
    stacks = mode.tiles // 2
    q, r = divmod(stacks, mode.walls)
    return [q + (1 if i < r else 0) for i in range(mode.walls)]


def build_walls(tiles: list[int], mode: Mode, rng) -> tuple[tuple[int, ...], ...]:
    """Shuffle ``tiles`` with ``rng`` and stack them into walls."""
    pool = list(tiles)
    rng.shuffle(pool)
    walls = []
    i = 0
    sizes = wall_sizes(mode)
    # a set short of (or over) tiles still builds: the last wall absorbs the difference
    for w, n in enumerate(sizes):
        take = 2 * n if w < len(sizes) - 1 else len(pool) - i
        walls.append(tuple(pool[i:i + take]))
        i += take
    return tuple(walls)


def wall_of_seat(seat: int, mode: Mode) -> int:
    """The wall in front of ``seat`` (in three-wall modes seat 3, North, has none)."""
    return seat % mode.walls


def seat_order(dealer: int, mode: Mode) -> list[int]:
    """Playing seats in turn order (counter-clockwise), dealer first."""
    seats = sorted(mode.seats)
    i = seats.index(dealer)
    return seats[i:] + seats[:i]


def break_point(dealer: int, dice: tuple[int, int], mode: Mode) -> tuple[int, int]:
    """Where the dice break the wall: ``(wall, stack)``, ``stack`` in 1..the wall's stacks.

    Count the dice total around the walls counter-clockwise, the dealer's wall
    being 1; on that wall count the total in stacks from its right end (as its
    owner sees it, which is where drawing starts). A count beyond the wall's
    end carries on into the next wall in draw order (a 64-tile wall has 8
    stacks: a total of 10 breaks the next wall at its 2nd stack).
    """
    total = dice[0] + dice[1]
    wall = (wall_of_seat(dealer, mode) + total - 1) % mode.walls
    sizes = wall_sizes(mode)
    stack = total
    while stack > sizes[wall]:
        stack -= sizes[wall]
        wall = (wall - 1) % mode.walls
    return wall, stack


def draw_order(walls, break_wall: int, break_stack: int) -> tuple[int, ...]:
    """All tiles in the order they are drawn: from the break, stack by stack
    (top then bottom), wall ``b``, then ``b-1``... (drawing goes clockwise)."""
    ring: list[int] = []
    n = len(walls)
    for k in range(n):
        ring += walls[(break_wall - k) % n]
    if not ring:
        return ()
    start = (2 * break_stack) % len(ring)
    return tuple(ring[start:] + ring[:start])


Hands = tuple[tuple[int, ...], ...]


def deal(order: tuple[int, ...], dealer: int, mode: Mode) -> tuple[Hands, tuple[int, ...]]:
    """Deal from ``order``: three rounds of four tiles to each playing seat
    (dealer first), then one each, then the dealer's 14th. Returns
    ``(hands per seat 0..3, live wall left)``."""
    hands: dict[int, list[int]] = {s: [] for s in range(4)}
    seats = seat_order(dealer, mode)
    i = 0

    def take(seat: int, n: int) -> None:
        nonlocal i
        hands[seat] += order[i:i + n]
        i += n

    for _ in range(3):
        for s in seats:
            take(s, 4)
    for s in seats:
        take(s, 1)
    take(dealer, 1)
    return tuple(tuple(hands[s]) for s in range(4)), tuple(order[i:])


def count_diff(counted: list[int], expected: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(missing, extra)`` tile codes of ``counted`` against ``expected``."""
    c, e = Counter(counted), Counter(expected)
    missing = tuple(sorted((e - c).elements()))
    extra = tuple(sorted((c - e).elements()))
    return missing, extra
