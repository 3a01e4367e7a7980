"""The club's ``tablectl`` configuration file (TOML), checked key by key.

::

    db = "/var/lib/jantaku/jantaku.db"     # the shared store (relative: to this file)
    log_dir = "/var/log/jantaku/tablectl"   # one rotating traffic log per table
    lock_dir = "/run/lock"                  # device lock files (LCK..ttyUSB0, with our pid)
    timezone = "Asia/Tokyo"                 # the club's time zone, for every time staff read

    [link]                                  # optional; these are the defaults
    timeout = 0.25        # seconds to wait for a reply before retransmitting
    retries = 3           # retransmissions before a command times out
    reply_timeout = 150   # seconds a long command (a cycle) may take beyond twice its duration
    backoff_min = 0.05    # first reconnect delay; doubles up to backoff_max, jittered
    backoff_max = 0.5     # low on purpose: a table must be back within 1 s of its line
    history = 64          # frames kept (both directions) to dump on a failure
    in_doubt_timeout = 30 # s a command on the wire waits for its lost table, then timed_out
    refresh = 10          # s between status reads of an idle, connected table

    [[tables]]
    id = "t1"                  # the name staff type: tablectl cycle t1
    name = "卓1 (窓側)"
    url = "/dev/jantaku/t1"    # or socket://host:port, rfc2217://host:port, sim://
    driver = "jpex-link"       # how the table is driven (tablectl.drivers)
    baudrate = 115200          # serial settings: baudrate, bytesize, parity, stopbits,
                               # rtscts, xonxoff, dtr, rts (defaults: the driver's)
    camera = "/dev/video0"     # optional: a USB camera on the table's number display
    camera_region = [[212, 140], [388, 146], [386, 236], [210, 230]]
                               # the digits' corners in its picture, clockwise from top left

A bad file is refused with :class:`ConfigError`: its words name the file, the
key, the value and the values allowed (``table.code.config_*`` in the catalogue).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Collection

from groundwork.options import Options, read_toml

from .camera import CAMERA_KEYS, camera_settings
from .drivers import driver_class, driver_names
from .settings import ConfigError as ConfigError  # the config's refusals, for its callers
from .settings import LinkSettings, SerialSettings, TableConfig, serial_settings

DEFAULT_LOCK_DIR = "/run/lock"
DEFAULT_TIMEZONE = "Asia/Tokyo"
_LINK_LIMITS = {"retries": (0, 20), "history": (1, 100_000)}


@dataclass(frozen=True)
class Config:
    path: str
    db: str
    log_dir: str
    link: LinkSettings
    tables: tuple[TableConfig, ...]
    lock_dir: str = DEFAULT_LOCK_DIR
    timezone: str = DEFAULT_TIMEZONE

    def table(self, table_id: str) -> TableConfig:
        for t in self.tables:
            if t.id == table_id:
                return t
        raise ConfigError(code="config_bad_value", where=self.path, setting="table", value=table_id,
                          allowed=", ".join(t.id for t in self.tables))


_ID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
_TOP = ("db", "log_dir", "lock_dir", "timezone", "link", "tables", "models",
        "printer", "notify")  # the web's print worker reads [printer], its sender [notify]


def load_config(path: str | Path, tables: bool = True) -> Config:
    """Read and check a club TOML file; relative paths are taken from its folder.

    ``tables=False`` reads only the file's own settings (the store, the time zone):
    enough for the staff CLI, which never opens a table, and it loads no driver."""
    p = Path(path)
    data = read_toml(p, lambda: ConfigError(code="config_missing", path=str(p)),
                     lambda e: _unreadable(e, str(p)))
    return config_from_mapping(data, p, tables)


def _unreadable(e: Exception, path: str) -> ConfigError:
    if isinstance(e, tomllib.TOMLDecodeError):
        return ConfigError(code="config_toml", path=path, reason=str(e))
    return ConfigError(code="config_unreadable", path=path,
                       reason=getattr(e, "strerror", None) or type(e).__name__)


def config_from_mapping(data: dict[str, Any], path: Path, tables: bool = True) -> Config:
    where = str(path)
    base = path.resolve().parent
    _known(data, _TOP, where)
    db = data.get("db")
    if not isinstance(db, str) or not db:
        raise ConfigError(code="config_missing_key", where=where, setting="db",
                          allowed='db = "/var/lib/jantaku/jantaku.db"')
    db_path = base / db
    if db_path.is_dir():
        raise ConfigError(code="config_db_folder", path=where, db=str(db_path))
    log_dir = _text(data, "log_dir", "logs", where)
    lock_dir = _text(data, "lock_dir", DEFAULT_LOCK_DIR, where)
    tz = _timezone(data.get("timezone", DEFAULT_TIMEZONE), where)
    raw_tables = data.get("tables", []) if tables else []
    if not isinstance(raw_tables, list):
        raise ConfigError(code="config_bad_value", where=where, setting="tables", value=raw_tables,
                          allowed="[[tables]] entries")
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise ConfigError(code="config_bad_value", where=where, setting="models",
                          value=repr(models), allowed="[models.NAME] sections of switch steps")
    configured = tuple(_table(t, i, where, models, str(base))
                       for i, t in enumerate(raw_tables))
    ids = [t.id for t in configured]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ConfigError(code="config_duplicate_ids", path=where, ids=", ".join(dupes))
    _one_table_per_port(configured, base, where)
    return Config(path=where, db=str(db_path), log_dir=str(base / log_dir),
                  link=_link(data.get("link", {}), where), tables=configured,
                  lock_dir=str(base / lock_dir), timezone=tz)


def port_key(url: str, base: Path) -> str | None:
    """What identifies the port behind ``url``: the device a path leads to, the host and
    port of a network serial server, a simulated table's name; None for a port no other
    table can share (an unnamed ``sim://`` table is a new table each time)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return os.path.realpath(base / url)
    scheme = scheme.lower()
    place = rest.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    if scheme == "sim":
        return f"sim://{place}" if place else None
    return f"{scheme}://{place.lower()}"


def _one_table_per_port(tables: tuple[TableConfig, ...], base: Path, where: str) -> None:
    """Two tables on one port would fight over it (the daemon opens a port exclusively,
    so one of them could never be driven): refused, naming both tables."""
    seen: dict[str, TableConfig] = {}
    for t in tables:
        key = port_key(t.url, base)
        if key is None:
            continue
        first = seen.setdefault(key, t)
        if first is not t:
            raise ConfigError(code="config_shared_port", path=where, first=first.id,
                              second=t.id, port=t.url if t.url == first.url
                              else f"{first.url} = {t.url}")


def _known(raw: dict[str, Any], allowed: Collection[str], where: str) -> None:
    for k in raw:
        if k not in allowed:
            raise ConfigError(code="config_unknown_key", where=where, setting=k,
                              allowed=", ".join(allowed))


def _text(data: dict[str, Any], key: str, default: str, where: str) -> str:
    v = data.get(key, default)
    if not isinstance(v, str) or not v:
        raise ConfigError(code="config_bad_value", where=where, setting=key, value=repr(v),
                          allowed="a folder path in quotes")
    return v


def _timezone(name: object, where: str) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(str(name))
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(code="config_bad_value", where=where, setting="timezone",
                          value=repr(name), allowed='an IANA name such as "Asia/Tokyo"') from None
    return str(name)


def _link(raw: Any, where: str) -> LinkSettings:
    where = f"{where} [link]"
    if not isinstance(raw, dict):
        raise ConfigError(code="config_bad_value", where=where, setting="link", value=repr(raw),
                          allowed="a [link] table of settings")
    names = {f.name: f.type for f in fields(LinkSettings)}
    _known(raw, names, where)
    options = Options(raw, lambda key, value, allowed: ConfigError(
        code="config_bad_value", where=where, setting=key, value=repr(value), allowed=allowed))
    return LinkSettings(**{k: options.getint(k, minval=_LINK_LIMITS[k][0],
                                             maxval=_LINK_LIMITS[k][1])
                           if names[k] == "int" else options.getfloat(k, above=0)
                           for k in raw})


_TABLE_KEYS = ("id", "url", "name", "driver")


def _table(raw: Any, index: int, path: str, models: dict[str, Any],
           base: str = ".") -> TableConfig:
    where = f"{path} [[tables]] #{index + 1}"
    if not isinstance(raw, dict):
        raise ConfigError(code="config_bad_value", where=where, setting="tables", value=repr(raw),
                          allowed="a table with id and url")
    tid, url = raw.get("id"), raw.get("url")
    if not isinstance(tid, str) or not _ID.match(tid):
        raise ConfigError(code="config_bad_value", where=where, setting="id", value=repr(tid),
                          allowed="1-32 letters, digits, '.', '_' or '-'")
    where = f"{where} ({tid})"
    if not isinstance(url, str) or not url:
        raise ConfigError(code="config_missing_key", where=where, setting="url",
                          allowed="a device path, socket://host:port, rfc2217://host:port "
                                  "or sim://")
    driver = raw.get("driver", "jpex-link")
    if not isinstance(driver, str):
        raise ConfigError(code="config_bad_value", where=where, setting="driver",
                          value=repr(driver), allowed=", ".join(driver_names()))
    cls = driver_class(driver, where)
    serial_keys = {f.name for f in fields(SerialSettings)} | {"baud"}
    allowed = (*_TABLE_KEYS, *sorted(serial_keys), *CAMERA_KEYS, *cls.OPTIONS,
               *getattr(cls, "TEXT_OPTIONS", ()))
    _known(raw, allowed, where)
    serial = serial_settings({k: v for k, v in raw.items() if k in serial_keys},
                             cls.SERIAL_DEFAULTS, where)
    options = {}
    for name, option in cls.OPTIONS.items():
        options[name] = option.check(raw.get(name, option.default), name, where)
    check_options = getattr(cls, "check_options", None)
    if check_options is not None:       # a driver's own settings beyond whole numbers
        options = check_options(raw, options, where, models)
    return TableConfig(id=tid, url=url, name=str(raw.get("name", "")), driver=driver,
                       serial=serial, options=options, camera=camera_settings(raw, where, base))
