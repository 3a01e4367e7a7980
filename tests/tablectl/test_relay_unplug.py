"""An LCUS relay board answers nothing, so an unplugged one is noticed from its port: the
daemon marks the table disconnected within about a second, with no command asked and
long before the 10 s status refresh, and a press asked meanwhile is not sent."""

import time

import pytest

from hardware_sim.relay_board import RelayBoard
from tablectl import store
from tests.support.tablectl import DaemonProcess, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


def test_an_unplugged_relay_board_is_noticed_without_a_command(tmp_path):
    board = RelayBoard(channels=4)
    path = board.serve_pty()
    cfg = write_config(tmp_path, {"t5": path}, extra="refresh = 30", table_extra={
        "t5": 'driver = "lcus-relay"\nchannel = 2'})
    d = DaemonProcess(cfg).start(wait_tables=("t5",))
    try:
        assert store.get_table(d.db, "t5")["connected"] == 1
        time.sleep(1.5)                        # idle: nothing on the line since connecting
        assert store.get_table(d.db, "t5")["connected"] == 1
        unplugged = time.monotonic()
        board.unplug()
        # the bound is what a loaded machine keeps; the time it took is in the message
        wait_until(lambda: store.get_table(d.db, "t5")["connected"] == 0, 10,
                   "the unplugged board noticed (refresh is 30 s: no command, no refresh)")
        took = time.monotonic() - unplugged
        print(f"relay board unplugged: noticed after {took:.2f} s")
        t5 = store.get_table(d.db, "t5")
        assert t5["last_error"], t5
        cid = store.request_command(d.db, "t5", "cycle", expires_in=2)
        row = store.wait_command(d.db, cid, 10)
        assert row["status"] == "timed_out" and board.presses == [], row
    finally:
        assert d.stop() == 0
        board.stop()
