"""The staff's notify page (``/staff/notify``): where a staff call reaches each staff
member and whether they are on duty, and the outbox of word sent to members and staff
(waiting, sent, failed, in words), with a failed message sent again on request.

The sending itself is the sender process's (:mod:`club.notify.sender`), never a
request's.
"""

from __future__ import annotations

from flask import jsonify, render_template
from flask.typing import ResponseReturnValue

from club import clubtime
from club.db import Db, Row
from club.notify import outbox
from club.text import text_of
from web.db import get_db
from web.i18n import t
from web.limits import flag_of, form_data
from web.security import staff_required, wants_json
from web.staff.common import bp, done, record

SHOWN = 50
"""The newest outbox rows the page lists."""


def _state_words(db: Db, row: Row) -> str:
    if row["state"] == "sent":
        return t("notify.state.sent", at=clubtime.club_clock(db, row["sent_at"], day=True))
    if row["state"] == "failed":
        return t("notify.state.failed", reason=t(f"notify.channel.{row['channel']}"))
    return t("notify.state.queued", attempts=row["attempts"])


def _listing(db: Db) -> list[Row]:
    return [{"id": r["id"], "kind": r["kind"], "what": t(f"notify.kind.{r['kind']}"),
             "channel": r["channel"], "to": t(f"notify.channel.{r['channel']}"),
             "when": clubtime.club_clock(db, r["created_at"], day=True),
             "state": r["state"], "state_words": _state_words(db, r),
             "attempts": r["attempts"], "error": r["last_error"]}
            for r in outbox.recent(db, SHOWN)]


@bp.get("/notify")
@staff_required
def notify_page() -> ResponseReturnValue:
    """Staff contacts and the outbox (JSON twin: the same, for scripts)."""
    db = get_db()
    view = {"contacts": outbox.contacts(db), "counts": outbox.counts(db),
            "outbox": _listing(db)}
    if wants_json():
        return jsonify(view)
    return render_template("staff/notify.html", **view)


@bp.post("/notify/contacts/<int:staff_id>")
@staff_required
def notify_contact_save(staff_id: int) -> ResponseReturnValue:
    """Set where a staff member's calls reach them and whether they are on duty."""
    data = form_data()
    row = outbox.save_contact(get_db(), staff_id, email=text_of(data, "email"),
                              line_user_id=text_of(data, "line_user_id"),
                              lang=(text_of(data, "lang") or "ja").strip(),
                              on_duty=flag_of(data, "on_duty"))
    name = next((c["name"] for c in outbox.contacts(get_db()) if c["staff_id"] == staff_id),
                str(staff_id))
    record("notify.contact", f"staff:{staff_id}",
           details={"name": name, "on_duty": bool(row["on_duty"]),
                    "email": bool(row["email"]), "line": bool(row["line_user_id"])})
    return done(t("notify.page.saved", name=name), "staff.notify_page",
                payload={"contact": row})


@bp.post("/notify/outbox/<int:message_id>/retry")
@staff_required
def notify_retry(message_id: int) -> ResponseReturnValue:
    """Send a failed message again (from its first try)."""
    row = outbox.retry_failed(get_db(), message_id)
    record("notify.retry", f"outbox:{message_id}", details={"kind": row["kind"]})
    return done(t("notify.page.requeued", message=message_id), "staff.notify_page",
                payload={"message": {"id": message_id, "state": row["state"]}})
