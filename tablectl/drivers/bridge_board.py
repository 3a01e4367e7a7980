"""The microcontroller bridge behind the ``jpex-panel`` driver (``docs/bridge.md``).

An AVR Arduino running ``firmware/bridge`` closes relays across a stock table's own
switches and ends every press by its own timer, so a host that dies mid-press cannot
leave a switch held: the press ends at its time, and a hold ends when the host has
been quiet for the bridge's watchdog time (1.5 s by default). This side sends one
numbered line per command and waits for its answer; a line whose answer was lost is
sent again with the same number, and the bridge answers it without doing it twice.
While a press runs the driver sends a keep-alive so the watchdog does not cut it.

Every line carries a checksum (``*HH``) and so does every answer; an answer that does
not check is treated as lost. Each numbered press has a latched outcome on the bridge
(done, cut by the watchdog, released) that ``PING`` and every ``REPEAT`` report, so a
press cut short is known even when the answer that said so was lost. A ``READY`` line
in the middle of the talk means the bridge started again (its relays opened).

What the host can confirm: that the bridge took a command, how each press ended, and
(by a later ``PING``) that its relays are open again. It cannot confirm that the table
saw the switch, and the stick reading is as good as the reference resistor's
calibration.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Sequence

from ..bridge_protocol import (
    PRESS_MAX_MS,
    PROTOCOL,
    REFUSALS,
    SCRIPT_STEPS,
    framed,
    script_lines,
    unframe,
)
from ..learn import Edge, Recording
from ..settings import SerialSettings
from .boards import BoardError, SerialBoard


class BridgeBoard(SerialBoard):
    """A bridge on a serial port: presses timed by the bridge, sticks read per seat."""

    name = "bridge"
    has_timer = True
    has_stick_reader = True
    SERIAL = SerialSettings(baudrate=115200)
    STUCK_S = 2.0

    def __init__(self, url: str, channels: int = 8, serial: SerialSettings | None = None, *,
                 lock_dir: str | None = None, log: logging.Logger | None = None,
                 answer_s: float = 1.0, tries: int = 3, keepalive_s: float = 0.4):
        super().__init__(url, channels, serial, lock_dir=lock_dir, log=log)
        self.answer_s, self.tries, self.keepalive_s = answer_s, tries, keepalive_s
        self.identity: dict[str, Any] = {}
        self.watchdog_fired = 0      # times the bridge said its watchdog opened the relays
        self.restarts: list[str] = []   # the reset cause of each READY seen after open()
        self._opening = False
        self._next_id = 1

    # ------------------------------------------------------------ the board protocol
    def open(self) -> dict[str, Any]:
        """Connect, read the bridge's identity, open every relay; returns the identity."""
        self._connect()
        try:
            self._port.reset_input_buffer()
        except Exception:  # a transport without an input buffer to drop
            pass
        self._opening = True
        try:
            words = self._send("VERSION", None)
        finally:
            self._opening = False
        if len(words) < 17 or words[2] != "VERSION" or words[4] == "":
            self.close()
            raise BoardError(" ".join(words), "bridge_not_bridge", port=self.url)
        fields = dict(zip(words[5:-1:2], words[6::2], strict=False))
        if fields.get("PROTOCOL") != str(PROTOCOL):
            self.close()
            raise BoardError(" ".join(words), "bridge_old_firmware", port=self.url,
                             version=words[3], protocol=PROTOCOL)
        try:
            self._next_id = int(fields["LAST"]) % 65535 + 1
            self.identity = {"model": f"Jantaku bridge ({words[4]})", "version": words[3],
                             "mcu": words[4], "channels": int(fields["CHANNELS"]),
                             "seats": int(fields["SEATS"]),
                             "r_ref_ohms": int(fields["RREF"]),
                             "watchdog_ms": int(fields["WATCHDOG"]),
                             "active_low": fields.get("ACTIVE") == "LOW"}
        except (KeyError, ValueError):
            self.close()
            raise BoardError(" ".join(words), "bridge_not_bridge", port=self.url) from None
        self.channels = min(self.channels, self.identity["channels"])
        self.release_all()        # a host killed mid-press: nothing stays closed
        self._call("POWER ON")    # a host gone while the table was off: it comes back on
        return dict(self.identity)

    def press(self, channel: int, ms: int) -> None:
        """Close ``channel`` for ``ms``; the bridge's timer ends it. Returns when it ended."""
        self.hold((channel,), ms, verb="PRESS")

    def hold(self, channels: Sequence[int], ms: int, verb: str = "HOLD") -> None:
        """Close several relays together for ``ms``; returns when the bridge opened them."""
        for c in channels:
            if not 1 <= c <= self.channels:
                raise BoardError(f"channel {c}", "bridge_no_channel", channel=c,
                                 channels=self.channels)
        if not 1 <= ms <= PRESS_MAX_MS:
            raise BoardError(f"{ms} ms", "bridge_bad_ms", ms=ms, most=PRESS_MAX_MS)
        chans = ",".join(str(c) for c in sorted(set(channels)))
        start = time.monotonic()
        restarts = len(self.restarts)
        ident = self._next_id
        self._call(f"{verb} {chans} {ms}")
        self.log.debug("relays %s closed for %d ms by the bridge", chans, ms)
        end = start + ms / 1000
        while (left := end - time.monotonic()) > 0:
            time.sleep(min(left, self.keepalive_s))
            if end - time.monotonic() > 0:
                self._call("PING")          # keep the watchdog from cutting the press
        # the bridge's clock is not ours (a crystal's error, a simulated chip running
        # slow): its relays are given a generous while to open before they count as stuck
        late = time.monotonic() + self.STUCK_S + ms / 1000
        while True:
            words = self._call("PING")
            if len(self.restarts) > restarts:
                raise BoardError("the bridge started again", "bridge_restarted",
                                 port=self.url, cause=self.restarts[-1])
            outcome = _outcome(words, ident)
            if outcome == "CUT":
                raise BoardError("watchdog fired", "bridge_cut", port=self.url)
            if outcome == "RELEASED":
                raise BoardError("released", "bridge_released", port=self.url)
            if outcome is None:         # the bridge no longer knows this press
                raise BoardError(" ".join(words), "bridge_restarted", port=self.url,
                                 cause="UNKNOWN")
            if outcome == "DONE" and (words[3] == "OPEN" or not set(channels) & _closed(words)):
                return
            if time.monotonic() > late:
                raise BoardError("relays still closed", "bridge_stuck", port=self.url)
            time.sleep(min(0.02, self.keepalive_s))

    def set_power(self, on: bool) -> bool | None:
        """Let the table's outlet on, or hold it off through the bridge's power output (a
        level, kept while this host keeps talking: the bridge lets the table back on by
        itself :data:`POWER_HOLD_MS` after the last line). Returns the sensed power."""
        words = self._call("POWER ON" if on else "POWER OFF")
        return len(words) > 5 and words[4] == "SENSE" and words[5] == "ON"

    def sensed_power(self) -> bool:
        """Whether the table has power, as the bridge's sense input sees it."""
        words = self._call("POWER")
        return len(words) > 5 and words[4] == "SENSE" and words[5] == "ON"

    def release_all(self) -> None:
        """Open every relay now (the power output is not a relay: it stays)."""
        self._call("RELEASE")

    def read_sticks(self) -> list[int] | None:
        """The points in each drawer, seat 0..3, as the bridge measured them."""
        words = self._call("STICKS")
        seats = int(self.identity.get("seats", 4))
        try:
            return [int(w) for w in words[3:3 + seats]]
        except ValueError:
            raise BoardError(" ".join(words), "bridge_not_bridge", port=self.url) from None

    def raw_sticks(self) -> list[int]:
        """The seats' raw ADC readings (0..1023), for calibration."""
        words = self._call("STICKS")
        at = words.index("RAW")
        return [int(w) for w in words[at + 1:]]

    # ------------------------------------------------------------ recording the senses
    def record_start(self) -> None:
        """Start a new recording of the sense inputs' edges (the old one is dropped)."""
        self._call("RECORD START")

    def record_status(self) -> dict[str, Any]:
        """``{"on", "edges", "overflow", "clock_ms"}``: the recording as it stands."""
        return _record_head(self._call("RECORD"), self.url)

    def record_stop(self) -> dict[str, Any]:
        """Stop recording (what was kept stays readable); the status as it stopped."""
        return _record_head(self._call("RECORD STOP"), self.url)

    def record_read(self) -> Recording:
        """Every edge the bridge kept, read back a few at a time, each timed in ms of the
        bridge's own clock since the recording started; sense 1..4 named by its relay
        channel (``"1"``..``"4"``), the power as ``"P"``."""
        edges: list[Edge] = []
        head: dict[str, Any] = {"edges": 0, "overflow": False}
        while True:
            words = self._call(f"RECORD READ {len(edges)}")
            head = _record_head(words, self.url)
            got = words[words.index("FROM") + 2:] if "FROM" in words else []
            for token in got:
                if len(token) < 3 or token[1] not in "+-" or not token[2:].isdigit():
                    raise BoardError(" ".join(words), "bridge_not_bridge", port=self.url)
                edges.append(Edge(int(token[2:]), token[0], token[1] == "+"))
            if not got or len(edges) >= head["edges"]:
                break
        clock = self.record_status()["clock_ms"]
        return Recording(tuple(edges), bool(head["overflow"]), clock)

    def close(self) -> None:
        """Release the line; the bridge's own timers end anything still running."""
        super().close()

    # ------------------------------------------------------------ the on-board script
    has_script = True
    SCRIPT_STEPS = SCRIPT_STEPS
    SCRIPT_POLL_S = 0.1
    """How often the host asks where a running script is (a keep-alive as well)."""

    def run_script(self, steps: Sequence[str], *,
                   on_step: Callable[[int, int], None] | None = None,
                   wait: Callable[[float], None] | None = None) -> None:
        """Load ``steps`` (``docs/bridge.md``, "The script") in as few lines as fit, run
        them on the bridge's own clock and watch them to their end.

        ``on_step(step, pass)`` is told each step the bridge reports it is in (1-based; the
        pass counts the repeats of a group). ``wait`` waits between looks (the daemon's
        wait, which raises when it stops): whatever it raises, the script is aborted on
        the bridge first (every relay open, the table let on). Returns when the bridge
        says ``DONE``; raises :class:`BoardError` when it was cut, aborted, or the bridge
        started again."""
        if not steps or len(steps) > SCRIPT_STEPS:
            raise BoardError(f"{len(steps)} steps", "bridge_script_long", most=SCRIPT_STEPS)
        for line in script_lines(list(steps)):
            self._call(line)
        restarts = len(self.restarts)
        ident = self._next_id
        self._call(f"RUN {len(steps)}")
        pause = wait or time.sleep
        seen: tuple[int, int] | None = None
        while True:
            try:
                pause(min(self.keepalive_s, self.SCRIPT_POLL_S))
            except BaseException:
                self.abort_script()
                raise
            words = self._call("PING")
            if len(self.restarts) > restarts:
                raise BoardError("the bridge started again", "bridge_restarted",
                                 port=self.url, cause=self.restarts[-1])
            status = _script_status(words, ident)
            if status is None:          # the bridge no longer knows this script
                raise BoardError(" ".join(words), "bridge_restarted", port=self.url,
                                 cause="UNKNOWN")
            state, at = status[0], (status[1], status[2])
            if on_step is not None and at != seen and at[0] > 0 and state == "RUNNING":
                on_step(*at)
            seen = at
            if state == "DONE":
                return
            if state == "CUT":
                raise BoardError("the script was cut", "bridge_script_cut", port=self.url)
            if state == "ABORTED":
                raise BoardError("the script was aborted", "bridge_script_aborted",
                                 port=self.url)

    def abort_script(self) -> None:
        """Stop a script the bridge runs: every relay opens and the table is let on."""
        try:
            self._call("ABORT")
        except BoardError as e:
            self.log.warning("the script could not be aborted: %s", e.detail)

    # ------------------------------------------------------------ lines
    def _call(self, command: str) -> list[str]:
        ident = self._next_id
        self._next_id = ident % 65535 + 1
        return self._send(command, ident)

    def _send(self, command: str, ident: int | None) -> list[str]:
        """Send one line (again, with the same id, when its answer is lost) and return the
        words of its answer; an ``ERR`` answer raises :class:`BoardError`."""
        if self._port is None:
            raise BoardError("not open", "bridge_lost", port=self.url)
        line = framed(f"{ident} {command}" if ident else command)
        tag = str(ident) if ident else "-"
        for _ in range(self.tries):
            try:
                self._port.write(line.encode("ascii") + b"\n")
                self._port.flush()
                answer = self._answer(tag)
            except Exception as e:  # a pulled adapter: the write or read fails
                self.close()
                raise BoardError(str(e), "bridge_lost", port=self.url) from None
            if answer is not None:
                break
        else:
            self.close()
            raise BoardError(f"no answer to {line}", "bridge_lost", port=self.url)
        words = answer.split()
        if "WDFIRED" in words:
            self.watchdog_fired += 1
            self.log.warning("the bridge's watchdog opened the relays (the host was quiet)")
        if words[0] == "ERR":
            code = words[2] if len(words) > 2 and words[2] in REFUSALS else "UNKNOWN"
            raise BoardError(answer, f"bridge_refused_{code.lower()}", command=command)
        return words

    def _answer(self, tag: str) -> str | None:
        deadline = time.monotonic() + self.answer_s
        while time.monotonic() < deadline:
            raw = self._port.readline()
            if not raw:
                continue
            text, agrees = unframe(raw.decode("ascii", "replace").strip())
            words = text.split()
            if words[:1] == ["READY"]:
                if not self._opening:       # the bridge started again: its relays opened
                    cause = words[-1] if len(words) > 1 else "UNKNOWN"
                    self.restarts.append(cause)
                    self.log.warning("the bridge started again (reset cause: %s)", cause)
                continue
            if agrees is False:
                self.log.debug("bridge: an answer whose checksum fails: %r", text)
                continue                    # as if lost: the same line goes again
            if len(words) >= 2 and words[0] in ("OK", "ERR") and words[1] == tag:
                return text
            self.log.debug("bridge: skipped %r", text)   # a late answer to an earlier line
        return None


def _record_head(words: list[str], port: str) -> dict[str, Any]:
    """The state words of a ``RECORD`` answer: ``RECORD ON EDGES n OVERFLOW f ...``."""
    try:
        at = words.index("RECORD")
        fields = dict(zip(words[at + 2::2], words[at + 3::2], strict=False))
        return {"on": words[at + 1] == "ON", "edges": int(fields["EDGES"]),
                "overflow": fields["OVERFLOW"] == "1",
                "clock_ms": int(fields.get("CLOCK", "0"))}
    except (ValueError, KeyError, IndexError):
        raise BoardError(" ".join(words), "bridge_not_bridge", port=port) from None


def _closed(words: list[str]) -> set[int]:
    if len(words) > 4 and words[3] == "CLOSED":
        return {int(c) for c in words[4].split(",")}
    return set()


def _outcome(words: list[str], ident: int) -> str | None:
    """The latched outcome a ``PING`` answer gives for the press numbered ``ident``."""
    for i in range(len(words) - 2):
        if words[i] == "PRESS" and words[i + 1] == str(ident):
            return words[i + 2]
    return None


def _script_status(words: list[str], ident: int) -> tuple[str, int, int] | None:
    """The script's state, step and pass as a ``PING`` answer gives them for the ``RUN``
    numbered ``ident``."""
    for i in range(len(words) - 4):
        if words[i] == "SCRIPT" and words[i + 1] == str(ident):
            try:
                return words[i + 2], int(words[i + 3]), int(words[i + 4])
            except ValueError:
                return None
    return None
