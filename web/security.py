"""Request safety: CSRF, cookie flags, staff and tablet access checks, tablet tokens.

CSRF
    Every POST/PUT/PATCH/DELETE must carry the session's token, either as the
    form field ``csrf_token`` (HTML forms: ``{{ csrf_field() }}``) or in the
    header ``X-CSRF-Token``. Pages put it in ``<head>`` as
    ``<meta name="csrf-token" content="{{ csrf_token() }}">`` and the tablet's
    JavaScript copies that meta value into the ``X-CSRF-Token`` header.
    A missing token is refused with 400, a wrong one with 403, both with a
    message that says to reload the page.

    Requests that authenticate with ``Authorization: Bearer <tablet token>``
    are exempt: a browser never attaches that header by itself, so another
    site cannot forge such a request (the reason CSRF exists). On those
    requests the session cookie is ignored altogether (``current_staff()`` is
    None), so the exemption cannot be used to borrow a staff session.

Cookies
    The session cookie is httponly, SameSite=Lax and ``Secure`` unless the app
    config ``COOKIE_SECURE`` is False (env ``JANTAKU_COOKIE_SECURE=0``): only
    for plain-http use on loopback, such as ``python -m web demo``. The tablet
    cookie ``jantaku_tablet`` has the same flags and lives a year.

Tablets
    Staff issue a pairing code for one table (:func:`create_pairing`); the QR
    code shows ``/auth/pair?code=...``. Opening it and confirming exchanges
    the one-time code for a long-lived secret stored in the tablet cookie
    (:func:`redeem_pairing`). Only SHA-256 hashes of codes and secrets are
    stored. Staff can revoke a tablet; its next request is answered "this
    tablet was unpaired, ask staff". Scripts can get a secret directly with
    :func:`issue_tablet_token` and send it as ``Authorization: Bearer``.

Decorators
    ``@staff_required``: a signed-in, active staff account.
    ``@tablet_required``: a valid tablet paired to the route's ``table_id``
    (the view argument of that name), or a signed-in staff member (floor
    staff may act on any table). For routes whose table is found later (e.g.
    from a game id) call :func:`require_table_access` inside the view.
    Refusals answer JSON for ``/api/`` paths or JSON-accepting clients and a
    page in words otherwise: 401 (not signed in / not paired / revoked) or
    403 (wrong table, tablet on a staff page).
"""

from __future__ import annotations

import functools
import hmac
import os
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from flask import Flask, Response, abort, current_app, g, redirect, request, session, url_for
from markupsafe import Markup, escape
from werkzeug.wrappers import Response as BaseResponse

from club.db import now_iso, one, write_tx
from club.tablets import (  # noqa: F401  (the tablet calls the routes make through here)
    PAIRING_TTL_SECONDS,
    AccessRefused,
    create_pairing,
    issue_tablet_token,
    list_tablets,
    pairing_info,
    redeem_pairing,
    revoke_tablet,
    tablet_for_secret,
)
from web import errors, i18n
from web.db import get_db
from web.errors import wants_json

CSRF_META_NAME = "csrf-token"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
LINE_WEBHOOK = "/m/line/webhook"
"""The LINE platform's webhook (web/member): signed by the platform, not by a session."""
TABLET_COOKIE = "jantaku_tablet"
TABLET_COOKIE_MAX_AGE = 365 * 24 * 3600
LAST_SEEN_EVERY_S = 60
STAFF_SESSION_HOURS = 16
"""A staff sign-in lasts a club's working day at most."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
HSTS_SECONDS = 365 * 24 * 3600
"""How long a browser keeps to https once a request came over TLS."""


# ----------------------------------------------------------------------------- request identity
def _bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def _request_tablet() -> dict | None:
    """The tablet row for this request's bearer token or cookie (cached on ``g``)."""
    if "_tablet" not in g:
        secret = _bearer() or request.cookies.get(TABLET_COOKIE)
        g._tablet = tablet_for_secret(get_db(), secret) if secret else None
        g._tablet_presented = bool(secret)
    return g._tablet


def current_tablet_table() -> str | None:
    """The table id the request's (valid, unrevoked) tablet token is bound to, or None."""
    row = _request_tablet()
    if row is None or row["revoked_at"]:
        return None
    return row["table_id"]


def caller_key() -> str:
    """Who is calling, as a throttle's key: ``tablet:ID`` (the paired tablet's own row, so
    two tablets at one table count apart), ``staff:ID``, or ``addr:ADDRESS``."""
    staff = current_staff()
    if staff is not None:
        return f"staff:{staff['id']}"
    row = _request_tablet()
    if row is not None and not row["revoked_at"]:
        return f"tablet:{row['id']}"
    return f"addr:{request.remote_addr or '?'}"


def current_staff() -> dict | None:
    """The signed-in, active staff account as ``{id, name, role}``, or None.

    The session must carry the account's current session generation: logout, a new
    password and disabling the account move it on, which ends every older session."""
    if "_staff" in g:
        return g._staff
    g._staff = None
    staff_id = session.get("staff_id")
    if staff_id is not None and _bearer() is None:
        row = one(get_db(), "SELECT id, name, role, session_gen FROM staff_users "
                            "WHERE id = ? AND active = 1", (staff_id,))
        if row is not None and row.pop("session_gen") == session.get("staff_gen"):
            g._staff = row
    return g._staff


def start_staff_session(staff: dict) -> None:
    """A fresh session for a staff member who just signed in (nothing planted before it
    survives but the language), bound to the account's session generation."""
    lang = session.get("lang")
    session.clear()
    if lang:
        session["lang"] = lang
    session["staff_id"], session["staff_gen"] = staff["id"], staff["session_gen"]
    session.permanent = True  # ends after STAFF_SESSION_HOURS, not only with the browser


def actor_name() -> str:
    """Who is acting, for the audit log: ``staff:NAME``, ``tablet:ID`` or ``anonymous``."""
    staff = current_staff()
    if staff:
        return f"staff:{staff['name']}"
    row = _request_tablet()
    if row and not row["revoked_at"]:
        return f"tablet:{row['id']}"
    return "anonymous"


# ----------------------------------------------------------------------------- refusals
def _tablet_refusal() -> AccessRefused:
    row = _request_tablet()
    if row is not None and row["revoked_at"]:
        return AccessRefused(401, "tablet_revoked")
    if g.get("_tablet_presented"):
        return AccessRefused(401, "tablet_unknown")
    return AccessRefused(401, "tablet_not_paired")


def require_table_access(table_id: str) -> None:
    """Refuse the request unless a tablet paired to ``table_id`` (or staff) is making it."""
    if current_staff() is not None:
        return
    bound = current_tablet_table()
    if bound is None:
        raise _tablet_refusal()
    if str(bound) != str(table_id):
        raise AccessRefused(403, "wrong_table", bound=bound, table=table_id)
    # bound to a table, the request has its tablet's row
    _touch(_request_tablet())  # type: ignore[arg-type]


def _touch(row: dict) -> None:
    """Note when a tablet was last seen, at most once a minute.

    Writing on every request would add a durable (fsync'd) commit to each hand
    a tablet records; the staff list only needs the minute.
    """
    now = datetime.now(timezone.utc)
    seen = row.get("last_seen_at")
    if seen and datetime.fromisoformat(seen) > now - timedelta(seconds=LAST_SEEN_EVERY_S):
        return
    db = get_db()
    with write_tx(db):
        db.execute("UPDATE tablet_tokens SET last_seen_at = ? WHERE id = ?",
                   [now_iso(), row["id"]])


def tablet_required(view: Callable[..., Any] | None = None, *,
                    table_arg: str = "table_id") -> Callable[..., Any]:
    """Allow a tablet paired to the view's ``table_arg`` argument, or signed-in staff.

    If the view has no such argument, any paired tablet (or staff) passes; the
    view must then call :func:`require_table_access` once it knows the table.
    """
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if table_arg in kwargs:
                require_table_access(kwargs[table_arg])
            elif current_staff() is None and current_tablet_table() is None:
                raise _tablet_refusal()
            return fn(*args, **kwargs)
        return wrapped
    return decorate(view) if view is not None else decorate


def staff_required(view: Callable) -> Callable:
    """Allow only a signed-in, active staff account (tablets get 403, others 401)."""
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_staff() is None:
            if current_tablet_table() is not None:
                raise AccessRefused(403, "staff_only")
            if wants_json():
                raise AccessRefused(401, "staff_login_required")
            abort(redirect(url_for("auth.login", next=request.full_path.rstrip("?"))))
        return view(*args, **kwargs)
    return wrapped


# ----------------------------------------------------------------------------- CSRF
def csrf_token() -> str:
    """The session's CSRF token (created on first use)."""
    token = session.get(CSRF_FIELD)
    if not token:
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
    return token


def csrf_field() -> Markup:
    """A hidden form input carrying the CSRF token."""
    return Markup(f'<input type="hidden" name="{CSRF_FIELD}" value="{escape(csrf_token())}">')


def rotate_csrf_token() -> str:
    """Start a fresh token (after sign-in, so a token planted before it is useless)."""
    session.pop(CSRF_FIELD, None)
    return csrf_token()


def _check_csrf() -> None:
    if request.method in SAFE_METHODS or not current_app.config.get("CSRF_ENABLED", True):
        return None
    if _bearer() is not None:
        return None  # header-authenticated: not forgeable cross-site (see module doc)
    if request.path == LINE_WEBHOOK and "X-Line-Signature" in request.headers:
        return None  # the LINE platform signs its body: the view checks it, no session used
    given = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    expected = session.get(CSRF_FIELD)
    if not given:
        raise AccessRefused(400, "csrf_missing", header=CSRF_HEADER, meta=CSRF_META_NAME)
    if not expected or not hmac.compare_digest(str(given), str(expected)):
        raise AccessRefused(403, "csrf_invalid")
    return None


CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""Scripts and styles only from this server's files: no inline script can run."""
PRIVATE_PATHS = ("/staff", "/auth")
LIVE_PATHS = ("/tablet", "/api")
"""A table's game, its refusals and the floor change with every hand: never answered
from a cache (a view that says how its own file is cached, the tablet's service-worker
script, keeps its word)."""


def _security_headers(resp: Response) -> Response:
    resp.headers.setdefault("Content-Security-Policy", CSP)
    if request.path.startswith(PRIVATE_PATHS):
        # staff pages hold names, audit entries and pairing codes: never kept by a cache
        resp.headers["Cache-Control"] = "no-store"
    elif request.path.startswith(LIVE_PATHS):
        resp.headers.setdefault("Cache-Control", "no-store")
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("X-Frame-Options", "DENY")
    # Pairing codes travel in URLs: never leak them to another site via Referer.
    resp.headers.setdefault("Referrer-Policy", "same-origin")
    if request.is_secure:
        # over TLS (directly, or behind the trusted proxy's X-Forwarded-Proto): a browser
        # that came once never tries plain http again, where cookies and links travel bare
        resp.headers.setdefault("Strict-Transport-Security", f"max-age={HSTS_SECONDS}")
    return resp


def set_tablet_cookie(resp: BaseResponse, secret: str) -> None:
    """Store a tablet secret in the long-lived httponly cookie."""
    resp.set_cookie(TABLET_COOKIE, secret, max_age=TABLET_COOKIE_MAX_AGE, httponly=True,
                    samesite="Lax", secure=current_app.config["SESSION_COOKIE_SECURE"])


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("0", "false", "no", "off", "")


def init_works(app: Flask) -> None:
    """What every Flask app of ours installs, the club's and the head office's: answers in
    UTF-8 and in the order they are built (sorting costs), the error answers, the words
    of the reader's language, then :func:`init_app`."""
    # Flask's default JSON provider has both switches; its base class declares neither.
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.json.sort_keys = False  # type: ignore[attr-defined]
    errors.init_app(app)
    i18n.init_app(app)
    init_app(app)


def init_app(app: Flask) -> None:
    """Install CSRF checks, cookie flags, security headers and Jinja globals on ``app``."""
    secure = app.config.get("COOKIE_SECURE")
    if secure is None:
        secure = _env_flag("JANTAKU_COOKIE_SECURE", True)
    app.config["COOKIE_SECURE"] = bool(secure)
    app.config.update(SESSION_COOKIE_SECURE=bool(secure), SESSION_COOKIE_HTTPONLY=True,
                      SESSION_COOKIE_SAMESITE="Lax", SESSION_COOKIE_NAME="jantaku_session",
                      PERMANENT_SESSION_LIFETIME=timedelta(hours=STAFF_SESSION_HOURS))
    app.before_request(_check_csrf)
    app.after_request(_security_headers)
    app.jinja_env.globals.update(csrf_token=csrf_token, csrf_field=csrf_field,
                                 current_staff=current_staff,
                                 current_tablet_table=current_tablet_table)

