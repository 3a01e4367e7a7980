"""A member's own things beside their page: their data to download (the JSON the desk
can export, after the member number and PIN), their receipts of a day, and the webhook
through which the club's LINE account links a member who sends it their code."""

from __future__ import annotations

import json

from flask import Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue

from club import bookkeeping, line_link, member_data, stats_store
from web.db import get_db
from web.errors import UserError
from web.i18n import current_lang, t
from web.member.views import _member, _no_link_in_log, _opened, _private, bp


@bp.get("/<token>/data.json")
@_no_link_in_log
def own_data(token: str) -> ResponseReturnValue:
    """Everything the club holds about the member (their member number and PIN first)."""
    member = _member(token)
    if not _opened(member):
        raise UserError("member.pin_first", status=401, code="member_pin_required")
    body = json.dumps(member_data.export(get_db(), member["id"]), ensure_ascii=False, indent=2)
    return _private(Response(body, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="member-{member["id"]}.json"'}))


@bp.get("/<token>/receipt/<day>")
@_no_link_in_log
def own_receipt(token: str, day: str) -> ResponseReturnValue:
    """The member's receipt for a club day's game fees, as it prints."""

    member = _member(token)
    day = stats_store.user_day(day).isoformat()
    sheet = bookkeeping.receipt(get_db(), day, member["id"], 40, current_lang())
    return _private(Response(render_template("member/receipt.html", sheet=sheet, token=token,
                                             day=day)))


@bp.post("/line/webhook")
def line_webhook() -> ResponseReturnValue:
    """The LINE platform's webhook: the body must carry the channel's signature."""
    cfg = line_link.settings(current_app.config)
    body = request.get_data(cache=True)
    if not line_link.signed(str(cfg.get("channel_secret") or ""), body,
                            request.headers.get("X-Line-Signature")):
        return jsonify({"ok": False, "error": {"code": "bad_signature",
                                               "message": t("line.bad_signature")}}), 403
    try:
        payload = json.loads(body or b"{}")
    except ValueError:
        return jsonify({"ok": False, "error": {"code": "not_json",
                                               "message": t("line.not_json")}}), 400
    done = line_link.handle(get_db(), payload if isinstance(payload, dict) else {}, cfg)
    return jsonify({"ok": True, "done": done})
