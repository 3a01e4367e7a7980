"""One reader of checked options: a section of a TOML file (``[link]``, ``[notify]``,
``[printer]``) or any table of settings, read option by option as Klipper's
``config.getint(option, default, minval, maxval)`` reads a printer's config.

Each getter takes the option's name, its default (none: the option must be there) and
its bounds, and refuses a value of the wrong kind or out of bounds through the section's
own ``refuse(option, value, allowed)``, which builds the error its package raises (the
section and the option named in it); ``allowed`` says in words what the option takes.
:func:`read_toml` reads the file such a section is in. The module imports nothing of
ours, so every package may stand on it.
"""

from __future__ import annotations

import os
import tomllib
from typing import Any, Callable, Collection, Mapping

Refuse = Callable[[str, Any, str], Exception]
"""``refuse(option, value, allowed)``: the error to raise for a value not allowed."""

_MUST = object()


def is_whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (a bool is not one, though Python says so)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a number, whole or not (never a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Options:
    """The options of one section, read with their kind and bounds checked."""

    def __init__(self, values: Mapping[str, Any], refuse: Refuse) -> None:
        self.values = values
        self.refuse = refuse

    def _get(self, option: str, default: Any, allowed: str) -> tuple[Any, bool]:
        """The value given (and True), or the default (and False)."""
        if option in self.values:
            return self.values[option], True
        if default is _MUST:
            raise self.refuse(option, None, allowed)
        return default, False

    def check(self, option: str, fits: bool, value: Any, allowed: str) -> None:
        """Refuse ``value`` of ``option`` unless it ``fits``."""
        if not fits:
            raise self.refuse(option, value, allowed)

    def getint(self, option: str, default: Any = _MUST, minval: int | None = None,
               maxval: int | None = None) -> Any:
        """A whole number from ``minval`` to ``maxval`` (each optional)."""
        allowed = "a whole number" + (
            f" {minval}..{maxval}" if minval is not None and maxval is not None
            else f" from {minval}" if minval is not None
            else f" up to {maxval}" if maxval is not None else "")
        value, given = self._get(option, default, allowed)
        if given:
            self.check(option, is_whole(value) and (minval is None or value >= minval)
                       and (maxval is None or value <= maxval), value, allowed)
        return value

    def getfloat(self, option: str, default: Any = _MUST, above: float | None = None,
                 maxval: float | None = None, unit: str = "seconds") -> Any:
        """A number of ``unit`` above ``above`` and at most ``maxval`` (each optional),
        as a float."""
        allowed = (f"a number of {unit}" + (f" above {above:g}" if above is not None else "")
                   + (" and" if above is not None and maxval is not None else "")
                   + (f" at most {maxval:g}" if maxval is not None else ""))
        value, given = self._get(option, default, allowed)
        if not given:
            return value
        self.check(option, is_number(value) and (above is None or value > above)
                   and (maxval is None or value <= maxval), value, allowed)
        return float(value)

    def getboolean(self, option: str, default: Any = _MUST) -> Any:
        """true or false."""
        value, given = self._get(option, default, "true or false")
        if given:
            self.check(option, isinstance(value, bool), value, "true or false")
        return value

    def gettext(self, option: str, default: Any = _MUST, allowed: str = "text in quotes",
                empty: bool = True) -> Any:
        """Text (``empty=False``: not empty nor only spaces)."""
        value, given = self._get(option, default, allowed)
        if given:
            self.check(option, isinstance(value, str) and (empty or bool(value.strip())),
                       value, allowed)
        return value

    def getchoice(self, option: str, choices: Collection[Any], default: Any = _MUST,
                  allowed: str | None = None) -> Any:
        """One of ``choices`` (a bool is never a number among them)."""
        words = allowed or " / ".join(f'"{c}"' if isinstance(c, str) else str(c)
                                      for c in choices)
        value, given = self._get(option, default, words)
        if given:
            self.check(option, not isinstance(value, bool) and value in choices, value, words)
        return value


def read_toml(path: str | os.PathLike[str], missing: Callable[[], Exception],
              unreadable: Callable[[Exception], Exception]) -> dict[str, Any]:
    """The TOML file at ``path`` as a dict; a file that is not there raises ``missing()``,
    one that cannot be read or is not TOML ``unreadable(the reason)``."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise missing() from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise unreadable(e) from None
