"""One base exception for the ``tablectl`` package.

Exceptions are for *our* failures (a malformed frame, an unknown mode name, a
link that does not answer, a request the store refuses). An error the *table*
reports (lid open, motor jam ...) is a message -- a reply's result code or an
event -- never an exception.

Every error carries a machine-readable ``code`` and the ``values`` its words
need; the words themselves are in the catalogue (``table.code.<code>`` in
``lexicon/catalogue/table.toml``), so each reader gets them in their language.
``detail`` is a technical note for logs when there are no words (malformed
bytes, which staff never see).
"""

from __future__ import annotations

from typing import Any

import lexicon
from groundwork.errors import CodedError


class TableError(CodedError):
    """Base of every error the tablectl package raises on purpose."""

    code = "table_error"

    def __init__(self, detail: str = "", code: str | None = None, **values: Any) -> None:
        super().__init__(detail, code, **values)
        self.detail = detail

    @property
    def key(self) -> str:
        return f"table.code.{self.code}"

    def text(self, lang: str = lexicon.DEFAULT_LANG) -> str:
        """The error in words, in ``lang``."""
        if lexicon.has(self.key):
            return lexicon.t(self.key, lang, **self.values)
        return self.detail or self.code

    @property
    def message(self) -> str:
        """The error in both languages (``日本語 / English``), for logs and terminals."""
        if lexicon.has(self.key):
            return lexicon.both(self.key, **self.values)
        return self.detail or self.code

    def __str__(self) -> str:
        return self.message


class ProtocolError(TableError):
    """Bytes or a message that break the wire protocol."""

    code = "protocol_error"


class UnknownMessage(ProtocolError):
    """A frame whose message type this side does not know (the table NAKs it)."""

    code = "unknown_message"


class PayloadError(ProtocolError):
    """A known message whose payload is malformed (the table NAKs it)."""

    code = "bad_payload"


class UnknownMode(TableError, ValueError):
    """A mode name or number that is not in the modes table."""

    code = "bad_mode"

    def __init__(self, given: str, names: str):
        super().__init__(f"unknown mode {given!r}", given=given, names=names)
