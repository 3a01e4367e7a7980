"""Tiles, the ``mpsz`` notation and melds.

A tile is a small int:

* ``0..33`` are the 34 kinds: ``0-8`` characters 1-9 (m), ``9-17`` dots (p),
  ``18-26`` bamboo (s), ``27-33`` honours East, South, West, North, White,
  Green, Red (z 1-7);
* ``34, 35, 36`` are the red fives ``0m``, ``0p``, ``0s`` (their kind is the
  plain five: :func:`kind`);
* ``37..44`` are the flowers ``1f..8f`` (MCR and the flower table modes).

Everything that reasons about shapes works on kinds (``kind(t)``) and on
34-slot count arrays (``counts34``); red fives and flowers are only counted.

The parser is strict: it refuses, and says where, rather than guessing
(``"123m45"`` is an error, not ``123m``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final, Iterable

from .errors import InvalidTiles

SUITS: Final = "mpsz"
MAN, PIN, SOU, HONOR = 0, 1, 2, 3

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
HAKU, HATSU, CHUN = 31, 32, 33
WINDS: Final = (EAST, SOUTH, WEST, NORTH)
DRAGONS: Final = (HAKU, HATSU, CHUN)
WIND_LETTERS: Final = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH}

RED_BASE: Final = 34
RED_FIVES: Final = (34, 35, 36)
FLOWER_BASE: Final = 37
FLOWERS: Final = tuple(range(37, 45))

TERMINALS_AND_HONORS: Final = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def kind(t: int) -> int:
    """The 0..33 kind of a tile (a red five is a five). Flowers have no kind."""
    if t < 34:
        return t
    if t < 37:
        return 4 + 9 * (t - RED_BASE)
    raise ValueError("a flower has no tile kind")


def is_red(t: int) -> bool:
    return 34 <= t < 37


def is_flower(t: int) -> bool:
    return t >= FLOWER_BASE


def suit(k: int) -> int:
    """0 m, 1 p, 2 s, 3 honours (of a kind)."""
    return k // 9


def number(k: int) -> int:
    """1..9 for suited kinds, 1..7 for honours."""
    return k % 9 + 1


def is_honor(k: int) -> bool:
    return k >= 27


def is_terminal(k: int) -> bool:
    return k < 27 and k % 9 in (0, 8)


def counts34(tiles: Iterable[int]) -> list[int]:
    """Count tiles per kind; flowers are ignored."""
    c = [0] * 34
    for t in tiles:
        if t < FLOWER_BASE:
            c[kind(t)] += 1
    return c


def _where(text: str, pos: int) -> str:
    return f"at position {pos + 1} of {text!r}"


def parse_tiles(text: Any, *, allow_flowers: bool = True) -> list[int]:  # Any: checked here
    """Parse ``mpsz`` notation (``"123m406p1122z"``, ``"5z"``, ``"12f"``).

    Digits come first, then the suit letter that applies to all of them.
    Raises :class:`InvalidTiles` naming the position of the first problem.
    """
    if not isinstance(text, str):
        raise InvalidTiles(f"tiles must be written as text such as '123m456p', not {text!r}",
                           reason="tiles_not_text", value=repr(text))
    s = text.replace(" ", "")
    tiles: list[int] = []
    pending: list[tuple[int, int]] = []  # (digit, position)
    for pos, ch in enumerate(s):
        if ch.isdigit() and ch.isascii():
            pending.append((int(ch), pos))
            continue
        if ch not in "mpszf":
            raise InvalidTiles(
                f"unexpected character {ch!r} {_where(s, pos)}: "
                "write digits followed by m, p, s, z or f",
                reason="tiles_bad_character", char=ch, position=pos + 1, text=s,
            )
        if not pending:
            raise InvalidTiles(f"suit letter {ch!r} {_where(s, pos)} has no digits before it",
                               reason="tiles_letter_alone", char=ch, position=pos + 1, text=s)
        for d, dpos in pending:
            tiles.append(_tile_from(d, ch, s, dpos))
        pending = []
    if pending:
        d, dpos = pending[0]
        raise InvalidTiles(
            f"digits from position {dpos + 1} of {s!r} have no suit letter after them "
            "(end each group with m, p, s or z)",
            reason="tiles_no_letter", position=dpos + 1, text=s,
        )
    if not allow_flowers and any(is_flower(t) for t in tiles):
        raise InvalidTiles("flowers (f) are not part of this rule set's tiles",
                           reason="tiles_no_flowers")
    return tiles


def _tile_from(d: int, letter: str, s: str, pos: int) -> int:
    if letter == "z":
        if not 1 <= d <= 7:
            raise InvalidTiles(f"honour {d}z {_where(s, pos)} does not exist: honours are 1z-7z",
                               reason="tiles_no_such_honour", tile=f"{d}z", position=pos + 1,
                               text=s)
        return 26 + d
    if letter == "f":
        if not 1 <= d <= 8:
            raise InvalidTiles(f"flower {d}f {_where(s, pos)} does not exist: flowers are 1f-8f",
                               reason="tiles_no_such_flower", tile=f"{d}f", position=pos + 1,
                               text=s)
        return FLOWER_BASE + d - 1
    sidx = SUITS.index(letter)
    if d == 0:
        return RED_BASE + sidx
    return sidx * 9 + d - 1


def tile_to_str(t: int) -> str:
    if is_flower(t):
        return f"{t - FLOWER_BASE + 1}f"
    if is_red(t):
        return f"0{SUITS[t - RED_BASE]}"
    return f"{number(t)}{SUITS[suit(t)]}"


def tiles_to_str(tiles: Iterable[int]) -> str:
    """Canonical ``mpsz`` text, grouped by suit in m, p, s, z, f order."""
    groups: dict[str, list[str]] = {c: [] for c in "mpszf"}

    def order(t: int) -> tuple[Any, ...]:
        if is_flower(t):
            return (5, t)
        k = kind(t)
        return (suit(k), number(k), 0 if is_red(t) else 1)

    for t in sorted(tiles, key=order):
        txt = tile_to_str(t)
        groups[txt[1]].append(txt[0])
    return "".join("".join(ds) + c for c, ds in groups.items() if ds)


def check_copies(tiles: Iterable[int], *, red_fives: tuple[int, int, int] = (1, 1, 1)) -> None:
    """Refuse a fifth copy of a kind, or more red fives than the rules have.

    ``red_fives`` is how many red fives each suit (m, p, s) has in the set.
    """
    c = counts34(tiles)
    for k, n in enumerate(c):
        if n > 4:
            raise InvalidTiles(
                f"{n} copies of {tile_to_str(k)}: the set has only 4 of each tile",
                reason="tiles_fifth_copy", count=n, tile=tile_to_str(k),
            )
    for sidx, allowed in enumerate(red_fives):
        n = sum(1 for t in tiles if t == RED_BASE + sidx)
        if n > allowed:
            name = f"0{SUITS[sidx]}"
            if allowed == 0:
                raise InvalidTiles(
                    f"red five {name} is not used in this rule set: write it as 5{SUITS[sidx]}",
                    reason="tiles_no_red_five", tile=name, plain=f"5{SUITS[sidx]}",
                )
            raise InvalidTiles(f"{n} red fives {name}: this rule set has only {allowed}",
                               reason="tiles_too_many_red_fives", count=n, tile=name,
                               allowed=allowed)
    fl = [t for t in tiles if is_flower(t)]
    if len(fl) != len(set(fl)):
        raise InvalidTiles("the same flower appears twice: each of 1f-8f exists once",
                           reason="tiles_flower_twice")


MELD_TYPES: Final = ("chi", "pon", "minkan", "ankan", "kakan")
MELD_FROM: Final = ("left", "across", "right")


@dataclass(frozen=True)
class Meld:
    """A called or declared set. ``tiles`` keeps red fives; ``from_`` is the seat it came from."""

    type: str
    tiles: tuple[int, ...]
    from_: str | None = None

    @property
    def kinds(self) -> tuple[int, ...]:
        return tuple(sorted(kind(t) for t in self.tiles))

    @cached_property
    def first(self) -> int:
        # cached: the batch keeps parsed melds and asks each for its first kind every hand
        return min(kind(t) for t in self.tiles)

    @property
    def is_kan(self) -> bool:
        return self.type in ("minkan", "ankan", "kakan")

    @property
    def opened(self) -> bool:
        """True for every call that opens the hand (a closed kan does not)."""
        return self.type != "ankan"

    def __str__(self) -> str:
        return f"{self.type}:{tiles_to_str(self.tiles)}"


def parse_meld(obj: object) -> Meld:
    """Build a :class:`Meld` from ``{"type": ..., "tiles": ..., "from": ...}``, strictly."""
    if not isinstance(obj, dict):
        raise InvalidTiles(
            f"a meld must be an object like {{'type': 'pon', 'tiles': '555z'}}, not {obj!r}",
            reason="meld_not_object", value=repr(obj),
        )
    mtype = obj.get("type")
    if mtype not in MELD_TYPES:
        raise InvalidTiles(f"meld type {mtype!r} is unknown: use one of {', '.join(MELD_TYPES)}",
                           reason="meld_type", value=repr(mtype), choices=", ".join(MELD_TYPES))
    tiles = parse_tiles(obj.get("tiles", ""), allow_flowers=False)
    src = obj.get("from")
    if src is not None and src not in MELD_FROM:
        raise InvalidTiles(f"meld 'from' {src!r} is unknown: use left, across or right",
                           reason="meld_from", value=repr(src))
    if mtype == "ankan" and src is not None:
        raise InvalidTiles("a closed kan (ankan) is not called from anyone: drop 'from'",
                           reason="ankan_from")
    ks = sorted(kind(t) for t in tiles)
    label = f"{mtype} {obj.get('tiles')!r}"
    if mtype == "chi":
        if src not in (None, "left"):
            raise InvalidTiles(f"{label}: a chi can only be called from the player on the left",
                               reason="chi_not_from_left", meld=label)
        run = [ks[0], ks[0] + 1, ks[0] + 2] if ks else []
        if len(ks) != 3 or is_honor(ks[0]) or suit(ks[0]) != suit(ks[2]) or ks != run:
            raise InvalidTiles(f"{label}: a chi is three consecutive tiles of one suit, like 345m",
                               reason="chi_not_a_run", meld=label)
    else:
        need = 3 if mtype == "pon" else 4
        if len(ks) != need or len(set(ks)) != 1:
            raise InvalidTiles(f"{label}: a {mtype} is {need} identical tiles",
                               reason="meld_not_identical", meld=label, type=mtype, count=need)
    return Meld(mtype, tuple(tiles), src)
