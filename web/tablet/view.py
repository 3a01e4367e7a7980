"""What the tablet page shows, built from a game's view: seats around the table, history
lines that say what happened, the settlement sheet in rank order in the club's form.

Numbers a person reads are formatted here once: points with separators, settled results
in the club's ±N.N form (thousands of points, one decimal), victory points and MCR totals
as whole numbers, every time in the club's time zone (:mod:`club.clubtime`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from club import clubtime, engine, readings
from club.db import Db
from club.engine import WINDS, WINDS_JA
from club.errors import UserError
from web.i18n import current_lang, t

LIMIT_HAN = 5


# --------------------------------------------------------------------------- numbers
def points(value: int | None) -> str:
    """``31,200`` (no sign)."""
    return "" if value is None else f"{value:,}"


def signed(value: int | None) -> str:
    """``+7,800`` / ``-3,900`` / ``0``."""
    if value is None:
        return ""
    return f"{value:+,}" if value else "0"


def unit(rules: dict) -> str:
    """How a game's settled result is counted: ``thousands``, ``vp`` or ``points``."""
    st = rules["settlement"]
    if st["victory_points"]:
        return "vp"
    return "thousands" if st["use_points"] else "points"


def result(value: float | None, how: str) -> str:
    """A settled result in the club's form: ``+41.2`` (thousands), ``+9`` (victory
    points), ``+120`` (raw MCR points)."""
    if value is None:
        return ""
    if how == "thousands":
        return f"{value / 1000:+.1f}"
    return f"{value:+,}" if value else "0"


def rule_title(title: str) -> str:
    """A rule set's bilingual title (``日本語 / English``) in the page's language only."""
    ja, sep, en = str(title or "").partition(" / ")
    return (en if sep and current_lang() == "en" else ja).strip()


def wind_name(wind: str) -> str:
    """``E`` -> 東 (Japanese) or East (English)."""
    i = WINDS.index(wind)
    return WINDS_JA[i] if current_lang() == "ja" else ("East", "South", "West", "North")[i]


def round_words(label: str, honba: int | None = None) -> str:
    """``E2`` and 1 honba -> 東2局1本場 / East 2, 1 honba."""
    text = str(label or "")
    if len(text) < 2 or text[0] not in WINDS:
        return text
    out = t("tablet.round_label", wind=wind_name(text[0]), n=text[1:])
    if honba:
        out += t("tablet.honba_label", n=honba)
    return out


# --------------------------------------------------------------------------- seats
def seats(view: dict | None) -> list[dict]:
    """Seat cards: name, score, gap to the leader, seat wind, dealer, chips (★)."""
    if not view:
        return []
    names = [s["name"] for s in view["game"]["seats"]]
    # no scores yet: a None per seat (the gaps below skip them)
    scores = readings.current_scores(view) or [None] * len(names)  # type: ignore[list-item]
    state = view.get("state") or {}
    dealer = state.get("dealer")
    chips = state.get("chips") or (view["replay"].get("final") or {}).get("chips") or []
    top = max((s for s in scores if s is not None), default=None)
    out = []
    for i, name in enumerate(names):
        wind = engine.seat_wind(i, dealer, len(names)) if dealer is not None else None
        gap = (scores[i] - top) if top is not None and scores[i] is not None else None
        out.append({"seat": i, "name": name, "score": scores[i], "gap": gap,
                    "dealer": dealer == i, "wind": wind,
                    "wind_text": wind_name(wind) if wind else "",
                    "chips": chips[i] if i < len(chips) else 0,
                    "houki": i in (state.get("houki") or []),
                    "riichi_able": i in (state.get("riichi_able") or [])})
    return out


# --------------------------------------------------------------------------- history
def _names(seat_list: Iterable[int], names: Sequence[str]) -> str:
    return t("tablet.name_join").join(names[s] for s in seat_list)


def _limit_words(limit: str | None) -> str:
    return t(f"tablet.limit.{limit}") if limit else ""


def _winner_words(w: dict, ctx: dict) -> str:
    """``3翻30符 3,900 ★1`` / ``役満 32,000`` / ``24点 花1``."""
    rules, names = ctx["rules"], ctx["names"]
    parts = []
    if ctx["multi"]:
        parts.append(names[w["seat"]])
    chips = w.get("chips", 0)
    if rules.table.family == "mcr":
        fan = w.get("fan", w.get("han", 0))
        parts.append(t("tablet.h.fan", fan=fan))
        if w.get("flowers"):
            parts.append(t("tablet.h.flowers", n=w["flowers"]))
        return " ".join(parts)
    price = _winner_price(w, ctx)
    if price is None:
        return " ".join(parts)
    han, fu, yakuman, value, limit, chips = price
    if yakuman:
        parts.append(t("tablet.h.yakuman", n=yakuman) if yakuman > 1 else _limit_words("yakuman"))
    elif han >= LIMIT_HAN or not fu:
        parts.append(t("tablet.h.han", han=han) + (" " + _limit_words(limit) if limit else ""))
    else:  # a han and fu paid as a limit (切り上げ満貫) says so
        parts.append(t("tablet.h.han_fu", han=han, fu=fu)
                     + (" " + _limit_words(limit) if limit else ""))
    parts.append(points(value))
    if chips:
        parts.append(f"★{chips}")
    return " ".join(parts)


def _winner_price(w: dict, ctx: dict) -> tuple[Any, ...] | None:
    """(han, fu, yakuman, value, limit, chips) of one winner, or None if it cannot be read."""
    rules, hand = ctx["rules"], ctx["hand"]
    dealer, tsumo = w["seat"] == hand["dealer"], ctx["tsumo"]
    if "hand" in w:
        line = {**w["hand"], "tsumo": tsumo, "round_wind": hand["round"][0],
                "seat_wind": engine.seat_wind(w["seat"], hand["dealer"], ctx["players"])}
        res = engine.score_hand(line, rules)
        if not res.get("ok"):
            return None
        chips = w.get("chips") or res.get("chips", {}).get("each", 0)
        return res["han"], res["fu"], res["yakuman"], res["value"], res["limit"], chips
    try:
        price = engine.hand_price(rules, han=w.get("han", 0), fu=w.get("fu", 0),
                                  yakuman=w.get("yakuman", 0), dealer=dealer, tsumo=tsumo,
                                  dora=w.get("dora", 0))
    except UserError:  # a stored hand these rules cannot price: the line shows it bare
        return None
    return (w.get("han", 0), w.get("fu", 0), w.get("yakuman", 0), price["value"],
            price["limit"], w.get("chips", 0))


def _event_words(ev: dict, ctx: dict) -> str:
    names, kind = ctx["names"], ev.get("event")
    mcr = ctx["rules"].table.family == "mcr"   # the words of the MCR buttons: 和了 自摸 荒牌
    if kind == "win":
        winners = ev.get("winners") or []
        who = _names([w["seat"] for w in winners], names)
        if ev.get("from") is None:
            head = t("tablet.h.tsumo_mcr" if mcr else "tablet.h.tsumo", who=who)
        else:
            head = t("tablet.h.ron_mcr" if mcr else "tablet.h.ron", who=who,
                     src=names[ev["from"]])
        return " ".join([head] + [_winner_words(w, ctx) for w in winners])
    if kind == "draw" and mcr:
        return t("tablet.h.draw_mcr")
    if kind == "draw":
        if ev.get("nagashi"):
            return t("tablet.h.nagashi", who=_names(ev["nagashi"], names))
        tenpai = ev.get("tenpai") or []
        if not tenpai:
            return t("tablet.h.all_noten")
        if len(tenpai) == len(names):
            return t("tablet.h.all_tenpai")
        return t("tablet.h.draw", who=_names(tenpai, names))
    if kind == "abort":
        return t("tablet.h.abort", kind=t(f"tablet.kind.{ev.get('kind')}"))
    if kind == "chombo":
        return t("tablet.h.chombo", who=names[ev["seat"]])
    if kind == "penalty":
        what = t(f"tablet.kind.{ev.get('kind')}")
        if ev.get("kind") == "points":
            what = t("tablet.h.points", points=points(ev.get("points", 0)))
            if ev.get("to") is not None:
                return t("tablet.h.penalty_to", who=names[ev["seat"]], to=names[ev["to"]],
                         what=what)
        return t("tablet.h.penalty", who=names[ev["seat"]], what=what)
    return kind or ""


def history(view: dict, rules: engine.Rules) -> list[dict]:
    """One line per recorded event, newest first: ``text`` says what happened
    (東2局1本場 ロン 中村←伊藤 3翻30符 3,900 ★1), ``deltas`` per seat, ``riichi`` who
    declared, ``end`` for the players stopping the game, ``seq`` the entry number."""
    if not view:
        return []
    names = [s["name"] for s in view["game"]["seats"]]
    effective = view.get("events") or []
    out = []
    for h in view["replay"].get("hands") or []:
        line = h.get("event", 0)
        item = effective[line - 1] if 0 < line <= len(effective) else {"event": {}, "seq": None}
        ev = item["event"]
        ctx = {"rules": rules, "names": names, "hand": h, "players": len(names),
               "tsumo": ev.get("from") is None,
               "multi": len(ev.get("winners") or []) > 1}
        end = ev.get("event") == "end"
        out.append({
            "seq": item["seq"], "end": end,
            "head": "" if end else round_words(h.get("round"), h.get("honba")),
            "text": t(f"tablet.end_reason.{ev.get('reason', 'time')}") if end
            else _event_words(ev, ctx),
            "riichi": _names(ev.get("riichi") or [], names),
            "deltas": [] if end else [{"name": names[i], "delta": d, "text": signed(d)}
                                      for i, d in enumerate(h.get("deltas") or [])],
        })
    return out[::-1]


def last_hand_words(view: dict, rules: engine.Rules) -> str:
    """The hand an undo would remove, as its history line says it."""
    lines = history(view, rules)
    if not lines:
        return ""
    first = lines[0]
    return f"{first['head']} {first['text']}".strip()


# --------------------------------------------------------------------------- settlement
def settlement(view: dict, how: str, db: Db) -> dict | None:
    """The settlement sheet in rank order: each row's rank, name, score, uma, oka, chips,
    result in the club's form (``how``: :func:`unit`), confirmation; the columns the
    rules have; the finish time in the club's zone."""
    final = view["replay"].get("final") if view else None
    if not final:
        return None
    seats_ = view["game"]["seats"]
    order = sorted(range(len(seats_)), key=lambda i: (final["ranks"][i], i))
    rows = []
    for i in order:
        s = seats_[i]
        rows.append({
            "seat": i, "rank": final["ranks"][i], "name": s["name"],
            "score": points(final["scores"][i]),
            "uma": result(final["uma"][i], how) if final.get("uma") else "",
            "oka": result(final["oka"][i], how) if final.get("oka") and final["oka"][i] else "",
            "chips": f"★{final['chips'][i]:+d}" if final.get("chips") and final["chips"][i]
            else "",
            "result": result(final["result"][i], how), "value": final["result"][i],
            "confirmed": bool(s.get("confirmed_at")),
        })
    return {
        "rows": rows, "unit": how,
        "has_uma": any(final.get("uma") or []), "has_oka": any(final.get("oka") or []),
        "has_chips": any(final.get("chips") or []),
        "finished_at": clubtime.club_clock(db, view["game"].get("finished_at")),
        "leftover": points(final.get("leftover_deposits") or 0),
    }


def undo_state(view: dict | None) -> dict | None:
    """The game's state before its last hand, as far as the hand records tell it (scores,
    round, dealer, honba, sticks): where a tablet that undoes that hand offline goes on from.
    None when there is nothing to undo."""
    state = (view or {}).get("state")
    hands = (view or {}).get("replay", {}).get("hands") or []
    if not state or not hands:
        return None
    last = hands[-1]
    deltas = last.get("deltas") or []
    return {**state, "scores": [s - d for s, d in zip(last["scores"], deltas, strict=True)],
            "round": last["round"], "dealer": last["dealer"], "honba": last["honba"],
            "kyoutaku": last["kyoutaku"] + sum(deltas), "houki": [], "yame_offer": "",
            "extension": last["round"].startswith("W"), "finished": False}
