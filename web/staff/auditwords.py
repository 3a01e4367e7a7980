"""The audit log in words: what each entry did, to what, and the before and after.

An entry stores codes and values (``hand.correct``, ``{"seq": 3, "old": ..., "new": ...,
"before": ..., "after": ...}``); here they become sentences in the page's language,
with players' names, event words (:mod:`.eventwords`) and times in the club's zone.
"""

from __future__ import annotations

import difflib
from typing import Any

import lexicon
from club import clubtime, stats_store
from club.club_tables import table_name
from club.db import Db
from club.db import rows as _rows
from club.floor import waiting
from club.text import whole_number
from tablectl import commands as table_commands
from tablectl import words as table_words
from web.i18n import current_lang, t
from web.staff import eventwords
from web.staff.common import signed
from web.staff.names import rule_set_name


def club_day(db: Db, day: str) -> tuple[str, str]:
    """The UTC instants a club day (its closing hour, its time zone) runs between."""
    return stats_store.day_bounds(day, stats_store.settings(db))


def who(actor: str) -> str:
    """``staff:mika`` -> ``mika``; ``tablet:t1`` -> ``タブレット t1``."""
    kind, _, name = str(actor).partition(":")
    if kind == "staff" and name:
        return name
    if kind == "tablet" and name:
        return t("staff.audit.tablet", name=name)
    if kind == "member" and name:
        return t("staff.audit.member", id=name)
    return t(f"staff.audit.actor.{actor}") if actor in ("demo", "system", "api", "tablet",
                                                         "anonymous") else str(actor)


def _names(db: Db, game_id: int, cache: dict) -> list[str]:
    if game_id not in cache:
        cache[game_id] = [r["name"] for r in _rows(
            db, "SELECT p.name FROM game_seats s JOIN players p ON p.id = s.player_id "
                "WHERE s.game_id = ? ORDER BY s.seat", [game_id])]
    return cache[game_id]


def _scores(stand: dict | None) -> str | None:
    """``中村 32,000 (+42.0) · 伊藤 …`` for a game's standing."""
    if not stand or not stand.get("scores"):
        return None
    parts = []
    for i, name in enumerate(stand["names"]):
        score = stand["scores"][i] if i < len(stand["scores"]) else None
        text = f"{name} {score:,}" if isinstance(score, int) else name
        result = (stand.get("result") or [None] * 4)[i] if stand.get("result") else None
        if isinstance(result, (int, float)):
            text += f" ({signed(result)})"
        parts.append(text)
    return " · ".join(parts)


def _game(e: dict, d: dict, names: list[str]) -> dict:
    action, seq = e["action"], d.get("seq")
    kind = {"game.replace": "hand.correct"}.get(action, action)
    if action == "game.void" and seq is not None:
        kind = "hand.remove"          # entries written before hands had their own names
    out: dict[str, Any] = {"summary": t(f"staff.audit.do.{kind}", seq=seq, game=e["game_id"]),
                           "before": [], "after": []}
    if kind in ("hand.correct", "hand.remove", "hand.restore"):
        old = eventwords.describe(d.get("old"), names) if d.get("old") else None
        new = eventwords.describe(d.get("new"), names) if d.get("new") else None
        out["before"] = [t("staff.audit.removed") if kind == "hand.restore" else old]
        out["after"] = [t("staff.audit.removed") if kind == "hand.remove"
                        else (new if kind == "hand.correct" else old)]
        out["before"].append(_scores(d.get("before")))
        out["after"].append(_scores(d.get("after") or ({"names": names, **d["final"]}
                                                        if d.get("final") else None)))
    elif kind in ("game.void", "game.unvoid"):
        out["before"] = [t(f"staff.status.{d.get('previous_status', 'live')}")]
        out["after"] = [t(f"staff.status.{d.get('status', 'void')}")]
    elif kind == "game.confirm":
        seat = d.get("seat")
        player = d.get("player") or (names[seat] if isinstance(seat, int)
                                     and seat < len(names) else seat)
        by = d.get("by") or "tablet"
        out["summary"] = t("staff.audit.do.game.confirm_by", player=player,
                           by=t(f"staff.audit.by.{by}") if by in ("self", "tablet") else who(by))
    elif kind == "game.seat_swap":
        out["before"] = [" / ".join(d.get("before_names") or []), _scores(d.get("before"))]
        out["after"] = [" / ".join(d.get("after_names") or []), _scores(d.get("after"))]
    elif kind == "clock.set":
        out["summary"] = t("staff.audit.do.clock.set", game=e["game_id"], limit=d.get("limit"),
                           extra=d.get("extra"))
    else:
        out["summary"] = t("staff.audit.do.other", action=action, target=e["target"])
    again = d.get("unconfirmed")
    if again and kind in ("hand.correct", "hand.remove", "hand.restore", "game.seat_swap"):
        shown = d.get("after_names") or names
        out["after"].append(t("staff.audit.confirm_again", names=t("floor.list_sep").join(
            shown[s] if isinstance(s, int) and s < len(shown) else str(s) for s in again)))
    out["before"] = [x for x in out["before"] if x]
    out["after"] = [x for x in out["after"] if x]
    return out


def _table(e: dict, d: dict, lang: str) -> dict:
    action = e["action"]
    command = action.split(".", 1)[1]
    spec = table_commands.COMMANDS.get(command)
    if spec is not None:
        args = d.get("args") or {}
        detail = ""
        if command == "mode" and "mode" in args:
            detail = table_words.mode(args["mode"], lang)
        elif command == "sim-sticks" and "points" in args:
            detail = spec.describe({"points": args["points"]}, lang)
        elif command == "dice" and "seat" in args:
            detail = table_words.seat(args["seat"], lang)
        return {"summary": t("staff.audit.do.table_command", table=e["target_id"],
                             command=spec.label(lang), detail=detail).strip(),
                "before": [], "after": []}
    old, new = d.get("old") or {}, d
    out = {"summary": t(f"staff.audit.do.{action}", table=e["target_id"]), "before": [],
           "after": []}
    if old:
        out["before"] = [t("staff.audit.table_is", name=old.get("name"),
                           rules=rule_set_name(old.get("rule_set")))]
    if "name" in new:
        out["after"] = [t("staff.audit.table_is", name=new.get("name"),
                          rules=rule_set_name(new.get("rule_set")))]
    return out


def _rule_set(e: dict, d: dict) -> dict:
    old = (d.get("old_toml") or "").splitlines()
    new = (d.get("toml") or "").splitlines()
    diff = [line for line in difflib.unified_diff(old, new, lineterm="", n=0)
            if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    return {"summary": t(f"staff.audit.do.{e['action']}", rules=e["target_id"]),
            "before": [line[1:] for line in diff if line.startswith("-")],
            "after": [line[1:] for line in diff if line.startswith("+")], "code": True}


def _seating(e: dict, d: dict) -> dict:
    """A seat draw: who sits where, and how the seats were drawn."""
    names = d.get("names") or []
    seats = " ".join(f"{t('floor.wind.' + 'ESWN'[i])} {n}" for i, n in enumerate(names))
    method = (d.get("draw") or {}).get("method")
    return {"summary": t(f"staff.audit.do.{e['action']}", table=e["target_id"],
                         rules=rule_set_name(d.get("rule_set")) if d.get("rule_set") else "",
                         method=t(f"floor.seat.draw.{method}") if method else ""),
            "before": [], "after": [seats] if seats else []}


def _wish(value: Any) -> Any:
    """A waiting player's wish in words: ``family:riichi4`` is 四人打ち, ``rules:<id>``
    the rule set's name; any other value as it is."""
    if isinstance(value, str):
        kind, sep, what = value.partition(":")
        if sep and kind == "family":
            return waiting.family_words(what, current_lang())
        if sep and kind == "rules":
            return rule_set_name(what)
    return value


def _generic(e: dict, d: dict) -> dict:
    key = f"staff.audit.do.{e['action']}"
    values: dict[str, Any] = {k: _wish(v) for k, v in d.items()
                              if isinstance(v, (str, int, float))}
    summary = t(key, target=e["target_id"], **values)
    if summary == key:
        summary = t("staff.audit.do.other", action=e["action"], target=e["target"])
    return {"summary": summary, "before": [], "after": []}


def describe(db: Db, e: dict, lang: str, cache: dict) -> dict:
    """One audit entry in words: ``summary``, and ``before``/``after`` lines."""
    d = e.get("details") or {}
    kind, _, target_id = str(e["target"]).partition(":")
    e = {**e, "target_id": table_name(db, target_id) if kind == "table" else target_id}
    if kind == "game" and whole_number(target_id) is not None:
        e["game_id"] = int(target_id)
        return _game(e, d, _names(db, int(target_id), cache))
    if e["action"].startswith("table."):
        return _table(e, d, lang)
    if e["action"].startswith("rule_set."):
        return _rule_set(e, d)
    if e["action"].startswith("seating."):
        return _seating(e, d)
    return _generic(e, d)


def _action(action: str) -> str:
    key = f"staff.audit.action.{action}"
    if lexicon.has(key):
        return t(key)
    if action.startswith("table.") and action[6:] in table_commands.COMMANDS:
        return table_commands.COMMANDS[action[6:]].label(current_lang())
    return action


def entries(db: Db, rows: list[dict], tz: str) -> list[dict]:
    """Audit rows as the page shows them (newest first, as given)."""
    lang = current_lang()
    cache: dict[Any, Any] = {}
    out = []
    for e in rows:
        words = describe(db, e, lang, cache)
        kind, _, target_id = str(e["target"]).partition(":")
        out.append({**e, **words, "when": clubtime.clock(e["at"], tz, day=True),
                    "who": who(e["actor"]), "target_kind": kind, "target_id": target_id,
                    "action_words": _action(e["action"])})
    return out
