"""A member's own side of the club: the personal link to their page, their PIN, where
word may reach them and what they agreed to receive.

One row per member who has any of these (``member_profiles``); a member without a row
has no link, no PIN and receives nothing. The link and the PIN are stored only as
hashes: the club file (and its nightly export) never holds a secret a member could be
impersonated with.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import time
from typing import Any

from werkzeug.security import check_password_hash, generate_password_hash

from web.club import accounts
from web.db import Db, Migrations, now_iso, one, write_tx
from web.errors import NotFound, UserError

MIGRATIONS = Migrations("members")

OPTINS = ("optin_seat_ready", "optin_report_card", "optin_risers")
"""What a member may agree to, each off until they say yes: word that their seat is
ready, their report card after each game, a place on the day's R risers board."""


@MIGRATIONS
def _create_member_profiles(db: Db) -> None:
    db.executescript(
        """
        CREATE TABLE member_profiles (
            player_id INTEGER PRIMARY KEY REFERENCES players(id),
            -- sha256 hex of the personal link's token; NULL once revoked
            link_hash TEXT UNIQUE,
            link_issued_at TEXT,
            -- werkzeug password hash of the PIN set at the desk
            pin_hash TEXT,
            pin_set_at TEXT,
            email TEXT,
            line_user_id TEXT,
            optin_seat_ready INTEGER NOT NULL DEFAULT 0 CHECK (optin_seat_ready IN (0, 1)),
            optin_report_card INTEGER NOT NULL DEFAULT 0 CHECK (optin_report_card IN (0, 1)),
            optin_risers INTEGER NOT NULL DEFAULT 0 CHECK (optin_risers IN (0, 1)),
            updated_at TEXT NOT NULL
        );
        """
    )


def profile(db: Db, player_id: int) -> dict | None:
    """A member's profile row, or None for a member who has none."""
    return one(db, "SELECT * FROM member_profiles WHERE player_id = ?", [int(player_id)])


# ----------------------------------------------------------------------------- the link
LINK_BYTES = 24
"""A personal link's token: 24 random bytes (32 URL-safe characters), unguessable."""
PIN_DIGITS = (4, 8)
PIN_TRIES = 8
"""Wrong PINs (or member numbers) in a row that lock a member's settings for the period."""
PIN_LOCK_S = 15 * 60
PIN_SESSION_S = 15 * 60
"""How long the settings stay open after the right member number and PIN."""
EMAIL_MOST = 254
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_LINE_USER = re.compile(r"U[0-9a-f]{32}")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _member(db: Db, player_id: int) -> dict:
    """The player behind ``player_id``, if a member can have a page: not a guest."""
    row = one(db, "SELECT * FROM players WHERE id = ?", [int(player_id)])
    if row is None:
        raise NotFound("records.no_player", player=player_id)
    if row["guest"]:
        raise UserError("member.guest_has_no_page", status=409, code="member_is_guest",
                        name=row["name"])
    return row


def _upsert(db: Db, player_id: int, **values: Any) -> None:
    now = now_iso()
    names = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    sets = ", ".join(f"{k} = excluded.{k}" for k in values)
    db.execute(f"INSERT INTO member_profiles (player_id, {names}, updated_at) "
               f"VALUES (?, {marks}, ?) ON CONFLICT(player_id) DO UPDATE SET {sets}, "
               "updated_at = excluded.updated_at", [int(player_id), *values.values(), now])


def set_line_user(db: Db, player_id: int, user_id: str) -> None:
    """Link a member's LINE user id (as the club's account saw it send their code); call
    inside write_tx."""
    _member(db, player_id)
    _upsert(db, player_id, line_user_id=user_id)


def issue_link(db: Db, player_id: int) -> tuple[str, bool]:
    """A new personal link token for a member, shown once: ``(token, reissued)``. Only its
    hash is kept; an earlier link of the member stops working at once."""
    _member(db, player_id)
    token = secrets.token_urlsafe(LINK_BYTES)
    with write_tx(db):
        before = profile(db, player_id)
        _upsert(db, player_id, link_hash=_hash(token), link_issued_at=now_iso())
    return token, bool(before and before["link_hash"])


def revoke_link(db: Db, player_id: int) -> None:
    """End a member's personal link (their page answers "no such page" from now on)."""
    row = profile(db, player_id)
    if row is None or not row["link_hash"]:
        raise UserError("member.no_link", status=409, code="member_no_link")
    with write_tx(db):
        _upsert(db, player_id, link_hash=None, link_issued_at=None)


def member_for_token(db: Db, token: str) -> dict | None:
    """The member a personal link belongs to (their ``players`` row and profile), or None
    for a token that is unknown, revoked or not a token at all."""
    if not isinstance(token, str) or not 16 <= len(token) <= 100:
        return None
    row = one(db, "SELECT p.*, m.link_issued_at, m.pin_hash IS NOT NULL AS has_pin "
                  "FROM member_profiles m JOIN players p ON p.id = m.player_id "
                  "WHERE m.link_hash = ? AND p.guest = 0", [_hash(token)])
    return row


# ----------------------------------------------------------------------------- the PIN
def check_pin_text(pin: object) -> str:
    """``pin`` if it is 4 to 8 ASCII digits, else a refusal naming the field."""
    low, high = PIN_DIGITS
    if not isinstance(pin, str) or not (low <= len(pin) <= high) or \
            not all("0" <= c <= "9" for c in pin):
        raise UserError("member.pin_form", code="invalid_pin", details={"field": "pin"},
                        low=low, high=high)
    return pin


def set_pin(db: Db, player_id: int, pin: object) -> None:
    """Set or reset a member's PIN (kept as a werkzeug hash). The member needs a member
    number: the settings ask for both."""
    row = _member(db, player_id)
    if not row["member_no"]:
        raise UserError("member.needs_member_no", status=409, code="member_no_missing",
                        name=row["name"])
    pin_hash = generate_password_hash(check_pin_text(pin))
    with write_tx(db):
        _upsert(db, player_id, pin_hash=pin_hash, pin_set_at=now_iso())
        # a new PIN is a fresh start: earlier wrong guesses no longer lock the member
        db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, 1)",
                   [_pin_key(player_id), "member_pin", time.time()])


def _pin_key(player_id: int) -> str:
    return f"member_pin:{int(player_id)}"


def pin_wait(db: Db, player_id: int, now: float | None = None) -> int:
    """Seconds a member's settings stay locked: :data:`PIN_TRIES` wrong tries since the
    last right one lock them until :data:`PIN_LOCK_S` after the last wrong one."""
    now = time.time() if now is None else now
    key = _pin_key(player_id)
    last_ok = db.execute("SELECT MAX(at) FROM login_attempts WHERE ip = ? AND ok = 1",
                         [key]).fetchone()[0]
    since = max(now - PIN_LOCK_S, last_ok or 0)
    count, last = db.execute("SELECT COUNT(*), MAX(at) FROM login_attempts "
                             "WHERE ip = ? AND ok = 0 AND at > ?", [key, since]).fetchone()
    if count < PIN_TRIES:
        return 0
    return max(0, int(last + PIN_LOCK_S - now + 0.999))


def check_pin(db: Db, member: dict, member_no: object, pin: object, ip: str,
              now: float | None = None) -> None:
    """Refuse unless ``member_no`` and ``pin`` are this member's, throttled as a staff
    sign-in: the address waits longer after each failure past the first few (the sign-in's
    own delays, :func:`accounts.attempts_wait`), and :data:`PIN_TRIES` wrong tries lock
    the member for :data:`PIN_LOCK_S` seconds wherever they are typed."""
    now = time.time() if now is None else now
    address = f"member_pin_addr:{ip or '?'}"
    wait = max(pin_wait(db, member["id"], now),
               accounts.attempts_wait(db, address, now, accounts.FREE_FAILURES))
    if wait:
        raise UserError("member.pin_wait", status=429, code="member_pin_rate_limited",
                        seconds=wait, minutes=(wait + 59) // 60,
                        details={"retry_after": wait})
    row = profile(db, member["id"]) or {}
    stored = row.get("pin_hash")
    typed_no = (member_no if isinstance(member_no, str) else "").strip()
    ok = bool(stored) and check_password_hash(stored or _dummy(), str(pin or "")[:16])
    # as at the tablet: m001 is M001 (a member number is read off a card, not a password)
    ok = ok and bool(member["member_no"]) and \
        typed_no.casefold() == str(member["member_no"]).casefold()
    with write_tx(db):
        for key in (_pin_key(member["id"]), address):
            db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, ?)",
                       [key, "member_pin", now, int(ok)])
    if not ok:
        if not stored:
            raise UserError("member.no_pin", status=403, code="member_no_pin")
        raise UserError("member.pin_wrong", status=403, code="member_pin_wrong",
                        details={"field": "pin"})


@functools.lru_cache(maxsize=1)
def _dummy() -> str:
    # the same work for a member without a PIN: the answer's time tells nothing
    return generate_password_hash(secrets.token_hex(8))


# ----------------------------------------------------------------------------- settings
def save_settings(db: Db, player_id: int, *, email: str | None,
                  line_user_id: str | None, optins: dict[str, bool]) -> dict:
    """Keep a member's contacts and opt-ins (blank clears a contact); returns the new
    profile. A malformed address or LINE user id is refused naming the field, and
    nothing changes."""
    email = (email or "").strip() or None
    if email is not None and (len(email) > EMAIL_MOST or not _EMAIL.fullmatch(email)):
        raise UserError("member.bad_email", code="invalid_email", details={"field": "email"})
    line = (line_user_id or "").strip() or None
    if line is not None and not _LINE_USER.fullmatch(line):
        raise UserError("member.bad_line", code="invalid_line_user_id",
                        details={"field": "line_user_id"})
    flags = {k: int(bool(optins.get(k))) for k in OPTINS}
    with write_tx(db):
        _upsert(db, player_id, email=email, line_user_id=line, **flags)
    found = profile(db, player_id)
    assert found is not None  # just written
    return found
