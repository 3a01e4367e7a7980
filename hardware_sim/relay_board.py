"""A simulated CH340 "LCUS" USB relay board on a pseudo-terminal.

The board takes 4-byte commands at 9600 baud, ``A0 <channel> <state> <checksum>``
(state 1 closes the relay, 0 opens it; checksum = (0xA0 + channel + state) & 0xFF),
and answers nothing, like the real LCUS-1/2/4/8 modules. A frame with a wrong
checksum or channel is ignored (counted in ``bad_frames``); a half frame is
dropped when the line stays quiet for 50 ms. Each close-then-open of a relay is a
*press*, recorded with its channel and how long the contacts were closed: wired
across a table's start button, that is how long the button was held.

Wired to a stock table (``table=`` a :class:`hardware_sim.stock_table.StockTable`,
``wiring=`` switch name -> channel), every close and open of a relay is the same
edge on the table's switch, at the moment the frame arrived. Faults: a relay
stuck closed (:meth:`RelayBoard.stick`: its open frames do nothing) and the board
unplugged (:meth:`RelayBoard.unplug`: the pty is closed, so the host's writes fail).

``python -m hardware_sim.relay_board --pty [--channels 4] [--stock-table]`` prints
the pty's path on the first line, then one line per press (``press CHANNEL MS``)
until killed; with ``--stock-table`` the relays 1..5 are wired to a simulated stock
table's power, up, down, dice left and dice right, and its display is printed
after each press (``display 05``).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from dataclasses import dataclass

from .pty_device import PtyDevice

QUIET_S = 0.05


@dataclass(frozen=True)
class Press:
    channel: int
    at: float          # monotonic time the contacts closed
    seconds: float     # how long they stayed closed


class RelayBoard(PtyDevice):
    """``channels`` relays behind one serial line; ``serve_pty()`` gives the device path."""

    THREAD_NAME = "relay-board"

    def __init__(self, channels: int = 1, on_press=None, table=None,
                 wiring: dict[str, int] | None = None):
        if not 1 <= channels <= 8:
            raise ValueError("an LCUS board has 1 to 8 relays")
        super().__init__()
        self.channels = channels
        self.on_press = on_press
        self.table = table
        self.wiring = {ch: name for name, ch in (wiring or {}).items()}
        self.stuck: set[int] = set()
        self.plugged = True
        self.closed_since: dict[int, float] = {}
        self.presses: list[Press] = []
        self.frames = 0
        self.bad_frames = 0
        self._lock = threading.Lock()

    def is_closed(self, channel: int) -> bool:
        with self._lock:
            return channel in self.closed_since

    def closed(self) -> list[int]:
        """The relays closed now."""
        with self._lock:
            return sorted(self.closed_since)

    def stick(self, channel: int) -> None:
        """A relay whose contacts weld: it closes, and no open frame opens it again."""
        with self._lock:
            self.stuck.add(channel)

    def unplug(self) -> None:
        """Pull the board's USB cable: its relays open and the host's writes fail."""
        self.plugged = False
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
        for fd in (self._master,):
            if fd >= 0:
                os.close(fd)
        self._master = -1
        now = time.monotonic()
        for channel in self.closed():
            with self._lock:
                self.stuck.discard(channel)
            self._switch(channel, False, now)

    def _serve(self) -> None:
        buf = bytearray()
        last = time.monotonic()
        for data in self._reads(QUIET_S, 64):
            now = time.monotonic()
            if buf and now - last >= QUIET_S:
                self.bad_frames += 1        # a half frame on a quiet line: dropped
                buf.clear()
            if not data:
                continue
            last = now
            buf += data
            self._frames(buf, now)

    def _frames(self, buf: bytearray, now: float) -> None:
        while len(buf) >= 4:
            if buf[0] != 0xA0:
                del buf[:1]
                self.bad_frames += 1
                continue
            channel, state, check = buf[1], buf[2], buf[3]
            if check != (0xA0 + channel + state) & 0xFF or state > 1 \
                    or not 1 <= channel <= self.channels:
                del buf[:1]
                self.bad_frames += 1
                continue
            del buf[:4]
            self.frames += 1
            self._switch(channel, bool(state), now)

    def _switch(self, channel: int, on: bool, now: float) -> None:
        name = self.wiring.get(channel)
        with self._lock:
            if on:
                if channel in self.closed_since:
                    return
                self.closed_since[channel] = now
                press = None
            else:
                if channel in self.stuck:
                    return
                since = self.closed_since.pop(channel, None)
                if since is None:
                    return
                press = Press(channel, since, now - since)
                self.presses.append(press)
        if self.table is not None and name is not None:
            self.table.switch(name, on, now)
        if press is not None and self.on_press is not None:
            self.on_press(press)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hardware_sim.relay_board",
                                description="A simulated CH340 LCUS USB relay board on a pty.")
    p.add_argument("--pty", action="store_true", required=True,
                   help="serve on a new pseudo-terminal; print its path")
    p.add_argument("--channels", type=int, default=1, help="relays on the board (1-8)")
    p.add_argument("--stock-table", action="store_true",
                   help="wire relays 1-5 to a simulated stock table (power, up, down, "
                        "dice left, dice right)")
    args = p.parse_args(argv)

    table = None
    wiring = None
    if args.stock_table:
        from .stock_table import SWITCHES, StockTable

        table = StockTable()
        wiring = {name: i + 1 for i, name in enumerate(SWITCHES)}

    def say(press: Press) -> None:
        print(f"press {press.channel} {round(press.seconds * 1000)}", flush=True)
        if table is not None:
            print(f"display {table.display() or 'off'}", flush=True)

    # five switches need an LCUS-8 (the smallest module with five relays)
    channels = 8 if table is not None and args.channels < 5 else args.channels
    board = RelayBoard(channels, on_press=say, table=table, wiring=wiring)
    return board.run_as_program()


if __name__ == "__main__":
    sys.exit(main())
