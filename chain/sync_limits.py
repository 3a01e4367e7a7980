"""How long the sync waits, and for what: every wait is bounded, each bound a setting.

A sync that waits without end holds its branch's lock and makes the next timer run
queue behind it; so every place it waits has a limit, and reaching one ends the run
with one line in words and exit 1 (the next run starts from the head office's mark):

* ``connect_timeout``: reaching the head office and signing in (libpq's);
* ``statement_timeout``: one statement at the head office (PostgreSQL's); the server
  also ends a session left idle inside a transaction after as long
  (``idle_in_transaction_session_timeout``), so a sync frozen mid-batch gives its lock up;
* ``lock_timeout``: waiting for a lock at the head office (the branch's advisory lock
  another run holds, a migration, maintenance on a table): a run never queues;
* ``tcp_user_timeout``: data sent and not acknowledged (a cable cut, a peer gone; the
  kernel's), with TCP keepalives (``keepalives_idle``, ``keepalives_interval``,
  ``keepalives_count``) for a connection idle on a silent line;
* the answer: a peer that acknowledges but never answers (a frozen relay or proxy, a
  stopped server process) is caught by none of those, so the sync itself waits for each
  answer at most ``statement_timeout`` + ``connect_timeout`` seconds;
* ``box_busy_timeout``: the club file locked by another writer (SQLite's busy timeout).

Each is given as ``--connect-timeout 10`` on the command line or
``JANTAKU_SYNC_CONNECT_TIMEOUT=10`` in the environment, in whole seconds within bounds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

SETTINGS: dict[str, tuple[int, int, int]] = {
    "connect_timeout": (10, 1, 300),
    "statement_timeout": (120, 1, 3600),
    "lock_timeout": (30, 1, 3600),
    "tcp_user_timeout": (30, 1, 600),
    "keepalives_idle": (10, 1, 600),
    "keepalives_interval": (5, 1, 60),
    "keepalives_count": (3, 1, 20),
    "box_busy_timeout": (30, 1, 600),
}
"""``name: (default, lowest, highest)``, in seconds (``keepalives_count``: probes)."""


def flag(name: str) -> str:
    """The command line option of a setting (``--connect-timeout``)."""
    return "--" + name.replace("_", "-")


def env_name(name: str) -> str:
    """The environment variable of a setting (``JANTAKU_SYNC_CONNECT_TIMEOUT``)."""
    return "JANTAKU_SYNC_" + name.upper()


class LimitError(Exception):
    """A setting out of its bounds: the catalogue key and its values."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key, self.values = key, values


@dataclass(frozen=True)
class Limits:
    """The sync's bounds, in seconds (see the module's words)."""

    connect_timeout: int = SETTINGS["connect_timeout"][0]
    statement_timeout: int = SETTINGS["statement_timeout"][0]
    lock_timeout: int = SETTINGS["lock_timeout"][0]
    tcp_user_timeout: int = SETTINGS["tcp_user_timeout"][0]
    keepalives_idle: int = SETTINGS["keepalives_idle"][0]
    keepalives_interval: int = SETTINGS["keepalives_interval"][0]
    keepalives_count: int = SETTINGS["keepalives_count"][0]
    box_busy_timeout: int = SETTINGS["box_busy_timeout"][0]

    @property
    def answer(self) -> int:
        """The longest the sync waits for one answer from the head office."""
        return self.statement_timeout + self.connect_timeout

    def connect_args(self) -> dict[str, Any]:
        """libpq's connection parameters for these bounds."""
        return {"connect_timeout": self.connect_timeout,
                "tcp_user_timeout": self.tcp_user_timeout * 1000, "keepalives": 1,
                "keepalives_idle": self.keepalives_idle,
                "keepalives_interval": self.keepalives_interval,
                "keepalives_count": self.keepalives_count,
                "application_name": "jantaku-sync"}

    def session_sql(self) -> list[str]:
        """The session's server-side bounds, set once connected."""
        # the server's side of the same TCP bounds: a session whose sync went away for
        # good (power cut, cable) is ended by the server, and its branch lock with it
        return [f"SET statement_timeout = '{self.statement_timeout}s'",
                f"SET lock_timeout = '{self.lock_timeout}s'",
                f"SET idle_in_transaction_session_timeout = '{self.statement_timeout}s'",
                f"SET tcp_keepalives_idle = {self.keepalives_idle}",
                f"SET tcp_keepalives_interval = {self.keepalives_interval}",
                f"SET tcp_keepalives_count = {self.keepalives_count}",
                f"SET tcp_user_timeout = {self.tcp_user_timeout * 1000}"]


def check(name: str, raw: Any, source: str) -> int:
    """One setting's value as whole seconds within its bounds, or :class:`LimitError`
    naming where it was given (``source``) and what it may be."""
    _, low, high = SETTINGS[name]
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise LimitError("sync.err.bad_limit", option=source, value=str(raw)[:20], low=low,
                         high=high)
    return value


def from_args(args: Any, environ: dict[str, str] | None = None) -> Limits:
    """The bounds from parsed arguments, else the environment, else the defaults."""
    env = os.environ if environ is None else environ
    values: dict[str, int] = {}
    for name in SETTINGS:
        given = getattr(args, name, None)
        if given is not None:
            values[name] = check(name, given, flag(name))
        elif env.get(env_name(name), "") != "":
            values[name] = check(name, env[env_name(name)], env_name(name))
    return Limits(**values)


def add_arguments(p: Any) -> None:
    """One option per setting on the ``sync`` subcommand."""
    for name, (default, low, high) in SETTINGS.items():
        unit = "probes" if name == "keepalives_count" else "seconds"
        p.add_argument(flag(name), dest=name, default=None, metavar="N",
                       help=f"{name} in {unit}, {low} to {high} (default {default}, or "
                       f"${env_name(name)})")


def bounded_connection(psycopg: Any, answer: float) -> Any:
    """A psycopg connection class whose every wait for the head office's answer ends
    after ``answer`` seconds (raising :class:`Silent`)."""
    wait_timeout = getattr(psycopg.errors, "_WaitTimeout", None)

    class Bounded(psycopg.Connection):
        def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
            try:
                return super().wait(gen, interval, answer if timeout is None else timeout)
            except psycopg.OperationalError as e:
                if wait_timeout is not None and isinstance(e, wait_timeout):
                    self.pgconn.finish()  # mid-answer: nothing more can be read from it
                    raise Silent(answer) from None
                raise

    return Bounded


class Silent(Exception):
    """The head office did not answer within the sync's answer bound."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no answer in {seconds:g} s")
        self.seconds = seconds


def fault(psycopg: Any, e: BaseException, limits: Limits) -> tuple[str, dict] | None:
    """A timeout met at the head office as a catalogue key and its values; None for any
    other fault."""
    errors = psycopg.errors
    if isinstance(e, Silent):
        return "sync.err.silent", {"seconds": int(e.seconds)}
    if isinstance(e, errors.LockNotAvailable):
        return "sync.err.lock_timeout", {"seconds": limits.lock_timeout}
    if isinstance(e, errors.QueryCanceled):
        return "sync.err.statement_timeout", {"seconds": limits.statement_timeout}
    if isinstance(e, getattr(errors, "IdleInTransactionSessionTimeout", ())):
        return "sync.err.statement_timeout", {"seconds": limits.statement_timeout}
    return None
