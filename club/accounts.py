"""Staff accounts and the throttles in front of every guessable secret.

Accounts live in ``staff_users`` with ``werkzeug.security`` password hashes,
a role (``owner`` > ``manager`` > ``staff``) and a session generation: a
session cookie names the generation it was issued under, and logout, a new
password and disabling the account move the generation on, so every cookie
issued before stops working at once (a re-enabled account does not revive
them). A sign-in name is stored and compared as NFKC + case-folded text.

Sign-in is checked outside any write transaction (the scrypt check takes
tens of milliseconds and must never hold up a table's hand). Two throttles
keep a flood of guesses off the CPU and off the floor:

* per address: the first :data:`FREE_FAILURES` failures cost nothing; after
  that each further attempt must wait twice as long as the one before
  (2 s, 4 s, ... at most :data:`MAX_DELAY_S`), counted from the address's
  last failure since its last success. A growing delay, never a lockout:
  real staff at another device are not affected, and the same device can
  always try again later. The failures are kept in ``login_attempts``, so a
  restart does not reset them.
* global: at most :data:`GLOBAL_PER_SECOND` password checks a second (and
  one at a time) per server process; beyond that the answer is 429
  "try again in a moment" without checking anything.

The checks that pass both run on one thread per process at a low CPU priority
(:data:`CHECK_NICE`), so the scrypt work of a flood gives way to the tablets.
The sign-in pages that use all this, and the refusal in front of them, are the web's.
"""

from __future__ import annotations

import functools
import os
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from werkzeug.security import check_password_hash, generate_password_hash

from club import text
from club.db import Db, Migrations, inserted_id, now_iso, one, write_tx
from club.errors import Conflict, NotFound, UserError

ROLES = ("staff", "manager", "owner")
"""Staff roles, least to most: a manager or owner manages other accounts of a lower or
the same role (an owner any account)."""
MIN_PASSWORD_LENGTH = 10
MAX_PASSWORD_LENGTH = 200
MAX_NAME_LENGTH = 64
FREE_FAILURES = 3
MAX_DELAY_S = 15 * 60
FAILURE_MEMORY_S = 24 * 3600
"""Failures older than this no longer count (nor does anything before a success)."""
GLOBAL_PER_SECOND = 2.0
GLOBAL_BURST = 4
BUSY_RETRY_S = 1
"""Seconds a sign-in refused because others' checks are busy is told to wait (and waits)."""
SIGN_IN_PATH = "/auth/login"
"""Where a sign-in is posted (the refusals in front of Flask look for it)."""
CHECK_NICE = 10
"""CPU priority (Linux nice) of the thread that checks passwords: a flood of sign-ins gets
only the CPU the tablets leave, while a staff sign-in on a normal night is as quick."""


# ----------------------------------------------------------------------------- schema
MIGRATIONS = Migrations("auth")


@MIGRATIONS(legacy=("migrations", "number", 200))
def _create_staff_users(db: Db) -> None:
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
def _create_login_attempts(db: Db) -> None:
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


@MIGRATIONS
def _roles_sessions_and_names(db: Db) -> None:
    # Roles and session generations; names stored as they are compared (NFKC + casefold);
    # the oldest account becomes the owner, so a club that upgrades can still manage staff.
    db.execute("ALTER TABLE staff_users ADD COLUMN role TEXT NOT NULL DEFAULT 'staff' "
               "CHECK (role IN ('staff', 'manager', 'owner'))")
    db.execute("ALTER TABLE staff_users ADD COLUMN session_gen INTEGER NOT NULL DEFAULT 0")
    for staff_id, name in db.execute("SELECT id, name FROM staff_users").fetchall():
        db.execute("UPDATE staff_users SET name = ? WHERE id = ?",
                   [text.sign_in_name(name), staff_id])
    db.execute("UPDATE staff_users SET role = 'owner' WHERE id = "
               "(SELECT MIN(id) FROM staff_users)")
    db.execute("CREATE INDEX login_attempts_ip ON login_attempts(ip, at)")


# ----------------------------------------------------------------------------- accounts
def _check_name(name: object) -> str:
    text.clean(name, "name", MAX_NAME_LENGTH)  # refuses control characters, blank, too long
    return text.sign_in_name(name)


def _check_password(password: object) -> str:
    if not isinstance(password, str) or not (
            MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH):
        raise UserError("auth.weak_password", code="weak_password", most=MAX_PASSWORD_LENGTH,
                        least=MIN_PASSWORD_LENGTH, details={"field": "password"})
    return password


def _check_role(role: object) -> str:
    if not isinstance(role, str) or role not in ROLES:
        raise UserError("field.not_choice", code="invalid_field", details={"field": "role"},
                        field="role", options=", ".join(ROLES))
    return role


def _account(db: Db, name: str) -> dict:
    row = one(db, "SELECT id, name, role, active FROM staff_users WHERE name = ?",
              [text.sign_in_name(name)])
    if row is None:
        raise NotFound("auth.no_account", name=name)
    return row


def _may_manage(by: dict | None, target_role: str) -> None:
    """``by`` (None: the command line, which runs as the machine's owner) may act on an
    account of ``target_role``: a manager or owner, and not above their own role."""
    if by is None:
        return
    mine = ROLES.index(by.get("role") or "staff")
    if mine < ROLES.index("manager") or ROLES.index(target_role) > mine:
        raise UserError("auth.needs_role", status=403, code="role_required",
                        role=by.get("role") or "staff")


def create_staff(db: Db, name: str, password: str, *, role: str = "staff",
                 by: dict | None = None) -> int:
    """Create a staff account; refuse a duplicate name, a short password or a role above
    the creator's. The first account of a club is its owner."""
    name, password, role = _check_name(name), _check_password(password), _check_role(role)
    _may_manage(by, role)
    with write_tx(db):
        if db.execute("SELECT 1 FROM staff_users WHERE name = ?", [name]).fetchone():
            raise Conflict("auth.account_exists", code="staff_exists", name=name)
        if not db.execute("SELECT 1 FROM staff_users LIMIT 1").fetchone():
            role = "owner"
        cur = db.execute(
            "INSERT INTO staff_users (name, password_hash, created_at, role) VALUES (?, ?, ?, ?)",
            [name, generate_password_hash(password), now_iso(), role],
        )
    return inserted_id(cur)


def set_staff_password(db: Db, name: str, password: str, *, by: dict | None = None,
                       current: object = None, ip: str = "?",
                       guard: SignInGuard | None = None) -> None:
    """Set a new password: one's own (``current`` must be the password now, checked and
    throttled like a sign-in from ``ip`` through ``guard``), or (manager/owner) another's.
    Every session of the account ends; a disabled account stays disabled."""
    password = _check_password(password)
    target = _account(db, name)
    if by is not None and by["id"] == target["id"]:
        check_current_password(db, target, current, ip,
                               guard=SignInGuard() if guard is None else guard)
    else:
        _may_manage(by, target["role"])
    with write_tx(db):
        db.execute("UPDATE staff_users SET password_hash = ?, session_gen = session_gen + 1 "
                   "WHERE id = ?", [generate_password_hash(password), target["id"]])


def set_staff_role(db: Db, name: str, role: str, *, by: dict | None = None) -> None:
    """Change an account's role (manager/owner, never above their own)."""
    role, target = _check_role(role), _account(db, name)
    _may_manage(by, target["role"])
    _may_manage(by, role)
    with write_tx(db):
        if target["role"] == "owner" and role != "owner" and _others(db, target["id"],
                                                                     "role = 'owner'") == 0:
            raise Conflict("auth.last_owner", code="staff_last_owner")
        db.execute("UPDATE staff_users SET role = ? WHERE id = ?", [role, target["id"]])


def _others(db: Db, staff_id: int, where: str) -> int:
    return db.execute(f"SELECT COUNT(*) FROM staff_users WHERE active = 1 AND id != ? AND {where}",
                      [staff_id]).fetchone()[0]


def set_staff_active(db: Db, name: str, active: bool, *, by: dict | None = None) -> None:
    """Disable (or re-enable) a staff account; a disabled account's sessions end at once and
    stay ended when it is enabled again.

    Refuses to disable the account doing it or the last active owner, so the club
    cannot lock itself out of the console.
    """
    target = _account(db, name)
    _may_manage(by, target["role"])
    with write_tx(db):
        if not active:
            if by is not None and by["id"] == target["id"]:
                raise Conflict("auth.self_disable", code="staff_self_disable")
            if _others(db, target["id"], "1=1") == 0 or (
                    target["role"] == "owner" and _others(db, target["id"], "role = 'owner'") == 0):
                raise Conflict("auth.last_account", code="staff_last_account")
        db.execute("UPDATE staff_users SET active = ?, session_gen = session_gen + ? WHERE id = ?",
                   [int(active), 0 if active else 1, target["id"]])


def end_sessions(db: Db, staff_id: int) -> None:
    """End every session of an account (sign-out everywhere)."""
    with write_tx(db):
        db.execute("UPDATE staff_users SET session_gen = session_gen + 1 WHERE id = ?",
                   [staff_id])


def list_staff(db: Db) -> list[dict]:
    """Staff accounts without their password hashes."""
    return db.execute_returning_dicts(
        "SELECT id, name, role, active, created_at, last_login_at FROM staff_users ORDER BY name")


# ----------------------------------------------------------------------------- sign-in
class _Gate:
    """The global throttle: a token bucket of password checks, one check at a time."""

    def __init__(self, per_second: float, burst: int):
        self.per_second, self.burst = per_second, burst
        self.tokens, self.at = float(burst), time.monotonic()
        self.lock, self.busy = threading.Lock(), threading.Lock()

    def enter(self) -> bool:
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
            self.at = now
            if self.tokens < 1 or not self.busy.acquire(blocking=False):
                return False
            self.tokens -= 1
            return True

    def leave(self) -> None:
        self.busy.release()


def login_wait(db: Db, ip: str, now: float, guard: SignInGuard) -> int:
    """Seconds this address must still wait before its next sign-in attempt (0: none)."""
    return attempts_wait(db, ip, now, guard.free_failures)


def attempts_wait(db: Db, key: str, now: float, free: int,
                  memory: float = FAILURE_MEMORY_S) -> int:
    """Seconds ``key`` must still wait before its next try: the first ``free`` failures
    (within ``memory`` seconds and since its last success) cost nothing, then each one
    doubles the wait (2 s, 4 s, ... at most :data:`MAX_DELAY_S`). ``key`` is an address
    for sign-ins, or names what else is guessed at (:func:`throttled`)."""
    last_ok = db.execute("SELECT MAX(at) FROM login_attempts WHERE ip = ? AND ok = 1",
                         [key]).fetchone()[0]
    since = max(now - memory, last_ok or 0)
    count, last = db.execute("SELECT COUNT(*), MAX(at) FROM login_attempts "
                             "WHERE ip = ? AND ok = 0 AND at > ?", [key, since]).fetchone()
    if count < free:
        return 0
    delay = min(2 ** (count - free + 1), MAX_DELAY_S)
    return max(0, int(last + delay - now + 0.999))


class Throttle:
    """The sign-in's growing delays for other guesses: member numbers at a settlement,
    guests added from a tablet. Each try is kept under every one of its ``keys`` (the
    tablet, the table or the game) in ``login_attempts``; a try is refused with 429,
    Retry-After and ``words`` while any key must wait. A failure never is forgotten
    because of a later success: a right member number for one seat does not buy more
    guesses at another."""

    def __init__(self, what: str, words: str, free: int, memory: float = FAILURE_MEMORY_S):
        self.what, self.words, self.free, self.memory = what, words, free, memory

    def check(self, db: Db, keys: list[str], now: float | None = None, *,
              free: int | None = None) -> None:
        """Refuse (429 in words, ``retry_after``) while any of ``keys`` must wait (``free``
        tries cost nothing; the throttle's own number when not given)."""
        now = time.time() if now is None else now
        free = self.free if free is None else free
        wait = max(attempts_wait(db, f"{self.what}:{k}", now, free, self.memory)
                   for k in keys)
        if wait:
            raise UserError(self.words, status=429, code=f"{self.what}_rate_limited",
                            seconds=wait, details={"retry_after": wait})

    def count(self, db: Db, keys: list[str], now: float | None = None) -> None:
        """Count one try against every key (a wrong guess, or one more guest)."""
        now = time.time() if now is None else now
        with write_tx(db):
            for k in keys:
                db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, 0)",
                           [f"{self.what}:{k}", self.what, now])


MEMBER_NO_GUESSES = Throttle("member_no", "records.member_no_wait", free=3)
"""Wrong member numbers at a settlement confirmation, per tablet and per game."""
GUESTS_FROM_TABLETS = Throttle("guest", "tablet.guest_wait", free=8, memory=3600)
"""Guests a tablet adds, per tablet and per table: a table's evening of walk-ins is free,
a script adding thousands waits."""


class Waits:
    """When each address may next try to sign in, as this process last learnt it from
    ``login_attempts``, so a flood from an address that must wait is refused before any
    session, form or database work (:class:`FastRefusal`)."""

    def __init__(self) -> None:
        self.until: dict[str, float] = {}
        self.lock = threading.Lock()

    def note(self, ip: str, until: float) -> None:
        with self.lock:
            if len(self.until) > 10_000:  # forget the ones that are over
                now = time.time()
                self.until = {k: v for k, v in self.until.items() if v > now}
            self.until[ip] = until

    def left(self, ip: str, now: float) -> int:
        until = self.until.get(ip)
        return int(until - now + 0.999) if until and until > now else 0


class SignInGuard:
    """One server process's sign-in throttles: the global gate of password checks, the
    waits it learnt, and its numbers (the shell makes it from its configuration)."""

    def __init__(self, *, per_second: float = GLOBAL_PER_SECOND, burst: int = GLOBAL_BURST,
                 free_failures: int = FREE_FAILURES) -> None:
        self.gate = _Gate(per_second, burst)
        self.waits = Waits()
        self.free_failures = free_failures


_checker: ThreadPoolExecutor | None = None
_checker_lock = threading.Lock()


def _forget_checker() -> None:
    # A forked server process has none of its parent's threads: it starts its own checker.
    global _checker
    _checker = None


os.register_at_fork(after_in_child=_forget_checker)


def _lower_priority() -> None:
    # On Linux a thread's nice is its own: this lowers the checker, not the process.
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, max(CHECK_NICE, os.getpriority(os.PRIO_PROCESS, tid)))
    except (AttributeError, OSError):
        pass                   # no per-thread priority here: checks run at the usual one


def _password_matches(stored: str, password: str) -> bool:
    """``check_password_hash`` on this process's low-priority checker thread."""
    global _checker
    with _checker_lock:
        if _checker is None:
            _checker = ThreadPoolExecutor(1, thread_name_prefix="jantaku-password",
                                          initializer=_lower_priority)
        pool = _checker
    return pool.submit(check_password_hash, stored, password).result()


@functools.lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return generate_password_hash(secrets.token_hex(16))


def check_login(db: Db, name: str, password: str, ip: str, now: float | None = None, *,
                guard: SignInGuard) -> dict:
    """Verify a sign-in and record the attempt; returns ``{id, name, role, session_gen}``.

    Raises :class:`~web.errors.UserError` 429 while this address must wait or the
    server is busy checking others, 401 for a wrong name or password (the same words
    for both, so the answer does not reveal which names exist).
    """
    row = _verify(db, text.sign_in_name(name), password, ip, now, guard)
    if row is None:
        raise UserError("auth.wrong", status=401, code="login_failed")
    return row


def check_current_password(db: Db, staff: dict, password: object, ip: str,
                           now: float | None = None, *, guard: SignInGuard) -> None:
    """Refuse (403 in words) unless ``password`` is ``staff``'s current one: asked before
    a signed-in person sets a new password of their own, so a session left open cannot
    take the account over. Throttled and recorded exactly like a sign-in from ``ip``."""
    if not isinstance(password, str) or not password:
        raise UserError("field.required", code="missing_current_password",
                        details={"field": "current_password"}, field="current_password")
    if _verify(db, text.sign_in_name(staff["name"]), password, ip, now, guard) is None:
        raise UserError("auth.wrong_current", status=403, code="wrong_current_password",
                        details={"field": "current_password"})


def _verify(db: Db, key: str, password: str, ip: str, now: float | None,
            guard: SignInGuard) -> dict | None:
    """The sign-in check itself: wait while ``ip`` must (429), check the password on the
    low-priority thread through the global gate, record the attempt; the account's
    ``{id, name, role, session_gen}``, or None for a wrong name or password."""
    now = time.time() if now is None else now
    wait = login_wait(db, ip, now, guard)
    if wait:
        guard.waits.note(ip, now + wait)
        raise UserError("auth.wait", status=429, code="login_rate_limited", seconds=wait,
                        details={"retry_after": wait})
    gate = guard.gate
    if not gate.enter():
        # The answer says "in a second": the address waits that second, so a flood that
        # keeps the checks busy is held back like any address that must wait.
        guard.waits.note(ip, now + BUSY_RETRY_S)
        raise UserError("auth.busy", status=429, code="login_busy",
                        details={"retry_after": BUSY_RETRY_S})
    try:
        row = one(db, "SELECT id, name, role, session_gen, password_hash FROM staff_users "
                      "WHERE name = ? AND active = 1", [key])
        # Hash even for an unknown name, so the answer time does not tell which names exist.
        stored = row["password_hash"] if row else _dummy_hash()
        ok = _password_matches(stored, (password or "")[:MAX_PASSWORD_LENGTH]) and bool(row)
    finally:
        gate.leave()
    with write_tx(db):
        db.execute("INSERT INTO login_attempts (ip, name, at, ok) VALUES (?, ?, ?, ?)",
                   [ip, key[:MAX_NAME_LENGTH], now, int(ok)])
        # Old attempts are only noise once they no longer count.
        db.execute("DELETE FROM login_attempts WHERE at < ?", [now - FAILURE_MEMORY_S])
        if ok and row:  # ok implies the row
            db.execute("UPDATE staff_users SET last_login_at = ? WHERE id = ?",
                       [now_iso(), row["id"]])
    if not ok:
        later = login_wait(db, ip, now, guard)
        if later:
            guard.waits.note(ip, now + later)
        return None
    assert row is not None  # ok implies the row
    return {k: row[k] for k in ("id", "name", "role", "session_gen")}


