"""Learning a stock table's sequence by demonstration, end to end: a simulated table
wired to the bridge model on a real pty (relays across its switches, the optocouplers'
sense inputs on the same switches and on its power), staff's hands on the table while
``python -m tablectl learn`` records, club.toml rewritten, and the real daemon replaying
the learned sequence to the right number.

The table's timings differ from the club.toml the tests start with: the guess is wrong
on purpose, so that only what was learned from the hands can make the change land."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import pytest

from hardware_sim.bridge_model import BridgeModel
from hardware_sim.stock_table import StockTable, Timings
from tablectl.config import load_config
from tests.support.tablectl import DaemonProcess, ask, wait_until, write_config

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_leaks")]

# the switches on relays 1..4: the bridge senses those
WIRING = {"up": 1, "down": 2, "dice_left": 3, "dice_right": 4}
# the table: a short boot, a short enter threshold, and a held key that starts repeating
# 700 ms after it was pressed
TABLE = Timings(boot_ms=400, enter_ms=300, repeat_delay_ms=700, repeat_ms=150, reset_ms=300)
# the guess in club.toml: a 1.2 s hold (far past the table's repeat delay)
GUESS = ('driver = "jpex-panel"\nboard = "bridge"\nboard_channels = 8\n'
         + "".join(f"{name} = {ch}\n" for name, ch in WIRING.items())
         + "press_ms = 60\nrepeat_ms = 150\nhold_ms = 1200\nreset_ms = 500\nboot_ms = 600\n")


class Rig:
    """The table, the bridge model wired to it, and a pair of eyes on the display (its
    held keys repeat when they are due, not only at the next switch edge)."""

    def __init__(self, table: StockTable, cut: tuple[int, ...] = ()):
        self.table = table
        switch_of = {ch: name for name, ch in WIRING.items()}

        def relay(channel: int, closed: bool) -> None:
            if channel in switch_of and channel not in cut:     # cut: a broken wire
                table.switch(switch_of[channel], closed)

        self.model = BridgeModel(channels=8, on_change=relay,
                                 on_power=lambda on: table.switch("power", not on))
        self.model.sensed_on = lambda: table.powered

        def sensed(name: str, on: bool, at: float) -> None:
            source = "P" if name == "power" else WIRING.get(name)
            if source is not None:
                self.model.sense_edge(source, on, at)

        table.sense = sensed
        self.model.serve_pty()
        self._stop = threading.Event()
        self._eyes = threading.Thread(target=self._look, daemon=True)
        self._eyes.start()

    def _look(self) -> None:
        while not self._stop.wait(0.01):
            self.table.display()

    def stop(self) -> None:
        self._stop.set()
        self._eyes.join(5)
        self.model.stop()


@pytest.fixture
def rig_for():
    made: list[Rig] = []

    def make(table: StockTable, cut: tuple[int, ...] = ()) -> Rig:
        made.append(Rig(table, cut))
        return made[-1]

    yield make
    for r in made:
        r.stop()


def hand_change(table: StockTable, steps: int) -> None:
    """Staff change the game by hand: power off and on, wait for the table to start, hold
    up until the selection shows, ``steps`` presses, both dice held until it confirms."""
    time.sleep(0.2)
    table.hand_power(False)
    time.sleep(0.3)
    table.hand_power(True)
    wait_until(lambda: table.display() not in ("", "--"), 10, "the table started")
    time.sleep(0.3)
    table.switch("up", True)
    wait_until(lambda: table.selecting, 5, "the selection shows")
    time.sleep(0.03)
    table.switch("up", False)
    for _ in range(steps):
        time.sleep(0.25)
        table.switch("up", True)
        time.sleep(0.08)
        table.switch("up", False)
    time.sleep(0.25)
    resets = table.resets
    table.switch("dice_left", True)
    table.switch("dice_right", True)
    wait_until(lambda: table.resets > resets, 5, "the reset")
    time.sleep(0.05)
    table.switch("dice_left", False)
    table.switch("dice_right", False)


def learn_by_hand(config: Path, table: StockTable, steps: int,
                  *extra: str) -> subprocess.CompletedProcess:
    """``python -m tablectl learn t1 --model jpex-ex`` while staff change by hand."""
    proc = subprocess.Popen([sys.executable, "-m", "tablectl", "learn", "t1", "--model",
                             "jpex-ex", "--config", str(config), "--lang", "en",
                             "--quiet", "1.0", "--seconds", "60", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    said = proc.stderr if "--json" in extra else proc.stdout
    assert said is not None
    for line in said:                   # staff start when it says so
        lines.append(line)
        if line.startswith("recording."):
            break
    hand_change(table, steps)
    out, err = proc.communicate(timeout=120)
    if "--json" in extra:
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, "".join(lines) + err)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines) + out, err)


def change(config: Path, table: StockTable, target: int, start: int) -> dict:
    """A mode change by the daemon (the sticks said to be in)."""
    daemon = DaemonProcess(config).start(wait_tables=("t1",))
    try:
        row = ask(daemon.db, "t1", "mode", {"mode": target, "from": start, "sticks": True},
                  timeout=60)
    finally:
        assert daemon.stop() == 0
    return row


def _config(tmp_path: Path, rig: Rig) -> Path:
    config = write_config(tmp_path, {"t1": rig.model.path}, table_extra={"t1": GUESS})
    text = config.read_text(encoding="utf-8")
    config.write_text("# the club's own notes stay\n" + text.replace(
        'name = "卓 t1"', 'name = "卓 t1"   # by the window'), encoding="utf-8")
    return config


def test_learn_from_a_hand_made_change_replays_to_the_right_number(tmp_path, rig_for):
    table = StockTable(number=1, timings=TABLE)
    rig = rig_for(table)
    config = _config(tmp_path, rig)
    done = learn_by_hand(config, table, steps=3)
    assert done.returncode == 0, done.stdout + done.stderr
    assert table.display() == "04" and table.confirmed == 4     # the hands got there
    assert "recorded" in done.stdout and "wrote [models.jpex-ex]" in done.stdout
    text = config.read_text(encoding="utf-8")
    assert "# the club's own notes stay" in text and "# by the window" in text
    data = tomllib.loads(text)
    learned = data["models"]["jpex-ex"]
    assert learned["enter"][0]["hold"] == "up"
    assert 300 <= learned["enter"][0]["ms"] < 700       # as held: entered, no repeat
    assert learned["reset"][0]["hold"] == ["dice_left", "dice_right"]
    entry = data["tables"][0]
    assert entry["model"] == "jpex-ex" and entry["boot_ms"] >= 400
    cfg = load_config(config)               # the daemon's own checks take it
    assert cfg.table("t1").options["model"] == "jpex-ex"
    # the next mode change replays it: from 04 to 07, then down to 02
    row = change(config, table, 7, start=4)
    assert row["status"] == "done" and row["result"]["steps"] == 3, row
    # the driver recorded its own replay through the sense inputs: it agrees
    assert row["result"]["sequence_check"] == {"agrees": True, "findings": []}
    assert table.display() == "07" and table.confirmed == 7
    row = change(config, table, 2, start=7)
    assert row["status"] == "done", row
    assert table.display() == "02" and table.confirmed == 2


def test_learn_catches_a_guess_a_repeating_table_gets_wrong(tmp_path, rig_for):
    """The table's held key goes on stepping once it is in the selection: the guessed
    1.2 s hold lands past the target. Learning shows the guess disagrees with the hands
    (a hold of 1200 ms where staff held about 330), and the learned one lands."""
    table = StockTable(number=1, timings=TABLE, enter_repeats=True)
    rig = rig_for(table)
    config = _config(tmp_path, rig)
    row = change(config, table, 5, start=1)
    assert row["status"] == "done"          # the driver cannot see the display ...
    assert table.confirmed != 5             # ... and the guess got it wrong
    wrong = table.confirmed
    target = (wrong + 2) % 9
    done = learn_by_hand(config, table, steps=2)
    assert done.returncode == 0, done.stdout + done.stderr
    assert table.confirmed == target
    assert "disagrees with what was done by hand" in done.stdout
    assert "the hold that enters the selection (ms): the sequence has 1200" in done.stdout
    learned = tomllib.loads(config.read_text(encoding="utf-8"))["models"]["jpex-ex"]
    assert learned["enter"][0]["ms"] < 700
    # learned again, as a script would: the same sequence, nothing new to write
    again = learn_by_hand(config, table, 1, "--json", "--dry-run")
    assert again.returncode == 0, again.stdout + again.stderr
    result = json.loads(again.stdout)
    assert result["written"] is None and result["steps"] == 1
    assert result["sequence"]["enter"][0]["hold"] == "up"
    assert isinstance(result["findings"], list)
    assert "learned: wait" in again.stderr           # the words went to stderr
    target = (target + 1) % 9
    goal = (target + 3) % 9
    row = change(config, table, goal, start=target)
    assert row["status"] == "done", row
    assert table.display() == f"{goal:02d}" and table.confirmed == goal


def test_learn_refuses_a_recording_without_a_power_cycle_and_writes_nothing(tmp_path,
                                                                             rig_for):
    table = StockTable(number=1, timings=TABLE)
    rig = rig_for(table)
    config = _config(tmp_path, rig)
    before = config.read_text(encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "tablectl", "learn", "t1", "--model",
                             "jpex-ex", "--config", str(config), "--lang", "en",
                             "--quiet", "0.5", "--seconds", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("recording."):
            break
    time.sleep(0.3)
    table.switch("up", True)                # a hold and a step, but no power cycle
    time.sleep(0.4)
    table.switch("up", False)
    time.sleep(0.2)
    table.switch("up", True)
    time.sleep(0.08)
    table.switch("up", False)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, out + err
    assert "has no power off and on" in err and "Nothing was written" in err
    assert "Traceback" not in err
    assert config.read_text(encoding="utf-8") == before


def test_learn_refuses_a_table_without_a_bridge_in_words(tmp_path):
    config = write_config(tmp_path, {"t1": "sim://"})
    done = subprocess.run([sys.executable, "-m", "tablectl", "learn", "t1", "--model", "x",
                           "--config", str(config), "--lang", "en"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "is not a jpex-panel on a bridge" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-m", "tablectl", "learn", "t1", "--model",
                           "no spaces", "--config", str(config), "--lang", "en"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "cannot be a model name" in done.stderr


def test_learn_check_of_a_replay_catches_a_relay_that_does_not_reach_its_switch(tmp_path,
                                                                              rig_for):
    """The wire from relay 1 to the up switch is broken: the driver cannot see that the
    table never entered its selection, but the recording of the change it made has no
    hold and no steps, and its result says so."""
    table = StockTable(number=1, timings=TABLE)
    rig = rig_for(table, cut=(1,))
    config = _config(tmp_path, rig)
    row = change(config, table, 3, start=1)
    assert row["status"] == "done"
    assert table.confirmed == 1                 # nothing was stepped
    check = row["result"]["sequence_check"]
    assert check == {"agrees": False, "problem": "learn_no_long_press"}


def test_learn_refuses_while_the_daemon_holds_the_port(tmp_path, rig_for):
    table = StockTable(number=1, timings=TABLE)
    rig = rig_for(table)
    config = _config(tmp_path, rig)
    before = config.read_text(encoding="utf-8")
    daemon = DaemonProcess(config).start(wait_tables=("t1",))
    try:
        done = subprocess.run([sys.executable, "-m", "tablectl", "learn", "t1", "--model",
                               "jpex-ex", "--config", str(config), "--lang", "en",
                               "--seconds", "3"], capture_output=True, text=True, timeout=60)
    finally:
        assert daemon.stop() == 0
    assert done.returncode == 1, done.stdout + done.stderr
    assert "if the tablectl daemon holds it, stop the daemon" in done.stdout
    assert done.stderr.startswith("tablectl: ") and "Traceback" not in done.stderr
    assert config.read_text(encoding="utf-8") == before
