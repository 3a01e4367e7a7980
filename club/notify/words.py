"""What a queued message says, made at send time from the catalogue in the recipient's
language (the outbox keeps only the kind and its values)."""

from __future__ import annotations

import json

import lexicon
from club import report_card
from club.club_tables import table_name
from club.db import Db, Row


def _card_lines(db: Db, player_id: int, game_id: int, lang: str) -> list[str]:
    """The member's report card after a game, as lines of text."""
    card = report_card.build(db, player_id, game_id=game_id, lang=lang)
    return [str(line) for line in report_card.as_lines(card, lang=lang)]


def render(db: Db, row: Row) -> tuple[str, str]:
    """The subject and the text of an outbox row."""
    lang = row["lang"]
    values = json.loads(row["payload"])
    kind = row["kind"]
    if kind == "seat_ready":
        table = table_name(db, values["table_id"])
        return (lexicon.t("notify.seat_ready.subject", lang, table=table),
                lexicon.t("notify.seat_ready.text", lang, name=values["name"], table=table))
    if kind == "call":
        table = table_name(db, values["table_id"])
        reason = lexicon.t(f"floor.call.reason.{values['reason']}", lang)
        return (lexicon.t("notify.call.subject", lang, table=table),
                lexicon.t("notify.call.text", lang, table=table, reason=reason))
    if kind == "report_card":
        lines = _card_lines(db, values["player_id"], values["game_id"], lang)
        return (lexicon.t("notify.report_card.subject", lang),
                "\n".join([lexicon.t("notify.report_card.text", lang), "", *lines]))
    if kind in ("pin_code", "pin_locked", "email_confirm"):
        return (lexicon.t(f"notify.{kind}.subject", lang),
                lexicon.t(f"notify.{kind}.text", lang, **values))
    raise ValueError(f"unknown kind {kind!r}")
