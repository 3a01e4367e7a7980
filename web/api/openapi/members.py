"""OpenAPI entries of a member's own page (``/m/<token>``) and the desk's side of it
(``/staff/players/<id>/member``). Merged into ``web.api.openapi.PATHS``.

The member's pages answer HTML for people; the settings answer JSON when asked. Their
POSTs need the session's CSRF token like every form; the settings need the member
number and PIN first (``/m/{token}/settings/pin``), which opens them for 15 minutes.
"""

from __future__ import annotations

from collections.abc import Iterable

from web.api.openapi.shared import BOOL, STR, json_body, obj, op, path_param, ref
from web.api.openapi.staff import PLAYER

TOKEN = path_param("token", {"type": "string", "description": "the personal link's token"})
MEMBER_ERR = {
    "400": "bad input, or the CSRF token is missing; the message says what to do",
    "401": "the member number and PIN are needed first (member_pin_required)",
    "403": "wrong member number or PIN (member_pin_wrong), no PIN set (member_no_pin), a "
           "wrong or spent one-time code (member_code_wrong, email_code_wrong), or a wrong "
           "CSRF token",
    "404": "no page for this link: unknown or revoked (member_link_unknown)",
    "409": "nothing to do: the link is not guarded (member_code_not_needed), no e-mail "
           "waits for its code (email_nothing_to_confirm)",
    "422": "a field of the wrong type (invalid_field)",
    "429": "too many wrong PINs from this address (member_pin_rate_limited), a guarded "
           "link whose member has no channel for a code (member_pin_locked), or a code "
           "asked for again within a minute (member_code_rate_limited); Retry-After",
}


def _member_op(summary: str, *, errors: Iterable[str] = ("404",), body: dict | None = None,
               html: bool = False) -> dict:
    entry: dict = {"summary": summary, "tags": ["member"], "parameters": [TOKEN],
                "responses": {"200": {"description": "OK", **(
                    {"content": {"text/html": {"schema": STR}}} if html
                    else json_body(ref("Ok")))}}}
    for code in errors:
        entry["responses"][code] = {"description": MEMBER_ERR[code], **json_body(ref("Error"))}
    if body is not None:
        entry["requestBody"] = {"required": True, **json_body(body)}
    return entry


MEMBER_PATHS: dict = {
    "/m/{token}": {"get": _member_op(
        "a member's own page (HTML, phone-first): history by day, figures per rule family, "
        "the R curve, dan progress, penalties and chombo with their game and hand, the "
        "day's account and report card; query family, day (YYYY-MM-DD)",
        errors=("400", "404"), html=True)},
    "/m/{token}/settings": {
        "get": _member_op("the member's e-mail, whether their LINE is linked (line_linked) "
                          "and opt-ins (after the PIN)", errors=("401", "404")),
        "post": _member_op(
            "keep the member's e-mail and opt-ins (blank clears the address; an opt-in "
            "left out is no); line_unlink unlinks their LINE, which only the code they send "
            "the club's account links (a line_user_id is refused, line_by_code); audited",
            errors=("400", "401", "404", "422"),
            body=obj([], email=STR, line_unlink=BOOL, optin_seat_ready=BOOL,
                      optin_report_card=BOOL, optin_risers=BOOL))},
    "/m/{token}/settings/pin": {"post": _member_op(
        "open the settings for 15 minutes with the member number and PIN (and, on a link "
        "guarded after 8 wrong PINs, the one-time code sent to the member); each try is "
        "counted before it is checked; 5 wrong PINs lock the address for 15 minutes",
        errors=("400", "401", "403", "404", "429"),
        body=obj(["member_no", "pin"], member_no=STR, pin=STR, code=STR))},
    "/m/{token}/settings/code": {"post": _member_op(
        "send a one-time code to the member's LINE or confirmed e-mail (a guarded link "
        "opens only with it; one a minute); answers the channel",
        errors=("404", "409", "429"))},
    "/m/{token}/settings/close": {"post": _member_op(
        "close the settings on this device", errors=("400", "404"))},
    "/m/{token}/settings/email": {"post": _member_op(
        "confirm the member's e-mail address with the code sent to it (after the PIN; 5 "
        "wrong codes spend it)", errors=("400", "401", "403", "404"),
        body=obj(["email_code"], email_code=STR))},
    "/m/{token}/settings/email/resend": {"post": _member_op(
        "send a new code to the member's unconfirmed e-mail address (after the PIN; one a "
        "minute)", errors=("401", "404", "409", "429"))},
    "/m/{token}/data.json": {"get": _member_op(
        "everything the club holds about the member, as the desk's export (after the "
        "member number and PIN), as a file to download", errors=("401", "404"))},
    "/m/{token}/receipt/{day}": {"get": {
        **_member_op("the member's receipt for a club day's game fees (HTML; a simplified "
                     "qualified invoice when the club has a registration number)",
                     errors=("400", "404"), html=True),
        "parameters": [TOKEN, path_param("day", {"type": "string", "format": "date"})]}},
    "/m/line/webhook": {"post": {
        **_member_op("the LINE platform's webhook: the body signed with the channel secret "
                     "(X-Line-Signature); a member who sends the code of their page is linked",
                     errors=("400",), body=obj([], events={"type": "array"})),
        "parameters": [{"name": "X-Line-Signature", "in": "header", "required": True,
                        "schema": STR}],
        "tags": ["line"]}},
    "/staff/players/{player_id}/member": {"get": op(
        "a member's link and PIN state (never the link itself) and opt-ins",
        params=[PLAYER], errors=("404",))},
    "/staff/players/{player_id}/member/link": {"post": op(
        "issue or reissue a member's personal link (answers its url, shown once; the link "
        "in use before stops working); audited", params=[PLAYER], ok="201",
        errors=("404", "409"))},
    "/staff/players/{player_id}/member/card": {"post": op(
        "a new personal link on a printable member card (name, member number, QR code); "
        "audited", params=[PLAYER], ok="201", errors=("404", "409"))},
    "/staff/players/{player_id}/member/link/revoke": {"post": op(
        "revoke a member's personal link (409 member_no_link when none is in use); audited",
        params=[PLAYER], errors=("404", "409"))},
    "/staff/players/{player_id}/member/pin": {"post": op(
        "set or reset a member's PIN (6 to 8 digits, not a weak one; the member needs a "
        "member number); every settings session opened with the old PIN ends; audited",
        params=[PLAYER], errors=("400", "404", "409"),
        body=obj(["pin"], pin=STR))},
}
