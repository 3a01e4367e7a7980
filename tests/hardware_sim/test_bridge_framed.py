"""Bridge protocol 2: framed lines, latched press outcomes and the READY banner.

Each test runs the same bytes against the firmware (built from source, under simavr)
and the Python model (``docs/bridge.md``: "What changed in protocol 2"). Time on the
firmware's side is simulated time; the model runs on the wall clock.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import serial

from hardware_sim.bridge_model import BridgeModel
from tablectl import bridge_protocol
from tablectl.bridge_protocol import FIRMWARE_VERSION, PROTOCOL, framed, unframe
from tablectl.drivers.boards import BoardError
from tablectl.drivers.bridge_board import BridgeBoard

from .test_bridge_firmware import Chip, firmware_built  # noqa: F401  (the build fixture)

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Bridge:
    """One bridge to talk to: its port, how to wait on its clock, how its relays moved."""

    kind: str
    path: str
    sleep: Callable[[int], None]
    closings: Callable[[int], int]


@pytest.fixture(params=["firmware", "model"])
def bridge(request) -> Iterator[Bridge]:
    if request.param == "firmware":
        chip = Chip(request.getfixturevalue("firmware_built"))
        try:
            yield Bridge("firmware", chip.path, chip.sleep_sim,
                         lambda ch: sum(1 for level, _ in chip.pins(ch) if level == 1))
        finally:
            chip.stop()
    else:
        with BridgeModel(mcu="atmega328p") as model:
            path = model.serve_pty()
            yield Bridge("model", path, lambda ms: time.sleep(ms / 1000),
                         lambda ch: sum(1 for c, closed, _ in model.changes
                                        if c == ch and closed))


def _open(path: str) -> serial.Serial:
    """The port, with whatever the bridge said before we listened (its banner) dropped."""
    port = serial.Serial(path, 115200, timeout=2)
    time.sleep(0.2)
    port.reset_input_buffer()
    return port


def _talk(port: serial.Serial, data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("latin-1")
    port.write(data + b"\n")
    answer = port.readline()
    assert answer.endswith(b"\r\n"), (data, answer)
    return answer.decode("latin-1").strip()


def _answers_until_quiet(port: serial.Serial, quiet_s: float = 1.5) -> list[str]:
    port.timeout = quiet_s
    lines = []
    while raw := port.readline():
        lines.append(raw.decode("latin-1").strip())
    port.timeout = 2
    return lines


def test_framed_flood_runs_exactly_the_presses_sent(bridge):
    """STICKS then 20 presses in one write: the board runs only whole lines it received
    (today a dropped byte merged two lines into a press nobody sent)."""
    with _open(bridge.path) as port:
        port.write(b"STICKS\n" + b"PRESS 1 10\n" * 20)
        answers = _answers_until_quiet(port)
    assert answers[0].startswith("OK - STICKS ")
    pressed = [a for a in answers[1:] if a.startswith("OK ")]
    refused = [a for a in answers[1:] if not a.startswith("OK ")]
    assert all(a == "OK - PRESS 1 10" for a in pressed), pressed
    assert all(a.startswith("ERR - OVERFLOW ") and len(a.split()) > 6 for a in refused)
    assert len(pressed) + len(refused) <= 20
    if bridge.kind == "model":              # no ring to overflow: every press is run
        assert len(pressed) == 20 and not refused
    else:                                   # the 64-byte ring overflows behind STICKS
        assert refused, answers
    assert 1 <= bridge.closings(1) <= len(pressed)


@pytest.mark.parametrize("data", [b"PRESS 3 20\x00ZZZ", b"\x00PING", b"PRESS 3 2\xff",
                                  b"PRESS 3 20\x1b", b"\x00"])
def test_framed_nul_and_foreign_bytes_refuse_the_whole_line(bridge, data):
    with _open(bridge.path) as port:
        answer = _talk(port, data)
        assert answer.startswith("ERR - BYTE "), answer
        assert _talk(port, "PING") == "OK - PING OPEN"
    assert bridge.closings(3) == 0


def test_framed_checksum_is_checked_and_answered(bridge):
    with _open(bridge.path) as port:
        assert _talk(port, "7 PRESS 3 20*00").startswith("ERR - CHECKSUM ")
        assert _talk(port, "7 PRESS 3 20").startswith("ERR - CHECKSUM ")    # numbered: needs one
        assert _talk(port, "7 PRESS 3 20*5").startswith("ERR - CHECKSUM ")
        answer = _talk(port, framed("8 PING"))
        body, agrees = unframe(answer)
        assert agrees is True and body == "OK 8 PING OPEN", answer
        refusal = "ERR - CHECKSUM the checksum does not match; nothing was done"
        wrong = "PING*" + bridge_protocol.checksum("PINK")
        assert _talk(port, wrong) == f"{refusal}*{bridge_protocol.checksum(refusal)}"
        assert _talk(port, framed("ping").lower()) == "OK - PING OPEN*0D"   # hex either case
    assert bridge.closings(3) == 0


def test_framed_watchdog_cut_is_latched_and_repeated(bridge):
    """A hold the watchdog cut says CUT on every later query and on a resend of its line
    (today the stored answer lost the WDFIRED and a cut 3 s hold looked done)."""
    with _open(bridge.path) as port:
        assert _talk(port, "WATCHDOG 200") == "OK - WATCHDOG 200"
        hold = framed("9 HOLD 1 3000")
        assert unframe(_talk(port, hold)) == ("OK 9 HOLD 1 3000", True)
        bridge.sleep(600)                   # the host is silent: the watchdog cuts it
        # the host, its answer lost, sends the very same line again: not pressed again,
        # and the answer says the hold was cut, now and on every resend after
        first = unframe(_talk(port, hold))[0]
        assert first == "OK 9 HOLD 1 3000 REPEAT PRESS 9 CUT WDFIRED", first
        again = unframe(_talk(port, hold))[0]
        assert again == "OK 9 HOLD 1 3000 REPEAT PRESS 9 CUT", again
        assert _talk(port, "PING") == "OK - PING OPEN PRESS 9 CUT"
        assert unframe(_talk(port, framed("10 PING")))[0] == "OK 10 PING OPEN PRESS 9 CUT"
        assert _talk(port, "WATCHDOG 1500") == "OK - WATCHDOG 1500"
    assert bridge.closings(1) == 1          # the resend was not pressed again


def test_framed_press_outcome_done_and_released(bridge):
    with _open(bridge.path) as port:
        assert unframe(_talk(port, framed("3 PRESS 2 50")))[1] is True
        bridge.sleep(200)
        assert _talk(port, "PING") == "OK - PING OPEN PRESS 3 DONE"
        _talk(port, framed("4 HOLD 5,6 5000"))
        assert unframe(_talk(port, framed("5 RELEASE")))[0] == "OK 5 RELEASE"
        assert _talk(port, "PING") == "OK - PING OPEN PRESS 4 RELEASED"


def test_framed_ready_banner_names_a_watchdog_reset(bridge):
    with _open(bridge.path) as port:
        _talk(port, framed("21 PRESS 4 20"))
        assert _talk(port, "RESET") == "OK - RESET"
        port.timeout = 5
        banner = port.readline().decode("ascii").strip()
        assert banner == f"READY {FIRMWARE_VERSION} PROTOCOL {PROTOCOL} RESET WATCHDOG"
        version = _talk(port, "VERSION")
        assert version.endswith(" LAST 0") and f" PROTOCOL {PROTOCOL} " in version
        assert _talk(port, "PING") == "OK - PING OPEN"      # the outcome went with it


def test_framed_header_comes_from_the_one_definition():
    header = (ROOT / "firmware" / "bridge" / "bridge_protocol.h").read_text()
    assert header == bridge_protocol.c_header()
    assert f"#define PRESS_MAX_MS {bridge_protocol.PRESS_MAX_MS}\n" in header
    source = (ROOT / "firmware" / "bridge" / "bridge.c").read_text()
    assert not re.search(r"\b(10000|1500|60000|63)\b", source)   # no limit written twice


def test_framed_driver_reports_a_hold_the_watchdog_cut():
    with BridgeModel() as model:
        board = BridgeBoard(model.serve_pty(), keepalive_s=5.0)   # a host that stalls
        board.open()
        board._call("WATCHDOG 300")
        with pytest.raises(BoardError) as e:
            board.hold([1], 1000)
        assert e.value.code == "bridge_cut"
        assert [(ch, closed) for ch, closed, _ in model.changes] == [(1, True), (1, False)]
        board._call("WATCHDOG 1500")
        board.press(2, 30)                  # the next press is fine
        board.close()


def test_framed_driver_sees_the_bridge_start_again():
    with BridgeModel() as model:
        board = BridgeBoard(model.serve_pty())
        board.open()
        board.press(1, 20)
        model.reboot("BROWNOUT")            # a power dip: the chip starts over
        with pytest.raises(BoardError) as e:
            board.press(1, 20)
        assert e.value.code == "bridge_restarted" and "BROWNOUT" in e.value.text("en")
        assert board.restarts == ["BROWNOUT"]
        board.close()


def test_framed_driver_refuses_firmware_of_protocol_1(monkeypatch):
    monkeypatch.setattr("hardware_sim.bridge_model.PROTOCOL", 1)
    with BridgeModel() as model:
        board = BridgeBoard(model.serve_pty())
        with pytest.raises(BoardError) as e:
            board.open()
        assert e.value.code == "bridge_old_firmware"
        assert f"protocol {bridge_protocol.PROTOCOL}" in e.value.text("en")
