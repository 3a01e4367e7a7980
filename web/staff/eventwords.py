"""A game event in words for staff: 「ロン 伊藤←青木 3翻30符 立直: 青木」.

Used by the game page's history, the correction preview and the audit log, in the
page's language, with the players' names instead of seat numbers.
"""

from __future__ import annotations

from collections.abc import Iterable

from club import engine
from web.i18n import t


def _name(names: list[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return t("staff.ev.seat", seat=seat)


def _names(names: list[str], seats: Iterable[object] | None) -> str:
    return t("floor.list_sep").join(_name(names, s) for s in seats or [])


def _value(w: dict) -> str:
    """A winner's hand as entered: yakuman, fan, han/fu or the tiles."""
    if w.get("yakuman"):
        text = t("staff.ev.yakuman", n=w["yakuman"])
    elif w.get("fan"):
        text = t("staff.ev.fan", fan=w["fan"])
    elif w.get("han"):
        text = t("staff.ev.hanfu", han=w["han"], fu=w.get("fu", "—")) if w.get("fu") \
            else t("staff.ev.han", han=w["han"])
    elif w.get("hand"):
        hand = w["hand"]
        text = t("staff.ev.tiles", hand=hand.get("hand", ""), win=hand.get("win", ""))
    else:
        text = ""
    # every fact stored with the hand, so a correction starts from what was recorded
    picks = [*(w.get("yaku") or []), *(w.get("fans") or [])]
    extras = [t("floor.list_sep").join(_pick(p) for p in picks if isinstance(p, dict))] \
        if picks else []
    extras += [t(f"staff.ev.{k}", n=w[k]) for k in COUNTERS if w.get(k)]
    extras += [t(f"staff.ev.{k}") for k in FLAGS if w.get(k)]
    extras += [t("staff.ev.chips", n=w["chips"])] if w.get("chips") else []
    return " ".join([text, *extras]).strip()


COUNTERS = ("dora", "aka", "ura", "nukidora", "flowers")
"""A winner's counted extras, each worded by ``staff.ev.<name>``."""
FLAGS = ("ippatsu", "pocchi", "open")


def _pick(p: dict) -> str:
    """A picked yaku or fan: its name, with a count or a han where it has one."""
    name = engine.yaku_words(str(p.get("id")))
    if p.get("count") and p["count"] > 1:
        name += f"×{p['count']}"
    return name


def describe(event: dict | None, names: list[str]) -> str:
    """``event`` (game-events format) in words, seats named by ``names``."""
    if not event:
        return "—"
    kind = event.get("event")
    riichi = t("staff.ev.riichi", names=_names(names, event["riichi"])) \
        if event.get("riichi") else ""
    if kind == "win":
        parts = []
        for w in event.get("winners") or []:
            who = _name(names, w.get("seat"))
            key = "staff.ev.ron" if "from" in event else "staff.ev.tsumo"
            line = t(key, winner=who, loser=_name(names, event.get("from")), value=_value(w))
            if w.get("pao") is not None:
                line += " " + t("staff.ev.pao", name=_name(names, w["pao"]))
            parts.append(line.strip())
        text = t("floor.list_sep").join(parts)
    elif kind == "draw":
        text = t("staff.ev.draw", tenpai=_names(names, event["tenpai"])) if event.get("tenpai") \
            else t("staff.ev.draw_noten")
        if event.get("nagashi"):
            text += " " + t("staff.ev.nagashi", names=_names(names, event["nagashi"]))
        if event.get("chombo"):
            text += " " + t("staff.ev.chombo_at_draw", names=_names(names, event["chombo"]))
    elif kind == "abort":
        text = t("staff.ev.abort", kind=t(f"staff.abort.{event.get('kind')}"))
        if event.get("nukidora"):
            text += " " + t("staff.ev.kyuushu_nukidora", name=_name(names, event.get("seat")),
                            n=event["nukidora"])
    elif kind == "chombo":
        text = t("staff.ev.chombo", name=_name(names, event.get("seat")))
    elif kind == "penalty":
        text = t("staff.ev.penalty", name=_name(names, event.get("seat")),
                 kind=t(f"staff.penalty.{event.get('kind')}"),
                 points=f"{event['points']:,}" if event.get("points") else "")
    elif kind == "end":
        text = t("staff.ev.end", reason=t(f"staff.end.{event['reason']}")) \
            if event.get("reason") else t("staff.ev.end_plain")
    elif kind == "start":
        # the players as the game's seats name them now (an erased member's start entry
        # keeps the name it was written with: the log is never rewritten)
        named = event.get("players") or []
        text = t("staff.ev.start", names=t("floor.list_sep").join(
            names if len(names) == len(named) else named))
    else:
        text = str(kind)
    return f"{text} {riichi}".strip()
