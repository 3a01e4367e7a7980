"""The second driver, ``lcus-relay``, against the simulated relay board on a real pty:
a cycle presses the table's start button for press_ms; honest capabilities (nothing
else can be asked); a press left in doubt is never repeated and the button never held."""

import time

import pytest

from hardware_sim.relay_board import RelayBoard
from tablectl import commands, store
from tests.support.tablectl import DaemonProcess, ask, wait_connected, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]


@pytest.fixture
def board():
    b = RelayBoard(channels=4)
    b.serve_pty()
    yield b
    b.stop()


def relay_config(tmp_path, path, press_ms=300):
    return write_config(tmp_path, {"t5": path}, table_extra={
        "t5": f'driver = "lcus-relay"\nchannel = 3\npress_ms = {press_ms}'})


def test_cycle_presses_the_start_button_for_the_configured_time(tmp_path, board):
    d = DaemonProcess(relay_config(tmp_path, board.path)).start(wait_tables=("t5",))
    try:
        t5 = store.get_table(d.db, "t5")
        assert t5["driver"] == "lcus-relay" and t5["commands"] == ["cycle"]
        assert t5["capabilities"]["relay_channel"] == 3 and t5["state"]["boot_id"] is None
        row = ask(d.db, "t5", "cycle")
        assert row["status"] == "done", row
        held = row["result"].pop("held_ms")
        assert row["result"] == {"pressed_ms": 300, "channel": 3, "confirmed": False}
        # the box's own clock: the relay stayed closed at least the configured time (the
        # board's reader may read both frames late on a busy machine: it cannot time them)
        assert held >= 300
        assert "was pressed for 300 ms; check that the table started" in \
            commands.describe(row, "en")
        assert "スタートボタンを300 ms押しました" in commands.describe(row, "ja")
        # the board answers nothing: the release frame is on the line when the command is
        # done, and the simulated board reads it on its own thread
        wait_until(lambda: board.presses, 5, "the board saw the button released")
        assert [p.channel for p in board.presses] == [3]
        # honest capabilities: what the board cannot do is refused before anything is sent
        for command, args in (("mode", {"mode": 4}), ("dice", None), ("points", None),
                              ("status", None), ("check", None)):
            with pytest.raises(store.NotSupported) as e:
                store.request_command(d.db, "t5", command, args)
            assert 'cannot do "' in e.value.text("en") and "lcus-relay" in e.value.text("ja")
        assert len(board.presses) == 1 and not board.is_closed(3)
    finally:
        assert d.stop() == 0


def test_a_press_in_doubt_is_never_repeated_and_the_button_is_released(tmp_path, board):
    d = DaemonProcess(relay_config(tmp_path, board.path, press_ms=3000))
    d.start(wait_tables=("t5",))
    cid = store.request_command(d.db, "t5", "cycle")
    wait_until(lambda: board.is_closed(3), 10, "the relay closed")
    d.kill9()                                            # killed mid-press: the button held
    assert board.is_closed(3)
    d.start(wait_tables=("t5",))
    try:
        wait_until(lambda: not board.is_closed(3), 10, "released at once by the new daemon")
        row = store.wait_command(d.db, cid, 10)
        assert row["status"] == "failed" and row["error_code"] == "in_doubt_unknown", row
        assert "NOT repeated" in commands.describe(row, "en")
        time.sleep(0.5)
        assert len(board.presses) == 1                  # one press, never a second
    finally:
        assert d.stop() == 0


def test_the_board_port_is_held_exclusively(tmp_path, board):
    import serial

    d = DaemonProcess(relay_config(tmp_path, board.path)).start(wait_tables=("t5",))
    try:
        with pytest.raises(serial.SerialException):
            serial.Serial(board.path, 9600, exclusive=True)
        wait_connected(d.db, "t5")
    finally:
        assert d.stop() == 0
