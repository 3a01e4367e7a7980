"""Staff sign-in and tablet pairing (blueprint ``auth``, under ``/auth``).

Routes
    GET  /auth/login          sign-in page
    POST /auth/login          form or JSON ``{name, password}``; 429 while throttled
    POST /auth/logout         sign out (ends every session of the account)
    GET  /auth/csrf           ``{"csrf_token": ...}`` for scripts that hold a session cookie
    GET  /auth/pair?code=     "pair this tablet with table N?" page (what the QR code opens)
    POST /auth/pair           exchange the one-time code for the tablet cookie

The accounts and the throttles these pages check live in :mod:`club.accounts`.
"""

from __future__ import annotations

from urllib.parse import urlparse

from flask import Blueprint, jsonify, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response as BaseResponse

from club.accounts import check_login, end_sessions
from club.errors import UserError
from web import signin
from web.db import get_db
from web.errors import wants_json
from web.limits import json_body
from web.security import (
    AccessRefused,
    csrf_token,
    current_staff,
    current_tablet_table,
    pairing_info,
    redeem_pairing,
    rotate_csrf_token,
    set_tablet_cookie,
    start_staff_session,
)

bp = Blueprint("auth", __name__, url_prefix="/auth")


# ----------------------------------------------------------------------------- routes
def _safe_next(target: object) -> str:
    """Only same-site relative paths, so the sign-in page cannot bounce to another site
    (nor put a CR/LF or any other control character into the Location header)."""
    if isinstance(target, str) and target.isprintable() and " " not in target:
        parts = urlparse(target)
        if not parts.scheme and not parts.netloc and target.startswith("/") \
                and not target.startswith("//") and "\\" not in target:
            return target
    return url_for("staff.floor")


@bp.get("/login")
def login() -> ResponseReturnValue:
    """The sign-in page."""
    return render_template("auth/login.html", next=request.args.get("next", ""), error=None)


@bp.post("/login")
def login_post() -> ResponseReturnValue:
    """Sign a staff member in (form or JSON)."""
    data = json_body() if request.is_json else request.form
    data = data if isinstance(data, dict) or hasattr(data, "get") else {}
    name, password = str(data.get("name", "")), str(data.get("password", ""))
    try:
        staff = check_login(get_db(), name, password, request.remote_addr or "?",
                            guard=signin.guard())
    except UserError as e:
        if wants_json():
            raise
        page = render_template("auth/login.html", next=data.get("next", ""), error=e.message,
                               name=name)
        headers = {"Retry-After": str(e.details["retry_after"])} if e.status == 429 else {}
        return page, e.status, headers
    start_staff_session(staff)
    token = rotate_csrf_token()
    if wants_json():
        return jsonify({"ok": True, "csrf_token": token,
                        "staff": {k: staff[k] for k in ("id", "name", "role")}})
    return redirect(_safe_next(data.get("next")))


@bp.post("/logout")
def logout() -> ResponseReturnValue:
    """Sign out: every session of the account ends (the tablet cookie is left alone)."""
    staff = current_staff()
    if staff is not None:
        end_sessions(get_db(), staff["id"])
    lang = session.get("lang")
    session.clear()
    if lang:
        session["lang"] = lang
    if wants_json():
        return jsonify({"ok": True})
    return redirect(url_for("auth.login"))


@bp.get("/csrf")
def csrf() -> ResponseReturnValue:
    """The session's CSRF token, for scripts that hold the session cookie."""
    return jsonify({"csrf_token": csrf_token()})


def tablet_home(table_id: str) -> str:
    """The tablet page of a table."""
    return url_for("tablet.table_page", table_id=table_id)


@bp.get("/pair")
def pair() -> ResponseReturnValue:
    """What the QR code opens: confirm pairing this device with a table."""
    code = request.args.get("code", "")
    try:
        row = pairing_info(get_db(), code)
    except AccessRefused as e:
        paired = current_tablet_table()
        if e.code == "pairing_used" and paired is not None:
            # This device already paired (e.g. the QR scanned twice): carry on.
            return redirect(tablet_home(paired))
        raise
    return render_template("auth/pair.html", code=code, table_id=row["table_id"],
                           label=row["label"])


@bp.post("/pair")
def pair_post() -> ResponseReturnValue:
    """Exchange the pairing code for the long-lived tablet cookie."""
    data = json_body() if request.is_json else request.form
    code = str(data.get("code", "") if isinstance(data, dict) or hasattr(data, "get") else "")
    secret, row = redeem_pairing(get_db(), code)
    resp: BaseResponse
    if wants_json():
        resp = jsonify({"ok": True, "table_id": row["table_id"], "tablet_id": row["id"],
                        "token": secret})
    else:
        resp = redirect(tablet_home(row["table_id"]))
    set_tablet_cookie(resp, secret)
    return resp
