"""One base exception for the ``tablectl`` package.

Exceptions are for *our* failures (a malformed frame, an unknown mode name, a
link that does not answer). An error the *table* reports (lid open, motor
jam, mode change refused ...) is a message -- a reply's ``result`` code or an
``ErrorRaised`` event -- never an exception (see ``tablectl.protocol``).
"""

from __future__ import annotations


class TableError(Exception):
    """Base of every error the tablectl package raises on purpose."""

    code = "table_error"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ProtocolError(TableError):
    """Bytes or a message that break the wire protocol."""

    code = "protocol_error"


class UnknownCommand(ProtocolError):
    """A frame whose message type this side does not know (the table NAKs it)."""

    code = "unknown_command"


class PayloadError(ProtocolError):
    """A known message whose payload is malformed (the table NAKs it)."""

    code = "bad_payload"


class UnknownMode(TableError, ValueError):
    """A mode name or number that is not in the modes table."""

    code = "unknown_mode"
