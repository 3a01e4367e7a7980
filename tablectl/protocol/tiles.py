"""A tile on the wire: one byte (docs/protocol.md section 9), and its ``mpsz`` name.

``0-8`` 1m-9m, ``9-17`` 1p-9p, ``18-26`` 1s-9s, ``27-33`` 1z-7z (East South West
North White Green Red), ``34 35 36`` the red fives 0m 0p 0s, ``37-44`` the flowers
1f-8f. The numbering is the scoring engine's too; the table link keeps its own copy
so that neither the daemon nor the simulator depends on the engine.
"""

from __future__ import annotations

SUITS = "mpsz"
RED_BASE = 34
FLOWER_BASE = 37
LAST = 44


def tile_name(code: int) -> str:
    """The ``mpsz`` name of a wire tile code (``4`` -> ``5m``, ``34`` -> ``0m``)."""
    if not 0 <= code <= LAST:
        raise ValueError(f"{code} is not a tile code (0-{LAST})")
    if code >= FLOWER_BASE:
        return f"{code - FLOWER_BASE + 1}f"
    if code >= RED_BASE:
        return f"0{SUITS[code - RED_BASE]}"
    return f"{code % 9 + 1}{SUITS[code // 9]}"


def tile_code(name: str) -> int:
    """The wire code of one tile written ``mpsz`` style (``5m``, ``0p``, ``7z``, ``3f``)."""
    text = name.strip()
    for code in range(LAST + 1):
        if tile_name(code) == text:
            return code
    raise ValueError(f"{name!r} is not one tile: write a digit and m, p, s, z or f "
                     "(1m-9m, 1p-9p, 1s-9s, 1z-7z, 0m 0p 0s for a red five, 1f-8f)")
