"""The MCR fan registry: every fan of the club's 国際ルール, 88 down to 1.

Source: ``/work/shared/seeds/004_31b80ee9b4db5b91.txt`` (cited below as
"004" with its line number). Each fan has a stable snake_case id (the
English name used by the Chinese Official rules and by PyMahjongGB), the
name as the rulebook writes it (``name_zh``), its Japanese reading
(``name_ja``), its English name (``name_en``, from the id), its points and the fans it
excludes.

``excludes`` holds what the rulebook names for the fan (as 004 reads; the
``hand.mcr_*`` switches give PyMahjongGB's readings) plus what the
referee's non-repeat principle (不重复原则) removes: a fan that the hand
must have whenever this one is present is not counted again (all terminals
always have pungs of terminals, all fives are always all simples ...).
The lists are closed transitively when the module loads, so
"九連宝灯 excludes 清一色" also removes 清一色's own 无字.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fan:
    id: str
    points: int
    name_zh: str
    name_ja: str
    excludes: frozenset[Any]
    source: str

    @property
    def name_en(self) -> str:
        """The English name of the Chinese Official rules, which the id spells in snake_case
        ("pung_of_terminals_or_honors" -> "Pung of Terminals or Honors")."""
        words = self.id.split("_")
        return " ".join(
            w if i and w in _SMALL_WORDS else w.capitalize() for i, w in enumerate(words)
        )


_SMALL_WORDS = frozenset({"of", "or", "and", "the", "with"})


# (id, points, rulebook name, Japanese reading, excludes, rulebook line)
_TABLE = [
    # 88 ------------------------------------------------------------------
    (
        "big_four_winds",
        88,
        "四風会",
        "スーフォンフィ",
        "little_four_winds big_three_winds all_pungs seat_wind prevalent_wind "
        "pung_of_terminals_or_honors",
        "004:17-19",
    ),
    (
        "big_three_dragons",
        88,
        "大三元",
        "ターサンユェン",
        "dragon_pung two_dragons_pungs",
        "004:21-23",
    ),
    (
        "all_green",
        88,
        "緑一色",
        "リューイーソー",
        "half_flush full_flush one_voided_suit",
        "004:25-27",
    ),
    (
        "nine_gates",
        88,
        "九連宝灯",
        "チューリェンポートン",
        "full_flush concealed_hand edge_wait closed_wait single_wait pung_of_terminals_or_honors",
        "004:29-31",
    ),
    ("four_kongs", 88, "四杠", "スーカン", "three_kongs all_pungs single_wait", "004:33"),
    (
        "seven_shifted_pairs",
        88,
        "連七対",
        "リェンチートイ",
        "seven_pairs full_flush concealed_hand single_wait",
        "004:34-36",
    ),
    (
        "thirteen_orphans",
        88,
        "十三幺",
        "シーサンヤオ",
        "all_types concealed_hand single_wait",
        "004:38-40",
    ),
    # 64 ------------------------------------------------------------------
    (
        "all_terminals",
        64,
        "清么九",
        "チンヤオチュー",
        "no_honors all_pungs outside_hand all_terminals_and_honors pung_of_terminals_or_honors",
        "004:47-49",
    ),
    (
        "little_four_winds",
        64,
        "小四風会",
        "シャオスーフォンフィ",
        "big_three_winds pung_of_terminals_or_honors",
        "004:51-53",
    ),
    (
        "little_three_dragons",
        64,
        "小三元",
        "シャオサンユェン",
        "dragon_pung two_dragons_pungs",
        "004:55-57",
    ),
    (
        "all_honors",
        64,
        "字一色",
        "ツーイーソー",
        "all_pungs outside_hand pung_of_terminals_or_honors all_terminals_and_honors "
        "one_voided_suit",
        "004:59-61",
    ),
    (
        "four_concealed_pungs",
        64,
        "四暗刻",
        "スーアンク",
        "concealed_hand all_pungs three_concealed_pungs two_concealed_pungs",
        "004:63-65",
    ),
    (
        "pure_terminal_chows",
        64,
        "一色双龍会",
        "イーソーシュヮンロンフィ",
        "full_flush all_chows seven_pairs pure_double_chow mixed_double_chow two_terminal_chows",
        "004:67-69",
    ),
    # 48 ------------------------------------------------------------------
    (
        "quadruple_chow",
        48,
        "一色四同順",
        "イーソースートンシュン",
        "pure_double_chow pure_triple_chow tile_hog pure_shifted_pungs",
        "004:76-78",
    ),
    (
        "four_pure_shifted_pungs",
        48,
        "一色四節高",
        "イーソースーチェカオ",
        "pure_double_chow pure_triple_chow tile_hog pure_shifted_pungs all_pungs",
        "004:80-82",
    ),
    # 32 ------------------------------------------------------------------
    (
        "four_pure_shifted_chows",
        32,
        "一色四歩高",
        "イーソースープカオ",
        "short_straight pure_shifted_chows",
        "004:89-91",
    ),
    ("three_kongs", 32, "三杠", "サンカン", "", "004:93-95"),
    (
        "all_terminals_and_honors",
        32,
        "混幺九",
        "フンヤオチュー",
        "pung_of_terminals_or_honors outside_hand all_pungs",
        "004:97-99",
    ),
    # 24 ------------------------------------------------------------------
    ("seven_pairs", 24, "七対", "チートイ", "single_wait concealed_hand", "004:106-108"),
    (
        "greater_honors_and_knitted_tiles",
        24,
        "七星不靠",
        "チーシンプカオ",
        "concealed_hand all_types lesser_honors_and_knitted_tiles",
        "004:110-112",
    ),
    ("all_even_pungs", 24, "全双刻", "チェンシュヮンク", "all_pungs all_simples", "004:114-116"),
    ("full_flush", 24, "清一色", "チンイーソー", "no_honors one_voided_suit", "004:118-120"),
    (
        "pure_triple_chow",
        24,
        "一色三同順",
        "イーソーサントンシュン",
        "pure_shifted_pungs pure_double_chow",
        "004:122-124",
    ),
    (
        "pure_shifted_pungs",
        24,
        "一色三節高",
        "イーソーサンチェカオ",
        "pure_triple_chow",
        "004:126-128",
    ),
    ("upper_tiles", 24, "全大", "チュェンター", "no_honors upper_four", "004:130"),
    ("middle_tiles", 24, "全中", "チュェンチュン", "no_honors all_simples", "004:131"),
    ("lower_tiles", 24, "全小", "チュェンシャオ", "no_honors lower_four", "004:132"),
    # 16 ------------------------------------------------------------------
    ("pure_straight", 16, "清龍", "チンロン", "", "004:137"),
    (
        "three_suited_terminal_chows",
        16,
        "三色双龍会",
        "サンソーシュヮンロンフィ",
        "all_chows two_terminal_chows mixed_double_chow no_honors",
        "004:138-140",
    ),
    ("pure_shifted_chows", 16, "一色三歩高", "イーソーサンプカオ", "", "004:142"),
    ("all_five", 16, "全帯五", "チュェンタイウー", "all_simples no_honors all_chows", "004:143"),
    ("triple_pung", 16, "三同刻", "サントンク", "", "004:144"),
    ("three_concealed_pungs", 16, "三暗刻", "サンアンク", "two_concealed_pungs", "004:145"),
    # 12 ------------------------------------------------------------------
    (
        "lesser_honors_and_knitted_tiles",
        12,
        "全不靠",
        "チュェンプカオ",
        "concealed_hand all_types",
        "004:150-152",
    ),
    ("knitted_straight", 12, "組合龍", "ツーハーロン", "edge_wait closed_wait", "004:154-156"),
    ("upper_four", 12, "大于五", "ターユーウー", "no_honors", "004:158"),
    ("lower_four", 12, "小于五", "シャオユーウー", "no_honors", "004:159"),
    ("big_three_winds", 12, "三風刻", "サンフォンク", "", "004:160"),
    # 8 -------------------------------------------------------------------
    ("mixed_straight", 8, "花龍", "ファロン", "", "004:165"),
    ("reversible_tiles", 8, "推不倒", "トイプタオ", "one_voided_suit", "004:166-168"),
    ("mixed_triple_chow", 8, "三色三同順", "サンソーサントンシュン", "", "004:170"),
    ("mixed_shifted_pungs", 8, "三色三節高", "サンソーサンチェカオ", "", "004:171"),
    ("chicken_hand", 8, "无番和", "ウーファンフー", "", "004:172"),
    # 004:173 is cut off after ミャオショーフィチ; the reading is completed.
    ("last_tile_draw", 8, "妙手回春", "ミャオショーフィチュン", "self_drawn", "004:173"),
    ("last_tile_claim", 8, "海底撈月", "ハイテイラオユエ", "", "004:174"),
    # 004:175 is cut off after カンシャンカイフ; the reading is completed.
    ("out_with_replacement_tile", 8, "杠上開花", "カンシャンカイファ", "self_drawn", "004:175-179"),
    ("robbing_the_kong", 8, "搶杠和", "チャンカンフー", "last_tile", "004:181-185"),
    # 004 lists 双暗杠 under 8 points (line 187); the Chinese Official rules
    # and PyMahjongGB give it 6. The points come from hand.mcr_two_concealed_kongs.
    (
        "two_concealed_kongs",
        8,
        "双暗杠",
        "シュヮンアンカン",
        "concealed_kong two_concealed_pungs",
        "004:187",
    ),
    # 6 -------------------------------------------------------------------
    ("all_pungs", 6, "碰碰和", "ポンポンフー", "", "004:194"),
    ("half_flush", 6, "混一色", "フンイーソー", "one_voided_suit", "004:195"),
    ("mixed_shifted_chows", 6, "三色三歩高", "サンソーサンプカオ", "", "004:196-198"),
    ("all_types", 6, "五門斉", "ウーメンチー", "", "004:200"),
    ("melded_hand", 6, "全求人", "チュェンチューレン", "single_wait", "004:201-203"),
    ("two_dragons_pungs", 6, "双箭刻", "シュヮンチェンク", "dragon_pung", "004:205"),
    # 4 -------------------------------------------------------------------
    ("outside_hand", 4, "全帯幺", "チュェンタイヤオ", "", "004:210"),
    (
        "fully_concealed_hand",
        4,
        "不求人",
        "プチューレン",
        "self_drawn concealed_hand",
        "004:211-213",
    ),
    ("two_melded_kongs", 4, "双明杠", "シュヮンミンカン", "melded_kong", "004:215"),
    ("last_tile", 4, "和絶張", "フーチュエチャン", "", "004:216"),
    # 2 -------------------------------------------------------------------
    ("dragon_pung", 2, "箭刻", "チィェンク", "", "004:221"),
    ("prevalent_wind", 2, "圈風刻", "チュェンフォンク", "", "004:222"),
    ("seat_wind", 2, "門風刻", "メンフォンク", "", "004:223"),
    ("concealed_hand", 2, "門前清", "メンチィェンチン", "", "004:224"),
    ("all_chows", 2, "平和", "ピンフー", "no_honors", "004:225-227"),
    ("tile_hog", 2, "四帰一", "スークィイー", "", "004:229"),
    ("double_pung", 2, "双同刻", "シュヮントンク", "", "004:230"),
    ("two_concealed_pungs", 2, "双暗刻", "シュヮンアンク", "", "004:231"),
    ("concealed_kong", 2, "暗杠", "アンカン", "", "004:232"),
    ("all_simples", 2, "断幺", "タンヤオ", "no_honors", "004:233"),
    # 1 -------------------------------------------------------------------
    ("pure_double_chow", 1, "一般高", "イーパンカオ", "", "004:240"),
    ("mixed_double_chow", 1, "喜相逢", "シーシャンフォン", "", "004:241"),
    ("short_straight", 1, "連六", "リェンリュー", "", "004:242"),
    ("two_terminal_chows", 1, "老少副", "ラオシャオフー", "", "004:243"),
    ("pung_of_terminals_or_honors", 1, "么九刻", "ヤオチューク", "", "004:244-246"),
    ("melded_kong", 1, "明杠", "ミンカン", "", "004:248"),
    ("one_voided_suit", 1, "絶一門", "チュエイーメン", "", "004:249"),
    ("no_honors", 1, "无字", "ウーツ", "", "004:250"),
    ("edge_wait", 1, "辺張", "ピェンチャン", "", "004:251-253"),
    ("closed_wait", 1, "坎張", "カンチャン", "", "004:255-257"),
    ("single_wait", 1, "単釣将", "タンテャオチャン", "", "004:259-261"),
    ("self_drawn", 1, "自摸", "ツモ", "", "004:263"),
    ("flower_tiles", 1, "花牌", "ファパイ", "", "004:264-266"),
]

# Not one of the rulebook's 81: PyMahjongGB scores one melded plus one
# concealed kong as this single 5-point fan, where 004:215 gives 双明杠 +
# 暗杠 (6). Used only when hand.mcr_mixed_kongs = "single_fan".
_EXTRA = [
    (
        "concealed_kong_and_melded_kong",
        5,
        "明暗杠",
        "ミンアンカン",
        "melded_kong concealed_kong two_melded_kongs",
        "PyMahjongGB",
    ),
]


# Fans that are another reading of the tiles rather than a property the hand
# must have: excluding one does not exclude what it would have excluded
# (一色双龍会 is not also 七対, but it is still 門前清).
_READINGS = frozenset({"seven_pairs"})


def _close(raw: dict[str, set[Any]]) -> dict[str, frozenset[Any]]:
    """Transitive closure of the exclusion lists (non-repeat principle)."""
    out = {}
    for fid in raw:
        seen: set[Any] = set()
        todo = list(raw[fid])
        while todo:
            x = todo.pop()
            if x not in seen and x != fid:
                seen.add(x)
                if x not in _READINGS:
                    todo.extend(raw.get(x, ()))
        out[fid] = frozenset(seen)
    return out


def _build() -> dict[str, Fan]:
    rows = _TABLE + _EXTRA
    raw = {r[0]: set(r[4].split()) for r in rows}
    unknown = {x for xs in raw.values() for x in xs} - set(raw)
    assert not unknown, f"exclusions name unknown fans: {unknown}"
    closed = _close(raw)
    return {r[0]: Fan(r[0], r[1], r[2], r[3], closed[r[0]], r[5]) for r in rows}


FANS: dict[str, Fan] = _build()
RULEBOOK_FANS: tuple[str, ...] = tuple(r[0] for r in _TABLE)
ORDER = {fid: i for i, fid in enumerate(FANS)}


def reference() -> list[dict[str, Any]]:
    """Every rulebook fan as a row for docs: id, points, names, exclusions, rulebook line."""
    return [
        {
            "id": f.id,
            "points": f.points,
            "name_zh": f.name_zh,
            "name_ja": f.name_ja,
            "name_en": f.name_en,
            "excludes": sorted(f.excludes),
            "source": f.source,
        }
        for f in (FANS[fid] for fid in RULEBOOK_FANS)
    ]
