"""The bridge's RECORD of its sense inputs, for learning a table's sequence by hand:
the firmware built from source under simavr (the harness's ``switch n 0|1`` and
``sense 0|1`` controls drive the optocouplers' pins) and the Python model, given the
same script and compared answer by answer. Times are the chip's own (simulated)."""

from __future__ import annotations

import re
import time

import pytest

from hardware_sim.bridge_model import BridgeModel
from tablectl.bridge_protocol import RECORD_MAX, SENSE_DEBOUNCE_MS
from tablectl.drivers.bridge_board import BridgeBoard
from tablectl.learn import LearnError, demonstration, learn

from .test_bridge_firmware import (  # noqa: F401  (chip, firmware_built: fixtures)
    FIRMWARE,
    Chip,
    _open,
    _talk,
    chip,
    firmware_built,
)


def _switch_times(sim: Chip, n: int) -> list[tuple[int, int]]:
    """(level, simulated µs) of each ``switch n`` control the harness carried out."""
    return [(int(w[2]), int(w[3])) for w in (line.split() for line in sim.lines)
            if w[0] == "switch" and w[1] == str(n)]


def test_learn_record_times_each_edge_by_the_chips_clock(chip):  # noqa: F811
    board = BridgeBoard(chip.path)
    board.open()
    board.record_start()
    chip.sleep_sim(50)
    chip.control("switch 1 1")
    chip.sleep_sim(300)
    chip.control("switch 1 0")
    chip.sleep_sim(40)
    chip.control("sense 0")                 # the table's power goes off ...
    chip.sleep_sim(40)
    chip.control("sense 1")                 # ... and on
    chip.sleep_sim(40)
    status = board.record_status()
    assert status["on"] and status["edges"] == 4 and not status["overflow"]
    rec = board.record_read()
    board.close()
    assert [(e.source, e.on) for e in rec.edges] == [("1", True), ("1", False),
                                                      ("P", False), ("P", True)]
    (_, down), (_, up) = _switch_times(chip, 1)
    # the press as the chip timed it: within a tick or two of what the harness did
    assert abs((rec.edges[1].ms - rec.edges[0].ms) - (up - down) / 1000) <= 2
    assert rec.edges[0].ms < rec.edges[1].ms < rec.edges[2].ms < rec.edges[3].ms
    assert rec.clock_ms >= rec.edges[3].ms


def test_learn_record_ignores_a_bounce_shorter_than_the_debounce(chip):  # noqa: F811
    with _open(chip.path) as port:
        assert _talk(port, "RECORD START") == "OK - RECORD ON EDGES 0 OVERFLOW 0 CLOCK 0"
        # in one write: the harness reads a byte per 200 µs slice of the chip's time
        chip.control("switch 2 1\nswitch 2 0")
        chip.wait_for(lambda s: s.startswith("switch 2 0 "))
        chip.sleep_sim(3 * SENSE_DEBOUNCE_MS)
        assert _talk(port, "RECORD READ 0").startswith("OK - RECORD ON EDGES 0 OVERFLOW 0")
    (_, t1), (_, t2) = _switch_times(chip, 2)
    assert t2 - t1 < SENSE_DEBOUNCE_MS * 1000       # it really was a bounce


def test_learn_record_overflow_is_flagged_and_refused_by_learning(chip):  # noqa: F811
    board = BridgeBoard(chip.path)
    board.open()
    board.record_start()
    board.close()
    presses = RECORD_MAX // 2 + 2
    for _ in range(presses):
        chip.control("switch 3 1")
        chip.sleep_sim(2 * SENSE_DEBOUNCE_MS)
        chip.control("switch 3 0")
        chip.sleep_sim(2 * SENSE_DEBOUNCE_MS)
    board = BridgeBoard(chip.path)
    board.open()
    rec = board.record_read()
    status = board.record_stop()
    board.close()
    assert status == {"on": False, "edges": RECORD_MAX, "overflow": True,
                      "clock_ms": status["clock_ms"]}
    assert rec.overflow and len(rec.edges) == RECORD_MAX       # the first 64 kept
    assert all(e.source == "3" for e in rec.edges)
    with pytest.raises(LearnError) as e:
        demonstration(rec, {"up": 1, "down": 2, "dice_left": 3, "dice_right": 4})
    assert e.value.code == "learn_overflow"
    assert "nothing was written" in e.value.text("en")


# one script for both: lines, sense edges, waits (ms of the chip's or the model's time)
SCRIPT = [
    "RECORD", "RECORD STOP", "RECORD READ 0", ("edge", 1, True), ("sleep", 40),
    "RECORD START", ("sleep", 30), ("edge", 1, False), ("sleep", 40), ("edge", "P", False),
    ("sleep", 40), ("edge", 4, True), ("sleep", 40), ("edge", 4, False), ("sleep", 40),
    ("edge", "P", True), ("sleep", 40), ("edge", 2, True), ("sleep", 40), ("edge", 2, False),
    ("sleep", 40), ("edge", 3, True), ("sleep", 40), ("edge", 3, False), ("sleep", 40),
    "RECORD", "RECORD READ 0", "RECORD READ 5", "RECORD READ 8", "RECORD READ 64",
    "RECORD READ 65", "RECORD READ x", "RECORD READ", "RECORD GO", "record start extra",
    "RECORD STOP", "RECORD READ 0", "FLY",
]


def _same(answer: str) -> str:
    """An answer with its times taken out (the two clocks are not the same clock)."""
    answer = re.sub(r"CLOCK \d+", "CLOCK #", answer)
    return re.sub(r"\b([P1-4][+-])\d+", r"\1#", answer)


def _run(port, edge, sleep) -> list[str]:
    answers = []
    for step in SCRIPT:
        if isinstance(step, tuple):
            if step[0] == "sleep":
                sleep(step[1])
            else:
                edge(step[1], step[2])
        else:
            answers.append(_talk(port, step))
    return answers


def test_learn_record_model_answers_as_the_firmware(chip):  # noqa: F811
    def chip_edge(src, on):
        if src == "P":
            chip.control(f"sense {int(on)}")
            chip.wait_for(lambda s, w=f"sense {int(on)}": s == w)
        else:
            chip.control(f"switch {src} {int(on)}")
            chip.wait_for(lambda s, w=f"switch {src} {int(on)} ": s.startswith(w))

    with _open(chip.path) as port:
        firmware = _run(port, chip_edge, chip.sleep_sim)
    with BridgeModel(mcu="atmega328p") as model:
        with _open(model.serve_pty()) as port:
            modelled = _run(port, lambda src, on: model.sense_edge(src, on),
                            lambda ms: time.sleep(ms / 1000))
    assert len(firmware) == len(modelled)
    for a, b in zip(firmware, modelled, strict=True):
        assert _same(a) == _same(b), f"firmware {a!r}, model {b!r}"
    edges = next(a for a in firmware if "FROM 0 " in a)
    assert re.findall(r"[P1-4][+-]", edges) == ["1-", "P-", "4+", "4-", "P+"]
    assert "OVERFLOW 0" in firmware[-3]


def test_learn_record_runs_on_a_mega_2560(firmware_built):  # noqa: F811
    import subprocess

    done = subprocess.run(["make", "-C", str(FIRMWARE / "bridge"), "MCU=atmega2560"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    mega = Chip(FIRMWARE / "bridge" / "bridge-atmega2560.elf", "atmega2560")
    try:
        board = BridgeBoard(mega.path)
        board.open()
        board.record_start()
        mega.control("switch 4 1")          # A5 = PF5 on a Mega
        mega.sleep_sim(50)
        mega.control("switch 4 0")
        mega.sleep_sim(50)
        rec = board.record_read()
        board.close()
        assert [(e.source, e.on) for e in rec.edges] == [("4", True), ("4", False)]
    finally:
        mega.stop()


def test_learn_from_a_hand_made_change_recorded_by_the_firmware(chip):  # noqa: F811
    """Staff's hands on the switches, as the chip's pins see them: the sequence learned
    from the firmware's recording has the hold and the steps the hands made, in the
    chip's own time."""
    board = BridgeBoard(chip.path)
    board.open()
    board.record_start()
    chip.control("sense 0")                 # the table switched off ...
    chip.sleep_sim(100)
    chip.control("sense 1")                 # ... and on; it boots
    chip.sleep_sim(500)
    chip.control("switch 1 1")              # hold up until the selection shows
    chip.sleep_sim(600)
    chip.control("switch 1 0")
    for _ in range(3):
        chip.sleep_sim(150)
        chip.control("switch 1 1")
        chip.sleep_sim(80)
        chip.control("switch 1 0")
    chip.sleep_sim(150)
    chip.control("switch 3 1\nswitch 4 1")  # both dice switches held: the reset
    chip.sleep_sim(400)
    chip.control("switch 3 0\nswitch 4 0")
    chip.sleep_sim(50)
    rec = board.record_read()
    board.close()
    learned = learn(rec, {"up": 1, "down": 2, "dice_left": 3, "dice_right": 4})
    times = _switch_times(chip, 1)
    hold_us = times[1][1] - times[0][1]
    assert learned.hold_switch == "up" and abs(learned.hold_ms - hold_us / 1000) <= 10
    assert learned.seen is not None and learned.seen.net_steps == 3
    presses = [(times[i + 1][1] - times[i][1]) / 1000 for i in range(2, 8, 2)]
    # the learned press is the median of staff's step presses (the harness's timing of
    # each under load may differ by some milliseconds)
    assert abs(learned.press_ms - sorted(presses)[1]) <= 10, (learned.press_ms, presses)
    (_, left_on), (_, left_off) = _switch_times(chip, 3)
    assert abs(learned.reset_ms - (left_off - left_on) / 1000) <= 10
    assert learned.reset_switches == ("dice_left", "dice_right")
    assert learned.boot_ms >= learned.seen.boot_ms + 500


class _Clock:
    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t


def test_learn_record_model_keeps_64_edges_flags_the_rest_and_drops_bounces():
    clock = _Clock()
    model = BridgeModel(clock=clock)
    assert model.handle("RECORD START") == "OK - RECORD ON EDGES 0 OVERFLOW 0 CLOCK 0"
    clock.t += 0.1
    model.sense_edge(2, True)
    clock.t += (SENSE_DEBOUNCE_MS - 3) / 1000       # a bounce: back before it settled
    model.sense_edge(2, False)
    clock.t += 0.1
    assert model.handle("RECORD") == "OK - RECORD ON EDGES 0 OVERFLOW 0 CLOCK 207"
    for _ in range(RECORD_MAX // 2 + 1):
        model.sense_edge(1, True)
        clock.t += 0.05
        model.sense_edge(1, False)
        clock.t += 0.05
    model.tick()
    assert model.handle("RECORD").startswith(f"OK - RECORD ON EDGES {RECORD_MAX} OVERFLOW 1 ")
    assert model.handle("RECORD READ 0") == ("OK - RECORD ON EDGES 64 OVERFLOW 1 FROM 0 "
                                             "1+207 1-257 1+307 1-357 1+407")
    assert model.handle("RECORD READ 63").endswith(" FROM 63 1-3357")
    with pytest.raises(ValueError):
        model.sense_edge(5, True)               # the bridge has four switch senses
