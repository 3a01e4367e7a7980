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
import hmac
import secrets
import time
from typing import Any

from werkzeug.security import check_password_hash, generate_password_hash

from club import accounts, audit, text
from club.db import Db, Migrations, inserted_id, now_iso, one, write_tx
from club.errors import NotFound, UserError
from club.notify import outbox

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


@MIGRATIONS
def _pin_guard(db: Db) -> None:
    db.executescript(
        """
        -- when the link became guarded by wrong PINs (epoch seconds); NULL when it is not
        ALTER TABLE member_profiles ADD COLUMN pin_guard_since REAL;
        -- the live one-time code: sha256 of "<player id>:<code>", until, wrong tries
        ALTER TABLE member_profiles ADD COLUMN pin_code_hash TEXT;
        ALTER TABLE member_profiles ADD COLUMN pin_code_until REAL;
        ALTER TABLE member_profiles ADD COLUMN pin_code_tries INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE member_profiles ADD COLUMN pin_code_sent_at REAL;
        -- when the member confirmed their e-mail address (a code sent to it); NULL: not yet
        ALTER TABLE member_profiles ADD COLUMN email_confirmed_at TEXT;
        """
    )


@MIGRATIONS
def _email_confirmation(db: Db) -> None:
    db.executescript(
        """
        -- the code that confirms the e-mail address: sha256 of "<player id>:<code>"
        ALTER TABLE member_profiles ADD COLUMN email_code_hash TEXT;
        ALTER TABLE member_profiles ADD COLUMN email_code_until REAL;
        ALTER TABLE member_profiles ADD COLUMN email_code_tries INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE member_profiles ADD COLUMN email_code_sent_at REAL;
        """
    )


@MIGRATIONS
def _pin_too_easy(db: Db) -> None:
    db.executescript(
        """
        -- 1 once the member opened the settings with a PIN a new one could not be (under
        -- six digits, or a weak one): the desk page asks for a new PIN
        ALTER TABLE member_profiles ADD COLUMN pin_too_easy INTEGER NOT NULL DEFAULT 0;
        """
    )


def profile(db: Db, player_id: int) -> dict | None:
    """A member's profile row, or None for a member who has none."""
    return one(db, "SELECT * FROM member_profiles WHERE player_id = ?", [int(player_id)])


# ----------------------------------------------------------------------------- the link
LINK_BYTES = 24
"""A personal link's token: 24 random bytes (32 URL-safe characters), unguessable."""
PIN_DIGITS = (6, 8)
"""A PIN set at the desk: 6 to 8 ASCII digits, none of the weak ones (:func:`weak_pin`)."""
PIN_TYPED = (4, 8)
"""What the settings take as typed: a PIN set before PINs had six digits still opens."""
LINK_TRIES = 8
"""Wrong PINs on one link (from anywhere) within :data:`PIN_WINDOW_S` after which the link
is guarded: the PIN alone no longer opens it, a one-time code sent to the member does."""
PIN_WINDOW_S = 24 * 3600
SOURCE_TRIES = 5
"""Wrong PINs from one address (on any link) that lock that address for
:data:`PIN_LOCK_S` seconds; the member elsewhere is not slowed."""
PIN_LOCK_S = 15 * 60
PIN_SESSION_S = 15 * 60
"""How long the settings stay open after the right member number and PIN."""
CODE_DIGITS = 6
CODE_TTL_S = 10 * 60
CODE_TRIES = 5
"""Wrong codes after which a one-time code is spent (a new one must be sent)."""
CODE_EVERY_S = 60
"""At most one code a minute per link: a stranger cannot flood the member with codes."""
EMAIL_CODE_TTL_S = 24 * 3600
"""How long the code sent to a new e-mail address confirms it."""
WEAK_PINS = frozenset({
    "123456", "654321", "123123", "112233", "121212", "123321", "111222", "147258",
    "159753", "258456", "456789", "789456", "102030", "010203", "696969", "520520",
    "131313", "147852", "987654", "246810", "135790", "12345678", "87654321", "11223344",
    "12341234", "19871987",
})
"""PINs people choose most (beyond repeats and runs, which :func:`weak_pin` finds itself)."""


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


def _fresh_start(db: Db, player_id: int) -> None:
    """Earlier wrong PINs on the member's link stop counting (a new link or a new PIN:
    the stranger has neither), and the guard and any code end."""
    db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, 1)",
               [_pin_key(player_id), "member_pin", time.time()])
    db.execute("UPDATE member_profiles SET pin_guard_since = NULL, pin_code_hash = NULL, "
               "pin_code_until = NULL, pin_code_tries = 0 WHERE player_id = ?",
               [int(player_id)])


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
        _fresh_start(db, player_id)
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
    row = one(db, "SELECT p.*, m.link_issued_at, m.pin_set_at, "
                  "m.pin_hash IS NOT NULL AS has_pin "
                  "FROM member_profiles m JOIN players p ON p.id = m.player_id "
                  "WHERE m.link_hash = ? AND p.guest = 0", [_hash(token)])
    return row


# ----------------------------------------------------------------------------- the PIN
def _digits(value: object, low: int, high: int) -> bool:
    return isinstance(value, str) and low <= len(value) <= high and \
        all("0" <= c <= "9" for c in value)


def weak_pin(pin: str) -> bool:
    """Whether ``pin`` is one a stranger tries first: one digit repeated (``000000``), a
    run up or down (``123456``, ``987654``, ``890123``), a short pattern repeated
    (``121212``, ``123123``), or one of :data:`WEAK_PINS`."""
    if pin in WEAK_PINS or len(set(pin)) <= 2:
        return True
    steps = {(int(b) - int(a)) % 10 for a, b in zip(pin, pin[1:], strict=False)}
    if steps in ({1}, {9}):
        return True
    return any(len(pin) % n == 0 and pin == pin[:n] * (len(pin) // n) for n in (2, 3, 4))


def check_pin_text(pin: object) -> str:
    """``pin`` if it is 6 to 8 ASCII digits and not weak, else a refusal naming the field."""
    low, high = PIN_DIGITS
    if not _digits(pin, low, high):
        raise UserError("member.pin_form", code="invalid_pin", details={"field": "pin"},
                        low=low, high=high)
    assert isinstance(pin, str)
    if weak_pin(pin):
        raise UserError("member.pin_weak", code="weak_pin", details={"field": "pin"})
    return pin


def set_pin(db: Db, player_id: int, pin: object) -> None:
    """Set or reset a member's PIN (kept as a werkzeug hash). Every settings session
    opened with the old PIN ends (it carries the PIN's time), and the link is no longer
    guarded. The member needs a member number: the settings ask for both."""
    row = _member(db, player_id)
    if not row["member_no"]:
        raise UserError("member.needs_member_no", status=409, code="member_no_missing",
                        name=row["name"])
    pin_hash = generate_password_hash(check_pin_text(pin))
    with write_tx(db):
        _upsert(db, player_id, pin_hash=pin_hash, pin_set_at=now_iso(), pin_too_easy=0)
        _fresh_start(db, player_id)


def _pin_key(player_id: int) -> str:
    return f"member_pin:{int(player_id)}"


def _source_key(ip: str) -> str:
    return f"member_pin_addr:{ip or '?'}"


def _wrong_since(db: Db, key: str, now: float, window: float) -> tuple[int, float | None]:
    """Wrong tries under ``key`` within ``window`` seconds and since its last right one:
    ``(count, the oldest one's time)``."""
    last_ok = db.execute("SELECT MAX(at) FROM login_attempts WHERE ip = ? AND ok = 1",
                         [key]).fetchone()[0]
    since = max(now - window, last_ok or 0)
    count, first = db.execute("SELECT COUNT(*), MIN(at) FROM login_attempts "
                              "WHERE ip = ? AND ok = 0 AND at > ?", [key, since]).fetchone()
    return int(count), first


def link_wrong(db: Db, player_id: int, now: float | None = None) -> int:
    """Wrong PINs on the member's link within :data:`PIN_WINDOW_S`, since their last
    opening, new PIN or new link."""
    now = time.time() if now is None else now
    return _wrong_since(db, _pin_key(player_id), now, PIN_WINDOW_S)[0]


def guarded(db: Db, player_id: int, now: float | None = None) -> bool:
    """Whether the member's link is guarded: :data:`LINK_TRIES` wrong PINs on it, so the
    settings open only with a one-time code sent to the member as well."""
    return link_wrong(db, player_id, now) >= LINK_TRIES


def source_wait(db: Db, ip: str, now: float | None = None) -> int:
    """Seconds an address must wait before its next PIN: the sign-in's growing delays
    after a few failures, and :data:`PIN_LOCK_S` after :data:`SOURCE_TRIES` wrong ones."""
    now = time.time() if now is None else now
    key = _source_key(ip)
    wait = accounts.attempts_wait(db, key, now, accounts.FREE_FAILURES)
    count, _first = _wrong_since(db, key, now, PIN_LOCK_S)
    if count >= SOURCE_TRIES:
        last = db.execute("SELECT MAX(at) FROM login_attempts WHERE ip = ? AND ok = 0",
                          [key]).fetchone()[0] or now
        wait = max(wait, int(last + PIN_LOCK_S - now + 0.999))
    return max(0, wait)


def pin_wait(db: Db, player_id: int, now: float | None = None) -> int:
    """Seconds until the member's link is no longer guarded by wrong PINs alone (0 when it
    is not guarded): the time the oldest counted wrong PIN leaves the window."""
    now = time.time() if now is None else now
    key = _pin_key(player_id)
    count, _first = _wrong_since(db, key, now, PIN_WINDOW_S)
    if count < LINK_TRIES:
        return 0
    last_ok = db.execute("SELECT MAX(at) FROM login_attempts WHERE ip = ? AND ok = 1",
                         [key]).fetchone()[0]
    since = max(now - PIN_WINDOW_S, last_ok or 0)
    at = db.execute("SELECT at FROM login_attempts WHERE ip = ? AND ok = 0 AND at > ? "
                    "ORDER BY at LIMIT 1 OFFSET ?", [key, since, count - LINK_TRIES]
                    ).fetchone()[0]
    return max(1, int(at + PIN_WINDOW_S - now + 0.999))


def code_channel(db: Db, player_id: int) -> tuple[str, str] | None:
    """Where a one-time code reaches the member: their LINE id, else their e-mail once
    they confirmed it; None when neither."""
    row = profile(db, player_id) or {}
    if row.get("line_user_id"):
        return "line", str(row["line_user_id"])
    if row.get("email") and row.get("email_confirmed_at"):
        return "email", str(row["email"])
    return None


def _send(db: Db, player_id: int, kind: str, payload: dict[str, Any]) -> bool:
    """Queue a security message to the member's code channel (whatever their opt-ins:
    it is about their own link). True if queued."""

    where = code_channel(db, player_id)
    if where is None:
        return False
    to = {"line_user_id": where[1]} if where[0] == "line" else {"email": where[1]}
    return outbox.queue(db, f"{kind}:{secrets.token_hex(8)}:{int(player_id)}", to, kind,
                        payload)


def send_code(db: Db, player_id: int, now: float | None = None) -> str:
    """Send a one-time code to the member's code channel for a guarded link; the channel's
    kind (``line`` or ``email``). Refused in words when the link is not guarded, the
    member has no channel, or a code went less than :data:`CODE_EVERY_S` ago."""
    now = time.time() if now is None else now
    with write_tx(db):
        if not guarded(db, player_id, now):
            raise UserError("member.code_not_needed", status=409, code="member_code_not_needed")
        where = code_channel(db, player_id)
        if where is None:
            raise UserError("member.pin_locked_desk", status=429,
                            code="member_pin_locked", details={"retry_after":
                                                               pin_wait(db, player_id, now)})
        row = profile(db, player_id) or {}
        sent = row.get("pin_code_sent_at") or 0
        if now - sent < CODE_EVERY_S:
            wait = int(sent + CODE_EVERY_S - now + 0.999)
            raise UserError("member.code_wait", status=429, code="member_code_rate_limited",
                            seconds=wait, details={"retry_after": wait})
        code = "".join(str(secrets.randbelow(10)) for _ in range(CODE_DIGITS))
        db.execute("UPDATE member_profiles SET pin_code_hash = ?, pin_code_until = ?, "
                   "pin_code_tries = 0, pin_code_sent_at = ? WHERE player_id = ?",
                   [_hash(f"{int(player_id)}:{code}"), now + CODE_TTL_S, now, int(player_id)])
        _send(db, player_id, "pin_code", {"code": code, "minutes": CODE_TTL_S // 60})
    return where[0]


def _take_code(db: Db, player_id: int, code: object, now: float) -> bool:
    """Whether ``code`` is the member's live one-time code (spent when right; each wrong
    one counts, :data:`CODE_TRIES` spend it). Inside the caller's write."""
    row = profile(db, player_id) or {}
    stored, until = row.get("pin_code_hash"), row.get("pin_code_until") or 0
    if not stored or until < now:
        return False
    if isinstance(code, str) and _digits(code.strip(), CODE_DIGITS, CODE_DIGITS) and \
            hmac.compare_digest(stored, _hash(f"{int(player_id)}:{code.strip()}")):
        db.execute("UPDATE member_profiles SET pin_code_hash = NULL, pin_code_until = NULL "
                   "WHERE player_id = ?", [int(player_id)])
        return True
    tries = int(row.get("pin_code_tries") or 0) + 1
    db.execute("UPDATE member_profiles SET pin_code_tries = ?, pin_code_hash = ? "
               "WHERE player_id = ?", [tries, stored if tries < CODE_TRIES else None,
                                       int(player_id)])
    return False


def _refuse_wait(key: str, code: str, wait: int) -> UserError:
    return UserError(key, status=429, code=code, seconds=wait, minutes=(wait + 59) // 60,
                     details={"retry_after": wait})


def check_pin(db: Db, member: dict, member_no: object, pin: object, ip: str,
              code: object = None, now: float | None = None) -> None:
    """Refuse unless ``member_no`` and ``pin`` are this member's.

    Each try is counted and recorded, as wrong, in one write transaction before the PIN
    is checked (a right one is marked right afterwards), so however many tries arrive
    at once no more than the limits are ever checked. An address is slowed and then
    locked after :data:`SOURCE_TRIES` wrong PINs (:func:`source_wait`): the member
    elsewhere is not. After :data:`LINK_TRIES` wrong PINs on the link the link is
    guarded: the PIN is checked only with a one-time code sent to the member
    (:func:`send_code`), and the member and the desk are told once; a member without a
    channel for a code gets a new link at the desk (the stranger lacks it)."""
    now = time.time() if now is None else now
    pid = int(member["id"])
    with write_tx(db):
        wait = source_wait(db, ip, now)
        if wait:
            raise _refuse_wait("member.pin_wait", "member_pin_rate_limited", wait)
        if guarded(db, pid, now):
            if code_channel(db, pid) is None:
                raise _refuse_wait("member.pin_locked_desk", "member_pin_locked",
                                   pin_wait(db, pid, now))
            if code is None or code == "":
                raise UserError("member.code_required", status=401,
                                code="member_code_required", details={"field": "code"})
            code_right = _take_code(db, pid, code, now)
            if not code_right:           # kept: the refusal comes after the commit
                db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, 0)",
                           [_source_key(ip), "member_pin", now])
        else:
            code_right = True
        if code_right:
            ids = [inserted_id(db.execute(
                "INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, 0)",
                [key, "member_pin", now])) for key in (_pin_key(pid), _source_key(ip))]
    if not code_right:
        raise UserError("member.code_wrong", status=403, code="member_code_wrong",
                        details={"field": "code"})
    row = profile(db, pid) or {}
    stored = row.get("pin_hash")
    typed_no = (member_no if isinstance(member_no, str) else "").strip()
    typed = pin if isinstance(pin, str) and _digits(pin, *PIN_TYPED) else ""
    # the same work for a member without a PIN: the answer's time tells nothing
    checked = check_password_hash(stored or _dummy(), str(typed))
    ok = bool(stored) and checked
    # as at the tablet: m001 is M001 (a member number is read off a card, not a password)
    ok = ok and bool(typed) and bool(member["member_no"]) and \
        typed_no.casefold() == str(member["member_no"]).casefold()
    with write_tx(db):
        if ok:
            db.execute("UPDATE login_attempts SET ok = 1 WHERE rowid IN (?, ?)", ids)
            # a PIN set before PINs had six digits still opens; the desk is asked to renew it
            easy = len(typed) < PIN_DIGITS[0] or weak_pin(typed)
            db.execute("UPDATE member_profiles SET pin_guard_since = NULL, pin_too_easy = ? "
                       "WHERE player_id = ?", [int(easy), pid])
            return
        if guarded(db, pid, now):
            _tell_of_guard(db, pid, now)
    if not stored:
        raise UserError("member.no_pin", status=403, code="member_no_pin")
    raise UserError("member.pin_wrong", status=403, code="member_pin_wrong",
                    details={"field": "pin"})


@functools.lru_cache(maxsize=1)
def _dummy() -> str:
    return generate_password_hash(secrets.token_hex(8))


def _tell_of_guard(db: Db, player_id: int, now: float) -> None:
    """The link just became guarded: tell the member (by their code channel) and the desk
    (the audit log; the member's desk page shows it), once per guard."""
    cur = db.execute("UPDATE member_profiles SET pin_guard_since = ? WHERE player_id = ? "
                     "AND (pin_guard_since IS NULL OR pin_guard_since < ?)",
                     [now, player_id, now - PIN_WINDOW_S])
    if not cur.rowcount:
        return
    told = _send(db, player_id, "pin_locked", {"tries": LINK_TRIES})
    audit.audit(db, "system", "member.pin_locked", f"player:{player_id}",
                details={"tries": LINK_TRIES, "member_told": int(told)})


def guard_state(db: Db, player_id: int) -> dict:
    """What the desk sees of a member's link: guarded or not, wrong PINs counted, since
    when, and whether a code can reach the member."""
    row = profile(db, player_id) or {}
    return {"guarded": guarded(db, player_id), "wrong": link_wrong(db, player_id),
            "too_easy": bool(row.get("pin_too_easy")),
            "since": row.get("pin_guard_since"),
            "channel": (code_channel(db, player_id) or (None,))[0]}


# ----------------------------------------------------------------------------- settings
def save_settings(db: Db, player_id: int, *, email: str | None, optins: dict[str, bool],
                  unlink_line: bool = False) -> dict:
    """Keep a member's e-mail and opt-ins (blank clears the address), and unlink their
    LINE if asked (it is linked only by the code they send the club's account,
    :mod:`club.notify.line_link`); returns the new profile. A malformed address is
    refused naming the field, and nothing changes. A new e-mail address is unconfirmed:
    a code goes to it (and only that, until the member types the code back,
    :func:`confirm_email`)."""
    email = (email or "").strip() or None
    if email is not None:
        email = text.email_address(email)
    flags = {k: int(bool(optins.get(k))) for k in OPTINS}
    with write_tx(db):
        before = profile(db, player_id) or {}
        _upsert(db, player_id, email=email, **flags)
        if unlink_line:
            _upsert(db, player_id, line_user_id=None)
        if email != before.get("email"):
            _upsert(db, player_id, email_confirmed_at=None, email_code_hash=None,
                    email_code_until=None, email_code_tries=0, email_code_sent_at=None)
            if email is not None:
                _email_code(db, player_id, email, time.time())
    found = profile(db, player_id)
    assert found is not None  # just written
    return found


def _email_code(db: Db, player_id: int, email: str, now: float) -> None:
    """Send a code to ``email`` (the one message an unconfirmed address gets)."""

    code = "".join(str(secrets.randbelow(10)) for _ in range(CODE_DIGITS))
    _upsert(db, player_id, email_code_hash=_hash(f"{int(player_id)}:{code}"),
            email_code_until=now + EMAIL_CODE_TTL_S, email_code_tries=0,
            email_code_sent_at=now)
    outbox.queue(db, f"email_confirm:{secrets.token_hex(8)}:{int(player_id)}",
                 {"email": email}, "email_confirm",
                 {"code": code, "hours": EMAIL_CODE_TTL_S // 3600})


def resend_email_code(db: Db, player_id: int, now: float | None = None) -> str:
    """Send a new code to the member's unconfirmed address (at most one a minute); the
    address."""
    now = time.time() if now is None else now
    with write_tx(db):
        row = profile(db, player_id) or {}
        if not row.get("email") or row.get("email_confirmed_at"):
            raise UserError("member.email_nothing_to_confirm", status=409,
                            code="email_nothing_to_confirm")
        sent = row.get("email_code_sent_at") or 0
        if now - sent < CODE_EVERY_S:
            wait = int(sent + CODE_EVERY_S - now + 0.999)
            raise UserError("member.code_wait", status=429, code="member_code_rate_limited",
                            seconds=wait, details={"retry_after": wait})
        _email_code(db, player_id, str(row["email"]), now)
    return str(row["email"])


def confirm_email(db: Db, player_id: int, code: object, now: float | None = None) -> str:
    """Confirm the member's e-mail address with the code sent to it; the address. A
    wrong code counts (:data:`CODE_TRIES` spend it) and is refused in words."""
    now = time.time() if now is None else now
    with write_tx(db):
        row = profile(db, player_id) or {}
        stored, until = row.get("email_code_hash"), row.get("email_code_until") or 0
        typed = code.strip() if isinstance(code, str) else ""
        right = bool(stored) and until >= now and _digits(typed, CODE_DIGITS, CODE_DIGITS) \
            and hmac.compare_digest(str(stored), _hash(f"{int(player_id)}:{typed}"))
        if right:
            _upsert(db, player_id, email_confirmed_at=now_iso(), email_code_hash=None,
                    email_code_until=None, email_code_tries=0)
        elif stored:
            tries = int(row.get("email_code_tries") or 0) + 1
            _upsert(db, player_id, email_code_tries=tries,
                    email_code_hash=stored if tries < CODE_TRIES else None)
    if not right:
        raise UserError("member.email_code_wrong", status=403, code="email_code_wrong",
                        details={"field": "email_code"})
    return str(row["email"])
