"""The head office signs people in: its own accounts (``chain.ho_accounts``, made by
``python -m headoffice admin add-account``: ``branches.add_account``), scrypt hashes
as the box's staff accounts, a throttle on failed tries, and every page behind it.

Roles: ``owner`` (the chain's owner) and ``area`` (an area manager) see every branch; a
``branch`` manager sees only their own branch: the leaderboard and the 日報 are theirs
alone (another ``branch=`` is taken back to theirs) and the pages across branches (the
list of branches, a member's history at every branch) are refused.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Flask,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.security import check_password_hash

from headoffice.connection import pg
from web import security
from web.i18n import t

bp = Blueprint("ho_signin", __name__)

FAILS = 5
"""Failed tries of one name (or from one address) in :data:`WINDOW` before a pause."""
WINDOW = "15 minutes"
SESSION_KEY = "ho_user"
OPEN = {"ho_signin.signin", "ho_signin.signout", "static"}
ACROSS_BRANCHES = {"headoffice.index", "headoffice.member"}
ONE_BRANCH = {"headoffice.leaderboard", "headoffice.report"}



def init_app(app: Flask) -> None:
    """Put every page of the head office behind its sign-in."""
    app.register_blueprint(bp)
    app.before_request(_guard)


def _pg() -> Any:
    return pg()


def _account() -> dict | None:
    name = session.get(SESSION_KEY)
    if not name:
        return None
    row = _pg().execute("SELECT name, role, branch FROM chain.ho_accounts WHERE name = %s",
                        [name]).fetchone()
    return {"name": row[0], "role": row[1], "branch": row[2]} if row else None


def _wants_json() -> bool:
    return request.args.get("format") == "json" or \
        request.accept_mimetypes.best == "application/json"


def _guard() -> ResponseReturnValue | None:
    if request.endpoint in OPEN:
        return None
    who = _account()
    if who is None:
        if _wants_json():
            return jsonify(error="sign_in", message=t("ho.signin.needed")), 401
        return redirect(url_for("ho_signin.signin", next=request.full_path,
                                lang=request.args.get("lang")))
    g.ho_account = who
    if who["role"] != "branch":
        return None
    if request.endpoint in ACROSS_BRANCHES or request.endpoint not in ONE_BRANCH:
        if request.endpoint == "headoffice.index":
            return redirect(url_for("headoffice.report", branch=who["branch"]))
        return _refuse()
    if request.args.get("branch") != who["branch"]:
        args = {k: v for k, v in request.args.items() if k != "branch"}
        args["branch"] = who["branch"]
        return redirect(f"{request.path}?{urlencode(args)}")
    return None


def _refuse() -> ResponseReturnValue:
    if _wants_json():
        return jsonify(error="forbidden", message=t("ho.signin.forbidden")), 403
    return render_template("headoffice/signin.html", refused=True), 403


def _throttled(name: str, ip: str) -> bool:
    row = _pg().execute(
        "SELECT count(*) FILTER (WHERE name = %s), count(*) FILTER (WHERE ip = %s) "
        f"FROM chain.ho_signin_attempts WHERE NOT ok AND at > now() - interval '{WINDOW}'",
        [name, ip]).fetchone()
    return row[0] >= FAILS or row[1] >= FAILS * 4


@bp.route("/signin", methods=["GET", "POST"])
def signin() -> ResponseReturnValue:
    """The sign-in form; a POST signs in (CSRF-checked, throttled)."""
    if request.method == "GET":
        return render_template("headoffice/signin.html", refused=False, error=None)
    name = " ".join(str(request.form.get("name", "")).split()).casefold()[:64]
    password = str(request.form.get("password", ""))[:1024]
    ip = request.remote_addr or ""
    if _throttled(name, ip):
        return render_template("headoffice/signin.html", refused=False,
                               error=t("ho.signin.throttled")), 429
    row = _pg().execute("SELECT pw_hash FROM chain.ho_accounts WHERE name = %s",
                        [name]).fetchone()
    ok = row is not None and check_password_hash(row[0], password)
    _pg().execute("INSERT INTO chain.ho_signin_attempts (name, ip, ok) VALUES (%s, %s, %s)",
                  [name, ip, ok])
    if not ok:
        return render_template("headoffice/signin.html", refused=False,
                               error=t("ho.signin.wrong")), 401
    session.clear()
    session[SESSION_KEY] = name
    session.permanent = True
    security.rotate_csrf_token()
    target = request.args.get("next") or ""
    if not target.startswith("/") or target.startswith("//"):
        target = url_for("headoffice.index")
    return redirect(target)


@bp.route("/signout", methods=["POST"])
def signout() -> ResponseReturnValue:
    """Sign out (CSRF-checked)."""
    session.clear()
    return redirect(url_for("ho_signin.signin"))


def current_account() -> dict | None:
    """The signed-in head office account of this request (after the guard)."""
    return g.get("ho_account") if current_app else None
