"""OpenAPI entries for the staff's notify page (web/staff/notify.py): staff contacts for
calls and the outbox of word sent by LINE and e-mail."""

from __future__ import annotations

from web.api.openapi.shared import BOOL, INT, STR, obj, op, path_param

STAFF_ID, MESSAGE = path_param("staff_id", INT), path_param("message_id", INT)

NOTIFY_PATHS: dict = {
    "/staff/notify": {"get": op(
        "every active staff account with where a staff call reaches it (email, "
        "line_user_id, lang, on_duty), the outbox's counts (queued, sent, failed) and its "
        "newest 50 messages (kind, channel, state in words, attempts, last error); nothing "
        "of the channels' secrets", errors=())},
    "/staff/notify/contacts/{staff_id}": {"post": op(
        "set a staff member's contact and whether they are on duty (calls reach staff on "
        "duty: by LINE if line_user_id is set, else by e-mail); invalid_field names email, "
        "line_user_id (U and 32 hex digits) or lang (ja, en) and changes nothing; audited",
        params=[STAFF_ID], errors=("400", "404", "422"),
        body=obj([], email=STR, line_user_id=STR, lang=STR, on_duty=BOOL))},
    "/staff/notify/outbox/{message_id}/retry": {"post": op(
        "send a failed message again from its first try (not_failed for one that has not "
        "failed); audited", params=[MESSAGE], errors=("400", "404"))},
}
