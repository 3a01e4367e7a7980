"""The club's ``tablectl`` configuration file (TOML).

::

    db = "/var/lib/jantaku/jantaku.db"     # the shared store (relative: to this file)
    log_dir = "/var/log/jantaku/tablectl"   # one rotating traffic log per table

    [link]                                  # optional; these are the defaults
    timeout = 0.25        # seconds to wait for an ACK before retransmitting
    retries = 3           # retransmissions before a command times out
    reply_timeout = 150   # seconds to wait for a long command (a cycle) to finish
    backoff_min = 0.05    # first reconnect delay; doubles up to backoff_max, jittered
    backoff_max = 0.5     # low on purpose: a table must be back in service within 1 s
                          # of its line returning (each HELLO try already costs 1 s)
    history = 64          # frames kept (both directions) to dump on a failure
    in_doubt_timeout = 30  # s a command on the wire waits for its lost table, then timed_out

    [[tables]]
    id = "t1"                  # the name staff type: tablectl cycle t1
    name = "卓1 (窓側)"
    url = "/dev/ttyUSB0"       # or socket://host:port, rfc2217://host:port, sim://
    baud = 115200

Errors come back as :class:`ConfigError` naming the file, the key and what
to write instead.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .store import StoreError


class ConfigError(StoreError):
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


@dataclass(frozen=True)
class TableConfig:
    id: str
    url: str
    name: str = ""
    baud: int = 115200
    options: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"id": self.id, "name": self.name or self.id, "url": self.url, "baud": self.baud,
                "options": dict(self.options)}


@dataclass(frozen=True)
class Config:
    path: str
    db: str
    log_dir: str
    link: LinkSettings
    tables: tuple[TableConfig, ...]

    def table(self, table_id: str) -> TableConfig:
        for t in self.tables:
            if t.id == table_id:
                return t
        raise ConfigError(f"no table {table_id!r} in {self.path}; "
                          f"tables: {', '.join(t.id for t in self.tables)}")


_ID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")


def load_config(path: str | Path) -> Config:
    """Read and check a club TOML file; relative paths are taken from its folder."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {p} does not exist; pass --config PATH") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read config file {p}: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p} is not valid TOML: {e}") from None
    return config_from_mapping(data, p)


def config_from_mapping(data: dict, path: Path) -> Config:
    base = path.resolve().parent
    unknown = set(data) - {"db", "log_dir", "link", "tables"}
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; "
                          "allowed: db, log_dir, [link], [[tables]]")
    if not isinstance(data.get("db"), str):
        raise ConfigError(f"{path}: missing `db = \"path/to/jantaku.db\"` (the shared store)")
    log_dir = data.get("log_dir", "logs")
    tables = tuple(_table(t, i, path) for i, t in enumerate(data.get("tables", [])))
    ids = [t.id for t in tables]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ConfigError(f"{path}: table id(s) {', '.join(dupes)} appear more than once")
    return Config(path=str(path), db=str(base / data["db"]), log_dir=str(base / log_dir),
                  link=_link(data.get("link", {}), path), tables=tables)


def _link(raw: Any, path: Path) -> LinkSettings:
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: [link] must be a table of settings")
    names = {f.name: f.type for f in fields(LinkSettings)}
    out = {}
    for k, v in raw.items():
        if k not in names:
            raise ConfigError(f"{path}: unknown [link] setting {k!r}; allowed: {', '.join(names)}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            raise ConfigError(f"{path}: [link] {k} must be a positive number, got {v!r}")
        out[k] = int(v) if names[k] == "int" else float(v)
    return LinkSettings(**out)


def _table(raw: Any, index: int, path: Path) -> TableConfig:
    where = f"{path}: [[tables]] #{index + 1}"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table with id and url")
    tid, url = raw.get("id"), raw.get("url")
    if not isinstance(tid, str) or not _ID.match(tid):
        raise ConfigError(f"{where}: id must be 1-32 letters, digits, '.', '_' or '-', got {tid!r}")
    if not isinstance(url, str) or not url:
        raise ConfigError(f"{where} ({tid}): missing url (a device path, socket://host:port, "
                          "rfc2217://host:port or sim://)")
    baud = raw.get("baud", 115200)
    if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
        raise ConfigError(f"{where} ({tid}): baud must be a positive whole number, got {baud!r}")
    options = {k: v for k, v in raw.items() if k not in {"id", "url", "name", "baud"}}
    return TableConfig(id=tid, url=url, name=str(raw.get("name", "")), baud=baud, options=options)
