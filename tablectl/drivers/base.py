"""The driver interface: what the daemon needs from a table, whatever kind it is.

The daemon (:mod:`tablectl.daemon`) keeps the journal, the one-command-at-a-time
rule, the table state and events in the store, and decides what happens to a
command left in doubt. A driver knows one kind of table: how to reach it
(:meth:`Driver.connect`), how to identify it, how to carry out each staff
command it can do (:meth:`Driver.run`), how to read its state
(:meth:`Driver.refresh`) and which events it reports.

**Run once, per capability.** Each command a driver can do is listed in
:meth:`Driver.capabilities` with its :class:`RunOnce` guarantee, which is what
the daemon relies on when a command was sent but no answer was journalled
(the daemon was killed, the line went dead):

* ``replayed``: the table remembers the last command it ran and answers a
  repeat of it (same token) from memory without running it again, for as long
  as it has not restarted (JP-EX: sequence number and duplicate memory, boot id);
  the daemon repeats such a command with the same token;
* ``repeatable``: running it twice has the effect of running it once (reading,
  selecting a mode); after a restart of the table it is simply asked again;
* neither: the command is never repeated; it fails as in doubt and staff check
  the table (the conservative handling for a table without sequence memory).
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Protocol

from ..errors import TableError
from ..settings import ConfigError, LinkSettings, SerialSettings, TableConfig


@dataclass(frozen=True)
class RunOnce:
    """How a command in doubt is resolved without running it twice (module docstring)."""

    replayed: bool
    repeatable: bool

    def __str__(self) -> str:
        if self.replayed:
            return "replayed from the table's memory" + (", else asked again"
                                                         if self.repeatable else "")
        return "asked again" if self.repeatable else "never repeated: staff check the table"


UNKNOWN = RunOnce(replayed=False, repeatable=False)


@dataclass(frozen=True)
class Option:
    """A driver's own setting in a table's entry (``channel = 1``), with its range."""

    default: int
    low: int
    high: int
    unit: str = ""

    def check(self, value: Any, name: str, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) \
                or not self.low <= value <= self.high:
            raise ConfigError(code="config_bad_value", where=where, setting=name, value=repr(value),
                              allowed=f"a whole number {self.low}..{self.high}{self.unit}")
        return value


@dataclass(frozen=True)
class Identity:
    """Who answered on the line, as a driver found it at connect."""

    model: str
    firmware: str = ""
    boot_id: int | None = None
    """Changes at every power-on of the table; None: the table cannot tell."""
    remembered: tuple[int, int] | None = None
    """The token and wire type of the last command the table says it ran."""
    features: dict[str, Any] = field(default_factory=dict)
    """What staff should know about this table (``auto_deal``, ``ic_point_sticks``...)."""
    state: dict[str, Any] | None = None
    """The table's whole state, or None for a table that cannot report it."""


@dataclass
class Outcome:
    """How a command ended: ``done`` or ``failed`` with a code and the values of its words."""

    status: str
    result: dict[str, Any] | None = None
    code: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    changed: bool = False
    """The table's state may have changed: the daemon reads it again."""

    @classmethod
    def done(cls, result: dict[str, Any] | None = None, changed: bool = False) -> "Outcome":
        return cls("done", result, changed=changed)

    @classmethod
    def failed(cls, code: str, result: dict[str, Any] | None = None, changed: bool = True,
               **values: Any) -> "Outcome":
        return cls("failed", result, code, values, changed)


@dataclass(frozen=True)
class TableEvent:
    """Something the table reported by itself (``kind`` as in ``table.event.<kind>``)."""

    kind: str
    code: str = ""
    values: dict[str, Any] = field(default_factory=dict)


class LinkDown(TableError):
    """The table cannot be reached or stopped answering; ``code`` says why in words
    (``table.link.<code>``). ``retry`` False: trying again cannot help (an unsupported
    protocol version) until the configuration is reloaded."""

    code = "lost"
    retry = True

    def __init__(self, detail: str = "", code: str | None = None,
                 frames: Iterable[str] = (), **values: Any) -> None:
        super().__init__(detail, code, **values)
        self.frames = list(frames)

    @property
    def key(self) -> str:
        return f"table.link.{self.code}"


class Unsupported(LinkDown):
    retry = False


class Stopping(Exception):
    """The daemon is stopping while a command waits on the table."""


class Job(Protocol):
    """What the daemon gives a driver for one command (see :class:`tablectl.daemon.Job`)."""

    command: str
    args: dict[str, Any]
    resend: int | None
    """Re-send with this token (the daemon resolves a command in doubt); None: a new one."""

    def sent(self, token: int) -> None:
        """Journal the token BEFORE the first byte goes out (raises if it cannot)."""

    def started(self, progress: dict[str, Any]) -> None:
        """Journal the table's first answer to a long command: from now on it ran."""

    def wait(self, seconds: float) -> None:
        """Wait (the daemon stores events meanwhile); raises :class:`Stopping`."""

    def state(self, state: dict[str, Any]) -> None:
        """The table's state as seen during the command."""


class Driver(ABC):
    """One table of one kind. The daemon calls it from the table's own thread only;
    ``on_event`` may be called from the driver's reader thread."""

    NAME: ClassVar[str] = ""
    SERIAL_DEFAULTS: ClassVar[SerialSettings] = SerialSettings()
    OPTIONS: ClassVar[dict[str, Option]] = {}

    def __init__(self, table: TableConfig, link: LinkSettings, *, lock_dir: str | None,
                 on_event: Callable[[TableEvent], None], log: logging.Logger | None = None):
        self.table, self.link_settings, self.lock_dir = table, link, lock_dir
        self.on_event = on_event
        self.log = log or logging.getLogger(f"tablectl.table.{table.id}")

    @classmethod
    @abstractmethod
    def capabilities(cls) -> dict[str, RunOnce]:
        """The staff commands this table can do, each with its run-once guarantee."""

    @abstractmethod
    def connect(self) -> Identity:
        """Open the line and identify the table; raises :class:`LinkDown`."""

    @abstractmethod
    def close(self) -> None:
        """Release the line (safe to call twice)."""

    @property
    @abstractmethod
    def connected(self) -> bool:
        """False once the line failed or the table asked to be identified again."""

    @abstractmethod
    def run(self, job: Job) -> Outcome:
        """Carry out ``job.command``; raises :class:`LinkDown` if the line fails."""

    def remember(self, state: dict[str, Any] | None) -> None:
        """The table's state as an earlier run stored it, given before :meth:`connect`
        (a driver that cannot read its table keeps what it believes there)."""
        return None

    def resume(self, job: Job, progress: dict[str, Any]) -> Outcome:
        """Follow a long command the journal says was started (by this or an earlier
        run of the daemon) to its end. Drivers without long commands never get one."""
        return Outcome.failed("in_doubt_unknown", progress)

    def refresh(self) -> dict[str, Any] | None:
        """The table's state now (None: this table cannot report it)."""
        return None

    def ran(self, token: int, command: str, identity: Identity) -> bool:
        """Whether ``identity`` (a fresh connect) shows that the command sent with
        ``token`` ran on the table (for a command given up while the line was down)."""
        return False

    def dump(self) -> list[str]:
        """The last frames on the line, for the log of a failure."""
        return []
