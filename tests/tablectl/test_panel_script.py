"""The panel driver hands a bridge the whole selection as one script.

With the bridge the boot wait, the entering hold, the steps and the reset run on the
bridge's own clock (``docs/bridge.md``, "The script"); the host watches, reports each
step, and the camera checks the number afterwards as before. The LCUS relay module
has no clock: there the host times every step (``test_panel_driver.py``).
"""

from __future__ import annotations

import pytest

from hardware_sim.stock_table import StockTable
from tablectl import commands, store
from tablectl.modes import MODES
from tests.support.tablectl import wait_until

from .test_panel_closed_loop import _change, loop_rig  # noqa: F401  (the fixture)
from .test_panel_driver import SIM

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


def test_closed_loop_change_runs_as_one_script_on_the_bridge(loop_rig):  # noqa: F811
    table = StockTable(number=6, timings=SIM)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    row = _change(daemon, model, table, 3, **{"from": 6})
    assert row["status"] == "done", row
    assert row["result"]["confirmed"] is True and row["result"]["steps"] == 3
    assert table.display() == "03" and table.steps == 3 and table.resets == 1
    # the bridge ran it: the script it was given, and its outcome
    kinds = [kind for kind, _, _ in model.script]
    assert kinds[0] == "W" and ("R", 0, 3) in model.script and kinds.count("E") == 1
    assert model.script_state == "DONE"
    down = [ch for ch, closed, _ in model.changes if closed and ch == 3]   # down on relay 3
    assert len(down) == 3
    assert daemon.stop() == 0


def test_closed_loop_daemon_stopping_mid_script_aborts_it_on_the_bridge(loop_rig):  # noqa: F811
    """A daemon told to stop while the bridge runs the change aborts the script: every
    relay opens and the table stays on; the number is unknown afterwards."""
    table = StockTable(number=1, timings=SIM)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    for seat, p in enumerate(MODES[8].sticks()):
        model.set_sticks(seat, p or 0)
    table.set_sticks(MODES[8].sticks())
    cid = store.request_command(daemon.db, "t1", "mode", {"mode": 8, "from": 1})
    wait_until(lambda: model.script_state == "RUNNING", 30, "the bridge runs the script",
               interval=0.005)
    daemon.stop()
    assert model.script_state == "ABORTED"
    assert model.closed() == [] and not model.power_off and table.powered
    assert table.resets == 0                    # the selection was never confirmed
    row = store.get_command(daemon.db, cid)
    assert row["status"] != "done", row


def test_closed_loop_a_table_that_boots_in_8_s_is_waited_for_and_corrected(loop_rig):  # noqa: F811
    """The driver guesses a boot of boot_ms (0.3 s here); this table takes 8 s. Every
    press of the change lands while it boots and is lost: the camera sees no number, then
    the old one; the driver steps again from it and the change ends confirmed. The boot
    it measured is kept, and the next change waits for it and lands first time."""
    table = StockTable.variant("slow_boot", number=1, timings=SIM)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    row = _change(daemon, model, table, 4, **{"from": 1})
    assert row["status"] == "done", row
    assert row["result"]["confirmed"] is True and row["result"]["corrections"] == 1
    assert table.display() == "04" and table.steps == 3
    panel = store.get_table(daemon.db, "t1")["state"]["panel"]
    assert panel["boot_seen_ms"] >= 8000
    row = _change(daemon, model, table, 2)
    assert row["status"] == "done" and row["result"]["confirmed"] is True, row
    assert row["result"]["corrections"] == 0 and table.display() == "02"
    assert daemon.stop() == 0


def test_closed_loop_a_table_that_ignores_short_presses_is_refused_in_words(loop_rig):  # noqa: F811
    """This table takes no press under 200 ms; the driver's steps are 60 ms. The camera
    sees the number unmoved, and unmoved again after stepping again: the driver stops
    and says, in words, that the presses are too short, instead of guessing on."""
    table = StockTable.variant("short_press_ignored", number=1, timings=SIM)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    row = _change(daemon, model, table, 3, **{"from": 1})
    assert row["status"] == "failed" and row["error_code"] == "panel_presses_ignored", row
    assert table.display() == "01" and table.steps == 0
    words = commands.describe(row, "en")
    assert "60 ms" in words and "press_ms" in words and "01" in words
    assert "60 ミリ秒" in commands.describe(row, "ja")
    panel = store.get_table(daemon.db, "t1")["state"]["panel"]
    assert panel["shown"] == 1 and panel["enter_drift"] == 0     # nothing wrongly learnt
    assert daemon.stop() == 0
