"""Words for what tablectl stores as codes and values: seats, modes, error codes, the
reasons a table is not connected, table events, times. Every text comes from the
catalogue (``table.*`` in ``lexicon/catalogue/table.toml``) in the reader's language;
``lang="both"`` gives ``日本語 / English`` for terminals and logs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable
from zoneinfo import ZoneInfo

import lexicon

from .modes import MODES

BOTH = "both"
LANG_CHOICES = ("ja", "en", BOTH)


def say(key: str, lang: str, **values: object) -> str:
    """``lexicon.t`` with ``lang="both"`` meaning ``lexicon.both``."""
    if lang == BOTH:
        return lexicon.both(key, **values)
    return lexicon.t(key, lang, **values)


def in_both(render: Callable[[str], str], lang: str) -> str:
    """``render(lang)`` in ``lang``, or in both languages joined (``日本語 / English``)."""
    if lang != BOTH:
        return render(lang)
    ja, en = render("ja"), render("en")
    return ja if ja == en else f"{ja} / {en}"


def listing(items: Iterable[object], lang: str) -> str:
    texts = [str(i) for i in items]
    return lexicon.t("table.list_sep", lang).join(texts) if texts else lexicon.t("table.none",
                                                                                 lang)


def seat(n: object, lang: str) -> str:
    """``東`` / ``East`` for seat 0 (a seat number outside 0..3 as it is)."""
    key = f"table.seat.{n}"
    return lexicon.t(key, lang) if lexicon.has(key) else str(n)


def mode(n: Any, lang: str) -> str:
    """``04 三人標準`` / ``04 three-player 108`` (a number outside the table as it is)."""
    if n is None:
        return "—"
    try:
        return f"{MODES[int(n)].code} {MODES[int(n)].words(lang)}"
    except (IndexError, ValueError, TypeError):
        return str(n)


def code(name: str | None, lang: str, values: dict[str, Any] | None = None) -> str:
    """The words for a code the daemon stores (a table result, its own outcome, a refusal)."""
    if lang == BOTH:
        return in_both(lambda one: code(name, one, values), lang)
    values = dict(values or {})
    if not name:
        return ""
    key = f"table.code.{name}"
    if not lexicon.has(key):
        if name.startswith("table_error_"):
            return lexicon.t("table.code.table_error", lang, code="0x" + name[12:].upper())
        if name.startswith("nak_") or lexicon.has(f"table.link.{name}"):
            return link(name, lang, values)
        return name
    _derive(name, values, lang)
    text = lexicon.t(key, lang, **values)
    if values.get("seats"):
        text += lexicon.t(f"{key}.seats", lang, seats=listing(
            (seat(s, lang) for s in values["seats"]), lang)) if lexicon.has(f"{key}.seats") \
            else ""
    return text


def _derive(name: str, values: dict[str, Any], lang: str) -> None:
    """Values whose words depend on the language, made from the stored raw values."""
    if name == "nak_refused":
        values["reason"] = lexicon.t(f"table.nak.{values.get('reason_code')}", lang)
    elif name == "not_sent_daemon_down":
        values["age"] = daemon_age(values.get("state"), values.get("age_s"), lang)
    elif name == "not_sent_disconnected":
        values["reason"] = link(values.get("reason_code"), lang, values.get("reason_values"))
    elif name.startswith("panel_"):
        if "step_code" in values:
            values["step"] = lexicon.t(f"table.panel.step.{values['step_code']}", lang)
        if "mode_number" in values:
            values["mode"] = mode(values["mode_number"], lang)


def daemon_age(state: str | None, age_s: float | None, lang: str) -> str:
    """How long the daemon has been silent: never started, stopped, or N s ago."""
    if state == "never":
        return lexicon.t("table.status.age_never", lang)
    if state == "stopped":
        return lexicon.t("table.status.age_stopped", lang)
    return lexicon.t("table.status.age_stale", lang, age=round(age_s or 0))


def link(reason: str | None, lang: str, values: dict[str, Any] | None = None) -> str:
    """Why a table is not connected, in words (``table.link.<reason>``)."""
    if lang == BOTH:
        return in_both(lambda one: link(reason, one, values), lang)
    key = f"table.link.{reason or 'not_connected'}"
    if not lexicon.has(key):
        return code(reason, lang, values) if lexicon.has(f"table.code.{reason}") else str(reason)
    return lexicon.t(key, lang, **(values or {}))


def clock(at: float | None, tz: str, seconds: bool = False) -> str:
    """``18:02`` in the club's time zone (the day too when it is not today)."""
    if at is None:
        return "—"
    zone = ZoneInfo(tz)
    t = datetime.fromtimestamp(at, zone)
    fmt = "%H:%M:%S" if seconds else "%H:%M"
    if t.date() != datetime.now(zone).date():
        fmt = "%m-%d " + fmt
    return t.strftime(fmt)


def event(row: dict[str, Any], lang: str) -> str:
    """One stored table event in words."""
    if lang == BOTH:
        return in_both(lambda one: event(row, one), lang)
    kind, data = row.get("kind") or "", dict(row.get("data") or {})
    ecode = row.get("code") or ""
    values = dict(data)
    if kind in ("cycle_started", "mode_changed"):
        values.update(mode=mode(data.get("mode"), lang), old=mode(data.get("old"), lang),
                      new=mode(data.get("new"), lang))
    elif kind == "dice_rolled":
        d = data.get("dice") or [0, 0]
        values.update(d1=d[0], d2=d[1], seat=seat(data.get("seat"), lang))
    elif kind in ("cycle_failed", "error_raised", "error_cleared", "command_failed",
                  "late_outcome"):
        values["reason"] = code(ecode, lang, data)
    elif kind == "disconnected":
        values["reason"] = link(ecode, lang, data)
    elif kind == "points_changed":
        values["seat"] = seat(data.get("seat"), lang)
        if data.get("total") is None:
            kind = "points_removed"
    key = f"table.event.{kind}"
    return lexicon.t(key, lang, **values) if lexicon.has(key) else (row.get("message") or kind)
