"""The bridge driver against the Python model of the bridge on a real pty (fast tests).

The model itself is checked against the firmware under simavr in
``test_bridge_firmware.py``; these tests cover the driver's own behaviour.
"""

from __future__ import annotations

import os
import time
import tty

import pytest
import serial

import lexicon
from hardware_sim.bridge_model import BridgeModel, adc_count, divider_microvolts, points_of
from tablectl.drivers.boards import BoardError, PanelBoard
from tablectl.drivers.bridge_board import BridgeBoard

pytestmark = pytest.mark.usefixtures("no_leaks")


def _wait(pred, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_bridge_driver_presses_and_returns_when_the_bridge_opened_it():
    with BridgeModel() as model:
        board: PanelBoard = BridgeBoard(model.serve_pty())
        ident = board.open()
        assert ident["model"] == "Jantaku bridge (model)" and ident["watchdog_ms"] == 1500
        board.press(2, 120)
        assert [(ch, closed) for ch, closed, _ in model.changes] == [(2, True), (2, False)]
        board.hold([4, 5], 80)
        assert [(ch, closed) for ch, closed, _ in model.changes[2:]] == [
            (4, True), (5, True), (4, False), (5, False)]
        assert model.closed() == []
        board.close()


def test_bridge_driver_keeps_a_long_hold_alive_past_the_watchdog():
    with BridgeModel() as model:
        board = BridgeBoard(model.serve_pty(), keepalive_s=0.1)
        board.open()
        board._call("WATCHDOG 1000")
        board.hold([1], 2500)                 # two and a half watchdogs: kept alive
        assert board.watchdog_fired == 0
        assert [(ch, closed) for ch, closed, _ in model.changes] == [(1, True), (1, False)]
        board.close()


def test_bridge_model_watchdog_opens_when_the_host_goes_quiet():
    with BridgeModel() as model:
        with serial.Serial(model.serve_pty(), 115200, timeout=2) as port:
            time.sleep(0.2)                 # the banner it printed at start, dropped
            port.reset_input_buffer()
            port.write(b"WATCHDOG 100\nHOLD 1,2 5000\n")
            assert port.readline() == b"OK - WATCHDOG 100\r\n"
            assert port.readline() == b"OK - HOLD 1,2 5000\r\n"
            _wait(lambda: model.closed() == [])
            port.write(b"PING\n")
            assert port.readline() == b"OK - PING OPEN WDFIRED\r\n"


def test_bridge_driver_sends_a_lost_answer_again_and_nothing_is_done_twice():
    class LosesOneAnswer(BridgeModel):
        lost = False

        def handle(self, raw, too_long=False, bad=False, lost=False):
            answer = super().handle(raw, too_long, bad, lost)
            if "PRESS" in raw and not self.lost:
                self.lost = True
                return None                   # the answer never reaches the host
            return answer

    with LosesOneAnswer() as model:
        board = BridgeBoard(model.serve_pty(), answer_s=0.3)
        board.open()
        board.press(3, 50)
        assert model.lost
        assert [(ch, closed) for ch, closed, _ in model.changes] == [(3, True), (3, False)]
        board.close()


def test_bridge_driver_reads_the_sticks():
    with BridgeModel() as model:
        for seat, points in enumerate((25_000, 35_000, 17_000, 0)):
            model.set_sticks(seat, points)
        board = BridgeBoard(model.serve_pty())
        board.open()
        sticks = board.read_sticks()
        assert sticks[0] == 25_000 and sticks[3] == 0
        assert abs(sticks[1] - 35_000) <= 100 and abs(sticks[2] - 17_000) <= 100
        assert board.raw_sticks()[3] == 1023
        board.close()


def test_bridge_points_follow_the_divider():
    # 10,000 pts is a 10 kΩ stick; with a 4.7 kΩ reference the reading is within a
    # count of the truth, which is within 100 points up to 25,000
    for points in range(1_000, 25_001, 100):
        count = adc_count(divider_microvolts(points))
        assert abs(points_of(count * 16) - points) <= 100, points
    assert points_of(1023 * 16) == 0


def test_bridge_driver_says_in_words_when_nothing_answers():
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        board = BridgeBoard(os.ttyname(slave), answer_s=0.2, tries=2)
        with pytest.raises(BoardError) as e:
            board.open()
        assert e.value.code == "bridge_lost" and lexicon.has(e.value.key)
        assert "応答しません" in e.value.text("ja")
        assert not board.is_open
    finally:
        os.close(master)
        os.close(slave)


def test_bridge_model_runs_as_a_program_for_the_demo():
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "hardware_sim.bridge_model", "--pty",
                             "--sticks", "25000,0,0,30000"], stdout=subprocess.PIPE, text=True)
    try:
        board = BridgeBoard(proc.stdout.readline().strip())
        board.open()
        assert board.read_sticks()[0] == 25_000
        board.press(2, 30)
        board.close()
        assert proc.stdout.readline().strip() == "relay 2 closed"
        assert proc.stdout.readline().strip() == "relay 2 open"
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()


def test_bridge_driver_says_when_the_watchdog_cut_a_press_short():
    with BridgeModel() as model:
        board = BridgeBoard(model.serve_pty(), keepalive_s=0.5)
        board.open()
        board._call("WATCHDOG 100")       # shorter than the driver's keep-alive
        with pytest.raises(BoardError) as e:
            board.hold([1], 400)
        assert e.value.code == "bridge_cut" and lexicon.has(e.value.key)
        assert "途中" in e.value.text("ja")
        assert model.closed() == []
        board.close()


def test_bridge_longest_answer_fits_the_firmware_answer_buffer():
    """The firmware keeps an answer in ANSWER_MAX bytes (its C string's end among them)
    and would cut a longer one short where the model would not: the longest answer there
    is (an unknown verb on the largest id, naming every verb) must fit."""
    from tablectl.bridge_protocol import ANSWER_MAX, framed

    with BridgeModel() as model:
        with serial.Serial(model.serve_pty(), timeout=2) as port:
            port.write((framed("65535 NOPE") + "\n").encode())
            answer = port.readline().decode().strip()
            while answer.startswith("READY"):  # the banner of its start comes first
                answer = port.readline().decode().strip()
    assert answer.startswith("ERR 65535 UNKNOWN") and "ABORT" in answer, answer
    assert len(answer) <= ANSWER_MAX - 1, f"{len(answer)} characters: {answer}"
