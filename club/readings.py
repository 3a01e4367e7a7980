"""The table's own score reading (IC point sticks) beside the recorded scores."""

from __future__ import annotations

from typing import Any

from club import engine
from tablectl import store


def table_reading(db_path: str, table_id: str) -> dict | None:
    """What ``tablectl`` last read from the table: connected, mode, points per seat.

    None when the daemon has never seen this table (a table without a link). A table
    counts as connected only while the daemon's heartbeat is fresh: otherwise its
    reading is as of the last heartbeat (``stale``).
    """
    try:
        row = store.get_table(db_path, table_id)
    except store.StoreError:  # a table the daemon does not drive
        return None
    daemon = store.daemon_status(db_path)
    return {
        "approximate": reads_by_resistance(row),
        "connected": bool(row.get("connected")) and daemon["running"],
        "stale": daemon["state"] == "stale",
        "mode": row.get("mode"),
        "cycle_state": row.get("cycle_state"),
        "errors": row.get("errors") or [],
        "points": _points(row.get("points")),
    }


def _points(raw: Any) -> list[int] | None:
    if isinstance(raw, dict):
        raw = raw.get("seats", raw.get("points"))
    if isinstance(raw, list) and all(isinstance(p, int) for p in raw) and raw:
        return list(raw)
    return None


RESISTANCE_TOLERANCE = 200
"""A reader that measures the sticks' resistance (the bridge) is up to about 100
points off; a difference within 200 is the reader's, not the players'."""


def reads_by_resistance(table_state: dict | None) -> bool:
    """Whether the table's sticks are read by resistance (the bridge's reader, about
    100 points off) rather than counted exactly (IC point sticks)."""
    caps = (table_state or {}).get("capabilities") or {}
    return caps.get("board") == "bridge"


def differs(read: int | None, recorded: int | None, approximate: bool = False) -> bool:
    """Whether a drawer's reading and a recorded score disagree: exactly for IC sticks,
    beyond the reader's error for a resistance reader."""
    if read is None or recorded is None:
        return False
    return abs(read - recorded) > (RESISTANCE_TOLERANCE if approximate else 0)


def sticks_track_score(rules: engine.Rules) -> bool:
    """Whether a game under ``rules`` keeps its score in the table's point sticks, so a
    stick reading can be set beside the recorded scores: settled points do; MCR's running
    totals start at 0 while the drawers hold the table's sticks, so they never do."""
    return bool(rules.settlement.use_points)


def current_scores(view: dict | None) -> list[int] | None:
    """The recorded raw scores now: live state, else the last hand, else None."""
    if not view:
        return None
    state = view.get("state") or {}
    if state.get("scores"):
        return list(state["scores"])
    replay = view.get("replay") or {}
    if replay.get("final", {}) and replay["final"].get("scores"):
        return list(replay["final"]["scores"])
    hands = replay.get("hands") or []
    return list(hands[-1]["scores"]) if hands else None


def compare(reading: dict | None, view: dict | None) -> dict | None:
    """The reading with a per-seat difference against the recorded scores."""
    if reading is None:
        return None
    out = dict(reading)
    recorded = current_scores(view)
    points = reading.get("points")
    out["recorded"] = recorded
    out["differences"] = None
    out["mismatch"] = False
    if points and recorded and len(points) >= len(recorded):
        diffs = [points[i] - recorded[i] for i in range(len(recorded))]
        out["differences"] = diffs
        approx = bool(reading.get("approximate"))
        out["mismatch"] = any(differs(points[i], recorded[i], approx)
                              for i in range(len(recorded)))
    return out
