"""The sender: a process of its own (``python -m club.notify``) that empties the outbox.

It takes the rows whose time has come, oldest first, one worker per channel: sends on
the row's channel and marks the row sent, counting the try with its outcome. A failed
try waits (doubling from ``first_retry`` up to ``max_retry``) and after ``attempts``
tries the row is ``failed``, said in words on the console it runs on (journalctl) and on
the staff's notify page.

Killed at any moment (kill -9 included), it loses nothing: a row is ``sent`` only after
its channel accepted it, so an unmarked row is sent again at the next start. On LINE
the retry key makes that harmless; by e-mail see :func:`channels.send_mail`.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import lexicon
from club.db import Db, Row, connect
from club.notify import channels, outbox, words
from club.notify.config import Settings

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
    """Try one due row; its state after the try (``sent``, ``queued`` or ``failed``).

    A try counts once the channel gave an answer (accepted, refused, or failed in any
    way, a deadline passing included), never because a process was killed mid-send. Any
    exception a sender raises beyond its own refusals is a temporary failure counted
    against the row; a row already at its limit is failed without another try."""
    tries = row["attempts"] + 1
    if row["attempts"] >= settings.attempts:
        return _failed(db, row, row["last_error"] or "no tries left", say, counted=False)
    try:
        subject, text = words.render(db, row)
    except Exception as e:  # a message that cannot be worded is not retried blindly
        return _failed(db, row, f"{type(e).__name__}: {e}", say)
    _pause("before_send", row)
    try:
        if row["channel"] == "line":
            note = channels.send_line(settings, row, text)
        else:
            note = channels.send_mail(settings, row, subject, text)
    except channels.Permanent as e:
        return _failed(db, row, str(e), say)
    except Exception as e:  # noqa: BLE001  (any answer at all: the outbox goes on)
        reason = str(e) if isinstance(e, channels.Temporary) else \
            f"{row['channel']}: unexpected answer: {type(e).__name__}: {str(e)[:200]}"
        if tries >= settings.attempts:
            return _failed(db, row, reason, say)
        wait = outbox.backoff(tries, settings.first_retry, settings.max_retry)
        outbox.retry_later(db, row["id"], reason, datetime.now(timezone.utc) + wait)
        say(lexicon.both("notify.console.retry", message=row["id"], kind=row["kind"],
                         reason=reason, seconds=int(wait.total_seconds())))
        return "queued"
    _pause("after_send", row)
    outbox.mark_sent(db, row["id"], note)
    return "sent"


def _failed(db: Db, row: Row, reason: str, say: Callable[[str], None],
            counted: bool = True) -> str:
    outbox.mark_failed(db, row["id"], reason, counted=counted)
    say(lexicon.both("notify.console.failed", message=row["id"], kind=row["kind"],
                     channel=row["channel"], reason=reason))
    return "failed"


def run_once(db: Db, settings: Settings, say: Callable[[str], None] = _say,
             channel: str | None = None, stop: threading.Event | None = None) -> int:
    """Send every row due now (of ``channel`` only, when given); the number of rows
    tried. Stops between rows once ``stop`` is set."""
    tried = 0
    while stop is None or not stop.is_set():
        batch = outbox.due(db, datetime.now(timezone.utc), channel=channel)
        if not batch:
            break
        for row in batch:
            if stop is not None and stop.is_set():
                break
            send_one(db, settings, row, say)
            tried += 1
    return tried


STOP_GRACE_S = 2.0
"""How long a stop waits for a send in progress before the process leaves it: the row
stays queued (its try not counted) and goes at the next start."""


def _worker(db_path: str, settings: Settings, channel: str | None, stop: threading.Event,
            once: bool) -> None:
    """One channel's loop on its own connection: a hung mail server holds up only the
    mail behind it, never LINE."""
    db = connect(db_path)
    try:
        while not stop.is_set():
            try:
                run_once(db, settings, channel=channel, stop=stop)
            except Exception:  # noqa: BLE001  (the club file busy, a bug: log and go on)
                traceback.print_exc()
            if once:
                break
            stop.wait(settings.poll)
    finally:
        db.conn.close()


def run(db_path: str, settings: Settings, *, once: bool = False) -> int:
    """Empty the outbox, then look again every ``poll`` seconds until SIGTERM or Ctrl-C:
    one worker per channel, each send under the channel's own deadline (``timeout``). A
    stop is honoured within :data:`STOP_GRACE_S` seconds even while a server hangs."""
    stop = threading.Event()

    def _stop(_signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    _say(lexicon.both("notify.console.started", db=db_path))
    # the test hook pauses at the first message: one worker, so the first is the oldest
    lanes: tuple[str | None, ...] = (None,) if os.environ.get(PAUSE_ENV) else outbox.CHANNELS
    workers = [threading.Thread(target=_worker, args=(db_path, settings, lane, stop, once),
                                name=f"notify-{lane or 'all'}", daemon=True) for lane in lanes]
    for w in workers:
        w.start()
    try:
        while not stop.is_set() and any(w.is_alive() for w in workers):
            stop.wait(0.2)
    except KeyboardInterrupt:
        pass
    stop.set()
    deadline = time.monotonic() + STOP_GRACE_S
    for w in workers:
        w.join(max(0.0, deadline - time.monotonic()))
    return 0
