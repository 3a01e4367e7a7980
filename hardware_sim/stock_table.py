"""A stock AMOS JP-EX as seen at its own switches: what the ``jpex-panel`` driver drives.

The table has no data port. Staff (or relays wired across the switches) use:

* **power**: the table's mains, through a relay-controlled outlet (``docs/hardware.md``):
  the table is plugged into the outlet's normally-on socket, so while the outlet's
  low-voltage trigger is energised ("power" closed) the table is off, and it is on
  again when the trigger is let go. With ``power_input="toggle"`` it is instead a
  momentary push switch each press of which toggles the table (a table whose
  power button is wired to a relay, for tests of that wiring). The table boots for
  ``boot_ms`` after power-on (the display shows ``--``) and is dark while off. The
  game number survives a power-off; a selection not yet confirmed by the reset
  does not.
* **up / down** (under the table): held ``enter_ms`` outside the selection, the
  table enters the game selection (the hold itself steps nothing). In the
  selection each press steps the game number by one at the moment it closes
  (00..08, wrapping from 08 to 00 and back); a switch kept closed auto-repeats:
  one more step after ``repeat_delay_ms``, then one every ``repeat_ms``
  (defaults 600 ms and 200 ms, the usual rate of a held key on such panels).
* **dice left / dice right**: both held together for ``reset_ms`` are the reset:
  the selected number is confirmed, the selection left and the table ready. A
  single dice press while the table is ready (booted, not selecting) starts the
  shuffle-and-deal cycle; otherwise it is ignored.

Sticks per drawer are kept in :attr:`StockTable.sticks` (set by a test or the demo,
read by a stick reader). :meth:`StockTable.display` is what staff see.

Faults: :meth:`miss_presses` (the table misses the next steps), :meth:`power_cut`
and :meth:`power_back`; a stuck relay and an unplugged board are faults of the
board (:class:`hardware_sim.relay_board.RelayBoard`).

The model has no thread: switch edges come in with their time, and every edge and
every look advances the timers (boot, long hold, auto-repeat, reset) up to now.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

SWITCHES = ("power", "up", "down", "dice_left", "dice_right")
NUMBERS = 9          # game numbers 00..08


@dataclass
class Timings:
    """How the simulated panel reacts, in milliseconds (see the module docstring)."""

    boot_ms: int = 5000
    enter_ms: int = 2000
    repeat_delay_ms: int = 600
    repeat_ms: int = 200
    reset_ms: int = 2000


@dataclass
class _Held:
    since: float
    consumed: bool = False          # the hold did its long-press action (enter, reset)
    repeats: int = 0                # auto-repeat steps made so far
    debounced: bool = False         # a press waiting to be held min_press_ms


@dataclass
class StockTable:
    """One stock table's panel (thread-safe: a board's thread and the test both call it)."""

    number: int = 1
    timings: Timings = field(default_factory=Timings)
    clock: Callable[[], float] = time.monotonic
    powered: bool = True
    booted_at: float = 0.0
    selecting: bool = False
    ready: bool = True
    confirmed: int = -1
    sticks: list[int | None] = field(default_factory=lambda: [None] * 4)
    cycles: int = 0
    steps: int = 0
    missed: int = 0
    resets: int = 0
    log: list[str] = field(default_factory=list)
    power_input: str = "outlet"     # "outlet": a level (closed = off); "toggle": a button
    # a debounced panel: a press (up, down, dice) closed for less than this is not taken;
    # a longer one steps once it has been closed this long (0: every press, on closing)
    min_press_ms: int = 0
    # a real table may differ from our reading of the rulebook: its long press that enters
    # the selection may go on stepping while held (auto-repeat); a test sets this to prove
    # that the camera catches a sequence that guessed wrong
    enter_repeats: bool = False
    # the bridge's sense inputs: called (outside the table's lock) with a panel switch's
    # name and whether it closed, or "power" and whether the table has power, and the
    # time, at every change; a hand or a relay on a switch looks the same to them
    sense: Callable[[str, bool, float], None] | None = None

    def __post_init__(self) -> None:
        self._sensed: list[tuple[str, bool, float]] = []
        self._lock = threading.RLock()
        self._held: dict[str, _Held] = {}
        self._miss = 0
        if self.confirmed < 0:
            self.confirmed = self.number

    VARIANTS = ("auto_repeat", "slow_boot", "short_press_ignored")
    """Real-table behaviours that differ from the rulebook's reading, for :meth:`variant`."""

    @classmethod
    def variant(cls, name: str, **kw: object) -> "StockTable":
        """A table that behaves as ``name`` says: ``auto_repeat`` (the long press that enters
        the selection goes on stepping), ``slow_boot`` (it boots in 8 s, not 5) or
        ``short_press_ignored`` (a press under 200 ms is not taken)."""
        if name == "auto_repeat":
            kw.setdefault("enter_repeats", True)
        elif name == "slow_boot":
            timings = kw.get("timings", Timings())
            kw["timings"] = Timings(**{**vars(timings), "boot_ms": 8000})
        elif name == "short_press_ignored":
            kw.setdefault("min_press_ms", 200)
        else:
            raise ValueError(f"no such variant: {name} (one of {', '.join(cls.VARIANTS)})")
        return cls(**kw)  # type: ignore[arg-type]

    # ------------------------------------------------------------ what people see
    def display(self) -> str:
        """What staff read on the table's display: ``05``, ``--`` while booting, ``""`` off."""
        with self._lock:
            self._advance(self.clock())
            if not self.powered:
                return ""
            if not self._booted():
                return "--"
            return f"{self.number:02d}"

    def set_sticks(self, points: list[int | None]) -> None:
        """Put sticks in the drawers (seat 0..3; None: an empty drawer)."""
        with self._lock:
            self.sticks = list(points)

    def read_sticks(self) -> list[int | None]:
        with self._lock:
            return list(self.sticks)

    # ------------------------------------------------------------ faults
    def miss_presses(self, count: int = 1) -> None:
        """The next ``count`` steps the switches ask for are missed by the table."""
        with self._lock:
            self._miss += count

    def power_cut(self) -> None:
        """The table loses its power (an unconfirmed selection is lost)."""
        with self._lock:
            self._advance(self.clock())
            self._off("power cut")
        self._tell()

    def power_back(self) -> None:
        """Power returns: the table boots again."""
        with self._lock:
            self._on(self.clock(), "power back")
        self._tell()

    def hand_power(self, on: bool) -> None:
        """Staff switch the table off or on at its own power switch."""
        with self._lock:
            now = self.clock()
            self._advance(now)
            if on and not self.powered:
                self._on(now, "power switch by hand")
            elif not on:
                self._off("power switch by hand")
        self._tell()

    def _tell(self) -> None:
        """Hand the changes the sense inputs saw to them, outside the lock (the bridge's
        model calls the table from its own lock)."""
        with self._lock:
            sensed, self._sensed = self._sensed, []
        if self.sense is not None:
            for name, on, at in sensed:
                self.sense(name, on, at)

    # ------------------------------------------------------------ switches
    def switch(self, name: str, closed: bool, at: float | None = None) -> None:
        """A switch closes or opens at time ``at`` (a relay across it, or a finger)."""
        if name not in SWITCHES:
            return
        with self._lock:
            now = self.clock() if at is None else at
            self._advance(now)
            if closed:
                if name in self._held:
                    return
                self._held[name] = _Held(now)
                if name != "power":
                    self._sensed.append((name, True, now))
                self._closed(name, now)
            else:
                held = self._held.pop(name, None)
                if held is not None:
                    if name != "power":
                        self._sensed.append((name, False, now))
                    self._opened(name, held, now)
        self._tell()

    def _booted(self) -> bool:
        return self.powered and self.clock() >= self.booted_at

    def _closed(self, name: str, now: float) -> None:
        if name == "power":
            if self.power_input == "outlet":
                self._off("outlet off")
            elif self.powered:
                self._off("power switch")
            else:
                self._on(now, "power switch")
            return
        if name in ("up", "down") and self.powered and now >= self.booted_at and self.selecting:
            if self.min_press_ms:
                self._held[name].debounced = True     # steps once held long enough
                return
            self._step(+1 if name == "up" else -1)

    def _opened(self, name: str, held: _Held, now: float) -> None:
        if name == "power" and self.power_input == "outlet" and not self.powered:
            self._on(now, "outlet on")
            return
        if name in ("dice_left", "dice_right") and not held.consumed and self._ready_at(now) \
                and (now - held.since) * 1000 >= self.min_press_ms:
            other = "dice_right" if name == "dice_left" else "dice_left"
            if other not in self._held:
                self.cycles += 1
                self.log.append(f"cycle {self.cycles} in game {self.number:02d}")

    def _ready_at(self, now: float) -> bool:
        return self.powered and now >= self.booted_at and not self.selecting and self.ready

    def _on(self, now: float, why: str) -> None:
        if not self.powered:
            self._sensed.append(("power", True, now))
        self.powered = True
        self.booted_at = now + self.timings.boot_ms / 1000
        self.selecting = False
        self.ready = True
        self.log.append(f"power on ({why})")

    def _off(self, why: str) -> None:
        if self.powered:
            self.log.append(f"power off ({why})")
            self._sensed.append(("power", False, self.clock()))
        self.powered = False
        self.selecting = False
        self.number = self.confirmed

    def _step(self, delta: int) -> None:
        if self._miss > 0:
            self._miss -= 1
            self.missed += 1
            self.log.append("missed a step")
            return
        self.number = (self.number + delta) % NUMBERS
        self.steps += 1

    def _advance(self, now: float) -> None:
        """Let the long holds, auto-repeat and the reset act up to ``now``."""
        if not self.powered:
            return
        t = self.timings
        left, right = self._held.get("dice_left"), self._held.get("dice_right")
        if left and right and not (left.consumed and right.consumed):
            together = max(left.since, right.since, self.booted_at)
            if now - together >= t.reset_ms / 1000:
                left.consumed = right.consumed = True
                self.selecting = False
                self.ready = True
                self.confirmed = self.number
                self.resets += 1
                self.log.append(f"reset: game {self.number:02d}")
        for name in ("up", "down"):
            held = self._held.get(name)
            if held is not None and held.debounced \
                    and (now - held.since) * 1000 >= self.min_press_ms:
                held.debounced = False
                if self.selecting:
                    self._step(+1 if name == "up" else -1)
            if held is None or held.consumed:
                continue
            start = max(held.since, self.booted_at)
            if now < start:
                continue
            if not self.selecting:
                if now - start >= t.enter_ms / 1000:
                    # the long hold enters; it steps nothing, unless this table's held
                    # key goes on repeating once it is in the selection
                    held.consumed = not self.enter_repeats
                    self.selecting = True
                    self.ready = False
                    self.log.append("selection entered")
                continue
            if held.since < self.booted_at:
                continue
            due = 0
            if now - start >= t.repeat_delay_ms / 1000:
                due = 1 + int((now - start - t.repeat_delay_ms / 1000) / (t.repeat_ms / 1000))
            while held.repeats < due:
                held.repeats += 1
                self._step(+1 if name == "up" else -1)
