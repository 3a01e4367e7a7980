"""The one base of every coded error: a machine-readable ``code`` and the ``values`` the
words about it name. Each package words its own (``scoring``: an English message and an
``engine.<reason>`` entry; ``tablectl``: ``table.code.<code>``; ``club`` and ``chain``: a
catalogue key); what they share is here, once."""

from __future__ import annotations

from typing import Any


class CodedError(Exception):
    """An error raised on purpose: ``code`` says which kind (a class default, or given),
    ``values`` what its words name (any name, ``detail`` and ``code`` among them: the first
    two arguments are positional)."""

    code = "error"

    def __init__(self, detail: str = "", code: str | None = None, /, **values: Any) -> None:
        super().__init__(detail)
        if code is not None:
            self.code = code
        self.values: dict[str, Any] = values
