"""What the sync and the modules it uses refuse with: the one error of a sync, and the
shape of a branch id (their own module, so the sync's helpers need not import the sync)."""

from __future__ import annotations

import re
from typing import Any

import lexicon
from groundwork.errors import CodedError

BRANCH_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
"""A branch id, matched whole (``fullmatch``): no trailing newline slips through."""


class SyncError(CodedError):
    """A sync that cannot go on, worded from the catalogue, with its exit status."""

    code = "sync_refused"

    def __init__(self, key: str, status: int = 2, **values: Any) -> None:
        super().__init__(key, **values)
        self.key, self.status = key, status

    @property
    def message(self) -> str:
        """The message in both languages (a terminal or the journal is read by either)."""
        return lexicon.both(self.key, **self.values)
