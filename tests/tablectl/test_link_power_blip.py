"""A power blip between a command and its retransmission (docs/protocol.md section 11).

The table ran a START_CYCLE, its reply was lost, and its power went off and on at once:
it booted again with an empty duplicate memory before the host's retransmission came.
A table that ran that retransmission would start a second cycle for one request. After
a power-on the table runs nothing before a HELLO: the retransmission is refused BUSY,
the host gives the command up as in doubt, and its HELLO then shows the new boot_id (so
the daemon does not repeat it: docs/protocol.md, "Host recovery", rule 3)."""

from __future__ import annotations

import pytest

import hardware_sim
from hardware_sim import protocol_sim
from tablectl import protocol, store
from tablectl.drivers.jpex import Link, LinkTimeout
from tablectl.settings import LinkSettings
from tests.support.tablectl import DaemonProcess, ask, sim_on_pty, wait_until, write_config

pytestmark = pytest.mark.usefixtures("no_leaks")


def _blip_after(sim, name: str) -> None:
    """Cut and restore the table's power right after it ran its next ``name`` (its reply
    is already on its way: drop it with a one-shot fault to lose it)."""
    def on_change(what: str) -> None:
        if what == name:
            sim.on_change = None
            sim.power_cut()             # in the table's own thread: at once
            sim.power_restore()

    sim.on_change = on_change


def test_a_retransmission_after_a_power_blip_does_not_run_again(tmp_path):
    hardware_sim.register()
    # a 1 ms boot: the table is up again long before the host's 1 s retransmission
    ln = Link("sim://blip?time_scale=0.001&boot_s=1",
              settings=LinkSettings(timeout=1.0, retries=2), lock_dir=str(tmp_path))
    try:
        ln.connect()
        sim = protocol_sim.get("blip")
        sim.sticks_for(1)
        sim.faults.once("drop", "tx", what="reply")
        _blip_after(sim, "START_CYCLE")
        with pytest.raises(LinkTimeout):
            ln.transact(protocol.StartCycle())
        assert sim.executed_names().count("START_CYCLE") == 1
        assert sim.link_counters()["nak_busy"] == 2        # both retransmissions refused
        hello = ln.connect()
        assert hello.boot_id == 1 and hello.last_cmd == protocol.NO_CMD
        assert ln.transact(protocol.Status()).ok                  # greeted: it answers again
    finally:
        ln.close()
        protocol_sim.close_all()


@pytest.mark.slow
def test_the_daemon_does_not_start_a_second_cycle_after_a_power_blip(tmp_path):
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, boot_seconds=1)     # 1 ms boot
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        sim.sticks_for(1)
        sim.faults.once("drop", "tx", what="reply")
        _blip_after(sim, "START_CYCLE")
        row = ask(d.db, "t1", "cycle", timeout=60)
        assert row["status"] == "failed" and row["error_code"] == "in_doubt_power_cut", row
        assert sim.executed_names().count("START_CYCLE") == 1
        assert ask(d.db, "t1", "status", timeout=30)["status"] == "done"   # back in service
    finally:
        d.stop()
        sim.stop()


def _blip_unannounced(sim) -> None:
    """Power off and on, its EV_POWER_ON lost on the line: the daemon learns of the restart
    only when the table refuses its next frame BUSY (it waits for a HELLO)."""
    sim.faults.once("drop", "tx", what="event")
    sim.power_cut()
    sim.power_restore()


def _no_crash(d) -> None:
    assert "Traceback" not in d.stderr() and "manager crashed" not in d.stderr()
    kinds = [(e["kind"], e["code"]) for e in store.recent_events(d.db, "t1", 50)]
    assert ("disconnected", "crashed") not in kinds, kinds


@pytest.mark.slow
def test_a_status_read_refused_busy_says_hello_again(tmp_path):
    sim, path = sim_on_pty(tmp_path, "t1", mode=1)
    d = DaemonProcess(write_config(tmp_path, {"t1": path}, extra="refresh = 0.3"))
    try:
        d.start(wait_tables=("t1",))
        ran = len(sim.executed_names())
        _blip_unannounced(sim)
        # the next state read is refused: the daemon says HELLO and learns the new boot
        wait_until(lambda: "HELLO" in sim.executed_names()[ran:], 30, "HELLO after the restart")
        assert sim.link_counters()["nak_busy"] >= 4         # a whole read was refused
        assert ask(d.db, "t1", "status", timeout=30)["status"] == "done"
        _no_crash(d)
    finally:
        d.stop()
        sim.stop()


@pytest.mark.slow
def test_a_cycle_followed_by_status_reads_refused_busy_fails_as_power_cut(tmp_path):
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=0.02, boot_seconds=1)
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        sim.sticks_for(1)
        cid = store.request_command(d.db, "t1", "cycle")
        sim.wait_for(lambda st: st.cycle.name == "CYCLING", timeout=10)
        _blip_unannounced(sim)
        row = store.wait_command(d.db, cid, 30)
        assert row["status"] == "failed" and row["error_code"] == "power_cut", row
        assert sim.executed_names().count("START_CYCLE") == 1
        _no_crash(d)
    finally:
        d.stop()
        sim.stop()


@pytest.mark.slow
def test_a_command_refused_by_a_table_waiting_for_hello_runs_after_one(tmp_path):
    """The restart went unannounced: the first command is refused BUSY at every try. The
    daemon says HELLO, connects again, and the command (it certainly did not run) runs
    once, instead of being refused round after round until it fails."""
    sim, path = sim_on_pty(tmp_path, "t1", mode=1)
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start(wait_tables=("t1",))
        _blip_unannounced(sim)
        row = ask(d.db, "t1", "points", timeout=60)
        assert row["status"] == "done", row
        assert row["attempts"] == 2, row                  # one round refused, then it ran
        assert sim.executed_names().count("READ_POINTS") == 1
        _no_crash(d)
    finally:
        d.stop()
        sim.stop()
