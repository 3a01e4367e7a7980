"""The two channels word goes out on: LINE Messaging API push and e-mail over SMTP.

Each sender returns a note (None, or why a message counts as sent without a new
delivery) or raises :class:`Temporary` (try again later) or :class:`Permanent` (no
further try can succeed: a refused address, a refused token). For SMTP a 4xx at any
stage is temporary and a 5xx permanent. Anything else a sender raises is taken by the
sender process as temporary (:func:`club.notify.sender.send_one`).
"""

from __future__ import annotations

import smtplib
import socket
import ssl
import threading
from email.message import EmailMessage
from email.utils import formatdate

import urllib3

from club.db import Row
from club.notify.config import Settings


class Temporary(Exception):
    """The channel could not take the message now: try again later."""


class Permanent(Exception):
    """The channel refused the message for good: no retry."""


def send_line(settings: Settings, row: Row, text: str) -> str | None:
    """Push ``text`` to a LINE user through the Messaging API (line-bot-sdk v3).

    Exactly once: the outbox row's own UUID is the push's ``X-Line-Retry-Key``. LINE
    answers 409 to a retry key it has already accepted, without delivering again, so a
    push resent after a crash (sent, but not yet marked) is harmless: the 409 is taken as
    sent."""
    from linebot.v3.messaging import (  # type: ignore[import-untyped]
        ApiClient,
        ApiException,
        Configuration,
        MessagingApi,
        PushMessageRequest,
        TextMessage,
    )

    if not settings.line_token:
        raise Permanent("no LINE channel access token in the secrets file")
    conf = Configuration(host=settings.line_api.rstrip("/"), access_token=settings.line_token)
    conf.retries = 0        # the outbox retries, with backoff, under the same retry key
    try:
        with ApiClient(conf) as client:
            MessagingApi(client).push_message(
                PushMessageRequest(to=row["address"], messages=[TextMessage(text=text[:5000])]),
                x_line_retry_key=row["uuid"], _request_timeout=settings.timeout)
    except ApiException as e:
        status = e.status or 0
        if status == 409:
            return "line: accepted before (409)"
        reason = f"LINE {status}: {(e.body or e.reason or '')!s:.200}"
        if status == 429 or status >= 500 or status == 0:
            raise Temporary(reason) from None
        raise Permanent(reason) from None
    except (urllib3.exceptions.HTTPError, OSError) as e:
        raise Temporary(f"LINE: {type(e).__name__}: {e!s:.200}") from None
    return None


def message_id(row: Row) -> str:
    """The mail's fixed Message-ID: the outbox row's UUID, the same on every try."""
    return f"<{row['uuid']}@jantaku.notify>"


def send_mail(settings: Settings, row: Row, subject: str, text: str) -> str | None:
    """Send ``text`` by e-mail over SMTP (STARTTLS and login if configured).

    Not exactly once, and cannot be: SMTP has no retry key. If the sender dies after
    the server accepted the mail and before the row is marked sent, the next try sends
    it again, with the same ``Message-ID`` (see :func:`message_id`), which mail clients
    show as one message. The window is one SMTP transaction (the DATA answer to the
    row's update)."""
    if not settings.smtp_host or not settings.mail_from:
        raise Permanent("no smtp_host or mail_from in [notify]")
    msg = EmailMessage()
    msg["From"] = settings.mail_from
    msg["To"] = row["address"]
    msg["Subject"] = subject
    msg["Message-ID"] = message_id(row)
    msg["Date"] = formatdate(localtime=False)
    msg.set_content(text)
    smtp = smtplib.SMTP(timeout=settings.timeout)
    # the whole send has a deadline too: a server that trickles a byte now and then never
    # lets a single wait run out, so a timer cuts the connection
    timer = threading.Timer(settings.timeout * SEND_DEADLINE_WAITS, _cut, [smtp])
    timer.daemon = True
    timer.start()
    try:
        with smtp:
            smtp.connect(settings.smtp_host, settings.smtp_port)
            if settings.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            smtp.send_message(msg)
    except smtplib.SMTPRecipientsRefused as e:
        # a 4xx at RCPT (greylisting, a full mailbox, a busy server) is temporary
        codes = [code for code, _msg in e.recipients.values()]
        reason = f"SMTP: recipient refused: {e.recipients!s:.200}"
        if codes and all(400 <= code < 500 for code in codes):
            raise Temporary(reason) from None
        raise Permanent(reason) from None
    except smtplib.SMTPResponseException as e:
        reason = f"SMTP {e.smtp_code}: {e.smtp_error!r:.200}"
        if 500 <= e.smtp_code < 600:
            raise Permanent(reason) from None
        raise Temporary(reason) from None
    except (smtplib.SMTPException, OSError) as e:
        raise Temporary(f"SMTP: {type(e).__name__}: {e!s:.200}") from None
    finally:
        timer.cancel()
    return None


SEND_DEADLINE_WAITS = 4
"""A whole SMTP send may last this many times the setting ``timeout`` (each single wait
is ``timeout``); LINE's push has ``timeout`` as its total."""


def _cut(smtp: smtplib.SMTP) -> None:
    """End a send past its deadline: the blocked read returns and the try fails."""
    sock = getattr(smtp, "sock", None)
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
