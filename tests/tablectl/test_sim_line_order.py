"""The simulated line never reorders bytes, even when the table's event loop runs late.

The exactly-once guarantee of the link (docs/protocol.md section 3) rests on the line
keeping order: the table remembers one command, so a retransmission of a dice roll that
reached the table after the host's next command would look new and roll the dice a
second time. A delay fault holds chunks back on a timer; a chunk that arrives while an
earlier one is still held must wait behind it, also when the earlier one's time has come
but the loop has not run it yet (on a busy machine the loop wakes late, and it handles
the bytes it read before the timers that fell due)."""

from __future__ import annotations

import threading
import time

import pytest
import serial

import hardware_sim
from tablectl import protocol
from tests.support.sim import Host

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.fixture
def table():
    hardware_sim.register()
    port = serial.serial_for_url("sim://?time_scale=0.001&boot_s=0.05", timeout=0.02)
    try:
        yield Host(port), port.simulator
    finally:
        port.close()


def _late_loop(sim, held_s: float, *sends) -> None:
    """Run ``sends`` in the table's loop one after the other with the loop busy for
    ``held_s`` after the first (the table's thread got no CPU meanwhile), so the timer of
    a chunk held back by the first send falls due before the next send's bytes are seen."""
    inside, go = threading.Event(), threading.Event()

    def hold() -> None:
        inside.set()
        go.wait(10)

    sim.loop.call_soon_threadsafe(hold)
    assert inside.wait(10)
    first, *rest = sends
    first()
    sim.loop.call_soon_threadsafe(time.sleep, held_s)
    for send in rest:
        send()
    go.set()


def _wait_executed(sim, count: int) -> list[str]:
    deadline = time.monotonic() + 10
    while len(sim.executed_names()) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)                     # anything still held back has landed by now
    return sim.executed_names()


def test_a_held_retransmission_runs_before_the_next_command_when_the_loop_is_late(table):
    host, sim = table
    r = host.request(protocol.StartCycle())
    assert r.ok
    host.wait_event(protocol.CycleFinished, 5, lambda e: e.cycle_no == r.cycle_no)
    dice = protocol.encode_frame(protocol.RollDice(0).to_frame(20))
    status = protocol.encode_frame(protocol.Status().to_frame(21))
    roll = host.request(protocol.RollDice(0), seq=20)          # the dice are rolled, once
    assert roll.ok
    before = len(sim.executed_names())
    sim.faults.once("delay", "rx", delay=0.05)          # the retransmission is held back
    # the host wrote the retransmission, then (its reply in) the next command
    _late_loop(sim, 0.15, lambda: host.port.write(dice), lambda: host.port.write(status))
    ran = _wait_executed(sim, before + 1)[before:]
    assert ran == ["STATUS"], f"the table ran {ran} after one roll"
    assert sim.link_counters()["duplicates"] == 1
    assert sim.executed_names().count("ROLL_DICE") == 1


def test_a_held_reply_goes_out_before_a_later_one_when_the_loop_is_late(table):
    host, sim = table
    sim.faults.once("delay", "tx", delay=0.05, what="reply")     # STATUS's reply is held
    status = protocol.encode_frame(protocol.Status().to_frame(30))
    points = protocol.encode_frame(protocol.ReadPoints().to_frame(31))
    _late_loop(sim, 0.15, lambda: host.port.write(status), lambda: host.port.write(points))
    decoder, frames = protocol.FrameDecoder(), []
    deadline = time.monotonic() + 5
    while len(frames) < 2 and time.monotonic() < deadline:
        frames += decoder.feed(host.port.read(max(1, host.port.in_waiting)))
    assert [(f.seq, f.cmd) for f in frames] == [(30, protocol.StatusReply.CMD),
                                                (31, protocol.ReadPointsReply.CMD)]
