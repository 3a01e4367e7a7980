"""The club's words in a given language, over :mod:`lexicon`.

The domain does not know who is asking: the language of the moment comes from a
source the shell registers (:func:`use_language_source`; the web app gives the
request's language). Without one, or outside a request, it is Japanese.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import lexicon
from lexicon import DEFAULT_LANG

_source: Callable[[], str | None] | None = None


def use_language_source(source: Callable[[], str | None] | None) -> None:
    """Register where the language of the moment comes from (None when nobody asks in one:
    a command line, a worker)."""
    global _source
    _source = source


def asked_lang() -> str | None:
    """The language the current caller asked in, or None when there is no caller."""
    return _source() if _source is not None else None


def current_lang() -> str:
    """The language of the moment: the caller's, else Japanese."""
    return asked_lang() or DEFAULT_LANG


def t(key: str, lang: str | None = None, **values: Any) -> str:
    """The text for ``key`` in ``lang`` (the language of the moment if not given; the key
    itself if unknown)."""
    return lexicon.t(key, lang or current_lang(), **values)
