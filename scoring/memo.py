"""The one memo the engine keeps computed values in.

Scoring asks the same small questions again and again (the readings of one suit's
tiles, the price of 3 han 40 fu, the tiles of ``"123m"``), and every answer is a pure
function of its key. A :class:`Memo` keeps answers up to a bound; when it is full it
starts again empty, so a long run never grows without limit and forgetting costs only
recomputation.
"""

from __future__ import annotations

from typing import Any


class Memo:
    """At most ``limit`` computed values by key. ``get`` gives None for a key not held,
    so values must not be None."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.values: dict[object, Any] = {}

    def get(self, key: object) -> Any:
        return self.values.get(key)

    def put(self, key: object, value: Any) -> Any:
        """Keep ``value`` for ``key`` and give it back."""
        values = self.values
        if len(values) >= self.limit:
            values.clear()
        values[key] = value
        return value

    def __len__(self) -> int:
        return len(self.values)

    def __reduce__(self) -> tuple[Any, ...]:
        # a copy (copy.deepcopy of a game state and its rules) or a pickle starts empty: what
        # a memo holds can always be computed again
        return (Memo, (self.limit,))
