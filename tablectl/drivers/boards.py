"""The boards behind the ``jpex-panel`` driver: relays across a stock table's own switches.

:class:`PanelBoard` is what the driver needs from a board; :class:`LcusBoard` is
the CH340 "LCUS-1/2/4/8" relay module (the 4-byte frame of
:mod:`tablectl.drivers.relay`). An LCUS board has no timer of its own: the host
closes a relay, sleeps and opens it, so a host killed mid-press leaves the relay
closed until the next :meth:`LcusBoard.open` releases every relay. It has no
stick reader either. A board with its own timer and a stick reader (the bridge)
implements the same protocol elsewhere.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Protocol, Sequence

from ..errors import TableError
from ..serialport import close_quietly, open_port
from ..settings import SerialSettings
from .relay import relay_frame


class BoardError(TableError):
    """A board that does not answer, is unplugged or refuses (``table.code.<code>``)."""

    code = "board_lost"


class PanelBoard(Protocol):
    """Relays across a stock table's own switches, and perhaps a stick reader."""

    name: str
    channels: int
    has_timer: bool
    has_stick_reader: bool

    def open(self) -> dict[str, Any]:
        """Connect, release every relay first, and return the board's identity."""

    def press(self, channel: int, ms: int) -> None:
        """Close ``channel`` for ``ms`` milliseconds, then open it."""

    def hold(self, channels: Sequence[int], ms: int) -> None:
        """Close several relays together for ``ms`` (the reset: both dice switches)."""

    def set_power(self, on: bool) -> bool | None:
        """Let the table's outlet on, or hold it off (a level, held until changed);
        returns whether the table has power as sensed, or None without a sense input."""
        ...

    def sensed_power(self) -> bool | None:
        """Whether the table has power as a sense input sees it; None without one."""
        ...

    def release_all(self) -> None:
        """Open every relay."""

    def read_sticks(self) -> list[int] | None:
        """The points in each drawer, seat 0..3 (None: the board has no reader)."""

    def close(self) -> None:
        """Release the line (safe to call twice)."""


class SerialBoard:
    """What every board on a serial port shares: its line, opened with the port lock and
    closed quietly (a vanished adapter has nothing left to close)."""

    SERIAL = SerialSettings()

    def __init__(self, url: str, channels: int, serial: SerialSettings | None = None, *,
                 lock_dir: str | None = None, log: logging.Logger | None = None):
        self.url, self.channels = url, channels
        self.serial = serial or self.SERIAL
        self.lock_dir = lock_dir
        self.log = log or logging.getLogger(f"tablectl.board.{url}")
        self._port: Any = None

    @property
    def is_open(self) -> bool:
        return self._port is not None

    def _connect(self) -> None:
        """Open the line afresh; a port that cannot be opened is a :class:`BoardError`."""
        self.close()
        try:
            self._port = open_port(self.url, self.serial, lock_dir=self.lock_dir)
        except TableError as e:
            raise BoardError(e.detail, e.code, **e.values) from None

    def close(self) -> None:
        """Release the line (safe to call twice)."""
        port, self._port = self._port, None
        close_quietly(port)


LCUS_MODELS = (1, 2, 4, 8)
"""The relay counts the LCUS modules are sold with."""


class LcusBoard(SerialBoard):
    """An LCUS-1/2/4/8 module on a serial port: presses timed by the host."""

    has_timer = False
    has_stick_reader = False
    SERIAL = SerialSettings(baudrate=9600)

    def __init__(self, url: str, channels: int, serial: SerialSettings | None = None, *,
                 lock_dir: str | None = None, log: logging.Logger | None = None,
                 power_channel: int | None = None):
        if channels not in LCUS_MODELS:
            raise ValueError(f"an LCUS board has {LCUS_MODELS} relays, not {channels}")
        super().__init__(url, channels, serial, lock_dir=lock_dir, log=log)
        self.name = f"lcus-{channels}"
        self.power_channel = power_channel
        self._power_off = False     # the power relay held closed: the outlet, the table off

    def open(self) -> dict[str, Any]:
        self._connect()
        self._power_off = False   # a host gone while the table was off: it comes back on
        self.release_all()        # a host killed mid-press left a switch held
        return {"model": f"LCUS-{self.channels}", "version": ""}

    def _write(self, frames: bytes) -> None:
        if self._port is None:
            raise BoardError("not open", "board_lost")
        try:
            self._port.write(frames)
            self._port.flush()
        except Exception as e:  # a pulled adapter: the write itself fails
            self.close()
            raise BoardError(str(e), "board_lost") from None

    def _check(self, channel: int) -> None:
        if not 1 <= channel <= self.channels:
            raise BoardError(f"channel {channel}", "board_no_channel", channel=channel,
                             channels=self.channels)

    def press(self, channel: int, ms: int) -> None:
        self.hold((channel,), ms)

    def hold(self, channels: Sequence[int], ms: int) -> None:
        for c in channels:
            self._check(c)
        self._write(b"".join(relay_frame(c, True) for c in channels))
        self.log.debug("relays %s closed for %d ms", list(channels), ms)
        try:
            time.sleep(ms / 1000)
        finally:
            if self._port is not None:
                self._write(b"".join(relay_frame(c, False) for c in channels))

    def set_power(self, on: bool) -> bool | None:
        """Close the power relay (the outlet's trigger: the table off) or open it. The
        module's relays hold until told otherwise; it has no sense input."""
        if self.power_channel is None:
            raise BoardError("no power relay", "board_no_channel", channel=0,
                             channels=self.channels)
        self._check(self.power_channel)
        self._write(relay_frame(self.power_channel, not on))
        self._power_off = not on
        return None

    def sensed_power(self) -> bool | None:
        """No sense input on an LCUS module."""
        return None

    def release_all(self) -> None:
        """Open every relay but a power relay holding the table off."""
        held = self.power_channel if self._power_off else None
        self._write(b"".join(relay_frame(c, False) for c in range(1, self.channels + 1)
                             if c != held))

    def read_sticks(self) -> list[int] | None:
        return None
