"""The club's tables and the rule sets they play: the shipped presets and the club's
own, written as TOML over a preset and checked by the engine before they are kept."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any, NotRequired, TypedDict, cast

from club import engine, money_settings, text
from club.audit import audit
from club.db import Db, now_iso, write_tx
from club.db import one as _one
from club.db import rows as _rows
from club.errors import Conflict, NotFound, UserError
from club.roster import MAX_NAME
from club.text import printable

MAX_RULES_TOML = 64 * 1024
MAX_RULE_LABEL = 64
"""Characters at most in a rule set's name or title."""
MAX_TOML_DEPTH = 8
MAX_RULES_TITLE = 120
"""A rule set's name or title, in characters (bilingual titles: ``日本語 / English``)."""
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


def table_name(db: Db, table_id: object) -> str:
    """A club table as people call it (its name, 卓2), for every sentence a person reads;
    its id only for a table the club does not have."""
    row = _one(db, "SELECT name FROM club_tables WHERE id = ?", [str(table_id)])
    return row["name"] if row and row["name"] else str(table_id)


class TableRow(TypedDict):
    """A ``club_tables`` row (:func:`get_table`); ``live_game`` is the id of the table's
    live game in :func:`list_tables` (None when it has none)."""

    id: str
    name: str
    rule_set: str
    created_at: str
    live_game: NotRequired[int | None]


def _check_id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not ID_RE.match(value):
        raise UserError("records.bad_id", code="invalid_field", details={"field": field},
                        field=field)
    return value


# --------------------------------------------------------------------------- rule sets
def list_rule_sets(db: Db) -> list[dict]:
    """The shipped presets, then the club's own rule sets."""
    out = [{"id": p, "title": engine.preset(p).title or p, "preset": True}
           for p in engine.PRESET_IDS]
    for row in _rows(db, "SELECT id, title, updated_at FROM rule_sets ORDER BY id"):
        out.append({"id": row["id"], "title": row["title"] or row["id"], "preset": False,
                    "updated_at": row["updated_at"]})
    return out


def get_rule_set(db: Db, rule_set_id: str) -> dict:
    """A rule set with its TOML (club) and its resolved switches."""
    if rule_set_id in engine.PRESET_IDS:
        return {"id": rule_set_id, "preset": True, "toml": None,
                "rules": engine.preset(rule_set_id).to_dict()}
    row = _one(db, "SELECT * FROM rule_sets WHERE id = ?", [rule_set_id])
    if row is None:
        raise NotFound("records.no_rule_set", rule_set=rule_set_id,
                       presets=", ".join(engine.PRESET_IDS))
    return {**row, "preset": False, "rules": _rules_from_toml(row["toml"], rule_set_id).to_dict()}


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _rules_from_toml(toml_text: str, rule_set_id: str, upload: bool = False) -> engine.Rules:
    if len(toml_text) > MAX_RULES_TOML:
        raise UserError("rules.too_long", code="invalid_rules", most=MAX_RULES_TOML // 1024)
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as e:
        raise UserError("rules.not_toml", code="invalid_rules", reason=str(e)) from None
    except RecursionError:
        raise UserError("rules.too_deep", code="invalid_rules", most=MAX_TOML_DEPTH) from None
    if _depth(data) > MAX_TOML_DEPTH:
        raise UserError("rules.too_deep", code="invalid_rules", most=MAX_TOML_DEPTH)
    if "extends" not in data:
        raise UserError("rules.needs_extends", code="invalid_rules",
                        presets=", ".join(engine.PRESET_IDS))
    for key in ("name", "title"):
        if upload and key in data:    # printed on every sheet: checked as a player's name
            data[key] = text.clean(data[key], key, MAX_RULES_TITLE)
    data.setdefault("name", rule_set_id)
    for label in ("name", "title"):  # shown on pages and receipts: cleaned like names
        if isinstance(data.get(label), str) and data[label]:
            # one kept before names were checked is read repaired, not refused
            kept = data[label] if upload else _without_controls(data[label])
            data[label] = text.clean(kept, label, MAX_RULE_LABEL)
    return engine.rules_from_data(data)


def _without_controls(value: object) -> object:
    """A stored name or title with control and invisible characters dropped (the repair
    of rule sets kept before names were checked)."""

    return " ".join(printable(value).split()) if isinstance(value, str) else value


def repair_stored_names(db: Db) -> int:
    """Drop control and invisible characters from the names and titles of the club's
    rule sets (their TOML and title) and of the games' rules; the rows changed."""
    changed = 0
    for row in _rows(db, "SELECT id, title, toml FROM rule_sets"):
        try:
            data = tomllib.loads(row["toml"])
        except (tomllib.TOMLDecodeError, RecursionError):
            continue
        fixes = {k: _without_controls(data[k]) for k in ("name", "title")
                 if isinstance(data.get(k), str) and _without_controls(data[k]) != data[k]}
        title = _without_controls(row["title"])
        if not fixes and title == row["title"]:
            continue
        head, sep, tail = row["toml"].partition("\n[")     # top-level keys come first
        for key, value in fixes.items():
            line = f"{key} = {json.dumps(value, ensure_ascii=False)}"
            head = re.sub(rf"^{key}\s*=.*$", line.replace("\\", "\\\\"), head,
                          flags=re.MULTILINE)
        db.execute("UPDATE rule_sets SET title = ?, toml = ? WHERE id = ?",
                   [title, head + sep + tail, row["id"]])
        changed += 1
    for row in _rows(db, "SELECT id, rules FROM games"):
        try:
            rules = json.loads(row["rules"] or "{}")
        except ValueError:
            continue
        if not isinstance(rules, dict):
            continue
        fixed = {k: _without_controls(v) if k in ("name", "title") else v
                 for k, v in rules.items()}
        if fixed != rules:
            db.execute("UPDATE games SET rules = ? WHERE id = ?",
                       [json.dumps(fixed, ensure_ascii=False), row["id"]])
            changed += 1
    return changed


def save_rule_set(db: Db, rule_set_id: str, toml_text: str, *, actor: str) -> dict:
    """Create or replace a club rule set from TOML text (validated by the engine)."""
    _check_id(rule_set_id, "id")
    if rule_set_id in engine.PRESET_IDS:
        raise Conflict("records.preset_id", rule_set=rule_set_id)
    rules = _rules_from_toml(toml_text, rule_set_id, upload=True)
    at = now_iso()
    with write_tx(db):
        old = _one(db, "SELECT toml FROM rule_sets WHERE id = ?", [rule_set_id])
        db.execute(
            "INSERT INTO rule_sets (id, title, toml, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET title = excluded.title, toml = excluded.toml, "
            "updated_at = excluded.updated_at",
            [rule_set_id, rules.title, toml_text, at, at],
        )
        audit(db, actor, "rule_set.update" if old else "rule_set.create", f"rule_set:{rule_set_id}",
              details={"old_toml": old["toml"] if old else None, "toml": toml_text})
    return get_rule_set(db, rule_set_id)


def resolve_rules(db: Db, rule_set_id: str) -> engine.Rules:
    """The fully resolved rules of a preset or club rule set."""

    return money_settings.overlay(db, rule_set_id, written_rules(db, rule_set_id))


def written_rules(db: Db, rule_set_id: str) -> engine.Rules:
    """A rule set as its preset or TOML says, before the club's money is laid over it."""
    if rule_set_id in engine.PRESET_IDS:
        return engine.preset(rule_set_id)
    return _rules_from_toml(get_rule_set(db, rule_set_id)["toml"], rule_set_id)



# --------------------------------------------------------------------------- tables
def save_table(db: Db, table_id: str, name: str, rule_set: str, *,
               actor: str = "system") -> TableRow:
    """Create or update a club table (its id is the ``tablectl`` table id)."""
    _check_id(table_id, "id")
    name = text.clean(name, "name", MAX_NAME)
    resolve_rules(db, rule_set)
    with write_tx(db):
        old = _one(db, "SELECT * FROM club_tables WHERE id = ?", [table_id])
        db.execute(
            "INSERT INTO club_tables (id, name, rule_set, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET name = excluded.name, rule_set = excluded.rule_set",
            [table_id, name, rule_set, now_iso()],
        )
        audit(db, actor, "table.update" if old else "table.create", f"table:{table_id}",
              details={"name": name, "rule_set": rule_set,
                       "old": {"name": old["name"], "rule_set": old["rule_set"]} if old else None})
    return get_table(db, table_id)


def get_table(db: Db, table_id: str) -> TableRow:
    """One club table (NotFound names the known tables)."""
    row = _one(db, "SELECT * FROM club_tables WHERE id = ?", [table_id])
    if row is None:
        known = [r["id"] for r in _rows(db, "SELECT id FROM club_tables ORDER BY id")]
        raise NotFound("records.no_table", table=table_id, known=", ".join(known) or "-")
    return cast(TableRow, row)


def list_tables(db: Db) -> list[TableRow]:
    """Every club table with the id of its live game (or None)."""
    rows = _rows(
        db,
        "SELECT t.*, (SELECT g.id FROM games g WHERE g.table_id = t.id AND g.status = 'live') "
        "AS live_game FROM club_tables t ORDER BY t.id",
    )
    return [cast(TableRow, r) for r in rows]

