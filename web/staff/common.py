"""Helpers shared by the staff console's views."""

from __future__ import annotations

from flask import Blueprint, current_app, flash, jsonify, redirect, request, url_for

from ..audit import audit
from ..db import get_db
from ..errors import UserError
from ..i18n import current_lang
from ..limits import json_body
from ..security import actor_name, wants_json


bp = Blueprint("staff", "web.staff", url_prefix="/staff")
"""The staff console's blueprint: every view module of ``web.staff`` adds its routes."""


def form_data() -> dict:
    """The request's fields: a JSON object body or the form."""
    if request.is_json:
        data = json_body()
        if not isinstance(data, dict):
            raise UserError("http.send_json_object", code="bad_json")
        return data
    return request.form.to_dict()


def need(data: dict, key: str) -> str:
    """A required, non-blank text field (400 naming the field otherwise)."""
    value = str(data.get(key, "") or "").strip()
    if not value:
        raise UserError("field.required", code=f"missing_{key}", details={"field": key},
                        field=key)
    return value


def reason_of(data: dict) -> str:
    """The reason a staff member gives for a correction (required, in words)."""
    reason = str(data.get("reason", "") or "").strip()
    if len(reason) < 3:
        raise UserError("records.reason_required", code="missing_reason")
    return reason


def record(action: str, target: str, reason: str = "", details: dict | None = None) -> None:
    """Audit a staff action under the signed-in staff member's name."""
    audit(get_db(), actor_name(), action, target, reason, details)


def done(message: str, endpoint: str, status: int = 200, payload: dict | None = None, **kw):
    """Answer a successful action: JSON, or flash the message and go back to a page."""
    if wants_json():
        body = {"ok": True, "message": message}
        body.update(payload or {})
        return jsonify(body), status
    flash(message, "ok")
    return redirect(url_for(endpoint, **kw))


def db_path() -> str:
    """The shared SQLite file (the daemon's store lives in it too)."""
    return current_app.config["DATABASE"]


def msg(ja: str, en: str) -> str:
    """A message in the page's language (Japanese first)."""
    return en if current_lang() == "en" else ja
