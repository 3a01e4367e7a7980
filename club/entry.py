"""What the entry forms and the offline price list need to know of a game's rules.

:func:`entry_spec` turns a resolved rule set into one JSON-ready dict read by
``static/entry.js`` (which controls a table's rules have: the tiles of the set,
red fives, flowers, chi, nukidora, pocchi, open riichi, the situation flags, the
yaku or the 81 MCR fans, the events the rules price) and by ``static/pricing.js``
(the payment of every han/fu pair, honba, sticks, noten payments, chips and how a
game moves on), so a tablet prices a hand and keeps running scores without asking
the server. Every value comes from the rule set through :mod:`club.engine`; nothing
here names a preset.
"""

from __future__ import annotations

import dataclasses

from club import engine, events
from club.readings import sticks_track_score
from club.text import whole_number

SUITS = "mps"
HONOURS = 7


def _tiles(rules: engine.Rules) -> dict:
    """The kinds in the set per suit (``removed_tiles`` taken out) and the red fives."""
    removed = set()
    text, digits = rules.table.removed_tiles, ""
    for ch in text:
        if whole_number(ch) is not None:
            digits += ch
        else:
            removed |= {f"{d}{ch}" for d in digits}
            digits = ""
    out = {s: [n for n in range(1, 10) if f"{n}{s}" not in removed] for s in SUITS}
    out["z"] = [n for n in range(1, HONOURS + 1) if f"{n}z" not in removed]
    return {"kinds": out, "red": dict(zip(SUITS, rules.table.red_fives, strict=True)),
            "flowers": rules.table.flowers}


def _flags(rules: engine.Rules) -> list[str]:
    """Situation flags a tile-entered riichi hand can carry under these rules."""
    h = rules.hand
    flags = ["double_riichi"]
    if h.ippatsu:
        flags.append("ippatsu")
    if h.open_riichi:
        flags.append("open_riichi")
    flags += ["haitei", "houtei", "rinshan", "chankan"]
    if h.pocchi:
        flags.append("pocchi")
    flags += ["tenhou", "chiihou"]
    if h.renhou != "off":
        flags.append("renhou")
    return flags


def _events(rules: engine.Rules) -> dict:
    """The events the rules price and what each offers."""
    g = rules.game
    riichi = rules.table.family != "mcr"
    penalty = (["deposit_1000"] if g.deposit_penalty else []) + \
        (["agari_houki"] if g.agari_houki else []) + ["points"]
    most = {"atamahane": 1, "double": 2, "triple": 3}[g.multi_ron]
    if g.multi_ron == "double" and "sanchahou" in g.abortive_draws:
        most = 3  # a third ron is entered, and the rules make it sanchahou (refused in words)
    return {"abort": [k for k in engine.ABORT_KINDS if k in g.abortive_draws],
            "chombo": g.chombo != "none", "penalty": penalty, "nagashi": g.nagashi != "none",
            "pao": g.pao, "max_winners": min(most, rules.table.players - 1), "riichi": riichi,
            "honba": g.honba, "tenpai": riichi or rules.points.noten_total > 0,
            "chombo_at_draw": g.chombo_at_draw and g.chombo != "none",
            "kyuushu_nukidora": g.kyuushu_after_nukidora and rules.hand.nukidora != "none"
            and "kyuushu" in g.abortive_draws,
            "penalty_points": g.penalty_points, "penalty_step": g.penalty_step}


def _chips(rules: engine.Rules) -> dict:
    c = rules.chips
    return {**dataclasses.asdict(c), "reds": sum(rules.table.red_fives)}


def _price(rules: engine.Rules) -> dict:
    """What ``static/pricing.js`` reads: the price table and the switches of money and
    progression (``points``, ``game``, ``settlement`` start and return points)."""
    p = rules.points
    return {
        "table": engine.price_table(rules),
        "points": {k: getattr(p, k) for k in (
            "honba_ron", "honba_tsumo_each", "honba_on_yakuless_win", "riichi_deposit",
            "noten_total", "dora_per_tile", "tsumo_loss")},
        "game": dataclasses.asdict(rules.game),
        "start_points": rules.settlement.start_points,
        "return_points": rules.settlement.return_points,
        "ties": rules.settlement.ties,
        "mangan": {d + t: engine.hand_price(rules, han=5, fu=0, yakuman=0, dealer=d == "d",
                                            tsumo=t == "t")["pay"]
                   for d in "dn" for t in "rt"} if rules.table.family != "mcr" else {},
    }


def entry_spec(rules: engine.Rules) -> dict:
    """Everything the entry forms and the offline pricing need of ``rules``."""
    mcr = rules.table.family == "mcr"
    h = rules.hand
    spec = {
        "rules": rules.name, "family": rules.table.family, "players": rules.table.players,
        "tiles": _tiles(rules), "chi": rules.table.allow_chi, "nukidora": h.nukidora,
        "pocchi": h.pocchi, "open_riichi": h.open_riichi, "flags": [] if mcr else _flags(rules),
        "use_fu": rules.fu.use_fu and not mcr, "min_han": h.min_han,
        "pairs": {"ron": engine.han_fu_pairs(rules, tsumo=False),
                  "tsumo": engine.han_fu_pairs(rules, tsumo=True)},
        "chiitoitsu_fu": rules.fu.chiitoitsu_fu, "pinfu_tsumo": h.pinfu_tsumo,
        "max_yakuman": engine.max_yakuman(rules), "kazoe": h.kazoe_yakuman,
        "yakuman_stacking": h.yakuman_stacking,
        "yaku": [] if mcr else engine.yaku_choices(rules),
        "yaku_rules": {"together": [list(p) for p in events.TOGETHER_NEVER],
                       "tsumo_only": sorted(events.TSUMO_ONLY | (
                           set() if h.houtei_as_haitei else {"haitei"})),
                       "ron_only": sorted(events.RON_ONLY), "riichi": list(events.RIICHI_YAKU)},
        "counters": {} if mcr else engine.counters(rules),
        "fans": engine.mcr_fans(rules) if mcr else [],
        "mcr_minimum": engine.MCR_MINIMUM_FAN,
        "mcr_flags": list(engine.MCR_FLAGS[1:]) if mcr else [],
        "chips": _chips(rules),
        "events": _events(rules),
        "sticks": sticks_track_score(rules),
        "price": _price(rules),
    }
    return spec
