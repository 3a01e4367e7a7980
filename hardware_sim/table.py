"""The AMOS JP-EX table's behaviour: modes, cycle, dice, deal, point sticks,
errors, and the physical faults (jam, missing tile, lid, overrun, power).

:class:`TableModel` knows nothing of bytes: it executes protocol *messages*
(``tablectl.protocol``) and emits protocol *events*. It is driven from one
thread (the simulator's loop) and uses a scheduler for time, so the same code
runs the 70 s cycle on a club floor and a 70 ms one in tests
(``time_scale``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Callable

from tablectl import protocol
from tablectl.modes import MODES, SEATS, Mode, mode_by_name
from tablectl.protocol import CycleState, Result, SeatPoints

from . import tiles


@dataclass
class TableConfig:
    """How the simulated table is built and how fast it runs."""

    model: str = "AMOS JP-EX COLOR"
    firmware: str = "SIM-1.0"
    auto_deal: bool = True            # the auto-deal model raises hands; the other walls only
    ic_point_sticks: bool = True
    mode: int = 1                     # the mode stored in the table at first power-on
    time_scale: float = 1.0           # multiply every mechanical duration (0.001: ms)
    cycle_seconds: float = 70.0       # one shuffle-and-build cycle
    overrun_factor: float = 1.5       # a cycle this much longer than nominal is stopped
    boot_seconds: float = 2.0         # power-on to ready
    auto_sticks: bool = False         # SELECT_MODE puts the right sticks in by itself
    protocol_version: int = protocol.PROTOCOL_VERSION   # HELLO's answer (another: a newer table)

    def seconds(self, nominal: float) -> float:
        return nominal * self.time_scale


def default_total(mode: Mode) -> int:
    """Starting points in each drawer: 35,000 for three players, else 25,000."""
    return mode.start_points or 25000


class TableModel:
    """State machine of one table. Call everything from the scheduler's thread."""

    def __init__(self, config: TableConfig, schedule: Callable, emit: Callable,
                 rng=None):
        """``schedule(delay_s, fn)`` returns a handle with ``cancel()``;
        ``emit(event)`` sends an unsolicited event."""
        self.cfg = config
        self._schedule = schedule
        self.emit = emit
        self.rng = rng or secrets.SystemRandom()
        m = mode_by_name(config.mode)
        # non-volatile: survives a power cut
        self.mode = m.number
        self.pending_mode: int | None = None
        self.boot_id = 0
        # physical world: survives a power cut
        self.loaded_mode = m.number if m.tiles else 1
        self.sets = [tiles.tile_set(self.loaded_mode), tiles.tile_set(self.loaded_mode)]
        self.machine = 0                 # index of the set inside the machine (next up)
        self.lid_open = False
        self.jammed = False
        self.overruns_pending = 0
        seats = m.seats if m.seats else MODES[1].seats
        self.seats = [SeatPoints(True, default_total(m)) if s in seats else SeatPoints()
                      for s in range(SEATS)]
        self.powered = True
        self._timers: list = []
        self._reset_ram()

    # ------------------------------------------------------------------ power

    def _reset_ram(self) -> None:
        self.cycle = CycleState.IDLE
        self.cycle_no = 0
        self.cycle_ends_at: float | None = None
        self.dice: tuple[int, int] | None = None
        self.dealer = 0
        self.errors: dict[int, int] = {}
        self.last: dict | None = None       # what the last finished cycle built and dealt
        if self.lid_open:
            self.errors[Result.LID_OPEN] = 0

    def power_off(self) -> None:
        """The power is cut: everything in RAM is lost; a running cycle stops."""
        for h in self._timers:
            h.cancel()
        self._timers.clear()
        self.powered = False

    def power_on(self) -> None:
        """Power is back (the device layer sends POWER_ON when booted)."""
        self.powered = True
        self.boot_id = (self.boot_id + 1) & 0xFFFF
        self._reset_ram()

    # ------------------------------------------------------------------ state

    def capabilities(self) -> protocol.Capability:
        caps = protocol.Capability(0)
        if self.cfg.auto_deal:
            caps |= protocol.Capability.AUTO_DEAL
        if self.cfg.ic_point_sticks:
            caps |= protocol.Capability.IC_POINT_STICKS
        return caps

    def state(self, now: float | None = None) -> protocol.TableState:
        remaining = 0
        if self.cycle == CycleState.CYCLING and self.cycle_ends_at is not None and now is not None:
            remaining = max(0, int((self.cycle_ends_at - now) * 1000))
        return protocol.TableState(
            mode=self.mode, pending_mode=self.pending_mode, cycle=self.cycle,
            lid_open=self.lid_open, dice=self.dice, dealer=self.dealer,
            cycle_no=self.cycle_no, cycle_remaining_ms=remaining,
            errors=tuple(sorted(self.errors)), seats=tuple(self.seats))

    def power_on_event(self, now: float | None = None) -> protocol.PowerOn:
        return protocol.PowerOn(self.cfg.protocol_version, self.cfg.model, self.cfg.firmware,
                         self.capabilities(), self.boot_id, self.state(now))

    def stick_mismatch(self, mode: Mode) -> int:
        """Bit mask of seats whose sticks are not what ``mode`` needs (0 = fine)."""
        if mode.is_check:
            return 0
        mask = 0
        for s in range(SEATS):
            if self.seats[s].present != (s in mode.seats):
                mask |= 1 << s
        return mask

    # ------------------------------------------------------------------ errors

    def _raise(self, code: Result, detail: int = 0) -> None:
        if code not in self.errors:
            self.errors[code] = detail
            self.emit(protocol.ErrorRaised(int(code), detail))

    def _clear(self, code: Result) -> None:
        if code in self.errors:
            del self.errors[code]
            self.emit(protocol.ErrorCleared(int(code)))

    def _cause_present(self, code: int) -> bool:
        if code == Result.LID_OPEN:
            return self.lid_open
        if code == Result.MOTOR_JAM:
            return self.jammed
        if code == Result.TILE_COUNT_WRONG:
            expected = tiles.tile_set(self.loaded_mode)
            return any(sorted(s) != expected for s in self.sets)
        return False

    # ------------------------------------------------------------------ physical world

    def set_points(self, seat: int, total: int | None) -> None:
        """Put sticks totalling ``total`` in ``seat``'s drawer (None: take them out)."""
        if not 0 <= seat < SEATS:
            raise ValueError(f"seat {seat} is not 0..3")
        new = SeatPoints(False, 0) if total is None else SeatPoints(True, int(total))
        if new != self.seats[seat]:
            self.seats[seat] = new
            if self.powered:
                self.emit(protocol.PointsChanged(seat, new))

    def sticks_for(self, mode: Mode) -> None:
        """Staff put the right sticks in for ``mode``: its starting total in each playing
        seat's drawer (whatever was there before), the other drawers emptied."""
        if mode.is_check:
            return
        for s in range(SEATS):
            self.set_points(s, default_total(mode) if s in mode.seats else None)

    def open_lid(self, now: float) -> None:
        if self._move_lid(True):
            self._raise(Result.LID_OPEN)
            if self.cycle == CycleState.CYCLING:
                self._fail_cycle(Result.LID_OPEN)

    def close_lid(self) -> None:
        if self._move_lid(False):
            self._clear(Result.LID_OPEN)

    def _move_lid(self, to_open: bool) -> bool:
        """Open or close the lid; whether that was a move a powered table reports (its
        event sent)."""
        if self.lid_open == to_open:
            return False
        self.lid_open = to_open
        if not self.powered:
            return False
        self.emit(protocol.LidOpened() if to_open else protocol.LidClosed())
        return True

    def jam(self) -> None:
        """A tile jams a motor: the running (or next) cycle stops with MOTOR_JAM."""
        self.jammed = True
        if self.powered and self.cycle == CycleState.CYCLING:
            self._cancel_timers()
            self._fail_cycle(Result.MOTOR_JAM)

    def clear_jam(self) -> None:
        """Staff removed the stuck tile (the error stays until CLEAR_ERRORS)."""
        self.jammed = False

    def overrun(self, count: int = 1) -> None:
        """The next ``count`` cycles run too long and are stopped (CYCLE_OVERRUN)."""
        self.overruns_pending += count

    def remove_tile(self, tile: int | None = None, which: str = "machine") -> int:
        """Take one tile out of a set (``which``: "machine" = the next set up,
        "table" = the other). Returns the tile removed."""
        idx = self.machine if which == "machine" else 1 - self.machine
        s = self.sets[idx]
        if not s:
            raise ValueError("the set is empty")
        if tile is None:
            tile = s[self.rng.randrange(len(s))]
        if tile not in s:
            raise ValueError(f"tile {tile} is not in the set")
        s.remove(tile)
        return tile

    def restore_tiles(self) -> None:
        """Staff made both sets complete again."""
        self.sets = [tiles.tile_set(self.loaded_mode), tiles.tile_set(self.loaded_mode)]

    # ------------------------------------------------------------------ timers

    def _later(self, delay: float, fn) -> None:
        h = self._schedule(delay, fn)
        self._timers.append(h)

    def _cancel_timers(self) -> None:
        for h in self._timers:
            h.cancel()
        self._timers.clear()

    # ------------------------------------------------------------------ commands

    def execute(self, msg: protocol.Command, now: float) -> protocol.Reply:
        handler = getattr(self, "_cmd_" + msg.NAME.lower())
        return handler(msg, now)

    def _cmd_hello(self, msg: protocol.Hello, now: float) -> protocol.HelloReply:
        # last_seq / last_cmd are filled in by the device (it owns duplicate detection)
        return protocol.HelloReply(Result.OK, self.cfg.protocol_version, self.cfg.model,
                            self.cfg.firmware,
                            self.capabilities(), self.boot_id, 0, protocol.NO_CMD, self.state(now))

    def _cmd_status(self, msg, now) -> protocol.StatusReply:
        return protocol.StatusReply(Result.OK, self.state(now))

    def _cmd_select_mode(self, msg: protocol.SelectMode, now) -> protocol.SelectModeReply:
        def reply(res, mask=0):
            return protocol.SelectModeReply(int(res), msg.mode, self.mode, self.pending_mode, mask)

        if msg.mode >= len(MODES):
            return reply(Result.UNKNOWN_MODE)
        if self.cycle == CycleState.CYCLING:
            return reply(Result.MODE_CHANGE_REFUSED)
        mode = MODES[msg.mode]
        if self.cfg.auto_sticks:
            self.sticks_for(mode)
        mask = self.stick_mismatch(mode)
        if mask:
            return reply(Result.POINT_STICKS_MISMATCH, mask)
        self.pending_mode = None if msg.mode == self.mode else msg.mode
        return reply(Result.OK)

    def _cmd_start_cycle(self, msg, now) -> protocol.StartCycleReply:
        def refuse(res):
            return protocol.StartCycleReply(int(res), self.mode, self.cycle_no, 0)

        if self.lid_open:
            return refuse(Result.LID_OPEN)
        if self.cycle == CycleState.CYCLING:
            return refuse(Result.BUSY)
        if Result.MOTOR_JAM in self.errors:
            return refuse(Result.MOTOR_JAM)
        target = MODES[self.pending_mode if self.pending_mode is not None else self.mode]
        if self.stick_mismatch(target):
            return refuse(Result.POINT_STICKS_MISMATCH)
        if self.pending_mode is not None:
            old, self.mode, self.pending_mode = self.mode, self.pending_mode, None
            if target.tiles and target.number != self.loaded_mode:
                # staff load the sets the new mode needs when they change it
                self.loaded_mode = target.number
                self.restore_tiles()
            self.emit(protocol.ModeChanged(old, self.mode))
        nominal = self.cfg.seconds(self.cfg.cycle_seconds)
        self.cycle_no = (self.cycle_no + 1) & 0xFFFFFFFF
        self.cycle = CycleState.CYCLING
        self.cycle_ends_at = now + nominal
        self.dice = None
        no = self.cycle_no
        if self.jammed:
            self._later(nominal / 2, lambda: self._fail_cycle(Result.MOTOR_JAM, no))
        elif self.overruns_pending:
            self.overruns_pending -= 1
            self.cycle_ends_at = now + nominal * self.cfg.overrun_factor
            self._later(nominal * self.cfg.overrun_factor,
                        lambda: self._fail_cycle(Result.CYCLE_OVERRUN, no))
        else:
            self._later(nominal, lambda: self._finish_cycle(no))
        dur = int(nominal * 1000)
        self.emit(protocol.CycleStarted(self.mode, no, dur))
        return protocol.StartCycleReply(Result.OK, self.mode, no, dur)

    def _fail_cycle(self, code: Result, no: int | None = None) -> None:
        if self.cycle != CycleState.CYCLING or (no is not None and no != self.cycle_no):
            return
        self._cancel_timers()
        self.cycle = CycleState.FAILED
        self.cycle_ends_at = None
        self._raise(code)
        self.emit(protocol.CycleFinished(int(code), self.mode, self.cycle_no, 0))

    def _finish_cycle(self, no: int) -> None:
        if self.cycle != CycleState.CYCLING or no != self.cycle_no:
            return
        self._timers.clear()
        self.cycle_ends_at = None
        mode = MODES[self.mode]
        rising = self.sets[self.machine]
        counted = len(rising)
        if mode.is_check:
            # check mode: the set goes round the machine and is counted; no walls
            self.cycle = CycleState.IDLE
            expected = tiles.tile_set(self.loaded_mode)
            res = Result.OK if sorted(rising) == expected else Result.TILE_COUNT_WRONG
            if res != Result.OK:
                self._raise(res, counted)
            self.emit(protocol.CycleFinished(int(res), self.mode, no, counted))
            return
        if sorted(rising) != tiles.tile_set(mode):
            self.cycle = CycleState.FAILED
            self._raise(Result.TILE_COUNT_WRONG, counted)
            self.emit(protocol.CycleFinished(int(Result.TILE_COUNT_WRONG), self.mode, no, counted))
            return
        walls = tiles.build_walls(rising, mode, self.rng)
        self.machine = 1 - self.machine      # the set played until now goes in
        self.cycle = CycleState.WALLS_UP
        self.last = {"cycle_no": no, "mode": mode.number, "walls": walls, "dealer": self.dealer,
                     "dice": None, "break": (0, 0), "dealt": False,
                     "hands": ((), (), (), ()), "live": ()}
        self._clear(Result.TILE_COUNT_WRONG)
        self._clear(Result.CYCLE_OVERRUN)
        self.emit(protocol.CycleFinished(int(Result.OK), self.mode, no, counted))

    def _roll(self, seat: int) -> tuple[int, int]:
        self.dice = (self.rng.randint(1, 6), self.rng.randint(1, 6))
        self.dealer = seat
        self.emit(protocol.DiceRolled(seat, self.dice))
        if self.last is not None and self.cycle in (CycleState.WALLS_UP, CycleState.DICE_ROLLED):
            self.last["dice"] = self.dice
            self.last["dealer"] = seat
        return self.dice

    def _cmd_roll_dice(self, msg: protocol.RollDice, now) -> protocol.RollDiceReply:
        mode = MODES[self.mode]
        if self.cycle == CycleState.CYCLING:
            return protocol.RollDiceReply(Result.BUSY, msg.seat, (0, 0))
        if mode.is_check:
            return protocol.RollDiceReply(Result.OK, msg.seat, self._roll(msg.seat))
        if msg.seat not in mode.seats:
            return protocol.RollDiceReply(Result.BAD_SEAT, msg.seat, (0, 0))
        if self.cycle not in (CycleState.WALLS_UP, CycleState.DICE_ROLLED):
            return protocol.RollDiceReply(Result.NOT_READY, msg.seat, (0, 0))
        dice = self._roll(msg.seat)
        self.cycle = CycleState.DICE_ROLLED
        return protocol.RollDiceReply(Result.OK, msg.seat, dice)

    def _cmd_deal(self, msg, now) -> protocol.DealReply:
        mode = MODES[self.mode]

        def refuse(res):
            return protocol.DealReply(int(res), self.dealer, self.dice or (0, 0), (0, 0, 0, 0))

        if self.cycle == CycleState.CYCLING:
            return refuse(Result.BUSY)
        if mode.is_check or self.last is None or self.cycle not in (
                CycleState.WALLS_UP, CycleState.DICE_ROLLED):
            return refuse(Result.NOT_READY)
        if self.cycle == CycleState.WALLS_UP:
            if self.dealer not in mode.seats:
                # the last dealer does not play in this mode: a playing seat must roll first
                return refuse(Result.BAD_SEAT)
            self._roll(self.dealer)
        dice = self.dice
        assert dice is not None               # rolled above, or by the ROLL_DICE before it
        bw, bs = tiles.break_point(self.dealer, dice, mode)
        order = tiles.draw_order(self.last["walls"], bw, bs)
        self.last.update(dice=dice, dealer=self.dealer, **{"break": (bw, bs)})
        self.cycle = CycleState.DEALT
        if self.cfg.auto_deal:
            hands, live = tiles.deal(order, self.dealer, mode)
            self.last.update(dealt=True, hands=hands, live=live)
            return protocol.DealReply(Result.OK, self.dealer, dice, tuple(len(h) for h in hands))
        self.last.update(dealt=False, hands=((), (), (), ()), live=order)
        return protocol.DealReply(Result.WALLS_ONLY, self.dealer, dice, (0, 0, 0, 0))

    def _cmd_read_points(self, msg, now) -> protocol.ReadPointsReply:
        return protocol.ReadPointsReply(Result.OK, tuple(self.seats))

    def _cmd_tile_check(self, msg, now) -> protocol.TileCheckReply:
        expected = tiles.tile_set(self.loaded_mode)
        if self.cycle == CycleState.CYCLING:
            return protocol.TileCheckReply(Result.BUSY, self.loaded_mode, len(expected), 0)
        if self.cycle not in (CycleState.WALLS_UP, CycleState.DICE_ROLLED, CycleState.DEALT):
            # no set raised since power-on or the last failed cycle: nothing to count
            return protocol.TileCheckReply(Result.NOT_READY, self.loaded_mode, len(expected), 0)
        counted = self.sets[1 - self.machine]       # the set the last good cycle raised
        missing, extra = tiles.count_diff(counted, expected)
        res = Result.TILE_COUNT_WRONG if (missing or extra) else Result.OK
        return protocol.TileCheckReply(int(res), self.loaded_mode, len(expected), len(counted),
                                missing, extra)

    def _cmd_clear_errors(self, msg, now) -> protocol.ClearErrorsReply:
        if self.cycle == CycleState.CYCLING:
            return protocol.ClearErrorsReply(Result.BUSY, (), tuple(sorted(self.errors)))
        cleared = []
        for code in sorted(self.errors):
            if not self._cause_present(code):
                self._clear(Result(code))
                cleared.append(code)
        if self.cycle == CycleState.FAILED and not self.errors:
            self.cycle = CycleState.IDLE
        return protocol.ClearErrorsReply(Result.OK, tuple(cleared), tuple(sorted(self.errors)))

    def _cmd_dealt_report(self, msg, now) -> protocol.DealtReportReply:
        if self.last is None:
            return protocol.DealtReportReply(Result.NOT_READY)
        d = self.last
        bw, bs = d["break"]
        return protocol.DealtReportReply(
            Result.OK, d["cycle_no"], d["mode"], d["dealer"], d["dice"] or (0, 0), bw, bs,
            d["dealt"], tuple(d["walls"]), tuple(d["hands"]), tuple(d["live"]))
