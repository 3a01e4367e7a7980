"""The guided mode change: what a table needs before it takes a mode, and how far it is.

An AMOS table takes a mode only when exactly the mode's playing seats hold point
sticks (docs/protocol.md, section 8); the new mode then applies from the next
cycle. :func:`guide` compares what the table reports (its drawers, mode, pending
mode, cycle, link) with what the chosen mode needs, seat by seat, and says the next
step: put sticks in or take them out, wait for the cycle, select, run a cycle, or
nothing (the mode is on). The words are the page's; this module gives codes.

Where the table reads its drawers (jpex-link's IC sticks, the bridge's stick reader)
each drawer is checked against the amount the new game starts with, not only for
being empty or not. A stock table driven at its own switches (``jpex-panel``) goes
another way, the rulebook's: power off, the sticks put in while it is off, power
on, the number stepped, the reset; :func:`guide` then names those steps.
"""

from __future__ import annotations

from tablectl.modes import MODES, SEATS, Mode, mode_by_name

SIM_SCHEME = "sim://"
PANEL_DRIVER = "jpex-panel"
STICKS_TOLERANCE = 0.02
"""A drawer read by resistance holds its amount within 2 % (at least 200 points): the
bridge's reader is about 100 points off near 35,000, while 17,000 or 35,000 in place
of 25,000 are far outside. IC sticks read exactly and pass the same check."""


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


def is_panel(table_state: dict) -> bool:
    """A stock table driven at its own switches (``jpex-panel``)."""
    return table_state.get("driver") == PANEL_DRIVER


def panel_belief(table_state: dict) -> dict:
    """What the ``jpex-panel`` driver believes of its table: ``shown`` (the number it
    believes the display shows, None when unknown), ``stage`` (``sticks``: switched off
    for the new game's sticks), ``target``, ``busy`` (the step under way),
    ``calibration`` and ``calibrated``."""
    state = table_state.get("state")
    panel = state.get("panel") if isinstance(state, dict) else None
    if not isinstance(panel, dict):
        panel = table_state.get("panel")
    return dict(panel) if isinstance(panel, dict) else {}


def stick_fits(have: int | None, need: int | None) -> bool:
    """Whether a drawer holding ``have`` (None: empty) is what a new game needs (``need``
    points, None: empty), within :data:`STICKS_TOLERANCE`."""
    if (have is None) != (need is None):
        return False
    if have is None or need is None:
        return True
    return abs(have - need) <= max(200, need * STICKS_TOLERANCE)


def guide(table_state: dict, target: object, in_flight: dict | None = None,
          start: int | None = None) -> dict:
    """Where a table stands on its way to mode ``target`` (a number or name); ``start``:
    the points each playing drawer starts with (the rule set's, else the mode's).

    ``step`` is one of ``on`` (the table plays it), ``pending`` (selected, applies at
    the next cycle), ``offline`` (not connected), ``busy`` (another command is in
    flight), ``sticks`` (drawers to change first: see ``seats``), ``ready``
    (select it now; during a cycle the request waits behind it). A ``jpex-panel``
    table has its own steps (:func:`_panel_step`)."""
    mode: Mode = mode_by_name(target)
    have = drawers(table_state)
    panel = is_panel(table_state)
    checks = reads_sticks(table_state) and not mode.is_check
    need = mode.sticks(have, start)
    seats = []
    for s in range(SEATS):
        needs = s in mode.seats if not mode.is_check else None
        ok = True if not checks else stick_fits(have[s], need[s])
        seats.append({"seat": s, "needs": needs, "total": have[s], "has": have[s] is not None,
                      "amount": need[s] if needs else None, "ok": ok,
                      "short": bool(needs) and have[s] is not None and not ok})
    current, pending = table_state.get("mode"), table_state.get("pending_mode")
    sticks_ok = all(x["ok"] for x in seats)
    belief = panel_belief(table_state) if panel else {}
    if panel:
        step = _panel_step(table_state, belief, mode.number, in_flight)
    elif current == mode.number and pending in (None, mode.number):
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
            "sticks": need, "in_flight": in_flight, "panel": panel,
            "reads_sticks": checks, "belief": belief,
            "shown": belief.get("shown"), "progress": belief.get("busy")}


def _panel_step(table_state: dict, belief: dict, target: int,
                in_flight: dict | None) -> str:
    """The step of a stock table's change to ``target``: ``offline``; ``progress`` (the
    driver is at a step of the sequence: ``belief['busy']``); ``sticks_wait`` (switched
    off, the board's reader watching the drawers: the driver goes on by itself);
    ``busy`` (another command); ``sticks`` (switched off: put the sticks in, then
    confirm); ``on``; ``unknown`` (the number the display shows is unknown: staff
    give it); ``start`` (power off for the change)."""
    if not table_state.get("connected"):
        return "offline"
    if in_flight is not None:
        if in_flight.get("command") != "mode":
            return "busy"
        if belief.get("stage") == "sticks" and not belief.get("busy"):
            return "sticks_wait"
        return "progress"
    if belief.get("stage") == "sticks":
        return "sticks"
    if table_state.get("mode") == target and belief.get("shown") == target:
        return "on"
    if belief.get("shown") is None:
        return "unknown"
    return "start"


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
