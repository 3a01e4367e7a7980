"""The riichi yaku registry.

Each yaku is one small :class:`Yaku`: a stable id (the batch contract's
lower-case romaji), its Japanese name, closed/open han, a yakuman multiplier,
the rule switch it reads, and one condition function ``cond(ctx) -> int``
(how many times it applies; 0 = not at all). The han a rule set gives each
yaku is resolved once per :class:`~scoring.rules.Rules` by :func:`han_table`
(``hand.han_override`` and the few switches that change a yaku's value), so
the condition functions never look at han.

:data:`YAKU` lists them all (docs generation reads it); ``dora``, ``aka``,
``ura`` and ``nukidora`` are listed too but counted by :mod:`scoring.hand`.

A condition receives a :class:`Ctx`: one reading of one hand (sets, pair,
wait, form) plus the hand-wide facts and the input flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Final

from .decompose import RYANMEN, SEQ, TANKI
from .tiles import CHUN, DRAGONS, HAKU, HATSU, NORTH, WINDS

GREEN: Final = frozenset((19, 20, 21, 23, 25, HATSU))  # 2 3 4 6 8 s and 發
_DRAGON_SET: Final = frozenset(DRAGONS)
_WIND_SET: Final = frozenset(WINDS)


class Ctx:
    """One reading of a hand, as the yaku and fu functions see it.

    ``sets`` are ``(shape, first, concealed, kan)`` for all four sets, called
    ones included; ``form`` is ``"std"``, ``"chiitoi"`` or ``"kokushi"``.
    """

    __slots__ = (
        "inp",
        "rules",
        "facts",
        "form",
        "sets",
        "pair",
        "wait",
        "closed",
        "seqs",
        "trips",
        "n_ankou",
        "n_kans",
        "n_honours",
        "first",
        "found",
    )

    def __init__(self, inp: Any, rules: Any, facts: Any, form: str, sets: Any, pair: Any,
                 wait: Any, closed: Any, first: Any = None) -> None:
        """``first``: the context of another wait of the same reading (the same sets and
        pair), whose derived counts and wait-independent yaku this one shares."""
        self.inp = inp  # HandInput (flags, winds, win tile)
        self.rules = rules  # HandRules
        self.facts = facts  # HandFacts (hand-wide facts, same for every reading)
        self.form: str = form
        self.sets = sets
        self.pair = pair
        self.wait = wait
        self.closed = closed
        self.first = first
        self.found: list[Any] | None = None  # what each yaku row gave, for the other waits
        # derived once here so each condition is a cheap look-up
        seqs, trips, ankou, kans, honours = [], set(), 0, 0, 0
        if first is not None:
            # another wait of the same reading: the same sets, one triplet perhaps opened by
            # a ron on a shanpon wait, so only the concealed triplets are counted again
            for s in sets:
                if s[0] != SEQ:
                    ankou += s[2]
            seqs, trips, kans, honours = first.seqs, first.trips, first.n_kans, first.n_honours
        else:
            for shape, start, concealed, kan in sets:
                if shape == SEQ:
                    seqs.append(start)
                    continue
                trips.add(start)
                ankou += concealed
                kans += kan
                honours += start >= 27
        self.seqs, self.trips, self.n_ankou, self.n_kans = seqs, trips, ankou, kans
        self.n_honours = honours


@dataclass(frozen=True)
class Yaku:
    id: str
    ja: str
    en: str
    han_closed: int
    han_open: int
    yakuman: int = 0
    switch: str = ""
    cond: Callable[[Ctx], int] | None = None
    # what the condition reads: "reading" (the sets and the pair), "wait" (the wait too, or
    # which triplets stay concealed after a ron), "hand" (the tiles as a whole) or
    # "situation" (input flags); "hand" and "situation" yaku are checked once per hand, the
    # "reading" ones once per reading whatever the number of waits it has
    scope: str = "reading"


# --------------------------------------------------------------------------- helpers
def _has_trip(c: Ctx, k: int) -> int:
    return int(k in c.trips)


def _std(c: Ctx) -> bool:
    return c.form == "std"


def _peikou(c: Ctx) -> int:
    """Number of pairs of identical runs (1 iipeikou, 2 ryanpeikou)."""
    seqs = c.seqs
    if len(seqs) < 2:
        return 0
    kinds = set(seqs)
    if len(kinds) == len(seqs):  # the common case, no run twice: no generator needed
        return 0
    return sum(seqs.count(k) // 2 for k in kinds)


def _set_has(s: Any, test: Callable[[int], bool]) -> bool:
    if s[0] == SEQ:
        return test(s[1]) or test(s[1] + 2)
    return test(s[1])


def _outside(c: Ctx, test: Callable[[int], bool]) -> bool:
    """Every set and the pair hold a tile passing ``test``, with at least one run."""
    if not c.seqs or not test(c.pair):
        return False
    for s in c.sets:  # a loop, not all(generator): most readings fail at the first set
        if not _set_has(s, test):
            return False
    return True


def _yaochuu(k: int) -> bool:
    return k >= 27 or k % 9 in (0, 8)


def _terminal(k: int) -> bool:
    return k < 27 and k % 9 in (0, 8)


def yakuhai_kinds(h: Any, r: Any) -> set[int]:
    """Kinds whose triplet is a yakuhai (and whose pair earns fu)."""
    out = set(DRAGONS) | {h.seat_wind, h.round_wind}
    if r.north_yakuhai:
        out.add(NORTH)
    return out


def _concealed_trips(c: Ctx) -> int:
    return c.n_ankou


def _kans(c: Ctx) -> int:
    return c.n_kans


# --------------------------------------------------------------------------- conditions
def _pinfu(c: Ctx) -> int:
    if len(c.seqs) != 4 or (c.wait != RYANMEN and c.rules.pinfu_wait == "ryanmen"):
        return 0
    if c.pair in c.facts.yakuhai:
        return 0
    return int(not c.inp.tsumo or c.rules.pinfu_tsumo)


def _chanta(c: Ctx) -> int:
    return int(c.facts.has_honor and _outside(c, _yaochuu))


def _junchan(c: Ctx) -> int:
    # a terminal pair is implied, so a hand without terminals is skipped at once
    return int(not c.facts.has_honor and c.facts.has_terminal and _outside(c, _terminal))


def _sanshoku(c: Ctx) -> int:
    if len(c.seqs) < 3:
        return 0
    seqs = set(c.seqs)
    for k in seqs:  # the at most four runs, not the seven starts
        if k < 7 and k + 9 in seqs and k + 18 in seqs:
            return 1
    return 0


def _ittsu(c: Ctx) -> int:
    if len(c.seqs) < 3:
        return 0
    seqs = set(c.seqs)
    for b in seqs:
        if b % 9 == 0 and b + 3 in seqs and b + 6 in seqs:
            return 1
    return 0


def _doukou(c: Ctx) -> int:
    t = c.trips
    if len(t) < 3:
        return 0
    for k in t:
        if k < 9 and k + 9 in t and k + 18 in t:
            return 1
    return 0


def _shousangen(c: Ctx) -> int:
    return int(c.pair in DRAGONS and len(c.trips & _DRAGON_SET) == 2)


def _suuankou(c: Ctx) -> int:
    if not (_std(c) and _concealed_trips(c) == 4):
        return 0
    return int(not (c.rules.double_yakuman_hands and c.wait == TANKI))


def _suuankou_tanki(c: Ctx) -> int:
    return int(
        _std(c) and c.rules.double_yakuman_hands and _concealed_trips(c) == 4 and c.wait == TANKI
    )


def _kokushi(c: Ctx) -> int:
    return int(c.form == "kokushi" and not (c.rules.double_yakuman_hands and c.facts.kokushi_13))


def _kokushi_13(c: Ctx) -> int:
    return int(c.form == "kokushi" and c.rules.double_yakuman_hands and c.facts.kokushi_13)


def _winds_trips(c: Ctx) -> int:
    return len(c.trips & _WIND_SET)


def _daisuushii(c: Ctx) -> int:
    if not (_std(c) and _winds_trips(c) == 4):
        return 0
    return 2 if c.rules.double_yakuman_hands else 1


def _chuuren(c: Ctx) -> int:
    return int(c.facts.chuuren and not (c.rules.double_yakuman_hands and c.facts.junsei))


def _junsei(c: Ctx) -> int:
    return int(c.facts.chuuren and c.rules.double_yakuman_hands and c.facts.junsei)


def _ryuuiisou(c: Ctx) -> int:
    return int(c.facts.all_green and (c.facts.has_hatsu or not c.rules.ryuuiisou_needs_hatsu))


def _haitei(c: Ctx) -> int:
    return int(c.inp.haitei or (c.inp.houtei and c.rules.houtei_as_haitei))


def _riichi(c: Ctx) -> int:
    inp = c.inp
    return int(
        inp.riichi and not inp.double_riichi and not (inp.open_riichi and c.rules.open_riichi)
    )


Y: Final = Yaku
_SITUATION: Final = "situation"
_HAND: Final = "hand"
_WAIT: Final = "wait"
_DOUBLE: Final = "hand.double_yakuman_hands"
YAKU: Final[tuple[Yaku, ...]] = (
    # 1 han
    Y("riichi", "立直", "Riichi", 1, 0, cond=_riichi, scope=_SITUATION),
    Y("double_riichi", "ダブル立直", "Double riichi", 2, 0,
      cond=lambda c: int(c.inp.double_riichi), scope=_SITUATION),
    Y("open_riichi", "オープン立直", "Open riichi", 2, 0, switch="hand.open_riichi",
      cond=lambda c: int(c.inp.open_riichi and c.rules.open_riichi), scope=_SITUATION),
    Y("ippatsu", "一発", "Ippatsu (one-shot)", 1, 0, switch="hand.ippatsu",
      cond=lambda c: int(c.inp.ippatsu and c.rules.ippatsu), scope=_SITUATION),
    Y("menzen_tsumo", "門前清自摸和", "Fully concealed tsumo (menzen tsumo)", 1, 0,
      cond=lambda c: int(c.closed and c.inp.tsumo), scope=_SITUATION),
    Y("pinfu", "平和", "Pinfu (all runs)", 1, 0,
      switch="hand.pinfu_tsumo, hand.open_pinfu, hand.pinfu_wait",
      cond=_pinfu, scope=_WAIT),
    Y("tanyao", "断么九", "All simples (tanyao)", 1, 1, switch="hand.kuitan",
      cond=lambda c: int(c.facts.all_simple), scope=_HAND),
    Y("iipeikou", "一盃口", "Pure double run (iipeikou)", 1, 0,
      cond=lambda c: int(_std(c) and _peikou(c) == 1)),
    Y("yakuhai_haku", "役牌 白", "Yakuhai: white dragon", 1, 1,
      cond=lambda c: int(HAKU in c.trips)),
    Y("yakuhai_hatsu", "役牌 發", "Yakuhai: green dragon", 1, 1,
      cond=lambda c: int(HATSU in c.trips)),
    Y("yakuhai_chun", "役牌 中", "Yakuhai: red dragon", 1, 1,
      cond=lambda c: int(CHUN in c.trips)),
    Y("yakuhai_seat_wind", "役牌 自風", "Yakuhai: seat wind", 1, 1,
      cond=lambda c: int(c.inp.seat_wind in c.trips)),
    Y("yakuhai_round_wind", "役牌 場風", "Yakuhai: round wind", 1, 1,
      cond=lambda c: int(c.inp.round_wind in c.trips)),
    Y("yakuhai_north", "役牌 北", "Yakuhai: North", 1, 1, switch="hand.north_yakuhai",
      cond=lambda c: int(c.rules.north_yakuhai and _has_trip(c, NORTH))),
    Y("rinshan", "嶺上開花", "Win on a replacement tile (rinshan kaihou)", 1, 1,
      cond=lambda c: int(c.inp.rinshan), scope=_SITUATION),
    Y("chankan", "搶槓", "Robbing a kan (chankan)", 1, 1,
      cond=lambda c: int(c.inp.chankan), scope=_SITUATION),
    Y("haitei", "海底摸月", "Last tile draw (haitei)", 1, 1, switch="hand.houtei_as_haitei",
      cond=_haitei, scope=_SITUATION),
    Y("houtei", "河底撈魚", "Last discard (houtei)", 1, 1, switch="hand.houtei_as_haitei",
      cond=lambda c: int(c.inp.houtei and not c.rules.houtei_as_haitei), scope=_SITUATION),
    # 2 han and more
    Y("sanshoku", "三色同順", "Three colour runs (sanshoku)", 2, 1, cond=_sanshoku),
    Y("ittsu", "一気通貫", "Straight (ittsu)", 2, 1, cond=_ittsu),
    Y("chanta", "混全帯么九", "Outside hand (chanta)", 2, 1, cond=_chanta),
    Y("chiitoitsu", "七対子", "Seven pairs (chiitoitsu)", 2, 0,
      switch="hand.chiitoitsu_four_of_a_kind", cond=lambda c: int(c.form == "chiitoi")),
    Y("toitoi", "対々和", "All triplets (toitoi)", 2, 2,
      cond=lambda c: int(_std(c) and not c.seqs)),
    Y("sanankou", "三暗刻", "Three concealed triplets (sanankou)", 2, 2,
      cond=lambda c: int(_std(c) and _concealed_trips(c) == 3), scope=_WAIT),
    Y("sankantsu", "三槓子", "Three kans (sankantsu)", 2, 2,
      cond=lambda c: int(_kans(c) == 3)),
    Y("sanshoku_doukou", "三色同刻", "Three colour triplets (sanshoku doukou)", 2, 2,
      cond=_doukou),
    Y("honroutou", "混老頭", "All terminals and honours (honroutou)", 2, 2,
      cond=lambda c: int(c.facts.all_yaochuu and c.facts.has_honor and c.facts.has_terminal),
      scope=_HAND),
    Y("shousangen", "小三元", "Little three dragons (shousangen)", 2, 2, cond=_shousangen),
    Y("honitsu", "混一色", "Half flush (honitsu)", 3, 2,
      cond=lambda c: int(c.facts.one_suit and c.facts.has_honor), scope=_HAND),
    Y("junchan", "純全帯么九", "Terminals in every set (junchan)", 3, 2, cond=_junchan),
    Y("ryanpeikou", "二盃口", "Twice pure double run (ryanpeikou)", 3, 0,
      cond=lambda c: int(_std(c) and _peikou(c) == 2)),
    Y("chinitsu", "清一色", "Full flush (chinitsu)", 6, 5,
      cond=lambda c: int(c.facts.one_suit and not c.facts.has_honor), scope=_HAND),
    Y("renhou", "人和", "Blessing of man (renhou)", 0, 0, 1, switch="hand.renhou",
      cond=lambda c: int(c.inp.renhou and c.rules.renhou != "off"), scope=_SITUATION),
    # yakuman
    Y("tenhou", "天和", "Blessing of heaven (tenhou)", 0, 0, 1,
      cond=lambda c: int(c.inp.tenhou), scope=_SITUATION),
    Y("chiihou", "地和", "Blessing of earth (chiihou)", 0, 0, 1,
      cond=lambda c: int(c.inp.chiihou), scope=_SITUATION),
    Y("kokushi", "国士無双", "Thirteen orphans (kokushi musou)", 0, 0, 1, switch=_DOUBLE,
      cond=_kokushi),
    Y("kokushi_13", "国士無双十三面待ち", "Thirteen orphans, 13-sided wait", 0, 0, 2,
      switch=_DOUBLE, cond=_kokushi_13),
    Y("suuankou", "四暗刻", "Four concealed triplets (suuankou)", 0, 0, 1, switch=_DOUBLE,
      cond=_suuankou, scope=_WAIT),
    Y("suuankou_tanki", "四暗刻単騎", "Four concealed triplets, pair wait", 0, 0, 2,
      switch=_DOUBLE, cond=_suuankou_tanki, scope=_WAIT),
    Y("daisangen", "大三元", "Big three dragons (daisangen)", 0, 0, 1,
      cond=lambda c: int(len(c.trips & _DRAGON_SET) == 3)),
    Y("shousuushii", "小四喜", "Little four winds (shousuushii)", 0, 0, 1,
      cond=lambda c: int(_std(c) and c.pair in WINDS and _winds_trips(c) == 3)),
    Y("daisuushii", "大四喜", "Big four winds (daisuushii)", 0, 0, 1, switch=_DOUBLE,
      cond=_daisuushii),
    Y("tsuuiisou", "字一色", "All honours (tsuuiisou)", 0, 0, 1,
      cond=lambda c: int(c.facts.all_honor), scope=_HAND),
    Y("ryuuiisou", "緑一色", "All green (ryuuiisou)", 0, 0, 1,
      switch="hand.ryuuiisou_needs_hatsu", cond=_ryuuiisou, scope=_HAND),
    Y("chinroutou", "清老頭", "All terminals (chinroutou)", 0, 0, 1,
      cond=lambda c: int(c.facts.all_terminal), scope=_HAND),
    Y("chuuren", "九蓮宝燈", "Nine gates (chuuren poutou)", 0, 0, 1, switch=_DOUBLE,
      cond=_chuuren, scope=_HAND),
    Y("junsei_chuuren", "純正九蓮宝燈", "Pure nine gates (junsei chuuren poutou)", 0, 0, 2,
      switch=_DOUBLE, cond=_junsei, scope=_HAND),
    Y("suukantsu", "四槓子", "Four kans (suukantsu)", 0, 0, 1,
      cond=lambda c: int(_kans(c) == 4)),
    # counted by scoring.hand, listed here for the rules reference
    Y("dora", "ドラ", "Dora", 1, 1, switch="hand.dora_as_han, hand.kan_dora"),
    Y("aka", "赤ドラ", "Red five (aka dora)", 1, 1,
      switch="table.red_fives, hand.red_five_is_yaku"),
    Y("ura", "裏ドラ", "Ura dora", 1, 0, switch="hand.ura_dora"),
    Y("nukidora", "抜きドラ", "North or flower set aside (nukidora)", 1, 1,
      switch="hand.nukidora"),
    Y("pocchi", "白ポッチ", "White pocchi (wild tile)", 0, 0, switch="hand.pocchi"),
)

YAKU_IDS: Final = frozenset(y.id for y in YAKU)
BY_ID: Final = {y.id: y for y in YAKU}
CONDITIONAL: Final = tuple(y for y in YAKU if y.cond is not None)

_RENHOU: Final = {"yakuman": (0, 0, 1), "baiman": (8, 0, 0), "mangan": (5, 0, 0), "off": (0, 0, 0)}


def _value(y: Yaku, hr: Any) -> tuple[int, int, int]:
    """(closed han, open han, yakuman) of one yaku under hand rules ``hr``."""
    closed, opened, ym = y.han_closed, y.han_open, y.yakuman
    if y.id == "tanyao" and not hr.kuitan:
        opened = 0
    elif y.id == "pinfu" and hr.open_pinfu:
        opened = 1
    elif y.id == "renhou":
        closed, opened, ym = _RENHOU[hr.renhou]
    if y.id in hr.han_override:
        closed, opened = hr.han_override[y.id]
    return closed, opened, ym


def han_table(hr: Any) -> tuple[Any, ...]:
    """``(per_hand, per_reading)``: ``((yaku, closed, open, yakuman, per_wait), ...)`` for
    every conditional yaku under these hand rules, split by scope; computed once per rule
    object. ``per_wait``: the yaku reads the wait (scope "wait"), so each wait of a reading
    checks it again."""
    hit: tuple[Any, ...] | None = hr.memo.get("han_table")
    if hit is not None:
        return hit
    rows = [(y,) + _value(y, hr) + (y.scope == _WAIT,) for y in CONDITIONAL]
    rows = [
        r for r in rows if r[1] or r[2] or r[3]
    ]  # a yaku worth nothing under these rules is never checked
    per_hand = (_SITUATION, _HAND)
    table = (
        tuple(r for r in rows if r[0].scope in per_hand),
        _grouped([r for r in rows if r[0].scope not in per_hand]),
    )
    hr.memo.put("han_table", table)
    return table


# reading yaku by what a reading must have for them to be possible; a reading without
# runs skips every run yaku, one without triplets every triplet yaku
_NEEDS_RUNS: Final = {"pinfu", "iipeikou", "sanshoku", "ittsu", "chanta", "junchan", "ryanpeikou"}
_FORM_ONLY: Final = {"chiitoitsu", "kokushi", "kokushi_13"}

# Finer: (runs, triplets or kans, honour triplets) a four-set reading needs at least for the
# yaku to be possible. Each is implied by the yaku's condition (ryanpeikou: four runs;
# shousangen: two dragon triplets; ...), so skipping the check when a reading falls short
# changes no result, and most readings check a handful of conditions instead of twenty.
# A yaku not listed here is always checked.
NEEDS: Final = {
    "pinfu": (4, 0, 0),
    "iipeikou": (2, 0, 0),
    "ryanpeikou": (4, 0, 0),
    "sanshoku": (3, 0, 0),
    "ittsu": (3, 0, 0),
    "chanta": (1, 0, 0),
    "junchan": (1, 0, 0),
    "yakuhai_haku": (0, 1, 1),
    "yakuhai_hatsu": (0, 1, 1),
    "yakuhai_chun": (0, 1, 1),
    "yakuhai_seat_wind": (0, 1, 1),
    "yakuhai_round_wind": (0, 1, 1),
    "yakuhai_north": (0, 1, 1),
    "toitoi": (0, 4, 0),
    "sanankou": (0, 3, 0),
    "sankantsu": (0, 3, 0),
    "sanshoku_doukou": (0, 3, 0),
    "shousangen": (0, 2, 2),
    "suuankou": (0, 4, 0),
    "suuankou_tanki": (0, 4, 0),
    "daisangen": (0, 3, 3),
    "shousuushii": (0, 3, 3),
    "daisuushii": (0, 4, 4),
    "suukantsu": (0, 4, 0),
}


def _grouped(rows: list[Any]) -> tuple[Any, ...]:
    """``(runs, triplets, special forms)`` row groups of the reading yaku."""
    runs = tuple(r for r in rows if r[0].id in _NEEDS_RUNS)
    forms = tuple(r for r in rows if r[0].id in _FORM_ONLY)
    trips = tuple(r for r in rows if r[0].id not in _NEEDS_RUNS and r[0].id not in _FORM_ONLY)
    return runs, trips, forms


def _possible(row: Any, runs: int, honours: int) -> bool:
    need = NEEDS.get(row[0].id, (0, 0, 0))
    return need[0] <= runs and need[1] <= 4 - runs and need[2] <= honours


def gated_rows(hr: Any) -> dict[tuple[int, int], tuple[Any, ...]]:
    """``{(runs, honour triplets): rows}`` for four-set readings: the reading yaku of
    :func:`han_table` (runs group, then triplets group, registry order within each) that such
    a reading can have (see :data:`NEEDS`); computed once per rule object."""
    hit: dict[tuple[int, int], tuple[Any, ...]] | None = hr.memo.get("gated_rows")
    if hit is not None:
        return hit
    runs_rows, trip_rows, _forms = han_table(hr)[1]
    table: dict[tuple[int, int], tuple[Any, ...]] = {}
    for runs in range(5):
        for honours in range(5 - runs):
            table[(runs, honours)] = tuple(
                r for r in runs_rows + trip_rows if _possible(r, runs, honours)
            )
    hr.memo.put("gated_rows", table)
    return table


def reference() -> list[dict[str, Any]]:
    """Every yaku as a plain dict for docs/rules.md: id, ja, han closed/open, yakuman, switch."""
    return [
        {
            "id": y.id,
            "ja": y.ja,
            "en": y.en,
            "han_closed": y.han_closed,
            "han_open": y.han_open,
            "yakuman": y.yakuman,
            "switch": y.switch,
        }
        for y in YAKU
    ]
