"""A stock table behind the bridge, on a pseudo-terminal: the demo's ``jpex-panel`` table.

The bridge's Python model (:mod:`hardware_sim.bridge_model`) serves a pty; its relays
1..5 are wired across the simulated table's power, up, down, dice-left and dice-right
switches (:mod:`hardware_sim.stock_table`), and its stick reader reads the table's
drawers through the same divider and converter as the firmware.

Nothing on the pty moves the sticks or makes a fault: that is done by hand at a real
table. Here a control file (JSON, read when it changes) does it:

* ``{"sticks": [25000, 25000, 25000, null]}``: the drawers, East..North (``points`` is
  read the same, so the demo's players can pay with sticks as at the other tables);
* ``{"miss": N}``: the table misses presses until N in all were missed (a count, so
  writing the same file again misses nothing more);
* ``{"power": "cut"}`` / ``{"power": "back"}``: a power cut, and the power back.

A state file (JSON, replaced whole) says what staff would see: ``display`` (``05``,
``--`` while booting, ``""`` off), ``selecting``, ``ready``, the drawers, and the
counts of steps, missed presses, resets and cycles.

With ``--camera FILE.png`` a camera looks at the display too
(:class:`hardware_sim.display.SimCamera`): the picture is written to FILE.png (replaced
whole) whenever the display changes, for the box's camera reader and the console, and
the region of its digits to FILE.region.json (the corners staff would drag) at start.

``python -m hardware_sim.stock_bridge --pty --control FILE --state FILE [--number 1]
[--sticks 25000,25000,25000,25000] [--fast] [--camera FILE.png]
[--variant auto_repeat|slow_boot|short_press_ignored]`` prints the pty's path
on its first line and runs until killed; ``--fast`` makes the table boot and react in a
tenth of a second or so.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from tablectl.bridge_protocol import SENSES

from .bridge_model import BridgeModel
from .stock_table import SWITCHES, StockTable, Timings

WIRING = {i + 1: name for i, name in enumerate(SWITCHES) if name != "power"}
"""Relay channel -> the table's switch across which it is wired (2..5; the table's power
is the bridge's own power output, holding the outlet's trigger)."""
FAST = Timings(boot_ms=150, enter_ms=200, repeat_delay_ms=500, repeat_ms=200, reset_ms=200)
POLL_S = 0.1


class StockBridge:
    """A :class:`StockTable` wired to a :class:`BridgeModel` on a pty, steered by files."""

    def __init__(self, control: Path, state: Path, table: StockTable):
        self.control, self.state_file, self.table = control, state, table
        self.model = BridgeModel(channels=8, on_change=self._wired, on_power=self._outlet)
        self.model.sensed_on = lambda: self.table.powered
        self.table.sense = self._sensed
        self._seen: float | None = None
        self._missed_asked = 0
        self._last_state = ""
        self.camera: Path | None = None
        self._shown: str | None = None

    def _wired(self, channel: int, closed: bool) -> None:
        if channel in WIRING:
            self.table.switch(WIRING[channel], closed)

    def _sensed(self, name: str, on: bool, at: float) -> None:
        """The bridge's optocouplers: the table's power, and the switches of relays 1..4."""
        channel = next((ch for ch, n in WIRING.items() if n == name), None)
        if name == "power":
            self.model.sense_edge("P", on, at)
        elif channel is not None and channel <= SENSES:
            self.model.sense_edge(channel, on, at)

    def _outlet(self, on: bool) -> None:
        self.table.switch("power", not on)      # the trigger energised: the table off

    def set_sticks(self, points: list[Any]) -> None:
        """Put sticks in the drawers (a total or None per seat, East..North)."""
        seats = [p if isinstance(p, int) and not isinstance(p, bool) and p > 0 else None
                 for p in list(points)[:4]]
        seats += [None] * (4 - len(seats))
        self.table.set_sticks(seats)
        for seat, p in enumerate(seats):
            self.model.set_sticks(seat, p or 0)

    def follow(self) -> None:
        """Apply the control file if it changed; write the state file if it changed."""
        try:
            mtime = self.control.stat().st_mtime
        except FileNotFoundError:
            mtime = None
        if mtime is not None and mtime != self._seen:
            self._seen = mtime
            try:
                order = json.loads(self.control.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                order = None            # half written: read again when it changes
                self._seen = None
            if isinstance(order, dict):
                self._apply(order)
        self._write_state()

    def _apply(self, order: dict) -> None:
        sticks = order.get("sticks", order.get("points"))
        if isinstance(sticks, list):
            self.set_sticks(sticks)
        miss = order.get("miss")
        if isinstance(miss, int) and miss > self._missed_asked:
            self.table.miss_presses(miss - self._missed_asked)
            self._missed_asked = miss
        if order.get("power") == "cut" and self.table.powered:
            self.table.power_cut()
        elif order.get("power") == "back" and not self.table.powered:
            self.table.power_back()

    def _write_picture(self) -> None:
        """The camera's picture of the display, when what it shows changed."""
        shown = self.table.display()
        if self.camera is None or shown == self._shown:
            return
        try:
            import cv2

            from .display import SimCamera
        except ImportError:         # OpenCV is not installed: no camera
            self.camera = None
            return
        if not hasattr(self, "_cam"):
            self._cam = SimCamera(self.table, seed=5)
        tmp = self.camera.with_name(self.camera.stem + ".tmp" + self.camera.suffix)
        cv2.imwrite(str(tmp), self._cam.frame())
        os.replace(tmp, self.camera)
        self._shown = shown

    def start_camera(self) -> None:
        """The first picture, and the digits' region in it (before the pty is named)."""
        self._write_picture()
        if self.camera is not None:
            region = self._cam.default_region()
            path = self.camera.with_name(self.camera.stem + ".region.json")
            path.write_text(json.dumps([[round(x, 1), round(y, 1)] for x, y in region]),
                            encoding="utf-8")

    def _write_state(self) -> None:
        self._write_picture()
        t = self.table
        text = json.dumps({"display": t.display(), "powered": t.powered,
                           "selecting": t.selecting, "ready": t.ready,
                           "sticks": t.read_sticks(), "steps": t.steps, "missed": t.missed,
                           "resets": t.resets, "cycles": t.cycles})
        if text == self._last_state:
            return
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.state_file)
        self._last_state = text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hardware_sim.stock_bridge",
                                description="A simulated stock table behind the bridge, on a "
                                            "pty, steered by a control file.")
    p.add_argument("--pty", action="store_true", required=True,
                   help="serve the bridge on a new pseudo-terminal; print its path")
    p.add_argument("--control", required=True, help="the control file (JSON) to follow")
    p.add_argument("--state", required=True, help="the state file (JSON) to write")
    p.add_argument("--number", type=int, default=1, choices=range(9),
                   help="the game number the table shows at start (default 1)")
    p.add_argument("--sticks", default="", help="points per seat, e.g. 25000,25000,0,0")
    p.add_argument("--fast", action="store_true", help="boot and react in tenths of a second")
    p.add_argument("--camera", default="", help="write the display's picture to this .png")
    p.add_argument("--variant", default="", choices=("", *StockTable.VARIANTS),
                   help="a real-table behaviour the rulebook's reading does not expect")
    args = p.parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    timings = FAST if args.fast else Timings()
    table = StockTable.variant(args.variant, number=args.number, timings=timings) \
        if args.variant else StockTable(number=args.number, timings=timings)
    sim = StockBridge(Path(args.control), Path(args.state), table)
    sim.camera = Path(args.camera) if args.camera else None
    sim.start_camera()
    sim.set_sticks([int(x) if x.strip().isdigit() else None
                    for x in args.sticks.split(",")] if args.sticks else [None] * 4)
    print(sim.model.serve_pty(), flush=True)
    try:
        while not stop.wait(POLL_S):
            sim.follow()
    finally:
        sim.model.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
