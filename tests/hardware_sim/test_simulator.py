"""The simulated AMOS JP-EX table: tile sets, cycle, dice, deal, duplicate
detection, NAKs and every injected fault, over the in-process ``sim://`` link."""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest
import serial

import hardware_sim
from hardware_sim import Simulator, tiles
from tablectl import protocol
from tablectl.modes import MODES
from tablectl.protocol import CycleState, Result
from tests.support.sim import Host, NoReply

pytestmark = pytest.mark.usefixtures("no_leaks")

GAME_MODES = [m for m in MODES if not m.is_check]
FAST = "time_scale=0.001&boot_s=0.05"


@pytest.fixture
def table(request):
    """(host, simulator) on a fresh in-process table; ``request.param`` = URL options."""
    hardware_sim.register()
    opts = getattr(request, "param", "")
    port = serial.serial_for_url(f"sim://?{FAST}&{opts}", timeout=0.02)
    try:
        yield Host(port), port.simulator
    finally:
        port.close()


def run_cycle(host: Host, timeout: float = 5.0) -> protocol.CycleFinished:
    r = host.request(protocol.StartCycle())
    assert r.result == Result.OK, r
    return host.wait_event(protocol.CycleFinished, timeout, lambda e: e.cycle_no == r.cycle_no)


# ---------------------------------------------------------------- tile sets (pure)


def test_tile_sets_compositions():
    k = Counter
    s136 = tiles.tile_set(1)
    assert len(s136) == 136 and k(s136)[34] == k(s136)[35] == k(s136)[36] == 1
    assert k(s136)[4] == 3 and k(s136)[27] == 4
    assert k(tiles.tile_set(2)) - k(s136) == k(range(37, 41))
    assert k(tiles.tile_set(3)) - k(s136) == k(range(37, 45))
    s108 = tiles.tile_set(4)
    assert not any(1 <= t <= 7 or t == 34 for t in s108)        # no 2m-8m, no red 5m
    assert k(s108)[0] == k(s108)[8] == 4 and k(s108)[35] == k(s108)[36] == 1
    assert k(tiles.tile_set(5)) - k(s108) == k(range(37, 41))
    assert k(tiles.tile_set(6)) - k(s108) == k(range(37, 45))
    s100 = tiles.tile_set(7)
    assert not any(18 <= t <= 26 or t in (36,) or t >= 37 for t in s100)   # no bamboos, no flowers
    assert k(s136) - k(s100) == k([t for t in s136 if 18 <= t <= 26 or t == 36])
    s64 = tiles.tile_set(8)
    assert set(s64) == set(range(0, 9)) | {34} | set(range(27, 34))
    assert k(s100) - k(s64) == k([t for t in s100 if 9 <= t <= 17 or t == 35])
    assert tiles.tile_set(0) == []
    for m in GAME_MODES:
        assert len(tiles.tile_set(m)) == m.tiles


@pytest.mark.parametrize("mode", GAME_MODES, ids=lambda m: m.name)
def test_walls_break_and_deal_for_every_dice_and_dealer(mode):
    rng = random.Random(mode.number)
    full = tiles.tile_set(mode)
    sizes = tiles.wall_sizes(mode)
    assert sum(sizes) * 2 == mode.tiles and max(sizes) - min(sizes) <= 1
    for dealer in mode.seats:
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                walls = tiles.build_walls(full, mode, rng)
                assert [len(w) for w in walls] == [2 * n for n in sizes]
                bw, bs = tiles.break_point(dealer, (d1, d2), mode)
                # the break is on a real stack of a wall (a 64-tile wall has 8 stacks)
                assert 1 <= bs <= sizes[bw]
                counted = (tiles.wall_of_seat(dealer, mode) + d1 + d2 - 1) % mode.walls
                assert bw == counted if d1 + d2 <= sizes[counted] else \
                    bw == (counted - 1) % mode.walls
                order = tiles.draw_order(walls, bw, bs)
                assert sorted(order) == full
                hands, live = tiles.deal(order, dealer, mode)
                for seat in range(4):
                    want = 14 if seat == dealer else 13 if seat in mode.seats else 0
                    assert len(hands[seat]) == want
                dealt = sorted(t for h in hands for t in h)
                assert dealt == sorted(order[:len(order) - len(live)])
                assert sorted([t for h in hands for t in h] + list(live)) == full


def test_draw_order_starts_at_the_break_and_goes_clockwise():
    mode = MODES[1]
    walls = tuple(tuple(range(w * 34, w * 34 + 34)) for w in range(4))   # labelled positions
    # dealer East (wall 0), dice 5: 5th wall counter-clockwise from East is East again
    bw, bs = tiles.break_point(0, (2, 3), mode)
    assert (bw, bs) == (0, 5)
    order = tiles.draw_order(walls, bw, bs)
    assert order[:2] == (10, 11)                 # stack 5 of East's wall (top, bottom)
    assert order[24:26] == (102, 103)            # then North's wall (wall 3) from its start
    assert order[-10:] == tuple(range(0, 10))    # the 5 stacks right of the break end the order


# ---------------------------------------------------------------- every mode over the link


@pytest.mark.parametrize("table", ["auto_sticks=1"], indirect=True)
@pytest.mark.parametrize("mode", GAME_MODES, ids=lambda m: m.name)
def test_every_mode_select_cycle_deal(table, mode):
    host, sim = table
    hello = host.request(protocol.Hello())
    assert hello.auto_deal and hello.ic_point_sticks and hello.model == "AMOS JP-EX COLOR"
    r = host.request(protocol.SelectMode(mode.number))
    assert r.result == Result.OK, r
    fin = run_cycle(host)
    assert fin.ok and fin.mode == mode.number and fin.tiles_counted == mode.tiles
    st = host.request(protocol.Status()).state
    assert st.mode == mode.number and st.cycle == CycleState.WALLS_UP and st.pending_mode is None
    dealer = mode.seats[-1]
    roll = host.request(protocol.RollDice(dealer))
    assert roll.ok and all(1 <= d <= 6 for d in roll.dice)
    deal = host.request(protocol.Deal())
    assert deal.result == Result.OK and deal.dealer == dealer and deal.dice == roll.dice
    want = tuple(14 if s == dealer else 13 if s in mode.seats else 0 for s in range(4))
    assert deal.hand_sizes == want
    rep = host.request(protocol.DealtReport())
    full = tiles.tile_set(mode)
    assert rep.ok and rep.dealt and rep.mode == mode.number and rep.cycle_no == fin.cycle_no
    assert sorted(rep.all_tiles) == full                         # exactly the mode's set
    assert tuple(len(h) for h in rep.hands) == want
    assert sorted([t for h in rep.hands for t in h] + list(rep.live_wall)) == full
    assert (rep.break_wall, rep.break_stack) == tiles.break_point(dealer, roll.dice, mode)
    assert host.request(protocol.Status()).state.cycle == CycleState.DEALT
    assert host.request(protocol.Deal()).result == Result.NOT_READY       # one deal a cycle


@pytest.mark.parametrize("table", ["autodeal=0&auto_sticks=1&mode=sanma"], indirect=True)
def test_table_without_auto_deal_answers_walls_only(table):
    host, sim = table
    hello = host.request(protocol.Hello())
    assert not hello.auto_deal and hello.state.mode == 4
    run_cycle(host)
    deal = host.request(protocol.Deal())                  # no roll first: the table rolls itself
    assert deal.result == Result.WALLS_ONLY and deal.ok and deal.walls_only
    assert deal.hand_sizes == (0, 0, 0, 0) and all(deal.dice)
    assert deal.walls_only
    host.wait_event(protocol.DiceRolled)
    rep = host.request(protocol.DealtReport())
    assert not rep.dealt and rep.hands == ((), (), (), ())
    assert sorted(rep.live_wall) == tiles.tile_set(4) == sorted(rep.all_tiles)


def test_tiles_are_shuffled_differently_each_cycle(table):
    host, sim = table
    walls = set()
    for _ in range(3):
        run_cycle(host)
        walls.add(host.request(protocol.DealtReport()).walls)
    assert len(walls) == 3


def test_check_mode_counts_without_walls(table):
    host, sim = table
    assert host.request(protocol.SelectMode(0)).ok
    fin = run_cycle(host)
    assert fin.ok and fin.mode == 0 and fin.tiles_counted == 136
    st = host.request(protocol.Status()).state
    assert st.mode == 0 and st.cycle == CycleState.IDLE
    assert host.request(protocol.Deal()).result == Result.NOT_READY
    assert host.request(protocol.RollDice(3)).ok                  # dice test works in check mode
    # no walls raised: nothing on the table to count
    tc = host.request(protocol.TileCheck())
    assert tc.result == Result.NOT_READY and tc.expected == 136


# ---------------------------------------------------------------- mode changes and sticks


def test_mode_change_applies_from_the_next_cycle_and_is_refused_mid_cycle(table):
    host, sim = table
    sim.sticks_for("sanma")                     # staff change the sticks first
    r = host.request(protocol.SelectMode(4))
    assert r.ok and r.mode == 1 and r.pending_mode == 4
    st = host.request(protocol.Status()).state
    assert (st.mode, st.pending_mode) == (1, 4)
    start = host.request(protocol.StartCycle())
    assert start.ok and start.mode == 4
    changed = host.wait_event(protocol.ModeChanged)
    assert (changed.old, changed.new) == (1, 4)
    refused = host.request(protocol.SelectMode(1))
    assert refused.result == Result.MODE_CHANGE_REFUSED
    assert host.request(protocol.StartCycle()).result == Result.BUSY
    host.wait_event(protocol.CycleFinished)
    assert host.request(protocol.Status()).state.mode == 4
    assert sorted(host.request(protocol.DealtReport()).all_tiles) == tiles.tile_set(4)
    # selecting the current mode cancels a pending change
    sim.sticks_for("yonma")
    assert host.request(protocol.SelectMode(1)).pending_mode == 1
    assert host.request(protocol.SelectMode(4)).result == Result.POINT_STICKS_MISMATCH
    sim.sticks_for("sanma")
    assert host.request(protocol.SelectMode(4)).pending_mode is None


def test_point_sticks_must_match_the_mode(table):
    host, sim = table
    r = host.request(protocol.SelectMode(4))              # four drawers full, sanma wants three
    assert r.result == Result.POINT_STICKS_MISMATCH and r.seat_mask == 0b1000
    sim.set_points(3, None)
    ev = host.wait_event(protocol.PointsChanged)
    assert ev.seat == 3 and not ev.points.present
    assert host.request(protocol.SelectMode(8)).seat_mask == 0b0010   # 64-tile: East and West only
    assert host.request(protocol.SelectMode(4)).ok
    # now the current mode (yonma) cannot run a cycle with North empty... but the pending
    # sanma can: the cycle checks the mode it will run
    assert host.request(protocol.StartCycle()).ok
    host.wait_event(protocol.CycleFinished)
    assert host.request(protocol.SelectMode(0)).ok        # check mode needs no sticks
    assert host.request(protocol.SelectMode(99)).result == Result.UNKNOWN_MODE


def test_read_points(table):
    host, sim = table
    sim.set_points(0, 31200)
    sim.set_points(1, 18800)
    sim.set_points(2, -4000)
    sim.set_points(3, None)
    r = host.request(protocol.ReadPoints())
    assert r.ok
    assert [(s.present, s.total) for s in r.seats] == [
        (True, 31200), (True, 18800), (True, -4000), (False, 0)]
    assert host.request(protocol.Status()).state.seats == r.seats


# ---------------------------------------------------------------- duplicates, NAKs


def test_retransmitted_command_is_not_executed_twice(table):
    host, sim = table
    first = host.request(protocol.StartCycle(), seq=10)
    # same seq, same frame: a retransmission
    again = host.request(protocol.StartCycle(), seq=10)
    assert first == again and first.ok
    assert sim.executed_names().count("START_CYCLE") == 1
    assert sim.link_counters()["duplicates"] == 1
    # HELLO in between does not push the command out of the table's memory
    hello = host.request(protocol.Hello(), seq=11)
    assert (hello.last_seq, hello.last_cmd) == (10, protocol.StartCycle.CMD)
    assert host.request(protocol.StartCycle(), seq=10) == first
    assert sim.executed_names().count("START_CYCLE") == 1
    # the next seq is a new command
    host.wait_event(protocol.CycleFinished)
    assert host.request(protocol.StartCycle(), seq=12).cycle_no == first.cycle_no + 1


def test_lost_reply_is_answered_again_without_running_twice(table):
    host, sim = table
    sim.faults.once("drop", "tx", what="reply")       # the reply to the next command is lost
    r = host.request(protocol.RollDice(0))                   # walls not up: NOT_READY, but once
    assert r.result == Result.NOT_READY
    assert host.attempts == 2
    run_cycle(host)
    sim.faults.once("drop", "tx", count=2, what="reply")   # the reply, then the retransmission's
    roll = host.request(protocol.RollDice(1))
    assert roll.ok and host.attempts == 2 + 1 + 3
    assert sim.executed_names().count("ROLL_DICE") == 2
    assert sim.link_counters()["duplicates"] == 3
    assert host.wait_event(protocol.DiceRolled).dice == roll.dice   # events follow the reply


def test_delayed_bytes_stay_ahead_of_later_ones_when_the_delay_is_switched_off(table):
    """A line never reorders: a command still held back by a delay runs before the next
    one, even when the delay ends in between. A late copy decoded after newer frames
    would look new to the table's one-frame memory and run a second time."""
    host, sim = table
    run_cycle(host)                                   # walls up: a dice roll runs
    before = len(sim.executed_names())
    received = sim.call(lambda: sim.stats["bytes_in"])
    sim.faults.set(delay=0.3, direction="rx")
    dice = protocol.encode_frame(protocol.RollDice(0).to_frame(20))
    host.port.write(dice)
    host.port.write(dice)                             # and its retransmission, both in flight
    deadline = time.monotonic() + 5                   # the simulator has them, held back
    while sim.call(lambda: sim.stats["bytes_in"]) < received + 2 * len(dice):
        assert time.monotonic() < deadline, "the simulator never received the two frames"
        time.sleep(0.005)
    sim.faults.clear()
    # the next command, at once
    host.port.write(protocol.encode_frame(protocol.Status().to_frame(21)))
    deadline = time.monotonic() + 5
    while len(sim.executed_names()) < before + 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.4)                                   # anything still in flight has landed
    assert sim.executed_names()[before:] == ["ROLL_DICE", "STATUS"]
    assert sim.link_counters()["duplicates"] == 1


def test_corrupted_command_is_nakked_and_retransmitted(table):
    host, sim = table
    sim.faults.once("corrupt", "rx")
    r = host.request(protocol.SelectMode(2))
    assert r.ok and r.pending_mode == 2
    assert [n.reason for n in host.naks] == [protocol.NakReason.BAD_CRC]
    assert sim.executed_names() == ["SELECT_MODE"]


def test_unknown_command_and_bad_payload_are_nakked(table):
    host, sim = table
    port = host.port
    port.write(protocol.encode_frame(protocol.Frame(1, 0x3E, b"")))
    port.write(protocol.encode_frame(protocol.Frame(2, protocol.RollDice.CMD, b"\x07")))
    port.write(protocol.encode_frame(protocol.Frame(3, protocol.Status.CMD, b"extra")))
    # not a command
    port.write(protocol.encode_frame(protocol.Frame(4, protocol.StatusReply.CMD, b"")))
    got = {}
    while len(got) < 4:
        for f in host._read_frames():
            got[f.seq] = protocol.message_from_frame(f)
    assert got[1] == protocol.Nak(protocol.NakReason.UNKNOWN_COMMAND, 0x3E)
    assert got[2] == protocol.Nak(protocol.NakReason.BAD_PAYLOAD, protocol.RollDice.CMD)
    assert got[3] == protocol.Nak(protocol.NakReason.BAD_PAYLOAD, protocol.Status.CMD)
    assert got[4].reason == protocol.NakReason.UNKNOWN_COMMAND
    assert sim.executed_names() == []


def test_roll_dice_from_a_seat_that_does_not_play(table):
    host, sim = table
    sim.sticks_for("sanma")
    host.request(protocol.SelectMode(4))
    run_cycle(host)
    assert host.request(protocol.RollDice(3)).result == Result.BAD_SEAT
    assert host.request(protocol.RollDice(2)).ok


def test_events_are_numbered(table):
    host, sim = table
    frames = []
    host.port.write(protocol.encode_frame(protocol.StartCycle().to_frame(1)))
    while len([f for f in frames if protocol.is_event(f.cmd)]) < 2:
        frames += host._read_frames()
    ev = [f for f in frames if protocol.is_event(f.cmd)]
    assert [f.seq for f in ev] == [0, 1]
    assert [f.cmd for f in ev] == [protocol.CycleStarted.CMD, protocol.CycleFinished.CMD]


# ---------------------------------------------------------------- physical faults


def test_lid_open_refuses_and_stops_a_cycle(table):
    host, sim = table
    sim.open_lid()
    assert isinstance(host.wait_event(protocol.LidOpened), protocol.LidOpened)
    assert host.wait_event(protocol.ErrorRaised).code == Result.LID_OPEN
    assert host.request(protocol.StartCycle()).result == Result.LID_OPEN
    sim.close_lid()
    assert host.wait_event(protocol.ErrorCleared).code == Result.LID_OPEN
    assert host.request(protocol.Status()).state.errors == ()


@pytest.mark.parametrize("table", ["cycle_s=2"], indirect=True)   # 2 ms
def test_lid_opened_mid_cycle(table):
    host, sim = table
    sim.config.time_scale = 1.0              # a 2 s cycle: open the lid inside it
    r = host.request(protocol.StartCycle())
    assert r.ok and r.duration_ms == 2000
    assert host.request(protocol.Status()).state.cycle_remaining_ms > 1000
    sim.open_lid()
    fin = host.wait_event(protocol.CycleFinished)
    assert fin.result == Result.LID_OPEN
    st = host.request(protocol.Status()).state
    assert st.cycle == CycleState.FAILED and st.lid_open and Result.LID_OPEN in st.errors


def test_jammed_motor(table):
    host, sim = table
    sim.jam()
    fin = run_cycle(host)
    assert fin.result == Result.MOTOR_JAM
    assert host.request(protocol.Status()).state.errors == (Result.MOTOR_JAM,)
    assert host.request(protocol.StartCycle()).result == Result.MOTOR_JAM
    c = host.request(protocol.ClearErrors())
    assert c.cleared == () and c.remaining == (Result.MOTOR_JAM,)   # still jammed
    sim.clear_jam()
    c = host.request(protocol.ClearErrors())
    assert c.cleared == (Result.MOTOR_JAM,) and c.remaining == ()
    assert host.request(protocol.Status()).state.cycle == CycleState.IDLE
    assert run_cycle(host).ok


def test_missing_tile(table):
    host, sim = table
    tile = sim.remove_tile(5)                    # 6m out of the set inside
    assert tile == 5
    fin = run_cycle(host)
    assert fin.result == Result.TILE_COUNT_WRONG and fin.tiles_counted == 135
    assert host.wait_event(protocol.ErrorRaised).detail == 135
    assert host.request(protocol.Deal()).result == Result.NOT_READY
    assert host.request(protocol.TileCheck()).result == Result.NOT_READY   # no walls up
    sim.restore_tiles()
    assert run_cycle(host).ok
    assert host.request(protocol.TileCheck()).ok
    assert host.wait_event(protocol.ErrorCleared).code == Result.TILE_COUNT_WRONG


def test_cycle_overrun(table):
    host, sim = table
    sim.overrun()
    r = host.request(protocol.StartCycle())
    fin = host.wait_event(protocol.CycleFinished)
    assert fin.result == Result.CYCLE_OVERRUN and fin.cycle_no == r.cycle_no
    assert run_cycle(host).ok                    # the next one is fine and clears it
    assert Result.CYCLE_OVERRUN not in host.request(protocol.Status()).state.errors


@pytest.mark.parametrize("table", ["cycle_s=2&boot_s=100"], indirect=True)
def test_power_cut_mid_cycle_and_restore(table):
    host, sim = table
    sim.sticks_for("sanma")
    host.request(protocol.SelectMode(4))
    sim.config.time_scale = 1.0                  # 2 s cycle, 100 ms boot below
    sim.config.boot_seconds = 0.1
    before = host.request(protocol.Hello())
    start = host.request(protocol.StartCycle())
    assert start.ok
    sim.power_cut()
    host.retries = 0
    with pytest.raises(NoReply):
        host.request(protocol.Status())                 # a dead table says nothing
    sim.power_restore()
    host.retries, host.timeout = 20, 0.05
    hello = host.request(protocol.Hello())              # NAK BUSY while booting, then answers
    assert any(n.reason == protocol.NakReason.BUSY for n in host.naks)
    assert hello.last_cmd == protocol.NO_CMD            # the duplicate memory was in RAM
    on = host.wait_event(protocol.PowerOn)
    assert on.boot_id == before.boot_id + 1 == hello.boot_id
    assert on.state.cycle == CycleState.IDLE
    st = host.request(protocol.Status())
    assert st.state.mode == 4 and st.state.cycle == CycleState.IDLE   # mode kept, cycle lost
    sim.config.time_scale = 0.001
    assert run_cycle(host).ok


@pytest.mark.parametrize("table", ["unplug=hangup"], indirect=True)
def test_unplug_hangs_up_and_plug_back_keeps_the_table(table):
    host, sim = table
    run_cycle(host)
    sim.unplug()
    with pytest.raises(serial.SerialException):
        host.request(protocol.Status())
    url = "sim://plugtest?" + FAST
    named = serial.serial_for_url(url, timeout=0.02)
    other = named.simulator
    named.close()
    other.unplug()
    with pytest.raises(serial.SerialException):
        serial.serial_for_url(url, timeout=0.02)          # the adapter is gone
    other.plug()
    again = serial.serial_for_url(url, timeout=0.02)
    try:
        assert again.simulator is other
        assert Host(again).request(protocol.Hello()).ok
    finally:
        again.close()
    assert hardware_sim.get("plugtest") is other


def test_silent_unplug(table):
    host, sim = table
    sim.unplug("silent")
    host.retries = 1
    with pytest.raises(NoReply):
        host.request(protocol.Status())
    sim.plug()
    host.retries = 3
    assert host.request(protocol.Status()).ok


NOISY = "drop=0.005&corrupt=0.005&duplicate=0.005&seed=7"


@pytest.mark.parametrize("table", [NOISY], indirect=True)
def test_noisy_line_every_command_completes_exactly_once(table):
    host, sim = table
    host.retries = 12
    host.timeout = 0.08
    seqs = []
    for i in range(40):
        r = host.request(protocol.RollDice(i % 4) if i % 2 else protocol.Status())
        assert r.ok or r.result == Result.NOT_READY
        seqs.append(host.seq)
    counters = sim.link_counters()
    for fault in ("fault_dropped", "fault_corrupted", "fault_duplicated"):
        assert counters[fault], fault
    executed = [(seq, name) for seq, name, _ in sim.call(lambda: list(sim.executed))]
    assert len(executed) == len(set(executed)) == 40       # each command ran exactly once


@pytest.mark.parametrize("table", ["delay_ms=40&direction=tx"], indirect=True)
def test_delayed_bytes(table):
    import time
    host, sim = table
    t0 = time.monotonic()
    assert host.request(protocol.Status()).ok
    assert time.monotonic() - t0 >= 0.04


def test_simulator_api_without_transport():
    with Simulator(mode="sanma", time_scale=0.001) as sim:
        assert sim.state().mode == 4
        assert sim.state().seats[3] == protocol.SeatPoints(False, 0)
        assert sim.dealt().result == Result.NOT_READY
        with pytest.raises(ValueError):
            sim.set_points(4, 1000)
    assert not sim.running
    with pytest.raises(RuntimeError):
        sim.state()


def test_bad_sim_url_options():
    hardware_sim.register()
    with pytest.raises(serial.SerialException, match="unknown option"):
        serial.serial_for_url("sim://?bogus=1")
    with pytest.raises(serial.SerialException):
        serial.serial_for_url("sim://?autodeal=maybe")


# ---------------------------------------------------------------- docs/protocol.md gaps


def test_tile_check_counts_the_set_on_the_table_not_the_last_count(table):
    """docs/protocol.md section 10: TILE_CHECK counts the set the last good cycle raised
    (walls, and hands dealt from them); a tile taken off the table shows as missing."""
    host, sim = table
    assert host.request(protocol.TileCheck()).result == Result.NOT_READY       # nothing raised yet
    run_cycle(host)
    tc = host.request(protocol.TileCheck())
    assert tc.ok and tc.counted == tc.expected == 136
    # hands are on the table
    assert host.request(protocol.Deal()).ok
    assert sim.remove_tile(27, "table") == 27                          # a player pockets 1z
    tc = host.request(protocol.TileCheck())
    assert tc.result == Result.TILE_COUNT_WRONG and tc.counted == 135 and tc.missing == (27,)
    sim.restore_tiles()
    assert host.request(protocol.TileCheck()).ok


def test_tile_check_after_a_jam_does_not_say_ok(table):
    host, sim = table
    run_cycle(host)
    sim.jam()
    assert run_cycle(host).result == Result.MOTOR_JAM
    tc = host.request(protocol.TileCheck())
    assert tc.result == Result.NOT_READY and tc.counted == 0          # no walls stood up


@pytest.mark.parametrize("table", ["time_scale=0.05"], indirect=True)
def test_clear_errors_during_a_cycle_is_busy_and_clears_nothing(table):
    host, sim = table
    sim.set_points(0, None)                                  # an error to keep: none
    assert host.request(protocol.StartCycle()).result == Result.POINT_STICKS_MISMATCH
    sim.sticks_for(1)
    assert host.request(protocol.StartCycle()).ok
    c = host.request(protocol.ClearErrors())
    assert c.result == Result.BUSY and c.cleared == ()
    sim.open_lid()                                           # stops the cycle: LID_OPEN
    host.wait_event(protocol.CycleFinished)
    sim.close_lid()
    assert host.request(protocol.ClearErrors()).ok


def test_deal_when_the_last_dealer_does_not_play_is_refused_not_dealt_from_east(table):
    """North dealt in four-player; the table switched to three-player: DEAL without a roll
    must not deal silently from East (docs/protocol.md section 10)."""
    host, sim = table
    run_cycle(host)
    assert host.request(protocol.RollDice(3)).ok                        # North is the dealer
    sim.sticks_for(4)
    assert host.request(protocol.SelectMode(4)).ok
    run_cycle(host)
    assert host.request(protocol.Deal()).result == Result.BAD_SEAT
    assert host.request(protocol.RollDice(3)).result == Result.BAD_SEAT
    assert host.request(protocol.RollDice(1)).ok
    deal = host.request(protocol.Deal())
    assert deal.ok and deal.dealer == 1 and deal.hand_sizes == (13, 14, 13, 0)


def test_break_on_an_8_stack_wall_carries_into_the_next_wall():
    mode = MODES[8]                              # 64 tiles: four walls of 8 stacks
    assert tiles.break_point(0, (5, 5), mode) == (0, 2)   # wall 1 counted 10: 8 + 2 on the next
    assert tiles.break_point(0, (6, 6), mode) == (2, 4)
    walls = tuple(tuple(range(w * 16, w * 16 + 16)) for w in range(4))
    order = tiles.draw_order(walls, *tiles.break_point(0, (5, 5), mode))
    assert sorted(order) == list(range(64)) and order[:2] == (4, 5)


def test_a_half_frame_is_dropped_after_the_inter_byte_timeout_without_more_bytes():
    """The table gives up a stale half frame when the line stays quiet (not only when
    more bytes arrive): the next whole command is answered at once."""
    with Simulator(time_scale=0.001) as sim:
        port = sim.connect()
        try:
            half = protocol.encode_frame(protocol.Status().to_frame(1))[:5]
            port.send(half)
            time.sleep(protocol.INTER_BYTE_TIMEOUT_S * 3)
            # the quiet line's timer gives the half frame up; on a busy machine it may
            # run late, so wait for it (no byte is sent meanwhile)
            deadline = time.monotonic() + 5
            while sim.call(lambda: sim.decoder.pending):
                assert time.monotonic() < deadline, "the half frame was never given up"
                time.sleep(0.01)
            port.send(protocol.encode_frame(protocol.Status().to_frame(2)))
            d = protocol.FrameDecoder()
            deadline = time.monotonic() + 2
            frames = []
            while not frames and time.monotonic() < deadline:
                frames = d.feed(port.recv(256, 0.05))
            assert frames and frames[0].seq == 2 and frames[0].cmd == protocol.StatusReply.CMD
        finally:
            port.close()
