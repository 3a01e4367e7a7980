"""The shapes of the daemon's settings: the link's timing, a serial port's settings, a
table's entry, and the error a refused setting raises. :mod:`tablectl.config` reads
them from the club's TOML file; the drivers take them as they are."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from .errors import TableError


class ConfigError(TableError):
    """The configuration is refused; the words say which key and what to write instead."""

    code = "config_error"


@dataclass(frozen=True)
class LinkSettings:
    timeout: float = 0.25
    retries: int = 3
    reply_timeout: float = 150.0
    backoff_min: float = 0.05
    backoff_max: float = 0.5
    history: int = 64
    in_doubt_timeout: float = 30.0
    refresh: float = 10.0


BAUDRATES = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)
BYTESIZES = (5, 6, 7, 8)
PARITIES = ("N", "E", "O", "M", "S")
STOPBITS = (1, 1.5, 2)


@dataclass(frozen=True)
class SerialSettings:
    """How a serial port is set up (pyserial's names). ``dtr``/``rts`` None: as opened."""

    baudrate: int = 115200
    bytesize: int = 8
    parity: str = "N"
    stopbits: float = 1
    rtscts: bool = False
    xonxoff: bool = False
    dtr: bool | None = None
    rts: bool | None = None

    def pyserial(self) -> dict[str, Any]:
        """Keyword arguments for a pyserial port."""
        return {"baudrate": self.baudrate, "bytesize": self.bytesize, "parity": self.parity,
                "stopbits": self.stopbits, "rtscts": self.rtscts, "xonxoff": self.xonxoff}


SERIAL_ALLOWED = {
    "baudrate": ", ".join(map(str, BAUDRATES)),
    "bytesize": "5, 6, 7, 8",
    "parity": '"N" (none), "E" (even), "O" (odd), "M" (mark), "S" (space)',
    "stopbits": "1, 1.5, 2",
    "rtscts": "true, false", "xonxoff": "true, false", "dtr": "true, false", "rts": "true, false",
}


@dataclass(frozen=True)
class CameraSettings:
    """A table's camera in club.toml: ``camera = "/dev/video0"`` and ``camera_region``
    (the display's four corners in the picture, clockwise from the top left; None: not
    set yet, staff drag it on the console's camera page)."""

    device: str
    region: tuple[tuple[float, float], ...] | None = None


@dataclass(frozen=True)
class TableConfig:
    id: str
    url: str
    name: str = ""
    driver: str = "jpex-link"
    serial: SerialSettings = SerialSettings()
    options: dict[str, Any] = field(default_factory=dict)
    camera: CameraSettings | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "name": self.name or self.id, "url": self.url,
               "driver": self.driver, "options": dict(self.options)}
        if self.camera is not None:
            out["camera"] = {"device": self.camera.device,
                             "region": [list(p) for p in self.camera.region]
                             if self.camera.region else None}
        return out


def serial_settings(raw: dict[str, Any], defaults: SerialSettings, where: str) -> SerialSettings:
    """The serial keys of one table (``baud`` is taken as ``baudrate``), checked."""
    out = {}
    for key, value in raw.items():
        name = "baudrate" if key == "baud" else key
        ok = {
            "baudrate": lambda v: isinstance(v, int) and not isinstance(v, bool)
            and v in BAUDRATES,
            "bytesize": lambda v: isinstance(v, int) and not isinstance(v, bool)
            and v in BYTESIZES,
            "parity": lambda v: isinstance(v, str) and v.upper() in PARITIES,
            "stopbits": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
            and v in STOPBITS,
        }.get(name, lambda v: isinstance(v, bool))(value)
        if not ok:
            raise ConfigError(code="config_bad_value", where=where, setting=key, value=repr(value),
                              allowed=SERIAL_ALLOWED[name])
        out[name] = value.upper() if name == "parity" else value
    return SerialSettings(**{**{f.name: getattr(defaults, f.name)
                                for f in fields(SerialSettings)}, **out})
