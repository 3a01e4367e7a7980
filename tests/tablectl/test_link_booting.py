"""docs/protocol.md section 6: a table that is booting NAKs every frame BUSY. A host that
says HELLO then is told the table is starting up, in words, and connects once it is
ready; the daemon's manager goes on (it does not stop with a traceback)."""

import time

import pytest

import hardware_sim
from hardware_sim import protocol_sim
from tablectl import protocol, store
from tablectl.drivers.base import LinkDown
from tablectl.drivers.jpex import Link
from tablectl.settings import LinkSettings
from tests.support.tablectl import DaemonProcess, sim_on_pty, write_config

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_hello_to_a_booting_table_is_link_down_booting_then_connects(tmp_path):
    hardware_sim.register()
    ln = Link("sim://booting?time_scale=1&boot_s=2.5", settings=LinkSettings(timeout=0.1),
              lock_dir=str(tmp_path))
    try:
        ln.connect()
        sim = protocol_sim.get("booting")
        ln.close()
        sim.power_cut()
        sim.power_restore()                           # boots for 2.5 s, NAKing BUSY
        with pytest.raises(LinkDown) as e:
            ln.connect()
        assert e.value.code == "booting" and e.value.retry
        assert "the table is starting up (it answered HELLO busy 4 times)" in e.value.text("en")
        assert "卓が起動中です" in e.value.text("ja")
        assert not ln.connected
        deadline = time.monotonic() + 10
        while True:                                   # what the daemon does: HELLO again
            try:
                hello = ln.connect()
                break
            except LinkDown as again:
                assert again.code == "booting" and time.monotonic() < deadline
                time.sleep(0.2)
        assert hello.boot_id == 1 and hello.last_cmd == protocol.NO_CMD   # started booted: 0
        assert ln.transact(protocol.Status()).ok
    finally:
        ln.close()
        protocol_sim.close_all()


@pytest.mark.slow
def test_a_daemon_started_while_its_table_boots_waits_for_it(tmp_path):
    """The club's power comes back: box and table start together. The table's state says
    it is starting up, never that its manager crashed, and it is driven once booted."""
    # the table boots until the test has seen the daemon say so (a daemon slow to start on
    # a busy machine must not find the boot already over), then finishes booting
    sim, path = sim_on_pty(tmp_path, "t1", mode=1, time_scale=1, boot_seconds=600)
    sim.power_cut()
    sim.power_restore()
    d = DaemonProcess(write_config(tmp_path, {"t1": path}))
    try:
        d.start()
        seen = set()
        booted = False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            t1 = store.get_table(d.db, "t1")
            seen.add(t1["last_error"])
            if t1["connected"]:
                break
            if "booting" in seen and not booted:
                sim.call(sim._booted, sim.model.boot_id)
                booted = True
            time.sleep(0.05)
        assert t1["connected"] == 1, seen
        assert "booting" in seen and "crashed" not in seen, seen
        assert "Traceback" not in d.stderr()
        row = store.wait_command(d.db, store.request_command(d.db, "t1", "points"), 20)
        assert row["status"] == "done", row
    finally:
        d.stop()
        sim.stop()
