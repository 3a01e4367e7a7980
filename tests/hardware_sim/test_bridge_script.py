"""The bridge's on-board script: a whole mode change sent once, run by the chip's clock.

The same lines go to the firmware under simavr and to the Python model (the ``bridge``
fixture runs each test on both), so the two agree answer for answer; the timing claims
are made on the firmware's pins in simulated time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from hardware_sim.bridge_model import BridgeModel
from tablectl.bridge_protocol import LINE_MAX, SCRIPT_STEPS, framed, script_lines
from tablectl.drivers.boards import BoardError
from tablectl.drivers.bridge_board import BridgeBoard

from .test_bridge_firmware import ROOT, chip, firmware_built  # noqa: F401  (fixtures)
from .test_bridge_framed import _open, _talk, bridge  # noqa: F401  (the fixture)


def test_script_loads_runs_and_says_its_outcome(bridge):  # noqa: F811
    with _open(bridge.path) as port:
        assert _talk(port, "SCRIPT NEW W100 1:200") == "OK - SCRIPT 2"
        assert _talk(port, "script add R3 2:20 W30 E W1") == "OK - SCRIPT 7"
        assert _talk(port, "RUN 8").startswith("ERR - ARGS the count differs")
        assert _talk(port, "RUN 7") == "OK - RUN 7"
        # a running script owns the relays and the power output
        assert _talk(port, "PRESS 1 10").startswith("ERR - BUSY a script is running")
        assert _talk(port, "POWER OFF").startswith("ERR - BUSY")
        assert _talk(port, "SCRIPT NEW W1").startswith("ERR - BUSY")
        assert _talk(port, "RUN 7").startswith("ERR - BUSY")
        assert _talk(port, "POWER") == "OK - POWER ON SENSE ON"     # reading is fine
        bridge.sleep(700)                   # 100 + 201 + 3 x (21 + 30) + 1 ms, and some
        assert _talk(port, "PING") == "OK - PING OPEN SCRIPT - DONE 7 1"
        assert bridge.closings(1) == 1 and bridge.closings(2) == 3
        assert bridge.closings(3) == 0
        # numbered: a resent RUN is not run twice and says how its script stands
        assert _talk(port, framed("9 RUN 7")) == framed("OK 9 RUN 7")
        bridge.sleep(50)                    # in its first wait (step 1)
        assert _talk(port, framed("9 RUN 7")) == framed(
            "OK 9 RUN 7 REPEAT SCRIPT 9 RUNNING 1 1")
        assert _talk(port, "ABORT") == "OK - ABORT"
        assert _talk(port, "PING") == "OK - PING OPEN SCRIPT 9 ABORTED 1 1"
        assert _talk(port, "ABORT") == "OK - ABORT"          # nothing left to stop
        assert bridge.closings(1) == 1          # aborted before its press
        # RELEASE always works, and stops a script too
        assert _talk(port, "RUN 7") == "OK - RUN 7"
        bridge.sleep(150)                   # in the press of relay 1 (step 2)
        assert _talk(port, "PING") == "OK - PING CLOSED 1 SCRIPT - RUNNING 2 1"
        assert _talk(port, "RELEASE") == "OK - RELEASE"
        assert _talk(port, "PING") == "OK - PING OPEN SCRIPT - ABORTED 2 1"


@pytest.mark.parametrize("line, answer", [
    ("SCRIPT NEW X", "ERR - ARGS a step is ON, OFF, W<ms>, <ch>[,<ch>]:<ms>, R<times> or E"),
    ("SCRIPT NEW 9:10", "ERR - CHANNEL no such relay; the channels are 1 to 8"),
    ("SCRIPT NEW 1:0", "ERR - RANGE a press lasts 1 to 10000 ms"),
    ("SCRIPT NEW 1,:5", "ERR - ARGS a press is channels:ms, as in 2:150 or 4,5:3000"),
    ("SCRIPT NEW W60001", "ERR - RANGE a wait lasts 0 to 60000 ms"),
    ("SCRIPT NEW Wx", "ERR - ARGS W and R take a number, as in W250 or R3"),
    ("SCRIPT NEW R0", "ERR - RANGE a group repeats 1 to 99 times"),
    ("SCRIPT NEW R2 R2", "ERR - ARGS groups do not nest; end this one with E first"),
    ("SCRIPT NEW E", "ERR - ARGS E ends a group that R began"),
    ("SCRIPT ADD", "ERR - ARGS SCRIPT NEW or SCRIPT ADD, then its steps"),
    ("SCRIPT ON", "ERR - ARGS SCRIPT NEW or SCRIPT ADD, then its steps"),
    ("RUN", "ERR - ARGS RUN takes the script's count of steps"),
    ("ABORT NOW", "ERR - ARGS ABORT takes nothing after it"),
])
def test_script_refuses_bad_steps_in_words(bridge, line, answer):  # noqa: F811
    with _open(bridge.path) as port:
        assert _talk(port, "SCRIPT NEW W5") == "OK - SCRIPT 1"
        assert _talk(port, line) == answer
        # a refused line changed nothing: the script loaded before still runs
        assert _talk(port, "RUN 1") == "OK - RUN 1"


def test_script_refused_whole_and_bounded(bridge):  # noqa: F811
    with _open(bridge.path) as port:
        assert _talk(port, "RUN 1") == "ERR - ARGS no script is loaded; SCRIPT NEW first"
        assert _talk(port, "SCRIPT NEW R2 1:5") == "OK - SCRIPT 2"
        assert _talk(port, "RUN 2") == "ERR - ARGS a group R is not ended by E"
        assert _talk(port, "SCRIPT ADD W1 X").startswith("ERR - ARGS a step is")
        assert _talk(port, "SCRIPT ADD E") == "OK - SCRIPT 3"     # the bad line left nothing
        half = " ".join(["ON"] * (SCRIPT_STEPS // 2))
        assert _talk(port, f"SCRIPT NEW {half}") == f"OK - SCRIPT {SCRIPT_STEPS // 2}"
        assert _talk(port, f"SCRIPT ADD {half}") == f"OK - SCRIPT {SCRIPT_STEPS}"
        assert _talk(port, "SCRIPT ADD ON") == (
            f"ERR - RANGE a script holds at most {SCRIPT_STEPS} steps")


def test_script_is_cut_when_the_host_goes_quiet(bridge):  # noqa: F811
    """The dead host's state: the script stops at the watchdog time after the host's last
    line, every relay opens and the table is let on; the next answer says WDFIRED and
    every later PING that the script was cut, and at which step."""
    with _open(bridge.path) as port:
        assert _talk(port, "SCRIPT NEW OFF W100 1:5000 W5000") == "OK - SCRIPT 4"
        assert _talk(port, "RUN 4") == "OK - RUN 4"
        bridge.sleep(2000)              # no line for longer than the watchdog's 1.5 s
        assert _talk(port, "PING") == "OK - PING OPEN SCRIPT - CUT 3 1 WDFIRED"
        assert _talk(port, "PING") == "OK - PING OPEN SCRIPT - CUT 3 1"
        assert _talk(port, "POWER") == "OK - POWER ON SENSE ON"
        assert bridge.closings(1) == 1


def test_script_lines_fit_the_line_limit():
    steps = ["ON", "W5000", "2:3000", "W250", "R8", "2:150", "W250", "E", "4,5:3000",
             "W250"]
    lines = script_lines(steps)
    assert lines == ["SCRIPT NEW ON W5000 2:3000 W250 R8 2:150 W250 E",
                     "SCRIPT ADD 4,5:3000 W250"]
    assert all(len(framed(f"65535 {line}")) <= LINE_MAX for line in lines)
    assert " ".join(lines).replace("SCRIPT NEW ", "").replace(" SCRIPT ADD", "").split() \
        == steps


def test_script_firmware_times_every_step_by_its_own_clock(chip):  # noqa: F811
    board = BridgeBoard(chip.path)
    board.open()
    seen: list[tuple[int, int]] = []
    board.run_script(["W100", "1:300", "W100", "R3", "2:50", "W50", "E", "4,5:300"],
                     on_step=lambda step, n: seen.append((step, n)))
    board.close()
    (c1, t1_closed), (o1, t1_open) = chip.pins(1)
    assert (c1, o1) == (1, 0)
    assert 300_000 <= t1_open - t1_closed <= 301_000
    twos = chip.pins(2)
    closes = [t for level, t in twos if level == 1]
    opens = [t for level, t in twos if level == 0]
    assert len(closes) == len(opens) == 3
    # each step follows the one before by its own time, whatever the host did meanwhile
    assert 99_000 <= closes[0] - t1_open <= 101_000
    for a, b in zip(closes, closes[1:], strict=False):
        assert 100_000 <= b - a <= 102_000      # a press of 50 (+1) and a wait of 50
    (_, t4), (_, t5) = chip.pins(4)[0], chip.pins(5)[0]
    assert abs(t4 - t5) < 100 and 100_000 <= t4 - closes[-1] <= 102_000
    assert seen and all(1 <= step <= 8 and 1 <= n <= 3 for step, n in seen)


def test_script_firmware_dead_host_leaves_every_relay_open_and_the_table_on(chip):  # noqa: F811
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from tablectl.drivers.bridge_board import BridgeBoard\n"
         "b = BridgeBoard(sys.argv[1]); b.open()\n"
         "b.run_script(['OFF', 'W100', '1:8000', 'ON'],"
         " on_step=lambda s, n: print('step', s, flush=True))\n", chip.path],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        while child.stdout.readline().strip() != "step 3":     # in the 8 s press
            assert child.poll() is None
        chip.sleep_sim(500)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    # the harness's log lines arrive on their own thread: wait for the close and the open
    deadline = time.monotonic() + 20
    while not (len(chip.pins(1)) >= 2 and chip.pins(1)[-1][0] == 0):
        assert time.monotonic() < deadline, chip.lines[-20:]
        time.sleep(0.02)
    changes = chip.pins(1)
    assert [level for level, _ in changes[-2:]] == [1, 0], changes
    (_, t_closed), (_, t_opened) = changes[-2:]
    last_line = max(t for t in chip.rx() if t < t_opened)
    assert 1_499_000 <= t_opened - last_line <= 1_505_000     # the watchdog time
    assert t_opened - t_closed < 8_000_000
    (off, t_off), (on, t_on) = chip.pins(9)                   # the power output, D10
    assert (off, on) == (1, 0) and abs(t_on - t_opened) < 1_000   # let on with the cut
    chip.control("nxcl")            # the killed host left the tty in exclusive mode
    chip.wait_for(lambda s: s == "nxcl")
    board = BridgeBoard(chip.path)
    board.open()
    assert board.watchdog_fired == 1        # said on the first answer after the cut
    words = board._call("PING")
    assert words[-5] == "SCRIPT" and words[-3:] == ["CUT", "3", "1"]    # in its press
    board.close()


def test_script_board_runs_on_the_model_and_aborts_when_the_host_stops():
    class Stopping(Exception):
        pass

    with BridgeModel() as model:
        board = BridgeBoard(model.serve_pty(), keepalive_s=0.05)
        board.open()
        steps: list[int] = []
        board.run_script(["W50", "1:100", "R2", "2:30", "W20", "E"],
                         on_step=lambda s, n: steps.append(s))
        assert [(ch, closed) for ch, closed, _ in model.changes] == [
            (1, True), (1, False), (2, True), (2, False), (2, True), (2, False)]
        assert steps and all(1 <= s <= 6 for s in steps)

        calls = []

        def wait(seconds: float) -> None:
            calls.append(seconds)
            if len(calls) == 3:
                raise Stopping()
            time.sleep(seconds)

        with pytest.raises(Stopping):
            board.run_script(["OFF", "W5000", "ON"], wait=wait)
        assert model.script_state == "ABORTED" and not model.power_off   # the table on
        with pytest.raises(BoardError) as e:
            board.run_script(["ON"] * (SCRIPT_STEPS + 1))
        assert e.value.code == "bridge_script_long"
        board.close()
