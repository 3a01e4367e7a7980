"""The club's own standings settings: its dan table (段位表) and its seasons and leagues.

Both are TOML documents a staff member uploads (``/staff/standings``), kept in
``standings_settings`` with who changed them and when; the previous text is
in the audit log. A document is checked completely before it is stored, and
a refusal names the key at fault (``riichi4.level[2].promote``,
``season[1].end``).

The dan table is one ladder per rule family, lowest level first (see
:func:`scoring.rating.dan_tables` and :data:`DAN_EXAMPLE`); a season is a named
period with its own standings and a minimum number of games
(:data:`SEASONS_EXAMPLE`).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from datetime import date
from typing import Any

import sqlite_utils

import lexicon
from club import engine
from club.audit import audit
from club.db import Db, Migrations, now_iso, write_tx
from club.db import one as _one
from club.errors import UserError
from club.i18n import asked_lang, t

NAMES = ("dan", "seasons")
MAX_TOML = 64 * 1024
FAMILY_PLAYERS = {"riichi4": 4, "riichi3": 3, "boo": 4, "mcr": 4}
"""Players at a table of each rule family (the length of a dan table's points)."""
SEASON_KEYS = {"id", "name", "start", "end", "min_games", "family"}
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")

DAN_EXAMPLE = '''# 段位表: a ladder per rule family (riichi4, riichi3, boo, mcr), lowest level first
[riichi4]
points = [20, 10, 0, -10]          # per placement, 1st first (a level may give its own)

[[riichi4.level]]
name = ["初段", "1 dan"]
promote = 100                      # points that take a player up

[[riichi4.level]]
name = ["二段", "2 dan"]
start = 50                         # points on arrival
demote = true                      # below 0 drops back to 初段
points = [20, 10, 0, -20]
'''
SEASONS_EXAMPLE = '''# シーズン・リーグ: a named period with its own standings
[[season]]
id = "2026-spring"
name = ["2026 春季リーグ", "2026 spring league"]
start = 2026-04-01
end = 2026-06-30
min_games = 20
# family = "riichi4"               # only one rule family
'''

MIGRATIONS = Migrations("standings")


@MIGRATIONS
def _create_standings(db: sqlite_utils.Database) -> None:
    db.execute(
        "CREATE TABLE standings_settings (name TEXT PRIMARY KEY CHECK (name IN ('dan', 'seasons')),"
        " toml TEXT NOT NULL, updated_at TEXT NOT NULL, updated_by TEXT NOT NULL DEFAULT '')"
    )


class KeyRefused(UserError):
    """A settings document refused at one key: ``{key}: {reason}`` in the caller's language,
    the reason worded from its own catalogue entry."""

    status = 422
    code = "invalid_settings"

    def __init__(self, key: str, reason_key: str, **values: Any) -> None:
        super().__init__("standings.err.at", details={"field": key}, where=key)
        self.reason_key, self.reason_values = reason_key, values

    @property
    def message(self) -> str:
        if asked_lang() is not None:
            return t("standings.err.at", where=self.values["where"],
                     reason=t(self.reason_key, **self.reason_values))
        return " / ".join(
            lexicon.t("standings.err.at", lang, where=self.values["where"],
                      reason=lexicon.t(self.reason_key, lang, **self.reason_values))
            for lang in lexicon.LANGS
        )


# --------------------------------------------------------------------------- reading TOML
def read_toml(text: str) -> dict:
    """A settings document as data, or a UserError saying why it cannot be read. (Nesting
    needs no bound of its own: every value is checked against the one shape it may have.)"""
    if len(text) > MAX_TOML:
        raise UserError("standings.err.too_long", code="invalid_settings", most=MAX_TOML // 1024)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError("standings.err.not_toml", code="invalid_settings", reason=str(e)) from None
    except RecursionError:
        raise UserError("standings.err.too_deep", code="invalid_settings") from None


@functools.lru_cache(maxsize=16)
def parse_dan(text: str) -> dict[str, engine.DanTable]:
    """Every family's dan table from the TOML text (KeyRefused names the key at fault)."""
    try:
        return engine.dan_tables(read_toml(text), FAMILY_PLAYERS)
    except engine.DanTableError as e:
        raise KeyRefused(e.key, f"standings.dan.{e.reason}", **e.values) from None


@dataclass(frozen=True)
class Season:
    """A named period with its own standings."""

    id: str
    ja: str
    en: str
    start: str
    end: str
    min_games: int
    family: str | None = None

    def name(self, lang: str = "ja") -> str:
        return self.en if lang == "en" else self.ja


def _season_day(value: Any, key: str) -> date:
    if isinstance(value, date) and not hasattr(value, "hour"):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise KeyRefused(key, "standings.season.day", value=str(value)[:30])


def _season(raw: Any, key: str) -> Season:
    if not isinstance(raw, dict):
        raise KeyRefused(key, "standings.season.not_table")
    unknown = sorted(set(raw) - SEASON_KEYS)
    if unknown:
        raise KeyRefused(f"{key}.{unknown[0]}", "standings.season.unknown_key",
                         allowed=", ".join(sorted(SEASON_KEYS)))
    for need in ("id", "name", "start", "end"):
        if need not in raw:
            raise KeyRefused(f"{key}.{need}", "standings.season.missing")
    sid = raw["id"]
    if not isinstance(sid, str) or not ID_RE.match(sid):
        raise KeyRefused(f"{key}.id", "standings.season.bad_id")
    try:
        ja, en = engine.name_pair(raw["name"], f"{key}.name")
    except engine.DanTableError:
        raise KeyRefused(f"{key}.name", "standings.dan.name_form") from None
    start, end = _season_day(raw["start"], f"{key}.start"), _season_day(raw["end"], f"{key}.end")
    if start > end:
        raise KeyRefused(f"{key}.end", "standings.season.reversed", start=start.isoformat(),
                         end=end.isoformat())
    min_games = raw.get("min_games", 1)
    whole = isinstance(min_games, int) and not isinstance(min_games, bool)
    if not whole or not 1 <= min_games <= 10_000:
        raise KeyRefused(f"{key}.min_games", "standings.season.min_games", value=str(min_games))
    family = raw.get("family")
    if family is not None and family not in engine.FAMILIES:
        raise KeyRefused(f"{key}.family", "standings.season.family",
                         options=", ".join(engine.FAMILIES))
    return Season(sid, ja, en, start.isoformat(), end.isoformat(), min_games, family)


@functools.lru_cache(maxsize=16)
def parse_seasons(text: str) -> tuple[Season, ...]:
    """The seasons of a TOML text, newest first (KeyRefused names the key at fault)."""
    data = read_toml(text)
    unknown = sorted(set(data) - {"season"})
    if unknown:
        raise KeyRefused(unknown[0], "standings.season.top_key")
    raw = data.get("season", [])
    if not isinstance(raw, list):
        raise KeyRefused("season", "standings.season.not_list")
    out = [_season(s, f"season[{i}]") for i, s in enumerate(raw)]
    ids = [s.id for s in out]
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup:
        raise KeyRefused(f"season[{ids.index(dup, ids.index(dup) + 1)}].id",
                         "standings.season.id_twice", id=dup)
    return tuple(sorted(out, key=lambda s: (s.start, s.id), reverse=True))


# --------------------------------------------------------------------------- stored settings
def text_of(db: Db, name: str) -> str | None:
    """The stored TOML of ``dan`` or ``seasons`` (None: never set)."""
    row = _one(db, "SELECT toml FROM standings_settings WHERE name = ?", [name])
    return row["toml"] if row else None


def dan_tables(db: Db) -> dict[str, engine.DanTable]:
    """The club's dan table per family ({} when it has none)."""
    text = text_of(db, "dan")
    return parse_dan(text) if text and text.strip() else {}


def seasons(db: Db) -> tuple[Season, ...]:
    """The club's seasons, newest first."""
    text = text_of(db, "seasons")
    return parse_seasons(text) if text and text.strip() else ()


def season(db: Db, season_id: str) -> Season:
    """One season by id, or a UserError listing the known ones."""
    for s in seasons(db):
        if s.id == season_id:
            return s
    known = ", ".join(s.id for s in seasons(db)) or "-"
    raise UserError("standings.err.no_season", status=404, code="not_found",
                    season=str(season_id)[:40], known=known)


def check(name: str, text: str) -> None:
    """Refuse a document that cannot be used, naming the key at fault."""
    if name not in NAMES:
        raise UserError("field.not_choice", code="invalid_field", details={"field": "name"},
                        field="name", options=", ".join(NAMES))
    if not text.strip():
        return  # an empty document removes the setting
    (parse_dan if name == "dan" else parse_seasons)(text)


def store(db: Db, name: str, text: str, *, actor: str) -> None:
    """Check and keep a document (call inside the caller's transaction when more must
    change with it, e.g. the ratings after a new dan table). Audited with the old text."""
    check(name, text)
    with write_tx(db):
        old = text_of(db, name)
        db.execute(
            "INSERT INTO standings_settings (name, toml, updated_at, updated_by) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET toml = excluded.toml, "
            "updated_at = excluded.updated_at, updated_by = excluded.updated_by",
            [name, text, now_iso(), actor],
        )
        audit(db, actor, f"standings.{name}", f"standings:{name}",
              details={"old_toml": old, "toml": text})
