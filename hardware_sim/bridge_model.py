"""A Python model of the microcontroller bridge (``docs/bridge.md``) on a pseudo-terminal.

It answers the same lines as the firmware in ``firmware/bridge/`` (a test runs one
script against both and compares the answers line by line), with wall-clock timers
instead of the chip's 1 ms tick: for tests that need speed and for the demo. The
point sticks are set per seat (:meth:`BridgeModel.set_sticks`) and read through the
same divider, converter and integer arithmetic as the firmware.

``python -m hardware_sim.bridge_model --pty [--sticks 25000,25000,25000,25000]``
prints the pty's path on the first line, then ``relay CHANNEL closed|open`` lines.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import threading
import time
from collections.abc import Callable

from .pty_device import PtyDevice

VERSION = "1.0"
PRESS_MAX_MS = 10_000
WD_DEFAULT_MS = 1_500
WD_MIN_MS, WD_MAX_MS = 100, 60_000
LINE_MAX = 63
SAMPLES = 16
VCC_UV = 5_000_000
VERBS = "PING PRESS HOLD RELEASE STICKS VERSION WATCHDOG"


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
                 clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.channels, self.seats = channels, seats
        self.r_ref_ohms, self.mcu, self.active_low = r_ref_ohms, mcu, active_low
        self.on_change = on_change
        self.clock = clock
        self.deadline: dict[int, float] = {}     # closed channel -> when it opens
        self.wd_ms = WD_DEFAULT_MS
        self.wd_fired = False
        self.last_line = clock()
        self.last_id = 0
        self.last_cmd = ""
        self.last_answer = ""
        self.adc_uv = [VCC_UV] * seats
        self.changes: list[tuple[int, bool, float]] = []
        self._lock = threading.RLock()

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

    def _open_all(self) -> None:
        for ch in sorted(self.deadline):
            self._switch(ch, False)
        self.deadline.clear()

    def tick(self) -> None:
        """End the presses that are due and run the watchdog (the firmware's 1 ms tick)."""
        with self._lock:
            now = self.clock()
            for ch, at in sorted(self.deadline.items()):
                if now >= at:
                    del self.deadline[ch]
                    self._switch(ch, False)
            if self.deadline and (now - self.last_line) * 1000 >= self.wd_ms:
                self._open_all()
                self.wd_fired = True

    # ------------------------------------------------------------ lines
    def handle(self, raw: str, too_long: bool = False) -> str | None:
        """The answer (without its line end) to one received line; None for an empty one."""
        with self._lock:
            self.tick()
            self.last_line = self.clock()
            if not raw.strip(" \t") and not too_long:
                return None
            if too_long:
                return self._send(f"ERR - LONG the line is too long; at most {LINE_MAX} "
                                  "characters")
            tokens = [t for t in raw.replace("\t", " ").split(" ") if t]
            if not (tokens[0].isascii() and tokens[0].isdigit()):
                return self._send(self._run(0, tokens))
            ident = _number(tokens[0])
            if not 1 <= ident <= 65535:
                return self._send("ERR - ID an id is a number from 1 to 65535")
            if len(tokens) == 1:
                return self._send(f"ERR {ident} ARGS a command follows the id")
            if ident == self.last_id:
                if raw == self.last_cmd:
                    return self._send(self.last_answer, repeat=True)
                return self._send(f"ERR {ident} ID this id was used for another command; "
                                  "take a new one")
            answer = self._run(ident, tokens[1:])
            self.last_id, self.last_cmd, self.last_answer = ident, raw, answer
            return self._send(answer)

    def _send(self, answer: str, repeat: bool = False) -> str:
        if repeat:
            answer += " REPEAT"
        if self.wd_fired:
            answer += " WDFIRED"
            self.wd_fired = False
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
            return ok + ("PING CLOSED " + ",".join(map(str, shut)) if shut else "PING OPEN")
        if verb in ("PRESS", "HOLD"):
            return self._press(who, verb, args)
        if verb == "RELEASE":
            if n != 1:
                return err("ARGS", "RELEASE takes nothing after it")
            self._open_all()
            return ok + "RELEASE"
        if verb == "STICKS":
            if n != 1:
                return err("ARGS", "STICKS takes nothing after it")
            sums = [adc_count(uv) * SAMPLES for uv in self.adc_uv]
            pts = " ".join(str(points_of(s, self.r_ref_ohms)) for s in sums)
            raw = " ".join(str((s + SAMPLES // 2) // SAMPLES) for s in sums)
            return ok + f"STICKS {pts} RAW {raw}"
        if verb == "VERSION":
            if n != 1:
                return err("ARGS", "VERSION takes nothing after it")
            level = "LOW" if self.active_low else "HIGH"
            return ok + (f"VERSION {VERSION} {self.mcu} CHANNELS {self.channels} SEATS "
                         f"{self.seats} RREF {self.r_ref_ohms} ACTIVE {level} WATCHDOG "
                         f"{self.wd_ms} LAST {self.last_id}")
        if verb == "WATCHDOG":
            return self._watchdog(who, args)
        return err("UNKNOWN", f"unknown command; the commands are {VERBS}")

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
        return ok + f"{verb} {','.join(map(str, sorted(mask)))} {ms}"

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
        too_long = False
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], 0.001)
            self.tick()
            if not ready:
                continue
            try:
                data = os.read(self._master, 256)
            except OSError:
                return
            for b in data:
                if b in (10, 13):
                    answer = self.handle(buf.decode("latin-1"), too_long) \
                        if buf or too_long else None
                    buf.clear()
                    too_long = False
                    if answer is not None:
                        try:
                            os.write(self._master, answer.encode("latin-1") + b"\r\n")
                        except OSError:
                            return
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
