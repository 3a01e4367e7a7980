"""The opposite of a command run twice: a new command taken for a retransmission.

The table remembers its last command by (SEQ, TYPE, payload). If the host's counter
comes round to that SEQ (256 commands the table never got, the link kept up) a new
command with the same type and payload would be answered from memory and not run: the
dice reported rolled, with the old numbers. After its HELLO the host knows the
remembered SEQ and skips it."""

from __future__ import annotations

import pytest

import hardware_sim
from hardware_sim import protocol_sim
from tablectl import protocol
from tablectl.drivers.jpex import Link, LinkTimeout
from tablectl.settings import LinkSettings

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_a_new_command_on_the_remembered_seq_after_a_wrap_still_runs(tmp_path):
    hardware_sim.register()
    # every answer the test waits for gets 2 s (a busy machine); only the reads the table
    # never hears time out fast
    ln = Link("sim://wrap?time_scale=0.001", settings=LinkSettings(timeout=2.0, retries=0),
              lock_dir=str(tmp_path))
    try:
        ln.connect()
        sim = protocol_sim.get("wrap")
        assert ln.transact(protocol.StartCycle()).ok
        sim.wait_for(lambda st: st.cycle.name == "WALLS_UP")
        remembered = ln.next_seq()
        first = ln.transact(protocol.RollDice(0))
        assert first.ok
        ln.settings = LinkSettings(timeout=0.01, retries=0)
        sim.faults.set(drop=1.0, direction="rx")        # the table hears nothing
        for _ in range(255):                            # 255 reads lost: the counter wraps
            with pytest.raises(LinkTimeout):
                ln.transact(protocol.Status())
        sim.faults.clear()
        assert ln.next_seq() == remembered
        ln.settings = LinkSettings(timeout=2.0, retries=0)
        hello = ln.connect()                             # same boot: our own counter
        assert (hello.last_seq, hello.last_cmd) == (remembered, protocol.RollDice.CMD)
        again = ln.transact(protocol.RollDice(0))
        assert sim.executed_names().count("ROLL_DICE") == 2, "the second roll never ran"
        assert again.ok and tuple(again.dice) == sim.state().dice
    finally:
        ln.close()
        protocol_sim.close_all()
