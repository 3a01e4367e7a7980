"""What the head office takes: the box's own limits on every synced text, checked on the
box before a batch is sent and again by PostgreSQL's CHECK constraints, and the text
cleaned of control characters (NUL, ESC, ...) on the way.

* **Cleaned, not refused**: a short label (a rule set's name and title inside a game's
  rules, a rule-set id, a table's or a player's name) loses its control characters. A NUL
  cannot be stored by PostgreSQL at all (``text`` and ``jsonb`` both refuse it), and an
  ESC or a carriage return would reach a page or a printer as it is.
* **Refused in words**: a text longer than its limit. The batch is not sent (nothing of it
  reaches the head office, the mark stays), and the sync says which row and which limit,
  so a person fixes the record on the box; every batch before it is kept.
"""

from __future__ import annotations

import json
import re
from typing import Any

from chain.refusals import SyncError

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

GAME_ROWS = {"games": 0, "game_seats": 0, "hand_events": 1, "game_lines": 0}
"""Tables whose rows belong to a game, and where the game's id is in their row."""


LIMITS: dict[tuple[str, str], int] = {
    ("players", "name"): 40,
    ("players", "member_no"): 40,
    ("club_tables", "id"): 64,
    ("club_tables", "name"): 40,
    ("club_tables", "rule_set"): 64,
    ("games", "table_id"): 64,
    ("games", "rule_set"): 64,
    ("games", "rules"): 64 * 1024,
    ("games", "started_by"): 100,
    ("hand_events", "event"): 64 * 1024,
    ("hand_events", "actor"): 100,
    ("hand_events", "reason"): 500,
    ("audit_log", "actor"): 100,
    ("audit_log", "action"): 100,
    ("audit_log", "target"): 200,
    ("audit_log", "reason"): 500,
    ("audit_log", "details"): 256 * 1024,
    ("settings", "key"): 100,
    ("settings", "value"): 1000,
    ("member_links", "actor"): 100,
}
"""Characters at most per synced column (JSON columns: characters of their text)."""

CLEANED: dict[str, tuple[str, ...]] = {
    "players": ("name", "member_no"),
    "club_tables": ("id", "name", "rule_set"),
    "games": ("table_id", "rule_set"),
}
"""Short labels shown on pages and receipts: their control characters are removed."""


def game_of(table: str, row: tuple) -> int | None:
    """The game a row of ``table`` belongs to (None for a row of no game)."""
    i = GAME_ROWS.get(table)
    return None if i is None else row[i]


def clean_label(value: Any) -> Any:
    """``value`` without control or bidirectional-override characters (None stays None)."""
    return _CONTROL.sub("", value) if isinstance(value, str) else value


def clean_rules(rules: Any) -> Any:
    """A game's rules (the box's JSON text) with its name and title cleaned, and no NUL
    anywhere (PostgreSQL's ``jsonb`` cannot hold one)."""
    if not isinstance(rules, str):
        return rules
    try:
        data = json.loads(rules)
    except ValueError:
        return rules.replace("\x00", "")
    if isinstance(data, dict):
        for k in ("name", "title"):
            if isinstance(data.get(k), str):
                data[k] = clean_label(data[k])
    return json.dumps(_no_nul(data), ensure_ascii=False)


def _no_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_no_nul(k): _no_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_nul(v) for v in value]
    return value


def check_batch(rows: dict[str, list[tuple]], columns: dict[str, tuple[str, ...]]) -> None:
    """Clean the batch's labels in place and refuse it (:class:`SyncError`) at the first
    text over its limit, naming the table, the row's key and the limit."""
    for name, row, _, col, size, most in over_limits(rows, columns):
        raise SyncError("sync.err.too_long", table=name, row=row, column=col,
                        size=f"{size:,}", most=f"{most:,}")


def over_limits(rows: dict[str, list[tuple]], columns: dict[str, tuple[str, ...]]
                ) -> list[tuple[str, Any, int | None, str, int, int]]:
    """Clean the batch's labels in place; every text over its limit as ``(table, row's
    key, its game's id or None, column, size, limit)``."""

    found = []
    for name, got in rows.items():
        cols = columns[name]
        cleaned = [cols.index(c) for c in CLEANED.get(name, ())]
        rules_at = cols.index("rules") if name == "games" else None
        limits = [(cols.index(c), most, c) for (t, c), most in LIMITS.items() if t == name]
        if not (cleaned or rules_at is not None or limits):
            continue
        out = []
        for r in got:
            row = list(r)
            for i in cleaned:
                row[i] = clean_label(row[i])
            if rules_at is not None:
                row[rules_at] = clean_rules(row[rules_at])
            for i, most, col in limits:
                v = row[i]
                if isinstance(v, str) and len(v) > most:
                    found.append((name, row[0], game_of(name, r), col, len(v), most))
            out.append(tuple(row))
        rows[name] = out
    return found


def _constraints() -> str:
    out = []
    for (t, c), most in LIMITS.items():
        expr = f"length({c}::text)" if (t, c) in _JSON else f"length({c})"
        out.append(f"ALTER TABLE chain.{t} ADD CONSTRAINT {t}_{c}_size "
                   f"CHECK ({expr} <= {most}) NOT VALID;")
    return "\n".join(out)


_JSON = {("games", "rules"), ("hand_events", "event"), ("audit_log", "details")}

MIGRATIONS: list[tuple[int, str, str]] = [
    (21, "bounds", f"""
UPDATE chain.players SET name = regexp_replace(name, '[[:cntrl:]]', '', 'g')
    WHERE name ~ '[[:cntrl:]]';
UPDATE chain.club_tables SET name = regexp_replace(name, '[[:cntrl:]]', '', 'g'),
    rule_set = regexp_replace(rule_set, '[[:cntrl:]]', '', 'g')
    WHERE name ~ '[[:cntrl:]]' OR rule_set ~ '[[:cntrl:]]';
UPDATE chain.games SET rule_set = regexp_replace(rule_set, '[[:cntrl:]]', '', 'g')
    WHERE rule_set ~ '[[:cntrl:]]';
UPDATE chain.games SET rules = jsonb_set(rules, '{{title}}',
    to_jsonb(regexp_replace(rules->>'title', '[[:cntrl:]]', '', 'g')))
    WHERE rules->>'title' ~ '[[:cntrl:]]';
UPDATE chain.games SET rules = jsonb_set(rules, '{{name}}',
    to_jsonb(regexp_replace(rules->>'name', '[[:cntrl:]]', '', 'g')))
    WHERE rules->>'name' ~ '[[:cntrl:]]';
ALTER TABLE chain.branches ADD CONSTRAINT branches_name_size CHECK (length(name) <= 100)
    NOT VALID;
{_constraints()}
"""),
]
"""The head office's CHECK constraints for the limits above (``NOT VALID``: every new or
changed row is checked; rows already stored are repaired, not refused, so the step never
stops a head office from starting)."""
