"""The bridge firmware, built from source and run under simavr, driven over its pty.

Timing claims are measured in simulated time (the harness logs each relay pin change
at cycles / F_CPU), never on the wall clock: simavr runs at its own pace.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import serial

import lexicon
from hardware_sim.bridge_model import BridgeModel, divider_microvolts
from tablectl.bridge_protocol import framed
from tablectl.drivers.boards import BoardError
from tablectl.drivers.bridge_board import BridgeBoard

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
ELF = FIRMWARE / "bridge" / "bridge-atmega328p.elf"
HARNESS = FIRMWARE / "sim" / "bridge_sim"


def _tools_missing() -> str | None:
    for tool in ("avr-gcc", "make", "pkg-config", "gcc"):
        if shutil.which(tool) is None:
            return tool
    if subprocess.run(["pkg-config", "--exists", "simavr"]).returncode != 0:
        return "libsimavr-dev"
    return None


@pytest.fixture(scope="session")
def firmware_built():
    """Build the firmware and the harness from source, as CI does."""
    missing = _tools_missing()
    if missing and os.environ.get("JANTAKU_REQUIRE_FIRMWARE") == "1":
        pytest.fail(f"{missing} is required (JANTAKU_REQUIRE_FIRMWARE=1) but not installed")
    if missing:
        pytest.skip(f"{missing} is not installed (.ci/run installs the AVR tools)")
    for folder in ("bridge", "sim"):
        done = subprocess.run(["make", "-C", str(FIRMWARE / folder)], capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    return ELF


class Chip:
    """The harness process: the pty's path, the event log, the control channel."""

    def __init__(self, elf: Path, mcu: str = "atmega328p", speed: int = 1):
        self.proc = subprocess.Popen([str(HARNESS), "--mcu", mcu, "--speed", str(speed),
                                      str(elf)],
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        first = self.proc.stdout.readline().split()
        assert first[:1] == ["pty"], first
        self.path = first[1]
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.strip())
                self._cond.notify_all()

    def control(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait_for(self, pred, timeout: float = 20.0) -> str:
        """The first logged line ``pred`` accepts (waiting for it)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines:
                    if pred(line):
                        return line
                left = deadline - time.monotonic()
                assert left > 0, f"timed out; log: {self.lines[-20:]}"
                self._cond.wait(left)

    def now_us(self) -> int:
        """The simulated time now."""
        seen = len(self.lines)
        self.control("time")
        line = self.wait_for(lambda s: s.startswith("time ")
                             and self.lines.index(s) >= seen)
        self.lines.remove(line)
        return int(line.split()[1])

    def sleep_sim(self, ms: int) -> None:
        """Wait until ``ms`` of simulated time have passed."""
        until = self.now_us() + ms * 1000
        while self.now_us() < until:
            time.sleep(0.02)

    def pins(self, channel: int) -> list[tuple[int, int]]:
        """(level, simulated µs) of each change of a relay channel's pin."""
        with self._cond:
            return [(int(w[3]), int(w[4])) for w in (line.split() for line in self.lines)
                    if w[0] == "pin" and w[1] == str(channel)]

    def rx(self) -> list[int]:
        with self._cond:
            return [int(line.split()[1]) for line in self.lines if line.startswith("rx ")]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.control("quit")
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(5)
        self.proc.stdin.close()
        self.proc.stdout.close()


@pytest.fixture()
def chip(firmware_built):
    c = Chip(firmware_built)
    yield c
    c.stop()


def _open(path: str) -> serial.Serial:
    """The port, with the banner the bridge printed at start dropped."""
    port = serial.Serial(path, 115200, timeout=2)
    time.sleep(0.2)
    port.reset_input_buffer()
    return port


def _talk(port, line: str) -> str:
    port.write(line.encode("latin-1") + b"\n")
    answer = port.readline()
    assert answer.endswith(b"\r\n"), (line, answer)
    return answer.decode("latin-1").strip()


def test_bridge_press_is_timed_by_the_chip(chip):
    board = BridgeBoard(chip.path)
    ident = board.open()
    assert ident["mcu"] == "atmega328p" and ident["channels"] == 8
    assert ident["watchdog_ms"] == 1500
    board.press(3, 300)
    board.close()
    (closed, t0), (opened, t1) = chip.pins(3)
    assert (closed, opened) == (1, 0)
    # the chip's 1 ms tick ends it: never shorter than asked, at most one tick longer
    assert 300_000 <= t1 - t0 <= 301_000
    assert all(not chip.pins(c) for c in (1, 2, 4, 5, 6, 7, 8))


def test_bridge_watchdog_opens_the_relay_when_the_host_is_killed(chip):
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from tablectl.drivers.bridge_board import BridgeBoard\n"
         "b = BridgeBoard(sys.argv[1]); b.open(); print('holding', flush=True)\n"
         "b.hold([1], 10000)\n", chip.path],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "holding"
        chip.wait_for(lambda s: s.startswith("pin 1 PD2 1 "))
        chip.sleep_sim(800)         # the host keeps it alive meanwhile
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    chip.wait_for(lambda s: s.startswith("pin 1 PD2 0 "))
    (_, t_closed), (_, t_opened) = chip.pins(1)
    last_line = max(t for t in chip.rx() if t < t_opened)
    # opened by the watchdog 1.5 s after the last line the dead host sent (the line
    # takes about a millisecond to arrive at 115200 baud), long before the 10 s hold
    assert 1_499_000 <= t_opened - last_line <= 1_505_000
    assert t_opened - t_closed < 5_000_000
    assert last_line > t_closed + 300_000           # keep-alives came while it held
    chip.control("nxcl")            # the killed host left the tty in exclusive mode
    chip.wait_for(lambda s: s == "nxcl")
    board = BridgeBoard(chip.path)
    board.open()                    # the next answer says the watchdog fired
    assert board.watchdog_fired == 1
    board.close()


def test_bridge_reads_the_sticks_from_the_adc_voltages(chip):
    for seat, points in enumerate((25_000, 17_000, 35_000, 0)):
        chip.control(f"adc {seat} {divider_microvolts(points)}")
    board = BridgeBoard(chip.path)
    board.open()
    sticks = board.read_sticks()
    raw = board.raw_sticks()
    board.close()
    assert sticks[0] == 25_000
    assert abs(sticks[1] - 17_000) <= 100 and abs(sticks[2] - 35_000) <= 100
    assert sticks[3] == 0 and raw[3] == 1023
    assert sticks[2] - sticks[1] > 10_000       # a 17,000 drawer is not a 35,000 one


def test_bridge_repeated_id_does_not_press_twice(chip):
    with _open(chip.path) as port:
        assert _talk(port, framed("7 PRESS 2 100")) == framed("OK 7 PRESS 2 100")
        assert _talk(port, framed("7 PRESS 2 100")) == framed(
            "OK 7 PRESS 2 100 REPEAT PRESS 7 RUNNING")
        assert _talk(port, framed("7 PRESS 2 250")).startswith("ERR 7 ID ")
        chip.sleep_sim(300)
        assert _talk(port, framed("8 PING")) == framed("OK 8 PING OPEN PRESS 7 DONE")
    assert [level for level, _ in chip.pins(2)] == [1, 0]


@pytest.mark.parametrize("line, code", [
    ("FLY 3", "UNKNOWN"), ("PRESS 9 100", "CHANNEL"), ("PRESS 3", "ARGS"),
    ("PRESS 3 0", "RANGE"), ("PRESS 3 10001", "RANGE"), ("PRESS 3,4 100", "ARGS"),
    ("HOLD 4, 100", "ARGS"), ("PRESS 3 abc", "ARGS"), ("WATCHDOG 5", "RANGE"),
    ("0 PING", "ID"), ("x" * 70, "LONG"),
])
def test_bridge_bad_commands_get_err_in_words(chip, line, code):
    with _open(chip.path) as port:
        answer = _talk(port, line)
        assert answer.split()[:3] == ["ERR", "-", code], answer
        assert len(answer.split()) > 5                  # words a person can act on
        assert _talk(port, "PING") == "OK - PING OPEN"  # nothing was closed
    assert not any(chip.pins(c) for c in range(1, 9))


def test_bridge_driver_refuses_bad_input_in_words(chip):
    board = BridgeBoard(chip.path)
    board.open()
    with pytest.raises(BoardError) as e:
        board.press(9, 100)
    assert e.value.code == "bridge_no_channel"
    assert lexicon.has(e.value.key)
    assert e.value.text("ja").startswith("ブリッジのリレーは 1〜8 番です。9 番")
    assert "no relay 9" in e.value.text("en")
    with pytest.raises(BoardError) as e:
        board.press(1, 20_000)
    assert e.value.code == "bridge_bad_ms" and "20000" in e.value.text("ja")
    with pytest.raises(BoardError) as e:
        board._call("PRESS 3,4 100")             # what the bridge itself refuses
    assert e.value.code == "bridge_refused_args" and lexicon.has(e.value.key)
    board.close()
    assert not chip.pins(1)


SCRIPT = [
    "PING", "VERSION", "ping", framed("5 PRESS 1 40"), framed("5 PRESS 1 40"),
    framed("5 PRESS 1 41"), ("sleep", 150), framed("6 PING"), "STICKS", "HOLD 4,5 1000",
    "PING", ("sleep", 1200), "PING", "FLY", "PRESS", "PRESS 0 5", "PRESS 9 5", "PRESS 1 0",
    "HOLD 1,,2 5", "HOLD 1,9, 5", "HOLD 9, 5", "PRESS 1,2 5", "PRESS 123456 5",
    "PRESS 1 999999", "70000 PING", framed("9"), "9", "WATCHDOG", "WATCHDOG 99",
    "WATCHDOG 200", framed("7 HOLD 2,3 5000"), ("sleep", 500), "PING", "PING",
    "RELEASE extra", framed("8 RELEASE"), framed("8 RELEASE"), "y" * 64, "VERSION",
    "8 PING", "8 PING*00", framed("8 PING*"), "*", framed(""), "PING\x00", "PING\x7f",
    "PRESS 3 2\xe9", framed("PING").lower(), "WATCHDOG 1500",
]


def _run_script(port, sleep) -> list[str]:
    answers = []
    for step in SCRIPT:
        if isinstance(step, tuple):
            sleep(step[1])
        else:
            answers.append(_talk(port, step))
    return answers


def test_bridge_model_answers_as_the_firmware(chip):
    for seat, points in enumerate((25_000, 17_000, 35_000, 0)):
        chip.control(f"adc {seat} {divider_microvolts(points)}")
    with _open(chip.path) as port:
        firmware = _run_script(port, chip.sleep_sim)
    with BridgeModel(mcu="atmega328p") as model:
        for seat, points in enumerate((25_000, 17_000, 35_000, 0)):
            model.set_sticks(seat, points)
        with _open(model.serve_pty()) as port:
            modelled = _run_script(port, lambda ms: time.sleep(ms / 1000))
    assert len(firmware) == len(modelled)
    for sent, a, b in zip(SCRIPT, firmware, modelled, strict=False):
        assert a == b, f"after {sent!r}: firmware {a!r}, model {b!r}"
    assert "WDFIRED" in " ".join(firmware)              # the script did reach the watchdog


def test_bridge_builds_and_runs_on_a_mega_2560(firmware_built):
    done = subprocess.run(["make", "-C", str(FIRMWARE / "bridge"), "MCU=atmega2560"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    chip = Chip(FIRMWARE / "bridge" / "bridge-atmega2560.elf", "atmega2560")
    try:
        board = BridgeBoard(chip.path)
        assert board.open()["mcu"] == "atmega2560"
        board.press(3, 40)              # D4 is PG5 on a Mega
        board.close()
        assert [(w.split()[2], w.split()[3]) for w in chip.lines
                if w.startswith("pin ")] == [("PG5", "1"), ("PG5", "0")]
    finally:
        chip.stop()


CHANGED_PRESS_MAX_MS = 4_321


def test_bridge_limit_changed_in_the_table_moves_every_side(firmware_built, tmp_path):
    """The press limit is written once: change it in bridge_protocol.py (a copy) and
    nothing else, and the firmware built from that copy, the Python model and the host's
    board class all take the new limit."""
    source = (ROOT / "tablectl" / "bridge_protocol.py").read_text()
    assert "PRESS_MAX_MS = 10_000" in source
    changed = source.replace("PRESS_MAX_MS = 10_000", f"PRESS_MAX_MS = {CHANGED_PRESS_MAX_MS}")
    (tmp_path / "tablectl").mkdir()
    (tmp_path / "tablectl" / "bridge_protocol.py").write_text(changed)
    shutil.copytree(FIRMWARE / "bridge", tmp_path / "firmware" / "bridge",
                    ignore=shutil.ignore_patterns("*.elf", "*.hex", ".flags-*"))
    (tmp_path / "firmware" / "bridge" / "bridge_protocol.h").unlink()
    built = subprocess.run(["make", "-C", str(tmp_path / "firmware" / "bridge")],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    chip = Chip(tmp_path / "firmware" / "bridge" / "bridge-atmega328p.elf")
    try:
        with _open(chip.path) as port:
            over = _talk(port, framed(f"1 PRESS 1 {CHANGED_PRESS_MAX_MS + 1}"))
            at = _talk(port, framed(f"2 PRESS 1 {CHANGED_PRESS_MAX_MS}"))
            _talk(port, framed("3 RELEASE"))
    finally:
        chip.stop()
    assert f"RANGE a press lasts 1 to {CHANGED_PRESS_MAX_MS} ms" in over, over
    assert at.startswith("OK 2 PRESS"), at
    # the model and the board class read the same (changed) module in a process of their own
    probe = (
        "import tablectl.bridge_protocol as p\n"
        f"assert p.PRESS_MAX_MS == {CHANGED_PRESS_MAX_MS}\n"
        "from hardware_sim.bridge_model import BridgeModel\n"
        "from tablectl.drivers.boards import BoardError\n"
        "from tablectl.drivers.bridge_board import BridgeBoard\n"
        "with BridgeModel() as model:\n"
        "    board = BridgeBoard(model.serve_pty())\n"
        "    board.open()\n"
        "    try:\n"
        f"        board.press(1, {CHANGED_PRESS_MAX_MS + 1})\n"
        "    except BoardError as e:\n"
        "        print('board', e.code, e.values['most'])\n"
        "    board.close()\n"
        "    from tablectl.bridge_protocol import framed\n"
        f"    print('model', model.handle(framed('9 PRESS 1 {CHANGED_PRESS_MAX_MS + 1}')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    # the changed module is put in place of the project's own before anything imports it
    shim = tmp_path / "sitecustomize.py"
    shim.write_text(
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('tablectl.bridge_protocol', "
        f"{str(tmp_path / 'tablectl' / 'bridge_protocol.py')!r})\n"
        "import tablectl\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['tablectl.bridge_protocol'] = module\n"
        "spec.loader.exec_module(module)\n")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    ran = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert f"board bridge_bad_ms {CHANGED_PRESS_MAX_MS}" in ran.stdout, ran.stdout
    assert f"RANGE a press lasts 1 to {CHANGED_PRESS_MAX_MS} ms" in ran.stdout, ran.stdout
