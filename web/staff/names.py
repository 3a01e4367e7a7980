"""Names instead of ids on every page staff read: a rule set by its name in the page's
language, a table by the club's name for it (卓2), a refused field by what it is
(「1人目の和了者のチップ」), never a raw id or path."""

from __future__ import annotations

import re

from flask import g
from flask.typing import ResponseReturnValue

from club import club_tables
from club.errors import Refused
from web.db import get_db
from web.i18n import current_lang, t
from web.staff.common import _form_refused, bp


def _titles() -> dict[str, str]:
    if "rule_titles" not in g:
        g.rule_titles = {r["id"]: r["title"] for r in club_tables.list_rule_sets(get_db())}
    return g.rule_titles


def title_in(title: str, lang: str) -> str:
    """One language of a bilingual title (``日本語 / English``): its half for ``lang``; a
    title in one language is itself."""
    ja, sep, en = str(title).partition(" / ")
    if not sep:
        return str(title)
    return (en if lang == "en" else ja).strip()


@bp.app_template_global("rules_name")
def rule_set_name(rule_set_id: str | None, lang: str | None = None) -> str:
    """A rule set by its name in the page's language (its id only if it has no title)."""
    if not rule_set_id:
        return "—"
    return title_in(_titles().get(rule_set_id) or rule_set_id, lang or current_lang())


@bp.app_template_global("table_name")
def table_name(table_id: str | None) -> str:
    """A club table by its name (卓2), as staff and players call it; its id only if the
    club has no such table."""
    if "table_names" not in g:
        g.table_names = {str(t["id"]): t["name"] for t in club_tables.list_tables(get_db())}
    return g.table_names.get(str(table_id)) or str(table_id or "—")


# ----------------------------------------------------------------------------- a field in words
_SEGMENT = re.compile(r"\.?([A-Za-z_]+)((?:\[\d+\])*)")
OWNERS = ("winners", "fans", "melds", "yaku")
"""Lists whose items are named by their place (「1人目の和了者」), not by the list's word."""
FIELDS = ("seat", "han", "fu", "chips", "fan", "flowers", "fans", "yakuman", "from", "riichi",
          "tenpai", "nagashi", "kind", "points", "dora", "ura", "aka", "nukidora", "pocchi",
          "ippatsu", "melds", "yaku", "pao", "reason", "to", "players", "count", "id", "type",
          "tiles", "win", "round_wind", "seat_wind", "all_star", "event", "kita")


def field_words(path: str, lang: str | None = None) -> str:
    """A field's path in a request (``event.winners[0].chips``) as the person who typed it
    reads it: 「1人目の和了者のチップ」 / "chips of winner 1"."""

    lang = lang or current_lang()
    parts: list[str] = []
    for name, index in _SEGMENT.findall(str(path)):
        if name == "event" and not parts and not index:
            continue                                   # the form itself, not a field
        n = int(index.strip("[]").split("][")[0]) + 1 if index else None
        if n is not None and name in OWNERS:
            parts.append(t(f"staff.field.{name}_n", n=n))
        else:
            parts.append(t(f"staff.field.{name}" if name in FIELDS else "staff.field.other"))
    if not parts:
        return t("staff.field.other")
    return " of ".join(reversed(parts)) if lang == "en" else "の".join(parts)


@bp.errorhandler(Refused)
def _refused_in_words(e: Refused) -> ResponseReturnValue:
    """A refusal naming a field by its path names it in words on the console's forms and
    their previews; then it is answered as any refusal of a form."""
    if isinstance(e.values.get("field"), str) and e.key.startswith("field."):
        e.values = {**e.values, "field": field_words(e.values["field"])}
    return _form_refused(e)
