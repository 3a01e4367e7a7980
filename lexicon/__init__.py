"""Every word a person reads, in one catalogue: Japanese first, then English.

The catalogue is the TOML files in ``lexicon/catalogue/``, one per area of the
product (``common``, ``tablet``, ``staff``, ``leaderboard`` ...). Each entry is
``"area.key" = ["日本語", "English"]``; the file an entry sits in is only for
finding it, keys are unique across all files. A text may name values in
braces (``"{seat}の席"``), filled by :func:`t`.

The web app, the table daemon and its CLI all look words up here; the scoring
engine stays pure and refuses with codes and values, worded here at the edge.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

LANGS = ("ja", "en")
DEFAULT_LANG = "ja"
CATALOGUE = Path(__file__).with_name("catalogue")


class _Keep(dict[str, Any]):
    """Format values that leave an unknown ``{name}`` as it is instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@cache
def entries() -> dict[str, tuple[str, str]]:
    """The whole catalogue, ``key -> (ja, en)`` (read once per process)."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(CATALOGUE.glob("*.toml")):
        with path.open("rb") as f:
            for key, value in tomllib.load(f).items():
                if key in out:
                    raise ValueError(f"{path.name}: {key!r} is already in the catalogue")
                if (not isinstance(value, list) or len(value) != len(LANGS)
                        or not all(isinstance(v, str) for v in value)):
                    raise ValueError(f"{path.name}: {key!r} needs [\"日本語\", \"English\"]")
                out[key] = (value[0], value[1])
    return out


def has(key: str) -> bool:
    """Whether ``key`` is in the catalogue."""
    return key in entries()


def t(key: str, lang: str = DEFAULT_LANG, **values: object) -> str:
    """The text for ``key`` in ``lang`` with ``values`` filled in (the key itself if unknown)."""
    entry = entries().get(key)
    if entry is None:
        return key
    text = entry[LANGS.index(lang) if lang in LANGS else 0]
    return text.format_map(_Keep(values)) if values else text


def both(key: str, **values: object) -> str:
    """``"日本語 / English"``: for logs and terminals read by either kind of reader."""
    ja, en = (t(key, lang, **values) for lang in LANGS)
    return ja if ja == en else f"{ja} / {en}"
