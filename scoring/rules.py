"""House rules as data: one typed, documented schema and the presets built from it.

Every switch is declared exactly once, here, with its default, its meaning
and (where it has them) its allowed values. Engine code reads switches from
a :class:`Rules` object (``rules.hand.kuitan``); it never tests a preset's
name. Presets are TOML files in ``scoring/presets/``; a club's own file
``extends`` one of them and overrides what it needs::

    extends = "netmahjong"
    name = "our-club"
    [hand]
    kuitan = false

A rule set is resolved completely when it is loaded (:meth:`Rules.to_dict`),
so a game can store the exact rules it was played under and a later change
to a preset never rewrites history.

Sections (each a frozen dataclass below):

* ``table``      players, tile set, red fives, nukidora
* ``hand``       yaku and their variants
* ``fu``         fu switches
* ``points``     turning han/fu into payments, honba and deposits
* ``chips``      chip (祝儀, ★) awards
* ``game``       round progression, endings, draws, multiple ron, pao, penalties
* ``settlement`` rounding, oka, uma, ties, victory points
* ``money``      game fees, top prize and chip cash-out in yen
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from .errors import RulesError, ScoringError
from .memo import Memo


def toml_value(value: Any) -> str:
    """A switch value as a rules file writes it (true, 'none', [1, 1, 1]), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return str(value)


def refusal(reason: str, message: str, **values: Any) -> RulesError:
    """A :class:`RulesError` with its reason code and the values it names."""
    return RulesError(message, reason=reason, **values)


def switch(default: Any, doc: str, choices: tuple[Any, ...] | None = None,
           source: str = "") -> Any:
    """Declare one rule switch: its default, a one-line meaning, allowed values
    and (optionally) the rulebook passage it comes from."""
    kw: dict[str, Any] = {"metadata": {"doc": doc, "choices": choices, "source": source}}
    if isinstance(default, (list, dict)):
        kw["default_factory"] = (lambda d=default: type(d)(d))
    else:
        kw["default"] = default
    return field(**kw)


class _Section:
    """Shared validation for every section: types and choices of each switch. Each section
    keeps a :class:`~scoring.memo.Memo` of tables derived from it (``memo``), which lives
    as long as the section and is no part of its value."""

    if TYPE_CHECKING:  # set in __post_init__: not a dataclass field, so not compared or stored
        memo: Memo

    def __post_init__(self) -> None:
        object.__setattr__(self, "memo", Memo(256))
        for f in fields(self):  # type: ignore[arg-type]  # every section is a dataclass
            value = getattr(self, f.name)
            choices = f.metadata.get("choices")
            if choices is not None and value not in choices:
                name = f"{self._section_name()}.{f.name}"
                options = ", ".join(map(toml_value, choices))
                raise refusal(
                    "rules_choice",
                    f"{name} = {toml_value(value)} is not allowed: choose one of {options}",
                    switch=name, value=toml_value(value), choices=options,
                )
        self.check()

    def check(self) -> None:
        """Cross-switch consistency; sections override this."""

    @classmethod
    def _section_name(cls) -> str:
        return cls.__name__.removesuffix("Rules").lower()


# --------------------------------------------------------------------------- table
@dataclass(frozen=True)
class TableRules(_Section):
    family: str = switch(
        "riichi", "scoring family: Japanese riichi or international MCR (never mixed in rankings)",
        ("riichi", "mcr"),
    )
    players: int = switch(
        4, "number of players at the table", (3, 4),
        source="002 三人打ち半荘戦A/Bルール; 000 (3) 「4人で対戦します」",
    )
    red_fives: list[Any] = switch(
        [1, 1, 1], "red fives in the set per suit [m, p, s] (3B: [0, 4, 4])",
        source="000 (6) 赤ドラ 「一枚づつ」; 002 3B 「赤伍筒、赤伍索は各4枚」",
    )
    allow_chi: bool = switch(
        True, "chi is allowed (false in three-player)", source="002 3A/3B 「チーはできません」",
    )
    removed_tiles: str = switch(
        "", "kinds taken out of the set, in mpsz notation (three-player: 2345678m)",
        source="002 3A/3B 「二萬～八萬…は使用しません」",
    )
    flowers: int = switch(
        0, "flower tiles in the set (3B: the four seasons; MCR: eight)", (0, 4, 8),
        source="002 3B 「花牌4枚(春夏秋冬)」; 004 花牌",
    )
    amos_mode: int = switch(
        1, "AMOS JP-EX COLOR game number the table runs (01 四人標準 136, 02 四人花 140, "
        "03 四人花花 144, 04 三人標準 108, 05 3人花 112, 06 三人花花 116)", (1, 2, 3, 4, 5, 6),
        source="002 自動卓設定表 (AMOS JP-EX COLOR)",
    )

    def check(self) -> None:
        fives = self.red_fives
        if len(fives) != 3 or not all(isinstance(n, int) and 0 <= n <= 4 for n in fives):
            raise refusal(
                "rules_red_fives",
                f"table.red_fives = {toml_value(self.red_fives)}: give three counts 0-4 for m, p, "
                "s, e.g. table.red_fives = [1, 1, 1]",
                switch="table.red_fives", value=toml_value(self.red_fives),
            )
        removed = self._removed_kinds()
        for suit_index, letter in enumerate("mps"):
            five = 4 + 9 * suit_index
            if self.red_fives[suit_index] and five in removed:
                fixed = [0 if i == suit_index else n for i, n in enumerate(self.red_fives)]
                raise refusal(
                    "rules_red_five_removed",
                    f"table.red_fives = {toml_value(self.red_fives)} puts a red 5{letter} in the "
                    f"set, but table.removed_tiles = {self.removed_tiles!r} takes 5{letter} out: "
                    f"set table.red_fives = {toml_value(fixed)}",
                    switch="table.red_fives", value=toml_value(self.red_fives),
                    fix=f"table.red_fives = {toml_value(fixed)}", tile=f"5{letter}",
                )
        if self.family == "mcr" and self.players != 4:
            raise refusal(
                "rules_mcr_players",
                f"table.players = {self.players} with table.family = 'mcr': MCR is four-player; "
                "set table.players = 4",
                switch="table.players", value=str(self.players), fix="table.players = 4",
            )
        expected = AMOS_TILE_COUNTS[self.amos_mode]
        count = self.tile_count()
        if count != expected:
            modes = [m for m, n in AMOS_TILE_COUNTS.items() if n == count]
            fix = f"table.amos_mode = {modes[0]}" if modes else "another tile set"
            raise refusal(
                "rules_amos_mode",
                f"table.amos_mode = {self.amos_mode} deals {expected} tiles, but this set has "
                f"{count} (136 - 4 x {len(removed)} removed kinds + {self.flowers} flowers): "
                f"set {fix}",
                switch="table.amos_mode", value=str(self.amos_mode), tiles=str(count),
                expected=str(expected), fix=fix,
            )

    def _removed_kinds(self) -> set[int]:
        from .tiles import kind, parse_tiles  # local: keeps rules importable on its own

        try:
            text = self.removed_tiles
            tiles = parse_tiles(text, allow_flowers=False) if text else []
            return {kind(t) for t in tiles}
        except ScoringError as e:
            raise refusal(
                "rules_removed_tiles",
                f"table.removed_tiles = {self.removed_tiles!r}: {e.message}",
                switch="table.removed_tiles", value=repr(self.removed_tiles),
            ) from None

    def tile_count(self) -> int:
        """Tiles in the set: 4 of each kind kept, plus the flowers."""
        return 4 * (34 - len(self._removed_kinds())) + self.flowers


# Tile count of each AMOS JP-EX COLOR game number (002 自動卓設定表).
AMOS_TILE_COUNTS = {1: 136, 2: 140, 3: 144, 4: 108, 5: 112, 6: 116}


# --------------------------------------------------------------------------- hand
@dataclass(frozen=True)
class HandRules(_Section):
    kuitan: bool = switch(
        True, "open tanyao (喰いタン) counts", source="000 (5) タンヤオ 【ローカルルール】",
    )
    pinfu_tsumo: bool = switch(
        True, "pinfu counts on a tsumo win (and the hand is 20 fu); false = a pinfu-shaped tsumo "
        "gets the 2 tsumo fu and no pinfu", source="000 (5) 平和 【注】【ローカルルール】",
    )
    pinfu_wait: str = switch(
        "ryanmen", "the wait pinfu needs: an open two-sided wait (ryanmen), or any wait (any: "
        "the hand's shape alone, and the wait then adds no fu)", ("ryanmen", "any"),
        source="ryanmen: 000 (5) 平和 「両面待ち」; any: 003 平和 「面子が全て順子で、雀頭が役牌"
        "以外を使っている。※門前のみ」 names no wait, and its price list has no fu for a wait "
        "to add",
    )
    open_pinfu: bool = switch(
        False, "pinfu also counts on an open hand (ブー麻雀: 平和は鳴いても成立)",
    )
    min_han: int = switch(
        1, "han from yaku (dora excluded) a hand needs to win; 0 = no 1-han minimum (ブー麻雀)",
        (0, 1, 2),
    )
    chiitoitsu_four_of_a_kind: bool = switch(
        False, "seven pairs may use four of a kind as two pairs (七対子の4枚使い)",
        source="002 4B/3B/ブー麻雀",
    )
    houtei_as_haitei: bool = switch(
        True, "a win on the last discard is scored as haitei (Net Mahjong folds 河底 into "
        "ハイテイ)",
        source="000 (5) ハイテイ",
    )
    renhou: str = switch(
        "baiman", "value of renhou (人和): a yakuman, a fixed baiman, mangan, or no such yaku",
        ("yakuman", "baiman", "mangan", "off"), source="000 (5) 人和; 002 人和は役満",
    )
    ryuuiisou_needs_hatsu: bool = switch(
        False, "all-green (緑一色) needs the green dragon (false: 發を含まなくても成立, 001 役満)",
    )
    double_yakuman_hands: bool = switch(
        False, "kokushi 13-sided wait, suuankou tanki, junsei chuuren and daisuushii count as "
        "double yakuman",
    )
    yakuman_stacking: bool = switch(
        True, "several yakuman in one hand add up (ダブル役満あり); false = a single yakuman",
        source="true: 000 (4) 注; false: 002 ダブル役満なし, 003 点数 「13飜以上(役満/4倍満) "
        "48,000」 (the top row of the list is the most a hand is paid)",
    )
    kazoe_yakuman: bool = switch(
        True, "13 or more han from ordinary yaku count as yakuman (数え役満); false = capped at "
        "sanbaiman",
        source="001 役満 1",
    )
    kokushi_ankan_chankan: bool = switch(
        True, "kokushi may rob a closed kan (国士無双の暗槓ロン)",
        source="000 (5) 国士無双; 002; 001 役満",
    )
    open_riichi: bool = switch(False, "open riichi (オープン立直, 2 han) may be declared (002 3B)")
    ippatsu: bool = switch(True, "ippatsu (一発) counts (ブー麻雀: no)")
    ura_dora: bool = switch(True, "ura-dora count after riichi (ブー麻雀: no)")
    kan_dora: bool = switch(
        True, "kan dora indicators are turned (ブー麻雀: no; only one dora indicator)",
    )
    dora_as_han: bool = switch(
        True, "dora, kan dora and ura count as han; false = they are only counted and paid per "
        "tile (ブー麻雀: ドラは役ではなく1枚につき1500点)",
    )
    red_five_is_yaku: bool = switch(
        False, "a red five is a 1-han yaku (counts toward the minimum) rather than dora (ブー麻雀)",
    )
    north_yakuhai: bool = switch(
        False, "a North triplet is always a 1-han yakuhai (002 3B: 北は常時役牌)",
    )
    nukidora: str = switch(
        "none", "tiles set aside as dora (抜きドラ): none, North (002 3A) or flowers (002 3B)",
        ("none", "north", "flowers"),
    )
    nukidora_rinshan: bool = switch(
        True, "a tsumo on the tile drawn to replace a tile set aside as nukidora scores rinshan "
        "(true); false = it is an ordinary tsumo, and rinshan needs a kan",
        source="true: 002 3A 「北を抜いて補充した嶺上牌によるツモ上りの場合, "
        "嶺上開花が成立します」; false: 002 3B 「補充牌でのツモ上がりの場合、"
        "新たに嶺上開花はつきません。(空気扱い)」",
    )
    nukidora_ends_first_turn: bool = switch(
        False, "setting a tile aside as nukidora ends the winner's rights to ippatsu, tenhou, "
        "chiihou and renhou (true); false = they are kept. The hand's nukidora count cannot say "
        "whether a North came before or after the riichi, so ippatsu is refused only on a win "
        "on the tile that replaced it",
        source="true: 002 3A 「北を抜くと一発, 天和, 地和, 人和の権利は消滅します。」; "
        "false: 002 3B 「花牌を抜いても一発、天和、地和、人和、嶺上開花、海底摸月、"
        "九種九牌の権利は維持されます。」",
    )
    pocchi: bool = switch(
        False, "the white pocchi tile drawn after riichi is wild (白ポッチ, 002 4B/3B); the best "
        "tile is chosen",
    )
    pocchi_as_red: bool = switch(
        False, "a pocchi taken as 5p or 5s counts as a red five (002 3B); false = never red "
        "(002 4B)",
    )
    han_override: dict[str, Any] = switch(
        {}, "per-yaku [closed, open] han that differ from the standard table, by yaku id "
        "(3B: chanta = [4, 2]); 5 marks a mangan-valued yaku (ブー麻雀); 0 = not counted that way",
    )
    # MCR only (table.family = "mcr"); read by scoring/mcr/score.py:options. Each is a point
    # where the club's 国際ルール (004) and the Chinese Official rules as PyMahjongGB scores
    # them differ; the default is 004's reading.
    mcr_two_concealed_kongs: int = switch(
        8,
        "MCR: points of 双暗杠 (two concealed kongs); "
        "004 lists it under 8 points, PyMahjongGB gives 6",
        (6, 8),
        source="004 8点 双暗杠",
    )
    mcr_mixed_kongs: str = switch(
        "two_fans",
        "MCR: one melded and one concealed kong score 双明杠 + 暗杠 = 6 "
        "(two_fans, 004) or PyMahjongGB's single 明暗杠 5 (single_fan)",
        ("two_fans", "single_fan"),
        source="004 4点 双明杠",
    )
    mcr_concealed_special_self_drawn: str = switch(
        "fully_concealed",
        "MCR: seven pairs, knitted hands, thirteen orphans, nine gates and "
        "four concealed pungs won by self-draw score 不求人 (fully_concealed, 004) "
        "or only 自摸 (self_drawn, PyMahjongGB)",
        ("fully_concealed", "self_drawn"),
        source="004 七対・七星不靠・全不靠・四暗刻",
    )
    mcr_all_green_full_flush: bool = switch(
        False,
        "MCR: 緑一色 without 發 also scores 清一色 (PyMahjongGB); 004 says it does not",
        source="004 88点 緑一色",
    )
    mcr_all_terminals_double_pung: bool = switch(
        True,
        "MCR: 清么九 combines with 双同刻 (004); PyMahjongGB drops 双同刻",
        source="004 64点 清么九",
    )
    mcr_all_terminals_terminal_pungs: bool = switch(
        False,
        "MCR: 清么九 also scores 么九刻 for each pung (true: the letter of 004's line, which "
        "does not name 么九刻); false = not counted, as 004 says of 混么九 (「么九刻、全帯么、"
        "碰碰和とは複合しない」) and as the Chinese Official rules and PyMahjongGB score it",
        source="004 64点 清么九 「无字、碰碰胡、全带么とは複合しない」",
    )
    mcr_hog_in_green_or_terminal_pairs: bool = switch(
        False,
        "MCR: seven pairs that are 緑一色 or 清么九 also score 四帰一 "
        "(PyMahjongGB); 004 says not",
        source="004 緑一色・清么九",
    )
    mcr_all_five_all_chows: bool = switch(
        False,
        "MCR: 全帯五 combines with 平和 (PyMahjongGB); 004 says it does not",
        source="004 16点 全帯五",
    )
    mcr_nine_gates_terminal_pungs: str = switch(
        "none",
        "MCR: 九連宝灯 counts no 么九刻 (none, 004) "
        "or drops only one of them (one_fewer, PyMahjongGB)",
        ("none", "one_fewer"),
        source="004 88点 九連宝灯",
    )
    mcr_knitted_straight_edge_closed: bool = switch(
        False,
        "MCR: 組合龍 may also score 辺張 / 坎張 (PyMahjongGB); 004 says it does not",
        source="004 12点 組合龍",
    )
    mcr_wind_pung_terminal_pung: bool = switch(
        True,
        "MCR: a seat or prevalent wind pung also scores 么九刻 "
        "(004: 門風刻、圏風刻と複合する); false = the wind fan replaces it (PyMahjongGB)",
        source="004 1点 么九刻",
    )

    def check(self) -> None:
        from .yaku import YAKU_IDS  # local import: yaku.py reads these switches

        for yid, hans in self.han_override.items():
            if yid not in YAKU_IDS:
                raise refusal(
                    "rules_unknown_yaku",
                    f"hand.han_override: unknown yaku id {yid!r}: see docs/rules.md for the ids",
                    switch="hand.han_override", value=str(yid),
                )
            if (not isinstance(hans, list) or len(hans) != 2
                    or not all(isinstance(h, int) and not isinstance(h, bool) and 0 <= h <= 13
                               for h in hans)):
                raise refusal(
                    "rules_han_override",
                    f"hand.han_override.{yid} = {hans!r}: give [closed han, open han], e.g. "
                    f"hand.han_override.{yid} = [4, 2]",
                    switch=f"hand.han_override.{yid}", value=repr(hans),
                )


# --------------------------------------------------------------------------- fu
@dataclass(frozen=True)
class FuRules(_Section):
    use_fu: bool = switch(True, "points come from han and fu; false = a no-fu table")
    double_wind_pair: int = switch(
        4, "fu for a pair of the wind that is both seat and round wind (連風牌の雀頭)", (2, 4),
        source="002 4A 連風牌の雀頭は4符; 001 補足 3 (2符)",
    )
    rinshan_tsumo_fu: bool = switch(
        True, "a rinshan win gets the 2 tsumo fu (嶺上開花の場合はツモの2符を加えて計算)",
        source="002 4A/3A/ブー麻雀 「嶺上開花の場合はツモの2符を加えて計算します」; 001 補足 4",
    )
    rinshan_pinfu_fu: bool = switch(
        False, "a rinshan win in pinfu shape (possible only on the tile drawn for a North set "
        "aside) keeps pinfu and adds the 2 tsumo fu: 30 fu (true); false = 20 fu, as any "
        "pinfu tsumo",
        source="true: 002 3A 「嶺上開花の場合はツモの2符を加えて計算します」 "
        "(no exception for 平和)",
    )
    open_pinfu_fu: int = switch(
        30, "fu of an open hand that counts only 20 fu (喰い平和形): 30, or 20 in ブー麻雀",
        (20, 30),
        source="002 符計算ガイド; ブー麻雀 喰い平和のロン上がりは20符",
    )
    chiitoitsu_fu: int = switch(
        25, "fixed fu of seven pairs", source="000 (4) 符計算; 002 符計算ガイド",
    )


# --------------------------------------------------------------------------- points
@dataclass(frozen=True)
class PointsRules(_Section):
    # Read only by scoring/points.py (han/fu -> payments, honba, deposits, noten).
    kiriage_mangan: bool = switch(
        False, "a hand of 1,920 basic points (30 fu 4 han, 60 fu 3 han, the rare 120 fu 2 han) "
        "is paid as mangan (切り上げ満貫: 7,700 -> 8,000, 11,600 -> 12,000, "
        "2,000-3,900 -> 2,000-4,000, 3,900 all -> 4,000 all)",
        source="000 (4) 注2 【ローカルルール】; 001 補足事項 1; 002 4A 「30符4翻、60符3翻は満貫」",
    )
    max_limit: str = switch(
        "yakuman", "the highest payment there is: anything above is paid as this limit "
        "(ブー麻雀: mangan, 「跳満以上の点数はありません」)",
        ("mangan", "haneman", "baiman", "sanbaiman", "yakuman"),
        source="002 ブー麻雀 点数計算",
    )
    tsumo_loss: bool = switch(
        True, "three-player tsumo: the absent fourth player's share is not paid (ツモ損); false = "
        "it is split between the two payers (折半). Four-player tables ignore this",
        source="002 3A 「ツモ損あり」; 3B 「ツモ損…はありません」",
    )
    nofu_table: list[Any] = switch(
        [], "the price list used when fu.use_fu = false: rows {han (lowest han of the row), "
        "limit, ron, tsumo = [each non-dealer, dealer], dealer_ron, dealer_tsumo (each)}",
        source="002 点数表 (符計算なしルール); 003 点数 (1飜 1,500 … 13飜 48,000)",
    )
    honba_ron: int = switch(
        300, "points per honba (積み棒) the discarder adds to a ron",
        source="000 (4) 「300点×積み棒」; 002 4B 「積符は場に1500点」; 3A 「場に200点」; "
        "3B 「ロン1000点」",
    )
    honba_tsumo_each: int = switch(
        100, "points per honba each payer adds to a tsumo",
        source="000 (4) 「100点×積み棒」; 002 4B 場に1500点 (500 each); 3B 「ツモ1000オール」",
    )
    honba_on_yakuless_win: bool = switch(
        True, "a win with no yaku (hand.min_han = 0) still collects the honba; false = the honba "
        "stay and go up as after a draw",
        source="002 ブー麻雀 「役なしの上がりには積符は加算されず」",
    )
    riichi_deposit: int = switch(
        1000, "points of one riichi stick (供託)",
        source="000 (5) リーチ 「千点を卓に置き」; 002 ブー麻雀 「立直料は100点」",
    )
    noten_total: int = switch(
        3000, "noten penalty (ノーテン罰符) the noten players pay the tenpai players in all",
        source="000 (3) 荒牌; 002 4A 「聴牌料は場に3000点」; 3A 「場に2000点」; "
        "ブー麻雀 「聴牌料はなく」",
    )
    dora_per_tile: int = switch(
        0, "points per dora tile paid on top of the hand when hand.dora_as_han = false, split "
        "among the payers of a tsumo (ブー麻雀: 「1枚につき場に1500点」)",
        source="002 ブー麻雀 点数計算",
    )

    def check(self) -> None:
        amounts = (
            "honba_ron", "honba_tsumo_each", "riichi_deposit", "noten_total", "dora_per_tile"
        )
        for name in amounts:
            value = getattr(self, name)
            if value < 0 or value % 100:
                fix = max(0, -(-value // 100) * 100)
                raise refusal(
                    "rules_points_amount",
                    f"points.{name} = {value}: give a multiple of 100 that is 0 or more, e.g. "
                    f"points.{name} = {fix}",
                    switch=f"points.{name}", value=str(value), fix=f"points.{name} = {fix}",
                )
        if self.riichi_deposit == 0:
            raise refusal(
                "rules_riichi_deposit",
                "points.riichi_deposit = 0: a riichi stick is worth something: set "
                "points.riichi_deposit = 1000 (100 in ブー麻雀)",
                switch="points.riichi_deposit", value="0", fix="points.riichi_deposit = 1000",
            )
        check_nofu_table(self.nofu_table)


LIMITS = ("mangan", "haneman", "baiman", "sanbaiman", "yakuman")
_NOFU_KEYS = {"han", "limit", "ron", "tsumo", "dealer_ron", "dealer_tsumo"}


def _positive_points(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0 and value % 100 == 0


def _check_nofu_row(i: int, row: Any) -> None:
    where = f"points.nofu_table row {i + 1}"
    if not isinstance(row, Mapping):
        raise refusal(
            "rules_nofu_row",
            f"{where} = {row!r}: each row is a table like {{ han = 1, ron = 1000, ... }}",
            switch="points.nofu_table", row=str(i + 1),
        )
    missing = _NOFU_KEYS - {"limit"} - set(row)
    unknown = set(row) - _NOFU_KEYS
    if missing or unknown:
        raise refusal(
            "rules_nofu_keys",
            f"{where}: "
            + "; ".join(
                f"{what} {', '.join(sorted(keys))}"
                for what, keys in (("missing", missing), ("unknown", unknown)) if keys
            )
            + f" (a row has {', '.join(sorted(_NOFU_KEYS))})",
            switch="points.nofu_table", row=str(i + 1),
            missing=", ".join(sorted(missing)) or "-", unknown=", ".join(sorted(unknown)) or "-",
            keys=", ".join(sorted(_NOFU_KEYS)),
        )
    tsumo = row["tsumo"]
    amounts = [row["ron"], row["dealer_ron"], row["dealer_tsumo"]]
    amounts += list(tsumo) if isinstance(tsumo, list) else [tsumo]
    if not (isinstance(tsumo, list) and len(tsumo) == 2) or not all(map(_positive_points, amounts)):
        raise refusal(
            "rules_nofu_amounts",
            f"{where} = {dict(row)!r}: ron, dealer_ron, dealer_tsumo and tsumo = [each "
            "non-dealer, dealer] must be positive multiples of 100",
            switch="points.nofu_table", row=str(i + 1),
        )
    if row.get("limit") is not None and row["limit"] not in LIMITS:
        raise refusal(
            "rules_nofu_limit",
            f"{where}: limit = {row['limit']!r} is not one of {', '.join(LIMITS)}",
            switch="points.nofu_table", row=str(i + 1), value=repr(row["limit"]),
            choices=", ".join(LIMITS),
        )


def check_nofu_table(table: list[Any]) -> None:
    """Refuse a malformed no-fu price list, naming the row."""
    last = 0
    for i, row in enumerate(table):
        _check_nofu_row(i, row)
        han = row["han"]
        if not isinstance(han, int) or isinstance(han, bool) or han <= last:
            raise refusal(
                "rules_nofu_han_order",
                f"points.nofu_table row {i + 1}: han = {han!r} must be a whole number above the "
                f"previous row's {last} (rows go from 1 han upward)",
                switch="points.nofu_table", row=str(i + 1), value=repr(han), previous=str(last),
            )
        last = han
    if table and table[0]["han"] != 1:
        raise refusal(
            "rules_nofu_first_row",
            f"points.nofu_table: the first row is for han = {table[0]['han']}; it must start "
            "at 1 han (han = 1)",
            switch="points.nofu_table", value=str(table[0]["han"]),
        )


# --------------------------------------------------------------------------- chips
@dataclass(frozen=True)
class ChipsRules(_Section):
    # Read only by scoring/chips.py. A chip is paid by the discarder on a ron and by
    # every other player on a tsumo (000 (7); 002 ★ … オール). What a chip is worth
    # in points is settlement.chip_value.
    enabled: bool = switch(
        True, "chips (祝儀, チップ, ★) are awarded at all",
        source="000 (7) チップ; 001 基本ルール 21 「赤ドラ,チップ,その他祝儀なし」",
    )
    ura: int = switch(
        1, "chips per ura-dora tile in a riichi win (0 = no ura chips)",
        source="000 (7) 裏ドラ 【ローカルルール】; 002 4A 「裏ドラ★」",
    )
    aka: int = switch(
        1, "chips per red five in the winning hand (0 = no red-five chips)",
        source="000 (7) 赤ドラ 【ローカルルール】; 002 4A 「赤伍萬…各1枚です★」",
    )
    aka_closed_only: bool = switch(
        False, "red-five chips only for a closed (門前) hand",
        source="000 (7) 赤ドラ 【ローカルルール】",
    )
    all_star: int = switch(
        2, "extra chips when the hand holds every red five of the set (オールスター; 0 = none)",
        source="000 (7) 赤ドラ 「3つの赤ドラを揃えた場合…2枚づつ」",
    )
    ippatsu: int = switch(
        1, "chips for an ippatsu win (0 = none)", source="000 (7) 一発; 002 4A 「一発★」",
    )
    pocchi: int = switch(
        0, "chips for a win on the white pocchi tile (0 = none)", source="002 4B/3B 白ポッチ",
    )
    yakuman_tsumo: int = switch(
        2, "chips each other player pays for a yakuman tsumo (000: 0 to 8; 002: ★5 オール)",
        tuple(range(0, 11)),
        source="000 (7) 役満 【ローカルルール】; 002 4A 「本役満★10or★5オール」",
    )
    kazoe_tsumo: int = switch(
        0, "chips each other player pays for a counted yakuman (数え役満) tsumo (002: ★3 オール)",
        tuple(range(0, 11)), source="002 4A 「数え役満★6or★3オール」",
    )
    yakuman_ron_factor: float = switch(
        1.5, "a yakuman or kazoe ron pays this many times the tsumo chips, halves rounded up "
        "(000: 1.5, so 2 -> 3; 002: 2, ★10 / ★5 オール)",
        source="000 (7) 役満 「ロンあがりの場合は…1.5 倍」; 002 4A",
    )

    def check(self) -> None:
        for name in ("ura", "aka", "all_star", "ippatsu", "pocchi"):
            if getattr(self, name) < 0:
                raise refusal(
                    "rules_chips_negative",
                    f"chips.{name} = {getattr(self, name)}: chips cannot be negative; set "
                    f"chips.{name} = 0 for none",
                    switch=f"chips.{name}", value=str(getattr(self, name)),
                    fix=f"chips.{name} = 0",
                )
        if not 1 <= self.yakuman_ron_factor <= 4:
            raise refusal(
                "rules_ron_factor",
                f"chips.yakuman_ron_factor = {self.yakuman_ron_factor}: give a factor from 1 to 4 "
                "(chips.yakuman_ron_factor = 1.5 in 000, 2.0 in 002)",
                switch="chips.yakuman_ron_factor", value=str(self.yakuman_ron_factor),
                fix="chips.yakuman_ron_factor = 1.5",
            )


# --------------------------------------------------------------------------- game
@dataclass(frozen=True)
class GameRules(_Section):
    # Sources: 000 = ネットマージャン (netmahjong), 001 = #麻雀部, 002 = ねこはうす,
    # 003 = beginner's guide (simple), 004 = 国際ルール (mcr).  Read only by
    # scoring/game.py, each in one helper.
    length: str = switch(
        "tonpuu", "game length: East only, East+South, or all four winds (一荘戦, MCR)",
        ("tonpuu", "hanchan", "issou"),
        source="000 (3) 半荘: 「ネットマージャンでは、東風戦がデフォルト」; 003 「一荘戦」",
    )
    renchan: str = switch(
        "tenpai", "the dealer keeps the deal on a win and on tenpai at a draw (tenpai), "
        "only on a win (win), or never (never: the deal moves every hand)",
        ("tenpai", "win", "never"),
        source="tenpai: 000 (3) 連荘, 001 基本ルール 19; win: 002 ブー麻雀 「上がり連荘です」; "
        "never: 003 「1つの局が終了すると、それまで南家だったプレイヤーが次の局の東家と"
        "なります」, 004 「自風は局毎に交代します」",
    )
    honba: bool = switch(
        True,
        "honba (積み棒) are counted: +1 on renchan or any draw, back to 0 when a non-dealer wins",
        source="000 (3) 「どちらの場合にも積み棒を増やします」",
    )
    bust: bool = switch(
        True, "the game ends as soon as a player's points go below 0 (ブットビ)",
        source="000 (3) 「0点未満になったらゲームが終了します」",
    )
    end_at_points: int = switch(
        0, "the game ends as soon as a player has at least this many points (0 = never)",
        source="002 4B 「6万点以上となった場合ゲーム終了」; ブー麻雀 「16000点以上」",
    )
    yakuman_ends_game: bool = switch(
        False, "any yakuman ends the game at once",
        source="002 ブー麻雀 「役満は無条件にゲーム終了」",
    )
    extension_target: int = switch(
        0, "after the last South hand, if every player is below this, play the West round "
        "until someone reaches it or the last West hand ends (西入; 0 = never)",
        source="002 4A 「全員が3万点未満のとき西入」; 3A 「全員が4万点未満のとき西入」",
    )
    extension_over_yame: bool = switch(
        True, "when the last South hand's dealer wins or is tenpai while top and every player is "
        "below extension_target, agari-yame / tenpai-yame end that hand and the West round "
        "follows (true; where yame is optional the dealer plays on); false = the game ends",
        source="true: 002 4A 「南4局終了時全員が3万点未満のとき西入」, "
        "3A 「南3局終了時全員が4万点未満のとき西入」 (the rounds end, and the rule asks for 西入)",
    )
    agari_yame: str = switch(
        "optional", "the last hand's dealer who wins while top may stop the game (optional), "
        "may not (forbidden), or the game stops by itself (forced). Left unset with "
        "bust = false it is forbidden",
        ("optional", "forbidden", "forced"),
        source="000 (3) あがりやめ, and 【ローカルルール】 "
        "「ブットビなしを選択した場合は、あがりやめはできません」; 001 基本ルール 10; "
        "002 4A 「和了やめおよび聴牌やめは強制」",
    )
    tenpai_yame: str = switch(
        "forbidden", "the same as agari_yame for the last hand's dealer who is tenpai at a draw",
        ("optional", "forbidden", "forced"),
        source="001 基本ルール 10 「テンパイ止めなし」; 002 4A 「聴牌やめは強制」",
    )
    leftover_deposits: str = switch(
        "none", "riichi/penalty deposits still on the table when the game ends go to the top (top) "
        "or to nobody (none)", ("none", "top"),
        source="001 リーチ 6 「オーラスが流局した場合リーチ棒はトップ者に渡る」",
    )
    leftover_tied_tops: str = switch(
        "seat_order", "with leftover_deposits = top and two or more players tied on top: the "
        "whole deposit goes to the tied top nearest the first dealer, who becomes sole top "
        "(seat_order), or it is shared equally and they stay tied (split: each takes the same "
        "share, rounded down to 100 points; odd hundreds stay on the table, reported as "
        "leftover_deposits, since giving them to a seat would rank that seat first)",
        ("seat_order", "split"),
        source="seat_order: 000 (3) 清算 「同点の場合は、起家…の順に優先」; split: 001 リーチ 6 "
        "「オーラスが流局した場合リーチ棒はトップ者に渡る」 with 基本ルール 6 "
        "「順位は上家優先なし。同得点の場合は同順位」",
    )
    riichi_short: str = switch(
        "forbid", "a player with fewer points than the riichi deposit may not declare riichi "
        "(forbid) or deposits everything they have (all_in)", ("forbid", "all_in"),
        source="forbid: 000 (5) リーチ 「千点を卓に置き…リーチを宣言」; "
        "all_in: 002 4A 「持ち点が1000点未満の場合、持ち点をすべて供託して立直が可能」",
    )
    riichi_noten_chombo: bool = switch(
        True, "a riichi player who is noten at an exhaustive draw has committed chombo",
        source="000 (3) 荒牌 「ノーテンの場合は、チョンボになります」; 001 リーチ 5",
    )
    nagashi: str = switch(
        "mangan", "nagashi mangan at a draw: none, paid as a mangan tsumo, or as a yakuman tsumo",
        ("none", "mangan", "yakuman"),
        source="000 (5) 流し満貫; 002 3B 「流しは役満とします」; "
        "ブー麻雀 「流し満貫はありません」; 001 does not list it",
    )
    nagashi_as: str = switch(
        "win", "after nagashi the hand goes on as after that player's tsumo win: honba and "
        "deposits to them, the deal passes unless they are the dealer, honba back to 0 (win); "
        "or as after an exhaustive draw: the dealer keeps the deal on tenpai, honba +1, the "
        "deposits stay (draw)",
        ("win", "draw"),
        source="win: 000 (5) 流し満貫 「満貫のツモあがりの扱いになります」; draw: 002 4A/4B/3A "
        "「流し満貫あり」 and 3B 「流しは役満とします」 say nothing more: played as a draw (流局)",
    )
    abortive_draws: list[Any] = switch(
        ["suufon", "suukan", "sanchahou"],
        "abortive draws the rules have (kyuushu, suufon, suukan, suucha_riichi, sanchahou); "
        "any other is refused",
        source="000 (3) 四風連打/四槓流れ/三家和, (8) 「4人リーチでは流局しません」; "
        "001 基本ルール 9 「途中流局なし」; "
        "002 4A 「九種九牌、四風連打、四槓散了、四家立直」, 4B 「九種九牌のみ」",
    )
    kyuushu_after_nukidora: bool = switch(
        True, "a player who has set tiles aside as nukidora (北 / 花) may still declare nine "
        "terminals (九種九牌) on their first draw (true; the abort then carries the count, "
        "'nukidora'); false = setting one aside ends that right, as it ends the other "
        "first-turn rights",
        source="true: 002 3B 「花牌を抜いても…九種九牌の権利は維持されます」; false: 002 3A "
        "「北を抜くと一発, 天和, 地和, 人和の権利は消滅します」: 九種九牌 is a first-turn right of "
        "the same kind, which 3B names where it keeps them and 3A does not",
    )
    abort_renchan: bool = switch(
        False, "after an abortive draw the dealer keeps the deal (true) or it moves on (false); "
        "honba go up either way",
        source="000 (3) 「親は、連荘できず、南家が親になります」; "
        "002 4A 「無条件に連荘となります」",
    )
    multi_ron: str = switch(
        "double",
        "several players ron one discard: only the one nearest the discarder's right wins "
        "(atamahane), two may win and three is sanchahou (double), or all may win (triple); "
        "honba, deposits and renchan go to the winner nearest the discarder's right",
        ("atamahane", "double", "triple"),
        source="double: 000 (2) 「3人が…三家和といって、流局」; "
        "atamahane: 001 基本ルール 12 「ダブロン、トリプルロンなし。上家の頭ハネ」; "
        "triple: 002 4A 「ダブルロン、トリロンあり。親権、積符、供託点は頭ハネ」",
    )
    pao: bool = switch(
        False, "responsibility payment (包) for daisangen, daisuushii, suukantsu: the responsible "
        "player pays all of a tsumo and half of a ron by another discarder",
        source="000 (8) 「ネットマージャンでは、包をなくしました」 【ローカルルール】; "
        "001 パオ 1; 002 4A 「包則は…最初に成立したものに適用」",
    )
    chombo: str = switch(
        "mangan_tsumo",
        "chombo price: a reversed mangan tsumo (mangan_tsumo), chombo_points to every "
        "other player (each), chombo_victory_points to every other player (victory_points), or no "
        "chombo rule (none)", ("mangan_tsumo", "each", "victory_points", "none"),
        source="mangan_tsumo: 000 (3) 錯和 「満貫払い」; "
        "each: 001 チョンボ 1, 002 4A 「3000オール」; "
        "victory_points: 002 ブー麻雀; none: 004 has no chombo rule",
    )
    chombo_points: int = switch(0, "points the offender pays each other player when chombo = each",
                                source="001 チョンボ 1 「他家に4,000点ずつ」")
    chombo_victory_points: int = switch(
        0, "victory points the offender pays each other player when chombo = victory_points",
        source="002 ブー麻雀 「他家に各1勝利点の支払い」",
    )
    chombo_at_draw: bool = switch(
        False, "a chombo may be deferred to the end of the hand (流局時チョンボ): the hand goes "
        "on, and if it ends in an exhaustive draw the offenders, named in the draw's 'chombo', "
        "are noten whatever their hand and pay the noten penalty; a win ends the hand with "
        "nothing to pay for it",
        source="true: 002 4A/4B/3A/3B 「チョンボは…同卓者全員の合意のもと…流局時チョンボ、"
        "和了放棄、1000点供託のいずれかに変更できます」; false: 002 ブー麻雀 「もしくは和了放棄に"
        "変更できます」 (no 流局時チョンボ), 000, 001 and 004 name none",
    )
    chombo_returns_riichi: bool = switch(
        True, "riichi sticks put out in a hand a chombo voids (the chombo's 'riichi') go back to "
        "the players who put them out (true), or stay on the table for the next winner (false)",
        source="true: 000 (3) 錯和 「チョンボがあった局のリーチ棒は、リーチをかけた人に"
        "返されます」; "
        "001 チョンボ 2 「チョンボが発生した局に出されたリーチ棒などは出した本人に戻る」; "
        "002 says nothing and takes 000's",
    )
    agari_houki: bool = switch(
        False, "agari-houki exists: the player may no longer win or declare tenpai this hand",
        source="001 和了り放棄 1; 002 4A 和了放棄 (000 has none)",
    )
    deposit_penalty: int = switch(
        0, "points of the deposit penalty (供託罰符; 0 = no such penalty); see "
        "deposit_penalty_short for a player holding less",
        source="001 1000点供託 1; "
        "002 4A 「持ち点が1000点未満の場合は持ち点すべての供託」 (000 has none)",
    )
    deposit_penalty_short: str = switch(
        "full",
        "a player holding less than the deposit penalty pays it in full and may go below zero "
        "(full), or pays everything they hold (all_in)", ("full", "all_in"),
        source="full: 001 1000点供託 1 「1,000点の罰符を支払う。罰符は供託として扱う。」; "
        "all_in: 002 4A 「発覚した時点で持ち点が1000点未満の場合は持ち点すべての供託となります」",
    )
    penalty_points: int = switch(
        1000, "a points penalty (罰符) as the tablet first offers it, per player it is paid "
        "to (shared by all: this many times the others)",
    )
    penalty_step: int = switch(
        100, "the smallest step of a points penalty, per player it is paid to (shared by "
        "all: steps the others split evenly); also its least amount",
    )
    no_losing_final_win: bool = switch(
        False,
        "a win that ends the game is refused (it is a chombo) when the winner was sinking and "
        "stays sinking, or was floating and does not end top, or ends top with the smallest "
        "mark (マルC) outside the last hand",
        source="002 ブー麻雀（続き） 「自身の点数状況によって以下の上がりを行った場合」",
    )

    def check(self) -> None:
        if self.penalty_step < 1 or self.penalty_points < self.penalty_step \
                or self.penalty_points % self.penalty_step:
            raise refusal(
                "rules_penalty_step",
                f"game.penalty_points = {self.penalty_points} must be a positive multiple of "
                f"game.penalty_step = {self.penalty_step}", switch="game.penalty_points",
                value=self.penalty_points, step=self.penalty_step)
        kinds = {"kyuushu", "suufon", "suukan", "suucha_riichi", "sanchahou"}
        bad = [k for k in self.abortive_draws if k not in kinds]
        if bad:
            raise refusal(
                "rules_abort_kind",
                f"game.abortive_draws has unknown kind(s) {', '.join(map(repr, bad))}: "
                f"choose from {', '.join(sorted(kinds))}",
                switch="game.abortive_draws", value=", ".join(map(repr, bad)),
                choices=", ".join(sorted(kinds)),
            )
        if not self.bust and self.agari_yame != "forbidden":
            # 000 (3): 「ブットビなしの設定もできます。(ただしこの場合、
            # あがりやめはなしになります)」; left unset, _build derives it
            raise refusal(
                "rules_bust_agari_yame",
                f"game.bust = false with game.agari_yame = {self.agari_yame!r}: without busting "
                "there is no agari-yame (000 (3) ブットビなし: あがりやめはなし); set "
                "game.agari_yame = 'forbidden' or leave it out, or set game.bust = true",
                switch="game.agari_yame", value=repr(self.agari_yame),
                fix="game.agari_yame = 'forbidden'",
            )


# --------------------------------------------------------------------------- settlement
@dataclass(frozen=True)
class SettlementRules(_Section):
    start_points: int = switch(25000, "points each player starts with (配給原点)")
    return_points: int = switch(
        30000, "points returned against (返し点); oka = (return - start) x players"
    )
    # Read only by scoring/settlement.py.
    rounding: str = switch(
        "gosha_rokunyu", "rounding of a non-top player's final points to 1000: 五捨六入 (600 up), "
        "四捨五入 (500 up), down, up, or none",
        ("gosha_rokunyu", "shisha_gonyu", "down", "up", "none"),
        source="000 (3) 清算 「100点台の端数を5捨6入」; 001 基本ルール 4",
    )
    box_under: bool = switch(
        False, "points below 0 count as they are (箱下計算); false = a negative score counts as 0 "
        "(always on when game.bust is false)",
        source="000 (3) 清算 「持ち点が0点未満の場合、0点として計算します」",
    )
    uma: list[Any] = switch(
        [20000, 10000, -10000, -20000], "uma by rank, one entry per player",
        source="000 (3) ウマ 「1位+20000 2位+10000 3位−10000 4位−20000」",
    )
    uma_by_floaters: dict[str, Any] = switch(
        {}, "uma rows chosen by how many players end at or above return_points, keys \"1\" \"2\" "
        "\"3\" (浮きウマ / 沈みウマ); a count with no row uses uma",
        source="000 (3) ウマ 【ローカルルール】 シチゴサン, 沈みウマ",
    )
    ties: str = switch(
        "seat",
        "equal points: the seat nearer the first dealer ranks higher (seat), or the players "
        "share the rank and split its oka and uma (share)", ("seat", "share"),
        source="000 (3) 清算 「同点の場合は、起家…の順に優先」; 001 基本ルール 6",
    )
    tie_remainder: str = switch(
        "first_dealer",
        "when tied players share oka or uma that does not divide evenly (ties = share), the "
        "odd points go one each to the tied seats nearest the first dealer (first_dealer), or "
        "every tied player gets the same figure, rounded down, and the top's figure takes the "
        "odd points as it takes every rounding remainder (top; a tie for top falls back to "
        "first_dealer). The settlement sheet lists each split (tie_splits)",
        ("first_dealer", "top"),
        source="first_dealer: 000 (3) 清算 「起家、起家の下家対面上家の順に優先」; "
        "top: 001 基本ルール 6 「順位は上家優先なし。同得点の場合は同順位。"
        "オカ・ウマとも同得点者の人数で割り」 "
        "(no seat is preferred) and 4 「トップ者にはオカ…が加点される」",
    )
    chip_value: int = switch(5000, "points one chip is worth in the result (0 = chips kept apart)",
                             source="000 (7) チップ 「一枚5000点相当」")
    use_points: bool = switch(
        True, "the result is settled points (true); false = raw scores with no oka/uma (MCR)",
        source="004 点数計算",
    )
    victory_points: bool = switch(
        False, "the result is victory points (勝利点) by how many players float (ブー麻雀)",
        source="002 ブー麻雀（続き） 勝利点の表",
    )
    vp_by_floaters: dict[str, Any] = switch(
        {"1": [9, 0, -3], "2": [4, 0, -2], "3": [1, 0, -1]},
        "victory points [top, floating, sinking] by how many players float (マルA/B/C)",
        source="002 ブー麻雀（続き） 「マルA +9 0 -3 / マルB +4 0 -2 / マルC +1 0 -1」",
    )
    vp_double: list[Any] = switch(
        [18, 0, -6], "victory points [top, floating, sinking] of a double マルA "
        "(yakuman, or マルA by the holder of the ダブ権)",
        source="002 ブー麻雀（続き） 「ダブルマルA +18 0 -6」",
    )
    yakuman_vp: str = switch(
        "maru_a", "victory points when a yakuman ends the game: the winner takes the top figure "
        "of vp_double and every other player pays the sinking figure, as in any マルA, where "
        "the top is the only floater (maru_a: +18 / -6 / -6 / -6 whatever the points); or the "
        "others pay by their points, floaters 0 and sinkers the sinking figure, and the winner "
        "takes what they pay (standing: +6 / 0 / 0 / -6 with two floaters)",
        ("maru_a", "standing"),
        source="maru_a: 002 ブー麻雀 「役満は無条件にゲーム終了となり, "
        "達成者のダブルマルAとします」 with the row 「ダブルマルA +18 0 -6」: "
        "マルA means the top alone floats, and only "
        "+18 -6 -6 -6 both follows the row and sums to zero",
    )

    def check(self) -> None:
        if self.return_points < self.start_points:
            raise refusal(
                "rules_return_points",
                f"settlement.return_points = {self.return_points} is below start_points = "
                f"{self.start_points}: the oka would be negative; set settlement.return_points "
                f"= {self.start_points} or more",
                switch="settlement.return_points", value=str(self.return_points),
                fix=f"settlement.return_points = {self.start_points}",
            )
        rows = {"uma": self.uma}
        rows.update({f"uma_by_floaters[{k!r}]": v for k, v in self.uma_by_floaters.items()})
        for name, row in rows.items():
            # the settlement sheet is zero-sum only if every uma row is
            if not all(isinstance(x, int) for x in row) or sum(row) != 0 or len(row) not in (3, 4):
                raise refusal(
                    "rules_uma_row",
                    f"settlement.{name} = {row!r}: give 3 or 4 whole numbers that sum to 0, e.g. "
                    "settlement.uma = [20000, 10000, -10000, -20000]",
                    switch=f"settlement.{name}", value=repr(row),
                )
        counts = list(self.uma_by_floaters) + list(self.vp_by_floaters)
        bad = [k for k in counts if k not in ("1", "2", "3")]
        if bad:
            raise refusal(
                "rules_floater_count",
                f"settlement floater counts {bad!r}: use '1', '2' or '3' "
                "(players at or above return_points)",
                switch="settlement.uma_by_floaters", value=", ".join(map(repr, bad)),
            )


# --------------------------------------------------------------------------- money
@dataclass(frozen=True)
class MoneyRules(_Section):
    # Read only by scoring/money.py. Amounts are yen; the defaults charge nothing. Points
    # are never turned into money: only the fee, the top prize and chips are.
    fee_mode: str = switch(
        "none", "game fee (場代, ゲーム代): none, a fixed fee per game (per_game), or by "
        "the game's length (per_hour: from its start to its end, in started fee_unit_minutes)",
        ("none", "per_game", "per_hour"),
    )
    fee: int = switch(
        0, "yen of the game fee: per player and game (per_game) or per player and hour "
        "(per_hour)",
    )
    fee_unit_minutes: int = switch(
        15, "per_hour fees are charged for every started block of this many minutes",
        (1, 5, 10, 15, 20, 30, 60),
    )
    fee_payer: str = switch(
        "each", "who pays the fee: every player their own (each), or the top pays the whole "
        "table's (top: トップ払い; a shared top splits it)", ("each", "top"),
    )
    top_prize: int = switch(
        0, "yen of the top prize (トップ賞) a game's top receives (0 = none)",
    )
    top_prize_from: str = switch(
        "house", "who pays the top prize: the club (house), or every other player pays "
        "top_prize to the top (others)", ("house", "others"),
    )
    chip_yen: int = switch(
        0, "yen one chip (祝儀, ★) is cashed out at, paid between the players (0 = chips are "
        "not cashed)",
    )

    def check(self) -> None:
        for name in ("fee", "top_prize", "chip_yen"):
            value = getattr(self, name)
            if value < 0 or value > 1_000_000:
                raise refusal("money_yen_range",
                              f"money.{name} = {value}: give yen from 0 to 1,000,000",
                              switch=f"money.{name}", value=value)
        if self.fee_mode == "none" and self.fee:
            raise refusal(
                "money_fee_unused",
                f"money.fee = {self.fee} with money.fee_mode = 'none' charges nothing: "
                "set fee_mode to 'per_game' or 'per_hour'", switch="money.fee_mode",
                value=self.fee)
        if self.fee_mode != "none" and not self.fee:
            raise refusal(
                "money_fee_missing",
                f"money.fee_mode = {self.fee_mode!r} needs money.fee, the yen to charge",
                switch="money.fee", value=self.fee_mode)
        if self.fee_mode == "per_hour" and (self.fee * self.fee_unit_minutes) % 60:
            raise refusal(
                "money_fee_uneven",
                f"money.fee = {self.fee} per hour is not a whole number of yen per "
                f"{self.fee_unit_minutes} minutes: choose a fee or unit that divides evenly",
                switch="money.fee", value=self.fee, minutes=self.fee_unit_minutes)


SECTIONS: dict[str, type] = {
    "table": TableRules,
    "hand": HandRules,
    "fu": FuRules,
    "points": PointsRules,
    "chips": ChipsRules,
    "game": GameRules,
    "settlement": SettlementRules,
    "money": MoneyRules,
}


@dataclass(frozen=True)
class Rules:
    """A fully resolved rule set."""

    name: str
    title: str
    table: TableRules
    hand: HandRules
    fu: FuRules
    points: PointsRules
    chips: ChipsRules
    game: GameRules
    settlement: SettlementRules
    money: MoneyRules = field(default_factory=MoneyRules)

    if TYPE_CHECKING:  # an attribute, not a dataclass field (see __post_init__)
        memo: Memo = field(init=False, compare=False)

    def __post_init__(self) -> None:
        # ``memo``: prices, chips and situation yaku derived from these rules, kept while they
        # live; an attribute, not a dataclass field, so it is never compared or stored
        object.__setattr__(self, "memo", Memo(1 << 16))

    def to_dict(self) -> dict[str, Any]:
        """Every switch's value, for storing with a game (:func:`load_rules` reads it back)."""
        return dataclasses.asdict(self)


PRESET_IDS = (
    "netmahjong",
    "mahjongbu",
    "nekohouse-4a",
    "nekohouse-4b",
    "nekohouse-3a",
    "nekohouse-3b",
    "nekohouse-boo",
    "simple",
    "mcr",
)


_PRESET_DIR = Path(__file__).with_name("presets")


def _preset_text(preset: str) -> str:
    try:
        # a plain path, not importlib.resources (whose imports cost every run more than the
        # read): the presets are files installed beside this module (package data)
        return (_PRESET_DIR / f"{preset}.toml").read_text("utf-8")
    except (FileNotFoundError, OSError):
        raise refusal(
            "rules_unknown_preset",
            f"unknown rule preset {preset!r}: choose one of {', '.join(PRESET_IDS)} "
            "or give the path of a .toml file",
            value=preset, choices=", ".join(PRESET_IDS),
        ) from None


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for k, v in over.items():
        if k == "extends":
            continue
        if isinstance(v, Mapping) and isinstance(out.get(k), dict):
            out[k] = {**out[k], **v}
        else:
            out[k] = v
    return out


def _raw(spec: str, seen: tuple[Any, ...] = ()) -> dict[str, Any]:
    """The merged raw mapping of a preset id or TOML path, following ``extends``."""
    if spec in seen:
        chain = " -> ".join(seen + (spec,))
        raise refusal(
            "rules_extends_loop", f"rule files extend each other in a loop: {chain}", value=chain
        )
    path = Path(spec)
    if spec.endswith(".toml") or path.is_file():
        try:
            text = path.read_text("utf-8")
        except OSError as e:
            raise refusal(
                "rules_unreadable", f"cannot read rules file {spec}: {e.strerror or e}",
                file=spec, why=str(e.strerror or e),
            ) from None
    else:
        text = _preset_text(spec)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise refusal(
            "rules_not_toml", f"rules file {spec} is not valid TOML: {e}", file=spec, why=str(e)
        ) from None
    parent = data.get("extends")
    if parent is not None:
        if not isinstance(parent, str):
            raise refusal(
                "rules_extends_type",
                f"{spec}: 'extends' must name a preset, like extends = \"netmahjong\"",
                file=spec,
            )
        base = _raw(parent, seen + (spec,))
        data = _merge(base, data)
    if "name" not in data and not path.is_file():
        data["name"] = spec
    return data


def _build(data: dict[str, Any], name: str) -> Rules:
    unknown = set(data) - set(SECTIONS) - {"name", "title", "extends"}
    if unknown:
        raise refusal(
            "rules_unknown_section",
            f"unknown rules section(s) {', '.join(sorted(unknown))}: "
            f"valid sections are {', '.join(SECTIONS)}",
            value=", ".join(sorted(unknown)), choices=", ".join(SECTIONS),
        )
    built: dict[str, Any] = {}
    for sec, cls in SECTIONS.items():
        values = data.get(sec, {})
        if not isinstance(values, Mapping):
            raise refusal(
                "rules_section_type", f"[{sec}] must be a table of switches", value=sec
            )
        values = _derived(sec, values)
        valid = {f.name: f for f in fields(cls)}
        for key, value in values.items():
            if key not in valid:
                raise refusal(
                    "rules_unknown_switch",
                    f"unknown switch {sec}.{key}: valid switches in [{sec}] are "
                    f"{', '.join(valid)}",
                    switch=f"{sec}.{key}", choices=", ".join(valid),
                )
            _check_type(sec, key, valid[key], value)
        built[sec] = cls(**values)
    rules = Rules(name=str(data.get("name", name)), title=str(data.get("title", "")), **built)
    _cross_check(rules)
    return rules


def _derived(sec: str, values: Mapping[str, Any]) -> Mapping[str, Any]:
    """Switches that follow from others when a rules file leaves them out: without busting
    there is no agari-yame (000 (3) 【ローカルルール】 「ブットビなしを選択した場合は、
    あがりやめはできません」)."""
    if sec == "game" and values.get("bust") is False and "agari_yame" not in values:
        return {**values, "agari_yame": "forbidden"}
    return values


def _cross_check(rules: "Rules") -> None:
    """Contradictions between switches of different sections, naming the bad value."""
    if not rules.fu.use_fu and not rules.points.nofu_table:
        raise refusal(
            "rules_nofu_table_missing",
            "fu.use_fu = false needs a price list: give points.nofu_table (see nekohouse-4b), "
            "or set fu.use_fu = true",
            switch="fu.use_fu", value="false", fix="fu.use_fu = true",
        )
    nukidora = rules.hand.nukidora
    if nukidora == "north" and rules.table.players != 3:
        raise refusal(
            "rules_north_nukidora_players",
            f"hand.nukidora = 'north' with table.players = {rules.table.players}: North is set "
            "aside as dora only in three-player; set hand.nukidora = 'none' or table.players = 3",
            switch="hand.nukidora", value="'north'", fix="hand.nukidora = 'none'",
        )
    if rules.points.dora_per_tile and rules.hand.dora_as_han:
        raise refusal(
            "rules_dora_twice",
            f"points.dora_per_tile = {rules.points.dora_per_tile} pays dora in points, but "
            "hand.dora_as_han = true counts them as han too: set hand.dora_as_han = false or "
            "points.dora_per_tile = 0",
            switch="points.dora_per_tile", value=str(rules.points.dora_per_tile),
            fix="hand.dora_as_han = false",
        )
    if rules.chips.pocchi and not rules.hand.pocchi:
        raise refusal(
            "rules_pocchi_chips",
            f"chips.pocchi = {rules.chips.pocchi} but hand.pocchi = false: there is no pocchi "
            "tile; set hand.pocchi = true or chips.pocchi = 0",
            switch="chips.pocchi", value=str(rules.chips.pocchi), fix="hand.pocchi = true",
        )
    if nukidora == "flowers" and rules.table.flowers == 0:
        raise refusal(
            "rules_flower_nukidora",
            "hand.nukidora = 'flowers' but table.flowers = 0: set table.flowers = 4 (and the "
            "matching table.amos_mode) or hand.nukidora = 'none'",
            switch="table.flowers", value="0", fix="table.flowers = 4",
        )


def _check_type(sec: str, key: str, f: dataclasses.Field[Any], value: Any) -> None:
    # a switch without a default has a default factory
    default = (f.default if f.default is not dataclasses.MISSING
               else f.default_factory())  # type: ignore[operator]
    expected = type(default)
    ok = isinstance(value, expected)
    if expected is int and isinstance(value, bool):
        ok = False
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if default is None:
        ok = True
    if not ok:
        raise refusal(
            "rules_type",
            f"{sec}.{key} = {value!r} has the wrong type: expected {expected.__name__}, like "
            f"{sec}.{key} = {toml_value(default)}",
            switch=f"{sec}.{key}", value=repr(value), type=expected.__name__,
            fix=f"{sec}.{key} = {toml_value(default)}",
        )


_LOADED_PRESETS = Memo(len(PRESET_IDS))  # preset id -> Rules: package data never changes


def load_rules(spec: "str | Path | Mapping[str, Any] | Rules") -> Rules:
    """Load a preset id, a TOML file path, or a mapping (may have ``extends``).

    A shipped preset is read once per process and the same :class:`Rules` given out again
    (it is frozen); a club's file is read each time, as it may have been edited."""
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, Mapping):
        data = dict(spec)
        if "extends" in data:
            data = _merge(_raw(str(data["extends"])), data)
        return _build(data, name=str(data.get("name", "custom")))
    spec = str(spec)
    if spec in PRESET_IDS:
        loaded: Rules | None = _LOADED_PRESETS.get(spec)
        if loaded is None:
            loaded = _LOADED_PRESETS.put(spec, _build(_raw(spec), spec))
        return loaded
    return _build(_raw(spec), name=Path(spec).stem if spec.endswith(".toml") else spec)


def set_switches(spec: str) -> set[tuple[str, str]]:
    """``(section, switch)`` of every switch a preset or rules file sets itself or through
    the files it extends (and those derived from them); the rest are schema defaults."""
    data = _raw(spec)
    return {(sec, key) for sec in SECTIONS for key in _derived(sec, data.get(sec, {}))}


def switches() -> list[tuple[str, str, Any, str, tuple[Any, ...] | None]]:
    """Every switch as ``(section, name, default, doc, choices)``, for docs/rules.md."""
    out = []
    for sec, cls in SECTIONS.items():
        for f in fields(cls):
            default = (f.default if f.default is not dataclasses.MISSING
                       else f.default_factory())  # type: ignore[operator]  # as in _check_type
            out.append((sec, f.name, default, f.metadata["doc"], f.metadata.get("choices")))
    return out
