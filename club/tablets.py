"""Tablets paired to tables: one-time pairing codes, long-lived secrets, revoking.

Staff issue a pairing code for one table (:func:`create_pairing`); the QR code shows
``/auth/pair?code=...``. Opening it and confirming exchanges the one-time code for a
long-lived secret (:func:`redeem_pairing`). Only SHA-256 hashes of codes and secrets are
stored. Scripts can get a secret directly with :func:`issue_tablet_token`. How a request
presents its secret (cookie, bearer) is the web's :mod:`web.security`.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from club.db import Db, Migrations, now_iso, one, write_tx
from club.errors import UserError

PAIRING_TTL_SECONDS = 24 * 3600


class AccessRefused(UserError):
    """A request is not allowed: ``AccessRefused(status, code, **values)``, worded from the
    catalogue entry ``access.<code>``."""

    def __init__(self, status: int, code: str, **values: Any) -> None:
        super().__init__(f"access.{code}", status=status, code=code, **values)



MIGRATIONS = Migrations("tablets")


@MIGRATIONS(legacy=("migrations", "number", 202))
def _create_tablet_tokens(db: Db) -> None:
    db.execute(
        """CREATE TABLE tablet_tokens (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL,
            label TEXT NOT NULL DEFAULT '',
            pair_code_hash TEXT UNIQUE,
            pair_expires_at REAL,
            token_hash TEXT UNIQUE,
            created_at TEXT NOT NULL,
            created_by TEXT NOT NULL,
            paired_at TEXT,
            revoked_at TEXT,
            revoked_by TEXT,
            last_seen_at TEXT
        )"""
    )
    db.execute("CREATE INDEX tablet_tokens_table ON tablet_tokens(table_id)")


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------- tablet tokens
def create_pairing(db: Db, table_id: str, *, actor: str, label: str = "",
                   ttl: float = PAIRING_TTL_SECONDS, now: float | None = None) -> dict:
    """Issue a one-time pairing code for ``table_id``; returns ``{id, code, table_id}``.

    The code is shown once (QR); only its hash is stored.
    """
    table_id = str(table_id).strip()
    if not table_id:
        raise ValueError("choose the table this tablet will sit at")
    code = secrets.token_urlsafe(18)
    now = time.time() if now is None else now
    with write_tx(db):
        cur = db.execute(
            "INSERT INTO tablet_tokens (table_id, label, pair_code_hash, pair_expires_at,"
            " created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)",
            [table_id, label.strip(), _hash(code), now + ttl, now_iso(), actor],
        )
    return {"id": cur.lastrowid, "code": code, "table_id": table_id}


def pairing_info(db: Db, code: str, now: float | None = None) -> dict:
    """The pairing row for ``code`` if it can still be used; else raise :class:`AccessRefused`."""
    row = _one(db, "SELECT * FROM tablet_tokens WHERE pair_code_hash = ?", _hash(code or ""))
    now = time.time() if now is None else now
    if row is None:
        raise AccessRefused(404, "pairing_unknown")
    if row["revoked_at"]:
        raise AccessRefused(410, "pairing_revoked")
    if row["token_hash"]:
        raise AccessRefused(409, "pairing_used")
    if row["pair_expires_at"] is not None and row["pair_expires_at"] < now:
        raise AccessRefused(410, "pairing_expired")
    return row


def redeem_pairing(db: Db, code: str, now: float | None = None) -> tuple[str, dict]:
    """Exchange a pairing code for a long-lived tablet secret: ``(secret, row)``.

    Done in one write transaction with a guarded UPDATE, so two devices
    scanning the same code at once get one secret and one clear refusal.
    """
    secret = secrets.token_urlsafe(32)
    with write_tx(db):
        row = pairing_info(db, code, now)
        cur = db.execute(
            "UPDATE tablet_tokens SET token_hash = ?, paired_at = ?, last_seen_at = ?"
            " WHERE id = ? AND token_hash IS NULL AND revoked_at IS NULL",
            [_hash(secret), now_iso(), now_iso(), row["id"]],
        )
        if cur.rowcount != 1:  # pragma: no cover - the IMMEDIATE lock makes this unreachable
            raise AccessRefused(409, "pairing_used")
    return secret, row


def issue_tablet_token(db: Db, table_id: str, *, actor: str = "system", label: str = "") -> str:
    """Create an already-paired tablet token for ``table_id`` and return its secret.

    For scripts, tests and benchmarks that send ``Authorization: Bearer``.
    """
    pairing = create_pairing(db, table_id, actor=actor, label=label)
    secret, _row = redeem_pairing(db, pairing["code"])
    return secret


def revoke_tablet(db: Db, token_id: int, *, actor: str) -> dict:
    """Revoke a tablet (or an unused pairing code); returns the row as it was."""
    with write_tx(db):
        row = _one(db, "SELECT * FROM tablet_tokens WHERE id = ?", token_id)
        if row is None:
            raise AccessRefused(404, "no_tablet", tablet=token_id)
        if row["revoked_at"]:
            raise AccessRefused(409, "tablet_already_revoked", tablet=token_id,
                                at=row["revoked_at"][:16])
        db.execute("UPDATE tablet_tokens SET revoked_at = ?, revoked_by = ? WHERE id = ?",
                   [now_iso(), actor, token_id])
    return row


def list_tablets(db: Db) -> list[dict]:
    """Every tablet and pairing code, newest first, without secrets."""
    rows = db.execute_returning_dicts(
        "SELECT id, table_id, label, pair_expires_at, created_at, created_by, paired_at,"
        " revoked_at, revoked_by, last_seen_at FROM tablet_tokens ORDER BY id DESC"
    )
    for row in rows:
        row["status"] = ("revoked" if row["revoked_at"] else
                         "paired" if row["paired_at"] else "waiting")
    return rows


def tablet_for_secret(db: Db, secret: str) -> dict | None:
    """The tablet row whose secret this is (revoked ones included), or None."""
    if not secret:
        return None
    return _one(db, "SELECT * FROM tablet_tokens WHERE token_hash = ?", _hash(secret))


def _one(db: Db, sql: str, *args: Any) -> dict | None:
    return one(db, sql, args)
