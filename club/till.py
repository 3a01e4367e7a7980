"""The till (レジ): per player and club day, what they owe the club or are owed (their
account's net, :func:`club.daily_report.accounts`), checked off when it is paid, by
cash, card or chips cashed out; and the drawer at closing beside the 日報.

A check-off is kept as it was written: a second one for the same player and day is refused,
and changing it takes a correction with a reason, audited (the check-off is marked void,
never deleted, and may then be checked off again).
"""

from __future__ import annotations

from club import daily_report
from club.audit import audit
from club.db import Db, Migrations, now_iso, one, rows, write_tx
from club.errors import Conflict, NotFound, UserError
from club.i18n import t

MIGRATIONS = Migrations("till")

METHODS = ("cash", "card", "chips")
"""How a player's account was settled: cash over the counter, a card, or chips cashed out
(paid from the chips a player holds: it never passes the drawer)."""


@MIGRATIONS
def _create_till(db: Db) -> None:
    db.executescript(
        """
        CREATE TABLE till_payments (
            id INTEGER PRIMARY KEY,
            club_day TEXT NOT NULL,
            player_id INTEGER NOT NULL REFERENCES players(id),
            -- the account's net when it was checked off: + the club paid the player,
            -- - the player paid the club (yen)
            amount INTEGER NOT NULL,
            method TEXT NOT NULL CHECK (method IN ('cash', 'card', 'chips')),
            at TEXT NOT NULL,
            by TEXT NOT NULL,
            voided_at TEXT,
            voided_by TEXT,
            void_reason TEXT
        );
        CREATE UNIQUE INDEX till_one_live ON till_payments (club_day, player_id)
            WHERE voided_at IS NULL;
        """
    )


def _live(db: Db, day: str, player_id: int) -> dict | None:
    return one(db, "SELECT * FROM till_payments WHERE club_day = ? AND player_id = ? "
                   "AND voided_at IS NULL", [day, player_id])


def sheet(db: Db, day: str) -> list[dict]:
    """Every player of the day with their account's ``net`` and their check-off
    (``paid``: method, amount, when, by; None while open); ``changed`` when the account
    moved after it was checked off (a correction of a game)."""
    paid = {r["player_id"]: r for r in rows(
        db, "SELECT * FROM till_payments WHERE club_day = ? AND voided_at IS NULL", [day])}
    out = []
    for a in daily_report.accounts(db, day):
        p = paid.get(a["player_id"])
        out.append({**a, "paid": p, "changed": bool(p and p["amount"] != a["net"])})
    return out


def check_off(db: Db, day: str, player_id: int, method: str, *, actor: str) -> dict:
    """Record that a player's account for ``day`` is settled by ``method``; refused if it
    already is (a correction first) or if the player has no account that day."""
    if method not in METHODS:
        raise UserError("till.err.method", code="invalid_field", details={"field": "method"},
                        methods="、".join(t(f"till.method.{m}") for m in METHODS))
    account = next((a for a in daily_report.accounts(db, day, [player_id])), None)
    if account is None:
        raise NotFound("till.err.no_account", day=day)
    with write_tx(db):
        if _live(db, day, player_id) is not None:
            raise Conflict("till.err.already", code="already_checked_off", name=account["name"])
        db.execute("INSERT INTO till_payments (club_day, player_id, amount, method, at, by) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   [day, player_id, account["net"], method, now_iso(), actor])
        audit(db, actor, "till.check_off", f"player:{player_id}",
              details={"day": day, "amount": account["net"], "method": method})
    row = _live(db, day, player_id)
    assert row is not None
    return row


def correct(db: Db, day: str, player_id: int, *, reason: str, actor: str) -> dict:
    """Undo a check-off (it stays, marked void, with the reason) so it can be checked off
    again; audited with what it was."""
    reason = (reason or "").strip()
    if len(reason) < 3:
        raise UserError("records.reason_required", code="missing_reason")
    with write_tx(db):
        row = _live(db, day, player_id)
        if row is None:
            raise NotFound("till.err.not_checked", day=day)
        db.execute("UPDATE till_payments SET voided_at = ?, voided_by = ?, void_reason = ? "
                   "WHERE id = ?", [now_iso(), actor, reason, row["id"]])
        audit(db, actor, "till.correct", f"player:{player_id}", reason,
              details={"day": day, "was": {k: row[k] for k in ("amount", "method", "at", "by")}})
    return row


def close(db: Db, day: str) -> dict:
    """The till at closing: what came in and went out by each method (seen from the club:
    + received), the drawer (cash), the players still open, and the 日報's cash line
    (what the drawer should hold: the club's takings less card and chips)."""
    lines = sheet(db, day)
    by = {m: 0 for m in METHODS}
    for line in lines:
        if line["paid"]:
            by[line["paid"]["method"]] -= line["paid"]["amount"]
    rep = daily_report.report(db, day)
    kept = rep["summary"]["kept"]
    return {"day": day, **by, "drawer": by["cash"], "open": sum(1 for x in lines if not x["paid"]),
            "changed": sum(1 for x in lines if x["changed"]), "kept": kept,
            "cash_line": kept - by["card"] - by["chips"],
            "balanced": by["cash"] == kept - by["card"] - by["chips"]}
