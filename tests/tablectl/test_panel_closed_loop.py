"""A stock table in a closed loop: the bridge drives it, a camera reads its display.

The driver runs in a real daemon process; the table, the bridge model and the camera's
pictures live in this process: a thread renders what the simulated table's display
shows (``hardware_sim.display``) into the picture file the table's camera setting
names, and the daemon's camera reader reads it like any frame. A change ends
``confirmed: true`` only on a certain read of the target; a table that does not behave
as our reading of the rulebook guessed is caught and corrected.
"""

from __future__ import annotations

import os
import threading

import cv2
import pytest

from hardware_sim.display import render
from hardware_sim.stock_table import StockTable
from tablectl import commands, store
from tablectl.modes import MODES
from tests.support.tablectl import DaemonProcess, ask, write_config

from .test_panel_driver import BRIDGE_PANEL, SIM, wired_bridge

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


class Camera(threading.Thread):
    """Keeps ``path`` a picture of the table's display, as a camera above it would."""

    def __init__(self, table: StockTable, path: str):
        super().__init__(daemon=True)
        self.table, self.path = table, path
        self.stop = threading.Event()
        self.region = render("88")[1]
        self.dark = False           # a camera whose light is off: it sees nothing
        self._draw()

    def _draw(self) -> None:
        img, _ = render("" if self.dark else self.table.display())
        tmp = self.path + ".tmp.png"
        cv2.imwrite(tmp, img)
        os.replace(tmp, self.path)

    def run(self) -> None:
        while not self.stop.wait(0.03):
            self._draw()


@pytest.fixture
def loop_rig(tmp_path):
    def make(table: StockTable, panel: str = BRIDGE_PANEL):
        model = wired_bridge(table)
        camera = Camera(table, str(tmp_path / "camera-t1.png"))
        camera.start()
        corners = ", ".join(f"[{x:.1f}, {y:.1f}]" for x, y in camera.region)
        extra = panel + f'camera = "{camera.path}"\ncamera_region = [{corners}]\n'
        daemon = DaemonProcess(write_config(tmp_path, {"t1": model.path},
                                            table_extra={"t1": extra}))
        made.append((daemon, model, camera))
        return daemon, model, camera

    made: list = []
    yield make
    for daemon, model, camera in made:
        if daemon.proc and daemon.proc.poll() is None:
            daemon.stop()
        camera.stop.set()
        camera.join(2)
        model.stop()


def _change(daemon, model, table, target, **first):
    for seat, p in enumerate(MODES[target].sticks()):
        model.set_sticks(seat, p or 0)
    table.set_sticks(MODES[target].sticks())
    return ask(daemon.db, "t1", "mode", {"mode": target, **first}, timeout=60)


def test_closed_loop_change_through_the_bridge_ends_confirmed_by_the_camera(loop_rig):
    table = StockTable(number=1, timings=SIM)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    assert store.get_table(daemon.db, "t1")["capabilities"]["display_readable"] is True
    row = _change(daemon, model, table, 5, **{"from": 1})
    assert row["status"] == "done", row
    result = row["result"]
    assert result["confirmed"] is True and result["seen"] == 5 and result["corrections"] == 0
    assert table.display() == "05" and table.steps == 4 and table.resets == 1
    assert "カメラで表示が 05 であることを確認しました" in commands.describe(row, "ja")
    assert daemon.stop() == 0


def test_closed_loop_catches_a_table_whose_long_press_repeats_and_corrects_it(loop_rig):
    """The rulebook's reading: the long hold enters the selection and steps nothing. This
    table's held key goes on stepping (twice in the 400 ms hold): the change lands two
    past the target, the camera sees it, the driver steps again from what it saw, sees
    the same overshoot again, takes it as the hold's own steps and lands; the next change
    allows for them and lands first time."""
    timings = type(SIM)(**{**SIM.__dict__, "repeat_delay_ms": 250, "repeat_ms": 100})
    table = StockTable(number=1, timings=timings, enter_repeats=True)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    row = _change(daemon, model, table, 5, **{"from": 1})
    assert row["status"] == "done", (row["error_code"], row["result"], row.get("error"))
    assert row["result"]["confirmed"] is True and row["result"]["corrections"] == 2
    assert table.display() == "05" and table.resets == 3
    row = _change(daemon, model, table, 8)
    assert row["status"] == "done" and row["result"]["confirmed"] is True, row
    assert row["result"]["corrections"] == 0 and table.display() == "08"
    panel = store.get_table(daemon.db, "t1")["state"]["panel"]
    assert panel["enter_drift"] == 2
    assert daemon.stop() == 0


def test_closed_loop_a_missed_press_is_seen_and_stepped_again(loop_rig):
    table = StockTable(number=1, timings=SIM)
    daemon, model, _camera = loop_rig(table)
    daemon.start(wait_tables=("t1",))
    table.miss_presses(1)                   # the table misses one step of the four
    row = _change(daemon, model, table, 5, **{"from": 1})
    assert row["status"] == "done", row
    assert row["result"]["confirmed"] is True and row["result"]["corrections"] == 1
    assert table.display() == "05" and table.missed == 1
    assert daemon.stop() == 0


def test_closed_loop_a_dark_camera_confirms_nothing(loop_rig):
    table = StockTable(number=1, timings=SIM)
    daemon, model, camera = loop_rig(table)
    camera.dark = True
    daemon.start(wait_tables=("t1",))
    row = _change(daemon, model, table, 4, **{"from": 1})
    assert row["status"] == "done", row
    assert row["result"]["confirmed"] is False and row["result"]["display"] == "dark"
    assert table.display() == "04"          # the change itself ran; it is just not seen
    assert daemon.stop() == 0
