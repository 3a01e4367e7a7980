"""The receipt printer of ``club.toml`` (its ``[printer]`` section), checked key by key.

::

    [printer]
    kind = "network"        # "usb", "network", "file" or "none" (the default: no printer)
    host = "192.168.1.50"   # network: the printer's address; port 9100 (raw TCP) unless given
    port = 9100
    # vendor_id = 0x04b8    # usb: the printer's USB ids (lsusb shows them)
    # product_id = 0x0202
    # path = "/dev/usb/lp0" # file: a device (the kernel's usblp driver) or a file
    width_mm = 80           # the paper: 58 or 80
    profile = "TM-T88V"     # optional: a python-escpos printer profile
    timeout = 10            # optional: seconds to wait for the printer (network)

A bad value is refused with a :class:`~web.errors.UserError` that names the file, the key,
the value and what it allows; a file without ``[printer]`` has no printer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from club.errors import UserError
from club.printing import receipt
from groundwork.options import Options, is_whole, read_toml

KINDS = ("none", "usb", "network", "file")
WIDTHS = (58, 80)
_KEYS = {
    "none": (),
    "usb": ("vendor_id", "product_id"),
    "network": ("host", "port"),
    "file": ("path",),
}
_COMMON = ("kind", "width_mm", "profile", "timeout")


@dataclass(frozen=True)
class PrinterConfig:
    """Where the receipts go and on what paper."""

    kind: str = "none"
    width_mm: int = 80
    profile: str | None = None
    host: str = ""
    port: int = 9100
    vendor_id: int = 0
    product_id: int = 0
    path: str = ""
    timeout: float = 10.0

    def where(self) -> str:
        """The printer as staff would name it: ``192.168.1.50:9100``, ``usb 04b8:0202``."""
        if self.kind == "network":
            return f"{self.host}:{self.port}"
        if self.kind == "usb":
            return f"usb {self.vendor_id:04x}:{self.product_id:04x}"
        return self.path if self.kind == "file" else ""

    def columns(self) -> int:
        """Font A columns on this paper (the profile's, when it names them for it)."""
        return receipt.columns(self.width_mm, _profile_columns(self.profile, self.width_mm))


def _refuse(where: str, key: str, value: Any, allowed: str) -> UserError:
    return UserError("print.err.config", where=where, setting=key, value=repr(value),
                     allowed=allowed)


def _profile_columns(profile: str | None, width_mm: int) -> int | None:
    if not profile:
        return None
    from escpos.capabilities import CAPABILITIES

    data = CAPABILITIES["profiles"].get(profile) or {}
    mm = ((data.get("media") or {}).get("width") or {}).get("mm")
    font_a = ((data.get("fonts") or {}).get("0") or {}).get("columns")
    return int(font_a) if mm == width_mm and font_a else None


def load(path: str | Path) -> PrinterConfig:
    """The ``[printer]`` of a club file (no section: no printer); refused in words."""
    p = Path(path)
    data = read_toml(p, lambda: UserError("print.err.no_config", path=str(p)),
                     lambda e: UserError("print.err.bad_config", path=str(p), reason=str(e)))
    return from_mapping(data.get("printer"), str(p))


def from_mapping(raw: Any, where: str = "club.toml") -> PrinterConfig:
    """Check a ``[printer]`` table (None: no printer)."""
    where = f"{where} [printer]"
    if raw is None:
        return PrinterConfig()
    if not isinstance(raw, dict):
        raise _refuse(where, "printer", raw, "a [printer] table")
    options = Options(raw, lambda key, value, allowed: _refuse(where, key, value, allowed))
    kind = options.getchoice("kind", KINDS, "none")
    allowed = (*_COMMON, *_KEYS[kind])
    for key in raw:
        if key not in allowed:
            raise _refuse(where, key, raw[key], f'keys of kind = "{kind}": ' + ", ".join(allowed))
    out: dict[str, Any] = {"kind": kind, **_paper(options, where), **_place(kind, options)}
    return PrinterConfig(**out)


def _paper(options: Options, where: str) -> dict[str, Any]:
    """The keys every kind has: the paper's width, the profile, the timeout."""
    raw = options.values
    out: dict[str, Any] = {"width_mm": options.getchoice("width_mm", WIDTHS, 80, "58 or 80")}
    if "profile" in raw:
        from escpos.capabilities import CAPABILITIES

        names = CAPABILITIES["profiles"]
        if not isinstance(raw["profile"], str) or raw["profile"] not in names:
            examples = [n for n in ("default", "TM-T88V", "TM-T20II", "TM-m30") if n in names]
            raise _refuse(where, "profile", raw["profile"],
                          "a python-escpos profile such as " + ", ".join(examples))
        out["profile"] = raw["profile"]
    if "timeout" in raw:
        out["timeout"] = options.getfloat("timeout", above=0, maxval=120)
    return out


def _place(kind: str, options: Options) -> dict[str, Any]:
    """Where a printer of ``kind`` is: its address, USB ids or device."""
    if kind == "network":
        host = options.gettext("host", allowed='the printer\'s address, e.g. "192.168.1.50"',
                               empty=False)
        return {"host": host.strip(), "port": options.getint("port", 9100, 1, 65535)}
    if kind == "usb":
        return {key: _usb_id(options, key) for key in ("vendor_id", "product_id")}
    if kind == "file":
        return {"path": options.gettext("path", allowed='a device or file, e.g. "/dev/usb/lp0"',
                                        empty=False)}
    return {}


def _usb_id(options: Options, key: str) -> int:
    """A USB id 1..0xFFFF, written as a number or as hex text ("04b8" or "0x04b8")."""
    value: Any = options.values.get(key)
    if isinstance(value, str):
        try:
            value = int(value, 16)
        except ValueError:
            pass
    options.check(key, is_whole(value) and 1 <= value <= 0xFFFF, value,
                  "a whole number 1..65535 (hex as 0x04b8)")
    return int(value)
