"""The guided mode change checks each drawer against the amount the new game starts with
(17,000 and 35,000 are not 25,000), for IC sticks and the bridge's reader alike, in words
naming the seat and the amounts; a stock table (``jpex-panel``) gets the rulebook's
steps; the floor sets a resistance reader's sticks beside the scores within its error."""

from __future__ import annotations

from club import readings
from club.floor import modechange


def link_table(points, mode=1, **extra):
    return {"table_id": "t1", "driver": "jpex-link", "url": "/dev/ttyUSB0", "connected": 1,
            "mode": mode, "pending_mode": None, "points": points,
            "capabilities": {"ic_point_sticks": True}, **extra}


def panel_table(points, panel, **extra):
    return {"table_id": "t5", "driver": "jpex-panel", "url": "/dev/ttyACM0", "connected": 1,
            "mode": panel.get("shown") if not panel.get("stage") else None,
            "pending_mode": panel.get("target") if panel.get("stage") else None,
            "points": points, "state": {"panel": panel},
            "capabilities": {"ic_point_sticks": points is not None, "board": "bridge"}, **extra}


def test_ic_sticks_of_the_wrong_amount_are_not_ready():
    g = modechange.guide(link_table([17000, 35000, 25000, 25000], mode=2), 1)
    assert g["step"] == "sticks"
    assert [x["ok"] for x in g["seats"]] == [False, False, True, True]
    assert g["seats"][0]["short"] and g["seats"][0]["amount"] == 25000
    assert modechange.guide(link_table([25000] * 4, mode=2), 1)["step"] == "ready"


def test_the_rule_sets_starting_points_are_the_amount():
    three = [35000, 35000, 35000, None]
    assert modechange.guide(link_table(three, mode=5), 4)["step"] == "ready"
    g = modechange.guide(link_table(three, mode=5), 4, start=40000)
    assert g["step"] == "sticks" and g["sticks"] == [40000, 40000, 40000, None]


def test_a_resistance_reader_passes_within_its_error_only():
    assert modechange.stick_fits(34900, 35000) and modechange.stick_fits(25100, 25000)
    assert not modechange.stick_fits(17000, 25000) and not modechange.stick_fits(35000, 25000)
    assert not modechange.stick_fits(None, 25000) and not modechange.stick_fits(100, None)
    assert modechange.stick_fits(None, None)


def test_check_mode_and_a_table_without_reader_check_nothing():
    assert modechange.guide(link_table([17000, None, 3, None], mode=1), 0)["sticks_ok"]
    table = link_table(None, mode=2, capabilities={"ic_point_sticks": False})
    assert modechange.guide(table, 1)["step"] == "ready"


def test_the_stock_tables_steps():
    base = {"busy": None, "stage": None, "target": None, "calibration": None}
    unknown = modechange.guide(panel_table([25000] * 4, {**base, "shown": None}), 5)
    assert unknown["step"] == "unknown" and unknown["panel"] and unknown["shown"] is None
    start = modechange.guide(panel_table([25000] * 4, {**base, "shown": 1}), 5)
    assert start["step"] == "start"
    off = {**base, "shown": 1, "stage": "sticks", "target": 5}
    flight = {"command": "mode", "status": "sending"}
    wait = modechange.guide(panel_table([17000, 35000, 35000, None], off), 5, flight)
    assert wait["step"] == "sticks_wait" and not wait["sticks_ok"]
    assert [x["ok"] for x in wait["seats"]] == [False, True, True, True]
    no_reader = panel_table(None, off, capabilities={"ic_point_sticks": False})
    assert modechange.guide(no_reader, 5)["step"] == "sticks"
    moving = {**base, "shown": 3, "busy": "step_up", "target": 5}
    g = modechange.guide(panel_table([35000] * 3 + [None], moving), 5, flight)
    assert g["step"] == "progress" and g["progress"] == "step_up"
    on = modechange.guide(panel_table([35000] * 3 + [None], {**base, "shown": 5}), 5)
    assert on["step"] == "on"
    busy = modechange.guide(panel_table(None, {**base, "shown": 5}), 1, {"command": "cycle"})
    assert busy["step"] == "busy"
    offline = panel_table(None, {**base, "shown": 5}, connected=0)
    assert modechange.guide(offline, 1)["step"] == "offline"


def test_the_floor_sets_a_readers_sticks_beside_the_scores_within_its_error():
    assert not readings.differs(34900, 35000, approximate=True)
    assert readings.differs(34900, 35000, approximate=False)
    assert readings.differs(33000, 35000, approximate=True)
    assert not readings.differs(None, 35000)
    bridge = {"points": [34900, 25100, 40000], "approximate": True}
    view = {"state": {"scores": [35000, 25000, 40000]}}
    assert readings.compare(bridge, view)["mismatch"] is False
    assert readings.compare({**bridge, "approximate": False}, view)["mismatch"] is True
    assert readings.reads_by_resistance({"capabilities": {"board": "bridge"}})
    assert not readings.reads_by_resistance({"capabilities": {"ic_point_sticks": True}})
