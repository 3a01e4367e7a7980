"""Staff sign-in and tablet pairing (blueprint ``auth``, under ``/auth``).

Routes
    GET  /auth/login          sign-in page
    POST /auth/login          form or JSON ``{name, password}``; 429 after too many failures
    POST /auth/logout         sign out
    GET  /auth/csrf           ``{"csrf_token": ...}`` for scripts that hold a session cookie
    GET  /auth/pair?code=     "pair this tablet with table N?" page (what the QR code opens)
    POST /auth/pair           exchange the one-time code for the tablet cookie

Staff accounts live in ``staff_users`` with ``werkzeug.security`` password
hashes. Failed sign-ins are counted per (client IP, name) in
``login_attempts``: after ``LOGIN_MAX_FAILURES`` (5) failures within
``LOGIN_WINDOW_SECONDS`` (15 minutes) that pair is refused without even
checking the password until the window has passed; a success clears the
count. Keeping the count in the database means a restart does not reset it.
"""

from __future__ import annotations

import functools
import secrets
import time
from urllib.parse import urlparse

from flask import (
    Blueprint, current_app, jsonify, redirect, render_template, request, session, url_for,
)
from werkzeug.security import check_password_hash, generate_password_hash

from .db import Migrations, get_db, now_iso, write_tx
from .errors import UserError
from .security import (
    AccessRefused, current_tablet_table, csrf_token, pairing_info, redeem_pairing,
    refuse, rotate_csrf_token, set_tablet_cookie, wants_json, words,
)

bp = Blueprint("auth", __name__, url_prefix="/auth")

LOGIN_MAX_FAILURES = 5
LOGIN_WINDOW_SECONDS = 15 * 60
MIN_PASSWORD_LENGTH = 6


# ----------------------------------------------------------------------------- schema
MIGRATIONS = Migrations("auth")


@MIGRATIONS(legacy=("migrations", "number", 200))
def _create_staff_users(db) -> None:
    db.execute(
        """CREATE TABLE staff_users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash TEXT NOT NULL,
            active INTEGER NOT NULL DEFAULT 1,
            created_at TEXT NOT NULL,
            last_login_at TEXT
        )"""
    )


@MIGRATIONS(legacy=("migrations", "number", 201))
def _create_login_attempts(db) -> None:
    db.execute(
        """CREATE TABLE login_attempts (
            id INTEGER PRIMARY KEY,
            ip TEXT NOT NULL,
            name TEXT NOT NULL,
            at REAL NOT NULL,
            ok INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX login_attempts_key ON login_attempts(ip, name, at)")


# ----------------------------------------------------------------------------- accounts
def _check_new_account(name: str, password: str) -> str:
    name = (name or "").strip()
    if not name or len(name) > 64:
        raise UserError("A staff name must be 1 to 64 characters long.", code="bad_staff_name")
    if len(password or "") < MIN_PASSWORD_LENGTH:
        raise UserError(f"A staff password must be at least {MIN_PASSWORD_LENGTH} characters.",
                        code="weak_password")
    return name


def create_staff(db, name: str, password: str) -> int:
    """Create a staff account; refuse a duplicate name or a too-short password."""
    name = _check_new_account(name, password)
    with write_tx(db):
        if db.execute("SELECT 1 FROM staff_users WHERE name = ?", [name]).fetchone():
            raise UserError(f"There is already a staff account named {name!r}.",
                            status=409, code="staff_exists")
        cur = db.execute(
            "INSERT INTO staff_users (name, password_hash, created_at) VALUES (?, ?, ?)",
            [name, generate_password_hash(password), now_iso()],
        )
    return cur.lastrowid


def set_staff_password(db, name: str, password: str) -> None:
    """Change a staff account's password (and re-activate it)."""
    name = _check_new_account(name, password)
    with write_tx(db):
        cur = db.execute("UPDATE staff_users SET password_hash = ?, active = 1 WHERE name = ?",
                         [generate_password_hash(password), name])
        if cur.rowcount != 1:
            raise UserError(f"There is no staff account named {name!r}.", status=404,
                            code="staff_unknown")


def set_staff_active(db, name: str, active: bool, *, by: str) -> None:
    """Disable (or re-enable) a staff account; its sessions stop working at once.

    Refuses to disable the account doing it or the last active one, so the
    club cannot lock itself out of the console.
    """
    with write_tx(db):
        row = db.execute("SELECT id, active FROM staff_users WHERE name = ?", [name]).fetchone()
        if row is None:
            raise UserError(f"There is no staff account named {name!r}.", status=404,
                            code="staff_unknown")
        if not active:
            if name.lower() == by.lower():
                raise UserError("You cannot disable your own account; ask another staff member.",
                                status=409, code="staff_self_disable")
            others = db.execute("SELECT COUNT(*) FROM staff_users WHERE active = 1 AND id != ?",
                                [row[0]]).fetchone()[0]
            if others == 0:
                raise UserError("This is the last active staff account; add another first.",
                                status=409, code="staff_last_account")
        db.execute("UPDATE staff_users SET active = ? WHERE id = ?", [int(active), row[0]])


def list_staff(db) -> list[dict]:
    """Staff accounts without their password hashes."""
    return db.execute_returning_dicts(
        "SELECT id, name, active, created_at, last_login_at FROM staff_users ORDER BY name")


def _recent_failures(db, ip: str, name: str, now: float) -> list[float]:
    """Times of failures for (ip, name) in the window since the last success."""
    since = now - current_app.config.get("LOGIN_WINDOW_SECONDS", LOGIN_WINDOW_SECONDS)
    last_ok = db.execute(
        "SELECT MAX(at) FROM login_attempts WHERE ip = ? AND name = ? AND ok = 1",
        [ip, name]).fetchone()[0]
    since = max(since, last_ok or since)
    rows = db.execute(
        "SELECT at FROM login_attempts WHERE ip = ? AND name = ? AND ok = 0 AND at > ?"
        " ORDER BY at", [ip, name, since]).fetchall()
    return [r[0] for r in rows]


@functools.lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return generate_password_hash(secrets.token_hex(16))


def check_login(db, name: str, password: str, ip: str, now: float | None = None) -> dict:
    """Verify a sign-in and record the attempt; returns ``{id, name}``.

    Raises :class:`~web.errors.UserError` 429 when this IP has failed too often
    for this name, 401 for a wrong name or password (same words for both, so
    the answer does not reveal which names exist).
    """
    now = time.time() if now is None else now
    key = (name or "").strip().lower()
    limit = current_app.config.get("LOGIN_MAX_FAILURES", LOGIN_MAX_FAILURES)
    window = current_app.config.get("LOGIN_WINDOW_SECONDS", LOGIN_WINDOW_SECONDS)
    with write_tx(db):
        failures = _recent_failures(db, ip, key, now)
        if len(failures) >= limit:
            wait = max(1, int((failures[0] + window - now + 59) // 60))
            raise UserError(words(
                f"{name!r} のログイン失敗が多すぎます。{wait}分待ってからやり直すか、"
                "別のスタッフにパスワードを再設定してもらってください。",
                f"Too many failed sign-ins for {name!r} from this device. Wait {wait} minute(s) "
                "and try again, or ask another staff member to reset the password."),
                status=429, code="login_rate_limited")
        rows = db.execute_returning_dicts(
            "SELECT id, name, password_hash FROM staff_users WHERE name = ? AND active = 1",
            [key])
        # Hash even for an unknown name, so the answer time does not tell which names exist.
        stored = rows[0]["password_hash"] if rows else _dummy_hash()
        ok = check_password_hash(stored, password or "") and bool(rows)
        db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, ?)",
                   [ip, key, now, int(ok)])
        # Old attempts are only noise once the window has passed.
        db.execute("DELETE FROM login_attempts WHERE at < ?", [now - 4 * window])
        if ok:
            db.execute("UPDATE staff_users SET last_login_at = ? WHERE id = ?",
                       [now_iso(), rows[0]["id"]])
    if not ok:
        raise UserError(words("名前かパスワードが違います。", "Wrong staff name or password."),
                        status=401, code="login_failed")
    return {"id": rows[0]["id"], "name": rows[0]["name"]}


# ----------------------------------------------------------------------------- routes
def _safe_next(target: str | None) -> str:
    """Only same-site relative paths, so the sign-in page cannot bounce to another site."""
    if target:
        parts = urlparse(target)
        if not parts.scheme and not parts.netloc and target.startswith("/") \
                and not target.startswith("//") and "\\" not in target:
            return target
    return url_for("staff.floor")


@bp.get("/login")
def login():
    """The sign-in page."""
    return render_template("auth/login.html", next=request.args.get("next", ""), error=None)


@bp.post("/login")
def login_post():
    """Sign a staff member in (form or JSON)."""
    data = request.get_json(silent=True) if request.is_json else request.form
    data = data if isinstance(data, dict) or hasattr(data, "get") else {}
    name, password = str(data.get("name", "")), str(data.get("password", ""))
    try:
        staff = check_login(get_db(), name, password, request.remote_addr or "?")
    except UserError as e:
        if wants_json():
            raise
        page = render_template("auth/login.html", next=data.get("next", ""), error=e.message,
                               name=name)
        return page, e.status
    lang = session.get("lang")
    session.clear()  # a fresh session on sign-in: nothing planted before survives
    if lang:
        session["lang"] = lang
    session["staff_id"] = staff["id"]
    token = rotate_csrf_token()
    if wants_json():
        return jsonify({"ok": True, "staff": staff, "csrf_token": token})
    return redirect(_safe_next(data.get("next")))


@bp.post("/logout")
def logout():
    """Sign out (the tablet cookie, if any, is left alone)."""
    lang = session.get("lang")
    session.clear()
    if lang:
        session["lang"] = lang
    if wants_json():
        return jsonify({"ok": True})
    return redirect(url_for("auth.login"))


@bp.get("/csrf")
def csrf():
    """The session's CSRF token, for scripts that hold the session cookie."""
    return jsonify({"csrf_token": csrf_token()})


def tablet_home(table_id) -> str:
    """The tablet page of a table (W1's blueprint), or a plain path if it is not there."""
    try:
        return url_for("tablet.table_page", table_id=table_id)
    except Exception:  # noqa: BLE001 - the endpoint name belongs to another module
        return f"/tablet/{table_id}"


@bp.get("/pair")
def pair():
    """What the QR code opens: confirm pairing this device with a table."""
    code = request.args.get("code", "")
    try:
        row = pairing_info(get_db(), code)
    except AccessRefused as e:
        if e.code == "pairing_used" and current_tablet_table() is not None:
            # This device already paired (e.g. the QR scanned twice): carry on.
            return redirect(tablet_home(current_tablet_table()))
        refuse(e.status, e.code, e.message)
    return render_template("auth/pair.html", code=code, table_id=row["table_id"],
                           label=row["label"])


@bp.post("/pair")
def pair_post():
    """Exchange the pairing code for the long-lived tablet cookie."""
    data = request.get_json(silent=True) if request.is_json else request.form
    code = str((data or {}).get("code", ""))
    try:
        secret, row = redeem_pairing(get_db(), code)
    except AccessRefused as e:
        refuse(e.status, e.code, e.message)
    if wants_json():
        resp = jsonify({"ok": True, "table_id": row["table_id"], "tablet_id": row["id"],
                        "token": secret})
    else:
        resp = redirect(tablet_home(row["table_id"]))
    set_tablet_cookie(resp, secret)
    return resp
