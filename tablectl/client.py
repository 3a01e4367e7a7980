"""Request a table command and wait for its outcome: the one client of the CLI and the web.

::

    client = TableClient(db_path, source="cli", actor="ops", tz="Asia/Tokyo")
    answer = client.send("t1", "mode", {"mode": 4})
    print(answer.text("ja"))        # what the table answered, in words

The client writes the request (the store refuses what cannot be asked: an unknown
table, bad arguments, a command the table's driver cannot do, another command in
flight), waits for the daemon's outcome, and when nothing took the request in
time withdraws it and says why in words: the daemon is not running, the table is
not connected (and why), or the daemon did not get to it. A mode change asked
while a cycle runs waits through the cycle as pending instead of timing out.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from . import commands, store, words

POLL_S = 0.02


@dataclass
class Answer:
    """How a request ended, for a person (:meth:`text`) or a script (``row``)."""

    state: str
    """``done``, ``failed``, ``timed_out``, ``running`` (still carried out when the wait
    ended), ``queued`` or ``pending`` (not taken yet, left for the daemon)."""
    row: dict[str, Any]
    tz: str = "Asia/Tokyo"

    @property
    def ok(self) -> bool:
        return self.state in ("done", "running", "queued", "pending")

    @property
    def exit_code(self) -> int:
        """0 done, 1 the table said no or it did not happen, 3 still running."""
        return {"done": 0, "running": 3, "queued": 3, "pending": 3}.get(self.state, 1)

    def text(self, lang: str) -> str:
        """The outcome in words."""
        return commands.describe(self.row, lang, self.tz)


class TableClient:
    """Requests on behalf of ``actor`` through ``source`` (``cli``, ``web``)."""

    def __init__(self, db_path: str, *, source: str, actor: str = "",
                 tz: str = "Asia/Tokyo", lang: str = words.BOTH):
        self.db_path, self.source, self.actor, self.tz = db_path, source, actor, tz
        self.lang = lang            # the language of notes (answers: Answer.text(lang))

    def send(self, table_id: str, command: str, args: dict[str, Any] | None = None, *,
             key: str | None = None, wait: float | None = None,
             expires_in: float | None = None, withdraw: bool = True,
             through_pending: bool = True,
             note: Callable[[str], None] | None = None) -> Answer:
        """Ask for ``command`` and wait up to ``wait`` s (default: the command's own).

        Refusals raise :class:`~tablectl.store.StoreError` (its ``text(lang)`` says
        why; :class:`~tablectl.store.CommandInFlight` names what is in flight). With
        ``withdraw`` a request nobody took within the wait is withdrawn (never sent
        later); without, it stays queued until ``expires_in`` (default: the wait). A
        command pending behind one in flight (a mode change behind a cycle) is waited for
        through it (``through_pending``; a web page rather answers "pending" at once).
        ``note(words)`` is told at once when the daemon does not seem to run.
        """
        spec = commands.get(command)
        wait = spec.wait if wait is None else wait
        key = key or f"{self.source}-{uuid.uuid4()}"
        try:
            cid = store.request_command(self.db_path, table_id, command, args, key,
                                        expires_in=wait if expires_in is None else expires_in,
                                        source=self.source, actor=self.actor)
        except store.CommandInFlight as e:
            e.tz = self.tz
            raise
        except sqlite3.OperationalError as e:
            if not store.is_locked(e):
                raise
            raise store.StoreError(code="db_locked") from None
        daemon = store.daemon_status(self.db_path)
        if note is not None and not daemon["running"]:
            note(words.in_both(lambda lang: words.say(
                "table.wait.daemon_down", lang, id=cid, wait=f"{wait:g}",
                age=words.daemon_age(daemon["state"], daemon["age_s"], lang)), self.lang))
        row = self._wait(cid, wait, through_pending)
        return self._answer(row, wait, withdraw)

    def _wait(self, cid: int, wait: float, through_pending: bool) -> dict[str, Any]:
        deadline = time.monotonic() + wait
        while True:
            row = store.get_command(self.db_path, cid)
            if row["status"] in store.TERMINAL:
                return row
            if through_pending and row["status"] == "queued" and row["waits_for"]:
                blocker = store.get_command(self.db_path, row["waits_for"])
                if blocker["status"] not in store.TERMINAL:
                    # pending behind a running cycle: its own wait starts when the cycle ends
                    deadline = max(deadline, time.monotonic() + wait)
            if time.monotonic() >= deadline:
                return row
            time.sleep(POLL_S)

    def _answer(self, row: dict[str, Any], wait: float, withdraw: bool) -> Answer:
        if row["status"] in store.TERMINAL:
            return Answer(row["status"], row, self.tz)
        if row["status"] == "sending":
            return Answer("running", row, self.tz)
        if not withdraw:
            return Answer("pending" if row["waits_for"] else "queued", row, self.tz)
        code, values = self._why_not_taken(row, wait)
        row = store.withdraw_command(self.db_path, row["id"], code=code, values=values)
        return Answer(row["status"], row, self.tz) if row["status"] in store.TERMINAL \
            else Answer("running", row, self.tz)

    def _why_not_taken(self, row: dict[str, Any], wait: float) -> tuple[str, dict[str, Any]]:
        daemon = store.daemon_status(self.db_path)
        if not daemon["running"]:
            return "not_sent_daemon_down", {"state": daemon["state"],
                                            "age_s": round(daemon["age_s"] or 0)}
        table = store.get_table(self.db_path, row["table_id"])
        if not table["connected"]:
            return "not_sent_disconnected", {"table": row["table_id"],
                                             "reason_code": table.get("last_error"),
                                             "reason_values": table.get("last_error_values")}
        return "not_sent_waited", {"wait": f"{wait:g}"}
