"""One riichi hand: parsed into a typed input, scored into a typed result.

    parse_input(line: dict, rules) -> HandInput      # raises ScoringError, naming the problem
    score(inp: HandInput, rules) -> HandResult       # never raises: result.error says why not
    score_hand(line: dict, rules) -> dict            # both, as the batch contract's objects

:func:`parse_input` turns an input line (``docs/contracts/scoring-batch.md``) into a
:class:`HandInput`, refusing anything that cannot be (with a message a person can act
on); :func:`score` finds every reading of the hand (4 sets + pair with every wait the
winning tile can complete, seven pairs, thirteen orphans), scores each with the yaku
registry (:mod:`scoring.yaku`) and the fu rules (:mod:`scoring.fu`), and keeps the one
worth most (高点法: the most points, then the most han, then the most fu). Points come
from :mod:`scoring.points`, chips from :mod:`scoring.chips`. A hand that cannot be won
comes back as a :class:`HandResult` whose ``error`` is a :class:`HandError` (as the
``mahjong`` library's HandResponse carries its error), not as an exception.

Beyond the contract's fields (which it may extend, never rename):

* input ``ankan_chankan``: the win robs a *closed* kan (only thirteen orphans
  may, and only where ``hand.kokushi_ankan_chankan`` allows it);
* input ``pocchi``: the winning tile, written as any tile (e.g. ``5z``), is the
  wild pocchi; the best tile is chosen and reported as ``pocchi_as``;
* output ``fu_detail`` (``[[reason, fu], ...]``, adding up to ``fu``), ``wait``
  (ryanmen, kanchan, penchan, tanki, shanpon, kokushi) and ``dora_count``
  (dora + ura + nukidora tiles, what ``points.dora_per_tile`` pays for).

The JSON Lines runtime around this (``python -m scoring batch``) is :mod:`scoring.batch`.
"""

from __future__ import annotations

from typing import Any, Callable, Final, Iterable

from . import decompose as dec
from . import points
from .chips import award_chips
from .errors import InvalidInput, InvalidTiles, ScoringError
from .fu import fu_breakdown
from .memo import Memo
from .rules import HandRules, Rules, load_rules
from .tiles import (
    EAST,
    HATSU,
    NORTH,
    WIND_LETTERS,
    check_copies,
    counts34,
    kind,
    parse_meld,
    parse_tiles,
    tile_to_str,
)
from .yaku import GREEN, Ctx, gated_rows, han_table, yakuhai_kinds

BOOL_FIELDS: Final = (
    "tsumo",
    "riichi",
    "double_riichi",
    "open_riichi",
    "ippatsu",
    "rinshan",
    "chankan",
    "haitei",
    "houtei",
    "tenhou",
    "chiihou",
    "renhou",
    "pocchi",
    "ankan_chankan",
)
INT_FIELDS: Final = ("nukidora", "honba", "kyoutaku")
_INPUT_COPIED: Final = (*BOOL_FIELDS, *INT_FIELDS, "seat_wind", "round_wind", "dora", "ura",
                         "flags")
_FLAG_BIT: Final = {name: 1 << i for i, name in enumerate(BOOL_FIELDS)}  # HandInput.flags
_CHUUREN: Final = (3, 1, 1, 1, 1, 1, 1, 1, 3)
_HONORS: Final = frozenset(range(27, 34))
_TERMINALS: Final = frozenset((0, 8, 9, 17, 18, 26))
_YAOCHUU: Final = _HONORS | _TERMINALS
_SUITS: Final = tuple(frozenset(range(b, b + 9)) for b in (0, 9, 18))
_KIND: Final = tuple(range(34)) + (4, 13, 22)  # tile int -> kind (red fives are fives)
_KIND_OF: Final = dict(enumerate(_KIND)).__getitem__
_REDS: Final = frozenset((34, 35, 36))
# the error codes of the batch contract; any other refusal is reported as invalid_input
CONTRACT_CODES: Final = frozenset(("no_yaku", "not_agari", "invalid_tiles", "below_minimum"))


class HandError(ScoringError):
    """A hand that parses but cannot be won (not_agari, no_yaku, below_minimum)."""

    def __init__(self, message: str, code: str, reason: str = "", **values: Any) -> None:
        # ScoringError.__init__'s work, here so that it is compiled with this module
        Exception.__init__(self, message)
        self.message = message
        self.code = code
        self.reason = reason or code
        self.values = values


class HandInput:
    """A parsed, validated input line. Tiles are tile ints (see :mod:`scoring.tiles`).

    A plain class, not a dataclass: compiled, its ``__init__`` runs as C (a dataclass's
    generated one stays Python), and one is made for every line."""

    hand: list[int]
    win: int
    melds: list[Any]
    tsumo: bool
    riichi: bool
    double_riichi: bool
    open_riichi: bool
    ippatsu: bool
    rinshan: bool
    chankan: bool
    haitei: bool
    houtei: bool
    tenhou: bool
    chiihou: bool
    renhou: bool
    pocchi: bool
    ankan_chankan: bool
    seat_wind: int
    round_wind: int
    dora: list[int]
    ura: list[int]
    nukidora: int
    honba: int
    kyoutaku: int
    flags: int  # the true BOOL_FIELDS as bits (_FLAG_BIT): one small key for memos

    def __init__(self, hand: list[int], win: int, melds: list[Any] | None = None) -> None:
        self.hand = hand
        self.win = win
        self.melds = [] if melds is None else melds
        self.tsumo = self.riichi = self.double_riichi = self.open_riichi = False
        self.ippatsu = self.rinshan = self.chankan = self.haitei = self.houtei = False
        self.tenhou = self.chiihou = self.renhou = self.pocchi = self.ankan_chankan = False
        self.seat_wind = self.round_wind = EAST
        self.dora = []
        self.ura = []
        self.nukidora = self.honba = self.kyoutaku = 0
        self.flags = 0

    def but(self, hand: list[int], win: int) -> HandInput:
        """A copy with other tiles in the hand and another winning tile, not won on pocchi."""
        other = HandInput(hand, win, self.melds)
        for name in _INPUT_COPIED:
            setattr(other, name, getattr(self, name))
        other.pocchi = False
        other.flags &= ~_FLAG_BIT["pocchi"]
        return other

    def set_flag(self, name: str, value: bool) -> None:
        """Set one of :data:`BOOL_FIELDS` (keeping ``flags`` in step)."""
        setattr(self, name, value)
        if value:
            self.flags |= _FLAG_BIT[name]
        else:
            self.flags &= ~_FLAG_BIT[name]

    @property
    def dealer(self) -> bool:
        return self.seat_wind == 27

    @property
    def any_riichi(self) -> bool:
        return self.riichi or self.double_riichi or self.open_riichi

    @property
    def closed(self) -> bool:
        for m in self.melds:  # a loop, not any(genexpr): this is asked several times per hand
            if m.opened:
                return False
        return True

    @property
    def kans(self) -> int:
        return sum(1 for m in self.melds if m.is_kan)


class HandResult:
    """What a hand is worth, or why it cannot be won (``error``, None for a win).

    ``yaku`` is ``[(id, han, yakuman), ...]``, ``fu_detail`` ``[(reason, fu), ...]``,
    ``value`` the :class:`scoring.points.HandValue` (limit, value, pay), ``chips`` what
    :func:`scoring.chips.award_chips` gives for the win and ``facts`` what it read.
    Each reading of a hand is scored into one of these and the best is kept.

    A plain class for the reason :class:`HandInput` is: one is made for every reading."""

    def __init__(
        self,
        han: int,
        fu: int,
        yakuman: int,
        yaku: list[tuple[str, int, int]],
        fu_detail: list[tuple[str, int]],
        wait: str,
        form: str,
        kazoe: bool = False,
        yakuless: bool = False,
    ) -> None:
        self.han = han
        self.fu = fu
        self.yakuman = yakuman
        self.yaku = yaku
        self.fu_detail = fu_detail
        self.wait = wait
        self.form = form
        self.kazoe = kazoe
        self.yakuless = yakuless
        self.dora_count = 0
        self.facts: dict[str, Any] = {}
        self.value: Any = None  # a points.HandValue once the reading is priced
        self.pocchi_as: int | None = None
        self.chips: dict[str, Any] = {}
        self.honba_bonus = 0
        self.kyoutaku_bonus = 0
        self.error: HandError | None = None

    @staticmethod
    def failed(error: HandError) -> HandResult:
        """The result of a hand that cannot be won."""
        out = HandResult(0, 0, 0, [], [], "", "")
        out.error = error
        return out

# --------------------------------------------------------------------------- parsing
def _field(line: dict[str, Any], name: str, default: Any, fits: Callable[[Any], bool],
           words: str, reason: str) -> Any:
    """Field ``name`` of a hand line, ``default`` when absent; a value that does not fit
    is refused with the field named and what it takes."""
    v = line.get(name)
    if v is None:
        return default
    if not fits(v):
        raise InvalidInput(f"'{name}' must be {words}, not {v!r}", reason=reason, field=name,
                           value=repr(v))
    return v


def _bool(line: dict[str, Any], name: str) -> bool:
    return bool(_field(line, name, False, lambda v: isinstance(v, bool), "true or false",
                       "field_not_bool"))


def _int(line: dict[str, Any], name: str) -> int:
    return int(_field(line, name, 0,
                      lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1000,
                      "a whole number from 0 to 1000", "field_not_count"))


def _wind(line: dict[str, Any], name: str) -> int:
    letter = _field(line, name, "E", lambda v: isinstance(v, str) and v in WIND_LETTERS,
                    'one of "E", "S", "W", "N"', "field_not_wind")
    return WIND_LETTERS[letter]


_DIGITS: Final = {
    letter: {str(d): t for d, t in zip(range(10), table, strict=False)}
    for letter, table in (
        ("m", (34, 0, 1, 2, 3, 4, 5, 6, 7, 8)),
        ("p", (35, 9, 10, 11, 12, 13, 14, 15, 16, 17)),
        ("s", (36, 18, 19, 20, 21, 22, 23, 24, 25, 26)),
        ("z", (None, 27, 28, 29, 30, 31, 32, 33)),
    )
}
_PARSED: Final = Memo(4096)  # tile text -> tiles
_SEGMENTS: Final = Memo(4096)  # one suit's piece of tile text ("406s") -> its tiles


def _segment(seg: str) -> tuple[Any, ...] | None:
    """The tiles of one ``digits + suit letter`` piece such as ``"406s"``, or None."""
    table = _DIGITS.get(seg[-1:])
    if table is None or len(seg) < 2:
        return None
    out = []
    for d in seg[:-1]:
        t = table.get(d)
        if t is None:
            return None
        out.append(t)
    segment = tuple(out)
    _SEGMENTS.put(seg, segment)
    return segment


def _fast_tiles(text: str) -> tuple[Any, ...] | None:
    """The tiles of plain well-formed ``mpsz`` text, or None to let the strict parser
    explain what is wrong. Batches repeat indicator strings, so results are memoized.

    A hand is cut after each suit letter by C string methods, and each piece ("123m")
    is looked up: the pieces of different hands recur far more often than whole hands,
    so the per-character work is done once per piece, not once per hand."""
    hit: tuple[Any, ...] | None = _PARSED.get(text)
    if hit is not None:
        return hit
    cut = text.replace("m", "m,").replace("p", "p,").replace("s", "s,").replace("z", "z,")
    pieces = cut.split(",")
    if pieces.pop():  # the text must end with a suit letter
        return None
    out: tuple[Any, ...] = ()
    for seg in pieces:
        tiles = _SEGMENTS.get(seg) or _segment(seg)
        if tiles is None:
            return None
        out += tiles
    _PARSED.put(text, out)
    return out


def _tiles(line: dict[str, Any], name: str, required: bool = False) -> list[int]:
    v = line.get(name)
    if v is None or (v == "" and not required):
        if required:
            raise InvalidInput(f"'{name}' is missing: give the tiles, like \"123m456p789s11z\"",
                               reason="tiles_missing", field=name)
        return []
    if type(v) is str and v:
        fast = _fast_tiles(v)
        if fast is not None:
            return list(fast)
    try:
        return parse_tiles(v, allow_flowers=False)
    except InvalidTiles as e:
        raise InvalidTiles(f"'{name}': {e.message}", reason=e.reason, field=name,
                           **e.values) from None


_MELDS: Final = Memo(4096)  # (type, tiles, from) -> Meld


def _meld(obj: Any) -> Any:
    """parse_meld, memoized on the meld's fields (the same melds recur across a batch)."""
    if type(obj) is dict and len(obj) <= 3:
        mtype, tiles, frm = key = (obj.get("type"), obj.get("tiles"), obj.get("from"))
        if type(mtype) is str and type(tiles) is str and (frm is None or type(frm) is str):
            hit = _MELDS.get(key)
            if hit is None:
                hit = _MELDS.put(key, parse_meld(obj))  # raises for a bad meld: nothing kept
            return hit
    return parse_meld(obj)


def parse_input(
    line: Any,
    rules: Rules,
    *,
    tsumo: bool | None = None,
    seat_wind: str | None = None,
    round_wind: str | None = None,
) -> HandInput:
    """Validate one input line against the rules; raise a :class:`ScoringError` if it is wrong.

    ``tsumo``, ``seat_wind`` and ``round_wind`` are facts the caller knows (a game knows who
    discarded and where each player sits); given, they stand in place of the line's fields."""
    if not isinstance(line, dict):
        raise InvalidInput('each line must be a JSON object like {"hand": "...", "win": "..."}',
                           reason="line_not_object")
    hand = _tiles(line, "hand", required=True)
    win_tiles = _tiles(line, "win", required=True)
    if len(win_tiles) != 1:
        raise InvalidTiles(f"'win' must be exactly one tile, like \"5p\", not {line.get('win')!r}",
                           reason="win_not_one_tile", value=repr(line.get("win")))
    melds = line.get("melds") or []
    if not isinstance(melds, list):
        raise InvalidInput('\'melds\' must be a list of {"type": ..., "tiles": ...} objects',
                           reason="melds_not_list")
    inp = HandInput(hand=hand, win=win_tiles[0], melds=list(map(_meld, melds)) if melds else [])
    _set_flags(inp, line)
    for name in INT_FIELDS:
        v = line.get(name)
        if v is not None and (type(v) is not int or v):  # 0 is the default; anything odd is checked
            setattr(inp, name, _int(line, name))
    inp.seat_wind = _wind(line, "seat_wind") if seat_wind is None else WIND_LETTERS[seat_wind]
    inp.round_wind = _wind(line, "round_wind") if round_wind is None else WIND_LETTERS[round_wind]
    if tsumo is not None:
        inp.set_flag("tsumo", tsumo)
    if line.get("dora"):  # absent or "": no indicators (the default)
        inp.dora = _tiles(line, "dora")
    if line.get("ura"):
        inp.ura = _tiles(line, "ura")
    _check_tiles(inp, rules)
    _check_flags(inp, rules)
    return inp


_BOOL_SET: Final = frozenset(BOOL_FIELDS)


def _set_flags(inp: HandInput, line: dict[str, Any]) -> None:
    """Copy the true flags; any value but true, false or null is refused, the first bad one
    in BOOL_FIELDS order named (the set intersection is made in C: a line names few flags)."""
    bad = False
    for name in _BOOL_SET.intersection(line):
        v = line[name]
        if v is True:
            setattr(inp, name, True)
            inp.flags |= _FLAG_BIT[name]
        elif v is not None and v is not False:
            bad = True
    if bad:
        for name in BOOL_FIELDS:
            _bool(line, name)


def _check_tiles(inp: HandInput, rules: Rules) -> None:
    t, h = rules.table, rules.hand
    need = 14 - 3 * len(inp.melds)
    if len(inp.hand) != need:
        raise InvalidTiles(
            f"the hand has {len(inp.hand)} tiles but with {len(inp.melds)} meld(s) it needs {need} "
            "(14 minus 3 per meld, the winning tile included)",
            reason="hand_size", count=len(inp.hand), melds=len(inp.melds), need=need,
        )
    if inp.win not in inp.hand:
        raise InvalidTiles(
            f"the winning tile {tile_to_str(inp.win)} is not in the hand: include it in 'hand'",
            reason="win_not_in_hand", tile=tile_to_str(inp.win),
        )
    if inp.melds and not t.allow_chi and any(m.type == "chi" for m in inp.melds):
        raise InvalidInput("this rule set has no chi (three-player): a chi cannot be in the hand",
                           reason="no_chi", switch="table.allow_chi")
    every = inp.hand[:]  # in this order: a refusal names the first bad tile
    for m in inp.melds:
        every += m.tiles
    every += inp.dora
    every += inp.ura
    removed = derived(rules).removed
    if not _copies_ok(every, t, removed):
        # the slow checks name the problem
        check_copies(every, red_fives=tuple(t.red_fives))
        _check_plain_fives(every, t.red_fives)
        bad = [x for x in every if kind(x) in removed]
        raise InvalidTiles(
            f"{tile_to_str(bad[0])} is not in this rule set's tiles "
            f"(table.removed_tiles = {t.removed_tiles!r})",
            reason="tile_removed", tile=tile_to_str(bad[0]), value=t.removed_tiles,
            switch="table.removed_tiles",
        )
    if len(inp.dora) > (5 if h.kan_dora else 1):
        if h.kan_dora:
            raise InvalidInput("too many dora indicators: at most 5 (one plus four kan dora)",
                               reason="too_many_dora", count=len(inp.dora))
        raise InvalidInput(
            "too many dora indicators: this rule set has no kan dora, give only the first "
            "indicator", reason="no_kan_dora", count=len(inp.dora), switch="hand.kan_dora",
        )
    if len(inp.ura) > max(len(inp.dora), 1):
        raise InvalidInput("there are more ura-dora indicators than dora indicators",
                           reason="too_many_ura", count=len(inp.ura), dora=len(inp.dora))
    _check_nukidora(inp, rules, every)


class Derived:
    """What scoring a hand needs from a rule set beyond its switches, worked out once per
    rule set (:func:`derived`): the kinds left out of the set, the dora each indicator
    points at, and the yaku rows to check."""

    def __init__(self, rules: Rules) -> None:
        text = rules.table.removed_tiles
        tiles = parse_tiles(text, allow_flowers=False) if text else []
        self.removed: frozenset[Any] = frozenset(kind(x) for x in tiles)
        self.dora_of: tuple[Any, ...] = _dora_of(self.removed)
        per_hand, per_reading = han_table(rules.hand)
        self.fixed_rows: tuple[Any, ...] = per_hand  # situation and whole-hand yaku
        # reading yaku of a four-set reading, by (runs, honour triplets)
        self.gated: dict[tuple[int, int], tuple[Any, ...]] = gated_rows(rules.hand)
        self.forms: tuple[Any, ...] = per_reading[2]  # seven pairs and thirteen orphans


def derived(rules: Rules) -> Derived:
    """The :class:`Derived` of ``rules``, kept with them."""
    hit: Derived | None = rules.memo.get("derived")
    if hit is None:
        hit = Derived(rules)
        rules.memo.put("derived", hit)
    return hit


def removed_kinds(rules: Rules) -> frozenset[Any]:
    """Kinds the rule set's tiles leave out (``table.removed_tiles``; three-player: 2m-8m)."""
    return derived(rules).removed


def _copies_ok(every: list[int], t: Any, removed: frozenset[Any]) -> bool:
    """One counting pass for the common case that every copy limit holds."""
    c = [0] * 37
    for x in every:
        c[x] += 1
    reds = t.red_fives
    for s in range(3):
        if c[34 + s] > reds[s] or c[9 * s + 4] > 4 - reds[s]:
            return False
    if max(c) > 4:
        return False
    # kinds 0..33 are their plain tiles' ints, so this finds any plain tile of a removed kind
    return removed.isdisjoint(every)


def _check_plain_fives(every: list[int], red_fives: Iterable[int]) -> None:
    """With n red fives in a suit there are only 4 - n plain ones."""
    for s, reds in enumerate(red_fives):
        plain = sum(1 for x in every if x == 9 * s + 4)
        if plain > 4 - reds:
            name = "mps"[s]
            raise InvalidTiles(
                f"{plain} plain 5{name}: this set has {reds} red 5{name} "
                f"and only {4 - reds} plain ones; "
                f"write the red one as 0{name}",
                reason="too_many_plain_fives", count=plain, tile=f"5{name}", red=f"0{name}",
                reds=reds, plain=4 - reds,
            )


def _check_nukidora(inp: HandInput, rules: Rules, every: list[int]) -> None:
    mode = rules.hand.nukidora
    if inp.nukidora and mode == "none":
        raise InvalidInput("this rule set has no nukidora (抜きドラ): leave 'nukidora' at 0",
                           reason="no_nukidora", switch="hand.nukidora")
    if mode == "north" and inp.nukidora + every.count(NORTH) > 4:
        raise InvalidTiles("more than 4 North tiles counting the ones set aside as nukidora",
                           reason="too_many_norths", count=inp.nukidora + every.count(NORTH))
    if mode == "flowers" and inp.nukidora > rules.table.flowers:
        raise InvalidInput(f"there are only {rules.table.flowers} flowers to set aside as nukidora",
                           reason="too_many_flowers", count=inp.nukidora,
                           flowers=rules.table.flowers)


def _flag_problems(inp: HandInput, rules: Rules) -> list[tuple[str, str]]:
    """``(reason, message)`` of every flag that contradicts the hand, another flag or the
    rules."""
    h = rules.hand
    problems = []
    if inp.any_riichi and not inp.closed:
        problems.append(("riichi_open_hand",
                         "riichi needs a closed hand, but a meld other than a closed kan is open"))
    if inp.open_riichi and not h.open_riichi:
        problems.append(("no_open_riichi", "this rule set has no open riichi"))
    if inp.ippatsu and not inp.any_riichi:
        problems.append(("ippatsu_without_riichi", "ippatsu needs riichi"))
    if inp.tsumo and (inp.chankan or inp.houtei or inp.renhou or inp.ankan_chankan):
        problems.append(("ron_flag_on_tsumo",
                         "chankan, houtei and renhou are ron wins: set 'tsumo' to false"))
    if not inp.tsumo and (inp.rinshan or inp.haitei or inp.tenhou or inp.chiihou):
        problems.append(("tsumo_flag_on_ron",
                         "rinshan, haitei, tenhou and chiihou are tsumo wins: set 'tsumo' to true"))
    if inp.rinshan and not inp.kans and not (inp.nukidora and h.nukidora != "none"):
        problems.append(("rinshan_without_replacement",
                         "rinshan is a win on the tile drawn after a kan"
                         + (" or after setting a tile aside as nukidora" if h.nukidora != "none"
                            else "")
                         + ", and this hand has none: leave 'rinshan' out"))
    if inp.rinshan and inp.haitei:
        problems.append(("rinshan_and_haitei", "rinshan and haitei cannot both be true"))
    if inp.chankan and inp.houtei:
        problems.append(("chankan_and_houtei", "chankan and houtei cannot both be true"))
    if (inp.tenhou or inp.chiihou or inp.renhou) and inp.melds:
        problems.append(("first_turn_win_with_calls",
                         "tenhou, chiihou and renhou need a hand with no calls"))
    problems += _after_nukidora(inp, h)
    if inp.tenhou and not inp.dealer:
        problems.append(("tenhou_not_dealer",
                         'tenhou is the dealer\'s (seat_wind "E"); use chiihou'))
    if (inp.chiihou or inp.renhou) and inp.dealer:
        problems.append(("chiihou_dealer",
                         "chiihou and renhou are for non-dealers; the dealer's is tenhou"))
    if inp.pocchi and not (h.pocchi and inp.any_riichi and inp.tsumo):
        problems.append(("pocchi_not_wild",
                         "the pocchi tile is wild only in rules with pocchi, after riichi, on a "
                         "tsumo"))
    if inp.ankan_chankan and not h.kokushi_ankan_chankan:
        problems.append(("no_ankan_chankan", "this rule set does not allow robbing a closed kan"))
    if rules.table.players == 3 and inp.seat_wind == NORTH:
        problems.append(("north_seat_in_sanma", "three-player seats are E, S and W"))
    return problems


def _after_nukidora(inp: HandInput, h: HandRules) -> list[tuple[str, str]]:
    """Flags a tile set aside as nukidora has ended where the rules say so (002 3A
    「北を抜くと一発, 天和, 地和, 人和の権利は消滅します。」). The count cannot say whether a
    North came before the riichi, so ippatsu is refused only on a win on the tile that
    replaced one (rinshan with no kan)."""
    problems: list[tuple[str, str]] = []
    if not (h.nukidora_ends_first_turn and inp.nukidora):
        return problems
    if inp.tenhou or inp.chiihou or inp.renhou:
        problems.append(("first_turn_after_nukidora",
                         "in these rules a tile set aside as nukidora ends the rights to tenhou, "
                         "chiihou and renhou: leave them out"))
    if inp.ippatsu and inp.rinshan and not inp.kans:
        problems.append(("ippatsu_after_nukidora",
                         "in these rules a tile set aside as nukidora ends the right to ippatsu, "
                         "and this win is on the tile that replaced it: leave ippatsu out"))
    return problems


def _check_flags(inp: HandInput, rules: Rules) -> None:
    problems = _flag_problems(inp, rules)
    if problems:
        raise InvalidInput("; ".join(m for _, m in problems), reason=problems[0][0])
    if inp.rinshan and not inp.kans and not rules.hand.nukidora_rinshan:
        # 002 3B: a tsumo on the tile drawn for a flower set aside is an ordinary tsumo
        # (「補充牌でのツモ上がりの場合、新たに嶺上開花はつきません。(空気扱い)」)
        inp.set_flag("rinshan", False)


# --------------------------------------------------------------------------- facts
# what HandFacts holds: every name but yakuhai is a flag a yaku predicate may read
_FACT_NAMES: Final = (
    "all_simple",
    "all_yaochuu",
    "all_terminal",
    "all_honor",
    "has_honor",
    "has_terminal",
    "one_suit",
    "all_green",
    "has_hatsu",
    "chuuren",
    "junsei",
    "kokushi_13",
    "yakuhai",
)


class HandFacts:
    """What is true of the hand as a whole, whatever the reading."""

    __slots__ = (*_FACT_NAMES, "bits")

    def __init__(self, inp: HandInput, rules: Rules, conc: tuple[Any, ...], kinds: set[Any]):
        """``conc``: the concealed tiles' sorted kinds; ``kinds``: every kind in the hand."""
        self.has_honor = honor = not kinds.isdisjoint(_HONORS)
        self.has_terminal = terminal = not kinds.isdisjoint(_TERMINALS)
        self.all_simple = not honor and not terminal
        self.all_yaochuu = yaochuu = kinds <= _YAOCHUU
        self.all_terminal = yaochuu and not honor
        man, pin, sou = _SUITS
        n_suits = (
            (not kinds.isdisjoint(man)) + (not kinds.isdisjoint(pin)) + (not kinds.isdisjoint(sou))
        )
        self.all_honor = not n_suits
        self.one_suit = n_suits == 1
        self.all_green = kinds <= GREEN
        self.has_hatsu = HATSU in kinds
        w = kind(inp.win)
        self.kokushi_13 = conc.count(w) == 2
        self.chuuren = self.junsei = False
        if not inp.melds and self.one_suit and not self.has_honor:
            base = conc[0] - conc[0] % 9
            c = [0] * 9
            for k in conc:
                c[k - base] += 1
            self.chuuren = all(n >= m for n, m in zip(c, _CHUUREN, strict=True))
            self.junsei = self.chuuren and c[w - base] - 1 == _CHUUREN[w - base]
        key = (inp.seat_wind, inp.round_wind, rules.hand.north_yakuhai)
        self.yakuhai = _YAKUHAI.get(key) or _yakuhai(key, inp, rules)
        # every flag as one int, in _FACT_NAMES order (not yakuhai: the winds give it)
        self.bits = (
            self.all_simple | self.all_yaochuu << 1 | self.all_terminal << 2
            | self.all_honor << 3 | honor << 4 | terminal << 5 | self.one_suit << 6
            | self.all_green << 7 | self.has_hatsu << 8 | self.chuuren << 9
            | self.junsei << 10 | self.kokushi_13 << 11
        )


_YAKUHAI: Final = Memo(64)  # (seat wind, round wind, North switch) -> yakuhai kinds


def _yakuhai(key: tuple[Any, ...], inp: HandInput, rules: Rules) -> frozenset[Any]:
    """yakuhai_kinds, memoized on the winds and the North switch it reads."""
    kinds = frozenset(yakuhai_kinds(inp, rules.hand))
    _YAKUHAI.put(key, kinds)
    return kinds


def _step(k: int) -> int:
    if k < 27:
        return k - k % 9 + (k % 9 + 1) % 9
    if k < 31:
        return 27 + (k - 27 + 1) % 4
    return 31 + (k - 31 + 1) % 3


def next_kind(k: int, removed: frozenset[Any] = frozenset()) -> int:
    """The dora an indicator of kind ``k`` points at: the next kind of its cycle that is
    in the set (three-player without 2m-8m: 1m -> 9m, 9m -> 1m; 000 (6) ネクスト牌)."""
    d = _step(k)
    while d in removed:
        d = _step(d)
    return d


def _dora_of(removed: frozenset[Any]) -> tuple[Any, ...]:
    """The dora kind each indicator tile (0..36, red fives too) points at."""
    return tuple(next_kind(kind(t), removed) for t in range(37))


def _count_indicated(indicators: Iterable[int], kinds: list[Any],
                     dora_of: tuple[Any, ...]) -> tuple[int, int]:
    """(dora in the hand, how many indicators point at North); ``kinds``: every tile's kind."""
    n = north = 0
    for t in indicators:
        d = dora_of[t]
        n += kinds.count(d)
        north += d == NORTH
    return n, north


def dora_counts(inp: HandInput, rules: Rules, kinds: list[Any], tiles: list[int],
                dora_of: tuple[Any, ...]) -> dict[str, Any]:
    """Dora, aka, ura and nukidora of the hand (a kan's four tiles all count); ``kinds`` are
    the kinds of ``tiles``, every tile of the hand; ``dora_of`` :attr:`Derived.dora_of`."""
    dora, north = _count_indicated(inp.dora, kinds, dora_of) if inp.dora else (0, 0)
    out = {
        "dora": dora,
        "aka": sum(map(_REDS.__contains__, tiles)),
        "ura": 0,
        "nukidora": inp.nukidora,
    }
    if rules.hand.nukidora == "north":
        # each North set aside is a dora, and is dora again for each indicator pointing at North
        out["dora"] += north * inp.nukidora
    if inp.any_riichi and rules.hand.ura_dora:
        ura, ura_north = _count_indicated(inp.ura, kinds, dora_of)
        out["ura"] = ura + (ura_north * inp.nukidora if rules.hand.nukidora == "north" else 0)
    return out


# --------------------------------------------------------------------------- readings
def _meld_sets(melds: Iterable[Any]) -> tuple[Any, ...]:
    out = []
    for m in melds:
        shape = dec.SEQ if m.type == "chi" else dec.TRIP
        out.append((shape, m.first, m.type == "ankan", m.is_kan))
    return tuple(out)


def contexts(inp: HandInput, rules: Rules, conc: tuple[Any, ...], facts: HandFacts) -> list[Ctx]:
    """Every reading of the hand with every wait of the winning tile; ``conc``: the
    concealed tiles' sorted kinds."""
    hr = rules.hand
    closed = inp.closed
    w = kind(inp.win)
    msets = _meld_sets(inp.melds)
    found, chiitoi, chiitoi_four, kokushi = dec.shape(conc)
    out = []
    if not inp.ankan_chankan:
        for pair, sets in found:
            first = None  # the reading's first wait: the others share its counts and yaku
            for idx, wait in dec.wait_slots(pair, sets, w):
                hs = sets
                if wait == dec.SHANPON and not inp.tsumo:
                    # a triplet completed by a ron counts as open (明刻, 002 符計算ガイド)
                    hs = sets[:idx] + ((dec.TRIP, w, False, False),) + sets[idx + 1 :]
                ctx = Ctx(inp, hr, facts, "std", hs + msets, pair, wait, closed, first)
                if first is None:
                    first = ctx
                out.append(ctx)
        if not inp.melds and (chiitoi_four if hr.chiitoitsu_four_of_a_kind else chiitoi):
            out.append(Ctx(inp, hr, facts, "chiitoi", (), None, dec.TANKI, True))
    if not inp.melds and kokushi:
        out.append(Ctx(inp, hr, facts, "kokushi", (), None, "kokushi", True))
    return out


def _reading_rows(ctx: Ctx, gated: dict[tuple[int, int], tuple[Any, ...]],
                  forms: tuple[Any, ...]) -> tuple[Any, ...]:
    """The reading yaku worth checking for this reading (see :func:`scoring.yaku.gated_rows`);
    ``gated`` and ``forms``: the rules' gated rows and seven pairs / thirteen orphans rows."""
    if ctx.form != "std":
        return forms
    return gated[(len(ctx.seqs), ctx.n_honours)]


def _yaku_of(ctx: Ctx, table: tuple[Any, ...], fixed: tuple[Any, ...] = ((), ()),
             known: list[Any] | None = None) -> tuple[list[Any], list[Any]]:
    """(ordinary [(id, han)], yakuman [(id, n)]) of one reading, after the ``fixed``
    ones found once for the whole hand. ``known``: what each row gave for another wait of
    the same reading (only the rows that read the wait are checked again)."""
    plain, ymn = list(fixed[0]), list(fixed[1])
    for i, (y, c_han, o_han, y_ym, per_wait) in enumerate(table):
        n = known[i] if known is not None and not per_wait else y.cond(ctx)
        if ctx.found is not None:
            ctx.found.append(n)
        if not n:
            continue
        if y_ym:
            ymn.append((y.id, n * y_ym))
            continue
        han = c_han if ctx.closed else o_han
        if han:
            plain.append((y.id, n * han))
    return plain, ymn


def _fixed_yaku(ctx: Ctx, rules: Rules, rows: tuple[Any, ...]) -> tuple[Any, ...]:
    """The situation and whole-hand yaku (``scope`` other than "reading" in the registry).
    They read only the flags, winds, closedness and hand facts, so they are checked once per
    such combination (few recur across a batch) instead of once per hand."""
    inp = ctx.inp
    # one int: the flags (14 bits), the winds (2 bits each), closedness, the hand facts
    key = inp.flags | (inp.seat_wind - 27) << 14 | (inp.round_wind - 27) << 16
    key |= ctx.closed << 18 | ctx.facts.bits << 19
    hit: tuple[Any, ...] | None = rules.memo.get(key)
    if hit is None:
        plain, ymn = _yaku_of(ctx, rows)
        hit = (tuple(plain), tuple(ymn))
        rules.memo.put(key, hit)
    return hit


def _bonus(dc: dict[str, Any], hr: Any) -> tuple[list[Any], list[Any]]:
    """(bonus entries that count as yaku, bonus entries that count only after a yaku)."""
    as_yaku: list[tuple[str, int]] = []
    after: list[tuple[str, int]] = []
    if dc["aka"]:
        (as_yaku if hr.red_five_is_yaku else after).append(("aka", dc["aka"]))
    if hr.dora_as_han:
        for name in ("dora", "ura", "nukidora"):
            if dc[name]:
                after.append((name, dc[name]))
    return as_yaku, after


def score_reading(ctx: Ctx, rules: Rules, bonus: tuple[Any, ...], fixed: tuple[Any, ...],
                  rows: tuple[Any, ...]) -> HandResult | None:
    """Han, fu and yaku of one reading; None if it has too few han to win. ``bonus`` is
    :func:`_bonus` of the hand, ``fixed`` its situation and whole-hand yaku, ``rows`` the
    reading yaku to check (:func:`_reading_rows`)."""
    known = ctx.first.found if ctx.first is not None else None
    plain, ymn = _yaku_of(ctx, rows, fixed, known)
    if ymn:
        n = sum(m for _, m in ymn) if rules.hand.yakuman_stacking else max(m for _, m in ymn)
        lines, fu = fu_breakdown(ctx, rules.fu, False)
        return HandResult(
            13 * n, fu, n, [(i, 13 * m, m) for i, m in ymn], lines, ctx.wait, ctx.form
        )
    as_yaku, after = bonus
    if as_yaku:
        plain += as_yaku
    yaku_han, pinfu = 0, False
    for i, h in plain:  # one loop, not sum() and any() over generators
        yaku_han += h
        pinfu = pinfu or i == "pinfu"
    if yaku_han < rules.hand.min_han or (not plain and rules.hand.min_han):
        return None
    han = yaku_han
    for _i, h in after:
        han += h
    plain += after
    lines, fu = fu_breakdown(ctx, rules.fu, pinfu)
    kazoe = han >= 13 and rules.hand.kazoe_yakuman
    return HandResult(
        han,
        fu,
        0,
        [(i, h, 0) for i, h in plain],
        lines,
        ctx.wait,
        ctx.form,
        kazoe,
        yakuless=yaku_han == 0,
    )

# --------------------------------------------------------------------------- evaluation
def _chip_facts(inp: HandInput, res: HandResult, dc: dict[str, Any]) -> dict[str, Any]:
    return {
        "ura": dc["ura"],
        "aka": dc["aka"],
        "ippatsu": int(inp.ippatsu and inp.any_riichi),
        "yakuman": res.yakuman,
        "kazoe": int(res.kazoe),
        "pocchi": int(inp.pocchi),
        "all_star": int(dc.get("aka_suits", 0) == 3),
        "tsumo": inp.tsumo,
        "closed": inp.closed,
        "dora": dc["dora"],
        "nukidora": dc["nukidora"],
    }


def _value(rules: Rules, res: HandResult, inp: HandInput) -> points.HandValue:
    """The price of a reading, memoized with the rules (a few small numbers decide it)."""
    dora = 0 if rules.hand.dora_as_han else res.dora_count
    key = ("value", res.han, res.fu, res.yakuman, inp.dealer, inp.tsumo, res.kazoe, dora)
    hit: points.HandValue | None = rules.memo.get(key)
    if hit is None:
        hit = rules.memo.put(key, points.hand_value(
            rules,
            han=res.han,
            fu=res.fu,
            yakuman=res.yakuman,
            dealer=inp.dealer,
            tsumo=inp.tsumo,
            kazoe=res.kazoe,
            dora=dora,
        ))
    return hit


def _best(cands: list[HandResult], rules: Rules, inp: HandInput) -> HandResult:
    """The reading worth most (高点法); ties go to more han, then more fu."""
    if len(cands) == 1 or len({(c.han, c.fu, c.yakuman) for c in cands}) == 1:
        best = cands[0]
        best.value = _value(rules, best, inp)
        return best
    for c in cands:
        c.value = _value(rules, c, inp)
    return max(cands, key=lambda c: (c.value.value, c.yakuman, c.han, c.fu))


def score(inp: HandInput, rules: Rules) -> HandResult:
    """Score a parsed hand: the best reading with its price, chips and the honba and
    deposits it collects, or a result whose ``error`` says why the hand is not a win."""
    res = _evaluate_pocchi(inp, rules) if inp.pocchi else _evaluate_tiles(inp, rules)
    if res.error is None:
        res.chips = chips_of(rules, res.facts)
        if inp.honba:
            res.honba_bonus = points.honba_bonus(
                rules, inp.honba, tsumo=inp.tsumo, yakuless=res.yakuless
            )["total"]
        if inp.kyoutaku:
            res.kyoutaku_bonus = points.deposit_bonus(rules, inp.kyoutaku)
    return res


def chips_of(rules: Rules, facts: dict[str, Any]) -> dict[str, Any]:
    """:func:`scoring.chips.award_chips`, memoized with the rules (a few small facts decide
    it). The dict is shared: do not change it."""
    key = ("chips",) + tuple(facts.values())
    hit: dict[str, Any] | None = rules.memo.get(key)
    if hit is None:
        hit = award_chips(rules, facts)
        rules.memo.put(key, hit)
    return hit


def _evaluate_tiles(inp: HandInput, rules: Rules) -> HandResult:
    kinds = _KIND_OF  # a dict's bound __getitem__: map calls it far faster than a tuple's
    conc = tuple(sorted(map(kinds, inp.hand)))  # in C: a 34-count list would be a Python loop
    tiles = inp.hand + [t for m in inp.melds for t in m.tiles] if inp.melds else inp.hand
    every = list(map(kinds, tiles))
    facts = HandFacts(inp, rules, conc, set(every))
    ctxs = contexts(inp, rules, conc, facts)
    if not ctxs:
        if inp.ankan_chankan:
            return HandResult.failed(HandError(
                "only thirteen orphans (kokushi) may rob a closed kan", "not_agari",
                "ankan_chankan_not_kokushi",
            ))
        return HandResult.failed(HandError(
            "these tiles are not a winning hand "
            "(four sets and a pair, seven pairs or thirteen orphans)",
            "not_agari",
        ))
    tables = derived(rules)
    dc = dora_counts(inp, rules, every, tiles, tables.dora_of)
    dc["aka_suits"] = len(_REDS.intersection(tiles)) if dc["aka"] else 0
    dora_count = dc["dora"] + dc["ura"] + dc["nukidora"]
    fixed = _fixed_yaku(ctxs[0], rules, tables.fixed_rows)
    bonus = _bonus(dc, rules.hand)
    gated, forms = tables.gated, tables.forms
    cands = []
    for i, ctx in enumerate(ctxs):
        if i + 1 < len(ctxs) and ctxs[i + 1].first is ctx:
            ctx.found = []  # another wait of this reading follows: keep what each row gives
        res = score_reading(ctx, rules, bonus, fixed, _reading_rows(ctx, gated, forms))
        if res is not None:
            res.dora_count = dora_count
            cands.append(res)
    if not cands:
        dora_only = bool(dc["dora"] or dc["aka"])
        extra = " (dora alone is not a yaku)" if dora_only else ""
        need = rules.hand.min_han
        return HandResult.failed(HandError(
            f"the hand has no yaku{extra}: it needs at least {need} han from yaku to win",
            "no_yaku", "no_yaku_dora" if dora_only else "no_yaku", min_han=need,
        ))
    best = _best(cands, rules, inp)
    best.facts = _chip_facts(inp, best, dc)
    return best


def _pocchi_choices(inp: HandInput, rules: Rules) -> list[int]:
    """Every tile the pocchi may stand for (red fives only where the rules say so)."""
    removed = removed_kinds(rules)
    out = [k for k in range(34) if k not in removed]
    if rules.hand.pocchi_as_red:
        out = [
            (34 + k // 9) if k in (4, 13, 22) and rules.table.red_fives[k // 9] else k for k in out
        ]
    return out


def _evaluate_pocchi(inp: HandInput, rules: Rules) -> HandResult:
    """The pocchi is wild: try every tile in its place and keep the best (002 4B/3B 白ポッチ)."""
    rest = list(inp.hand)
    rest.remove(inp.win)
    best: HandResult | None = None
    for t in _pocchi_choices(inp, rules):
        sub = inp.but(rest + [t], t)
        if counts34(sub.hand + [x for m in sub.melds for x in m.tiles])[kind(t)] > 4:
            continue
        res = _evaluate_tiles(sub, rules)
        if res.error is not None:
            continue
        res.pocchi_as = t
        res.facts["pocchi"] = 1
        if best is None or (res.value.value, res.han, res.fu) > (
            best.value.value,
            best.han,
            best.fu,
        ):
            best = res
    if best is None:
        return HandResult.failed(HandError(
            "no tile in place of the pocchi makes a winning hand with a yaku", "not_agari",
            "pocchi_no_win",
        ))
    return best


# --------------------------------------------------------------------------- contract objects
def line_rules(line: Any, rules: Any) -> Rules:
    """The rules a line is scored under: its own ``"rules"`` if it has one, else ``rules``
    (a :class:`Rules`, a preset id or a TOML path)."""
    if isinstance(line, dict) and line.get("rules") is not None:
        spec = line["rules"]
        if not isinstance(spec, (str, dict)):
            raise InvalidInput(
                "'rules' must be a preset id such as \"netmahjong\" or a mapping of switches",
                reason="line_rules_type", value=repr(spec),
            )
        return load_rules(spec)
    return rules if type(rules) is Rules else load_rules(rules)


def yaku_list(yaku: Iterable[Any]) -> list[dict[str, Any]]:
    """The contract's ``yaku`` list of ``[(id, han, yakuman), ...]``."""
    return [
        ({"name": i, "han": h, "yakuman": m} if m else {"name": i, "han": h}) for i, h, m in yaku
    ]


def result_line(line_id: Any, res: HandResult) -> dict[str, Any]:
    """The contract's output object of a scored hand (``res.error`` is None)."""
    v = res.value
    out = {
        "id": line_id,
        "ok": True,
        "han": res.han,
        "fu": res.fu,
        "yakuman": res.yakuman,
        "yaku": yaku_list(res.yaku),
        "limit": v.limit,
        "value": v.value,
        "pay": dict(v.pay),
        "honba_bonus": res.honba_bonus,
        "kyoutaku_bonus": res.kyoutaku_bonus,
        "chips": dict(res.chips),
        "fu_detail": [[r, f] for r, f in res.fu_detail],
        "wait": res.wait,
        "dora_count": res.dora_count,
    }
    if res.pocchi_as is not None:
        out["pocchi_as"] = tile_to_str(res.pocchi_as)
    return out


def error_line(line_id: Any, error: ScoringError) -> dict[str, Any]:
    """The contract's output object of a line that cannot be scored."""
    code = error.code if error.code in CONTRACT_CODES else "invalid_input"
    return {"id": line_id, "ok": False, "error": error.as_result(code)}


def score_hand(line: Any, rules: Any) -> dict[str, Any]:  # Any: anything a caller sends is answered
    """Score one input line (riichi or, under MCR rules, :func:`scoring.mcr.score_hand`) to
    the contract's output object. Never raises for bad input."""
    line_id = line.get("id") if isinstance(line, dict) else None
    try:
        rules = line_rules(line, rules)
        if rules.table.family == "mcr":
            from . import mcr  # MCR's 81 fans load only for an MCR line: riichi batches skip them

            return mcr.score_hand(line, rules)
        res = score(parse_input(line, rules), rules)
    except ScoringError as e:
        return error_line(line_id, e)
    if res.error is not None:
        return error_line(line_id, res.error)
    return result_line(line_id, res)
