"""The club's money, set on the console: per rule set, the game fee (per game or per
hour), the top prize and the chip cash-out, stored as club data over the rule set's
``[money]`` (the rule set's TOML stays as written; rules are data either way); and the
club's own money facts: the amusement-business fee caps and the invoice registration
number.

* :func:`overlay`: a rule set's resolved rules with the club's money over its ``[money]``
  (what a game stores when it starts, so a game keeps the money it was played under);
* :func:`save`: a manager's form, checked by the engine's own ``[money]`` checks, audited;
* :func:`preview`: what the money does to a sample game, seat by seat;
* :func:`cap_warnings`: a fee over the caps (¥600 per person per hour or ¥2,400 per table
  per hour before tax, by default), in words, for the form and the 日報.
"""

from __future__ import annotations

import re

from club import engine
from club.audit import audit
from club.db import Db, Migrations, now_iso, one, rows, write_tx
from club.errors import UserError
from club.i18n import t
from club.text import whole_number

MIGRATIONS = Migrations("money_settings")

FIELDS = ("fee_mode", "fee", "fee_unit_minutes", "fee_payer", "top_prize", "top_prize_from",
          "chip_yen")
"""The ``[money]`` switches a manager sets on the form (scoring/rules.py MoneyRules)."""
NUMBERS = ("fee", "fee_unit_minutes", "top_prize", "chip_yen")

DEFAULT_CLUB = {"fee_cap_person_hour": "600", "fee_cap_table_hour": "2400",
                "invoice_registration": "", "club_name": ""}
"""The club's money facts: the amusement-business caps on a game fee for automatic tables
(風営法 施行規則: ¥600 per person per hour, ¥2,400 per table per hour, before tax) and the
qualified-invoice registration number (T and 13 digits; empty: receipts are plain)."""
REGISTRATION_RE = re.compile(r"T\d{13}")
SAMPLE_MINUTES = 60
"""The sample game's length when none is given (a hanchan on an automatic table)."""


@MIGRATIONS
def _create_money_settings(db: Db) -> None:
    db.executescript(
        """
        CREATE TABLE club_money (
            rule_set TEXT PRIMARY KEY,
            -- the [money] switches over the rule set's, as JSON of FIELDS
            money TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            updated_by TEXT NOT NULL
        );
        CREATE TABLE club_money_facts (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """
    )


def club_money(db: Db, rule_set: str) -> dict | None:
    """The club's money switches for ``rule_set`` (None: the rule set's own ``[money]``)."""
    import json

    row = one(db, "SELECT money FROM club_money WHERE rule_set = ?", [rule_set])
    return json.loads(row["money"]) if row else None


def overlay(db: Db, rule_set: str, rules: engine.Rules) -> engine.Rules:
    """``rules`` with the club's money for ``rule_set`` over their ``[money]``."""
    money = club_money(db, rule_set)
    if not money:
        return rules
    data = rules.to_dict()
    data["money"] = {**(data.get("money") or {}), **money}
    return engine.rules(data)


def money_of(rules: engine.Rules) -> dict:
    """The ``[money]`` switches of resolved rules, as the form shows them."""
    money = rules.to_dict().get("money") or {}
    return {k: money.get(k) for k in FIELDS}


def _parse(form: dict, current: dict) -> dict:
    """The form's values over ``current``: numbers as whole yen/minutes, choices as typed;
    a number that is not one is refused naming its field."""
    out = dict(current)
    for key in FIELDS:
        raw = form.get(key)
        if raw is None:
            continue
        raw = str(raw).strip()
        if key in NUMBERS:
            value = whole_number(raw) if raw else 0
            if value is None:
                raise UserError("money.err.number", code="invalid_field",
                                details={"field": key}, field=t(f"money.field.{key}"),
                                value=raw[:20])
            out[key] = value
        else:
            out[key] = raw
    if out.get("fee_mode") == "none":
        out["fee"] = 0
    return out


def check(current: engine.Rules, form: dict) -> tuple[dict, engine.Rules]:
    """The money the form asks for and the rules it makes; refused in words (the engine's
    own ``[money]`` checks: a fee without a mode, a per-hour fee that does not divide ...)."""
    money = _parse(form, money_of(current))
    data = current.to_dict()
    data["money"] = {**(data.get("money") or {}), **money}
    return money, engine.rules_from_data(data)


def save(db: Db, rule_set: str, form: dict, *, actor: str, base: engine.Rules) -> dict:
    """Set the club's money for ``rule_set`` (``base``: the rule set as its TOML resolves
    it); audited with the money before and after. Games already started keep theirs."""
    import json

    before = money_of(overlay(db, rule_set, base))
    money, _ = check(overlay(db, rule_set, base), form)
    with write_tx(db):
        db.execute(
            "INSERT INTO club_money (rule_set, money, updated_at, updated_by) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(rule_set) DO UPDATE SET money = excluded.money, "
            "updated_at = excluded.updated_at, updated_by = excluded.updated_by",
            [rule_set, json.dumps(money, ensure_ascii=False), now_iso(), actor])
        audit(db, actor, "money.update", f"rule_set:{rule_set}",
              details={"before": before, "after": money})
    return money


def all_set(db: Db) -> dict[str, dict]:
    """Every rule set's club money: ``{rule_set: money}``."""
    import json

    return {r["rule_set"]: json.loads(r["money"]) for r in rows(db, "SELECT * FROM club_money")}


# --------------------------------------------------------------------------- the club's facts
def facts(db: Db) -> dict:
    """The club's money facts (:data:`DEFAULT_CLUB` where unset)."""
    out = dict(DEFAULT_CLUB)
    out.update({r["key"]: r["value"] for r in rows(db, "SELECT key, value FROM club_money_facts")})
    return out


def caps(db: Db) -> tuple[int, int]:
    """The fee caps: yen per person per hour, yen per table per hour (before tax)."""
    f = facts(db)
    return int(f["fee_cap_person_hour"]), int(f["fee_cap_table_hour"])


def save_facts(db: Db, form: dict, *, actor: str) -> dict:
    """Set the caps, the registration number and the club's name for receipts; each
    checked (a registration number is T and 13 digits), audited."""
    before = facts(db)
    new = dict(before)
    for key in ("fee_cap_person_hour", "fee_cap_table_hour"):
        if key in form:
            value = whole_number(str(form[key]).strip())
            if value is None or value == 0:
                raise UserError("money.err.cap", code="invalid_field", details={"field": key},
                                field=t(f"money.field.{key}"))
            new[key] = str(value)
    if "invoice_registration" in form:
        reg = str(form["invoice_registration"]).strip().upper()
        if reg and not REGISTRATION_RE.fullmatch(reg):
            raise UserError("money.err.registration", code="invalid_field",
                            details={"field": "invoice_registration"}, value=reg[:20])
        new["invoice_registration"] = reg
    if "club_name" in form:
        new["club_name"] = str(form["club_name"]).strip()[:60]
    with write_tx(db):
        for key, value in new.items():
            db.execute("INSERT INTO club_money_facts (key, value) VALUES (?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value])
        audit(db, actor, "money.facts", "club:money", details={"before": before, "after": new})
    return new


# --------------------------------------------------------------------------- preview and caps
def preview(rules: engine.Rules, minutes: int = SAMPLE_MINUTES) -> dict:
    """The money of a sample game under ``rules``: the first seat top, chips +2 / 0 / -1 /
    -1 (as many seats as the rules have), ``minutes`` long; each seat's fee (negative:
    paid), prize, chips in yen and net, and the club's takings."""
    n = rules.table.players
    ranks = list(range(1, n + 1))
    chips = ([2, 0, -1, -1] if n == 4 else [1, 0, -1])[:n]
    m = engine.game_money(rules.to_dict().get("money"), ranks, chips, minutes)
    seats = [{"rank": ranks[i], "fee": -s.fee, "prize": s.prize, "chips": s.chips,
              "chip_yen": s.chip_yen, "net": s.net} for i, s in enumerate(m.seats)]
    return {"minutes": minutes, "charged": m.minutes, "seats": seats, "fees": m.fees,
            "house_prize": m.house_prize}


def fee_per_hour(money: dict, players: int, minutes: float) -> tuple[float, float]:
    """A game's fee per person per hour and per table per hour, for a game of ``minutes``."""
    each, _ = engine.fee_per_player(engine.money_rules(money), minutes)
    hours = max(minutes, 1) / 60
    return each / hours, each * players / hours


def cap_warnings(db: Db, money: dict, players: int, minutes: float) -> list[str]:
    """The fee over the amusement-business caps, in words (empty when within them)."""
    person_cap, table_cap = caps(db)
    person, table = fee_per_hour(money, players, minutes)
    out = []
    if person > person_cap:
        out.append(t("money.over_person_cap", fee=f"{round(person):,}", cap=f"{person_cap:,}"))
    if table > table_cap:
        out.append(t("money.over_table_cap", fee=f"{round(table):,}", cap=f"{table_cap:,}"))
    return out
