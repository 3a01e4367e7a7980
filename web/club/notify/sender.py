"""The sender: a process of its own (``python -m web notify``) that empties the outbox.

It takes the rows whose time has come, oldest first, one at a time: counts the try,
sends on the row's channel, marks the row sent. A failed try waits (doubling from
``first_retry`` up to ``max_retry``) and after ``attempts`` tries the row is ``failed``,
said in words on the console it runs on (journalctl) and on the staff's notify page.

Killed at any moment (kill -9 included), it loses nothing: a row is ``sent`` only after
its channel accepted it, so an unmarked row is sent again at the next start. On LINE
the retry key makes that harmless; by e-mail see :func:`channels.send_mail`.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import lexicon

from web.club.notify import channels, outbox, words
from web.club.notify.config import Settings, load
from web.db import AlreadyRunning, Db, Row, connect, one_per_club
from web.errors import UserError

PAUSE_ENV = "JANTAKU_NOTIFY_TEST_PAUSE"
"""Tests only: ``before_send`` or ``after_send`` makes the sender stop at that point of
its first message (it prints ``paused <point> <row id>`` and waits to be killed)."""


def _pause(point: str, row: Row) -> None:
    if os.environ.get(PAUSE_ENV) == point:
        print(f"paused {point} {row['id']}", flush=True)
        while True:
            time.sleep(3600)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def send_one(db: Db, settings: Settings, row: Row,
             say: Callable[[str], None] = _say) -> str:
    """Try one due row; its state after the try (``sent``, ``queued`` or ``failed``)."""
    outbox.attempt(db, row["id"])
    tries = row["attempts"] + 1
    _pause("before_send", row)
    try:
        subject, text = words.render(db, row)
    except Exception as e:  # a message that cannot be worded is not retried blindly
        return _failed(db, row, f"{type(e).__name__}: {e}", say)
    try:
        if row["channel"] == "line":
            note = channels.send_line(settings, row, text)
        else:
            note = channels.send_mail(settings, row, subject, text)
    except channels.Temporary as e:
        if tries >= settings.attempts:
            return _failed(db, row, str(e), say)
        wait = outbox.backoff(tries, settings.first_retry, settings.max_retry)
        outbox.retry_later(db, row["id"], str(e), datetime.now(timezone.utc) + wait)
        say(lexicon.both("notify.console.retry", message=row["id"], kind=row["kind"],
                         reason=str(e), seconds=int(wait.total_seconds())))
        return "queued"
    except channels.Permanent as e:
        return _failed(db, row, str(e), say)
    _pause("after_send", row)
    outbox.mark_sent(db, row["id"], note)
    return "sent"


def _failed(db: Db, row: Row, reason: str, say: Callable[[str], None]) -> str:
    outbox.mark_failed(db, row["id"], reason)
    say(lexicon.both("notify.console.failed", message=row["id"], kind=row["kind"],
                     channel=row["channel"], reason=reason))
    return "failed"


def run_once(db: Db, settings: Settings, say: Callable[[str], None] = _say) -> int:
    """Send every row due now; the number of rows tried."""
    tried = 0
    while True:
        batch = outbox.due(db, datetime.now(timezone.utc))
        if not batch:
            return tried
        for row in batch:
            send_one(db, settings, row, say)
            tried += 1


def run(db_path: str, settings: Settings, *, once: bool = False) -> int:
    """Empty the outbox, then look again every ``poll`` seconds until SIGTERM or Ctrl-C."""
    stop = {"now": False}

    def _stop(_signum: int, _frame: Any) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, _stop)
    db = connect(db_path)
    _say(lexicon.both("notify.console.started", db=db_path))
    try:
        while not stop["now"]:
            run_once(db, settings)
            if once:
                break
            deadline = time.monotonic() + settings.poll
            while not stop["now"] and time.monotonic() < deadline:
                time.sleep(min(0.2, settings.poll))
    except KeyboardInterrupt:
        pass
    finally:
        db.conn.close()
    return 0


def main(args: Any) -> int:
    """``python -m web notify``: check the club file and the settings, then send."""
    from web.club import schema

    if not args.db or not Path(args.db).is_file():
        raise UserError("notify.no_db", path=str(args.db))
    settings = load(args.config)
    schema.prepare(args.db)
    try:
        with one_per_club(args.db, "notify"):
            return run(args.db, settings, once=args.once)
    except AlreadyRunning as e:
        raise UserError("notify.already_running", path=e.path) from None
