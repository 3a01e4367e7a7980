"""Simulated players moving their point sticks: the drawers follow a file of scores.

At a real table the players pay each other with point sticks after every hand, and the
table reads what each drawer holds. The demo club has no players, so the simulator takes
what they would hold from a small JSON file, ``{"points": [25000, 33000, ...]}`` (one
entry per seat, ``null`` for a seat without sticks), written by whoever knows the
recorded scores (``python -m web demo`` writes the recorded scores of each table). The
file is read when it changes; a missing or unreadable file changes nothing.
"""

from __future__ import annotations

import json
import os
from typing import Callable

POLL_S = 0.2
"""How often the file is looked at (real seconds, whatever the time scale)."""


class StickFollower:
    """Puts sticks in the drawers as ``path`` says, checking every :data:`POLL_S`."""

    def __init__(self, path: str, schedule: Callable, set_points: Callable,
                 present: Callable[[int], bool]):
        self.path = path
        self._schedule, self._set, self._present = schedule, set_points, present
        self._seen: tuple | None = None
        self._timer = None

    def start(self) -> None:
        self._check()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size)
            if stamp != self._seen:
                with open(self.path, encoding="utf-8") as f:
                    points = json.load(f)["points"]
                self._seen = stamp
                self._apply(points)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not written yet, or half written: the next look reads it
        self._timer = self._schedule(POLL_S, self._check)

    def _apply(self, points: list) -> None:
        for seat, total in enumerate(points):
            if isinstance(total, int) and not isinstance(total, bool) and self._present(seat):
                self._set(seat, total)
