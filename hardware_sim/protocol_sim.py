"""``sim://`` URLs: a simulated table as a pyserial port, in this process.

Two ways in, both from outside the product code:

* :func:`open_port` is registered in ``pyproject.toml`` under the
  ``jantaku.serial_transports`` entry-point group as the ``sim`` scheme: the
  ``tablectl`` daemon finds it there when a table's url is ``sim://...`` (tablectl
  never imports this package);
* :func:`register` appends ``hardware_sim`` to ``serial.protocol_handler_packages``
  so that plain ``serial.serial_for_url("sim://...")`` works too (tests, scripts).

URL form::

    sim://[NAME][?option=value&...]

* ``NAME`` (optional): a named table lives in this process until
  :func:`close_all` (or ``get(NAME).stop()``), so closing and reopening the
  URL -- what a daemon does when it reconnects -- finds the same table in the
  same state; tests reach it with :func:`get`. Without a name each open makes
  a fresh table that stops when the port closes.
* options: ``mode`` (number or name), ``autodeal`` (0/1), ``time_scale``,
  ``cycle_s``, ``boot_s``, ``auto_sticks`` (0/1), ``seed`` (link-fault RNG),
  ``drop``, ``corrupt``, ``duplicate`` (probabilities), ``delay_ms``,
  ``direction`` (rx/tx/both), ``unplug`` (hangup/silent), ``protocol`` (the
  protocol version HELLO answers: another one is a newer table), ``sticks`` (the path
  of a JSON file of scores the simulated players' point sticks follow:
  :mod:`hardware_sim.players`). Options only apply when the named table is first
  created.

Example: ``sim://t1?mode=4&autodeal=1&time_scale=0.001&auto_sticks=1``.
"""

from __future__ import annotations

import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import serial
from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from .faults import LinkFaults
from .simulator import InProcessPort, Simulator

_REGISTRY: dict[str, Simulator] = {}
_LOCK = threading.Lock()

_BOOL = {"1": True, "true": True, "yes": True, "on": True,
         "0": False, "false": False, "no": False, "off": False}


def register() -> None:
    """Make pyserial resolve ``sim://`` URLs to this module (idempotent)."""
    if "hardware_sim" not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append("hardware_sim")


def open_port(url: str, **settings) -> "Serial":
    """The ``jantaku.serial_transports`` factory: ``url`` opened as a pyserial port."""
    port = Serial(None, **settings)
    port.port = url
    port.open()
    return port


def get(name: str) -> Simulator:
    """The named simulated table (KeyError if no ``sim://NAME`` was opened)."""
    with _LOCK:
        return _REGISTRY[name]


def add(sim: Simulator) -> Simulator:
    """Make an existing (started) simulator reachable as ``sim://<sim.name>``."""
    with _LOCK:
        _REGISTRY[sim.name] = sim
    return sim


def close_all() -> None:
    """Stop every named table (tests call this in teardown)."""
    with _LOCK:
        sims = list(_REGISTRY.values())
        _REGISTRY.clear()
    for s in sims:
        s.stop()


def _flag(v: str) -> bool:
    return _BOOL[v.lower()]


# URL option -> (Simulator argument, converter); fault options go to LinkFaults
_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "mode": ("mode", str), "autodeal": ("auto_deal", _flag), "auto_deal": ("auto_deal", _flag),
    "auto_sticks": ("auto_sticks", _flag), "time_scale": ("time_scale", float),
    "cycle_s": ("cycle_seconds", float), "boot_s": ("boot_seconds", float),
    "unplug": ("unplug_mode", str), "protocol": ("protocol_version", int),
    "sticks": ("sticks_file", str),
}
_FAULTS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "drop": ("drop", float), "corrupt": ("corrupt", float), "duplicate": ("duplicate", float),
    "delay_ms": ("delay", lambda v: float(v) / 1000), "direction": ("direction", str),
    "seed": ("seed", int),
}


def parse_url(url: str) -> tuple[str, dict]:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() != "sim":
        raise SerialException(f"expected a sim:// URL, not {url!r}")
    name = parts.netloc or parts.path.strip("/")
    opts: dict = {}
    try:
        for key, values in urllib.parse.parse_qs(parts.query, keep_blank_values=True).items():
            if key in _OPTIONS:
                dest, convert = _OPTIONS[key]
                opts[dest] = convert(values[-1])
            elif key in _FAULTS:
                dest, convert = _FAULTS[key]
                opts.setdefault("faults", {})[dest] = convert(values[-1])
            else:
                raise ValueError(f"unknown option {key!r}")
    except (KeyError, ValueError) as e:
        raise SerialException(f"bad sim:// URL {url!r}: {e} (options: "
                              f"{', '.join([*_OPTIONS, *_FAULTS])})") from e
    return name, opts


def _make(name: str, opts: dict) -> Simulator:
    opts = dict(opts)
    faults = LinkFaults(**opts.pop("faults", {}))
    return Simulator(name=name or "sim", faults=faults, **opts).start()


class Serial(SerialBase):
    """A pyserial port whose other end is a simulated table in this process."""

    BAUDRATES = SerialBase.BAUDRATES

    def __init__(self, *args, **kwargs):
        self._pipe: InProcessPort | None = None
        self.simulator: Simulator | None = None
        self._owns_sim = False
        super().__init__(*args, **kwargs)

    def open(self):
        if self.is_open:
            raise SerialException("Port is already open.")
        if self.port is None:
            raise SerialException("Port must be configured before it can be used.")
        name, opts = parse_url(self.port)
        sim: Simulator | None = None
        self._owns_sim = False
        try:
            if name:
                with _LOCK:
                    sim = _REGISTRY.get(name)
                    if sim is None or not sim.running:
                        sim = _REGISTRY[name] = _make(name, opts)
                self._owns_sim = False
            else:
                sim = _make(name, opts)
                self._owns_sim = True
            self._pipe = sim.connect()
        except (OSError, ValueError) as e:
            if self._owns_sim and sim is not None:
                sim.stop()
            raise SerialException(f"could not open port {self.port}: {e}") from e
        self.simulator = sim
        self.is_open = True

    def close(self):
        if self.is_open:
            self.is_open = False
            pipe, self._pipe = self._pipe, None
            sim = self.simulator
            if pipe is not None and sim is not None and sim.running:
                try:
                    sim.call(pipe.close)
                except Exception:
                    pass
            if self._owns_sim and sim is not None:
                sim.stop()
        super().close()

    def _reconfigure_port(self):
        pass

    def set_sticks(self, points: list) -> None:
        """Staff's hands: put sticks worth ``points[seat]`` in each drawer (None: empty).
        The daemon's ``sim-sticks`` command calls this; a real port has no such method."""
        _, sim = self._check()
        for seat, total in enumerate(points):
            sim.set_points(seat, total)

    def _check(self) -> tuple[InProcessPort, Simulator]:
        """The open port's pipe and simulator (PortNotOpenError once closed)."""
        if not self.is_open or self._pipe is None or self.simulator is None:
            raise PortNotOpenError()
        return self._pipe, self.simulator

    @property
    def in_waiting(self):
        pipe, _ = self._check()
        try:
            return pipe.in_waiting
        except OSError as e:
            raise SerialException(f"device disconnected: {e}") from e

    def read(self, size=1):
        pipe, _ = self._check()
        timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        data = bytearray()
        try:
            while len(data) < size:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                chunk = pipe.recv(size - len(data), left)
                if not chunk:
                    break
                data += chunk
                if timeout == 0:
                    break
        except OSError as e:
            raise SerialException(f"device disconnected: {e}") from e
        return bytes(data)

    def write(self, data):
        pipe, _ = self._check()
        data = bytes(data)
        try:
            pipe.send(data)
        except OSError as e:
            raise SerialException(f"device disconnected: {e}") from e
        return len(data)

    def flush(self):
        pass   # bytes reach the table as soon as write() returns

    def reset_input_buffer(self):
        pipe, _ = self._check()
        pipe.reset_input()

    def reset_output_buffer(self):
        self._check()

    def cancel_read(self):
        pass

    @property
    def out_waiting(self):
        return 0

    def _update_break_state(self):
        pass

    def _update_rts_state(self):
        pass

    def _update_dtr_state(self):
        pass

    @property
    def cts(self):
        return True

    @property
    def dsr(self):
        return True

    @property
    def ri(self):
        return False

    @property
    def cd(self):
        return True
