"""The errors the domain raises: a catalogue key, the values its sentence names, a code
and an HTTP-like status.

Bad input is never a 500. Domain code raises :class:`UserError` (or a subclass) with a
catalogue key (``lexicon/catalogue``) and the values its sentence names, and a status
(400 bad input, 404 not found, 409 conflicts such as "already recorded", 422 a request
the rules or the event schema refuse); the shell words it in the caller's language.
"""

from __future__ import annotations

from typing import Any

import lexicon
from club.i18n import asked_lang
from groundwork.errors import CodedError


class UserError(CodedError):
    """A request that cannot be done as asked: a catalogue key and the values it names."""

    status = 400
    code = "bad_request"

    def __init__(self, key: str, *, status: int | None = None, code: str | None = None,
                 details: dict | None = None, **values: Any) -> None:
        super().__init__(key, code, **values)
        self.key = key
        if status is not None:
            self.status = status
        self.details = details or {}

    @property
    def message(self) -> str:
        """The sentence in the caller's language (both languages when nobody asks)."""
        lang = asked_lang()
        if lang is not None:
            return lexicon.t(self.key, lang, **self.values)
        return lexicon.both(self.key, **self.values)

    def __str__(self) -> str:
        return self.message


class NotFound(UserError):
    status = 404
    code = "not_found"


class Conflict(UserError):
    status = 409
    code = "conflict"


class Refused(UserError):
    """The rules, the game's state or the event schema do not allow this."""

    status = 422
    code = "refused"
