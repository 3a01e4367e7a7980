"""Learn a stock table's switch sequence from one mode change made by hand.

Staff change the game once by hand while the bridge records its sense inputs
(``RECORD``, ``docs/bridge.md``): the table's power goes off and on, staff wait for
the table to start, hold the up (or down) switch until the selection shows, step to
the new game, and hold both dice switches to confirm it. Every edge comes timed by
the bridge's own millisecond clock. From that recording this module derives the
table's sequence (``[models.NAME]`` in club.toml, the shape
:func:`tablectl.drivers.panel.check_model` checks) and the boot wait, and checks a
later recording (a replay, or the guess in use) against it.

Pure logic: no I/O. :func:`with_model` edits club.toml's text (comments kept);
the caller reads and writes the file.

What it cannot know: a press the table ignored looks the same as one it took (the
sense input is across the switch, not inside the table); the learned times are the
ones that worked for staff, with margins only where longer is safe (the boot wait,
the waits between presses). A longer hold is not safe on a table whose held key
goes on stepping, so the hold is learned as it was held.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from .bridge_protocol import PRESS_MAX_MS, SENSE_POWER, SENSES
from .errors import TableError

NOISE_MS = 30
"""A press shorter than this is a bounce or a brush of the hand: not a press."""
MIN_WAIT_MS = 100
"""The shortest wait written between two presses."""
BOOT_MARGIN = 0.1
BOOT_MARGIN_MIN_MS = 500
"""The boot wait learned is the one staff waited, plus 10 % (at least 0.5 s)."""
BOOT_MAX_MS = 120_000
HOLD_FACTOR = 2
"""The entering hold is at least this many times the longest step press."""
TOLERANCE = 0.2
TOLERANCE_MIN_MS = 60
"""A replayed time agrees with the learned one within 20 % (at least 60 ms)."""
PANEL = ("up", "down", "dice_left", "dice_right")
DICE = ("dice_left", "dice_right")


class LearnError(TableError):
    """A recording nothing can be learned from; the words say what to do again."""

    code = "learn_error"


@dataclass(frozen=True)
class Edge:
    """One change of a sense input: ``ms`` of the bridge's clock since the recording
    began, ``source`` ``"P"`` (the table's power) or the relay channel ``"1"``..``"4"``
    whose switch the input is across, ``on`` the power came on / the switch closed."""

    ms: int
    source: str
    on: bool


@dataclass(frozen=True)
class Recording:
    edges: tuple[Edge, ...]
    overflow: bool = False
    clock_ms: int = 0


@dataclass(frozen=True)
class Press:
    switch: str
    start: int
    end: int

    @property
    def ms(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Demonstration:
    """What a recording shows, as it happened (no margins)."""

    boot_ms: int                    # power on to the start of the entering hold
    hold: Press                     # the entering hold
    steps: tuple[Press, ...]        # the step presses, in order
    reset_ms: int                   # both dice switches held together
    reset_switches: tuple[str, ...]
    gaps: tuple[int, ...]           # each step's release to the next press
    enter_gap: int                  # the hold's release to the first step
    ignored: int = 0                # bounces and presses outside the change

    @property
    def net_steps(self) -> int:
        return sum(1 if p.switch == "up" else -1 for p in self.steps)


@dataclass(frozen=True)
class Learned:
    """A sequence: the times a mode change uses (learned, or read from a sequence)."""

    boot_ms: int
    hold_switch: str
    hold_ms: int
    enter_wait_ms: int
    press_ms: int
    step_wait_ms: int
    reset_switches: tuple[str, ...]
    reset_ms: int
    reset_wait_ms: int
    seen: Demonstration | None = field(default=None, compare=False)

    def model(self) -> dict[str, list[dict[str, Any]]]:
        """The ``[models.NAME]`` sequences (the cycle is left to the model's default)."""
        return {
            "enter": [{"hold": self.hold_switch, "ms": self.hold_ms},
                      {"wait": self.enter_wait_ms}],
            "step_up": [{"press": "up", "ms": self.press_ms}, {"wait": self.step_wait_ms}],
            "step_down": [{"press": "down", "ms": self.press_ms},
                          {"wait": self.step_wait_ms}],
            "reset": [{"hold": list(self.reset_switches), "ms": self.reset_ms},
                      {"wait": self.reset_wait_ms}],
        }


def _round10(ms: float) -> int:
    return int(round(ms / 10.0)) * 10


def _median(values: list[int]) -> int:
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) // 2


def named(recording: Recording, channels: Mapping[str, int]) -> list[tuple[int, str, bool]]:
    """The edges as ``(ms, name, on)``: ``"power"`` or the switch whose relay channel the
    sense input watches; inputs no switch is wired to are left out."""
    by_channel = {str(ch): name for name, ch in channels.items() if name in PANEL}
    out = []
    for e in recording.edges:
        if e.source == SENSE_POWER:
            out.append((e.ms, "power", e.on))
        elif e.source in by_channel:
            out.append((e.ms, by_channel[e.source], e.on))
    return out


def check_wiring(channels: Mapping[str, int]) -> None:
    """Learning needs the up switch and a dice switch on sensed relays (1..SENSES)."""
    for name in ("up",):
        ch = channels.get(name)
        if ch is None or not 1 <= ch <= SENSES:
            raise LearnError(code="learn_not_sensed", switch=name, channel=ch, senses=SENSES)
    if not any(1 <= channels.get(d, 0) <= SENSES for d in DICE):
        raise LearnError(code="learn_not_sensed", switch="dice_left",
                         channel=channels.get("dice_left"), senses=SENSES)


def demonstration(recording: Recording, channels: Mapping[str, int]) -> Demonstration:
    """What one recorded mode change shows; :class:`LearnError` in words when the
    recording is not one whole change (no power cycle, no long press, no steps, no
    reset, a switch still held, an overflowing buffer)."""
    if recording.overflow:
        raise LearnError(code="learn_overflow")
    edges = named(recording, channels)
    if not edges:
        raise LearnError(code="learn_nothing")
    on_at = _power_on_at([(ms, on) for ms, name, on in edges if name == "power"])
    presses, ignored = _presses(edges, on_at)
    hold = presses[0]
    if hold.switch not in ("up", "down"):
        raise LearnError(code="learn_no_long_press", switch=hold.switch)
    dice = [p for p in presses[1:] if p.switch in DICE]
    if not dice:
        raise LearnError(code="learn_no_reset")
    reset_start = dice[0].start
    steps = tuple(p for p in presses[1:] if p.switch in ("up", "down") and p.start < reset_start)
    ignored += sum(1 for p in presses[1:] if p.switch in ("up", "down")
                   and p.start >= reset_start)
    if not steps:
        raise LearnError(code="learn_no_steps")
    if hold.ms < HOLD_FACTOR * max(p.ms for p in steps):
        raise LearnError(code="learn_no_long_press", switch=hold.switch)
    reset_ms, switches = _reset(dice)
    for ms in (hold.ms, reset_ms):
        if ms > PRESS_MAX_MS:
            raise LearnError(code="learn_too_long", ms=ms, most=PRESS_MAX_MS)
    gaps = tuple(b.start - a.end for a, b in zip(steps, steps[1:], strict=False)) \
        + (reset_start - steps[-1].end,)
    if any(g < 0 for g in gaps) or steps[0].start < hold.end:
        raise LearnError(code="learn_overlap")
    return Demonstration(boot_ms=hold.start - on_at, hold=hold, steps=steps,
                         reset_ms=reset_ms, reset_switches=switches, gaps=gaps,
                         enter_gap=steps[0].start - hold.end, ignored=ignored)


def _power_on_at(power: list[tuple[int, bool]]) -> int:
    """When the power came on after the last time it went off."""
    cycle = None
    for i, (_, on) in enumerate(power):
        if not on and i + 1 < len(power) and power[i + 1][1]:
            cycle = power[i + 1][0]
    if cycle is None:
        raise LearnError(code="learn_no_power_cycle")
    if power[-1][1] is False:
        raise LearnError(code="learn_left_off")
    return cycle


def _presses(edges: list[tuple[int, str, bool]], on_at: int) -> tuple[list[Press], int]:
    """The presses after the power came on, in order, and how many edges were ignored
    (bounces, presses before the power-on, a switch let go that was held before)."""
    presses: list[Press] = []
    down: dict[str, int] = {}
    ignored = 0
    for ms, name, on in edges:
        if name == "power":
            continue
        if on:
            down.setdefault(name, ms)
            continue
        start = down.pop(name, None)
        if start is None or ms - start < NOISE_MS or start < on_at:
            ignored += 1
            continue
        presses.append(Press(name, start, ms))
    if down:
        raise LearnError(code="learn_still_pressed", switch=sorted(down)[0])
    if not presses:
        raise LearnError(code="learn_no_presses")
    presses.sort(key=lambda p: p.start)
    return presses, ignored


def _reset(dice: list[Press]) -> tuple[int, tuple[str, ...]]:
    """The reset: how long both dice switches were held together (or the one sensed)."""
    left = next((p for p in dice if p.switch == "dice_left"), None)
    right = next((p for p in dice if p.switch == "dice_right"), None)
    if left and right:
        together = min(left.end, right.end) - max(left.start, right.start)
        if together < NOISE_MS:
            raise LearnError(code="learn_no_reset")
        return together, DICE
    only = left or right
    assert only is not None
    return only.ms, (only.switch,)


def learn(recording: Recording, channels: Mapping[str, int]) -> Learned:
    """The sequence a recorded hand-made mode change shows, with margins where a longer
    time is safe: the boot wait (+10 %, at least 0.5 s) and the waits between presses
    (the median staff left, at least 100 ms). Presses are as staff pressed them (the
    median step press) and the holds as they were held."""
    check_wiring(channels)
    seen = demonstration(recording, channels)
    boot = seen.boot_ms + max(BOOT_MARGIN_MIN_MS, seen.boot_ms * BOOT_MARGIN)
    boot_ms = int(math.ceil(boot / 100.0)) * 100
    if boot_ms > BOOT_MAX_MS:
        raise LearnError(code="learn_boot_too_long", ms=seen.boot_ms, most=BOOT_MAX_MS)
    durations = [p.ms for p in seen.steps]
    press = min(max(_round10(_median(durations)), min(durations)), max(durations))
    wait = max(MIN_WAIT_MS, _round10(_median(list(seen.gaps))))
    return Learned(boot_ms=boot_ms, hold_switch=seen.hold.switch,
                   hold_ms=_round10(seen.hold.ms),
                   enter_wait_ms=max(MIN_WAIT_MS, _round10(seen.enter_gap)),
                   press_ms=press, step_wait_ms=wait, reset_switches=seen.reset_switches,
                   reset_ms=_round10(seen.reset_ms), reset_wait_ms=wait, seen=seen)


def from_sequence(sequence: Mapping[str, list[dict[str, Any]]],
                  timings: Mapping[str, int]) -> Learned:
    """The times a configured sequence (checked by ``check_model``) presses with."""

    def ms(value: Any) -> int:
        return int(timings[value]) if isinstance(value, str) else int(value)

    def first(name: str, kind: str) -> dict[str, Any]:
        return next((s for s in sequence[name] if kind in s), {kind: [""], "ms": 0})

    def waited(name: str) -> int:
        return sum(ms(s["wait"]) for s in sequence[name] if "wait" in s)

    enter, step, reset = first("enter", "hold"), first("step_up", "press"), first("reset", "hold")
    return Learned(boot_ms=int(timings["boot_ms"]), hold_switch=enter["hold"][0],
                   hold_ms=ms(enter["ms"]), enter_wait_ms=waited("enter"),
                   press_ms=ms(step["ms"]), step_wait_ms=waited("step_up"),
                   reset_switches=tuple(reset["hold"]), reset_ms=ms(reset["ms"]),
                   reset_wait_ms=waited("reset"))


@dataclass(frozen=True)
class Finding:
    """One way a recording disagrees with a sequence: ``what`` (a ``table.learn.what.*``
    word), the sequence's ms and the recording's."""

    what: str
    expected: int
    seen: int


def _off(expected: int, seen: int) -> bool:
    return abs(expected - seen) > max(TOLERANCE_MIN_MS, TOLERANCE * expected)


def compare(expected: Learned, seen: Demonstration, steps: int | None = None) -> list[Finding]:
    """Where ``seen`` (a recorded change) disagrees with ``expected`` (a sequence): the
    hold, the step presses, the reset, a boot wait shorter than the table needed, the
    number of steps when ``steps`` is given. Empty: they agree."""
    out = []
    if expected.boot_ms < seen.boot_ms - max(TOLERANCE_MIN_MS, TOLERANCE * seen.boot_ms):
        out.append(Finding("boot", expected.boot_ms, seen.boot_ms))
    if expected.hold_switch != seen.hold.switch:
        out.append(Finding("hold_switch", 0, 0))
    if _off(expected.hold_ms, seen.hold.ms):
        out.append(Finding("hold", expected.hold_ms, seen.hold.ms))
    for p in seen.steps:
        if _off(expected.press_ms, p.ms):
            out.append(Finding("press", expected.press_ms, p.ms))
            break
    if _off(expected.reset_ms, seen.reset_ms):
        out.append(Finding("reset", expected.reset_ms, seen.reset_ms))
    if steps is not None and steps != seen.net_steps:
        out.append(Finding("steps", steps, seen.net_steps))
    return out


# ---------------------------------------------------------------- club.toml
def with_model(text: str, table_id: str, name: str, learned: Learned) -> str:
    """club.toml's ``text`` with ``[models.NAME]`` holding the learned sequences and the
    table ``table_id`` using it (``model = NAME``, ``boot_ms`` learned); every other key
    and comment as it was. A ``cycle`` already in the model stays."""
    import tomlkit

    doc = tomlkit.parse(text)
    tables = doc.get("tables")
    entry = None
    for t in tables or []:
        if t.get("id") == table_id:
            entry = t
    if entry is None:
        raise LearnError(code="learn_no_table", table=table_id)
    models = doc.get("models")
    if models is None:
        models = tomlkit.table(is_super_table=True)
        doc["models"] = models
    section = models.get(name)
    if section is None:
        section = tomlkit.table()
        models[name] = section
    for seq, steps in learned.model().items():
        arr = tomlkit.array()
        for step in steps:
            inline = tomlkit.inline_table()
            inline.update(step)
            arr.append(inline)
        section[seq] = arr
    entry["model"] = name
    entry["boot_ms"] = learned.boot_ms
    return tomlkit.dumps(doc)
