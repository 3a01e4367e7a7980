"""docs/protocol.md section 10, "Break": the counted stack is drawn LAST. Drawing starts
with the stack after it (away from the wall's right end, on into the next wall in draw
order), and the counted stack is the last stack of the draw order: the dead wall's end."""

import pytest
import serial

import hardware_sim
from tablectl import protocol
from tablectl.protocol import Result
from tests.support.sim import Host

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.mark.parametrize("mode", [1, 4, 8])
def test_the_counted_stack_is_drawn_last(mode):
    hardware_sim.register()
    port = serial.serial_for_url(f"sim://?time_scale=0.001&boot_s=0.05&mode={mode}",
                                 timeout=0.02)
    try:
        host, sim = Host(port), port.simulator
        sim.sticks_for(mode)
        for _ in range(8):                          # several dice totals, wraps among them
            r = host.request(protocol.StartCycle())
            assert r.ok, r
            host.wait_event(protocol.CycleFinished, 5, lambda e, n=r.cycle_no: e.cycle_no == n)
            seat = sim.state().dealer if mode != 8 else 2
            assert host.request(protocol.RollDice(seat)).ok
            assert host.request(protocol.Deal()).result == Result.OK
            d = sim.dealt()
            ring = [t for k in range(len(d.walls))
                    for t in d.walls[(d.break_wall - k) % len(d.walls)]]
            counted = 2 * (d.break_stack - 1)        # the counted stack's top tile in ring
            assert tuple(ring[counted:counted + 2]) == d.live_wall[-2:]       # drawn last
            first = (counted + 2) % len(ring)         # the stack after it is drawn first
            assert tuple((ring + ring)[first:first + 4]) == d.hands[d.dealer][:4]
    finally:
        port.close()
