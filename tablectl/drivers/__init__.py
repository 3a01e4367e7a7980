"""Table drivers: how the daemon drives one kind of table, behind one interface.

A table's entry in ``club.toml`` names its driver (``driver = "jpex-link"``).
Built in:

* ``jpex-link``: the AMOS JP-EX link protocol (docs/protocol.md), every command;
* ``lcus-relay``: a CH340 "LCUS" USB relay board wired across a table's start
  button (docs/tablectl.md, "Drivers"); it can start a cycle and nothing else;
* ``jpex-panel``: a stock JP-EX driven through its own switches by a relay board
  (docs/tablectl.md, "The jpex-panel driver").

Other packages add drivers through the ``jantaku.table_drivers`` entry-point
group (name -> a :class:`~tablectl.drivers.base.Driver` subclass). Drivers are
imported only when a table uses them: the staff CLI loads none.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from ..settings import ConfigError

GROUP = "jantaku.table_drivers"
BUILTIN = {
    "jpex-link": "tablectl.drivers.jpex:JpexLinkDriver",
    "lcus-relay": "tablectl.drivers.relay:LcusRelayDriver",
    "jpex-panel": "tablectl.drivers.panel:JpexPanelDriver",
}


@cache
def _installed() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=GROUP)}


def driver_names() -> list[str]:
    """Every driver a table may name: the built-in ones and those installed packages add."""
    return sorted({**BUILTIN, **_installed()})


def driver_class(name: str, where: str = "club.toml") -> Any:
    """The driver class called ``name``; :class:`ConfigError` naming the drivers there are."""
    target = BUILTIN.get(name) or _installed().get(name)
    if target is None:
        raise ConfigError(code="config_unknown_driver", where=where, driver=name,
                          allowed=", ".join(driver_names()))
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
