"""Helpers shared by the staff console's views."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, jsonify, redirect, request, session, url_for
from flask.typing import ResponseReturnValue

from club.audit import audit
from club.errors import UserError
from club.text import text_of
from web.db import get_db
from web.errors import error_response
from web.i18n import current_lang
from web.security import actor_name, wants_json

bp = Blueprint("staff", "web.staff", url_prefix="/staff")
"""The staff console's blueprint: every view module of ``web.staff`` adds its routes."""


def need(data: dict, key: str) -> str:
    """A required, non-blank text field (400 naming the field; 422 if it is not text)."""
    value = (text_of(data, key) or "").strip()
    if not value:
        raise UserError("field.required", code=f"missing_{key}", details={"field": key},
                        field=key)
    return value


def given(data: dict, key: str) -> bool:
    """Whether a field is given: present, not JSON null, not a blank form field (``0`` and
    ``false`` are given, and then checked for their type)."""
    value = data.get(key)
    return value is not None and not (isinstance(value, str) and not value.strip())


def reason_of(data: dict) -> str:
    """The reason a staff member gives for a correction (required, in words)."""
    reason = (text_of(data, "reason") or "").strip()
    if len(reason) < 3:
        raise UserError("records.reason_required", code="missing_reason")
    return reason


def record(action: str, target: str, reason: str = "", details: dict | None = None) -> None:
    """Audit a staff action under the signed-in staff member's name."""
    audit(get_db(), actor_name(), action, target, reason, details)


def done(message: str, endpoint: str, status: int = 200, payload: dict | None = None,
         **kw: Any) -> ResponseReturnValue:
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


# ----------------------------------------------------------------------------- form errors
ECHO_KEY = "staff_form_echo"
ECHO_MAX = 500
"""Characters kept of each typed value (the echo rides in the session cookie)."""
NOT_ECHOED = frozenset({"csrf_token", "password", "idempotency_key", "_form"})


def _same_site_page(target: str | None) -> str | None:
    """``target`` if it is a staff page of this server (the form's own page), else None."""
    if not target:
        return None
    url = urlsplit(target)
    if url.netloc and url.netloc != request.host:
        return None
    if not url.path.startswith("/staff"):
        return None
    return url.path + (f"?{url.query}" if url.query else "")


@bp.errorhandler(UserError)
def _form_refused(e: UserError) -> ResponseReturnValue:
    """A page's form refused: back to the form's page with the reason beside the form in
    the page's language and what was typed still in it (scripts get JSON as before)."""
    back = _same_site_page(request.referrer) if request.method == "POST" else None
    if wants_json() or back is None:
        return error_response(e.status, e.code, e.message, e.details)
    form = str(request.form.get("_form") or "")
    if form:
        values = {k: v[:ECHO_MAX] for k, v in request.form.items() if k not in NOT_ECHOED}
        session[ECHO_KEY] = {"form": form, "values": values, "message": e.message,
                             "field": (e.details or {}).get("field"), "code": e.code}
    else:
        flash(e.message, "error")
    return redirect(back, code=303)


class Echo:
    """What a refused form sent, for the page that shows it again (read once)."""

    def __init__(self, data: dict | None):
        self.data = data or {}

    def error(self, form: str) -> str | None:
        """The refusal of ``form`` (None if this page shows no refusal of it)."""
        return self.data.get("message") if self.data.get("form") == form else None

    def value(self, form: str, name: str, default: str = "") -> str:
        """What was typed into ``name`` of ``form``, else ``default``."""
        if self.data.get("form") == form and name in self.data.get("values", {}):
            return self.data["values"][name]
        return default

    def code(self, form: str) -> str | None:
        """The refusal's code (``similar_name`` ...), for a page that offers a way on."""
        return self.data.get("code") if self.data.get("form") == form else None

    def invalid(self, form: str, name: str) -> bool:
        """Whether ``name`` is the field the refusal names."""
        return self.data.get("form") == form and self.data.get("field") == name


@bp.app_context_processor
def _echo() -> dict[str, Any]:
    if not request.path.startswith("/staff"):
        return {}
    if wants_json():           # a page's live parts never take the refusal meant for the page
        return {"echo": Echo(None)}
    return {"echo": Echo(session.pop(ECHO_KEY, None) if ECHO_KEY in session else None)}


@bp.app_template_filter("signed")
def signed(value: float | None) -> str:
    """``+66,000`` / ``-7,500`` / ``+1.5`` (a whole number with separators, else one
    decimal); ``—`` for nothing."""
    if value is None:
        return "—"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:+,.1f}"
    return f"{int(value):+,}"
