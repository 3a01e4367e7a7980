"""Calibration of a stock table: the rulebook's way into the selection, a sweep of single
presses staff (or the camera) check, and the table left where it was.

The rulebook (``002_752de4ce5ec4d27d.txt``, 自動卓設定表: ゲームを変更する場合は, 電源を切り,
…, 再度電源を入れ, 卓下の上下スイッチを長押しして…) enters the selection after a power
cycle; calibration does the same, and ends on the number the table showed before it
began, not on 00. With a camera it suggests a shorter press when the camera saw one
work, and a longer one when presses were missed.
"""

from __future__ import annotations

import pytest

from hardware_sim.stock_table import StockTable
from tablectl import commands, store
from tests.support.tablectl import ask

from .test_panel_closed_loop import loop_rig  # noqa: F401  (the fixture)
from .test_panel_driver import BRIDGE_PANEL, SIM

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


def _sweep(daemon, table, limit: int = 30, miss_home: bool = False) -> dict:
    """Calibrate with the number the display shows each time, to the end
    (``miss_home``: the table misses a press on the way back)."""
    for _ in range(limit):
        if miss_home and table.display() == "00":
            table.miss_presses(1)
        row = ask(daemon.db, "t1", "calibrate", {"seen": int(table.display())}, timeout=60)
        assert row["status"] == "done", row
        if row["result"]["complete"]:
            return row
    raise AssertionError("calibration never ended")


def test_closed_loop_calibration_power_cycles_and_ends_where_the_table_was(loop_rig):  # noqa: F811
    table = StockTable(number=6, timings=SIM)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    row = ask(daemon.db, "t1", "calibrate", {"seen": 6}, timeout=60)
    assert row["status"] == "done" and row["result"]["next"] == 7, row
    # into the selection the rulebook's way: the table was off, then on again
    assert [on for on, _ in model.power_changes] == [False, True]
    assert "power off (outlet off)" in table.log and table.selecting
    assert table.display() == "07"
    row = _sweep(daemon, table)
    result = row["result"]
    assert result["home"] == 6 and result["back"] == 6 and result["mismatches"] == []
    assert table.display() == "06" and not table.selecting and table.confirmed == 6
    # the camera saw presses of half the time taken: a shorter press is suggested
    assert result["suggested"] == {"press_ms": 30}
    words = commands.describe(row, "en")
    assert "back to 06" in words and "from 60 to 30 ms" in words
    assert "06" in commands.describe(row, "ja")
    panel = store.get_table(daemon.db, "t1")["state"]["panel"]
    assert panel["shown"] == 6 and panel["calibrated"]["suggested"] == {"press_ms": 30}
    assert daemon.stop() == 0


def test_closed_loop_calibration_with_missed_presses_suggests_longer(loop_rig):  # noqa: F811
    table = StockTable(number=7, timings=SIM)
    daemon, _model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    row = ask(daemon.db, "t1", "calibrate", {"seen": 7}, timeout=60)
    assert row["status"] == "done", row
    table.miss_presses(1)
    row = _sweep(daemon, table, miss_home=True)
    result = row["result"]
    assert len(result["mismatches"]) == 1 and result["suggested"] == {"press_ms": 90}
    # the press missed on the way back was seen by the camera and stepped again
    assert table.missed == 2 and result["back"] == 7 and table.display() == "07"
    assert table.resets == 1 and table.confirmed == 7
    assert "90 ms" in commands.describe(row, "en")
    assert daemon.stop() == 0


def test_closed_loop_calibration_suggests_no_shorter_press_the_table_ignores(loop_rig):  # noqa: F811
    """This table takes no press under 200 ms. Calibrated with 250 ms presses it steps
    fine; the camera sees the 125 ms probe ignored, so nothing shorter is suggested."""
    table = StockTable.variant("short_press_ignored", number=7, timings=SIM)
    panel = BRIDGE_PANEL.replace("press_ms = 60", "press_ms = 250")
    daemon, _model, _camera = loop_rig(table, panel)
    daemon.start(wait_tables=("t1",))
    row = _sweep(daemon, table)
    result = row["result"]
    assert result["mismatches"] == [] and result["suggested"] == {}
    assert result["back"] == 7 and table.display() == "07"
    assert daemon.stop() == 0
