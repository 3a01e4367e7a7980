"""A Python model of the microcontroller bridge (``docs/bridge.md``) on a pseudo-terminal.

It answers the same lines as the firmware in ``firmware/bridge/`` (a test runs one
script against both and compares the answers line by line), with wall-clock timers
instead of the chip's 1 ms tick: for tests that need speed and for the demo. The
point sticks are set per seat (:meth:`BridgeModel.set_sticks`) and read through the
same divider, converter and integer arithmetic as the firmware. The sense inputs (the
table's power, and the optocouplers across the switches of relays 1..4) change through
:meth:`BridgeModel.sense_edge`, which a simulated table calls for every press, a
hand's or a relay's; ``RECORD`` keeps their edges as the firmware does.

``python -m hardware_sim.bridge_model --pty [--sticks 25000,25000,25000,25000]``
prints the pty's path on the first line, then ``relay CHANNEL closed|open`` lines.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time
from collections.abc import Callable

from tablectl.bridge_protocol import (
    FIRMWARE_VERSION,
    LINE_MAX,
    POWER_HOLD_MS,
    PRESS_MAX_MS,
    PROTOCOL,
    RECORD_MAX,
    RECORD_PER_READ,
    SAMPLES,
    SCRIPT_REPEAT_MAX,
    SCRIPT_STEPS,
    SCRIPT_WAIT_MAX_MS,
    SENSE_DEBOUNCE_MS,
    SENSE_POWER,
    SENSES,
    WD_DEFAULT_MS,
    WD_MAX_MS,
    WD_MIN_MS,
    checksum,
)
from tablectl.bridge_protocol import VERBS as _VERBS

from .pty_device import PtyDevice

VCC_UV = 5_000_000
VERBS = " ".join(_VERBS)


def divider_microvolts(points: int, r_ref_ohms: int = 4700) -> int:
    """The voltage at a seat's ADC input with ``points`` of sticks in the drawer.

    Each stick is a resistor (10,000 pts = 10 kΩ, so a conductance of points/100 µS);
    the sticks in parallel sit between the input and ground, the reference resistor
    between AVcc (5 V) and the input. An empty drawer reads AVcc."""
    if points <= 0:
        return VCC_UV
    r_sticks = 1e8 / points
    return round(VCC_UV * r_sticks / (r_ref_ohms + r_sticks))


def adc_count(microvolts: int) -> int:
    """A 10-bit conversion against AVcc as the datasheet gives it: floor(V * 1024 / AVcc)."""
    return max(0, min(1023, microvolts * 1024 // VCC_UV))


def points_of(total: int, r_ref_ohms: int = 4700) -> int:
    """Points from the sum of 16 readings, rounded to 100: the firmware's arithmetic."""
    k = (100_000_000 + r_ref_ohms // 2) // r_ref_ohms
    if total + 8 >= 1024 * SAMPLES:
        return 0
    pts = (1024 * SAMPLES - total - 8) * k // (total + 8)
    pts = min(pts, 9_999_900)
    return (pts + 50) // 100 * 100


def _number(s: str) -> int:
    return int(s) if s.isascii() and s.isdigit() and len(s) <= 5 else -1


class BridgeModel(PtyDevice):
    """The bridge's state and its answer to each line; ``serve_pty()`` puts it on a pty."""

    THREAD_NAME = "bridge-model"

    def __init__(self, channels: int = 8, seats: int = 4, *, r_ref_ohms: int = 4700,
                 mcu: str = "model", active_low: bool = False,
                 on_change: Callable[[int, bool], None] | None = None,
                 on_power: Callable[[bool], None] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.channels, self.seats = channels, seats
        self.r_ref_ohms, self.mcu, self.active_low = r_ref_ohms, mcu, active_low
        self.on_change = on_change
        self.on_power = on_power
        self.power_off = False          # the outlet's trigger energised: the table off
        self.pw_fired = False
        self.sensed_on: Callable[[], bool] = lambda: not self.power_off
        self.power_changes: list[tuple[bool, float]] = []
        self.clock = clock
        self.deadline: dict[int, float] = {}     # closed channel -> when it opens
        self.wd_ms = WD_DEFAULT_MS
        self.wd_fired = False
        self.last_line = clock()
        self.last_id = 0
        self.last_cmd = ""
        self.last_answer = ""
        self._framed = False
        self._reset_due = False
        self.adc_uv = [VCC_UV] * seats
        self.changes: list[tuple[int, bool, float]] = []
        self._script_reset()
        self.press_id, self.press_channels, self.press_state = 0, frozenset[int](), ""
        self.reset_cause = "POWERON"
        self.resets = 0
        self._lock = threading.RLock()
        # the sense inputs (input "P" the table's power, 1..SENSES the switches): the
        # level the debounce settled on, a change not yet held SENSE_DEBOUNCE_MS, and the
        # recording of settled changes (ms since RECORD START, input, new level)
        self.sense_stable: dict[str | int, bool] = {SENSE_POWER: True,
                                                    **{i: False for i in range(1, SENSES + 1)}}
        self._sense_pending: dict[str | int, tuple[bool, float]] = {}
        self.recording: list[tuple[int, str | int, bool]] = []
        self.rec_on, self.rec_overflow, self.rec_start = False, False, 0.0
        self.rec_clock = 0          # the recording's clock where STOP left it

    def banner(self) -> str:
        """The line the bridge prints at every start."""
        return f"READY {FIRMWARE_VERSION} PROTOCOL {PROTOCOL} RESET {self.reset_cause}"

    def restart(self, cause: str) -> None:
        """The chip starts again: every relay open, every setting as at power-up."""
        with self._lock:
            self._open_all()
            self._power(off=False)
            self.wd_ms, self.wd_fired = WD_DEFAULT_MS, False
            self._script_reset()
            self.last_id, self.last_cmd, self.last_answer = 0, "", ""
            self.press_id, self.press_channels, self.press_state = 0, frozenset(), ""
            self.reset_cause = cause
            self.resets += 1
            self.recording, self.rec_on, self.rec_overflow = [], False, False
            self.rec_clock = 0

    def reboot(self, cause: str) -> None:
        """The chip starts again by itself (a power dip, a reset): it prints its banner."""
        with self._lock:
            self.restart(cause)
            if self._master >= 0:
                os.write(self._master, self.banner().encode("ascii") + b"\r\n")

    # ------------------------------------------------------------ the table's side
    def set_sticks(self, seat: int, points: int) -> None:
        """Put ``points`` of sticks in ``seat``'s drawer (0 = empty)."""
        self.set_adc(seat, divider_microvolts(points, self.r_ref_ohms))

    def set_adc(self, seat: int, microvolts: int) -> None:
        """The voltage on ``seat``'s analog input."""
        with self._lock:
            self.adc_uv[seat] = microvolts

    def closed(self) -> list[int]:
        """The channels closed now (after the timers have run)."""
        with self._lock:
            self.tick()
            return sorted(self.deadline)

    # ------------------------------------------------------------ timers
    def _switch(self, channel: int, closed: bool) -> None:
        self.changes.append((channel, closed, self.clock()))
        if self.on_change is not None:
            self.on_change(channel, closed)

    def _power(self, off: bool) -> None:
        if off != self.power_off:
            self.power_off = off
            self.power_changes.append((not off, self.clock()))
            if self.on_power is not None:
                self.on_power(not off)

    def _open_all(self) -> None:
        for ch in sorted(self.deadline):
            self._switch(ch, False)
        self.deadline.clear()

    def tick(self) -> None:
        """End the presses that are due and run the watchdog (the firmware's 1 ms tick)."""
        with self._lock:
            now = self.clock()
            self._sense_settle(now)
            for ch, at in sorted(self.deadline.items()):
                if now >= at:
                    del self.deadline[ch]
                    self._switch(ch, False)
            if self.deadline and (now - self.last_line) * 1000 >= self.wd_ms:
                self._open_all()
                self.wd_fired = True
                if self.press_state == "RUNNING":
                    self.press_state = "CUT"
            if self.power_off and (now - self.last_line) * 1000 >= POWER_HOLD_MS:
                self._power(off=False)          # never left off by a host that went away
                self.pw_fired = True
            if self.press_state == "RUNNING" and not self.press_channels & set(self.deadline):
                self.press_state = "DONE"
            self._script_tick(now)

    # ------------------------------------------------------------ lines
    def handle(self, raw: str, too_long: bool = False, bad: bool = False,
               lost: bool = False) -> str | None:
        """The answer (without its line end) to one received line; None for an empty one.

        ``bad``: the line held a NUL, control or non-ASCII byte; ``lost``: bytes of it were
        lost on the way in. Either refuses the line whole."""
        with self._lock:
            self.tick()
            self.last_line = self.clock()
            self._framed = False
            if not raw.strip(" \t") and not (too_long or bad or lost):
                return None
            if lost:
                return self._send("ERR - OVERFLOW bytes were lost; wait for each answer. "
                                  "Nothing of the line was done")
            if bad:
                return self._send("ERR - BYTE a NUL, control or non-ASCII byte; nothing of "
                                  "the line was done")
            if too_long:
                return self._send(f"ERR - LONG the line is too long; at most {LINE_MAX} "
                                  "characters")
            at = raw.rfind("*")
            if at >= 0:
                self._framed = True
                raw, given = raw[:at], raw[at + 1:]
                if len(given) != 2 or given.upper() != checksum(raw) \
                        or not all(c in "0123456789abcdefABCDEF" for c in given):
                    return self._send("ERR - CHECKSUM the checksum does not match; nothing "
                                      "was done")
            tokens = [t for t in raw.replace("\t", " ").split(" ") if t]
            if not tokens:
                return self._send("ERR - ARGS a checksum with no command before it")
            if not (tokens[0].isascii() and tokens[0].isdigit()):
                return self._send(self._dispatch(0, tokens))
            ident = _number(tokens[0])
            if not 1 <= ident <= 65535:
                return self._send("ERR - ID an id is a number from 1 to 65535")
            if not self._framed:
                return self._send("ERR - CHECKSUM a numbered line ends with its checksum, "
                                  "as in 7 PING*1D")
            if len(tokens) == 1:
                return self._send(f"ERR {ident} ARGS a command follows the id")
            if ident == self.last_id:
                if raw == self.last_cmd:
                    return self._send(self.last_answer, repeat=ident)
                return self._send(f"ERR {ident} ID this id was used for another command; "
                                  "take a new one")
            answer = self._dispatch(ident, tokens[1:])
            self.last_id, self.last_cmd, self.last_answer = ident, raw, answer
            return self._send(answer)

    def _outcome(self, only: int = 0) -> str:
        if not self.press_state or (only and only != self.press_id):
            return ""
        return f" PRESS {self.press_id} {self.press_state}"

    def _send(self, answer: str, repeat: int = 0) -> str:
        if repeat:
            answer += " REPEAT" + self._outcome(repeat) + self._script_outcome(repeat)
        if self.wd_fired:
            answer += " WDFIRED"
            self.wd_fired = False
        if self.pw_fired:
            answer += " PWRFIRED"
            self.pw_fired = False
        if self._framed:
            answer += "*" + checksum(answer)
        return answer

    def _run(self, ident: int, args: list[str]) -> str:
        who = str(ident) if ident else "-"
        verb = args[0].upper() if args[0].isascii() else args[0]
        ok, n = f"OK {who} ", len(args)

        def err(code: str, words: str) -> str:
            return f"ERR {who} {code} {words}"

        if verb == "PING":
            if n != 1:
                return err("ARGS", "PING takes nothing after it")
            shut = sorted(self.deadline)
            return ok + ("PING CLOSED " + ",".join(map(str, shut)) if shut else "PING OPEN") \
                + (" POWER OFF" if self.power_off else "") + self._outcome() \
                + self._script_outcome()
        if verb in ("PRESS", "HOLD"):
            return self._press(who, verb, args)
        if verb == "RELEASE":
            if n != 1:
                return err("ARGS", "RELEASE takes nothing after it")
            self._open_all()
            if self.press_state == "RUNNING":
                self.press_state = "RELEASED"
            return ok + "RELEASE"
        if verb == "STICKS":
            return err("ARGS", "STICKS takes nothing after it") if n != 1 else ok + self._sticks()
        if verb == "VERSION":
            if n != 1:
                return err("ARGS", "VERSION takes nothing after it")
            level = "LOW" if self.active_low else "HIGH"
            return ok + (f"VERSION {FIRMWARE_VERSION} {self.mcu} PROTOCOL {PROTOCOL} "
                         f"CHANNELS {self.channels} SEATS "
                         f"{self.seats} RREF {self.r_ref_ohms} ACTIVE {level} WATCHDOG "
                         f"{self.wd_ms} LAST {self.last_id}")
        if verb == "WATCHDOG":
            return self._watchdog(who, args)
        if verb == "POWER":
            return self._power_cmd(who, args)
        if verb == "RESET":
            if n != 1:
                return err("ARGS", "RESET takes nothing after it")
            self._reset_due = True
            return ok + "RESET"
        return self._more(who, verb, args)

    def _more(self, who: str, verb: str, args: list[str]) -> str:
        """The verbs after the first ones; UNKNOWN for a word the bridge does not know."""
        if verb == "RECORD":
            return self._record_cmd(who, args)
        return f"ERR {who} UNKNOWN unknown command; the commands are {VERBS}"

    def _press(self, who: str, verb: str, args: list[str]) -> str:
        ok, n = f"OK {who} ", len(args)

        def err(code: str, words: str) -> str:
            return f"ERR {who} {code} {words}"

        hold = verb == "HOLD"
        if n != 3:
            return err("ARGS", "HOLD needs channels and a time in ms, as in HOLD 4,5 3000"
                       if hold else
                       "PRESS needs a channel and a time in ms, as in PRESS 3 300")
        mask = self._channels(args[1])
        if mask is None:
            return err("CHANNEL", f"no such relay; the channels are 1 to {self.channels}")
        if not hold and "," in args[1]:
            return err("ARGS", "PRESS takes one channel; HOLD takes several")
        if not mask:
            return err("ARGS", "channels are numbers with commas between, as in 4,5"
                       if hold else "the channel is a number, as in PRESS 3 300")
        ms = _number(args[2])
        if ms < 0:
            return err("ARGS", "the time is a whole number of ms")
        if not 1 <= ms <= PRESS_MAX_MS:
            return err("RANGE", f"a press lasts 1 to {PRESS_MAX_MS} ms")
        now = self.clock()
        for ch in sorted(mask):
            if ch not in self.deadline:
                self._switch(ch, True)
            self.deadline[ch] = now + ms / 1000
        if who != "-":
            self.press_id, self.press_channels = int(who), frozenset(mask)
            self.press_state = "RUNNING"
        return ok + f"{verb} {','.join(map(str, sorted(mask)))} {ms}"

    def _sticks(self) -> str:
        sums = [adc_count(uv) * SAMPLES for uv in self.adc_uv]
        pts = " ".join(str(points_of(s, self.r_ref_ohms)) for s in sums)
        raw = " ".join(str((s + SAMPLES // 2) // SAMPLES) for s in sums)
        return f"STICKS {pts} RAW {raw}"

    def _power_cmd(self, who: str, args: list[str]) -> str:
        n = len(args)
        if n > 2 or (n == 2 and args[1].upper() not in ("ON", "OFF")):
            return f"ERR {who} ARGS POWER takes ON or OFF, or nothing"
        if n == 2:
            self._power(off=args[1].upper() == "OFF")
        return (f"OK {who} POWER {'OFF' if self.power_off else 'ON'} SENSE "
                f"{'ON' if self.sensed_on() else 'OFF'}")

    # ------------------------------------------------------------ the script
    def _script_reset(self) -> None:
        self.script: list[tuple[str, int, int]] = []    # (kind, channel mask or index, ms)
        self.script_group: int | None = None
        self.script_state, self.script_id = "", 0
        self.script_pc, self.script_left, self.script_pass = 0, 0, 1
        self.script_next = 0.0          # when the step in progress ends

    def _script_end(self, state: str) -> None:
        """The script stops short: every relay open, the table let on."""
        self._open_all()
        self._power(off=False)
        self.script_state = state

    def _script_tick(self, now: float) -> None:
        """Run the script's steps that are due by ``now``, each at its own time."""
        if self.script_state != "RUNNING":
            return
        cut_at = self.last_line + self.wd_ms / 1000
        for _ in range(10_000):
            at = self.script_next
            if at > now or at >= cut_at:
                break
            for ch, end in sorted(self.deadline.items()):
                if end <= at:
                    del self.deadline[ch]
                    self._switch(ch, False)
            if self.script_pc >= len(self.script):
                self.script_state = "DONE"
                return
            self._script_op(at)
        if now >= cut_at:                       # the host is gone: stop, as the watchdog
            self._script_end("CUT")
            self.wd_fired = True

    def _script_op(self, at: float) -> None:
        """The step at ``script_pc``, begun at ``at``."""
        kind, arg, ms = self.script[self.script_pc]
        self.script_pc += 1
        if kind == "W":
            self.script_next = at + ms / 1000
        elif kind == "C":
            for ch in range(1, self.channels + 1):
                if arg & (1 << (ch - 1)):
                    if ch not in self.deadline:
                        self._switch(ch, True)
                    self.deadline[ch] = at + (ms + 1) / 1000
            self.script_next = at + (ms + 1) / 1000
        elif kind in ("ON", "OFF"):
            self._power(off=kind == "OFF")
        elif kind == "R":
            self.script_left, self.script_pass = ms - 1, 1
        elif self.script_left:              # E: the group again
            self.script_left -= 1
            self.script_pass += 1
            self.script_pc = arg + 1
        else:
            self.script_pass = 1

    def _script_outcome(self, only: int = 0) -> str:
        if not self.script_state or (only and only != self.script_id):
            return ""
        who = str(self.script_id) if self.script_id else "-"
        return f" SCRIPT {who} {self.script_state} {self.script_pc} {self.script_pass}"

    def _script_step(self, tok: str, at: int, group: int | None
                     ) -> tuple[tuple[str, int, int], int | None] | tuple[str, str]:
        """One step of a SCRIPT line: (the step, the open group) or (code, words)."""
        word = tok.upper() if tok.isascii() else tok
        if word in ("ON", "OFF"):
            return (word, 0, 0), group
        if word == "E":
            if group is None:
                return "ARGS", "E ends a group that R began"
            return ("E", group, 0), None
        if ":" in tok:
            left, _, right = tok.partition(":")
            mask = self._channels(left)
            ms = _number(right)
            if mask is None:
                return "CHANNEL", f"no such relay; the channels are 1 to {self.channels}"
            if not mask or ms < 0:
                return "ARGS", "a press is channels:ms, as in 2:150 or 4,5:3000"
            if not 1 <= ms <= PRESS_MAX_MS:
                return "RANGE", f"a press lasts 1 to {PRESS_MAX_MS} ms"
            return ("C", sum(1 << (c - 1) for c in mask), ms), group
        if word[:1] in ("W", "R"):
            v = _number(tok[1:])
            if v < 0:
                return "ARGS", "W and R take a number, as in W250 or R3"
            if word[0] == "W":
                if v > SCRIPT_WAIT_MAX_MS:
                    return "RANGE", f"a wait lasts 0 to {SCRIPT_WAIT_MAX_MS} ms"
                return ("W", 0, v), group
            if not 1 <= v <= SCRIPT_REPEAT_MAX:
                return "RANGE", f"a group repeats 1 to {SCRIPT_REPEAT_MAX} times"
            if group is not None:
                return "ARGS", "groups do not nest; end this one with E first"
            return ("R", 0, v), at
        return "ARGS", "a step is ON, OFF, W<ms>, <ch>[,<ch>]:<ms>, R<times> or E"

    def _dispatch(self, ident: int, args: list[str]) -> str:
        """The answer to a command: the script's verbs first, then every other."""
        verb = args[0].upper() if args[0].isascii() else args[0]
        scripted = self._script_command(str(ident) if ident else "-", verb, args)
        return self._run(ident, args) if scripted is None else scripted

    def _script_command(self, who: str, verb: str, args: list[str]) -> str | None:
        """SCRIPT, RUN, ABORT and the commands a running script refuses; None for others."""
        n = len(args)
        busy = self.script_state == "RUNNING"
        if verb == "RELEASE":
            if busy:            # RELEASE always works: it stops the script too
                self._script_end("ABORTED")
            return None
        if verb == "ABORT":
            if n != 1:
                return f"ERR {who} ARGS ABORT takes nothing after it"
            if busy:
                self._script_end("ABORTED")
            return f"OK {who} ABORT"
        if busy and (verb in ("SCRIPT", "RUN", "PRESS", "HOLD") or (verb == "POWER" and n > 1)):
            return f"ERR {who} BUSY a script is running; ABORT it first"
        if verb == "SCRIPT":
            return self._script_load(who, args)
        if verb == "RUN":
            return self._script_run(who, args)
        return None

    def _script_load(self, who: str, args: list[str]) -> str:
        n = len(args)
        sub = args[1].upper() if n >= 2 and args[1].isascii() else ""
        if sub not in ("NEW", "ADD") or (sub == "ADD" and n < 3):
            return f"ERR {who} ARGS SCRIPT NEW or SCRIPT ADD, then its steps"
        steps = [] if sub == "NEW" else list(self.script)
        group = None if sub == "NEW" else self.script_group
        if len(steps) + n - 2 > SCRIPT_STEPS:
            return f"ERR {who} RANGE a script holds at most {SCRIPT_STEPS} steps"
        for tok in args[2:]:
            made = self._script_step(tok, len(steps), group)
            if isinstance(made[0], str):
                return f"ERR {who} {made[0]} {made[1]}"
            step, group = made
            steps.append(step)
        self.script, self.script_group = steps, group
        if sub == "NEW":
            self.script_state = ""
        return f"OK {who} SCRIPT {len(steps)}"

    def _script_run(self, who: str, args: list[str]) -> str:
        count = _number(args[1]) if len(args) == 2 else -1
        if count < 0:
            return f"ERR {who} ARGS RUN takes the script's count of steps"
        if not self.script:
            return f"ERR {who} ARGS no script is loaded; SCRIPT NEW first"
        if count != len(self.script):
            return f"ERR {who} ARGS the count differs from the steps loaded"
        if self.script_group is not None:
            return f"ERR {who} ARGS a group R is not ended by E"
        self.script_pc, self.script_left, self.script_pass = 0, 0, 1
        self.script_id = int(who) if who != "-" else 0
        self.script_state = "RUNNING"
        self.script_next = self.clock() + 0.001     # the chip's next 1 ms tick
        return f"OK {who} RUN {count}"

    def _watchdog(self, who: str, args: list[str]) -> str:
        ok, n = f"OK {who} ", len(args)

        def err(code: str, words: str) -> str:
            return f"ERR {who} {code} {words}"

        if n > 2:
            return err("ARGS", "WATCHDOG takes one time in ms, or nothing")
        if n == 2:
            ms = _number(args[1])
            if ms < 0:
                return err("ARGS", "the time is a whole number of ms")
            if not WD_MIN_MS <= ms <= WD_MAX_MS:
                return err("RANGE", f"the watchdog takes {WD_MIN_MS} to {WD_MAX_MS} ms")
            self.wd_ms = ms
        return ok + f"WATCHDOG {self.wd_ms}"

    # ------------------------------------------------------------ senses, RECORD
    def sense_edge(self, source: str | int, on: bool, at: float | None = None) -> None:
        """A sense input changes at time ``at``: ``source`` 1..SENSES is the optocoupler
        across the switch of that relay (``on``: the switch is closed, by a hand or a
        relay), ``"P"`` the table's power. Like the firmware, a level counts once it has
        held SENSE_DEBOUNCE_MS, and is recorded at the time it was first seen."""
        if source not in self.sense_stable:
            raise ValueError(f"the bridge has no sense input {source!r}: P or 1..{SENSES}")
        with self._lock:
            when = self.clock() if at is None else at
            self._sense_settle(when)
            if on == self.sense_stable[source]:
                self._sense_pending.pop(source, None)       # a bounce: nothing happened
            elif source not in self._sense_pending:
                self._sense_pending[source] = (on, when)

    def _sense_settle(self, now: float) -> None:
        due = sorted((at, str(src), src, on) for src, (on, at) in self._sense_pending.items()
                     if (now - at) * 1000 >= SENSE_DEBOUNCE_MS)
        for at, _, src, on in due:
            del self._sense_pending[src]
            self.sense_stable[src] = on
            if not self.rec_on:
                continue
            if len(self.recording) >= RECORD_MAX:
                self.rec_overflow = True
                continue
            ms = max(0, math.ceil((at - self.rec_start) * 1000 - 1e-6))
            self.recording.append((ms, src, on))

    def _record_cmd(self, who: str, args: list[str]) -> str:
        n = len(args)
        sub = args[1].upper() if n > 1 and args[1].isascii() else ""
        first = -1
        if n == 2 and sub == "START":
            self.recording, self.rec_overflow = [], False
            self.rec_on, self.rec_start = True, self.clock()
        elif n == 2 and sub == "STOP":
            if self.rec_on:
                self.rec_clock = int((self.clock() - self.rec_start) * 1000)
            self.rec_on = False
        elif n == 3 and sub == "READ":
            first = _number(args[2])
            if first < 0:
                return (f"ERR {who} ARGS RECORD READ takes the first edge's index, as in "
                        "RECORD READ 0")
            if first > RECORD_MAX:
                return f"ERR {who} RANGE the recording keeps at most {RECORD_MAX} edges"
        elif n != 1:
            return f"ERR {who} ARGS RECORD takes START, STOP, READ <first> or nothing"
        head = (f"OK {who} RECORD {'ON' if self.rec_on else 'OFF'} EDGES "
                f"{len(self.recording)} OVERFLOW {int(self.rec_overflow)}")
        if first < 0:
            clock = int((self.clock() - self.rec_start) * 1000) if self.rec_on \
                else self.rec_clock
            return head + f" CLOCK {clock}"
        edges = "".join(f" {src}{'+' if on else '-'}{ms}" for ms, src, on
                        in self.recording[first:first + RECORD_PER_READ])
        return head + f" FROM {first}" + edges

    def _channels(self, text: str) -> set[int] | None:
        """The channels of ``3`` or ``4,5``; an empty set when malformed, None for a
        channel number the board does not have (checked part by part, as the firmware)."""
        found: set[int] = set()
        parts = text.split(",")
        for i, part in enumerate(parts):
            if len(part) > 5 or (i == len(parts) - 2 and parts[-1] == ""):
                return set()        # too long, or a comma that ends the list
            ch = _number(part)
            if ch < 0:
                return set()
            if not 1 <= ch <= self.channels:
                return None
            found.add(ch)
        return found

    # ------------------------------------------------------------ the pty
    def _serve(self) -> None:
        buf = bytearray()
        too_long = bad = False
        self._reset_due = False
        try:
            os.write(self._master, self.banner().encode("ascii") + b"\r\n")
        except OSError:
            return
        for data in self._reads(0.001, 256):
            self.tick()
            for b in data:
                if b in (10, 13):
                    answer = self.handle(buf.decode("latin-1"), too_long, bad) \
                        if buf or too_long or bad else None
                    buf.clear()
                    too_long = bad = False
                    out = b"" if answer is None else answer.encode("latin-1") + b"\r\n"
                    if self._reset_due:         # RESET: the chip starts again
                        self._reset_due = False
                        self.restart("WATCHDOG")
                        out += self.banner().encode("ascii") + b"\r\n"
                    if out:
                        try:
                            os.write(self._master, out)
                        except OSError:
                            return
                elif b == 0 or b >= 0x80 or (b < 0x20 and b != 9):
                    bad = True
                elif len(buf) < LINE_MAX:
                    buf.append(b)
                else:
                    too_long = True


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hardware_sim.bridge_model",
                                description="A model of the Jantaku bridge on a pty.")
    p.add_argument("--pty", action="store_true", required=True,
                   help="serve on a new pseudo-terminal; print its path")
    p.add_argument("--sticks", default="", help="points per seat, e.g. 25000,25000,0,0")
    args = p.parse_args(argv)

    def say(channel: int, closed: bool) -> None:
        print(f"relay {channel} {'closed' if closed else 'open'}", flush=True)

    model = BridgeModel(on_change=say)
    for seat, pts in enumerate(filter(None, args.sticks.split(","))):
        model.set_sticks(seat, int(pts))
    return model.run_as_program()


if __name__ == "__main__":
    sys.exit(main())
