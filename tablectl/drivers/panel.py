"""``jpex-panel``: a stock AMOS JP-EX driven through its own switches by relays.

The table has no data port. Relays on a board (:mod:`tablectl.drivers.boards`)
are wired across the up/down switch under the table and the two dice switches;
the table's power goes through a relay-controlled outlet whose low-voltage trigger
the board holds as a level (the bridge's own power output, or a relay of an LCUS
module, which holds until told): never a relay in mains (``docs/hardware.md``).
The driver carries out the rulebook's procedure for a game change (power off,
the sticks of the new game put in by staff, power on, the game chosen with the
up/down switch, the reset by both dice switches held together) and starts a
cycle with a dice press. With the bridge, a sense input tells whether the table
really went off and came back on.

The switch sequence is data per table model (``[models.NAME]`` in club.toml,
:data:`DEFAULT_SEQUENCE` otherwise): lists of ``press`` / ``hold`` / ``wait``
steps whose times are milliseconds or the name of one of the table's timings.

A board with a clock of its own (the bridge) is given the selection (the boot wait,
the entering hold, the steps, the reset) as one script it runs by that clock, the
host watching it step by step; with the LCUS module the host times each step.

The driver cannot see the display. It keeps the number it believes the table
shows in the table's state; after a sequence that was interrupted (daemon killed,
board unplugged) the number is unknown, and a mode change is refused in words
until staff give the number they see (``from``). ``calibrate`` steps the number
one press at a time while staff say what the display shows: a press the table
missed shows as a mismatch. Every command here is run once at most: nothing
that pressed a switch is ever repeated by the daemon; on every connect the board
releases every relay first.
"""

from __future__ import annotations

import importlib
import time
from typing import Any, Mapping, cast

from ..bridge_protocol import PRESS_MAX_MS, SCRIPT_REPEAT_MAX, SCRIPT_WAIT_MAX_MS, SENSE_DEBOUNCE_MS
from ..errors import TableError
from ..modes import MODES
from ..settings import ConfigError, SerialSettings, TableConfig
from .base import UNKNOWN, Driver, Identity, Job, LinkDown, Option, Outcome, RunOnce
from .boards import LCUS_MODELS, BoardError, LcusBoard, PanelBoard

SWITCHES = ("power", "up", "down", "dice_left", "dice_right")
PANEL_SWITCHES = SWITCHES[1:]
"""The switches a sequence presses: power is a level, not a step of a sequence."""
CAMERA_TRIES = 5
"""Reads of the display, 0.2 s apart, before an unsure picture is taken as unsure."""
CORRECTIONS = 2
"""How many times a change the camera saw end on the wrong number is stepped again."""
BOOT_PATIENCE_S = 30.0
"""How long an unreadable display right after a power-on is watched for the number: a
table that boots slower than its ``boot_ms`` shows none until it has booted."""
CYCLE_OFF_MS = 2000
"""How long the table is held off in a power cycle that waits for no sticks (calibration)."""
PROBE_PRESSES = 2
"""Presses of a shorter time a calibration with a camera tries before it suggests it."""
POWER_SENSE_S = 3.0
"""How long the table has to go off, or come on, as the bridge's sense input sees it."""
TIMINGS: dict[str, Option] = {
    "press_ms": Option(150, 20, 5000, " ms"),
    "repeat_ms": Option(250, 20, 5000, " ms"),
    "hold_ms": Option(3000, 50, 30000, " ms"),
    "reset_ms": Option(3000, 50, 30000, " ms"),
    "boot_ms": Option(5000, 0, 120000, " ms"),
    "sticks_timeout_s": Option(600, 5, 3600, " s"),
}
SEQUENCES = ("enter", "step_up", "step_down", "reset", "cycle")
DEFAULT_SEQUENCE: dict[str, list[dict[str, Any]]] = {
    # the rulebook's reading: hold the up/down switch to enter the selection, then step
    "enter": [{"hold": "up", "ms": "hold_ms"}, {"wait": "repeat_ms"}],
    "step_up": [{"press": "up", "ms": "press_ms"}, {"wait": "repeat_ms"}],
    "step_down": [{"press": "down", "ms": "press_ms"}, {"wait": "repeat_ms"}],
    "reset": [{"hold": ["dice_left", "dice_right"], "ms": "reset_ms"}, {"wait": "repeat_ms"}],
    "cycle": [{"press": "dice_right", "ms": "press_ms"}],
}
BOARDS = ("lcus", "bridge")
STICKS_POLL_S = 0.5
MAX_STEP_MS = 60000


def _bad(where: str, setting: str, value: Any, allowed: str) -> ConfigError:
    return ConfigError(code="config_bad_value", where=where, setting=setting, value=repr(value),
                       allowed=allowed)


def _check_sequence(name: str, raw: Any, where: str) -> list[dict[str, Any]]:
    """One sequence of a model: a list of press / hold / wait steps, checked."""
    setting = f"models.{name}"
    timing_names = ", ".join(TIMINGS)
    if not isinstance(raw, list) or not raw:
        raise _bad(where, setting, raw, "a list of steps such as [{press=\"up\", ms=150}]")
    out = []
    for step in raw:
        if not isinstance(step, dict):
            raise _bad(where, setting, step, "{press=SWITCH, ms=N}, {hold=SWITCH or [SWITCHES], "
                                             "ms=N} or {wait=N}")
        kinds = [k for k in ("press", "hold", "wait") if k in step]
        extra = set(step) - {"press", "hold", "wait", "ms"}
        if len(kinds) != 1 or extra or (kinds[0] == "wait" and "ms" in step):
            raise _bad(where, setting, step, "one of press, hold or wait in each step "
                                             "(press and hold with ms)")
        kind = kinds[0]
        ms = step[kind] if kind == "wait" else step.get("ms", "press_ms")
        if isinstance(ms, str):
            if ms not in TIMINGS or ms == "sticks_timeout_s":
                raise _bad(where, setting, ms, f"milliseconds or a timing name ({timing_names})")
        elif isinstance(ms, bool) or not isinstance(ms, int) or not 0 <= ms <= MAX_STEP_MS:
            raise _bad(where, setting, ms, f"milliseconds 0..{MAX_STEP_MS} or a timing name")
        if kind == "wait":
            out.append({"wait": ms})
            continue
        names = step[kind] if isinstance(step[kind], list) else [step[kind]]
        if not names or any(n not in PANEL_SWITCHES for n in names) or (kind == "press"
                                                                         and len(names) != 1):
            raise _bad(where, setting, step[kind], f"a switch: {', '.join(PANEL_SWITCHES)}"
                       + (" (or a list of them for hold)" if kind == "hold" else ""))
        out.append({kind: names, "ms": ms})
    return out


def check_model(name: str, raw: Any, where: str) -> dict[str, list[dict[str, Any]]]:
    """A ``[models.NAME]`` section: the sequences it gives, the defaults for the rest."""
    if not isinstance(raw, dict):
        raise _bad(where, f"models.{name}", raw, "a table of sequences: "
                   + ", ".join(SEQUENCES))
    unknown = sorted(set(raw) - set(SEQUENCES))
    if unknown:
        raise ConfigError(code="config_unknown_key", where=f"{where} [models.{name}]",
                          setting=unknown[0], allowed=", ".join(SEQUENCES))
    return {seq: _check_sequence(f"{name}.{seq}", raw[seq], where) if seq in raw
            else _check_sequence(seq, DEFAULT_SEQUENCE[seq], where) for seq in SEQUENCES}


def _check_bridge_presses(sequence: dict[str, list[dict[str, Any]]], options: dict[str, Any],
                          model: str, where: str) -> None:
    """Refuse a press or hold the bridge would refuse (longer than its limit)."""
    for seq, steps in sequence.items():
        for step in steps:
            ms = step.get("ms")
            if "wait" in step or ms is None:
                continue
            value = options[ms] if isinstance(ms, str) else ms
            if value > PRESS_MAX_MS:
                setting = ms if isinstance(ms, str) else f"models.{model}.{seq}"
                raise _bad(where, setting, value, f"at most {PRESS_MAX_MS} ms: the bridge "
                           "ends every press by then")


def _wait_tokens(ms: int, tokens: list[str], names: list[str], label: str) -> None:
    """A wait as script steps (a long one in pieces the bridge takes; none for 0)."""
    while ms > 0:
        piece = min(ms, SCRIPT_WAIT_MAX_MS)
        tokens.append(f"W{piece}")
        names.append(label)
        ms -= piece


STICKS_TOLERANCE = 0.02
"""A drawer read by resistance holds the points it needs within 2 % (at least 200):
a reader's steps near 35,000 are about 150 points, and 17,000 or 35,000 in place
of 25,000 are far outside."""


def sticks_match(have: list[Any] | None, needs: list[int | None]) -> bool:
    """Whether the drawers read hold what a game needs (empty where it needs none)."""
    if have is None or len(have) != len(needs):
        return False
    for h, n in zip(have, needs, strict=True):
        if (h is None) != (n is None):
            return False
        if h is not None and n is not None and abs(h - n) > max(200, n * STICKS_TOLERANCE):
            return False
    return True


class JpexPanelDriver(Driver):
    """A stock table at its panel: ``mode`` by the rulebook's procedure, ``cycle`` by a
    dice press, ``calibrate`` against what staff read on the display."""

    NAME = "jpex-panel"
    SERIAL_DEFAULTS = SerialSettings(baudrate=9600)
    OPTIONS = {**TIMINGS, "board_channels": Option(8, 1, 8)}
    TEXT_OPTIONS = ("board", "model", *SWITCHES)

    @classmethod
    def check_options(cls, raw: Mapping[str, Any], options: dict[str, Any], where: str,
                      models: Mapping[str, Any]) -> dict[str, Any]:
        """The board, the channel of each switch and the model's sequence, checked:
        every error names the table (``where``) and the option."""
        board = raw.get("board", "lcus")
        if board not in BOARDS:
            raise _bad(where, "board", board, ", ".join(BOARDS))
        count = options["board_channels"]
        if board == "lcus" and count not in LCUS_MODELS:
            raise _bad(where, "board_channels", count,
                       "the relays of an LCUS module: " + ", ".join(map(str, LCUS_MODELS)))
        channels: dict[str, int] = {}
        if board == "bridge" and "power" in raw:
            raise _bad(where, "power", raw["power"], "nothing: the bridge holds the table's "
                       "outlet with its own power output (D10), not a relay channel")
        for name in SWITCHES if board == "lcus" else PANEL_SWITCHES:
            if name not in raw:
                raise ConfigError(code="config_missing_key", where=where, setting=name,
                                  allowed=f"the board's relay (1..{count}) wired across the "
                                          f"table's {name} switch")
            ch = raw[name]
            if isinstance(ch, bool) or not isinstance(ch, int) or not 1 <= ch <= count:
                raise _bad(where, name, ch, f"a relay of the board: 1..{count} "
                                            f"(board_channels = {count})")
            taken = [n for n, c in channels.items() if c == ch]
            if taken:
                raise _bad(where, name, ch, f"a relay no other switch uses ({taken[0]} is on "
                                            f"relay {ch})")
            channels[name] = ch
        model = raw.get("model", "")
        if not isinstance(model, str):
            raise _bad(where, "model", model, "the name of a [models.NAME] section")
        if model:
            if model not in models:
                raise _bad(where, "model", model, "a [models.NAME] section of this file: "
                           + (", ".join(sorted(models)) or "there is none"))
            sequence = check_model(model, models[model], where)
        else:
            sequence = check_model("default", {}, where)
        if board == "bridge":       # the bridge refuses a longer press: say so at load
            _check_bridge_presses(sequence, options, model, where)
        return {**options, "board": board, "model": model or "default", **channels,
                "sequence": sequence,
                "serial_given": any(k in raw for k in ("baudrate", "baud"))}

    def __init__(self, table: TableConfig, link: Any, **kw: Any) -> None:
        super().__init__(table, link, **kw)
        o = table.options
        self.channels = {name: int(o[name]) for name in SWITCHES if name in o}
        self.timings = {name: int(o[name]) for name in TIMINGS}
        self.sequence: dict[str, list[dict[str, Any]]] = o["sequence"]
        self.board: PanelBoard = self._board(str(o["board"]), int(o["board_channels"]))
        self.belief: dict[str, Any] = {"shown": None, "stage": None, "target": None,
                                       "selecting": False, "busy": None, "calibration": None,
                                       "calibrated": None, "enter_drift": 0,
                                       "boot_seen_ms": None}
        self.sticks: list[Any] | None = None
        self._open = False
        self._interrupted: str | None = None
        # a camera on the display (docs/hardware.md): a change ends confirmed only when
        # a certain read shows the target
        self.camera: Any = None
        if table.camera is not None and table.camera.region is not None:
            self.camera = importlib.import_module("tablectl.camera").open_camera(table.camera)

    def _board(self, kind: str, channels: int) -> PanelBoard:
        if kind == "bridge":
            bridge = importlib.import_module("tablectl.drivers.bridge_board")
            # the bridge's own line speed unless the table's entry sets one
            serial = self.table.serial if self.table.options.get("serial_given") else None
            board: PanelBoard = bridge.BridgeBoard(self.table.url, channels, serial,
                                                   lock_dir=self.lock_dir, log=self.log)
            return board
        return LcusBoard(self.table.url, channels, self.table.serial, lock_dir=self.lock_dir,
                         log=self.log, power_channel=self.channels.get("power"))

    @classmethod
    def capabilities(cls) -> dict[str, RunOnce]:
        # a switch pressed is never pressed again on the daemon's own: the table cannot
        # say whether it took a press
        return {"mode": UNKNOWN, "cycle": UNKNOWN, "calibrate": UNKNOWN}

    # ------------------------------------------------------------ line
    def remember(self, state: dict[str, Any] | None) -> None:
        """The belief stored by an earlier run: a sequence it left running is unknown."""
        stored = (state or {}).get("panel")
        if not isinstance(stored, dict):
            return
        self.belief.update({k: stored.get(k) for k in self.belief})
        self._interrupted = stored.get("busy")
        if stored.get("busy"):
            self._unknown()

    def connect(self) -> Identity:
        try:
            info = self.board.open()        # every relay released first
        except BoardError as e:
            raise LinkDown(e.detail, e.code if e.code != "board_lost" else "lost",
                           **e.values) from None
        self._open = True
        self.log.info("panel board %s open: %s", self.board.name, info)
        return Identity(model=f"AMOS JP-EX panel ({info.get('model', self.board.name)})",
                        firmware=str(info.get("version", "")),
                        features={"auto_deal": False,
                                  "ic_point_sticks": self.board.has_stick_reader,
                                  "board": self.board.name, "board_timer": self.board.has_timer,
                                  "display_readable": self.camera is not None,
                                  "relays": dict(self.channels)},
                        state=self.state())

    def close(self) -> None:
        self._open = False
        self.board.close()

    @property
    def connected(self) -> bool:
        return self._open

    def state(self) -> dict[str, Any]:
        """The table's state as far as the driver knows it (its belief, in ``panel``)."""
        b = self.belief
        return {"mode": b["shown"] if b["stage"] is None else None, "pending_mode":
                b["target"] if b["stage"] else None,
                "cycle_state": None, "lid": None,
                "errors": [], "points": self.sticks, "panel": dict(b)}

    def refresh(self) -> dict[str, Any]:
        try:
            # all open is the idle state of every relay: writing it finds a pulled board
            self.board.release_all()
            if self.board.has_stick_reader:
                self.sticks = self._read_sticks()
        except BoardError as e:
            raise self._lost(e) from None
        return self.state()

    def _read_sticks(self) -> list[Any] | None:
        """The drawers as the board reads them, an empty drawer as None."""
        points = self.board.read_sticks()
        return None if points is None else [p or None for p in points]

    def _lost(self, e: BoardError) -> LinkDown:
        self._open = False
        self.board.close()
        return LinkDown(e.detail, "lost")

    def _unknown(self) -> None:
        self.belief.update(shown=None, selecting=False, busy=None, calibration=None)

    # ------------------------------------------------------------ sequences
    def _ms(self, value: Any) -> int:
        return self.timings[value] if isinstance(value, str) else int(value)

    def _play(self, job: Job, name: str) -> None:
        for step in self.sequence[name]:
            if "wait" in step:
                job.wait(self._ms(step["wait"]) / 1000)
            elif "press" in step:
                self.board.press(self.channels[step["press"][0]], self._ms(step["ms"]))
            else:
                self.board.hold([self.channels[s] for s in step["hold"]], self._ms(step["ms"]))

    # ------------------------------------------------------------ the on-board script
    def _tokens(self, name: str, tokens: list[str], names: list[str], label: str) -> None:
        """Append sequence ``name`` as script steps, each labelled ``label``."""
        for step in self.sequence[name]:
            if "wait" in step:
                _wait_tokens(self._ms(step["wait"]), tokens, names, label)
                continue
            switches = step["press"] if "press" in step else step["hold"]
            chans = ",".join(str(c) for c in sorted({self.channels[s] for s in switches}))
            tokens.append(f"{chans}:{self._ms(step['ms'])}")
            names.append(label)

    def _select_on_board(self, job: Job, target: int, start: int,
                         boot_ms: int) -> int | None:
        """:meth:`_select` as one script the board runs by its own clock; None when the
        board has no clock of its own or the script would not fit on it."""
        board: Any = self.board
        if not getattr(board, "has_script", False):
            return None
        b = self.belief
        shown = (int(b["shown"]) + int(b.get("enter_drift") or 0)) % len(MODES)
        steps = abs(target - shown)
        step_name = "step_up" if target > shown else "step_down"
        tokens: list[str] = []
        names: list[str] = []
        _wait_tokens(boot_ms, tokens, names, "power_on")
        self._tokens("enter", tokens, names, "enter")
        if steps:
            tokens.append(f"R{steps}")
            names.append(step_name)
            self._tokens(step_name, tokens, names, step_name)
            tokens.append("E")
            names.append(step_name)
        self._tokens("reset", tokens, names, "reset")
        if len(tokens) > board.SCRIPT_STEPS or steps > SCRIPT_REPEAT_MAX:
            return None
        where: dict[str, Any] = {}

        def on_step(step: int, rep: int) -> None:
            name = names[step - 1]
            if where.get("at") == (name, rep):
                return
            where["at"] = (name, rep)
            values: dict[str, Any] = {"target": target, "start": start, "script": step}
            if name == step_name:
                values["at"] = (shown + (rep - 1) * (1 if target > shown else -1)) % len(MODES)
            self._progress(job, name, **values)

        self._progress(job, names[0], target=target, start=start, script=1)
        board.run_script(tokens, on_step=on_step, wait=job.wait)
        b.update(shown=target, selecting=False, target=None, busy=None)
        return steps

    def _set_power(self, job: Job, on: bool) -> bool:
        """Let the table on or hold it off; False when a sense input says the table did
        not follow within :data:`POWER_SENSE_S` (without one, the board is believed)."""
        sensed = self.board.set_power(on)
        job.wait(self.timings["repeat_ms"] / 1000)     # the outlet's own relay switches
        if sensed is not None:
            sensed = self.board.sensed_power()
        waited = 0.0
        while sensed is not None and sensed != on:
            if waited >= POWER_SENSE_S:
                return False
            job.wait(0.1)
            waited += 0.1
            sensed = self.board.sensed_power()
        return True

    def _progress(self, job: Job, step: str, **values: Any) -> None:
        self.belief["busy"] = step
        job.started({"step": step, **values})
        job.state(self.state())     # a run killed from here on finds the number unknown

    # ------------------------------------------------------------ commands
    def run(self, job: Job) -> Outcome:
        if self.belief["busy"]:
            self._unknown()          # a sequence of this run stopped half-way
        try:
            if job.command == "cycle":
                return self._cycle(job)
            if job.command == "calibrate":
                return self._calibrate(job)
            return self._mode(job)
        except BoardError as e:
            self._unknown()
            job.state(self.state())
            raise self._lost(e) from None
        finally:
            if self.belief["busy"] is None:
                job.state(self.state())

    def resume(self, job: Job, progress: dict[str, Any]) -> Outcome:
        """A sequence an earlier run left half-way: never repeated, the number unknown."""
        self._unknown()
        job.state(self.state())
        step = self._interrupted or str(progress.get("step", "power_off"))
        return Outcome.failed("panel_in_doubt", {**progress, "step": step}, changed=True,
                              table=self.table.id, step_code=step)

    def _cycle(self, job: Job) -> Outcome:
        if self.belief["stage"] == "sticks":
            return Outcome.failed("panel_powered_off", changed=False, table=self.table.id,
                                  mode_number=self.belief["target"])
        job.sent(0)
        self._play(job, "cycle")
        ms = sum(self._ms(s["ms"]) for s in self.sequence["cycle"] if "ms" in s)
        return Outcome.done({"pressed_ms": ms, "channel": self.channels["dice_right"],
                             "confirmed": False})

    def _mode(self, job: Job) -> Outcome:
        target = int(job.args["mode"])
        b = self.belief
        given = job.args.get("from")
        if given is not None and b["stage"] is None:
            b["shown"] = int(given)
            b["selecting"] = False
        if b["shown"] is None:
            return Outcome.failed("panel_number_unknown", changed=False, table=self.table.id)
        confirmed = job.args.get("sticks") is True
        start = b["shown"]
        job.sent(0)
        if b["stage"] != "sticks":
            if b["selecting"]:
                # a calibration left the table in its selection: confirm the number it
                # shows, or the power-off would take the table back to its last game
                self._progress(job, "reset", target=target, start=start)
                self._play(job, "reset")
                b.update(selecting=False, calibration=None, busy=None)
            if target == start:
                return Outcome.done(self._mode_result(target, start, 0))
            self._progress(job, "power_off", target=target, start=start)
            self._record_begin()
            if not self._set_power(job, on=False):
                self.board.set_power(True)      # let the outlet go: nothing changed
                b.update(busy=None)
                return Outcome.failed("panel_power_not_off", changed=False,
                                      table=self.table.id)
            b.update(stage="sticks", target=target, selecting=False, busy=None)
            job.state(self.state())
        b["target"] = target
        waited = self._wait_for_sticks(job, target, start, confirmed)
        if waited is not None:
            return waited
        self._progress(job, "power_on", target=target, start=start)
        powered_at = time.monotonic()       # a boot measured from here is never short
        if not self._set_power(job, on=True):
            return Outcome.failed("panel_power_not_on", changed=True, table=self.table.id,
                                  mode_number=target)
        b["stage"] = None
        steps = self._select(job, target, start, boot_ms=self._boot_ms())
        result = self._mode_result(target, start, steps)
        result.update(self._record_check(steps))
        if self.camera is not None:
            result.update(self._confirm(job, target, start, powered_at=powered_at))
            if result.get("ignored"):
                return Outcome.failed("panel_presses_ignored", result, changed=True,
                                      table=self.table.id, mode_number=target,
                                      seen=f"{result['seen']:02d}",
                                      press_ms=self.timings["press_ms"])
            if result["seen"] is not None and result["seen"] != target:
                return Outcome.failed("panel_display_differs", result, changed=True,
                                      table=self.table.id, mode_number=target,
                                      seen=result["seen"])
        return Outcome.done(result, changed=True)

    def _select(self, job: Job, target: int, start: int, boot_ms: int = 0) -> int:
        """Wait ``boot_ms`` for the table to boot, enter the selection, step from the number
        believed shown to ``target``, reset: the steps pressed. A board with a clock of its
        own (the bridge) runs it all as one script; otherwise the host times each step."""
        b = self.belief
        scripted = self._select_on_board(job, target, start, boot_ms)
        if scripted is not None:
            return scripted
        if boot_ms:
            job.wait(boot_ms / 1000)
        self._progress(job, "enter", target=target, start=start)
        self._play(job, "enter")
        b["selecting"] = True
        # the steps the entering hold itself makes on this table, as the camera measured
        # them (0 by the rulebook's reading)
        b["shown"] = (int(b["shown"]) + int(b.get("enter_drift") or 0)) % len(MODES)
        steps = abs(target - int(b["shown"]))
        for _ in range(steps):
            up = target > b["shown"]
            self._progress(job, "step_up" if up else "step_down", target=target, start=start,
                           at=b["shown"])
            self._play(job, "step_up" if up else "step_down")
            b["shown"] += 1 if up else -1
        self._progress(job, "reset", target=target, start=start)
        self._play(job, "reset")
        b.update(selecting=False, target=None, busy=None)
        return steps

    def _record_begin(self) -> None:
        """Let a board with sense inputs record the change (the bridge's RECORD)."""
        if hasattr(self.board, "record_start"):
            self.board.record_start()

    def _record_check(self, steps: int) -> dict[str, Any]:
        """The change as the sense inputs recorded it, checked against the sequence
        (``docs/tablectl.md``, learning): ``sequence_check`` is None when nothing on the
        switches was sensed (no sense wiring), else ``{"agrees", "findings"}`` or the
        reason the recording is not one whole change."""
        if not hasattr(self.board, "record_read"):
            return {}
        learn = importlib.import_module("tablectl.learn")
        board: Any = self.board
        time.sleep(2 * SENSE_DEBOUNCE_MS / 1000)     # the last release settles first
        recording = board.record_read()
        board.record_stop()
        if not any(e.source != "P" for e in recording.edges):
            return {"sequence_check": None}
        try:
            seen = learn.demonstration(recording, self.channels)
        except learn.LearnError as e:
            self.log.warning("the recorded change is not a whole one: %s", e.code)
            return {"sequence_check": {"agrees": False, "problem": e.code}}
        findings = learn.compare(learn.from_sequence(self.sequence, self.timings), seen)
        if len(seen.steps) != steps:
            findings.append(learn.Finding("steps", steps, len(seen.steps)))
        for f in findings:
            self.log.warning("the recorded change differs from the sequence: %s %s ms, "
                             "recorded %s", f.what, f.expected, f.seen)
        return {"sequence_check": {"agrees": not findings,
                                   "findings": [vars(f) for f in findings]}}

    def _look(self, job: Job) -> Any:
        """The display as the camera reads it: the first certain read of a few, else the
        last (unsure, dark, or None when the camera gave no picture)."""
        reading = None
        for i in range(CAMERA_TRIES):
            try:
                reading = self.camera.read()
            except TableError as e:         # no picture now: as unsure as a blur
                self.log.warning("camera: %s", e)
                reading = None
            if reading is not None and reading.certain and not reading.dark:
                return reading
            if i < CAMERA_TRIES - 1:
                job.wait(0.2)
        return reading

    def _confirm(self, job: Job, target: int, start: int,
                 powered_at: float | None = None) -> dict[str, Any]:
        """Check the change on the display; a certain read of another number is stepped
        again from that number (at most :data:`CORRECTIONS` times). Only a certain read
        of the target confirms; an unsure one says so and confirms nothing. Right after
        a power-on (``powered_at``) an unreadable display is watched a while longer: the
        table may boot slower than ``boot_ms`` (its boot is then measured and kept)."""
        corrections, last_off = 0, 0
        unmoved = False             # the change and every correction left the start number
        while True:
            reading = self._look(job)
            if powered_at is not None:
                reading = self._look_while_booting(job, reading, powered_at)
                powered_at = None
            if unmoved and reading is not None and reading.certain \
                    and reading.number == start != target:
                # stepped again and still nothing moved: the table took none of the presses
                self.belief["shown"] = reading.number
                return {"confirmed": False, "seen": reading.number, "ignored": True,
                        "corrections": corrections, "mode": reading.number,
                        "applied_now": False}
            if reading is None or not reading.certain or reading.dark \
                    or reading.number not in range(len(MODES)):
                return {"confirmed": False, "seen": None, "corrections": corrections,
                        "display": "dark" if reading is not None and reading.dark
                        else "unsure"}
            if reading.number == target:
                return {"confirmed": True, "seen": target, "corrections": corrections}
            if corrections >= CORRECTIONS:
                self.belief["shown"] = reading.number
                return {"confirmed": False, "seen": reading.number,
                        "corrections": corrections, "mode": reading.number,
                        "applied_now": False}
            self.log.warning("the display shows %02d after a change to %02d: stepping again",
                             reading.number, target)
            # a one-off (a missed press) is stepped again as it is; the same overshoot twice
            # is the entering hold's own steps on this table, kept for every later change
            off = (reading.number - target) % len(MODES)
            off = off - len(MODES) if off > len(MODES) // 2 else off
            if off == last_off:
                self.belief["enter_drift"] = int(self.belief.get("enter_drift") or 0) + off
            last_off = off
            self.belief["shown"] = reading.number
            unmoved = corrections == 0 and reading.number == start
            corrections += 1
            self._select(job, target, start)

    def _boot_ms(self) -> int:
        """The boot wait: ``boot_ms``, or longer when the camera saw this table boot slower."""
        return max(self.timings["boot_ms"], int(self.belief.get("boot_seen_ms") or 0))

    def _look_while_booting(self, job: Job, reading: Any, powered_at: float) -> Any:
        """An unreadable (not dark) display after a power-on, looked at again every half
        second for up to :data:`BOOT_PATIENCE_S`: a table still booting shows no number.
        A number seen at last keeps the boot time it took (rounded up to 0.5 s)."""
        waited, until = False, time.monotonic() + BOOT_PATIENCE_S
        while (reading is None or not reading.certain) and time.monotonic() < until \
                and not (reading is not None and reading.dark):
            job.wait(0.5)
            waited = True
            reading = self._look(job)
        if waited and reading is not None and reading.certain and not reading.dark:
            took = int(-(-(time.monotonic() - powered_at) * 1000 // 500) * 500)
            self.log.warning("the table booted slower than boot_ms: %d ms", took)
            self.belief["boot_seen_ms"] = max(took, self._boot_ms())
        return reading

    def _wait_for_sticks(self, job: Job, target: int, start: int,
                         confirmed: bool) -> Outcome | None:
        """Wait, switched off, until the drawers hold the new game's sticks (read by the
        board) or staff say so; an outcome when the change stops here, None to go on."""
        needs = MODES[target].sticks()
        # check mode deals no game: whatever the drawers hold, nothing is waited for
        if MODES[target].is_check or confirmed:
            return None
        if not self.board.has_stick_reader:
            return Outcome.done({"stage": "sticks", "requested": target, "mode": start,
                                 "pending_mode": target, "applied_now": False,
                                 "seats": list(MODES[target].seats)})
        waited = 0.0
        while True:
            seen, self.sticks = self.sticks, self._read_sticks()
            if self.sticks != seen:
                job.state(self.state())       # the console shows the drawers as read
            if sticks_match(self.sticks, needs):
                return None
            if waited >= self.timings["sticks_timeout_s"]:
                job.state(self.state())
                return Outcome.failed("panel_sticks_timeout", changed=True,
                                      table=self.table.id, mode_number=target)
            job.wait(STICKS_POLL_S)
            waited += STICKS_POLL_S

    # ------------------------------------------------------------ calibration's ends
    def _power_cycle_into_selection(self, job: Job) -> Outcome | None:
        """The rulebook's way into the game selection: power off, a moment, power on, the
        boot wait, the long press (one script on a board with a clock of its own). An
        outcome when the table did not follow its power, None once it is selecting."""
        b, board = self.belief, cast(Any, self.board)
        self._progress(job, "power_off", calibrate=True)
        if getattr(board, "has_script", False):
            tokens: list[str] = ["OFF"]
            names = ["power_off"]
            _wait_tokens(CYCLE_OFF_MS, tokens, names, "power_off")
            tokens.append("ON")
            names.append("power_on")
            _wait_tokens(self._boot_ms(), tokens, names, "power_on")
            self._tokens("enter", tokens, names, "enter")
            board.run_script(tokens, wait=job.wait, on_step=lambda step, _n: self._progress(
                job, names[step - 1], calibrate=True))
            if board.sensed_power() is False:
                b.update(busy=None)
                return Outcome.failed("panel_power_not_on", changed=True,
                                      table=self.table.id, mode_number=b["shown"])
        else:
            if not self._set_power(job, on=False):
                self.board.set_power(True)
                b.update(busy=None)
                return Outcome.failed("panel_power_not_off", changed=False,
                                      table=self.table.id)
            job.wait(CYCLE_OFF_MS / 1000)
            self._progress(job, "power_on", calibrate=True)
            if not self._set_power(job, on=True):
                b.update(busy=None)
                return Outcome.failed("panel_power_not_on", changed=True,
                                      table=self.table.id, mode_number=b["shown"])
            job.wait(self._boot_ms() / 1000)
            self._progress(job, "enter", calibrate=True)
            self._play(job, "enter")
        b["selecting"] = True
        return None

    def _probe_shorter(self, job: Job) -> int | None:
        """With a camera, at 00 in the selection: a few presses of half ``press_ms``, each
        read back. The shorter press when the camera saw every one of them step the
        number by one; None otherwise (the number is then read, or unknown)."""
        press = max(TIMINGS["press_ms"].low, self.timings["press_ms"] // 2)
        if self.camera is None or press >= self.timings["press_ms"]:
            return None
        up = self.channels["up"]
        for n in range(1, PROBE_PRESSES + 1):
            self._progress(job, "step_up", calibrate=True, at=n - 1, probe_ms=press)
            self.board.press(up, press)
            job.wait(self.timings["repeat_ms"] / 1000)
            reading = self._look(job)
            seen = reading.number if reading is not None and reading.certain else None
            self.belief["shown"] = seen
            if seen != n:
                return None
        return press

    def _calibrated(self, job: Job, cal: dict[str, Any], result: dict[str, Any]) -> Outcome:
        """The sweep is over (at 00): suggest timings, step back to the number the table
        showed before calibration, reset there."""
        b = self.belief
        home = int(cal.get("home") or 0)
        suggested: dict[str, int] = {}
        press = self.timings["press_ms"]
        if cal["mismatches"]:           # presses were missed: longer ones, by half again
            suggested["press_ms"] = min(TIMINGS["press_ms"].high, -(-press * 3 // 20) * 10)
        else:
            shorter = self._probe_shorter(job)
            if shorter is not None:
                suggested["press_ms"] = shorter
        at = b["shown"]
        for _ in range(CORRECTIONS + 1):
            if at is None:
                break
            self._step_to(job, at, home)
            if self.camera is None:
                at = home
                break
            # still in the selection: a press missed on the way back is seen and stepped
            reading = self._look(job)
            at = reading.number if reading is not None and reading.certain else None
            if at == home:
                break
        self._progress(job, "reset", calibrate=True)
        self._play(job, "reset")
        back: int | None = home if at is not None else None
        if self.camera is not None:
            reading = self._look(job)
            back = reading.number if reading is not None and reading.certain else None
        b.update(selecting=False, busy=None, calibration=None, shown=back,
                 calibrated={"at": cal["started"], "mismatches": len(cal["mismatches"]),
                             "timings": dict(self.timings), "suggested": suggested})
        return Outcome.done({**result, "complete": True, "next": None, "home": home,
                             "back": back, "suggested": suggested}, changed=True)

    def _step_to(self, job: Job, at: int, home: int) -> None:
        """In the selection: single presses from ``at`` to ``home``."""
        while at != home:
            name = "step_up" if home > at else "step_down"
            self._progress(job, name, calibrate=True, at=at)
            self._play(job, name)
            at += 1 if home > at else -1

    @staticmethod
    def _mode_result(target: int, start: int, steps: int) -> dict[str, Any]:
        return {"mode": target, "requested": target, "pending_mode": None, "applied_now": True,
                "from": start, "steps": steps, "confirmed": False}

    def _calibrate(self, job: Job) -> Outcome:
        b = self.belief
        seen = job.args.get("seen")
        if seen is None:
            return Outcome.failed("panel_calibrate_seen", changed=False, table=self.table.id)
        if b["stage"] == "sticks":
            return Outcome.failed("panel_powered_off", changed=False, table=self.table.id,
                                  mode_number=b["target"])
        seen = int(seen)
        cal = b["calibration"] or {"expected": None, "up": seen < len(MODES) - 1,
                                   "mismatches": [], "checked": 0, "home": seen,
                                   "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        expected = cal["expected"]
        match = expected is None or expected == seen
        if not match:
            cal["mismatches"].append({"expected": expected, "seen": seen})
        cal["checked"] += 1
        b["shown"] = seen
        if cal["up"] and seen >= len(MODES) - 1:
            cal["up"] = False
        result = {"seen": seen, "expected": expected, "match": match,
                  "mismatches": list(cal["mismatches"]), "timings": dict(self.timings)}
        job.sent(0)
        if not cal["up"] and seen <= 0:
            return self._calibrated(job, cal, result)
        if not b["selecting"]:
            failed = self._power_cycle_into_selection(job)
            if failed is not None:
                return failed
        name = "step_up" if cal["up"] else "step_down"
        self._progress(job, name, calibrate=True, at=seen)
        self._play(job, name)
        cal["expected"] = seen + (1 if cal["up"] else -1)
        b.update(calibration=cal, busy=None, shown=cal["expected"])
        return Outcome.done({**result, "complete": False, "next": cal["expected"],
                             "switch": "up" if cal["up"] else "down"}, changed=True)
