"""The bridge's power output: a level held for the table's outlet, and its sense input.

The table's mains go through a relay-controlled outlet whose low-voltage trigger the
bridge holds (``docs/hardware.md``): energised, the table is off. The bridge keeps it
off as long as the host keeps talking, for the whole of the rulebook's wait for the
sticks, and lets the table back on by itself when the host has been silent for
POWER_HOLD_MS. The firmware runs under simavr (at 20 times the wall clock for the
minutes of chip time these need); the model on a clock the test moves.
"""

from __future__ import annotations

import time

import pytest
import serial

from hardware_sim.bridge_model import BridgeModel
from tablectl.bridge_protocol import POWER_HOLD_MS
from tablectl.drivers.bridge_board import BridgeBoard

from .test_bridge_firmware import Chip, firmware_built  # noqa: F401  (the build fixture)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_power_holds_600_s_while_the_host_talks_and_comes_back_when_it_stops():
    clock = Clock()
    seen: list[bool] = []
    model = BridgeModel(clock=clock, on_power=seen.append)
    assert model.handle("POWER") == "OK - POWER ON SENSE ON"
    assert model.handle("POWER OFF") == "OK - POWER OFF SENSE OFF"
    for _ in range(600):                    # the sticks wait: the host polls every second
        clock.t += 1.0
        model.tick()
        assert model.handle("STICKS").startswith("OK - STICKS ")
    assert model.power_off and seen == [False]
    assert model.handle("PING") == "OK - PING OPEN POWER OFF"
    clock.t += POWER_HOLD_MS / 1000 - 0.5   # the host goes silent...
    model.tick()
    assert model.power_off
    clock.t += 1.0                          # ...and the table is let back on by itself
    model.tick()
    assert not model.power_off and seen == [False, True]
    assert model.handle("PING") == "OK - PING OPEN PWRFIRED"
    assert model.handle("PING") == "OK - PING OPEN"     # said once


def test_power_refuses_other_words_and_a_reset_lets_the_table_on():
    model = BridgeModel(clock=Clock())
    assert model.handle("POWER HALF").startswith("ERR - ARGS POWER takes ON or OFF")
    assert model.handle("power off") == "OK - POWER OFF SENSE OFF"
    model.sensed_on = lambda: True          # a table that stays on: its sense says so
    assert model.handle("POWER") == "OK - POWER OFF SENSE ON"
    model.restart("BROWNOUT")
    assert not model.power_off


def test_power_driver_holds_the_outlet_and_reads_the_sense():
    with BridgeModel() as model:
        board = BridgeBoard(model.serve_pty())
        board.open()
        assert board.set_power(False) is False and model.power_off
        assert board.sensed_power() is False
        assert board.set_power(True) is True and not model.power_off
        board.set_power(False)
        board.close()
        board = BridgeBoard(model.path)     # a new host: the table is let on first
        board.open()
        assert not model.power_off
        board.close()


@pytest.fixture()
def fast_chip(firmware_built):  # noqa: F811
    c = Chip(firmware_built, speed=20)
    yield c
    c.stop()


def _talk(port, line: str) -> str:
    port.write(line.encode("ascii") + b"\n")
    return port.readline().decode("ascii").strip()


def test_power_firmware_holds_600_s_of_chip_time_and_lets_go_when_the_host_dies(fast_chip):
    chip = fast_chip
    with serial.Serial(chip.path, 115200, timeout=5) as port:
        time.sleep(0.2)
        port.reset_input_buffer()
        assert _talk(port, "POWER OFF") == "OK - POWER OFF SENSE ON"
        chip.control("sense 0")             # the outlet took the table's power away
        chip.wait_for(lambda s: s == "sense 0")
        assert _talk(port, "POWER") == "OK - POWER OFF SENSE OFF"
        off_at = chip.now_us()
        while chip.now_us() - off_at < 600_000_000:     # the host polls the sticks
            assert _talk(port, "STICKS").startswith("OK - STICKS ")
            time.sleep(0.2)
        assert _talk(port, "PING") == "OK - PING OPEN POWER OFF"
        # the host dies: no more lines. The output lets go POWER_HOLD_MS after the last
        chip.wait_for(lambda s: s.startswith("pin 9 PB2 0 "), timeout=60)
        chip.control("sense 1")
        assert _talk(port, "PING") == "OK - PING OPEN PWRFIRED"
    (on_level, t_off), (off_level, t_on) = chip.pins(9)
    assert (on_level, off_level) == (1, 0)
    assert t_on - t_off >= 600_000_000       # held the whole wait for the sticks
    last_line = max(t for t in chip.rx() if t < t_on)     # the dead host's last line
    assert POWER_HOLD_MS * 1000 - 1_000 <= t_on - last_line <= POWER_HOLD_MS * 1000 + 5_000
