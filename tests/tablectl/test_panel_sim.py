"""The simulated stock table at its panel (hardware_sim/stock_table.py) on its own and
behind the simulated LCUS board: the number stepped and auto-repeated, the selection
entered by a long hold, the reset, the cycle only when ready, and its faults (a missed
press, a power cut, a stuck relay, the board unplugged)."""

import pytest

from hardware_sim.relay_board import RelayBoard
from hardware_sim.stock_table import StockTable, Timings
from tablectl import store
from tablectl.drivers.boards import BoardError, LcusBoard
from tests.support.tablectl import DaemonProcess, wait_until, write_config
from tests.tablectl.test_panel_driver import PANEL, WIRING


class Clock:
    """A clock the test moves: no sleeping, no timing in the assertions."""

    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def panel():
    clock = Clock()
    t = StockTable(number=1, clock=clock, timings=Timings(boot_ms=5000, enter_ms=2000,
                                                          repeat_delay_ms=600, repeat_ms=200,
                                                          reset_ms=2000))
    return t, clock


def press(t, clock, name, ms):
    t.switch(name, True)
    clock.t += ms / 1000
    t.switch(name, False)
    clock.t += 0.1


def test_panel_sim_selection_steps_repeat_and_reset(panel):
    t, clock = panel
    assert t.display() == "01"
    press(t, clock, "up", 150)                 # outside the selection: nothing
    assert t.display() == "01" and not t.selecting
    press(t, clock, "up", 2100)                # the long hold enters; it steps nothing
    assert t.selecting and t.display() == "01" and not t.ready
    press(t, clock, "up", 150)
    assert t.display() == "02"
    press(t, clock, "up", 900)                 # held: 1 + a step at 600 ms and at 800 ms
    assert t.display() == "05"
    press(t, clock, "down", 150)
    assert t.display() == "04"
    press(t, clock, "dice_right", 150)         # not ready while selecting: no cycle
    assert t.cycles == 0
    t.switch("dice_left", True)
    t.switch("dice_right", True)
    clock.t += 2.1
    t.switch("dice_left", False)
    t.switch("dice_right", False)
    assert not t.selecting and t.ready and t.confirmed == 4 and t.cycles == 0
    press(t, clock, "dice_left", 150)
    assert t.cycles == 1


def test_panel_sim_power_boot_and_faults(panel):
    t, clock = panel
    t.switch("power", True)                    # the outlet's trigger energised: off
    clock.t += 600
    assert t.display() == ""                   # held off as long as the level holds
    t.switch("power", False)
    assert t.display() == "--"                 # booting
    clock.t += 5
    assert t.display() == "01"
    press(t, clock, "up", 2100)
    t.miss_presses(1)
    press(t, clock, "up", 150)                 # missed
    press(t, clock, "up", 150)
    assert t.display() == "02" and t.missed == 1
    t.power_cut()                              # the selection was never confirmed
    assert t.display() == ""
    t.power_back()
    clock.t += 5
    assert t.display() == "01" and not t.selecting


def test_panel_sim_wraps_from_08_to_00(panel):
    t, clock = panel
    press(t, clock, "down", 2100)
    press(t, clock, "down", 150)
    press(t, clock, "down", 150)
    assert t.display() == "08"
    press(t, clock, "up", 150)
    assert t.display() == "00"


@pytest.mark.usefixtures("no_leaks")
def test_panel_lcus_board_stuck_relay_and_unplug():
    table = StockTable(number=1, timings=Timings(boot_ms=0, enter_ms=100))
    with RelayBoard(channels=8, table=table, wiring=WIRING) as sim:
        sim.serve_pty()
        board = LcusBoard(sim.path, 8)
        assert board.open()["model"] == "LCUS-8"
        sim.stick(WIRING["up"])                  # welded contacts
        board.press(WIRING["up"], 50)
        wait_until(lambda: table.display() and table.selecting, 5,
                   "the stuck up switch held into the selection")
        assert sim.is_closed(WIRING["up"])
        with pytest.raises(BoardError) as e:
            board.press(9, 50)
        assert "no relay 9" in e.value.text("en")
        sim.unplug()
        assert not sim.closed()                  # a board without power opens its relays
        with pytest.raises(BoardError) as e:
            board.press(WIRING["down"], 50)
        assert e.value.code == "board_lost" and "unplugged" in e.value.text("en")
        assert not board.is_open
        board.close()


@pytest.mark.slow
@pytest.mark.usefixtures("no_leaks")
def test_panel_an_unplugged_board_is_noticed_while_idle(tmp_path):
    table = StockTable(number=1)
    sim = RelayBoard(channels=8, table=table, wiring=WIRING)
    sim.serve_pty()
    d = DaemonProcess(write_config(tmp_path, {"t1": sim.path}, extra="refresh = 0.3",
                                   table_extra={"t1": PANEL}))
    try:
        d.start(wait_tables=("t1",))
        sim.unplug()
        wait_until(lambda: store.get_table(d.db, "t1")["connected"] == 0, 20,
                   "the daemon noticed the board is gone")
        # noticed by the idle write ("lost"); the reconnects then find no device
        assert store.get_table(d.db, "t1")["last_error"] in ("lost", "port_missing")
    finally:
        d.stop()
        sim.stop()
