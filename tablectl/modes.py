"""The table's game modes, from the AMOS JP-EX COLOR settings list (自動卓設定表,
``shared/seeds/002``): the one table of modes for the protocol, the simulator,
the CLI and the console.

A mode's names in words (``四人標準`` / ``four-player 136``) are in the
catalogue (``table.mode.NN``); the CLI also accepts them, and the short names
and aliases below, and the number (``4``, ``04``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import lexicon

from .errors import UnknownMode

SEATS = 4
"""Seats 0..3 = East, South, West, North of the table."""


@dataclass(frozen=True)
class Mode:
    """One game setting of the table."""

    number: int
    name: str                   # short CLI name
    aliases: tuple[str, ...]    # more CLI names (number forms are always accepted)
    tiles: int                  # tiles in one set (0: check mode raises no walls)
    players: int                # seats dealt (0: check mode)
    seats: tuple[int, ...]      # seats that play and must hold point sticks
    walls: int                  # walls the table builds

    @property
    def code(self) -> str:
        return f"{self.number:02d}"

    @property
    def is_check(self) -> bool:
        return self.number == 0

    @property
    def start_points(self) -> int:
        """The point sticks each playing seat's drawer starts with (35,000 for three
        players, else 25,000; none in check mode)."""
        if self.is_check:
            return 0
        return 35000 if self.players == 3 else 25000

    def sticks(self, kept: list[Any] | None = None, start: int | None = None) -> list[int | None]:
        """What the four drawers hold for a new game in this mode: ``start`` points (default
        :attr:`start_points`) in each playing seat, none elsewhere. Check mode needs
        nothing: the drawers stay as ``kept``."""
        if self.is_check:
            return list(kept or [None] * SEATS)
        total = start or self.start_points
        return [total if s in self.seats else None for s in range(SEATS)]

    def words(self, lang: str) -> str:
        """The mode's name as the settings list prints it (ja) or in English."""
        return lexicon.t(f"table.mode.{self.code}", lang)

    def label(self, lang: str = "ja") -> str:
        """``04 三人標準 (108)``: number, name and tile count."""
        return f"{self.code} {self.words(lang)}" + (f" ({self.tiles})" if self.tiles else "")


MODES: tuple[Mode, ...] = (
    Mode(0, "check", ("check-mode", "chk", "test"), 0, 0, (), 0),
    Mode(1, "yonma", ("4p", "four", "standard", "136", "yonin"), 136, 4, (0, 1, 2, 3), 4),
    Mode(2, "yonma-hana", ("4p-flowers", "four-flowers", "140"), 140, 4, (0, 1, 2, 3), 4),
    Mode(3, "yonma-hanahana", ("4p-double-flowers", "four-double-flowers", "144"),
         144, 4, (0, 1, 2, 3), 4),
    Mode(4, "sanma", ("3p", "three", "108", "sannin"), 108, 3, (0, 1, 2), 3),
    Mode(5, "sanma-hana", ("3p-flowers", "three-flowers", "112", "三人花"), 112, 3, (0, 1, 2), 3),
    Mode(6, "sanma-hanahana", ("3p-double-flowers", "three-double-flowers", "116"),
         116, 3, (0, 1, 2), 3),
    Mode(7, "100", ("100-tile", "100tile", "hyaku"), 100, 4, (0, 1, 2, 3), 4),
    Mode(8, "64", ("64-tile", "64tile", "2p", "futari"), 64, 2, (0, 2), 4),
)

_INDEX: dict[str, Mode] = {}


def _index() -> dict[str, Mode]:
    if not _INDEX:
        for m in MODES:
            names = (m.name, *m.aliases, m.words("ja"), m.words("en"),
                     m.words("en").replace(" ", "-"))
            for n in names:
                _INDEX[n.casefold()] = m
    return _INDEX


def mode_names() -> str:
    """Every mode with its names, for error messages and ``--help``."""
    return "; ".join(f"{m.code} {m.name} ({', '.join(m.aliases)})" for m in MODES)


def mode_by_name(text: object) -> Mode:
    """A mode from a number (``4``, ``04``) or a name (``sanma``, ``四人花``...).

    Raises :class:`UnknownMode` (code ``unknown_mode``, values ``given`` and
    ``names``) whose words list the valid names."""
    if isinstance(text, Mode):
        return text
    if isinstance(text, int) and not isinstance(text, bool):
        if 0 <= text < len(MODES):
            return MODES[text]
        raise UnknownMode(str(text), mode_names())
    s = str(text).strip()
    key = s.casefold().replace("_", "-")
    if key.isascii() and key.isdigit() and len(key) <= 2 and int(key) < len(MODES):
        return MODES[int(key)]
    m = _index().get(key)
    if m is None:
        raise UnknownMode(s, mode_names())
    return m
