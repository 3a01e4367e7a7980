"""One base exception for the scoring package.

Each error carries the machine-readable ``code`` of the batch contract's ``error.code``
(a few broad kinds), an English message a person can act on, and for the words a person
reads in their own language a finer ``reason`` with the ``values`` it names (seat, field,
value, switch ...): ``lexicon/catalogue/engine.toml`` has a Japanese and an English text
for every reason, ``engine.<reason>``, its ``{placeholders}`` filled from ``values``::

    lexicon.t(f"engine.{e.reason}", lang, **e.values)

Functions that score a hand return an error *result* rather than raising; these
exceptions are for parsing, rule loading and game events, and are turned into results
at the edges.
"""

from __future__ import annotations

from typing import Any

from groundwork.errors import CodedError


class ScoringError(CodedError):
    """Base of every error the scoring package raises on purpose."""

    code = "invalid_input"

    def __init__(self, message: str, code: str | None = None, *, reason: str = "",
                 **values: Any) -> None:
        super().__init__(message, code, **values)
        self.message = message
        self.reason = reason or self.code

    def as_result(self, code: str | None = None) -> dict[str, Any]:
        """The error as the contracts write it (``code`` in place of this one's if given)."""
        return {"code": code or self.code, "message": self.message, "reason": self.reason,
                "values": self.values}


class InvalidTiles(ScoringError):
    """Tile notation that cannot be read, or tiles that cannot exist."""

    code = "invalid_tiles"


class InvalidInput(ScoringError):
    """A field of the input that is missing, of the wrong type or contradictory."""

    code = "invalid_input"


class RulesError(ScoringError):
    """An unknown preset, an unknown switch or a contradictory rule set."""

    code = "invalid_rules"
