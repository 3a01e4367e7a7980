"""docs/protocol.md section 6: a table that is booting NAKs every frame BUSY. A host that
says HELLO then is told the table is starting up, in words, and connects once it is
ready; the daemon's manager goes on (it does not stop with a traceback)."""

import time

import pytest

import hardware_sim
from hardware_sim import protocol_sim
from tablectl import protocol as P
from tablectl.drivers.base import LinkDown
from tablectl.drivers.jpex import Link
from tablectl.settings import LinkSettings

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
        assert hello.boot_id == 1 and hello.last_cmd == P.NO_CMD   # started booted: 0
        assert ln.transact(P.Status()).ok
    finally:
        ln.close()
        protocol_sim.close_all()
