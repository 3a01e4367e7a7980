"""``lcus-relay``: a CH340 "LCUS" USB relay board wired across a table's start button.

The widely sold LCUS-1/2/4/8 modules are a CH340 USB-serial chip driving one
to eight relays. They take one 4-byte command at 9600 baud, 8N1::

    A0 <channel> <state> <checksum>      channel 1..8, state 1 = closed (on), 0 = open
                                         checksum = (0xA0 + channel + state) & 0xFF

and answer nothing, so a board that was unplugged says nothing either: the driver
notices it from its port (:meth:`LcusRelayDriver.connected`: the adapter hung up or
its device node is gone), which the daemon asks at least once a second, and from a
write that fails (the idle "open" frame at each status refresh, or a press).

With the relay's contacts wired in parallel with the table's start (dice) button,
closing them for a moment is the same as a finger on the button: a club can start
the shuffle of an unmodified table from the console.

What this driver can honestly do follows from that: it can start a cycle and
nothing else; it cannot read a status, the point sticks or whether the table
really started, so staff confirm at the table. It has no sequence memory, so a
press left in doubt by a daemon killed mid-press is never repeated (it fails as
``in_doubt_unknown``), and on every connect the relay is opened first, so a
button is never left held.
"""

from __future__ import annotations

import os
import select
import time
from typing import Any

from ..errors import TableError
from ..serialport import close_quietly, open_port
from ..settings import SerialSettings
from .base import UNKNOWN, Driver, Identity, LinkDown, Option, Outcome, RunOnce


def relay_frame(channel: int, on: bool) -> bytes:
    """The 4-byte command that closes (``on``) or opens relay ``channel``."""
    state = 1 if on else 0
    return bytes((0xA0, channel, state, (0xA0 + channel + state) & 0xFF))


class LcusRelayDriver(Driver):
    """A relay across a table's start button: ``cycle`` presses it for ``press_ms``."""

    NAME = "lcus-relay"
    SERIAL_DEFAULTS = SerialSettings(baudrate=9600)
    OPTIONS = {"channel": Option(1, 1, 8), "press_ms": Option(300, 50, 5000, " ms")}

    def __init__(self, table: Any, link: Any, **kw: Any) -> None:
        super().__init__(table, link, **kw)
        self.channel = table.options.get("channel", 1)
        self.press_ms = table.options.get("press_ms", 300)
        self._port: Any = None

    @classmethod
    def capabilities(cls) -> dict[str, RunOnce]:
        return {"cycle": UNKNOWN}

    def connect(self) -> Identity:
        self.close()
        try:
            self._port = open_port(self.table.url, self.table.serial, lock_dir=self.lock_dir)
        except TableError as e:
            raise LinkDown(e.detail, e.code, **e.values) from None
        self._write(False)        # never leave a button held (a daemon killed mid-press)
        return Identity(model=f"LCUS relay board (channel {self.channel})",
                        features={"relay_channel": self.channel, "press_ms": self.press_ms,
                                  "auto_deal": False, "ic_point_sticks": False})

    def close(self) -> None:
        port, self._port = self._port, None
        close_quietly(port)

    @property
    def connected(self) -> bool:
        """Whether the board is still there. It never answers, so this looks at the port
        itself: a USB adapter that was pulled hangs up its open tty (and udev removes its
        device node and the /dev/jantaku link), which one poll with no wait sees."""
        if self._port is None:
            return False
        if self._vanished():
            self.log.warning("relay board on %s is gone (unplugged)", self.table.url)
            self.close()
            return False
        return True

    def _vanished(self) -> bool:
        url = self.table.url
        if "://" not in url and not os.path.exists(url):
            return True
        try:
            fd = self._port.fileno()
        except Exception:  # a network port has no tty to look at: its writes tell
            return False
        poller = select.poll()
        poller.register(fd, 0)        # hang-up, error and a closed fd are always reported
        return any(ev & (select.POLLHUP | select.POLLERR | select.POLLNVAL)
                   for _, ev in poller.poll(0))

    def refresh(self) -> None:
        """Write the idle state (relay open) so that a board gone without a hang-up is
        found by the failed write; nothing can be read back."""
        if self._port is not None:
            self._write(False, quiet=True)
        return None

    def _write(self, on: bool, quiet: bool = False) -> None:
        try:
            self._port.write(relay_frame(self.channel, on))
            self._port.flush()
        except Exception as e:
            self.close()
            raise LinkDown(str(e), "lost") from None
        if not quiet:
            self.log.info("relay %d %s", self.channel, "closed" if on else "opened")

    def run(self, job: Any) -> Outcome:
        job.sent(0)
        closed_at = None
        try:
            self._write(True)
            closed_at = time.monotonic()
            time.sleep(self.press_ms / 1000)
        finally:
            if self._port is not None:
                self._write(False)
        # how long the box held the relay closed, from its own clock: never less than
        # pressed_ms, more when the box was busy (the board itself reports nothing)
        held_ms = round((time.monotonic() - closed_at) * 1000) if closed_at else 0
        return Outcome.done({"pressed_ms": self.press_ms, "held_ms": held_ms,
                             "channel": self.channel, "confirmed": False}, changed=False)
