"""The simulated LCUS relay board on a real pty: 4-byte commands, checksums, presses."""

import time

import pytest
import serial

from hardware_sim.relay_board import RelayBoard
from tablectl.drivers.relay import relay_frame

pytestmark = pytest.mark.usefixtures("no_leaks")


def _wait(pred, timeout=3.0):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_documented_frames():
    assert relay_frame(1, True) == bytes.fromhex("a00101a2")
    assert relay_frame(1, False) == bytes.fromhex("a00100a1")
    assert relay_frame(4, True) == bytes.fromhex("a00401a5")


def test_a_press_is_closed_then_open_and_bad_frames_are_ignored():
    with RelayBoard(channels=2) as board:
        path = board.serve_pty()
        with serial.Serial(path, 9600, timeout=0.1) as port:
            port.write(b"\xa0\x01\x01\x00")                 # wrong checksum: ignored
            port.write(relay_frame(3, True))                # no relay 3 on this board
            port.write(relay_frame(2, True))
            _wait(lambda: board.is_closed(2))
            time.sleep(0.2)
            port.write(relay_frame(2, False))
            _wait(lambda: board.presses)
            port.write(b"\xa0\x01")                         # half a frame, then quiet
            time.sleep(0.15)
            port.write(relay_frame(1, True) + relay_frame(1, False))
            _wait(lambda: len(board.presses) == 2)
    first, second = board.presses
    assert first.channel == 2 and 0.15 <= first.seconds <= 1.0
    assert second.channel == 1 and second.seconds < 0.1
    assert board.bad_frames >= 3 and board.frames == 4


def test_board_on_the_command_line(tmp_path):
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "hardware_sim.relay_board", "--pty"],
                            stdout=subprocess.PIPE, text=True)
    try:
        path = proc.stdout.readline().strip()
        with serial.Serial(path, 9600) as port:
            port.write(relay_frame(1, True))
            time.sleep(0.1)
            port.write(relay_frame(1, False))
            line = proc.stdout.readline().split()
        assert line[:2] == ["press", "1"] and 50 <= int(line[2]) < 1000
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
        proc.stdout.close()
