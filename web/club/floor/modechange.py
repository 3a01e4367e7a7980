"""The guided mode change: what a table needs before it takes a mode, and how far it is.

An AMOS table takes a mode only when exactly the mode's playing seats hold point
sticks (docs/protocol.md, section 8); the new mode then applies from the next
cycle. :func:`guide` compares what the table reports (its drawers, mode, pending
mode, cycle, link) with what the chosen mode needs, seat by seat, and says the next
step: put sticks in or take them out, wait for the cycle, select, run a cycle, or
nothing (the mode is on). The words are the page's; this module gives codes.
"""

from __future__ import annotations

from tablectl.modes import MODES, SEATS, Mode, mode_by_name

SIM_SCHEME = "sim://"


def is_simulated(table_state: dict) -> bool:
    """A simulated table (``sim://``): staff may let the console put its sticks in."""
    return str(table_state.get("url") or "").startswith(SIM_SCHEME)


def drawers(table_state: dict) -> list[int | None]:
    """The four drawers as the table reports them (a total, or None for empty)."""
    points = table_state.get("points")
    if isinstance(points, dict):
        points = points.get("seats", points.get("points"))
    if not isinstance(points, list) or len(points) != SEATS:
        return [None] * SEATS
    return [p if isinstance(p, int) and not isinstance(p, bool) else None for p in points]


def reads_sticks(table_state: dict) -> bool:
    """Whether the table reports its drawers (IC point sticks); a table that cannot is
    trusted to have been set by hand."""
    caps = table_state.get("capabilities") or {}
    return bool(caps.get("ic_point_sticks", table_state.get("points") is not None))


def guide(table_state: dict, target, in_flight: dict | None = None) -> dict:
    """Where a table stands on its way to mode ``target`` (a number or name).

    ``step`` is one of ``on`` (the table plays it), ``pending`` (selected, applies at
    the next cycle), ``offline`` (not connected), ``busy`` (another command is in
    flight), ``sticks`` (drawers to change first: see ``seats``), ``ready``
    (select it now; during a cycle the request waits behind it)."""
    mode: Mode = mode_by_name(target)
    have = drawers(table_state)
    checks = reads_sticks(table_state) and not mode.is_check
    seats = []
    for s in range(SEATS):
        needs = s in mode.seats if not mode.is_check else None
        ok = True if not checks else (have[s] is not None) == bool(needs)
        seats.append({"seat": s, "needs": needs, "total": have[s], "has": have[s] is not None,
                      "ok": ok})
    current, pending = table_state.get("mode"), table_state.get("pending_mode")
    sticks_ok = all(x["ok"] for x in seats)
    if current == mode.number and pending in (None, mode.number):
        step = "on"
    elif pending == mode.number:
        step = "pending"
    elif not table_state.get("connected"):
        step = "offline"
    elif in_flight is not None and in_flight.get("command") != "cycle":
        step = "busy"
    elif not sticks_ok:
        step = "sticks"
    else:
        step = "ready"
    return {"mode": mode.number, "current": current, "pending": pending, "step": step,
            "seats": seats, "sticks_ok": sticks_ok, "cancels": mode.number == current
            and pending not in (None, current), "cycling": table_state.get("cycle_state")
            == "cycling", "simulated": is_simulated(table_state),
            "sticks": mode.sticks(have), "in_flight": in_flight}


def misfit(mode_number: int | None, players: int, amos_mode: int) -> str | None:
    """Why a table mode does not fit a rule set that seats ``players`` on the tile set of
    mode ``amos_mode``: ``players`` (the mode deals another number of seats), ``tiles``
    (same seats, another tile set), or None (it fits; check mode and an unknown mode
    are no game's)."""
    if mode_number is None or not 0 <= mode_number < len(MODES):
        return None
    mode = MODES[mode_number]
    if mode.is_check:
        return None
    if mode.players != players:
        return "players"
    if mode.tiles != MODES[amos_mode].tiles:
        return "tiles"
    return None


def modes() -> tuple[Mode, ...]:
    """Every mode of the table, in order."""
    return MODES
